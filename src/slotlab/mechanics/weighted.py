"""Weighted tables: prize tables, wheels and reels of outcomes, drawn with integer weights.

Research tables often carry fractional weights (0.5, 2.5); a table scales them by the least
common multiple of their denominators, so that the compiled draw (:func:`draw`, one unbiased
``randbelow``) and the exact math (:meth:`WeightedTable.probability`) see the same integers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Generic, TypeVar

import numpy as np

from slotlab.rng import cumulative_weights, weighted_pick

V = TypeVar("V")

draw = weighted_pick  # index i with probability weights[i] / total (compiled, inlinable)


@dataclass(frozen=True)
class WeightedTable(Generic[V]):
    """Outcomes and their positive integer weights, in a fixed order."""

    values: tuple[V, ...]
    weights: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.values) != len(self.weights) or not self.values:
            raise ValueError("a weighted table needs one positive weight per value")
        if any(not isinstance(w, int) or w <= 0 for w in self.weights):
            raise ValueError(f"weights must be positive integers, got {list(self.weights)}")

    @classmethod
    def of(cls, pairs: Iterable[tuple[V, int | float | str | Fraction]]) -> WeightedTable[V]:
        """A table from ``(value, weight)`` pairs; weights may be fractional (as decimals)."""
        items = [(v, Fraction(str(w)) if isinstance(w, float) else Fraction(w)) for v, w in pairs]
        scale = math.lcm(*(w.denominator for _, w in items)) if items else 1
        return cls(tuple(v for v, _ in items), tuple(int(w * scale) for _, w in items))

    @property
    def total(self) -> int:
        return sum(self.weights)

    def probability(self, i: int) -> Fraction:
        return Fraction(self.weights[i], self.total)

    def probabilities(self) -> list[Fraction]:
        return [self.probability(i) for i in range(len(self.values))]

    def mean(self, value: Callable[[V], Any] = lambda v: v) -> Fraction:
        """The exact expectation of ``value(outcome)``."""
        return sum((Fraction(value(v)) * p for v, p in zip(self.values, self.probabilities(),
                                                           strict=True)), Fraction(0))

    def cumulative(self) -> np.ndarray:
        """Cumulative int64 weights for :func:`draw`."""
        return cumulative_weights(list(self.weights))

    def int_values(self) -> np.ndarray:
        """The values as ``int64`` (for tables of integer prizes)."""
        return np.array([int(v) for v in self.values], dtype=np.int64)  # type: ignore[call-overload]


def scaled(table: Sequence[tuple[V, int | float | str | Fraction]]) -> WeightedTable[V]:
    """Shorthand for :meth:`WeightedTable.of`."""
    return WeightedTable.of(table)
