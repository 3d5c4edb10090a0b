"""Hold and win with collectors, exactly: what a grid of coins and collectors is worth at its end.

Landings are coins or collectors independently of the respin chain
(:func:`slotlab.mechanics.hold_and_win.final_held_distribution` gives how many cells are held at
the end), and coin values independently of both. Each collector adds the sum of the coins'
values once more, so the grid pays ``sum of coins x (1 + collectors)`` and is worth the mean coin
value times ``E[coins x (1 + collectors)]``.
"""

from __future__ import annotations

from fractions import Fraction

from slotlab.mechanics.hold_and_win import final_held_distribution


def coins_times_collectors(n: int, start: int, q_coin: Fraction) -> Fraction:
    """``E[C * (1 + L)]`` when ``start`` coins are held and ``n`` more cells land, each a coin
    with probability ``q_coin`` and otherwise a collector, independently: ``C`` coins and ``L``
    collectors in all."""
    mean = n * q_coin  # E[X], X ~ Binomial(n, q_coin) new coins
    second = n * q_coin * (1 - q_coin) + mean * mean  # E[X^2]
    # (start + X) * (1 + n - X), expanded and taken in expectation
    return start * (1 + n) + (1 + n - start) * mean - second


def expected_collected(cells: int, start: int, p_land: Fraction, q_coin: Fraction,
                       respins: int) -> Fraction:
    """``E[C * (1 + L)]`` at the end of a hold and win that starts with ``start`` coins held and
    ``respins`` on the counter (reset on each landing), each free cell landing with probability
    ``p_land`` per respin, a landing a coin with probability ``q_coin``, else a collector."""
    if start >= cells:
        return Fraction(start)
    ends = final_held_distribution(cells, start, p_land, respins)
    return sum((p * coins_times_collectors(k - start, start, q_coin) for k, p in ends.items()),
               Fraction(0))


def expected_landings(cells: int, start: int, p_land: Fraction, respins: int) -> Fraction:
    """Expected number of cells that land during the feature (coins and collectors)."""
    if start >= cells:
        return Fraction(0)
    ends = final_held_distribution(cells, start, p_land, respins)
    return sum((p * (k - start) for k, p in ends.items()), Fraction(0))
