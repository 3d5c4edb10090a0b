"""Superstars' RTP: the base game exactly, the Bonus Game by direct simulation, composed.

* **Lines, exactly.** A line reads one cell per reel and the reels stop independently, each cell
  uniform over its strip, so every line has the same pay distribution: the line RTP is 45 x the
  expected pay of one line, summed over all ``13^5`` symbol tuples weighted by the product of the
  reels' symbol counts (the shared evaluator :func:`slotlab.mechanics.lines.walk_lines` pays
  each tuple). A ``Fraction``.
* **Triggers, exactly.** Each reel shows at most one Scatter or Dice (the model checks they are
  5 stops apart), so a reel is in one of three states (none, Scatter, Dice) with probabilities
  from :func:`slotlab.mechanics.scatter.window_count_weights`; the product over reels gives
  every *trigger class* (symbols in view 3, 4, 5; with or without the Dice) exactly, and the
  distribution of which reels hold them. Within a reel the row is uniform (every Scatter stop is
  in view on each of the 5 rows once per cycle).
* **The Bonus Game, by direct simulation.** For each class, Bonus Games are played from trigger
  windows drawn from that exact conditional distribution (:func:`simulate_class`, which calls
  the bonus engineer's :func:`.bonus.play_bonus`), giving ``E[bonus | class]`` with its
  variance. Total RTP = lines + sum over classes of P(class) x E[bonus | class], with a 99 %
  interval from the classes' standard errors (the line part has none).

The cap of 10,000x is applied in the round to lines + bonus; the composition reports what
``max(bonus - cap, 0)`` removes from the simulated bonuses (a bound: the spin's line win adds
at most a few x bet, see RULES.md).
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import Z99
from slotlab.mechanics.lines import walk_lines
from slotlab.mechanics.scatter import window_count_weights
from slotlab.rng import chunk_stream, cumulative_weights, randbelow, weighted_pick

from . import bonus as _bonus
from .kernel import EV_WIDTH, FLAG_FINAL_GAME
from .model import N_CELLS, N_REELS, N_ROWS, Model

if TYPE_CHECKING:
    from .game import Superstars

NONE, SCATTER, DICE = 0, 1, 2  # reel states
# Bonus statistics per class (simulate_class): sums, counts at thresholds of x bet, and how
# many Bonus Games raised each of the bonus module's flags (FLAG_NAMES: features played).
B_N, B_SUM, B_FINAL_SUM, B_FINAL, B_MAX, B_OVER_CAP, B_CAP_EXCESS = 0, 1, 2, 3, 4, 5, 6
THRESHOLDS_X = (50, 100, 200, 500, 1000, 5000)
B_AT = 7  # B_AT + i counts bonuses >= THRESHOLDS_X[i]
B_FLAGS = B_AT + len(THRESHOLDS_X)  # B_FLAGS + bit counts bonuses with that flag bit
B_SIZE = B_FLAGS + _bonus.N_FLAGS


def fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


# -- lines ------------------------------------------------------------------------------------


def symbol_counts(model: Model) -> np.ndarray:
    """``counts[reel, code]``: stops of each symbol on each strip."""
    counts = np.zeros((N_REELS, len(model.symbol_ids)), np.int64)
    for r in range(N_REELS):
        for s in model.strips[r, : model.lengths[r]]:
            counts[r, s] += 1
    return counts


@njit(cache=True)
def _one_line_pays(counts: np.ndarray, paytab: np.ndarray, substitutes: np.ndarray, wild: int,
                   out: np.ndarray) -> int:
    """``out[code, run]`` += weight of the tuples whose one line pays ``code`` x ``run``;
    returns the weighted pay sum (units x number of stop combinations)."""
    n_sym = counts.shape[1]
    window = np.zeros((5, 1), np.int64)
    line = np.zeros((1, 5), np.int64)
    wins = np.zeros((1, 5), np.int64)
    total = 0
    for a in range(n_sym):
        wa = counts[0, a]
        if wa == 0:
            continue
        window[0, 0] = a
        for b in range(n_sym):
            wb = wa * counts[1, b]
            if wb == 0:
                continue
            window[1, 0] = b
            for c in range(n_sym):
                wc = wb * counts[2, c]
                if wc == 0:
                    continue
                window[2, 0] = c
                for d in range(n_sym):
                    wd = wc * counts[3, d]
                    if wd == 0:
                        continue
                    window[3, 0] = d
                    for e in range(n_sym):
                        we = wd * counts[4, e]
                        if we == 0:
                            continue
                        window[4, 0] = e
                        units, n = walk_lines(window, line, -1, paytab, substitutes, wild, 1,
                                              False, wins, 0)
                        if n > 0:
                            total += units * we
                            out[wins[0, 2], wins[0, 3]] += we
    return total


def line_report(model: Model) -> dict[str, Any]:
    """The exact line RTP (x total bet) and the probability of each line pay, per line."""
    counts = symbol_counts(model)
    table = np.zeros_like(model.paytab)
    weighted = int(_one_line_pays(counts, model.paytab, model.substitutes, model.wild, table))
    cycle = math.prod(int(x) for x in model.lengths)
    per_line = Fraction(weighted, cycle * model.divisor)
    rows = []
    for code, run in zip(*np.nonzero(table), strict=True):
        p = Fraction(int(table[code, run]), cycle)
        rows.append({"symbol": model.symbol_ids[code], "count": int(run),
                     "x_bet": str(Fraction(int(model.paytab[code, run]), model.divisor)),
                     "probability_per_line": float(p),
                     "rtp": float(p * Fraction(int(model.paytab[code, run]), model.divisor)
                                  * model.n_lines)})
    rows.sort(key=lambda x: (-Fraction(x["x_bet"]), x["symbol"], -x["count"]))
    return {"rtp": per_line * model.n_lines, "table": rows}


# -- triggers ---------------------------------------------------------------------------------


def reel_states(model: Model) -> list[dict[int, Fraction]]:
    """Per reel, the probability that its window shows no Scatter/Dice, a Scatter, a Dice."""
    out = []
    for r in range(N_REELS):
        length = int(model.lengths[r])
        sc = window_count_weights(model.strips[r], length, N_ROWS, model.scatter)
        di = window_count_weights(model.strips[r], length, N_ROWS, model.dice)
        if sum(sc[2:]) or sum(di[2:]):
            raise ValueError(f"reel {r + 1} shows two Scatters/Dice at once")
        p_sc, p_di = Fraction(sc[1], length), Fraction(di[1], length)
        out.append({NONE: 1 - p_sc - p_di, SCATTER: p_sc, DICE: p_di})
    return out


def trigger_classes(model: Model) -> dict[tuple[int, int], list[tuple[tuple[int, ...], Fraction]]]:
    """``(symbols in view, dice 0/1) -> [(reel states, probability), ...]`` for every
    triggering configuration, exactly."""
    states = reel_states(model)
    need = model.spec.trigger_count
    classes: dict[tuple[int, int], list[tuple[tuple[int, ...], Fraction]]] = {}
    for cfg in itertools.product((NONE, SCATTER, DICE), repeat=N_REELS):
        p = math.prod((states[r][s] for r, s in enumerate(cfg)), start=Fraction(1))
        if p == 0:
            continue
        count = sum(1 for s in cfg if s != NONE)
        if count >= need:
            classes.setdefault((count, int(DICE in cfg)), []).append((cfg, p))
    return dict(sorted(classes.items()))


def class_probabilities(model: Model) -> dict[tuple[int, int], Fraction]:
    return {c: sum((p for _, p in cfgs), Fraction(0)) for c, cfgs in trigger_classes(model).items()}


# -- the Bonus Game, simulated from each class --------------------------------------------------


@njit(cache=True)
def place_triggers(stream: np.ndarray, cum: np.ndarray, cfgs: np.ndarray,
                   cells: np.ndarray) -> int:
    """One window of a trigger class: configuration ``cfgs[i]`` (a reel state per reel) drawn
    with cumulative weights ``cum``, each Scatter marked in ``cells`` on a uniform row; the
    Dice's cell (-1: none)."""
    cfg = cfgs[weighted_pick(stream, cum)]
    dice_cell = -1
    for r in range(N_REELS):
        if cfg[r] != NONE:
            cell = r * N_ROWS + randbelow(stream, N_ROWS)
            if cfg[r] == SCATTER:
                cells[cell] = 1
            else:
                dice_cell = cell
    return dice_cell


