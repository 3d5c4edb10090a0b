"""The rules of Super 12 Stars, compiled: one round from a random stream.

The same :func:`play_round` serves live play and replay (``trace=True``: it writes event rows
that ``game.py`` turns into JSON events) and the simulator (``trace=False``). Amounts are in pay
units of one line bet (see :mod:`.model`).

A round (order of game-models.md section 5, point 5): the base spin pays its lines, golden and
silver scatters and the Bonus pay; then, in this order, the Super 7 respin, the Wheel, the TV
mini game and its free spins, the Super 10 mini game (a direct win, its free spins, or the Frenzy
Wheel), and Lucky Stars. The strips make those features exclusive on the central reel, but the
code does not rely on it. The Frenzy Wheel is played last (:func:`frenzy`): it needs the
player's colour, so a live round stops before it and the facade plays it from the next seed;
the simulator draws the colour from the stream.

Every draw goes through :func:`below` / :func:`pick`, which take the next value of a *script*
while it has any (forced outcomes: ``script = [position, count, error, values...]``, an
out-of-range value sets ``error`` to its position and draws 0), and else draw from the stream.
Scripted values are in draw order: reel stops (reel 1 to 5; a respin skips reel 3), then the
index of the outcome of each weighted table as it is drawn.

The model travels as the tuple built by :func:`pack` (indices ``M_*``); per-round running sums
go to ``comp`` (indices ``C_*``, never reset in a simulation chunk: all sums are linear in the
bet, so the chunk scales them to credits once at the end).

Speed notes (as in ``games/lines/kernel.py``): the spin, the line pays and the round are inlined
into the simulation loop, which first takes views of its arrays without a reference count
(:func:`unmanaged`), so a round makes no atomic reference-count operation and no allocation.
The base spin, the Super 7 respin and every free spin share one loop so the spin is compiled
once; event rows are written element by element.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_WIN, record
from slotlab.mechanics.events import put_event
from slotlab.mechanics.hold_and_win import land_on_free_cells, next_counter
from slotlab.mechanics.lines import (
    W_COUNT,
    W_LINE,
    W_SYMBOL,
    W_UNITS,
    masked_line_pays,
    masked_line_units,
    sort_wins,
)
from slotlab.mechanics.unmanaged import unmanaged
from slotlab.rng import randbelow

from .model import (
    BASE,
    BO,
    CENTRE,
    FREE,
    GS,
    N_REELS,
    N_ROWS,
    S7,
    S10_DIRECT,
    S10_FREE,
    S10_FRENZY,
    SS,
    T10,
    T12,
    WH,
    Model,
    W,
)

# The packed model (pack): indices into the tuple.
(M_STRIPS, M_LENGTHS, M_LINES, M_MASKS, M_PAYTAB, M_SUBST, M_MIN_COUNT, M_GOLDEN, M_SILVER,
 M_WHEEL_CUM, M_WHEEL, M_TV_SPINS_CUM, M_TV_SPINS, M_TV_MULT_CUM, M_TV_MULT, M_S10_CUM,
 M_S10_KIND, M_S10_AMOUNT, M_FRENZY_CUM, M_FRENZY_VALUES, M_FRENZY_COLOURS, M_STAR_CUM,
 M_STAR_UNITS, M_STAR_KIND, M_LUCKY_CUM, M_SCALARS) = range(26)
# Scalars.
SC_BONUS_PAY, SC_MAX_FS, SC_FRENZY_LIMIT, SC_RESPINS, SC_GRAND, SC_CAP, SC_TOTAL_BET = range(7)
# Star kinds.
STAR_VALUE, STAR_MINOR, STAR_MAJOR = 0, 1, 2

# Win components (comp), in the order of game.COMPONENTS.
(C_LINES, C_GOLDEN, C_SILVER, C_BONUS_PAY, C_SUPER7, C_WHEEL, C_FREE, C_S10_DIRECT, C_FRENZY,
 C_S10_FREE, C_STAR_VALUES, C_MINOR, C_MAJOR, C_GRAND, C_CAP) = range(15)
N_COMP = 16

# Stages of a spin.
STAGE_BASE, STAGE_FREE, STAGE_S10_FREE = 0, 1, 2

# Event rows: int64[EV_WIDTH]; column 0 is the kind, the columns after it as noted.
EV_WIDTH = 12
EV_ROW = 7  # the columns each row but EV_REELS writes: the kind and six figures
EV_REELS = 1  # stage, spin number (0 base), spins awarded, multiplier, respin flag, stops[5]
EV_SUPER7 = 2  # stage
EV_LINE = 3  # line index, symbol, count, multiplier, units
EV_SCATTER = 4  # 0 golden / 1 silver, count, units
EV_BONUS = 5  # units, multiplier
EV_WHEEL = 6  # segment index, value (x line bet), units
EV_TV = 7  # spins index, spins, multiplier index, multiplier
EV_FS_AWARD = 8  # awarded, total awarded, retrigger flag, stage
EV_S10 = 9  # outcome index, kind, amount (units or spins)
EV_LUCKY = 10  # 0 start / 1 respin, respin number, counter, new stars, stars held
EV_STAR = 11  # cell (reel * 3 + row), star index, units
EV_LUCKY_END = 12  # stars, value units, minors, majors, grand units, total units
EV_FRENZY = 13  # box, value, colour, total
EV_FRENZY_END = 14  # total, units, chosen colour
EV_CAP = 15  # cap, uncapped

# colour argument of play_round
COLOUR_WAIT = -1  # stop before the Frenzy Wheel (live play: the player chooses)
COLOUR_RANDOM = -2  # draw the colour from the stream (simulation)

Packed = tuple[np.ndarray, ...]


def pack(model: Model) -> Packed:
    """The model's arrays as the kernel takes them (see the ``M_*`` indices)."""
    star_kind = np.array([STAR_MINOR if v == "MINOR" else STAR_MAJOR if v == "MAJOR"
                          else STAR_VALUE for v in model.star_values.values], np.int64)
    scalars = np.array([model.bonus_pay, model.max_free_spins, model.frenzy_limit,
                        model.lucky_respins, model.grand_units,
                        -1 if model.cap_x is None else model.cap_x * 30, 30], np.int64)
    return (model.strips, model.lengths, model.lines, model.masks, model.paytab,
            model.substitutes, model.min_count, model.golden_pays, model.silver_pays,
            model.wheel.cumulative(), model.wheel.int_values(),
            model.tv_spins.cumulative(), model.tv_spins.int_values(),
            model.tv_multiplier.cumulative(), model.tv_multiplier.int_values(),
            model.super10.cumulative(), model.s10_kind, model.s10_amount,
            model.frenzy.cumulative(), model.frenzy_values, model.frenzy_colours,
            model.star_values.cumulative(), model.star_units, star_kind,
            model.lucky_cell.cumulative(), scalars)


