"""Event rows: a row writes the columns its width names, and a full buffer still counts rows."""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.mechanics.events import put_event


@njit(cache=True)
def _write_rounds(ev: np.ndarray, x: int) -> int:
    """Rows as a kernel writes them (``put_event`` inlined): widths 8, 3, 1 and 5."""
    n = 0
    n = put_event(ev, n, 8, 7, x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6)
    n = put_event(ev, n, 3, 8, x, True)
    n = put_event(ev, n, 1, 9)
    n = put_event(ev, n, 5, 10, 0, 0, x)  # figures not given are 0
    return int(n)


def _written(rows: int) -> tuple[int, np.ndarray]:
    ev = np.full((rows, 8), -1, np.int64)
    return _write_rounds(ev, 100), ev


def test_each_row_writes_its_width_and_leaves_the_rest() -> None:
    n, ev = _written(4)
    assert n == 4
    assert ev.tolist() == [
        [7, 100, 101, 102, 103, 104, 105, 106],
        [8, 100, 1, -1, -1, -1, -1, -1],
        [9, -1, -1, -1, -1, -1, -1, -1],
        [10, 0, 0, 100, 0, -1, -1, -1],
    ]


def test_a_full_buffer_keeps_the_rows_that_fit_and_counts_every_row() -> None:
    n, ev = _written(2)
    assert n == 4  # the caller sees that two rows did not fit
    assert ev.tolist() == [
        [7, 100, 101, 102, 103, 104, 105, 106],
        [8, 100, 1, -1, -1, -1, -1, -1],
    ]


def test_no_buffer_rows_at_all_still_counts() -> None:
    n, ev = _written(0)
    assert n == 4
    assert ev.size == 0


def test_callable_from_python_on_one_row() -> None:
    ev = np.zeros((1, 4), np.int64)
    assert put_event(ev, 0, 4, 3, 1, 2, 5) == 1
    assert put_event(ev, 1, 4, 3, 1, 2, 5) == 2  # beyond the buffer: nothing written
    assert ev.tolist() == [[3, 1, 2, 5]]
