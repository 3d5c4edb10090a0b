"""Symbols that pay or trigger by their count anywhere in the window, whatever the lines.

:func:`count_in_window` counts in a compiled round; :func:`window_count_weights` and
:func:`convolve` give the exact distribution of that count over a full reel cycle (each reel's
stops weighted by how many of them show ``k`` of the symbol, the reels' polynomials multiplied).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def count_in_window(window: np.ndarray, symbol: int) -> int:
    """How many cells of ``window`` (``int64[reels, rows]``) show ``symbol``."""
    count = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            if window[r, row] == symbol:
                count += 1
    return count


def window_count_weights(strip: np.ndarray, length: int, rows: int, symbol: int) -> list[int]:
    """For one reel: how many of its ``length`` stops show ``k`` of ``symbol``, k = 0..rows.

    ``strip`` is the reel's strip with its first ``rows - 1`` stops repeated at the end (the
    window wraps round), as the line kernels keep it; ``symbol < 0`` counts nothing.
    """
    weights = [0] * (rows + 1)
    for p in range(length):
        k = int(np.count_nonzero(strip[p : p + rows] == symbol)) if symbol >= 0 else 0
        weights[k] += 1
    return weights


def convolve(polys: list[list[int]]) -> list[int]:
    """The product of polynomials given by their coefficients (index = power)."""
    total = [1]
    for q in polys:
        out = [0] * (len(total) + len(q) - 1)
        for i, a in enumerate(total):
            if a:
                for j, b in enumerate(q):
                    out[i + j] += a * b
        total = out
    return total


def window_pair_count_weights(strip: np.ndarray, length: int, rows: int, a: int,
                              b: int) -> list[list[int]]:
    """For one reel: ``w[i][j]`` stops show ``i`` of symbol ``a`` and ``j`` of symbol ``b``
    (strip wrapped as in :func:`window_count_weights`; a symbol < 0 counts nothing)."""
    weights = [[0] * (rows + 1) for _ in range(rows + 1)]
    for p in range(length):
        cells = strip[p : p + rows]
        i = int(np.count_nonzero(cells == a)) if a >= 0 else 0
        j = int(np.count_nonzero(cells == b)) if b >= 0 else 0
        weights[i][j] += 1
    return weights


def convolve2(polys: list[list[list[int]]]) -> list[list[int]]:
    """The product of polynomials in two variables given by coefficient grids."""
    total = [[1]]
    for q in polys:
        rows, cols = len(total) + len(q) - 1, len(total[0]) + len(q[0]) - 1
        out = [[0] * cols for _ in range(rows)]
        for i, row in enumerate(total):
            for j, x in enumerate(row):
                if x:
                    for k, qrow in enumerate(q):
                        for m, y in enumerate(qrow):
                            if y:
                                out[i + k][j + m] += x * y
        total = out
    return total