def new_script(values: list[int] | np.ndarray = ()) -> np.ndarray:  # type: ignore[assignment]
    """A script of forced draws (empty: every draw comes from the stream)."""
    vals = np.asarray(values, dtype=np.int64).ravel()
    out = np.empty(3 + vals.shape[0], np.int64)
    out[0], out[1], out[2] = 0, vals.shape[0], -1
    out[3:] = vals
    return out


@njit(cache=True, inline="always")
def below(stream: np.ndarray, script: np.ndarray, n: int) -> int:
    """The next draw in ``range(n)``: the script's next value while it has one."""
    p = script[0]
    if p < script[1]:
        script[0] = p + 1
        v: int = script[3 + p]
        if v < 0 or v >= n:
            if script[2] < 0:
                script[2] = p
            return 0
        return v
    # randbelow's int is unsigned: keep one type
    return np.int64(randbelow(stream, n))  # type: ignore[return-value]


@njit(cache=True, inline="always")
def pick(stream: np.ndarray, script: np.ndarray, cumulative: np.ndarray) -> int:
    """The next outcome of a weighted table (index ``i`` with weight ``i``)."""
    p = script[0]
    if p < script[1]:
        return below(stream, script, cumulative.shape[0])
    r = np.int64(randbelow(stream, cumulative[-1]))
    i = 0
    while cumulative[i] <= r:
        i += 1
    return i