@njit(cache=True)
def _simulate_class(bp: tuple[np.ndarray, ...], stream: np.ndarray, n: int, cum: np.ndarray,
                    cfgs: np.ndarray, cap_x: float, stats: np.ndarray) -> float:
    """Play ``n`` Bonus Games from windows of one class: configuration ``cfgs[i]`` (a reel
    state per reel) drawn with cumulative weights ``cum``, each Scatter/Dice on a uniform row.
    Adds to ``stats`` (``B_*``); returns the sum of squared wins (x bet)."""
    cells = np.zeros(N_CELLS, np.int64)
    ev = np.zeros((0, EV_WIDTH), np.int64)
    sq = 0.0
    for _ in range(n):
        dice_cell = place_triggers(stream, cum, cfgs, cells)
        reels, final, _n, flags = _bonus.play_bonus_parts(stream, bp, cells, dice_cell, False,
                                                          ev, 0)
        win = reels + final
        for i in range(N_CELLS):
            cells[i] = 0
        stats[B_N] += 1
        stats[B_SUM] += win
        stats[B_FINAL_SUM] += final
        if flags & FLAG_FINAL_GAME:
            stats[B_FINAL] += 1
        for b in range(stats.shape[0] - B_FLAGS):
            if (flags >> b) & 1:
                stats[B_FLAGS + b] += 1
        if win > stats[B_MAX]:
            stats[B_MAX] = win
        if win > cap_x:
            stats[B_OVER_CAP] += 1
            stats[B_CAP_EXCESS] += win - cap_x
        for i in range(len(THRESHOLDS_X)):
            if win >= THRESHOLDS_X[i]:
                stats[B_AT + i] += 1
        sq += float(win) * float(win)
    return sq


