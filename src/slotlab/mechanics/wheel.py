"""A wheel: weighted segments, each of which pays, starts a feature with a multiplier on its
wins, or both. One spin is one weighted draw (:func:`slotlab.mechanics.weighted.draw`); its
exact value is the weighted mean of what the segments bring."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from slotlab.mechanics.weighted import WeightedTable


@dataclass(frozen=True)
class Segment:
    """What a segment brings: ``pay`` units now, and ``feature`` (if any) with its wins times
    ``multiplier``; ``spins``, when not 0, the number of spins a free-spin feature awards (a
    game decides what it means for retriggers), on the strip set ``strips``."""

    pay: int = 0
    feature: str | None = None
    multiplier: int = 1
    spins: int = 0
    strips: str | None = None  # the reels its free spins play on; None: the game's


def wheel_value(wheel: WeightedTable[Segment], feature_value: Mapping[str, Fraction]) -> Fraction:
    """The exact expected value of one spin, given each feature's expected value at
    multiplier 1 (a feature's wins scale with the multiplier: no cap inside a feature)."""
    return wheel.mean(lambda s: s.pay + (s.multiplier * feature_value[s.feature]
                                         if s.feature is not None else 0))


def feature_probability(wheel: WeightedTable[Segment], feature: str) -> Fraction:
    """P(a spin starts ``feature``)."""
    return sum((p for s, p in zip(wheel.values, wheel.probabilities(), strict=True)
                if s.feature == feature), Fraction(0))
