"""Symbols that pay or trigger by their count anywhere in the window, whatever the lines.

:func:`paying_scatters` pays the counts in a compiled round; :func:`window_count_weights` and
:func:`convolve` give the exact distribution of that count over a full reel cycle (each reel's
stops weighted by how many of them show ``k`` of the symbol, the reels' polynomials multiplied).
"""

from __future__ import annotations

import numpy as np
from numba import njit


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


@njit(cache=True, inline="always")
def paying_scatters(counts: np.ndarray, symbols: np.ndarray, pays: np.ndarray,
                    cells: int) -> int:
    """What the scatters ``symbols`` pay by their counts in a window of ``cells`` cells
    (``counts[s]``: how many show symbol ``s``): scatter ``k`` showing ``c`` times pays
    ``pays[k * (cells + 1) + c]`` (one row per scatter, flattened)."""
    total = 0
    for k in range(symbols.shape[0]):
        total += pays[k * (cells + 1) + counts[symbols[k]]]
    return total
