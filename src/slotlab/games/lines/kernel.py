"""The rules of a data-only line game, compiled: one round from a random stream.

The same :func:`play_round` serves live play (``trace=True``: it writes event rows that
``game.py`` turns into JSON), replay, and the simulator (``trace=False``). All amounts here are
in *pay units* (total bet / divisor).

The model travels as a tuple ``m`` built by :func:`pack`:
``(lines, base, base_len, free, free_len, paytab, substitutes, scatter_pays, fs_awards,
scalars, masks, min_count)`` where ``scalars`` holds the ``S_*`` entries below.

Speed note: a call between compiled functions that passes arrays costs reference counting on
each array, which dominates small helpers. So each step works on whole arrays in one call
(all lines at once, all reel stops at once) rather than calling a helper per line or per draw.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.games.lines.model import LineArrays
from slotlab.rng import fill_randbelow
from slotlab.simulate.stats import ACC_COMPONENTS, record

S_REELS, S_ROWS, S_WILD, S_WILD_MULT, S_WILD_EACH = 0, 1, 2, 3, 4
S_SCATTER, S_FS_MULT, S_FS_RETRIGGER, S_FS_MAX, S_CAP = 5, 6, 7, 8, 9

# Event rows: int64[EV_WIDTH]; column 0 is the kind.
EV_WIDTH = 12
EV_SPIN = 1  # stage (0 base, 1 free), index, remaining, multiplier, stops[reels]...
EV_LINE = 2  # line index, symbol, count, multiplier, units
EV_SCATTER = 3  # symbol, count, units
EV_TRIGGER = 4  # awarded, total awarded
EV_CAP = 5  # cap, uncapped

# Columns of the per-line results written by line_pays.
W_LINE, W_UNITS, W_SYMBOL, W_COUNT, W_MULT = 0, 1, 2, 3, 4

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


MAX_MASKED_LINES = 62  # lines that fit a positive int64 bitmask


def line_masks(lines: np.ndarray, rows: int) -> np.ndarray:
    """``masks[reel, row]``: bit ``li`` set when line ``li`` crosses that cell.

    An empty array when there are too many lines for a mask (then every line is evaluated).
    """
    if lines.shape[0] > MAX_MASKED_LINES:
        return np.zeros((0, rows), dtype=np.int64)
    masks = np.zeros((lines.shape[1], rows), dtype=np.int64)
    for li, line in enumerate(lines):
        for r, row in enumerate(line):
            masks[r, row] |= 1 << li
    return masks


@njit(cache=True)
def _candidate_lines(window, masks, min_count, substitutes, wild):
    """Bitmask of the lines that may pay: those starting with a wild, and those whose first
    symbol (or a substituting wild) continues far enough to reach its shortest paying run.

    Most lines of most spins are ruled out here with a few mask operations, instead of the
    unpredictable branches of walking every line.
    """
    reels, rows = window.shape
    cand = 0
    for row0 in range(rows):
        lines0 = masks[0, row0]
        s = window[0, row0]
        if lines0 == 0:
            continue
        if s == wild:
            cand |= lines0
            continue
        need = min_count[s]
        if need > reels:
            continue
        for r in range(1, need):
            reach = 0
            for row in range(rows):
                x = window[r, row]
                if x == s or (x == wild and substitutes[s]):
                    reach |= masks[r, row]
            lines0 &= reach
            if lines0 == 0:
                break
        cand |= lines0
    return cand


@njit(cache=True)
def line_pays(window, lines, paytab, substitutes, wild, wild_mult, wild_each, masks, min_count,
              wins):
    """Pay every line of ``window``; returns ``(total units, number of paying lines)``.

    ``window`` is ``int64[reels, rows]``, ``lines`` ``int64[n_lines, reels]`` (row per reel),
    ``paytab[symbol, run]`` the pay of a run, ``substitutes[symbol]`` 1 where the wild stands in,
    ``masks`` from :func:`line_masks` and ``min_count[symbol]`` the shortest paying run.
    Paying lines are written to ``wins`` (``int64[n_lines, 5]``, columns ``W_*``).

    Runs start on the leftmost reel. A run of wilds pays as the wild's own symbol; a run of a
    symbol may include wilds that substitute for it, and then carries the wild multiplier (once
    per line, or once per wild). Each line pays only the better of the two runs.
    """
    reels = window.shape[0]
    n_lines = lines.shape[0]
    cand = -1
    if masks.shape[0] > 0:
        cand = _candidate_lines(window, masks, min_count, substitutes, wild)
    total = 0
    n = 0
    li = -1
    while li + 1 < n_lines:
        li += 1
        if masks.shape[0] > 0:
            if cand == 0:
                break
            skip = (cand & 1) == 0
            cand >>= 1
            if skip:
                continue
        w = 0
        if wild >= 0:
            while w < reels and window[w, lines[li, w]] == wild:
                w += 1
        best, best_sym, best_count, best_mult = 0, -1, 0, 1
        if w > 0:
            best, best_sym, best_count = paytab[wild, w], wild, w
        if w < reels:
            t = window[w, lines[li, w]]
            if w == 0 or substitutes[t]:
                k = w + 1
                n_wild = w
                while k < reels:
                    s = window[k, lines[li, k]]
                    if s == t:
                        k += 1
                    elif s == wild and substitutes[t]:
                        k += 1
                        n_wild += 1
                    else:
                        break
                pay = paytab[t, k]
                if pay > 0:
                    mult = 1
                    if n_wild > 0 and wild_mult > 1:
                        mult = wild_mult
                        if wild_each:
                            for _ in range(n_wild - 1):
                                mult *= wild_mult
                    if pay * mult > best:
                        best, best_sym, best_count, best_mult = pay * mult, t, k, mult
        if best > 0:
            total += best
            wins[n, W_LINE] = li
            wins[n, W_UNITS] = best
            wins[n, W_SYMBOL] = best_sym
            wins[n, W_COUNT] = best_count
            wins[n, W_MULT] = best_mult
            n += 1
    return total, n


@njit(cache=True)
def spin(m, strips, lengths, stream, mult, stops, window, wins):
    """Stop the reels and pay the window: ``(line units, scatter units, scatters, paying lines)``.

    Pays are multiplied by ``mult`` (the free-spin multiplier); ``wins`` holds the paying lines
    before that multiplier.
    """
    lines, paytab, substitutes, scatter_pays, sc = m[0], m[5], m[6], m[7], m[9]
    scatter = sc[S_SCATTER]
    fill_randbelow(stream, lengths, stops)
    count = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            s = strips[r, stops[r] + row]
            window[r, row] = s
            if s == scatter:
                count += 1
    line_units, n = line_pays(window, lines, paytab, substitutes, sc[S_WILD], sc[S_WILD_MULT],
                              sc[S_WILD_EACH] == 1, m[10], m[11], wins)
    return line_units * mult, scatter_pays[count] * mult, count, n


@njit(cache=True)
def _trace_spin(ev, n_ev, stage, index, remaining, mult, stops, wins, n_wins, scatter, count,
                scatter_units):
    """Write the event rows of one spin; returns the new row count."""
    if n_ev < ev.shape[0]:
        ev[n_ev, :5] = (EV_SPIN, stage, index, remaining, mult)
        ev[n_ev, 5 : 5 + stops.shape[0]] = stops
    n_ev += 1
    for j in range(n_wins):
        if n_ev < ev.shape[0]:
            ev[n_ev, :6] = (EV_LINE, wins[j, W_LINE], wins[j, W_SYMBOL], wins[j, W_COUNT],
                            wins[j, W_MULT] * mult, wins[j, W_UNITS] * mult)
        n_ev += 1
    if scatter_units > 0:
        if n_ev < ev.shape[0]:
            ev[n_ev, :4] = (EV_SCATTER, scatter, count, scatter_units)
        n_ev += 1
    return n_ev


@njit(cache=True)
def play_round(m, stream, trace, ev, stops, window, wins):
    """One round: a base spin, then any free spins. Returns, in pay units,
    ``(win, base_lines, base_scatter, free, uncapped, triggered, n_ev)``.

    ``win`` is capped at the model's max win. Event rows are written to ``ev`` only when
    ``trace``; when ``n_ev > len(ev)`` the buffer was too small and the caller retries with a
    larger one. ``stops`` (``int64[reels]``), ``window`` (``int64[reels, rows]``) and ``wins``
    (``int64[n_lines, 5]``) are scratch space.
    """
    base, base_len, free, free_len, fs_awards, sc = m[1], m[2], m[3], m[4], m[8], m[9]
    base_lines, base_scatter, count, n_wins = spin(m, base, base_len, stream, 1, stops, window,
                                                   wins)
    n_ev = 0
    if trace:
        n_ev = _trace_spin(ev, n_ev, 0, 0, 0, 1, stops, wins, n_wins, sc[S_SCATTER], count,
                           base_scatter)
    free_units = 0
    awarded = fs_awards[count]
    triggered = awarded > 0
    if triggered:
        fs_mult, retrigger, fs_max = sc[S_FS_MULT], sc[S_FS_RETRIGGER] == 1, sc[S_FS_MAX]
        if fs_max > 0 and awarded > fs_max:
            awarded = fs_max
        total, played = awarded, 0
        if trace:
            if n_ev < ev.shape[0]:
                ev[n_ev, :3] = (EV_TRIGGER, awarded, total)
            n_ev += 1
        while played < total and played < MAX_FREE_SPINS:
            played += 1
            lu, su, count, n_wins = spin(m, free, free_len, stream, fs_mult, stops, window, wins)
            free_units += lu + su
            if trace:
                n_ev = _trace_spin(ev, n_ev, 1, played, total - played, fs_mult, stops, wins,
                                   n_wins, sc[S_SCATTER], count, su)
            more = fs_awards[count] if retrigger else 0
            if fs_max > 0 and total + more > fs_max:
                more = fs_max - total
            if more > 0:
                total += more
                if trace:
                    if n_ev < ev.shape[0]:
                        ev[n_ev, :3] = (EV_TRIGGER, more, total)
                    n_ev += 1
    uncapped = base_lines + base_scatter + free_units
    win = min(uncapped, sc[S_CAP])
    if trace and win < uncapped:
        if n_ev < ev.shape[0]:
            ev[n_ev, :3] = (EV_CAP, sc[S_CAP], uncapped)
        n_ev += 1
    return win, base_lines, base_scatter, free_units, uncapped, triggered, n_ev


def scratch(m: Packed) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scratch arrays for :func:`play_round`: stops, window, wins."""
    sc = m[9]
    return (np.empty(sc[S_REELS], dtype=np.int64),
            np.empty((sc[S_REELS], sc[S_ROWS]), dtype=np.int64),
            np.empty((m[0].shape[0], 5), dtype=np.int64))


@njit(cache=True)
def simulate_rounds(m, stream, spins, level, bet, acc, sq, stops, window, wins):
    """Play ``spins`` rounds into the accumulators, in credits at ``level`` credits per pay
    unit and total bet ``bet`` credits.

    Components: base line pays, base scatter pays, free spins, and what the cap removed.
    """
    ev = np.empty((0, EV_WIDTH), dtype=np.int64)
    for _ in range(spins):
        win, bl, bs, fu, uncapped, triggered, _n = play_round(m, stream, False, ev, stops,
                                                              window, wins)
        record(acc, sq, win * level, bet, triggered)
        acc[ACC_COMPONENTS] += bl * level
        acc[ACC_COMPONENTS + 1] += bs * level
        acc[ACC_COMPONENTS + 2] += fu * level
        acc[ACC_COMPONENTS + 3] += (win - uncapped) * level
