"""A colour wheel: a mini game on the player's choice. The player picks a colour; the wheel
spins (one weighted draw of a segment, each a colour and a multiplier) and adds its multiplier
to the total; while the segment is the chosen colour and the total has not passed the limit, it
spins again. It pays the total, times the total bet.

:func:`spin_until` is the compiled game; :func:`colour_value` its exact expected total for a
colour, by recursion over the total reached (every total past the limit ends it, so the
recursion is finite).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
from numba import njit

from slotlab.rng import weighted_pick


@njit(cache=True)
def spin_until(stream: np.ndarray, cumulative: np.ndarray, colours: np.ndarray,
               multipliers: np.ndarray, colour: int, limit: int) -> int:
    """Play the wheel for ``colour``; returns the total multiplier."""
    total = 0
    while True:
        seg = weighted_pick(stream, cumulative)
        total += multipliers[seg]
        if colours[seg] != colour or total > limit:
            return int(total)


def colour_value(weights: list[int], colours: list[int], multipliers: list[int], colour: int,
                 limit: int) -> Fraction:
    """E[total] for a player who picks ``colour``."""
    n = sum(weights)

    @cache
    def value(total: int) -> Fraction:
        out = Fraction(0)
        for w, c, m in zip(weights, colours, multipliers, strict=True):
            after = total + m
            out += Fraction(w, n) * (value(after) if c == colour and after <= limit else after)
        return out

    # deepest totals first, so the recursion never runs deep
    for total in range(limit, -1, -1):
        value(total)
    return value(0)
