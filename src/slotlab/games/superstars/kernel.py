"""The Superstars round, compiled: the base spin, its lines, the trigger, the Bonus Game, the cap.

One round is one random stream: the five reel stops first, then, when three or more Scatters
(the Dice on the last reel counting as one) are in view, the Bonus Game
(:func:`.bonus.play_bonus_parts`, the bonus engineer's kernel) draws on from the same stream. The
Bonus Game's total (whole multiples of the total bet) is added to the spin's line wins and the
round ends: "after the Bonus Game, the game returns to the round that triggered" it. The round
pays at most ``max_win_x`` times the total bet.

Amounts here are in *pay units* (total bet / divisor). The same :func:`play_round` serves live
play (``trace=True``: event rows that ``game.py`` turns into JSON), replay and simulation.

Event rows are ``int64[EV_WIDTH]`` (the bonus module's width), column 0 the kind. The base game's
kinds are the ``EV_*`` constants below; the rows the Bonus Game writes lie between the
``EV_BONUS_START`` row and the ``EV_BONUS_END`` row, which names their range, so the two sets of
kinds never need to differ. Like the Bonus Game's, a row is written only while it fits in the
buffer; the returned row count may exceed it, and the caller then retries with a larger one.

The model travels as ``m = (strips, lengths, lines, paytab, substitutes, scalars, masks,
min_count, stop_table, scatters)`` (:func:`pack`) and the Bonus Game's parameters as ``bp``
(:func:`.bonus.pack_bonus`). Speed: as in :mod:`slotlab.games.lines.kernel`, the simulation
loop takes views of its arrays without reference counts, so a round without a Bonus Game
allocates nothing and makes no atomic operation; and it reads a round from its stops alone
(the Scatters in view per reel stop, the line pays from per-stop line masks:
:mod:`slotlab.mechanics.stop_masks`), handing a round that triggers the Bonus Game to
:func:`play_from_stops`, the round live play plays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_WIN, record
from slotlab.mechanics.events import put_event
from slotlab.mechanics.lines import (
    W_COUNT,
    W_LINE,
    W_SYMBOL,
    W_UNITS,
    masked_line_pays,
    masked_line_units,
    sort_wins,
)
from slotlab.mechanics.stop_masks import stop_line_units, stop_masks
from slotlab.mechanics.unmanaged import unmanaged
from slotlab.rng import randbelow

from . import bonus as _bonus
from .model import (
    N_CELLS,
    N_REELS,
    N_ROWS,
    S_CAP_X,
    S_DICE,
    S_DICE_REEL,
    S_DIVISOR,
    S_SCATTER,
    S_TRIGGER,
    S_WILD,
    Model,
)

EV_WIDTH = _bonus.EV_WIDTH
EV_SPIN = 101  # stops[5]
EV_LINE = 102  # line index, symbol, count, units
EV_TRIGGER = 103  # scatters in view (the Dice included), dice cell or -1
EV_BONUS_START = 104  # first row of the Bonus Game's own rows
EV_BONUS_END = 105  # first row, end row (exclusive), win x bet, flags
EV_CAP = 106  # cap in pay units, uncapped pay units
if EV_WIDTH < 6:  # pragma: no cover - a guard on the bonus module's row width
    raise ImportError(f"Superstars needs event rows of at least 6 columns, bonus has {EV_WIDTH}")

FLAG_FINAL_GAME = 1  # bit 0 of play_bonus's flags

# Components of the simulated win (component_names() in game.py): line pays, the Bonus Game's
# prizes on the reels, its Final Game, and what the cap removed (zero or negative).
C_LINES, C_BONUS_REELS, C_FINAL, C_CAP = 0, 1, 2, 3

Packed = tuple[np.ndarray, ...]


def pack(model: Model) -> Packed:
    shown = np.stack([model.strips[:, row:row + model.lengths.max()]
                      for row in range(N_ROWS)])  # [row, reel, stop]
    scatters = ((shown == model.scatter) | (shown == model.dice)).sum(axis=0)  # [reel, stop]
    return (model.strips, model.lengths, model.lines, model.paytab, model.substitutes,
            model.scalars, model.masks, model.min_count,
            stop_masks(model.strips, model.lengths, model.masks, model.paytab.shape[0]),
            scatters.astype(np.int64))


def scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for :func:`play_round`: stops, window, wins, trigger cells."""
    return (np.zeros(N_REELS, np.int64), np.zeros((N_REELS, N_ROWS), np.int64),
            np.zeros((64, 5), np.int64), np.zeros(N_CELLS, np.int64))


