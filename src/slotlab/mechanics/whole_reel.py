"""Whole-reel symbols: one symbol as tall as the reel, standing on its strip as a run of
``rows`` stops. It counts only in full view, when it fills the reel; a reel showing part of it
shows nothing. A game decides what a filled reel starts.

:func:`is_full` is the compiled test; :func:`full_stops` counts, for exact calculators, the
stops at which a reel is filled.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def is_full(window: np.ndarray, reel: int, symbol: int) -> bool:
    """Whether ``symbol`` fills every row of ``reel``."""
    for row in range(window.shape[1]):  # noqa: SIM110 - a compiled loop, no generator
        if window[reel, row] != symbol:
            return False
    return True


def full_stops(strip: np.ndarray, length: int, rows: int, symbol: int) -> int:
    """How many of a reel's ``length`` stops show ``symbol`` in every row (``strip`` wrapped, as
    the line kernels keep it)."""
    return sum(1 for p in range(length) if np.all(strip[p : p + rows] == symbol))
