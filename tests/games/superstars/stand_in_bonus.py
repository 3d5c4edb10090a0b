"""A trivial stand-in for ``slotlab.games.superstars.bonus`` while the Bonus Game is written.

It keeps the interface (``EV_WIDTH``, ``pack_bonus``, ``play_bonus``, ``play_bonus_parts``,
``bonus_events``): each
triggering Scatter and the Dice become one prize of 1 to 25 x bet drawn from the round's stream,
plus ``bp[0][0]`` x bet (a test may raise it); flags bit 0 is set when the total is 100x or more.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from slotlab.rng import randbelow

EV_WIDTH = 8
EV_STUB_PRIZE = 1


def pack_bonus(spec: Any) -> tuple[np.ndarray, ...]:
    return (np.zeros(1, np.int64),)


@njit
def play_bonus(stream, bp, trigger_cells, dice_cell, trace, ev, n_ev):
    win = 0
    for c in range(25):
        if trigger_cells[c] == 1 or c == dice_cell:
            v = randbelow(stream, 25) + 1
            win += v
            if trace:
                if n_ev < ev.shape[0]:
                    ev[n_ev, 0] = EV_STUB_PRIZE
                    ev[n_ev, 1] = c
                    ev[n_ev, 2] = v
                n_ev += 1
    win += bp[0][0]
    return win, n_ev, 1 if win >= 100 else 0


@njit
def play_bonus_parts(stream, bp, trigger_cells, dice_cell, trace, ev, n_ev):
    """As play_bonus, split as (reels, final game, n_ev, flags): the stand-in's final part is
    bp[0][0]."""
    win, n_ev, flags = play_bonus(stream, bp, trigger_cells, dice_cell, trace, ev, n_ev)
    return win - bp[0][0], bp[0][0], n_ev, flags


def bonus_events(rows: list[list[int]], spec: Any = None) -> list[dict[str, Any]]:
    return [{"type": "stand_in_prize", "cell": int(r[1]), "x_bet": int(r[2])} for r in rows]
