"""Weighted tables: fractional research weights become integers; draws follow the weights."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from slotlab.mechanics.weighted import WeightedTable, draw
from slotlab.rng import chunk_stream


def test_fractional_weights_are_scaled_to_the_smallest_integers() -> None:
    table = WeightedTable.of([("a", 2.5), ("b", 0.5), ("c", 1)])
    assert table.weights == (5, 1, 2)
    assert table.probability(0) == Fraction(5, 8)
    assert table.mean(lambda v: {"a": 8, "b": 0, "c": 4}[v]) == Fraction(5 * 8 + 2 * 4, 8)


def test_integer_values_and_mean() -> None:
    table = WeightedTable.of([(30, 20), (40, 18), (2000, 0.5)])
    assert list(table.int_values()) == [30, 40, 2000]
    assert table.mean() == Fraction(30 * 40 + 40 * 36 + 2000 * 1, 77)


@pytest.mark.parametrize("bad", [[], [("a", 0)], [("a", -1)]])
def test_a_table_needs_positive_weights(bad: list[tuple[str, int]]) -> None:
    with pytest.raises(ValueError, match="positive"):
        WeightedTable.of(bad)


def test_draws_follow_the_weights_chi_square_99() -> None:
    table = WeightedTable.of([(0, 1), (1, 2.5), (2, 6.5)])
    cum = table.cumulative()
    stream = chunk_stream(7, 0)
    n = 200_000
    counts = np.bincount([draw(stream, cum) for _ in range(n)], minlength=3)
    expected = [n * float(p) for p in table.probabilities()]
    assert chisquare(counts, expected).pvalue > 0.01  # 99% level, fixed seed