def simulate_class(game: Superstars, cls: tuple[int, int], n: int,
                   stream: np.ndarray) -> tuple[np.ndarray, float]:
    """``n`` Bonus Games of trigger class ``cls``: the ``B_*`` sums and the sum of squares."""
    cfgs_p = trigger_classes(game.model)[cls]
    scale = math.lcm(*(p.denominator for _, p in cfgs_p))
    weights = [int(p * scale) for _, p in cfgs_p]
    g = math.gcd(*weights)
    cum = cumulative_weights([w // g for w in weights])
    cfgs = np.array([c for c, _ in cfgs_p], np.int64)
    stats = np.zeros(B_SIZE, np.int64)
    sq = _simulate_class(game._bp, stream, n, cum, cfgs, game.model.spec.max_win_x, stats)
    return stats, float(sq)


def compose(game: Superstars, bonuses: int = 1_000_000, seed: int = 0) -> dict[str, Any]:
    """The composed RTP: exact lines + sum P(class) x simulated E[bonus | class].

    ``bonuses`` Bonus Games are shared among the classes in proportion to P(class), at least
    2 % of them each, so that the rare 5-symbol classes still get a mean. Class ``i`` draws from
    ``chunk_stream(seed, i)``: the same seed gives the same figures (and common random numbers
    when ``slotlab tune`` compares two parameter values).
    """
    model = game.model
    lines = line_report(model)
    probs = class_probabilities(model)
    p_trigger = sum(probs.values(), Fraction(0))
    started = time.perf_counter()
    share = {c: max(float(p / p_trigger), 0.02) for c, p in probs.items()}
    norm = sum(share.values())
    per_class: dict[str, Any] = {}
    acc = {"bonus": 0.0, "final": 0.0, "var": 0.0, "p_final": 0.0, "cap_excess": 0.0,
           "p_over_cap": 0.0}
    p_at = [0.0] * len(THRESHOLDS_X)
    p_flag = [0.0] * _bonus.N_FLAGS
    max_x = n_total = 0
    for i, (cls, p) in enumerate(probs.items()):
        n = max(int(bonuses * share[cls] / norm), 1000)
        arr, sq = simulate_class(game, cls, n, chunk_stream(seed, i))
        stats = [int(x) for x in arr]
        mean = stats[B_SUM] / n
        sd = math.sqrt(max(sq / n - mean * mean, 0.0))
        pf = float(p)
        acc["bonus"] += pf * mean
        acc["final"] += pf * stats[B_FINAL_SUM] / n
        acc["var"] += (pf * sd) ** 2 / n
        acc["p_final"] += pf * stats[B_FINAL] / n
        acc["cap_excess"] += pf * stats[B_CAP_EXCESS] / n
        acc["p_over_cap"] += pf * stats[B_OVER_CAP] / n
        for j in range(len(THRESHOLDS_X)):
            p_at[j] += pf * stats[B_AT + j] / n
        for b in range(_bonus.N_FLAGS):
            p_flag[b] += pf * stats[B_FLAGS + b] / n
        max_x = max(max_x, int(stats[B_MAX]))
        n_total += n
        name = f"{cls[0]} symbols" + (" incl. the Dice" if cls[1] else ", no Dice")
        half = Z99 * sd / math.sqrt(n)
        per_class[name] = {
            "scatters": cls[0] - cls[1], "dice": bool(cls[1]),
            "probability": fraction_text(p), "one_in": float(1 / p), "bonuses": n,
            "mean_x_bet": mean, "sd_x_bet": sd, "ci99_mean": [mean - half, mean + half],
            "rtp": pf * mean, "final_game_rate": stats[B_FINAL] / n,
            "max_x_bet": int(stats[B_MAX]),
        }
    half = Z99 * math.sqrt(acc["var"])
    total = float(lines["rtp"]) + acc["bonus"] - acc["cap_excess"]
    pt = float(p_trigger)
    return {
        "lines": lines, "p_trigger": p_trigger, "classes": per_class,
        "bonus_rtp": acc["bonus"], "final_rtp": acc["final"], "bonus_half": half,
        "total": total, "ci99": [total - half, total + half],
        "final_game_per_round": acc["p_final"], "final_game_per_bonus": acc["p_final"] / pt,
        "p_bonus_at_least": dict(zip(THRESHOLDS_X, p_at, strict=True)),
        "features_per_bonus": {name: p_flag[b] / pt for b, name in
                               enumerate(_bonus.FLAG_NAMES)},
        "cap_excess": acc["cap_excess"], "p_over_cap": acc["p_over_cap"],
        "max_bonus_x": max_x, "bonuses": n_total, "seed": seed,
        "seconds": time.perf_counter() - started,
    }


def rtp_report(game: Superstars, bonuses: int = 1_000_000, seed: int = 0) -> dict[str, Any]:
    """What ``slotlab rtp superstars --json`` prints (keys in docs/cli.md)."""
    c = compose(game, bonuses, seed)
    lines_rtp: Fraction = c["lines"]["rtp"]
    p_trigger: Fraction = c["p_trigger"]
    low, high = c["ci99"]
    target = game.theoretical_rtp()
    bonus, final, half = c["bonus_rtp"], c["final_rtp"], c["bonus_half"]
    return {
        "game": game.id,
        "model_hash": game.model_hash,
        "rtp": c["total"],
        "rtp_fraction": None,  # the Bonus Game part is simulated, so the total is not exact
        "ci99": [low, high],
        "ci99_half_width": half,
        "rtp_target": target,
        "target_inside_ci99": low <= target <= high,
        "base_rtp": float(lines_rtp),
        "base_rtp_fraction": fraction_text(lines_rtp),
        "bonus_rtp": bonus,
        "bonus_ci99": [bonus - half, bonus + half],
        "components": {
            "lines": {"rtp": float(lines_rtp), "exact": True},
            "bonus_reels": {"rtp": bonus - final, "exact": False},
            "bonus_final_game": {"rtp": final, "exact": False},
            "cap_removed": {"rtp": -c["cap_excess"], "exact": False},
        },
        "bonus_frequency": float(p_trigger),
        "bonus_frequency_fraction": fraction_text(p_trigger),
        "bonus_one_in": float(1 / p_trigger),
        "final_game_frequency": c["final_game_per_round"],
        "final_game_one_in": 1 / c["final_game_per_round"] if c["final_game_per_round"] else None,
        "final_game_per_bonus": c["final_game_per_bonus"],
        "features_per_bonus": c["features_per_bonus"],
        "trigger_classes": c["classes"],
        "p_round_bonus_at_least_x": {str(k): v for k, v in c["p_bonus_at_least"].items()},
        "max_win_seen_x": c["max_bonus_x"],
        "cap_x": game.model.spec.max_win_x,
        "cap_share": c["p_over_cap"],
        "bonuses_simulated": c["bonuses"],
        "bonus_seconds": c["seconds"],
        "seed": c["seed"],
        "tables": {"line pays (per line)": c["lines"]["table"]},
        "notes": [
            "base_rtp is exact (base_rtp_fraction); the Bonus Game is simulated directly from "
            "each trigger class, whose probabilities are exact, so rtp and bonus_rtp carry a "
            "99% interval and rtp_fraction is null",
            "max_win_seen_x is the largest simulated Bonus Game (x bet); cap_share the share "
            "of rounds whose Bonus Game alone exceeds the cap, cap_removed what the cap takes",
        ],
    }
