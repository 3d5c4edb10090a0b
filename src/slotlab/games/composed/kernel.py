"""A composed game's rounds, compiled, for the simulator: the same rules and the same draws, in
the same order, as :func:`slotlab.games.composed.round.play_round` (which writes the events of
live play and replay), so a stream gives the same wins either way (tests/games/composed hold the
two to the same totals round by round).

The model travels as the line family's packed tuple (:func:`slotlab.games.lines.kernel.pack`),
whose ``spin`` pays the window, plus the features' arrays (:func:`pack_features`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.games.composed.model import ComposedModel
from slotlab.games.lines import kernel as lines
from slotlab.mechanics.accumulators import ACC_COMPONENTS, record_inline
from slotlab.mechanics.colour_wheel import spin_until
from slotlab.mechanics.expanding import show_and_expand
from slotlab.mechanics.hold_and_win import next_counter
from slotlab.mechanics.scatter import paying_scatters
from slotlab.mechanics.unmanaged import unmanaged_all
from slotlab.mechanics.whole_reel import is_full
from slotlab.rng import randbelow, weighted_pick

# scalars of pack_features
(F_COIN, F_TRIGGER, F_RESPINS, F_CELLS, F_ROWS, F_FS_MULT, F_FS_MAX, F_RETRIGGER, F_WHEEL,
 F_EXPANDING, F_EXPANDING_RESPINS, F_WHOLE_REEL, F_COLOURS, F_COLOUR_LIMIT, F_DIVISOR,
 F_FULL_GRID, F_WHEELS, F_COUNTED) = range(18)
# parts of the win, in round.COMPONENTS order
P_LINES, P_SCATTER, P_HOLD, P_WHEEL_PAYS, P_WHEEL_HOLD, P_FREE, P_RESPINS, P_COLOUR = range(8)
FEATURE_NONE, FEATURE_FREE_SPINS, FEATURE_HOLD_AND_WIN, FEATURE_COLOUR_WHEEL = 0, 1, 2, 3
EMPTY, COIN, COLLECTOR = 0, 1, 2  # a cell's state; also the landing table's outcomes

Features = tuple[np.ndarray, ...]


def pack_features(model: ComposedModel) -> Features:
    """``(scalars, landing cumulative, coin cumulative, coin values, segment pay, segment
    feature, segment multiplier, segment cumulative weights, colour wheel cumulative, its
    segments' colours, their multipliers, paying scatters' symbols, their pays, segment spins,
    wheels' first segments, their symbols, their counts, segment strip sets, the strip sets,
    their lengths)``. The wheels' segments are one run, wheel after wheel: wheel ``w`` is
    ``[firsts[w], firsts[w + 1])``, its cumulative weights its own. A segment's strip set 0 is
    the model's free-spin reels, ``k`` the model's ``features.strip_sets[k - 1]``."""
    f = model.features
    fs = model.spec.free_spins
    scalars = np.array([f.coin, f.trigger, f.respins, model.cells(), model.spec.rows,
                        fs.multiplier if fs else 1, (fs.max_spins or 0) if fs else 0,
                        int(bool(fs and fs.retrigger)), f.award_index, f.expanding,
                        f.expanding_respins, f.whole_reel, len(f.colours), f.colour_limit,
                        model.divisor, f.full_grid, len(f.wheels),
                        # whether a spin counts its symbols: paying scatters and wheels' symbols
                        # need the counts (a coin alone is found by the cell loop that draws
                        # its value; the expanding spin counts anyway)
                        int(bool(f.scatter_symbols) or any(w.symbol >= 0 for w in f.wheels)
                            or f.expanding >= 0)], dtype=np.int64)
    kinds = {None: FEATURE_NONE, "free_spins": FEATURE_FREE_SPINS,
             "hold_and_win": FEATURE_HOLD_AND_WIN, "colour_wheel": FEATURE_COLOUR_WHEEL}
    segments = [s for w in f.wheels for s in w.table.values]
    firsts = np.cumsum([0] + [len(w.table.values) for w in f.wheels], dtype=np.int64)
    sets = [model.lines.reel_set(name) for name in f.strip_sets]
    width = max([s.shape[1] for s, _n in sets] or [1])
    strips = np.full((max(len(sets), 1), model.spec.reels, width), -1, dtype=np.int64)
    lengths = np.ones((max(len(sets), 1), model.spec.reels), dtype=np.int64)
    for k, (s, n) in enumerate(sets):
        strips[k, :, :s.shape[1]] = s
        lengths[k] = n
    return (scalars, f.landing.cumulative(), f.coins.cumulative(), f.coins.int_values(),
            np.array([s.pay for s in segments] or [0], dtype=np.int64),
            np.array([kinds[s.feature] for s in segments] or [0], dtype=np.int64),
            np.array([s.multiplier for s in segments] or [1], dtype=np.int64),
            np.concatenate([w.table.cumulative() for w in f.wheels] or
                           [np.ones(1, dtype=np.int64)]),
            f.colour_segments.cumulative(),
            np.array([c for c, _m in f.colour_segments.values], dtype=np.int64),
            np.array([m for _c, m in f.colour_segments.values], dtype=np.int64),
            np.array(f.scatter_symbols, dtype=np.int64),
            # one row per scatter, flattened: the compiled kernel takes 1-d arrays
            np.array([p for row in f.scatter_pays for p in row], dtype=np.int64),
            np.array([s.spins for s in segments] or [0], dtype=np.int64),
            firsts, np.array([w.symbol for w in f.wheels] or [-1], dtype=np.int64),
            np.array([w.count for w in f.wheels] or [0], dtype=np.int64),
            np.array([f.strip_sets.index(s.strips) + 1 if s.strips else 0 for s in segments]
                     or [0], dtype=np.int64),
            strips, lengths)


@njit(cache=True, inline="always")
def _count_symbols(fz: Features, window: np.ndarray, counts: np.ndarray) -> None:
    """How many cells show each symbol, in one pass, when the game needs counts."""
    if fz[0][F_COUNTED] == 0:
        return
    counts[:] = 0  # (the expanding spin counts as it shows the window)
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            counts[window[r, row]] += 1


@njit(cache=True, inline="always")
def spin(m: lines.Packed, fz: Features, strips: np.ndarray, lengths: np.ndarray,
         stream: np.ndarray, mult: int, held: np.ndarray, stops: np.ndarray, window: np.ndarray,
         wins: np.ndarray, counts: np.ndarray) -> tuple[int, int, int, int, int]:
    """The line family's spin with expanding reels: reels with ``held[r] != 0`` are not drawn
    (they stay wild); a reel that shows the expanding symbol turns wild and is held before the
    window is counted or paid. ``(line units, scatter units, scatters, paying lines, reels
    expanded)``, pays times ``mult``; the scatter units are every scatter's, the count the line
    keys' scatter's (the one that awards free spins). ``counts``: how many cells show each
    symbol, once the reels expanded (only in a game that needs them, ``F_COUNTED``)."""
    symbol = fz[0][F_EXPANDING]
    if symbol < 0:  # no reel ever held: the line family's spin, loops fused
        lu, su, count, n = lines.spin(m, strips, lengths, stream, mult, stops, window, wins)
        _count_symbols(fz, window, counts)
        paid = paying_scatters(counts, fz[11], fz[12], fz[0][F_CELLS])
        return lu, su + paid * mult, count, n, 0
    sc = m[9]
    wild, scatter = sc[lines.S_WILD], sc[lines.S_SCATTER]
    for r in range(stops.shape[0]):
        if held[r] == 0:
            stops[r] = randbelow(stream, lengths[r])
    expanded = show_and_expand(strips, stops, window, symbol, wild, held, counts)
    count = counts[scatter] if scatter >= 0 else 0
    line_units, n = lines.pay_lines(m, window, wins)
    su = m[7][count] + paying_scatters(counts, fz[11], fz[12], fz[0][F_CELLS])
    return line_units * mult, su * mult, count, n, expanded


@njit(cache=True)
def _respins(m: lines.Packed, fz: Features, strips: np.ndarray, lengths: np.ndarray,
             stream: np.ndarray, mult: int, held: np.ndarray, stops: np.ndarray,
             window: np.ndarray, wins: np.ndarray, counts: np.ndarray) -> int:
    """The respins an expansion awards, the reels in ``held`` held; their pays (they start
    nothing)."""
    m, fz = unmanaged_all(m), unmanaged_all(fz)
    strips, lengths, stream, held, stops, window, wins, counts = unmanaged_all(
        (strips, lengths, stream, held, stops, window, wins, counts))
    win = 0
    for _ in range(fz[0][F_EXPANDING_RESPINS]):
        lu, su, _count, _n, _ex = spin(m, fz, strips, lengths, stream, mult, held, stops, window,
                                       wins, counts)
        win += lu + su
    return win


@njit(cache=True, inline="always")
def _show_coins(window: np.ndarray, stream: np.ndarray, fz: Features, state: np.ndarray,
                values: np.ndarray, counts: np.ndarray) -> tuple[int, int]:
    """Draw the value of every coin in view, the cells of a reel the whole-reel symbol fills
    being coins too (cell order); returns ``(coins, reels filled)``. With none in view the
    grid's state is left as it was: a hold and win started then starts empty
    (:func:`_clear`)."""
    sc, coin_cum, coin_values = fz[0], fz[2], fz[3]
    coin, rows, whole = sc[F_COIN], sc[F_ROWS], sc[F_WHOLE_REEL]
    if coin < 0:
        return 0, 0  # no hold and win: no coin, and the grid's state is never read
    if sc[F_COUNTED] == 1 and counts[coin] == 0 and (whole < 0 or counts[whole] < rows):
        return 0, 0  # none in view (known from the counts, when the spin made them)
    n = 0
    filled = 0
    full = False
    for cell in range(sc[F_CELLS]):
        r, row = cell // rows, cell % rows
        if row == 0 and whole >= 0:
            full = is_full(window, r, whole)
            filled += int(full)
        state[cell] = EMPTY
        values[cell] = 0
        if full or window[r, row] == coin:
            state[cell] = COIN
            values[cell] = coin_values[weighted_pick(stream, coin_cum)]
            n += 1
    return n, filled


@njit(cache=True, inline="always")
def _clear(state: np.ndarray, values: np.ndarray) -> None:
    state[:] = EMPTY
    values[:] = 0


@njit(cache=True)
def _hold_and_win(stream: np.ndarray, fz: Features, start_state: np.ndarray,
                  start_values: np.ndarray, mult: int, state: np.ndarray, values: np.ndarray,
                  landed: np.ndarray) -> int:
    """The grid from the coins held in ``start_*``; its win in pay units."""
    fz = unmanaged_all(fz)
    stream, start_state, start_values, state, values, landed = unmanaged_all(
        (stream, start_state, start_values, state, values, landed))
    sc, landing_cum, coin_cum, coin_values = fz[0], fz[1], fz[2], fz[3]
    cells, respins = sc[F_CELLS], sc[F_RESPINS]
    held = 0
    for cell in range(cells):
        state[cell] = start_state[cell]
        values[cell] = start_values[cell]
        if state[cell] != EMPTY:
            held += 1
    counter = respins
    while counter > 0 and held < cells:
        n = 0
        for cell in range(cells):
            landed[cell] = EMPTY
            if state[cell] == EMPTY:
                o = weighted_pick(stream, landing_cum)
                if o != EMPTY:
                    landed[cell] = o
                    n += 1
        for cell in range(cells):
            if landed[cell] == COIN:
                state[cell] = COIN
                values[cell] = coin_values[weighted_pick(stream, coin_cum)]
            elif landed[cell] == COLLECTOR:
                state[cell] = COLLECTOR
        held += n
        counter = next_counter(counter, n, respins)
    total = 0
    collectors = 0
    for cell in range(cells):
        if state[cell] == COIN:
            total += values[cell]
        elif state[cell] == COLLECTOR:
            collectors += 1
    full = sc[F_FULL_GRID] if held == cells else 0
    return (total * (1 + collectors) + full) * mult


@njit(cache=True)
def _free_spins(m: lines.Packed, fz: Features, stream: np.ndarray, strips: np.ndarray,
                lengths: np.ndarray, awarded: int, mult: int, again: int,
                scratch: tuple[np.ndarray, ...]) -> int:
    """``awarded`` free spins at ``mult`` on ``strips``; a retrigger awards ``again`` (0: the
    scatters' award), up to the cap. Their coins are kept apart from the base spin's (``state0``,
    ``values0``), which a wheel spun after them may still start a hold and win from."""
    m, fz, scratch = unmanaged_all(m), unmanaged_all(fz), unmanaged_all(scratch)
    stream, strips, lengths = unmanaged_all((stream, strips, lengths))
    stops, window, wins, _state0, _values0, state, values, landed, held, _hits, counts = scratch
    sc = fz[0]
    fs_awards = m[8]
    fs_max = sc[F_FS_MAX]
    total = min(awarded, fs_max) if fs_max > 0 else awarded
    win = 0
    played = 0
    while played < total and played < lines.MAX_FREE_SPINS:
        played += 1
        held[:] = 0
        lu, su, count, _n, expanded = spin(m, fz, strips, lengths, stream, mult, held, stops,
                                           window, wins, counts)
        win += lu + su
        coins, filled = _show_coins(window, stream, fz, state, values, counts)
        if expanded > 0:
            win += _respins(m, fz, strips, lengths, stream, mult, held, stops, window, wins,
                            counts)
        if sc[F_COIN] >= 0 and (coins >= sc[F_TRIGGER] or filled > 0):
            # the grid starts from the coins it holds (its start and its state the same)
            win += _hold_and_win(stream, fz, state, values, mult, state, values, landed)
        more = fs_awards[count] if sc[F_RETRIGGER] == 1 else 0
        if more > 0 and again > 0:
            more = again
        if fs_max > 0 and total + more > fs_max:
            more = fs_max - total
        if more > 0:
            total += more
    return win


@njit(cache=True)
def _wheel(m: lines.Packed, fz: Features, stream: np.ndarray, parts: np.ndarray, wheel: int,
           awarded: int, shown: int, scratch: tuple[np.ndarray, ...]) -> int:
    """Spin wheel ``wheel``: its pay and the feature its segment starts (free spins of
    ``awarded``, a hold and win from the base spin's coins: ``shown``, 0 when there were none)
    into ``parts``. Returns the segment's multiplier when it starts the colour wheel, which the
    round plays last; else 0."""
    m, fz, scratch = unmanaged_all(m), unmanaged_all(fz), unmanaged_all(scratch)
    stream, parts = unmanaged_all((stream, parts))
    _stops, _window, _wins, state0, values0, state, values, landed, _held, _hits, _n = scratch
    sc = fz[0]
    first = fz[14][wheel]
    seg = first + weighted_pick(stream, fz[7][first:fz[14][wheel + 1]])
    parts[P_WHEEL_PAYS] += fz[4][seg]
    kind, seg_mult = fz[5][seg], fz[6][seg]
    if kind == FEATURE_FREE_SPINS:
        spins, reels = fz[13][seg], fz[17][seg]
        strips, lengths = (m[3], m[4]) if reels == 0 else (fz[18][reels - 1],
                                                           fz[19][reels - 1])
        parts[P_FREE] += _free_spins(m, fz, stream, strips, lengths,
                                     spins if spins > 0 else awarded, sc[F_FS_MULT] * seg_mult,
                                     spins, scratch)
    elif kind == FEATURE_HOLD_AND_WIN:
        if shown == 0:
            _clear(state0, values0)
        parts[P_WHEEL_HOLD] += _hold_and_win(stream, fz, state0, values0, seg_mult, state,
                                             values, landed)
    elif kind == FEATURE_COLOUR_WHEEL:
        return int(seg_mult)
    return 0


@njit(cache=True, inline="always")
def play_round(m: lines.Packed, fz: Features, stream: np.ndarray, parts: np.ndarray,
               scratch: tuple[np.ndarray, ...]) -> bool:
    """One round into ``parts`` (pay units, in ``round.COMPONENTS`` order); True when a
    feature started."""
    stops, window, wins, state0, values0, state, values, landed, held, hits, counts = scratch
    sc = fz[0]
    for k in range(parts.shape[0]):
        parts[k] = 0
    feature = False
    held[:] = 0
    lu, su, count, _n, expanded = spin(m, fz, m[1], m[2], stream, 1, held, stops, window, wins,
                                       counts)
    parts[P_LINES] = lu
    parts[P_SCATTER] = su
    wheels, symbols, needed = sc[F_WHEELS], fz[15], fz[16]
    for w in range(wheels):
        # counted now: the respins reuse the window
        hits[w] = counts[symbols[w]] if symbols[w] >= 0 else 0
    coins, filled = _show_coins(window, stream, fz, state0, values0, counts)
    shown = coins + filled
    if expanded > 0:
        feature = True
        parts[P_RESPINS] = _respins(m, fz, m[1], m[2], stream, 1, held, stops, window, wins,
                                    counts)
    if sc[F_COIN] >= 0 and (coins >= sc[F_TRIGGER] or filled > 0):
        feature = True
        parts[P_HOLD] = _hold_and_win(stream, fz, state0, values0, 1, state, values, landed)
    awarded = m[8][count]
    colour_mult = 0  # the colour wheels started: their segments' multipliers, added
    for w in range(wheels):
        if symbols[w] >= 0 and hits[w] >= needed[w]:
            feature = True
            colour_mult += _wheel(m, fz, stream, parts, w, 0, shown, scratch)
    if awarded > 0:
        feature = True
        if sc[F_WHEEL] < 0:
            # added: a wheel its symbol spun may have started free spins too
            parts[P_FREE] += _free_spins(m, fz, stream, m[3], m[4], awarded, sc[F_FS_MULT], 0,
                                         scratch)
        else:
            colour_mult += _wheel(m, fz, stream, parts, sc[F_WHEEL], awarded, shown, scratch)
    if colour_mult > 0:
        # last in the round, as the player's colour is (the simulator picks it at random)
        colour = randbelow(stream, sc[F_COLOURS])
        total = spin_until(stream, fz[8], fz[9], fz[10], colour, sc[F_COLOUR_LIMIT])
        parts[P_COLOUR] = total * sc[F_DIVISOR] * colour_mult
    uncapped = 0
    for k in range(parts.shape[0] - 1):
        uncapped += parts[k]
    cap = m[9][lines.S_CAP]
    if uncapped > cap:
        parts[parts.shape[0] - 1] = cap - uncapped
    return feature


def scratch(m: lines.Packed, fz: Features) -> tuple[np.ndarray, ...]:
    cells = int(fz[0][F_CELLS])
    return (*lines.scratch(m), *(np.zeros(cells, dtype=np.int64) for _ in range(5)),
            np.zeros(int(m[9][lines.S_REELS]), dtype=np.int64),
            np.zeros(max(int(fz[0][F_WHEELS]), 1), dtype=np.int64),
            np.zeros(int(m[5].shape[0]), dtype=np.int64))


@njit(cache=True)
def simulate_rounds(m: lines.Packed, fz: Features, stream: np.ndarray, spins: int, level: int,
                    bet: int, acc: np.ndarray, sq: np.ndarray, parts: np.ndarray,
                    scratch: tuple[np.ndarray, ...]) -> None:
    """Play ``spins`` rounds into the accumulators (credits at ``level`` per pay unit).

    As in the line kernel, the loop works on views without a reference count (the caller keeps
    every array alive), and the round is inlined into it; the features it calls, compiled
    apart, take such views of their arguments too: a round then makes no reference-count
    operation (a free spin with them cost ten times one without).
    """
    m, fz, scratch = unmanaged_all(m), unmanaged_all(fz), unmanaged_all(scratch)
    stream, acc, sq, parts = unmanaged_all((stream, acc, sq, parts))
    n = parts.shape[0]
    for _ in range(spins):
        feature = play_round(m, fz, stream, parts, scratch)
        win = 0
        for k in range(n):
            win += parts[k]
            acc[ACC_COMPONENTS + k] += parts[k] * level
        record_inline(acc, sq, win * level, bet, feature)