@njit(cache=True)
def _trace_spin(ev: np.ndarray, n_ev: int, stage: int, index: int, awarded: int, mult: int,
                held: bool, s7: bool, stops: np.ndarray, wins: np.ndarray, n_wins: int,
                golden: int, golden_units: int, silver: int, silver_units: int, bonus: int,
                bonus_units: int) -> int:
    """The event rows of one spin: reels, Super 7, paying lines in line order, scatters, Bonus."""
    if n_ev < ev.shape[0]:
        for r in range(N_REELS):
            ev[n_ev, 6 + r] = stops[r]
    n_ev = put_event(ev, n_ev, 6, EV_REELS, stage, index, awarded, mult, 1 if held else 0)
    if s7:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_SUPER7, stage)
    sort_wins(wins, n_wins)
    for j in range(n_wins):
        n_ev = put_event(ev, n_ev, EV_ROW, EV_LINE, wins[j, W_LINE], wins[j, W_SYMBOL],
                         wins[j, W_COUNT], mult, wins[j, W_UNITS] * mult)
    if golden_units > 0:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_SCATTER, 0, golden, golden_units)
    if silver_units > 0:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_SCATTER, 1, silver, silver_units)
    if bonus_units > 0:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_BONUS, bonus_units, mult, bonus)
    return n_ev


@njit(cache=True, inline="always")
def spin(m: Packed, reel_set: int, stream: np.ndarray, script: np.ndarray, held: bool,
         trace: bool, stops: np.ndarray, window: np.ndarray,
         wins: np.ndarray) -> tuple[int, int, int, int, int, int, int, int, bool]:
    """Stop the reels of ``reel_set`` and pay the window's lines (the paying lines written to
    ``wins`` only when ``trace``: the simulator needs only their sum).

    ``held``: a Super 7 respin, reel 3 stays as it is (wild) and is not drawn. A Super 7 in view
    (not held) turns reel 3 into wilds before anything is counted or paid. Returns
    ``(line units, paying lines, golden, silver, bonus, wheel, super10 cells, super12 cells,
    super7)``, counts over the final window.
    """
    strips, lengths = m[M_STRIPS], m[M_LENGTHS]
    for r in range(N_REELS):
        if held and r == CENTRE:
            continue
        stops[r] = below(stream, script, lengths[reel_set, r])
    for r in range(N_REELS):
        if held and r == CENTRE:
            continue
        for row in range(N_ROWS):
            window[r, row] = strips[reel_set, r, stops[r] + row]
    s7 = False
    if held:
        for row in range(N_ROWS):
            window[CENTRE, row] = W
    else:
        for row in range(N_ROWS):
            if window[CENTRE, row] == S7:
                s7 = True
        if s7:
            for row in range(N_ROWS):
                window[CENTRE, row] = W
    golden, silver, bonus, wheel, t10, t12 = 0, 0, 0, 0, 0, 0
    for r in range(N_REELS):
        for row in range(N_ROWS):
            s = window[r, row]
            if s > W:  # the specials are the codes above the wild
                if s == GS:
                    golden += 1
                elif s == SS:
                    silver += 1
                elif s == BO:
                    bonus += 1
                elif s == WH:
                    wheel += 1
                elif s == T10:
                    t10 += 1
                elif s == T12:
                    t12 += 1
    if trace:
        units, n = masked_line_pays(window, m[M_LINES], m[M_PAYTAB], m[M_SUBST], W, 1, False,
                                    m[M_MASKS], m[M_MIN_COUNT], wins)
    else:
        units = masked_line_units(window, m[M_LINES], m[M_PAYTAB], m[M_SUBST], W, 1, False,
                                  m[M_MASKS], m[M_MIN_COUNT])
        n = 0
    return units, n, golden, silver, bonus, wheel, t10, t12, s7


