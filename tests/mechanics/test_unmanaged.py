"""Views without reference counts (mechanics/unmanaged.py): the same data, every array of a
tuple, and the arrays' own counts untouched."""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from slotlab.mechanics.unmanaged import unmanaged_all


@njit(cache=True)
def _sum_and_write(arrays: tuple[np.ndarray, np.ndarray]) -> int:
    a, b = unmanaged_all(arrays)
    b[0, 1] = a[2]  # a write through a view reaches the caller's array
    return int(a.sum() + b.sum())


def test_every_array_of_a_tuple_is_viewed_in_place() -> None:
    a = np.arange(5, dtype=np.int64)
    b = np.zeros((2, 3), dtype=np.int64)
    before = sys.getrefcount(a), sys.getrefcount(b)
    assert _sum_and_write((a, b)) == 10 + 2
    assert b.tolist() == [[0, 2, 0], [0, 0, 0]]
    # the views hold no count: the arrays' counts are what they were
    assert (sys.getrefcount(a), sys.getrefcount(b)) == before