@njit(cache=True, inline="always")
def play_from_stops(m: Packed, bp: Packed, stream: np.ndarray, trace: bool, ev: np.ndarray,
                    stops: np.ndarray, window: np.ndarray, wins: np.ndarray,
                    cells: np.ndarray) -> tuple[int, int, int, int, int, bool, int, int]:
    """The round once the reels show top-row ``stops``: lines, trigger, Bonus Game, cap.

    Returns, in pay units, ``(win, lines, bonus, final, uncapped, triggered, flags, n_ev)``:
    ``bonus`` is the Bonus Game's total, ``final`` the part of it the Final Game paid; ``flags``
    are the Bonus Game's (bit 0: the Final Game was reached). ``cells`` is scratch space of 25
    zeros and is left all zero.
    """
    strips, lines, paytab, substitutes, sc, masks, min_count = m[0], m[2], m[3], m[4], m[5], \
        m[6], m[7]
    scatter, dice = sc[S_SCATTER], sc[S_DICE]
    count = 0
    for r in range(N_REELS):
        for row in range(N_ROWS):
            s = strips[r, stops[r] + row]
            window[r, row] = s
            if s in (scatter, dice):
                count += 1
    if trace:
        line_units, n_wins = masked_line_pays(window, lines, paytab, substitutes, sc[S_WILD], 1,
                                              False, masks, min_count, wins)
    else:  # the simulation needs the sum only: no row per paying line (the same total)
        line_units = masked_line_units(window, lines, paytab, substitutes, sc[S_WILD], 1, False,
                                       masks, min_count)
        n_wins = 0
    n_ev = 0
    if trace:
        if n_ev < ev.shape[0]:
            ev[n_ev, 0] = EV_SPIN
            for r in range(N_REELS):
                ev[n_ev, 1 + r] = stops[r]
        n_ev += 1
        sort_wins(wins, n_wins)
        for j in range(n_wins):
            n_ev = put_event(ev, n_ev, 5, EV_LINE, wins[j, W_LINE], wins[j, W_SYMBOL],
                             wins[j, W_COUNT], wins[j, W_UNITS])
    bonus_units = 0
    final_units = 0
    flags = 0
    triggered = count >= sc[S_TRIGGER]
    if triggered:
        dice_cell = -1
        for r in range(N_REELS):
            for row in range(N_ROWS):
                s = window[r, row]
                if s == scatter:
                    cells[r * N_ROWS + row] = 1
                elif s == dice and r == sc[S_DICE_REEL]:
                    dice_cell = r * N_ROWS + row
        if trace:
            n_ev = put_event(ev, n_ev, 5, EV_TRIGGER, count, dice_cell)
            n_ev = put_event(ev, n_ev, 5, EV_BONUS_START, n_ev + 1)
        first = n_ev
        reels_x, final_x, n_ev, flags = _bonus.play_bonus_parts(stream, bp, cells, dice_cell,
                                                                trace, ev, n_ev)
        for i in range(N_CELLS):
            cells[i] = 0
        win_x = reels_x + final_x
        final_units = final_x * sc[S_DIVISOR]
        bonus_units = win_x * sc[S_DIVISOR]
        if trace:
            n_ev = put_event(ev, n_ev, 5, EV_BONUS_END, first, n_ev, win_x, flags)
    uncapped = line_units + bonus_units
    cap = sc[S_CAP_X] * sc[S_DIVISOR]
    win = uncapped if uncapped < cap else cap
    if trace and win < uncapped:
        n_ev = put_event(ev, n_ev, 5, EV_CAP, cap, uncapped)
    return win, line_units, bonus_units, final_units, uncapped, triggered, flags, n_ev