@njit(cache=True, inline="always")
def lucky_stars(m: Packed, stream: np.ndarray, script: np.ndarray, trace: bool, ev: np.ndarray,
                n_ev: int, held: np.ndarray, value: np.ndarray, landed: np.ndarray,
                comp: np.ndarray) -> tuple[int, int]:
    """Lucky Stars: the 3 central-reel cells hold stars, every respin each empty cell may land
    one (held, counter back to 3), until the counter runs out or all 15 cells hold stars.
    Returns ``(units, n_ev)``."""
    sc = m[M_SCALARS]
    star_cum, star_units, star_kind = m[M_STAR_CUM], m[M_STAR_UNITS], m[M_STAR_KIND]
    cells = held.shape[0]
    for i in range(cells):
        held[i] = 0
        value[i] = -1
    for row in range(N_ROWS):
        cell = CENTRE * N_ROWS + row
        held[cell] = 1
        value[cell] = pick(stream, script, star_cum)
    n_held = N_ROWS
    respins = sc[SC_RESPINS]
    counter = respins
    if trace:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_LUCKY, 0, 0, counter, N_ROWS, n_held)
        for row in range(N_ROWS):
            cell = CENTRE * N_ROWS + row
            n_ev = put_event(ev, n_ev, EV_ROW, EV_STAR, cell, value[cell], star_units[value[cell]])
    number = 0
    cum = m[M_LUCKY_CUM]
    while counter > 0 and n_held < cells:
        number += 1
        if script[0] < script[1]:
            # Forced draws: the same order as land_on_free_cells (free cells by index).
            landings = 0
            for i in range(cells):
                landed[i] = 0
                if held[i] == 0:
                    landed[i] = pick(stream, script, cum)
                    if landed[i] != 0:
                        landings += 1
        else:
            landings = land_on_free_cells(stream, held, cum, landed)
        counter = next_counter(counter, landings, respins)
        n_held += landings
        if trace:
            n_ev = put_event(ev, n_ev, EV_ROW, EV_LUCKY, 1, number, counter, landings, n_held)
        for i in range(cells):
            if landed[i] != 0:
                held[i] = 1
                value[i] = landed[i] - 1
                if trace:
                    n_ev = put_event(ev, n_ev, EV_ROW, EV_STAR, i, value[i], star_units[value[i]])
    values, minors, majors, minor_units, major_units = 0, 0, 0, 0, 0
    for i in range(cells):
        if held[i] != 0:
            v = value[i]
            k = star_kind[v]
            if k == STAR_MINOR:
                minors += 1
                minor_units += star_units[v]
            elif k == STAR_MAJOR:
                majors += 1
                major_units += star_units[v]
            else:
                values += star_units[v]
    grand = sc[SC_GRAND] if n_held == cells else 0
    total = values + minor_units + major_units + grand
    comp[C_STAR_VALUES] += values
    comp[C_MINOR] += minor_units
    comp[C_MAJOR] += major_units
    comp[C_GRAND] += grand
    if trace:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_LUCKY_END, n_held, values, minors, majors, grand,
                         total)
    return total, n_ev


