"""The rules of a data-only line game, compiled: one round from a random stream.

The same :func:`play_round` serves live play (``trace=True``: it writes event rows that
``game.py`` turns into JSON), replay, and the simulator (``trace=False``). All amounts here are
in *pay units* (total bet / divisor).

The model travels as a tuple ``m`` built by :func:`pack`:
``(lines, base, base_len, free, free_len, paytab, substitutes, scatter_pays, fs_awards,
scalars, masks, min_count)`` where ``scalars`` holds the ``S_*`` entries below.

Lines are paid by the shared evaluator :mod:`slotlab.mechanics.lines`.

Speed notes: a call between compiled functions that passes an array costs an atomic increment
and decrement of its reference count, and numba adds more of those for every array variable of
an inlined function. So ``spin``, ``play_round`` and the line pays are inlined into the
simulation loop, which first takes views of its arrays without a reference count
(:func:`unmanaged_all`, views that never leave that loop): a round then makes no atomic reference
count operation. The reel stops are drawn with the inlined ``rng.randbelow``, reel by reel: the
same draws as ``fill_randbelow`` without a call. The base spin and the free spins share one
loop so the spin is compiled once (cold compile time), and event rows are written element by
element (a tuple assigned to a slice costs seconds of compile time).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.games.lines.model import LineArrays
from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_WIN, record_inline
from slotlab.mechanics.events import put_event
from slotlab.mechanics.lines import (
    W_COUNT,
    W_LINE,
    W_MULT,
    W_SYMBOL,
    W_UNITS,
    line_masks,
    masked_line_pays,
    sort_wins,
    walk_lines,
)
from slotlab.mechanics.unmanaged import unmanaged_all
from slotlab.rng import randbelow

S_REELS, S_ROWS, S_WILD, S_WILD_MULT, S_WILD_EACH = 0, 1, 2, 3, 4
S_SCATTER, S_FS_MULT, S_FS_RETRIGGER, S_FS_MAX, S_CAP = 5, 6, 7, 8, 9

# Event rows: int64[EV_WIDTH]; column 0 is the kind.
EV_WIDTH = 12
EV_SPIN = 1  # stage (0 base, 1 free), index, remaining, multiplier, stops[reels]...
EV_LINE = 2  # line index, symbol, count, multiplier, units
EV_SCATTER = 3  # symbol, count, units
EV_TRIGGER = 4  # awarded, total awarded
EV_CAP = 5  # cap, uncapped

# A guard against a model whose retriggers never end (the exact calculator rejects those).
MAX_FREE_SPINS = 100_000

Packed = tuple[np.ndarray, ...]


def pack(a: LineArrays) -> Packed:
    scalars = np.array(
        [a.reels, a.rows, a.wild, a.wild_mult, int(a.wild_each), a.scatter, a.fs_mult,
         int(a.fs_retrigger), a.fs_max, a.cap_units],
        dtype=np.int64,
    )
    return (a.lines, a.base, a.base_len, a.free, a.free_len, a.paytab,
            a.substitutes.astype(np.int64), a.scatter_pays, a.fs_awards, scalars,
            line_masks(a.lines, a.rows), a.min_count)


@njit(cache=True, inline="always")
def pay_lines(m: Packed, window: np.ndarray, wins: np.ndarray) -> tuple[int, int]:
    """The window's line pays: ``(pay units, paying lines)``, the lines written to ``wins``."""
    sc, masks = m[9], m[10]
    if masks.shape[0] > 0:
        return masked_line_pays(window, m[0], m[5], m[6], sc[S_WILD], sc[S_WILD_MULT],
                                sc[S_WILD_EACH] == 1, masks, m[11], wins)
    return walk_lines(window, m[0], -1, m[5], m[6], sc[S_WILD], sc[S_WILD_MULT],
                      sc[S_WILD_EACH] == 1, wins, 0)


@njit(cache=True, inline="always")
def spin(m: Packed, strips: np.ndarray, lengths: np.ndarray, stream: np.ndarray, mult: int,
         stops: np.ndarray, window: np.ndarray, wins: np.ndarray) -> tuple[int, int, int, int]:
    """Stop the reels and pay the window: ``(line units, scatter units, scatters, paying lines)``.

    Pays are multiplied by ``mult`` (the free-spin multiplier); ``wins`` holds the paying lines
    before that multiplier.
    """
    scatter_pays, sc = m[7], m[9]
    scatter = sc[S_SCATTER]
    for r in range(stops.shape[0]):
        stops[r] = randbelow(stream, lengths[r])
    count = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            s = strips[r, stops[r] + row]
            window[r, row] = s
            if s == scatter:
                count += 1
    line_units, n = pay_lines(m, window, wins)
    return line_units * mult, scatter_pays[count] * mult, count, n


@njit(cache=True)
def _trace_spin(ev: np.ndarray, n_ev: int, stage: int, index: int, remaining: int, mult: int,
                stops: np.ndarray, wins: np.ndarray, n_wins: int, scatter: int, count: int,
                scatter_units: int) -> int:
    """Write the event rows of one spin (paying lines in line order); returns the new row
    count."""
    sort_wins(wins, n_wins)
    if n_ev < ev.shape[0]:
        for r in range(stops.shape[0]):
            ev[n_ev, 5 + r] = stops[r]
    n_ev = put_event(ev, n_ev, 5, EV_SPIN, stage, index, remaining, mult)
    for j in range(n_wins):
        n_ev = put_event(ev, n_ev, 6, EV_LINE, wins[j, W_LINE], wins[j, W_SYMBOL],
                         wins[j, W_COUNT], wins[j, W_MULT] * mult, wins[j, W_UNITS] * mult)
    if scatter_units > 0:
        n_ev = put_event(ev, n_ev, 4, EV_SCATTER, scatter, count, scatter_units)
    return n_ev


