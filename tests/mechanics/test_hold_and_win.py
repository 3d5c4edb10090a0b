"""The hold-and-win grid: cells lock what lands, the counter resets, the exact chain is right."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from slotlab.mechanics.hold_and_win import (
    final_held_distribution,
    land_on_free_cells,
    land_on_free_list,
    next_counter,
)
from slotlab.rng import chunk_stream, cumulative_weights


def test_counter_resets_on_a_landing_and_counts_down_otherwise() -> None:
    assert next_counter(1, 2, 3) == 3
    assert next_counter(3, 0, 3) == 2
    assert next_counter(1, 0, 4) == 0


def test_held_cells_do_not_spin() -> None:
    held = np.array([1, 0, 1, 0, 0], dtype=np.int64)
    landed = np.full(5, 9, dtype=np.int64)
    cum = cumulative_weights([1, 1])  # outcome 1 (a landing) half the time
    n = land_on_free_cells(chunk_stream(1, 0), held, cum, landed)
    assert landed[0] == 0 and landed[2] == 0
    assert n == int(np.count_nonzero(landed))


def _brute_force(cells: int, start: int, p: Fraction, respins: int) -> dict[int, Fraction]:
    """Every landing pattern of every respin, walked one cell at a time."""
    out: dict[int, Fraction] = {}

    def walk(held: int, counter: int, prob: Fraction) -> None:
        if held == cells or counter == 0:
            out[held] = out.get(held, Fraction(0)) + prob
            return
        free = cells - held
        for pattern in itertools.product((0, 1), repeat=free):
            j = sum(pattern)
            pj = p**j * (1 - p) ** (free - j)
            walk(held + j, respins if j else counter - 1, prob * pj)

    walk(start, respins, Fraction(1))
    return out


@pytest.mark.parametrize(("cells", "start", "p", "respins"), [
    (4, 1, Fraction(1, 3), 2), (5, 2, Fraction(1, 4), 3), (3, 0, Fraction(1, 2), 1)])
def test_exact_chain_equals_brute_force(cells: int, start: int, p: Fraction, respins: int) -> None:
    assert final_held_distribution(cells, start, p, respins) == _brute_force(cells, start, p,
                                                                              respins)


def test_exact_chain_agrees_with_simulation_99() -> None:
    cells, start, p, respins = 15, 3, Fraction(585, 10000), 3
    dist = final_held_distribution(cells, start, p, respins)
    mean = sum(k * x for k, x in dist.items())
    var = sum(k * k * x for k, x in dist.items()) - mean**2
    stream = chunk_stream(11, 0)
    cum = cumulative_weights([10000 - 585, 585])
    held = np.zeros(cells, dtype=np.int64)
    landed = np.zeros(cells, dtype=np.int64)
    n, total = 20_000, 0
    for _ in range(n):
        held[:] = 0
        held[:start] = 1
        counter = respins
        while counter > 0 and held.sum() < cells:
            landings = land_on_free_cells(stream, held, cum, landed)
            held |= landed != 0
            counter = next_counter(counter, landings, respins)
        total += int(held.sum())
    half = 2.5758 * float(var) ** 0.5 / n**0.5  # 99% interval, fixed seed
    assert abs(total / n - float(mean)) < half


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        final_held_distribution(3, 4, Fraction(1, 2), 3)


def test_a_free_list_respin_holds_values_and_keeps_non_holding_landings_free() -> None:
    cumulative = np.array([5, 8, 10], dtype=np.int64)  # nothing 5/10, a value 3/10, other 2/10
    outcomes = np.array([0, 7, -1], dtype=np.int64)
    free = np.array([1, 3, 4, 7], dtype=np.int64)
    draws = np.array([0, 6, 9, 4], dtype=np.int64)
    cells, what = np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    still, n = land_on_free_list(draws, free, 4, cumulative, outcomes, cells, what)
    assert (still, n) == (3, 2)
    assert list(free[:still]) == [1, 4, 7]  # cell order kept; the held cell left the list
    assert list(cells[:n]) == [3, 4] and list(what[:n]) == [7, -1]