@njit(cache=True)
def play_stops(m: Packed, bp: Packed, stream: np.ndarray, trace: bool, ev: np.ndarray,
               stops: np.ndarray, window: np.ndarray, wins: np.ndarray,
               cells: np.ndarray) -> tuple[int, int, int, int, int, bool, int, int]:
    """:func:`play_from_stops` as a compiled entry point (live play, forced outcomes)."""
    return play_from_stops(m, bp, stream, trace, ev, stops, window, wins, cells)


@njit(cache=True)
def play_round(m: Packed, bp: Packed, stream: np.ndarray, trace: bool, ev: np.ndarray,
               stops: np.ndarray, window: np.ndarray, wins: np.ndarray,
               cells: np.ndarray) -> tuple[int, int, int, int, int, bool, int, int]:
    """A whole round from its stream: the stops are its first five draws."""
    lengths = m[1]
    for r in range(N_REELS):
        stops[r] = randbelow(stream, lengths[r])
    return play_from_stops(m, bp, stream, trace, ev, stops, window, wins, cells)


@njit(cache=True)
def simulate_rounds(m: Packed, bp: Packed, stream: np.ndarray, spins: int, level: int, bet: int,
                    acc: np.ndarray, sq: np.ndarray, stops: np.ndarray, window: np.ndarray,
                    wins: np.ndarray, cells: np.ndarray) -> None:
    """Play ``spins`` rounds into the accumulators, in credits at ``level`` credits per pay
    unit and total bet ``bet`` credits, components ``C_*``."""
    u = unmanaged  # the caller keeps every one of these arrays alive during the call
    m = (u(m[0]), u(m[1]), u(m[2]), u(m[3]), u(m[4]), u(m[5]), u(m[6]), u(m[7]), u(m[8]),
         u(m[9]))
    stream, acc, sq = u(stream), u(acc), u(sq)
    stops, window, wins, cells = u(stops), u(window), u(wins), u(cells)
    strips, lengths, lines, paytab, substitutes, sc, min_count, table, scatters = (
        m[0], m[1], m[2], m[3], m[4], m[5], m[7], m[8], m[9])
    trigger, wild, cap = sc[S_TRIGGER], sc[S_WILD], sc[S_CAP_X] * sc[S_DIVISOR]
    ev = np.zeros((0, EV_WIDTH), np.int64)  # never written: no tracing
    for _ in range(spins):
        count = 0
        for r in range(N_REELS):
            stop = randbelow(stream, lengths[r])
            stops[r] = stop
            count += scatters[r, stop]
        if count >= trigger:  # the Bonus Game: the round as live play plays it
            win, lu, bu, fu, uncapped, triggered, _flags, _n = play_from_stops(
                m, bp, stream, False, ev, stops, window, wins, cells)
        else:  # the line pays alone, from the stops (the same units as play_from_stops')
            lu = stop_line_units(table, stops, strips, window, lines, paytab, substitutes,
                                 wild, 1, False, min_count)
            bu, fu, uncapped, triggered = 0, 0, lu, False
            win = lu if lu < cap else cap
        record(acc, sq, win * level, bet, triggered)
        acc[ACC_COMPONENTS + C_LINES] += lu * level
        acc[ACC_COMPONENTS + C_BONUS_REELS] += (bu - fu) * level
        acc[ACC_COMPONENTS + C_FINAL] += fu * level
        acc[ACC_COMPONENTS + C_CAP] += (win - uncapped) * level


@njit(cache=True)
def round_wins(m: Packed, bp: Packed, stream: np.ndarray, level: int, bet: int,
               out: np.ndarray, acc: np.ndarray, sq: np.ndarray, stops: np.ndarray,
               window: np.ndarray, wins: np.ndarray, cells: np.ndarray) -> None:
    """``out[i]`` (int64[n]): the win in credits of the i-th of ``n`` rounds played from
    ``stream``, each drawing what it draws in :func:`simulate_rounds`."""
    for i in range(out.shape[0]):
        before = acc[ACC_WIN]
        simulate_rounds(m, bp, stream, 1, level, bet, acc, sq, stops, window, wins, cells)
        out[i] = acc[ACC_WIN] - before