@njit(cache=True, inline="always")
def play_round(m: Packed, stream: np.ndarray, trace: bool, ev: np.ndarray, stops: np.ndarray,
               window: np.ndarray,
               wins: np.ndarray) -> tuple[int, int, int, int, int, bool, int]:
    """One round: a base spin, then any free spins. Returns, in pay units,
    ``(win, base_lines, base_scatter, free, uncapped, triggered, n_ev)``.

    ``win`` is capped at the model's max win. Event rows are written to ``ev`` only when
    ``trace``; when ``n_ev > len(ev)`` the buffer was too small and the caller retries with a
    larger one. ``stops`` (``int64[reels]``), ``window`` (``int64[reels, rows]``) and ``wins``
    (``int64[n_lines, 5]``) are scratch space.
    """
    base, base_len, free, free_len, fs_awards, sc = m[1], m[2], m[3], m[4], m[8], m[9]
    fs_mult, retrigger, fs_max = sc[S_FS_MULT], sc[S_FS_RETRIGGER] == 1, sc[S_FS_MAX]
    # One loop for the base spin (stage 0) and the free spins (stage 1), so that the spin is
    # compiled (inlined) once.
    strips, lengths, mult, stage = base, base_len, 1, 0
    base_lines, base_scatter, free_units = 0, 0, 0
    total, played = 0, 0  # free spins awarded and played
    triggered = False
    n_ev = 0
    while True:
        lu, su, count, n_wins = spin(m, strips, lengths, stream, mult, stops, window, wins)
        if trace:
            n_ev = _trace_spin(ev, n_ev, stage, played, total - played, mult, stops, wins,
                               n_wins, sc[S_SCATTER], count, su)
        if stage == 0:
            base_lines, base_scatter = lu, su
            more = fs_awards[count]
            triggered = more > 0
        else:
            free_units += lu + su
            more = fs_awards[count] if retrigger else 0
        if fs_max > 0 and total + more > fs_max:
            more = fs_max - total
        if more > 0:
            total += more
            if trace:
                n_ev = put_event(ev, n_ev, 3, EV_TRIGGER, more, total)
        if played >= total or played >= MAX_FREE_SPINS:
            break
        played += 1
        strips, lengths, mult, stage = free, free_len, fs_mult, 1
    uncapped = base_lines + base_scatter + free_units
    win = min(uncapped, sc[S_CAP])
    if trace and win < uncapped:
        n_ev = put_event(ev, n_ev, 3, EV_CAP, sc[S_CAP], uncapped)
    return win, base_lines, base_scatter, free_units, uncapped, triggered, n_ev


def scratch(m: Packed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for :func:`play_round`: stops, window, wins."""
    sc = m[9]
    return (np.empty(sc[S_REELS], dtype=np.int64),
            np.empty((sc[S_REELS], sc[S_ROWS]), dtype=np.int64),
            np.empty((m[0].shape[0], 5), dtype=np.int64))


@njit(cache=True)
def simulate_rounds(m: Packed, stream: np.ndarray, spins: int, level: int, bet: int,
                    acc: np.ndarray, sq: np.ndarray, stops: np.ndarray, window: np.ndarray,
                    wins: np.ndarray) -> None:
    """Play ``spins`` rounds into the accumulators, in credits at ``level`` credits per pay
    unit and total bet ``bet`` credits.

    Components: base line pays, base scatter pays, free spins, and what the cap removed.
    """
    # the caller keeps every one of these arrays alive during the call
    m = unmanaged_all(m)
    stream, acc, sq, stops, window, wins = unmanaged_all((stream, acc, sq, stops, window, wins))
    ev = wins[:0]  # no event rows: never written when not tracing
    for _ in range(spins):
        win, bl, bs, fu, uncapped, triggered, _n = play_round(m, stream, False, ev, stops,
                                                              window, wins)
        record_inline(acc, sq, win * level, bet, triggered)
        acc[ACC_COMPONENTS] += bl * level
        acc[ACC_COMPONENTS + 1] += bs * level
        acc[ACC_COMPONENTS + 2] += fu * level
        acc[ACC_COMPONENTS + 3] += (win - uncapped) * level


@njit(cache=True)
def round_wins(m: Packed, stream: np.ndarray, level: int, bet: int, out: np.ndarray,
               acc: np.ndarray, sq: np.ndarray, stops: np.ndarray, window: np.ndarray,
               wins: np.ndarray) -> None:
    """``out[i]`` (int64[n]): the win in credits of the i-th of ``n`` rounds played from
    ``stream``, each drawing what it draws in :func:`simulate_rounds`."""
    for i in range(out.shape[0]):
        before = acc[ACC_WIN]
        simulate_rounds(m, stream, 1, level, bet, acc, sq, stops, window, wins)
        out[i] = acc[ACC_WIN] - before