@njit(cache=True, inline="always")
def frenzy(m: Packed, stream: np.ndarray, script: np.ndarray, colour: int, trace: bool,
           ev: np.ndarray, n_ev: int, comp: np.ndarray) -> tuple[int, int]:
    """The Frenzy Wheel for the player's ``colour`` (0 or 1): each spin adds its box's value to
    the total first; the same colour spins again, until the other colour or a total above the
    limit. Pays the total x total bet. Returns ``(units, n_ev)``."""
    cum, values, colours = m[M_FRENZY_CUM], m[M_FRENZY_VALUES], m[M_FRENZY_COLOURS]
    sc = m[M_SCALARS]
    total = 0
    while True:
        box = pick(stream, script, cum)
        total += values[box]
        if trace:
            n_ev = put_event(ev, n_ev, EV_ROW, EV_FRENZY, box, values[box], colours[box], total)
        if colours[box] != colour or total > sc[SC_FRENZY_LIMIT]:
            break
    units = total * sc[SC_TOTAL_BET]
    comp[C_FRENZY] += units
    if trace:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_FRENZY_END, total, units, colour)
    return units, n_ev


@njit(cache=True, inline="always")
def play_round(m: Packed, stream: np.ndarray, script: np.ndarray, colour: int, trace: bool,
               ev: np.ndarray, stops: np.ndarray, window: np.ndarray, wins: np.ndarray,
               held: np.ndarray, value: np.ndarray, landed: np.ndarray,
               comp: np.ndarray) -> tuple[int, int, bool, bool, int]:
    """One round. Returns ``(win, uncapped, feature, frenzy_pending, n_ev)`` in pay units.

    ``colour``: :data:`COLOUR_RANDOM` draws the Frenzy colour from the stream and plays it;
    :data:`COLOUR_WAIT` stops before the Frenzy Wheel (``frenzy_pending``; ``win`` is then the
    win so far, uncapped: the facade adds the Frenzy and caps). Components are added to
    ``comp``. Event rows go to ``ev`` when ``trace``; ``n_ev > len(ev)`` means the buffer was too
    small (the caller retries with a larger one). The other arrays are scratch space.
    """
    sc = m[M_SCALARS]
    bonus_pay = sc[SC_BONUS_PAY]
    max_fs = sc[SC_MAX_FS]
    n_ev = 0
    reel_set, stage, mult = BASE, STAGE_BASE, 1
    held_reel = False  # the next spin is a Super 7 respin
    played, awarded, again = 0, 0, 0  # free spins played / awarded, retrigger amount
    total = 0
    feature = False
    pending = False
    base_bonus, base_wheel, base_t10, base_t12 = 0, 0, 0, 0
    while True:
        lu, n_wins, golden, silver, bonus, wheel, t10, t12, s7 = spin(
            m, reel_set, stream, script, held_reel, trace, stops, window, wins)
        gu = m[M_GOLDEN][golden] * mult
        su = m[M_SILVER][silver] * mult
        bu = bonus_pay * mult if bonus >= 3 else 0
        lu *= mult
        if trace:
            n_ev = _trace_spin(ev, n_ev, stage, played, awarded, mult, held_reel, s7, stops,
                               wins, n_wins, golden, gu, silver, su, bonus, bu)
        win = lu + gu + su + bu
        total += win
        if stage == STAGE_BASE:
            if held_reel:
                comp[C_SUPER7] += win
            else:
                comp[C_LINES] += lu
                comp[C_GOLDEN] += gu
                comp[C_SILVER] += su
                comp[C_BONUS_PAY] += bu
                base_bonus, base_wheel, base_t10, base_t12 = bonus, wheel, t10, t12
        elif stage == STAGE_FREE:
            comp[C_FREE] += win
        else:
            comp[C_S10_FREE] += win
        if s7 and not held_reel:
            held_reel = True  # one respin of reels 1, 2, 4, 5 with reel 3 wild
            feature = True
            continue
        held_reel = False
        if stage == STAGE_FREE and bonus >= 3:
            more = min(again, max_fs - awarded)
            if more > 0:
                awarded += more
                if trace:
                    n_ev = put_event(ev, n_ev, EV_ROW, EV_FS_AWARD, more, awarded, 1, stage)
        if stage == STAGE_BASE:
            # The base spin (and its respin) is over: the features it triggered, in order.
            if base_wheel >= 3:
                feature = True
                seg = pick(stream, script, m[M_WHEEL_CUM])
                wu = m[M_WHEEL][seg]
                total += wu
                comp[C_WHEEL] += wu
                if trace:
                    n_ev = put_event(ev, n_ev, EV_ROW, EV_WHEEL, seg, m[M_WHEEL][seg], wu)
            if base_bonus >= 3:
                feature = True
                si = pick(stream, script, m[M_TV_SPINS_CUM])
                mi = pick(stream, script, m[M_TV_MULT_CUM])
                again = m[M_TV_SPINS][si]
                mult = m[M_TV_MULT][mi]
                awarded = min(again, max_fs)
                reel_set, stage = FREE, STAGE_FREE
                if trace:
                    n_ev = put_event(ev, n_ev, EV_ROW, EV_TV, si, again, mi, mult)
                    n_ev = put_event(ev, n_ev, EV_ROW, EV_FS_AWARD, awarded, awarded, 0, stage)
            if base_t10 == N_ROWS:
                feature = True
                oi = pick(stream, script, m[M_S10_CUM])
                kind, amount = m[M_S10_KIND][oi], m[M_S10_AMOUNT][oi]
                if trace:
                    n_ev = put_event(ev, n_ev, EV_ROW, EV_S10, oi, kind, amount)
                if kind == S10_DIRECT:
                    total += amount
                    comp[C_S10_DIRECT] += amount
                elif kind == S10_FRENZY:
                    pending = True
                elif stage == STAGE_BASE:  # free spins (never with Bonus free spins pending)
                    awarded, again, mult = amount, 0, 1
                    reel_set, stage = S10_FREE, STAGE_S10_FREE
                    if trace:
                        n_ev = put_event(ev, n_ev, EV_ROW, EV_FS_AWARD, awarded, awarded, 0, stage)
            if base_t12 == N_ROWS:
                feature = True
                lu, n_ev = lucky_stars(m, stream, script, trace, ev, n_ev, held, value, landed,
                                       comp)
                total += lu
            if stage == STAGE_BASE:
                break
        if played >= awarded:
            break
        played += 1
    if pending and colour != COLOUR_WAIT:
        c: int = colour if colour >= 0 else np.int64(randbelow(stream, 2))  # type: ignore[assignment]
        fu, n_ev = frenzy(m, stream, script, c, trace, ev, n_ev, comp)
        total += fu
        pending = False
    win = total
    if not pending:
        win, n_ev = cap_win(m, total, trace, ev, n_ev, comp)
    return win, total, feature, pending, n_ev


