"""Event rows: how the kernels write what happened in a round into a preallocated buffer.

A traced round writes one int64 row per event into ``ev`` (rows x columns): column 0 is the
event kind, the next columns its figures, in an order each game defines. A round that has more
events than ``ev`` has rows still counts them all, so the caller can tell that rows were dropped
(and retry with a bigger buffer).
"""

from __future__ import annotations

import numpy as np
from numba import njit


# Inlined into each kernel: a call passing ``ev`` would cost reference counting, and the width
# is a constant at every call site, so the tests on it compile away.
@njit(cache=True, inline="always")
def put_event(ev: np.ndarray, i: int, width: int, kind: int, a: int = 0, b: int = 0, c: int = 0,
              d: int = 0, e: int = 0, f: int = 0, g: int = 0) -> int:
    """Write columns ``0 .. width - 1`` of row ``i`` of ``ev`` (``kind, a, b, ...``; the rest of
    the row is left as it is) when the row fits; returns ``i + 1`` either way.

    Element by element: assigning a tuple to a slice costs seconds of compile time per site.
    """
    if i < ev.shape[0]:
        ev[i, 0] = kind
        if width > 1:
            ev[i, 1] = a
        if width > 2:
            ev[i, 2] = b
        if width > 3:
            ev[i, 3] = c
        if width > 4:
            ev[i, 4] = d
        if width > 5:
            ev[i, 5] = e
        if width > 6:
            ev[i, 6] = f
        if width > 7:
            ev[i, 7] = g
    return i + 1
