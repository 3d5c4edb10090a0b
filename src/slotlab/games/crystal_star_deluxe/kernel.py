"""The rules of Crystal Star Deluxe, written once, for live play, replay, simulation and exact math.

Everything here is ``@njit`` over ``int64`` arrays (encoding in :mod:`.model`). One play is
:func:`play_stops`: the initial stop and up to two nudge steps, each evaluated on every line.
With ``trace`` on it writes one event row per fact into ``ev`` (``int64[n, EV_COLS]``), which
:mod:`.game` turns into JSON events and :func:`full_cycle` into PAR tallies; the simulator
(:func:`simulate_plays`) runs it with ``trace`` off. The play kernels allocate nothing and are
compiled with ``_nrt=False``: without numba's reference counting on their many array arguments a
simulated play runs three to five times faster.

Window and stops: ``stops[r]`` is the strip index shown on reel ``r``'s top row; row ``k`` shows
``strip[r][stops[r] + k]`` (``Model.strips`` repeats each strip's first two stops after its end,
so no modulo).

Nudges (game-models.md 4.2 #5-#6): a Star landing on the top row moves down, on the bottom row up,
on the middle row the way its arrow points; it keeps that direction and moves one row per step
until it reaches the top or bottom row (so two steps from an edge row, one from the middle). Its
whole reel moves with it: moving down one row means the reel's top-row stop goes back by one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_WIN, record
from slotlab.mechanics.events import put_event
from slotlab.mechanics.jit import njit_no_nrt
from slotlab.rng import randbelow

# Base-symbol codes fixed by the model encoding (payable base symbols are 2 and up).
BLANK = 0
STAR = 1

# Event rows: column 0 is the kind, column 1 the stage (0 initial stop, 1-2 nudge steps).
EV_STAGE = 0  # stage, stop reel 1, stop reel 2, stop reel 3
EV_LINE = 1  # stage, line index (0-based), combo index, multiplier, win
EV_PROGRESSIVE = 2  # stage, line index, tier (TOP/BOTTOM)
EV_FLAT = 3  # stage, line index, win, reason
EV_COLS = 6

# Why a flat three-Star prize was paid.
FLAT_BELOW_MAX_BET = 0
FLAT_TOP_ALREADY_WON = 1
FLAT_BOTTOM_ALREADY_WON = 2

# Totals of one play (``tot``).
T_LINES = 0  # line wins, credits
T_FLAT = 1  # flat three-Star prizes, credits
T_TOP = 2  # top progressives won (0 or 1)
T_BOTTOM = 3  # bottom progressives won (0 or 1)
T_STAR_LINES = 4  # three-Star lines (all stages)
T_STAR_TOP = 5  # three-Star lines on the top-progressive line
T_SIZE = 6

# Scratch space of a play (``work``).
W_CUR = 0
W_STEP = 3
W_MOVES = 6
W_WON = 9
W_SIZE = 11

# Kernel parameters (``params``, built by Model).
P_CAP = 0
P_TOP_LINE = 1
P_BELOW_TOP_X = 2
P_BELOW_OTHER_X = 3
P_AGAIN_TOP_X = 4
P_AGAIN_OTHER = 5
P_TOP_RESET = 6
P_BOTTOM_RESET = 7

TOP = 0
BOTTOM = 1


@njit_no_nrt(cache=True, inline="always")
def draw_stops(stream: np.ndarray, lengths: np.ndarray, stops: np.ndarray) -> None:
    """Draw the reel stops: one uniform draw over the full cycle, split into one stop per reel.

    ``randbelow(L1 * L2 * L3)`` is exactly uniform over the cycle, so the three stops are
    independent and uniform, as if drawn one per reel, at a third of the cost. The cycle index
    is ``(stop1 * L2 + stop2) * L3 + stop3``, the order of :func:`full_cycle`.
    """
    x = randbelow(stream, lengths[0] * lengths[1] * lengths[2])
    stops[2] = x % lengths[2]
    x //= lengths[2]
    stops[1] = x % lengths[1]
    stops[0] = x // lengths[1]


@njit_no_nrt(cache=True, inline="always")
def _three_stars(stage: int, li: int, line_bet: int, is_max: bool, params: np.ndarray,
                 won: np.ndarray, tot: np.ndarray, trace: bool, ev: np.ndarray, n_ev: int) -> int:
    """Three Stars on line ``li``: a progressive at max bet (once per tier), else a flat prize."""
    tot[T_STAR_LINES] += 1
    prize = 0
    reason = -1
    tier = -1
    if li == params[P_TOP_LINE]:
        tot[T_STAR_TOP] += 1
        if not is_max:
            prize = params[P_BELOW_TOP_X] * line_bet
            reason = FLAT_BELOW_MAX_BET
        elif won[TOP] == 0:
            tier = TOP
        else:
            prize = params[P_AGAIN_TOP_X] * line_bet
            reason = FLAT_TOP_ALREADY_WON
    elif not is_max:
        prize = params[P_BELOW_OTHER_X] * line_bet
        reason = FLAT_BELOW_MAX_BET
    elif won[BOTTOM] == 0:
        tier = BOTTOM
    else:
        prize = params[P_AGAIN_OTHER]
        reason = FLAT_BOTTOM_ALREADY_WON
    if tier >= 0:
        won[tier] = 1
        tot[T_TOP + tier] += 1
        if trace:
            n_ev = put_event(ev, n_ev, 4, EV_PROGRESSIVE, stage, li, tier)
    else:
        tot[T_FLAT] += prize
        if trace:
            n_ev = put_event(ev, n_ev, 5, EV_FLAT, stage, li, prize, reason)
    return n_ev


@njit_no_nrt(cache=True, inline="always")
def _evaluate_stage(stage: int, cur: np.ndarray, line_bet: int, is_max: bool, strips: np.ndarray,
                    nonblank: np.ndarray, line_table: np.ndarray, base: np.ndarray,
                    mult: np.ndarray, lines: np.ndarray, combo_mask: np.ndarray,
                    combo_pay: np.ndarray, params: np.ndarray, won: np.ndarray, tot: np.ndarray,
                    trace: bool, ev: np.ndarray, n_ev: int) -> int:
    """Pay every line of the window at ``cur``; ``won`` = [top awarded, bottom awarded]."""
    # Only lines that cross no blank can win (the Star never substitutes for a blank), and
    # line_table lists them for the three reels' blank patterns.
    todo = line_table[(nonblank[0, cur[0]] << 6) | (nonblank[1, cur[1]] << 3)
                      | nonblank[2, cur[2]]]
    li = 0
    while todo:
        if todo & 1:
            mask = 0  # the base symbols on the line, one bit each
            m = 1  # the product of their multipliers
            stars = 0
            for r in range(3):
                sym = strips[r, cur[r] + lines[li, r]]
                b = base[sym]
                if b == STAR:  # wild, and never carries a multiplier
                    stars += 1
                else:
                    mask |= 1 << b
                    m *= mult[sym]
            if stars == 3:
                n_ev = _three_stars(stage, li, line_bet, is_max, params, won, tot, trace, ev, n_ev)
            else:
                # Combinations are sorted by pay, so the first that accepts every base symbol
                # on the line is its highest winner; all multipliers multiply, up to the cap.
                for c in range(combo_mask.shape[0]):
                    if mask & ~combo_mask[c] == 0:
                        mm = min(m, params[P_CAP])
                        win = combo_pay[c] * mm * line_bet
                        tot[T_LINES] += win
                        if trace:
                            n_ev = put_event(ev, n_ev, 6, EV_LINE, stage, li, c, mm, win)
                        break
        todo >>= 1
        li += 1
    return n_ev


@njit_no_nrt(cache=True, inline="always")
def play_stops(stops: np.ndarray, line_bet: int, is_max: bool, strips: np.ndarray,
               lengths: np.ndarray, nonblank: np.ndarray, line_table: np.ndarray, base: np.ndarray,
               mult: np.ndarray, arrow: np.ndarray, lines: np.ndarray, combo_mask: np.ndarray,
               combo_pay: np.ndarray, params: np.ndarray, tot: np.ndarray, trace: bool,
               ev: np.ndarray, work: np.ndarray) -> int:
    """Play one round from its reel stops; returns the number of event rows written.

    Parameters
    ----------
    stops : int64[3], top-row stop of each reel (not modified)
    line_bet : credits per line; ``is_max``: whether this is the max bet (progressives live)
    strips : int64[3, max_len + 2], padded strips (``Model.strips``)
    tot : int64[T_SIZE], zeroed by the caller; receives the play's totals
    trace : write event rows into ``ev`` (int64[>= 3 * (1 + lines), EV_COLS]) when true
    work : int64[W_SIZE], scratch space (so that a play allocates nothing)
    """
    cur = work[W_CUR : W_CUR + 3]  # the reels' current top-row stops
    step = work[W_STEP : W_STEP + 3]  # +1: the reel's Star moves down each step, -1 up
    moves = work[W_MOVES : W_MOVES + 3]  # how many steps the reel's Star can move
    won = work[W_WON : W_WON + 2]  # top, bottom progressive already awarded this play
    for r in range(3):
        cur[r] = stops[r]
        step[r] = 0
        moves[r] = 0
        for k in range(3):
            sym = strips[r, stops[r] + k]
            if base[sym] == STAR:
                if k == 0:
                    step[r] = 1
                    moves[r] = 2
                elif k == 2:
                    step[r] = -1
                    moves[r] = 2
                else:
                    step[r] = arrow[sym]
                    moves[r] = 1
    won[0] = 0
    won[1] = 0
    n_ev = 0
    for stage in range(3):
        if stage > 0:
            moved = False
            for r in range(3):
                if moves[r] >= stage:  # this Star can still move: its whole reel moves
                    cur[r] -= step[r]
                    if cur[r] < 0:
                        cur[r] += lengths[r]
                    elif cur[r] >= lengths[r]:
                        cur[r] -= lengths[r]
                    moved = True
            if not moved:
                break
        if trace:
            n_ev = put_event(ev, n_ev, 5, EV_STAGE, stage, cur[0], cur[1], cur[2])
        n_ev = _evaluate_stage(
            stage, cur, line_bet, is_max, strips, nonblank, line_table, base, mult, lines,
            combo_mask, combo_pay, params, won, tot, trace, ev, n_ev,
        )
    return n_ev


@njit_no_nrt(cache=True)
def simulate_plays(stream: np.ndarray, spins: int, line_bet: int, is_max: bool, bet: int,
                   strips: np.ndarray, lengths: np.ndarray, nonblank: np.ndarray,
                   line_table: np.ndarray, base: np.ndarray, mult: np.ndarray, arrow: np.ndarray,
                   lines: np.ndarray, combo_mask: np.ndarray, combo_pay: np.ndarray,
                   params: np.ndarray, acc: np.ndarray, sq: np.ndarray, stops: np.ndarray,
                   tot: np.ndarray, ev: np.ndarray, work: np.ndarray) -> None:
    """Play ``spins`` rounds from ``stream`` into the simulation sums ``acc``/``sq``.

    Progressives are valued at their reset values. Components: 0 line wins, 1 progressives,
    2 flat three-Star prizes. The feature counter counts plays with a three-Star line (at max
    bet exactly the plays that win a progressive). ``stops``, ``tot``, ``ev``, ``work`` are
    scratch arrays (int64[3], int64[T_SIZE], int64[1, EV_COLS], int64[W_SIZE]).
    """
    top_reset = params[P_TOP_RESET]
    bottom_reset = params[P_BOTTOM_RESET]
    for _ in range(spins):
        draw_stops(stream, lengths, stops)
        tot[:] = 0
        play_stops(
            stops, line_bet, is_max, strips, lengths, nonblank, line_table, base, mult, arrow,
            lines, combo_mask, combo_pay, params, tot, False, ev, work,
        )
        prog = tot[T_TOP] * top_reset + tot[T_BOTTOM] * bottom_reset
        win = tot[T_LINES] + tot[T_FLAT] + prog
        record(acc, sq, win, bet, tot[T_STAR_LINES] > 0)
        acc[ACC_COMPONENTS] += tot[T_LINES]
        acc[ACC_COMPONENTS + 1] += prog
        acc[ACC_COMPONENTS + 2] += tot[T_FLAT]


@njit_no_nrt(cache=True)
def round_wins(stream: np.ndarray, line_bet: int, is_max: bool, bet: int, strips: np.ndarray,
               lengths: np.ndarray, nonblank: np.ndarray, line_table: np.ndarray,
               base: np.ndarray, mult: np.ndarray, arrow: np.ndarray, lines: np.ndarray,
               combo_mask: np.ndarray, combo_pay: np.ndarray, params: np.ndarray,
               out: np.ndarray, acc: np.ndarray, sq: np.ndarray, stops: np.ndarray,
               tot: np.ndarray, ev: np.ndarray, work: np.ndarray) -> None:
    """``out[i]`` (int64[n]): the win in credits of the i-th of ``n`` plays from ``stream``,
    each drawing what it draws in :func:`simulate_plays` (progressives at reset)."""
    for i in range(out.shape[0]):
        before = acc[ACC_WIN]
        simulate_plays(stream, 1, line_bet, is_max, bet, strips, lengths, nonblank, line_table,
                       base, mult, arrow, lines, combo_mask, combo_pay, params, acc, sq, stops,
                       tot, ev, work)
        out[i] = acc[ACC_WIN] - before


# The full cycle lives here, beside the rules it inlines: numba caches compiled code per source
# file and does not see changes in the files a function calls, so keeping every function that
# embeds the rules in this one file means any change to the rules recompiles all of them.
@njit(cache=True)
def full_cycle(line_bet: int, is_max: bool, strips: np.ndarray, lengths: np.ndarray,
               nonblank: np.ndarray, line_table: np.ndarray, base: np.ndarray, mult: np.ndarray,
               arrow: np.ndarray, lines: np.ndarray, combo_mask: np.ndarray, combo_pay: np.ndarray,
               params: np.ndarray, totals: np.ndarray, line_par: np.ndarray, star_par: np.ndarray,
               stage_plays: np.ndarray, mult_par: np.ndarray) -> None:
    """Play every stop combination; tallies go into the (zeroed) output arrays.

    totals : int64[L1 * L2 * L3, T_SIZE], each play's totals (index (i1 * L2 + i2) * L3 + i3)
    line_par : int64[3, n_combos, 2], per stage and combination: line wins, credits
    star_par : int64[3, 6, 2], per stage and three-Star event (``exact.STAR_EVENTS``): count,
        credits
    stage_plays : int64[3], plays evaluated at each stage
    mult_par : int64[cap + 1, 2], line wins by (capped) multiplier: count, credits
    """
    n_ev_max = 3 * (1 + lines.shape[0])
    ev = np.zeros((n_ev_max, EV_COLS), np.int64)
    stops = np.zeros(3, np.int64)
    work = np.zeros(W_SIZE, np.int64)
    top_line = params[P_TOP_LINE]
    idx = 0
    for a in range(lengths[0]):
        for b in range(lengths[1]):
            for c in range(lengths[2]):
                stops[0] = a
                stops[1] = b
                stops[2] = c
                tot = totals[idx]
                n = play_stops(
                    stops, line_bet, is_max, strips, lengths, nonblank, line_table, base, mult,
                    arrow, lines, combo_mask, combo_pay, params, tot, True, ev, work,
                )
                for k in range(n):
                    kind = ev[k, 0]
                    stage = ev[k, 1]
                    if kind == EV_STAGE:
                        stage_plays[stage] += 1
                    elif kind == EV_LINE:
                        line_par[stage, ev[k, 3], 0] += 1
                        line_par[stage, ev[k, 3], 1] += ev[k, 5]
                        mult_par[ev[k, 4], 0] += 1
                        mult_par[ev[k, 4], 1] += ev[k, 5]
                    elif kind == EV_PROGRESSIVE:
                        tier = ev[k, 3]  # TOP or BOTTOM, valued at its reset
                        star_par[stage, tier, 0] += 1
                        star_par[stage, tier, 1] += params[P_TOP_RESET + tier]
                    elif kind == EV_FLAT:
                        reason = ev[k, 4]
                        if reason == FLAT_BELOW_MAX_BET:
                            cat = 2 if ev[k, 2] == top_line else 3
                        elif reason == FLAT_TOP_ALREADY_WON:
                            cat = 4
                        else:
                            cat = 5
                        star_par[stage, cat, 0] += 1
                        star_par[stage, cat, 1] += ev[k, 3]
                idx += 1