@njit(cache=True, inline="always")
def cap_win(m: Packed, uncapped: int, trace: bool, ev: np.ndarray, n_ev: int,
            comp: np.ndarray) -> tuple[int, int]:
    """The round win under the model's cap (none when the cap is -1)."""
    cap = m[M_SCALARS][SC_CAP]
    if cap < 0 or uncapped <= cap:
        return uncapped, n_ev
    comp[C_CAP] += cap - uncapped
    if trace:
        n_ev = put_event(ev, n_ev, EV_ROW, EV_CAP, cap, uncapped)
    return cap, n_ev


@njit(cache=True)
def trace_round(m: Packed, stream: np.ndarray, script: np.ndarray, colour: int, ev: np.ndarray,
                stops: np.ndarray, window: np.ndarray, wins: np.ndarray, held: np.ndarray,
                value: np.ndarray, landed: np.ndarray,
                comp: np.ndarray) -> tuple[int, int, bool, bool, int]:
    """:func:`play_round` with event rows (live play, replay, forced outcomes)."""
    return play_round(m, stream, script, colour, True, ev, stops, window, wins, held, value,
                      landed, comp)


@njit(cache=True)
def trace_frenzy(m: Packed, stream: np.ndarray, script: np.ndarray, colour: int, ev: np.ndarray,
                 so_far: int, comp: np.ndarray) -> tuple[int, int, int]:
    """The Frenzy Wheel of a round that waited for the colour, then the cap on the round win
    (``so_far``: the win before the Frenzy). Returns ``(win, uncapped, n_ev)``."""
    fu, n_ev = frenzy(m, stream, script, colour, True, ev, 0, comp)
    win, n_ev = cap_win(m, so_far + fu, True, ev, n_ev, comp)
    return win, so_far + fu, n_ev


