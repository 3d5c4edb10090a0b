"""Superstars' "The probability of winning the top prize is 1.11%", as the model gives it.

The reading (RULES.md, *The "1.11 %"*): the top prize is the Final board's largest square (1000x
bet, the largest fixed prize the game has), and "winning" it is the token landing on it at least
once in a Final Game. Its probability is quoted per Bonus Game, the only unit in which a figure
of the order of 1 % can arise (per round it is 300 times smaller).

:func:`top_prize_rates` plays Bonus Games from every trigger class (windows drawn from the exact
class distribution, as :mod:`.exact` does), traces each Final Game and counts those whose token
lands on the top square; the classes are weighted by their exact probabilities. Figures are
estimates with a 99 % interval.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import Z99
from slotlab.rng import chunk_stream, cumulative_weights

from . import bonus as _bonus
from .bonus_spec import BonusSpec
from .exact import class_probabilities, place_triggers, trigger_classes
from .model import N_CELLS

if TYPE_CHECKING:
    from .game import Superstars

PUBLISHED = 0.0111  # the rule text's figure
T_BONUSES, T_FINAL, T_TOP, T_OVERFLOW = range(4)
EV_ROWS = 8192  # event rows per Bonus Game; one that needs more is counted as an overflow


@njit(cache=True)
def _count_class(bp: tuple[np.ndarray, ...], stream: np.ndarray, n: int, cum: np.ndarray,
                 cfgs: np.ndarray, top: int, out: np.ndarray) -> None:
    """``n`` traced Bonus Games of one class: bonuses, Final Games, Final Games whose token
    landed on a square paying ``top`` (``out[T_*]``)."""
    cells = np.zeros(N_CELLS, np.int64)
    ev = np.zeros((EV_ROWS, _bonus.EV_WIDTH), np.int64)
    for _ in range(n):
        dice_cell = place_triggers(stream, cum, cfgs, cells)
        _reels, _final, n_ev, flags = _bonus.play_bonus_parts(stream, bp, cells, dice_cell, True,
                                                              ev, 0)
        for i in range(N_CELLS):
            cells[i] = 0
        out[T_BONUSES] += 1
        if n_ev > EV_ROWS:
            out[T_OVERFLOW] += 1
            continue
        if flags & _bonus.FLAG_FINAL_GAME:
            out[T_FINAL] += 1
            for i in range(n_ev):
                if ev[i, 0] == _bonus.EV_FINAL_ROLLED and ev[i, 4] == top:
                    out[T_TOP] += 1
                    break


def top_square_chance(spec: BonusSpec, dice: int) -> Fraction:
    """The exact probability that a Final Game of ``dice`` initial dice (the bottom-left die
    included) lands on the top square at least once.

    ``Q_d(p)``, the chance with ``d`` dice left and the token on square ``p``, solves ``Q_d = A
    (top + (1 - top) (G Q_d + (1 - G) Q_{d-1}))``, ``A`` the die's move, ``G`` the die squares
    (a die square hands the die back), ``Q_0 = 0``: one small linear system per ``d``, as
    :func:`.bonus.final_game_mean` solves for the mean.
    """
    board = spec.final_board
    m = len(board)
    best = max(v for v in board if v != "DICE")
    hit = [v == best for v in board]
    gain = [v == "DICE" for v in board]
    sixth = Fraction(1, 6)
    q = [Fraction(0)] * m
    for _ in range(dice):
        rhs = [sum((sixth * (1 if hit[(p + r) % m] else 0 if gain[(p + r) % m]
                             else q[(p + r) % m]) for r in range(1, 7)), Fraction(0))
               for p in range(m)]
        a = [[Fraction(int(i == j)) for j in range(m)] for i in range(m)]
        for p in range(m):
            for r in range(1, 7):
                s = (p + r) % m
                if gain[s] and not hit[s]:
                    a[p][s] -= sixth
        q = _bonus._solve(a, rhs)
    return q[0]


def top_prize_rates(game: Superstars, bonuses: int = 200_000, seed: int = 0) -> dict[str, Any]:
    """P(the top square is won) per Bonus Game, per Final Game and per round, with 99 %
    intervals; ``bonuses`` shared among the trigger classes by probability (each >= 1,000)."""
    model = game.model
    board = model.bonus_spec.final_board
    top = max(v for v in board if v != "DICE")
    probs = class_probabilities(model)
    p_trigger = sum(probs.values(), Fraction(0))
    per_bonus = final = var = 0.0
    for i, (cls, p) in enumerate(probs.items()):
        share = float(p / p_trigger)
        n = max(int(bonuses * share), 1000)
        cfgs_p = trigger_classes(model)[cls]
        scale = math.lcm(*(q.denominator for _, q in cfgs_p))
        weights = [int(q * scale) for _, q in cfgs_p]
        g = math.gcd(*weights)
        cum = cumulative_weights([w // g for w in weights])
        cfgs = np.array([c for c, _ in cfgs_p], np.int64)
        out = np.zeros(4, np.int64)
        _count_class(game._bp, chunk_stream(seed, i), n, cum, cfgs, top, out)
        if out[T_OVERFLOW]:
            raise RuntimeError(f"{out[T_OVERFLOW]} Bonus Games needed more than {EV_ROWS} rows")
        rate = out[T_TOP] / n
        per_bonus += share * rate
        final += share * out[T_FINAL] / n
        var += share * share * rate * (1 - rate) / n
    half = Z99 * math.sqrt(var)
    pt = float(p_trigger)
    return {
        "top_prize_x_bet": top, "bonuses": bonuses, "seed": seed,
        "per_bonus_game": per_bonus, "ci99": [per_bonus - half, per_bonus + half],
        "final_game_per_bonus_game": final,
        "per_final_game": per_bonus / final if final else None,
        "per_round": per_bonus * pt,
        "published": PUBLISHED, "gap_pp": (per_bonus - PUBLISHED) * 100,
        "estimated": True,
    }
