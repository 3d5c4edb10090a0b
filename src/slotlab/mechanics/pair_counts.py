"""How many of two symbols a window shows together (scatters and coins, say), over a full reel
cycle: each reel's stops counted by the pair they show, the reels' two-variable polynomials
multiplied. The joint distribution matters where what a window starts depends on both counts."""

from __future__ import annotations

import numpy as np


def window_pair_count_weights(strip: np.ndarray, length: int, rows: int, a: int,
                              b: int, blank: int = -1, full: int = -1) -> list[list[int]]:
    """For one reel: ``w[i][j]`` stops show ``i`` of symbol ``a`` and ``j`` of symbol ``b``
    (``strip`` wrapped as :func:`slotlab.mechanics.scatter.window_count_weights` takes it; a
    symbol < 0 counts nothing). A stop showing ``blank`` shows neither: its reel turns into
    something else (an expanding reel, :mod:`slotlab.mechanics.expanding`). Stops that ``full``
    fills are left out, for the caller to count (:mod:`slotlab.mechanics.whole_reel`)."""
    weights = [[0] * (rows + 1) for _ in range(rows + 1)]
    for p in range(length):
        cells = strip[p : p + rows]
        if full >= 0 and np.all(cells == full):
            continue
        if blank >= 0 and np.any(cells == blank):
            weights[0][0] += 1
            continue
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