def scratch(m: Packed) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                np.ndarray, np.ndarray]:
    """Scratch arrays for :func:`play_round`: stops, window, wins, held, value, landed, comp."""
    cells = N_REELS * N_ROWS
    return (np.zeros(N_REELS, np.int64), np.zeros((N_REELS, N_ROWS), np.int64),
            np.zeros((m[M_LINES].shape[0], 5), np.int64), np.zeros(cells, np.int64),
            np.zeros(cells, np.int64), np.zeros(cells, np.int64), np.zeros(N_COMP, np.int64))


@njit(cache=True)
def simulate_rounds(m: Packed, stream: np.ndarray, spins: int, level: int, bet: int,
                    acc: np.ndarray, sq: np.ndarray, script: np.ndarray, stops: np.ndarray,
                    window: np.ndarray, wins: np.ndarray, held: np.ndarray, value: np.ndarray,
                    landed: np.ndarray, comp: np.ndarray) -> None:
    """Play ``spins`` rounds into the accumulators (credits: ``level`` credits per pay unit,
    total bet ``bet`` credits), the Frenzy colour drawn at random. ``script`` is an empty
    script (:func:`new_script`); the other arrays are :func:`scratch`."""
    u = unmanaged  # the caller keeps every one of these arrays alive during the call
    m = (u(m[0]), u(m[1]), u(m[2]), u(m[3]), u(m[4]), u(m[5]), u(m[6]), u(m[7]), u(m[8]),
         u(m[9]), u(m[10]), u(m[11]), u(m[12]), u(m[13]), u(m[14]), u(m[15]), u(m[16]),
         u(m[17]), u(m[18]), u(m[19]), u(m[20]), u(m[21]), u(m[22]), u(m[23]), u(m[24]),
         u(m[25]))
    stream, acc, sq, stops, window, wins = u(stream), u(acc), u(sq), u(stops), u(window), u(wins)
    script, held, value, landed, comp = u(script), u(held), u(value), u(landed), u(comp)
    ev = wins[:0]  # never written: no tracing
    for i in range(comp.shape[0]):
        comp[i] = 0
    for _ in range(spins):
        win, _uncapped, feature, _pending, _n = play_round(
            m, stream, script, COLOUR_RANDOM, False, ev, stops, window, wins, held, value,
            landed, comp)
        record(acc, sq, win * level, bet, feature)
    for i in range(comp.shape[0]):
        acc[ACC_COMPONENTS + i] += comp[i] * level


@njit(cache=True)
def round_wins(m: Packed, stream: np.ndarray, level: int, bet: int, out: np.ndarray,
               acc: np.ndarray, sq: np.ndarray, script: np.ndarray, stops: np.ndarray,
               window: np.ndarray, wins: np.ndarray, held: np.ndarray, value: np.ndarray,
               landed: np.ndarray, comp: np.ndarray) -> None:
    """``out[i]`` (int64[n]): the win in credits of the i-th of ``n`` whole rounds played from
    ``stream``, each drawing what it draws in :func:`simulate_rounds`."""
    for i in range(out.shape[0]):
        before = acc[ACC_WIN]
        simulate_rounds(m, stream, 1, level, bet, acc, sq, script, stops, window, wins, held,
                        value, landed, comp)
        out[i] = acc[ACC_WIN] - before
