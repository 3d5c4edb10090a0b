"""The Superstars Bonus Game, compiled: the dice board, eight features, the Wheel, the Final Game.

One Bonus Game is :func:`play_bonus`: it draws from a :mod:`slotlab.rng` stream in a fixed order
(below), so a round replays from its seed, and writes event rows when ``trace`` is set
(:func:`bonus_events` turns them into JSON). :func:`simulate_bonuses` plays many bonuses of one
trigger class straight into the simulation running sums. Amounts are whole multiples of the
total bet; the 10,000x cap is the round's, so the totals here are uncapped.

The reel window has 25 positions, ``cell = reel * 5 + row`` (row 0 top). ``val[cell]`` is the
prize locked there (0: empty). The loop, per the rule text and research section 3.2:

1. **Start.** The triggering Scatters and the Dice become prizes drawn from the prize table (one
   draw each, in cell order); a Dice trigger puts 1 die in the dice counter; 3 spins.
2. **Roll** (before each spin): while the dice counter is not empty, take one die, roll it
   (``1 + randbelow(6)``), move the token clockwise; landing on or passing Start gives a heart;
   the square landed on plays its feature. The board filling up ends the roll at once.
3. **Out of spins?** When no spins are left (and no dice, since step 2 rolled them all), a heart
   is used to reset the spins to the maximum, else the Bonus Game ends.
4. **Spin.** One spin off the counter; each empty position draws once from the cell table
   (blank, a prize 1-25x, or a Dice that adds a die and does not lock); any prize resets the
   spins to the maximum (3, or 4 once Extra Spins ran). Back to 2.
5. **Final Game** as soon as all 25 positions hold a prize (after a spin or a feature that
   places prizes), with no pending die, Replay run or feature played: dice = (dice left +
   maximum spins + hearts x maximum spins), x2 if a Replay is armed, + the die of the
   bottom-left square; each die moves a token on the Final board from the bottom-left square
   and collects the prize (or a die) of the square it lands on.

The total is the sum of the prizes on the reels at the end plus the Final Game's prizes.

Features (draw order in brackets):

* Starburst: [stack value, placement] a vertical stack of 3 equal prizes on one of the
  (column, top row) placements that overlap at least one prize, uniformly; overlaps multiply.
* Gonzo: [count k in the model's range, capped at the prizes present; then per chosen prize its
  position among the rest, its multiplier] k distinct prizes, each x2/x3/x5.
* Miss Banks: [k; per placement its position, its value] k distinct positions, each + 1-5x
  (an empty position gets a new prize, an occupied one adds).
* Finn: [k capped; per chosen prize its position; the destination] k distinct prizes +5 each,
  summed into one of their positions, the others emptied (they spin again).
* Space Wars: the highest ``top_values`` distinct prize values; 3 respins in which each empty
  position [lands?, which value] gets one of them with the model's probability. No spin reset.
* Extra Spins (once per Bonus Game): the maximum and the remaining spins become 4.
* Wheel [segment; for Random the character]: 1 Dice, 2 Dice, Random (a character feature),
  Replay (the next character feature, or the next upgraded square, plays twice; a second Replay
  while one is armed is lost), +1 (every prize +1), Upgrade (the blank squares' value +1).
* A blank square with an Upgrade value adds it to every prize (twice with a Replay).

Distinct positions are chosen by a partial Fisher-Yates shuffle of the candidates in cell order.

Speed: a spin walks a list of the empty positions kept in cell order and draws them with one
``rng.fill_randbelow`` call; :func:`simulate_bonuses` passes views without reference counts to
the feature functions (about 300,000 bonuses per CPU second, ``benchmarks/``). Exact check:
:func:`final_game_mean` (the Final Game as an absorbing chain) against
:func:`simulate_final_games`.

Scripted draws: a stream from :func:`scripted_stream` yields given 32-bit words instead of
generator output (a draw below ``n`` is ``word * n >> 32``), so tests force any outcome
(:func:`forcing_word`); real streams take the same code path apart from one compare.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import ACC_COMPONENTS, record
from slotlab.mechanics.events import put_event
from slotlab.mechanics.hold_and_win import land_on_free_list, next_counter
from slotlab.mechanics.unmanaged import unmanaged
from slotlab.rng import fill_randbelow, randbelow

from .bonus_spec import CHARACTERS, N_CELLS, N_SQUARES, SQUARES, WHEEL_SEGMENTS, BonusSpec

# Square codes (index into bonus_spec.SQUARES).
SQ_BLANK, SQ_START, SQ_FINN, SQ_STARBURST, SQ_WHEEL, SQ_GONZO, SQ_MISSBANKS, SQ_EXTRASPINS, \
    SQ_SPACEWARS = range(9)
# Wheel segment codes (index into bonus_spec.WHEEL_SEGMENTS).
WH_DICE1, WH_DICE2, WH_RANDOM, WH_REPLAY, WH_PLUS1, WH_UPGRADE = range(6)

# Flags returned by play_bonus: bit 0 the Final Game; bit <square code> that feature ran.
FLAG_FINAL_GAME = 1 << 0
FLAG_HEART_GAINED = 1 << SQ_START
FLAG_WHEEL_SEGMENT = 9  # bit 9 + segment code: that wheel segment came up
FLAG_REPLAY_USED = 1 << 15
FLAG_UPGRADE_PAID = 1 << 16  # an upgraded square added its value
FLAG_HEART_USED = 1 << 17
FLAG_FINAL_REPLAY = 1 << 18  # an armed Replay doubled the Final Game's dice
N_FLAGS = 19
FLAG_NAMES = ("final_game", "heart_gained", "finn", "starburst", "wheel", "gonzo", "missbanks",
              "extraspins", "spacewars", *(f"wheel_{s.lower()}" for s in WHEEL_SEGMENTS),
              "replay_used", "upgrade_paid", "heart_used", "final_replay")

# Event rows: int64[EV_WIDTH], column 0 the kind. A "head" row may be followed by EV_CELL rows
# that belong to it (the head says how many in its last used column where noted).
EV_WIDTH = 8
EV_STARTED = 1  # dice, spins, max spins, trigger prizes (EV_CELL rows follow), dice cell
EV_CELL = 2  # cell, new value, old value, detail (see CELL_*), extra
EV_DICE_ROLLED = 3  # value, from, to, passed start, dice left, hearts
EV_SQUARE = 4  # square index, square code, upgrade value of the square
EV_SPUN = 5  # spin number, spins left, dice, new prizes, new dice (EV_CELL rows follow)
EV_SPINS_RESET = 6  # spins, reason (0 prize landed, 1 heart used), hearts left, max spins
EV_STARBURST = 7  # column, top row, value, run (1, or 2 under Replay) - 3 EV_CELL rows follow
EV_GONZO = 8  # prizes chosen, run - EV_CELL rows (extra = multiplier)
EV_MISSBANKS = 9  # placements, run - EV_CELL rows (extra = value placed)
EV_FINN = 10  # prizes chosen, destination cell, merged value, run - EV_CELL rows (extra = +5 prize)
EV_SPACEWARS = 11  # number of values, run - EV_VALUE rows follow
EV_VALUE = 12  # a Space Wars value
EV_SW_RESPIN = 13  # respin (1-based), landings - EV_CELL rows follow
EV_PLUS = 14  # amount, times - EV_CELL rows (an upgraded square's pay uses EV_UPGRADE_PAID)
EV_UPGRADE = 15  # the blank squares' value now
EV_UPGRADE_PAID = 16  # square value, times (2 under Replay) - EV_CELL rows follow
EV_REPLAY_ARMED = 17  # 1 armed, 0 lost (one already armed)
EV_REPLAY_USED = 18  # square code of the feature doubled (SQ_BLANK: an upgraded square)
EV_WHEEL = 19  # segment index in the model's wheel, segment code, character code or -1, dice
EV_EXTRASPINS = 20  # spins, max spins, 1 applied / 0 already used
EV_FINAL_STARTED = 21  # dice left, max spins, hearts, replay armed, dice, reels total
EV_FINAL_ROLLED = 22  # value, from, to, prize, dice gained, dice left
EV_ENDED = 23  # total, reels total, final total, final reached

CELL_TRIGGER, CELL_SPIN, CELL_DICE, CELL_PLACED, CELL_MERGED, CELL_EMPTIED = range(6)

# Packed parameters: bp = (params, cell_cum, cell_val, prize_cum, prize_val, board, wheel_cum,
# wheel_seg, random_cum, random_code, star_cum, star_val, gonzo_cum, gonzo_mult, final_prize,
# final_dice, cell_bounds: 25 x the cell table's total), all int64[:].
(B_PARAMS, B_CELL_CUM, B_CELL_VAL, B_PRIZE_CUM, B_PRIZE_VAL, B_BOARD, B_WHEEL_CUM, B_WHEEL_SEG,
 B_RANDOM_CUM, B_RANDOM_CODE, B_STAR_CUM, B_STAR_VAL, B_GONZO_CUM, B_GONZO_MULT, B_FINAL_PRIZE,
 B_FINAL_DICE, B_CELL_BOUNDS) = range(17)
(P_SPINS, P_EXTRA_MAX, P_GONZO_MIN, P_GONZO_MAX, P_FINN_MIN, P_FINN_MAX, P_FINN_ADD, P_MB_MIN,
 P_MB_MAX, P_MB_VLO, P_MB_VHI, P_SW_RESPINS, P_SW_NUM, P_SW_DEN, P_SW_TOP, P_PLUS,
 P_UPGRADE_STEP, P_TRIGGER_DICE, P_DIE_SIDES) = range(19)
N_PARAMS = 19
STACK = 3  # a Starburst stack is 3 positions tall
N_ROWS = 5
FREE = 64  # tmp[FREE:FREE + n_free]: the empty positions in cell order
LANDED = 96  # tmp[LANDED:LANDED + n]: the cells a Bonus spin landed on, in cell order
LANDED_AS = 128  # tmp[LANDED_AS + k]: what landed there (a prize > 0, a Dice < 0)
# Tallies of one Bonus Game's draws, left in tmp[TALLY + T_*] when it ends: counts and sums
# whose expectations follow exactly from the model's tables, so the precise RTP estimator
# (``precise.py``) uses them as control variates. They change no draw and no outcome.
TALLY = 160
(T_FINAL_DICE, T_CELL_DRAWS, T_SPIN_PRIZES, T_SPIN_DICE, T_SPIN_PRIZE_SUM, T_TRIGGER_PRIZE_SUM,
 T_ROLLS, T_ROLL_SUM, T_GONZO_OLD, T_GONZO_OLD_M, T_STAR_W, T_STAR_WV, T_MB_RUNS, T_MB_K,
 T_MB_V, T_SW_DRAWS, T_SW_LAND, T_SW_VDEV) = range(18)
T_VISIT = 18  # + square index: die rolls made from that square
T_LAND = T_VISIT + N_SQUARES  # + square code: die rolls that landed on such a square
T_WHEEL = T_LAND + len(SQUARES)  # + index in the model's wheel: wheel spins on that segment
T_RANDOM = T_WHEEL + len(WHEEL_SEGMENTS)  # + index in the Random table: characters drawn
# + 4 x empty positions + spins left (0: the last with a heart to spare, 1: the last, 2, 3: 3 or
# 4): Bonus spins made in that state, and the prizes they landed
T_SPINS_AT = T_RANDOM + len(CHARACTERS)
T_PRIZES_AT = T_SPINS_AT + 4 * (N_CELLS + 1)
N_TALLIES = T_PRIZES_AT + 4 * (N_CELLS + 1)
WORK = TALLY + N_TALLIES  # scratch words: candidates or draws (25), Space Wars values (25),
# the free list, a spin's landings (cells, what landed), and the tallies above

_U_SCRIPT = np.uint64(0x5C12)  # stream kind word of a scripted stream (rng's kinds are 0, 1)
_M32 = np.uint64(0xFFFFFFFF)
_SCRIPT_FIRST = 2  # index of the first scripted word


def pack_bonus(spec: BonusSpec) -> tuple[np.ndarray, ...]:
    """The kernel's arrays for a ``bonus`` section (layout: the ``B_*`` and ``P_*`` constants)."""
    from .bonus_spec import parse_probability

    p = np.zeros(N_PARAMS, np.int64)
    sw: Fraction = parse_probability(spec.spacewars.land)
    p[P_SPINS], p[P_EXTRA_MAX] = spec.initial_spins, spec.extra_spins_max
    p[P_GONZO_MIN], p[P_GONZO_MAX] = spec.gonzo.count
    p[P_FINN_MIN], p[P_FINN_MAX] = spec.finn.count
    p[P_FINN_ADD] = spec.finn.add_x_bet
    p[P_MB_MIN], p[P_MB_MAX] = spec.missbanks.count
    p[P_MB_VLO], p[P_MB_VHI] = spec.missbanks.values_x_bet
    p[P_SW_RESPINS], p[P_SW_NUM], p[P_SW_DEN] = spec.spacewars.respins, sw.numerator, \
        sw.denominator
    p[P_SW_TOP] = spec.spacewars.top_values
    p[P_PLUS], p[P_UPGRADE_STEP] = spec.plus_x_bet, spec.upgrade_step_x_bet
    p[P_TRIGGER_DICE], p[P_DIE_SIDES] = 1, 6
    cell = spec.cell_table()
    prize = spec.prize_table()
    wheel, random = spec.wheel_table(), spec.random_table()
    star, gonzo = spec.starburst_table(), spec.gonzo_table()
    final_prize = np.array([0 if v == "DICE" else v for v in spec.final_board], np.int64)
    final_dice = np.array([1 if v == "DICE" else 0 for v in spec.final_board], np.int64)
    return (p, cell.cumulative(), cell.int_values(), prize.cumulative(), prize.int_values(),
            np.array(spec.square_codes(), np.int64), wheel.cumulative(),
            np.array([WHEEL_SEGMENTS.index(s) for s in wheel.values], np.int64),
            random.cumulative(), np.array([SQUARES.index(c) for c in random.values], np.int64),
            star.cumulative(), star.int_values(), gonzo.cumulative(), gonzo.int_values(),
            final_prize, final_dice, np.full(N_CELLS, cell.total, np.int64))


# Draws ----------------------------------------------------------------------------------------

def scripted_stream(words: Sequence[int]) -> np.ndarray:
    """A stream whose draws are ``words`` (32-bit each): draw below ``n`` is ``word * n >> 32``.

    For tests only; it raises once the words run out. :func:`forcing_word` gives the word that
    makes a draw below ``n`` return ``v``.
    """
    s = np.zeros(_SCRIPT_FIRST + len(words), np.uint64)
    s[0], s[1] = _U_SCRIPT, _SCRIPT_FIRST
    s[_SCRIPT_FIRST:] = np.asarray(words, dtype=np.uint64) & _M32
    return s


def forcing_word(v: int, n: int) -> int:
    """The 32-bit word whose draw below ``n`` is ``v`` (the highest such word)."""
    if not 0 <= v < n:
        raise ValueError(f"cannot force {v} from a draw below {n}")
    return ((v + 1) << 32) // n - (1 if ((v + 1) << 32) % n == 0 else 0)


def scripted_used(stream: np.ndarray) -> int:
    """How many scripted words a stream has consumed."""
    return int(stream[1]) - _SCRIPT_FIRST


@njit(cache=True)
def _scripted(stream: np.ndarray, n: int) -> int:
    i = np.int64(stream[1])
    if i >= stream.shape[0]:
        raise ValueError("the scripted stream has no draws left")
    stream[1] = i + 1
    return np.int64(((stream[i] & _M32) * np.uint64(n)) >> np.uint64(32))  # type: ignore[return-value]


@njit(cache=True, inline="always")
def _below(stream: np.ndarray, n: int) -> int:
    """A uniform integer in ``range(n)``: the generator's, or the script's next word."""
    if stream[0] == _U_SCRIPT:
        return _scripted(stream, n)
    return np.int64(randbelow(stream, n))  # type: ignore[return-value]


@njit(cache=True, inline="always")
def _fill_below(stream: np.ndarray, bounds: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = _below(stream, bounds[i])`` for each ``i`` (one call: ``rng.fill_randbelow``
    keeps the buffer index in a register)."""
    if stream[0] == _U_SCRIPT:
        for i in range(bounds.shape[0]):
            out[i] = _scripted(stream, bounds[i])
    else:
        fill_randbelow(stream, bounds, out)


@njit(cache=True, inline="always")
def _pick(stream: np.ndarray, cum: np.ndarray) -> int:
    """Index ``i`` with probability ``weight[i] / total`` (as ``rng.weighted_pick``)."""
    r = _below(stream, cum[cum.shape[0] - 1])
    i = 0
    while cum[i] <= r:
        i += 1
    return i


# Event rows -----------------------------------------------------------------------------------

@njit(cache=True)
def _cell(ev: np.ndarray, n_ev: int, c: int, new: int, old: int, detail: int, extra: int) -> int:
    """An EV_CELL row (callers test ``trace`` first: a call passing ``ev`` costs reference
    counting even when it writes nothing)."""
    return put_event(ev, n_ev, EV_WIDTH, EV_CELL, c, new, old, detail, extra)


# Features -------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _n_prizes(val: np.ndarray) -> int:
    n = 0
    for c in range(N_CELLS):
        if val[c] > 0:
            n += 1
    return n


@njit(cache=True, inline="always")
def _free_cells(val: np.ndarray, tmp: np.ndarray) -> int:
    """Write the empty positions into ``tmp[FREE:]`` (cell order); returns how many."""
    n = 0
    for c in range(N_CELLS):
        if val[c] == 0:
            tmp[FREE + n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def _prize_cells(val: np.ndarray, tmp: np.ndarray) -> int:
    """Write the cells holding a prize into ``tmp`` (cell order); returns how many."""
    n = 0
    for c in range(N_CELLS):
        if val[c] > 0:
            tmp[n] = c
            n += 1
    return n


@njit(cache=True, inline="always")
def _choose(stream: np.ndarray, tmp: np.ndarray, n: int, k: int) -> None:
    """Partial Fisher-Yates: ``tmp[:k]`` become ``k`` distinct picks of ``tmp[:n]``."""
    for i in range(k):
        j = i + _below(stream, n - i)
        t = tmp[i]
        tmp[i] = tmp[j]
        tmp[j] = t


@njit(cache=True)
def _starburst(stream: np.ndarray, bp: tuple[np.ndarray, ...], val: np.ndarray, tmp: np.ndarray,
               trace: bool, ev: np.ndarray, n_ev: int, run: int) -> int:
    v = bp[B_STAR_VAL][_pick(stream, bp[B_STAR_CUM])]
    n = 0
    for col in range(N_CELLS // N_ROWS):
        for top in range(N_ROWS - STACK + 1):
            c = col * N_ROWS + top
            if val[c] > 0 or val[c + 1] > 0 or val[c + 2] > 0:
                tmp[n] = c
                n += 1
    c0 = tmp[_below(stream, n)]
    w = 0  # what the stack's value multiplies: 1 per empty position, the prize per occupied
    for c in range(c0, c0 + STACK):
        w += val[c] if val[c] > 0 else 1
    tmp[TALLY + T_STAR_W] += w
    tmp[TALLY + T_STAR_WV] += w * v
    if trace:
        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_STARBURST, c0 // N_ROWS, c0 % N_ROWS, v, run)
    for c in range(c0, c0 + STACK):
        old = val[c]
        val[c] = v if old == 0 else old * v
        if trace:
            n_ev = _cell(ev, n_ev, c, val[c], old, CELL_PLACED if old == 0 else CELL_MERGED, v)
    return n_ev


@njit(cache=True)
def _gonzo(stream: np.ndarray, bp: tuple[np.ndarray, ...], val: np.ndarray, tmp: np.ndarray,
           trace: bool, ev: np.ndarray, n_ev: int, run: int) -> int:
    prm = bp[B_PARAMS]
    n = _prize_cells(val, tmp)
    k = min(prm[P_GONZO_MIN] + _below(stream, prm[P_GONZO_MAX] - prm[P_GONZO_MIN] + 1), n)
    if trace:
        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_GONZO, k, run)
    for i in range(k):
        j = i + _below(stream, n - i)
        t = tmp[i]
        tmp[i] = tmp[j]
        tmp[j] = t
        m = bp[B_GONZO_MULT][_pick(stream, bp[B_GONZO_CUM])]
        c = tmp[i]
        old = val[c]
        val[c] = old * m
        tmp[TALLY + T_GONZO_OLD] += old
        tmp[TALLY + T_GONZO_OLD_M] += old * m
        if trace:
            n_ev = _cell(ev, n_ev, c, val[c], old, CELL_MERGED, m)
    return n_ev


@njit(cache=True)
def _missbanks(stream: np.ndarray, bp: tuple[np.ndarray, ...], val: np.ndarray, tmp: np.ndarray,
               trace: bool, ev: np.ndarray, n_ev: int, run: int) -> int:
    prm = bp[B_PARAMS]
    k = prm[P_MB_MIN] + _below(stream, prm[P_MB_MAX] - prm[P_MB_MIN] + 1)
    tmp[TALLY + T_MB_RUNS] += 1
    tmp[TALLY + T_MB_K] += k
    for c in range(N_CELLS):
        tmp[c] = c
    if trace:
        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_MISSBANKS, k, run)
    for i in range(k):
        j = i + _below(stream, N_CELLS - i)
        t = tmp[i]
        tmp[i] = tmp[j]
        tmp[j] = t
        v = prm[P_MB_VLO] + _below(stream, prm[P_MB_VHI] - prm[P_MB_VLO] + 1)
        tmp[TALLY + T_MB_V] += v
        c = tmp[i]
        old = val[c]
        val[c] = old + v
        if trace:
            n_ev = _cell(ev, n_ev, c, val[c], old, CELL_PLACED if old == 0 else CELL_MERGED, v)
    return n_ev


@njit(cache=True)
def _finn(stream: np.ndarray, bp: tuple[np.ndarray, ...], val: np.ndarray, tmp: np.ndarray,
          trace: bool, ev: np.ndarray, n_ev: int, run: int) -> int:
    prm = bp[B_PARAMS]
    n = _prize_cells(val, tmp)
    k = min(prm[P_FINN_MIN] + _below(stream, prm[P_FINN_MAX] - prm[P_FINN_MIN] + 1), n)
    _choose(stream, tmp, n, k)
    add = prm[P_FINN_ADD]
    total = 0
    for i in range(k):
        total += val[tmp[i]] + add
    dest = tmp[_below(stream, k)]
    if trace:
        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_FINN, k, dest, total, run)
    for i in range(k):
        c = tmp[i]
        old = val[c]
        val[c] = total if c == dest else 0
        if trace:
            n_ev = _cell(ev, n_ev, c, val[c], old,
                         CELL_MERGED if c == dest else CELL_EMPTIED, old + add)
    return n_ev


@njit(cache=True)
def _spacewars(stream: np.ndarray, bp: tuple[np.ndarray, ...], val: np.ndarray, tmp: np.ndarray,
               trace: bool, ev: np.ndarray, n_ev: int, run: int) -> tuple[int, bool]:
    """Returns ``(n_ev, full)``: the respins stop as soon as every position holds a prize."""
    prm = bp[B_PARAMS]
    # The highest distinct values, by repeated maximum below the previous one (<= 25 prizes).
    nv = 0
    below: np.int64 | int = np.int64(1) << 62
    for _ in range(prm[P_SW_TOP]):
        best = 0
        for c in range(N_CELLS):
            if best < val[c] < below:
                best = val[c]
        if best == 0:
            break
        tmp[N_CELLS + nv] = best
        nv += 1
        below = best
    if trace:
        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_SPACEWARS, nv, run)
        for i in range(nv):
            n_ev = put_event(ev, n_ev, EV_WIDTH, EV_VALUE, tmp[N_CELLS + i])
    num, den = prm[P_SW_NUM], prm[P_SW_DEN]
    total = 0
    for i in range(nv):
        total += tmp[N_CELLS + i]
    full = False
    for respin in range(prm[P_SW_RESPINS]):
        head = n_ev
        if trace:
            n_ev += 1
        landed = 0
        free = 0
        for c in range(N_CELLS):
            if val[c] == 0:
                free += 1
                tmp[TALLY + T_SW_DRAWS] += 1
                if _below(stream, den) < num:
                    val[c] = tmp[N_CELLS + _below(stream, nv)]
                    landed += 1
                    tmp[TALLY + T_SW_LAND] += 1
                    tmp[TALLY + T_SW_VDEV] += nv * val[c] - total  # nv x (value - its mean)
                    if trace:
                        n_ev = _cell(ev, n_ev, c, val[c], 0, CELL_PLACED, 0)
        if trace:
            put_event(ev, head, EV_WIDTH, EV_SW_RESPIN, respin + 1, landed)
        if landed == free:
            full = True
            break
    return n_ev, full


@njit(cache=True)
def _character(stream: np.ndarray, bp: tuple[np.ndarray, ...], code: int, val: np.ndarray,
               tmp: np.ndarray, trace: bool, ev: np.ndarray, n_ev: int,
               run: int) -> tuple[int, bool]:
    """One run of a character feature; returns ``(n_ev, full)``."""
    if code == SQ_STARBURST:
        n_ev = _starburst(stream, bp, val, tmp, trace, ev, n_ev, run)
    elif code == SQ_GONZO:
        n_ev = _gonzo(stream, bp, val, tmp, trace, ev, n_ev, run)
    elif code == SQ_MISSBANKS:
        n_ev = _missbanks(stream, bp, val, tmp, trace, ev, n_ev, run)
    elif code == SQ_FINN:
        n_ev = _finn(stream, bp, val, tmp, trace, ev, n_ev, run)
    else:
        return _spacewars(stream, bp, val, tmp, trace, ev, n_ev, run)
    return n_ev, _n_prizes(val) == N_CELLS


@njit(cache=True)
def _add_all(val: np.ndarray, x: int, trace: bool, ev: np.ndarray, n_ev: int) -> int:
    """Every prize on the reels + ``x`` (+1, an upgraded square)."""
    for c in range(N_CELLS):
        if val[c] > 0:
            old = val[c]
            val[c] = old + x
            if trace:
                n_ev = _cell(ev, n_ev, c, val[c], old, CELL_MERGED, x)
    return n_ev


@njit(cache=True)
def _final_game(stream: np.ndarray, bp: tuple[np.ndarray, ...], n: int, trace: bool, ev: np.ndarray,
                n_ev: int) -> tuple[int, int]:
    """Roll ``n`` dice on the Final board from the bottom-left square; returns (total, n_ev)."""
    fprize = bp[B_FINAL_PRIZE]
    fdice = bp[B_FINAL_DICE]
    n_sq = fprize.shape[0]
    sides = bp[B_PARAMS][P_DIE_SIDES]
    total = 0
    pos = 0
    while n > 0:
        n -= 1
        r = 1 + _below(stream, sides)
        to = (pos + r) % n_sq
        total += fprize[to]
        n += fdice[to]
        if trace:
            n_ev = put_event(ev, n_ev, EV_WIDTH, EV_FINAL_ROLLED, r, pos, to, fprize[to], fdice[to],
                             n)
        pos = to
    return total, n_ev


@njit(cache=True)
def simulate_final_games(stream: np.ndarray, bp: tuple[np.ndarray, ...], dice: int,
                         n: int) -> tuple[int, float]:
    """Play ``n`` Final Games of ``dice`` initial dice (the bottom-left die included); returns
    the sum and the sum of squares of their totals (x bet)."""
    ev = np.zeros((1, EV_WIDTH), np.int64)
    total = 0
    sq = 0.0
    for _ in range(n):
        t, _ = _final_game(stream, bp, dice, False, ev, 0)
        total += t
        sq += float(t) * float(t)
    return total, sq


def final_game_mean(spec: BonusSpec, dice: int) -> Fraction:
    """The exact expected Final Game total (x bet) for ``dice`` initial dice.

    ``E_d(p)``, the expectation with ``d`` dice left and the token on square ``p``, solves
    ``E_d = A (prize + G E_d + (1 - G) E_{d-1})`` with ``A`` the die's move (1/6 to each of the
    next 6 squares) and ``G`` the die squares (a die square hands the die back); ``E_0 = 0``.
    One 24 x 24 linear system per ``d``, in fractions.
    """
    board = spec.final_board
    m = len(board)
    prize = [Fraction(0 if v == "DICE" else v) for v in board]
    gain = [v == "DICE" for v in board]
    sixth = Fraction(1, 6)
    e = [Fraction(0)] * m
    for _ in range(dice):
        # (I - A G) x = A (prize + (1 - G) e)
        rhs = [sum((sixth * (prize[(p + r) % m] + (0 if gain[(p + r) % m] else e[(p + r) % m]))
                    for r in range(1, 7)), Fraction(0)) for p in range(m)]
        a = [[Fraction(int(i == j)) for j in range(m)] for i in range(m)]
        for p in range(m):
            for r in range(1, 7):
                q = (p + r) % m
                if gain[q]:
                    a[p][q] -= sixth
        e = _solve(a, rhs)
    return e[0]


def _solve(a: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Gaussian elimination in fractions (the matrix is small and well conditioned)."""
    n = len(b)
    a = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


# The Bonus Game ---------------------------------------------------------------------------------

@njit(cache=True)
def _play(stream: np.ndarray, bp: tuple[np.ndarray, ...], trigger_cells: np.ndarray, dice_cell: int,
          trace: bool, ev: np.ndarray, n_ev: int, val: np.ndarray,
          tmp: np.ndarray) -> tuple[int, int, int, int]:
    """The Bonus Game; returns ``(reels_total, final_total, n_ev, flags)``. ``val`` (int64[25])
    and ``tmp`` (int64[WORK]) are scratch."""
    prm = bp[B_PARAMS]
    board = bp[B_BOARD]
    n_sq = board.shape[0]
    sides = prm[P_DIE_SIDES]
    flags = 0
    for c in range(N_CELLS):
        val[c] = 0
    for i in range(N_TALLIES):
        tmp[TALLY + i] = 0
    head = n_ev
    if trace:
        n_ev += 1
    n_trigger = 0
    for c in range(N_CELLS):
        if trigger_cells[c] != 0 or c == dice_cell:
            val[c] = bp[B_PRIZE_VAL][_pick(stream, bp[B_PRIZE_CUM])]
            tmp[TALLY + T_TRIGGER_PRIZE_SUM] += val[c]
            n_trigger += 1
            if trace:
                n_ev = _cell(ev, n_ev, c, val[c], 0, CELL_TRIGGER, 0)
    n_free = _free_cells(val, tmp)
    dice = prm[P_TRIGGER_DICE] if dice_cell >= 0 else 0
    spins = prm[P_SPINS]
    max_spins = spins
    if trace:
        put_event(ev, head, EV_WIDTH, EV_STARTED, dice, spins, max_spins, n_trigger, dice_cell)
    hearts = 0
    pos = 0
    extra_used = False
    replay = False
    upgrade = 0
    n_spin = 0
    full = False
    while True:
        # Roll every die in the counter, one at a time, before the spin.
        while dice > 0 and not full:
            dice -= 1
            r = 1 + _below(stream, sides)
            tmp[TALLY + T_ROLLS] += 1
            tmp[TALLY + T_ROLL_SUM] += r
            tmp[TALLY + T_VISIT + pos] += 1
            to = pos + r
            passed = to >= n_sq
            if passed:
                to -= n_sq
                hearts += 1
                flags |= FLAG_HEART_GAINED
            sq = board[to]
            tmp[TALLY + T_LAND + sq] += 1
            if trace:
                n_ev = put_event(ev, n_ev, EV_WIDTH, EV_DICE_ROLLED, r, pos, to, 1 if passed else 0,
                                 dice, hearts)
                n_ev = put_event(ev, n_ev, EV_WIDTH, EV_SQUARE, to, sq,
                                 upgrade if sq == SQ_BLANK else 0)
            pos = to
            code = sq
            if sq == SQ_BLANK:
                if upgrade > 0:
                    times = 1
                    if replay:
                        replay = False
                        times = 2
                        flags |= FLAG_REPLAY_USED
                        if trace:
                            n_ev = put_event(ev, n_ev, EV_WIDTH, EV_REPLAY_USED, SQ_BLANK)
                    flags |= FLAG_UPGRADE_PAID
                    if trace:
                        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_UPGRADE_PAID, upgrade, times)
                    n_ev = _add_all(val, upgrade * times, trace, ev, n_ev)
                continue
            if sq == SQ_START:
                continue
            flags |= 1 << sq
            if sq == SQ_EXTRASPINS:
                applied = not extra_used
                if applied:
                    extra_used = True
                    max_spins = prm[P_EXTRA_MAX]
                    spins = max_spins
                if trace:
                    n_ev = put_event(ev, n_ev, EV_WIDTH, EV_EXTRASPINS, spins, max_spins,
                                     1 if applied else 0)
                continue
            if sq == SQ_WHEEL:
                i = _pick(stream, bp[B_WHEEL_CUM])
                tmp[TALLY + T_WHEEL + i] += 1
                seg = bp[B_WHEEL_SEG][i]
                flags |= 1 << (FLAG_WHEEL_SEGMENT + seg)
                code = -1
                if seg == WH_DICE1:
                    dice += 1
                elif seg == WH_DICE2:
                    dice += 2
                elif seg == WH_RANDOM:
                    j = _pick(stream, bp[B_RANDOM_CUM])
                    tmp[TALLY + T_RANDOM + j] += 1
                    code = bp[B_RANDOM_CODE][j]
                    flags |= 1 << code
                if trace:
                    n_ev = put_event(ev, n_ev, EV_WIDTH, EV_WHEEL, i, seg, code, dice)
                if seg == WH_REPLAY:
                    if trace:
                        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_REPLAY_ARMED, 0 if replay else 1)
                    replay = True
                elif seg == WH_PLUS1:
                    if trace:
                        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_PLUS, prm[P_PLUS], 1)
                    n_ev = _add_all(val, prm[P_PLUS], trace, ev, n_ev)
                elif seg == WH_UPGRADE:
                    upgrade += prm[P_UPGRADE_STEP]
                    if trace:
                        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_UPGRADE, upgrade)
                if code < 0:
                    continue
            # A character feature (from its square or the wheel's Random), twice under Replay.
            runs = 1
            if replay:
                replay = False
                runs = 2
                flags |= FLAG_REPLAY_USED
                if trace:
                    n_ev = put_event(ev, n_ev, EV_WIDTH, EV_REPLAY_USED, code)
            for run in range(1, runs + 1):
                n_ev, full = _character(stream, bp, code, val, tmp, trace, ev, n_ev, run)
                n_free = _free_cells(val, tmp)  # Finn empties positions, others fill them
                if full:
                    break
        if full:
            break
        if spins == 0:
            if hearts == 0:
                break
            hearts -= 1
            spins = max_spins
            flags |= FLAG_HEART_USED
            if trace:
                n_ev = put_event(ev, n_ev, EV_WIDTH, EV_SPINS_RESET, spins, 1, hearts, max_spins)
        # One Bonus spin: every empty position spins on its own; locked ones do not.
        n_spin += 1
        head = n_ev
        if trace:
            n_ev += 1
        _fill_below(stream, bp[B_CELL_BOUNDS][:n_free], tmp[:n_free])
        tmp[TALLY + T_CELL_DRAWS] += n_free
        drawn = n_free
        n_free, n_landed = land_on_free_list(tmp, tmp[FREE:], n_free, bp[B_CELL_CUM],
                                             bp[B_CELL_VAL], tmp[LANDED:], tmp[LANDED_AS:])
        new_prizes = 0
        new_dice = 0
        for k in range(n_landed):  # prizes hold their position, a Dice adds a die
            c, o = tmp[LANDED + k], tmp[LANDED_AS + k]
            if o > 0:
                val[c] = o
                new_prizes += 1
                tmp[TALLY + T_SPIN_PRIZE_SUM] += o
                if trace:
                    n_ev = _cell(ev, n_ev, c, o, 0, CELL_SPIN, 0)
            else:
                new_dice += 1
                if trace:
                    n_ev = _cell(ev, n_ev, c, 0, 0, CELL_DICE, 0)
        dice += new_dice
        tmp[TALLY + T_SPIN_PRIZES] += new_prizes
        tmp[TALLY + T_SPIN_DICE] += new_dice
        left = min(spins, 3)  # the state this spin was made in (T_SPINS_AT)
        if left == 1 and hearts > 0:
            left = 0
        at = 4 * drawn + left
        tmp[TALLY + T_SPINS_AT + at] += 1
        tmp[TALLY + T_PRIZES_AT + at] += new_prizes
        spins = next_counter(spins, new_prizes, max_spins)  # only a prize resets the spins
        if trace:
            put_event(ev, head, EV_WIDTH, EV_SPUN, n_spin, spins, dice, new_prizes, new_dice)
            if new_prizes > 0:
                n_ev = put_event(ev, n_ev, EV_WIDTH, EV_SPINS_RESET, spins, 0, hearts, max_spins)
        if n_free == 0:
            full = True
            break
    reels = 0
    for c in range(N_CELLS):
        reels += val[c]
    final = 0
    if full:
        flags |= FLAG_FINAL_GAME
        fdice = bp[B_FINAL_DICE]
        n = dice + max_spins + hearts * max_spins
        if replay:
            n *= 2
            flags |= FLAG_FINAL_REPLAY
        n += fdice[0]  # the die of the bottom-left square, where the token starts
        tmp[TALLY + T_FINAL_DICE] = n
        if trace:
            n_ev = put_event(ev, n_ev, EV_WIDTH, EV_FINAL_STARTED, dice, max_spins, hearts,
                             1 if replay else 0, n, reels)
        final, n_ev = _final_game(stream, bp, n, trace, ev, n_ev)
    if trace:
        n_ev = put_event(ev, n_ev, EV_WIDTH, EV_ENDED, reels + final, reels, final,
                         1 if full else 0)
    return reels, final, n_ev, flags


@njit(cache=True)
def play_bonus(stream: np.ndarray, bp: tuple[np.ndarray, ...], trigger_cells: np.ndarray,
               dice_cell: int, trace: bool, ev: np.ndarray, n_ev: int) -> tuple[int, int, int]:
    """One Bonus Game from a trigger; returns ``(win_x_bet, n_ev, flags)``.

    ``trigger_cells`` int64[25]: 1 where a Scatter triggered (the Dice's cell may be marked too);
    ``dice_cell``: the Dice's cell or -1. Event rows go to ``ev`` (int64[n, EV_WIDTH]) from row
    ``n_ev`` when ``trace``; a row that does not fit is counted, not written, so the caller
    retries with a larger buffer when the returned ``n_ev`` exceeds ``len(ev)``.
    """
    val = np.zeros(N_CELLS, np.int64)
    tmp = np.zeros(WORK, np.int64)
    reels, final, n_ev, flags = _play(stream, bp, trigger_cells, dice_cell, trace, ev, n_ev, val,
                                      tmp)
    return reels + final, n_ev, flags


@njit(cache=True)
def play_bonus_parts(stream: np.ndarray, bp: tuple[np.ndarray, ...], trigger_cells: np.ndarray,
                     dice_cell: int, trace: bool, ev: np.ndarray,
                     n_ev: int) -> tuple[int, int, int, int]:
    """As :func:`play_bonus`, split: ``(reels_total, final_total, n_ev, flags)``."""
    val = np.zeros(N_CELLS, np.int64)
    tmp = np.zeros(WORK, np.int64)
    return _play(stream, bp, trigger_cells, dice_cell, trace, ev, n_ev, val, tmp)


def new_scratch() -> tuple[np.ndarray, np.ndarray]:
    """Scratch ``(val, tmp)`` for :func:`play_bonus_with_scratch`."""
    return np.zeros(N_CELLS, np.int64), np.zeros(WORK, np.int64)


# As play_bonus_parts, with the caller's scratch (val int64[25], tmp int64[WORK]): a simulation
# loop allocates nothing per bonus (and may pass views without reference counts).
play_bonus_with_scratch = _play


# Simulation by trigger class ---------------------------------------------------------------------

C_REELS, C_FINAL = 0, 1  # win components: prizes on the reels, Final Game prizes


@njit(cache=True)
def simulate_bonuses(stream: np.ndarray, bp: tuple[np.ndarray, ...], symbols: int,
                     with_dice: bool, n: int, acc: np.ndarray, sq: np.ndarray,
                     counts: np.ndarray) -> None:
    """Play ``n`` Bonus Games of one trigger class into the running sums (bet = 1: x bet).

    ``symbols`` (3-5) counts the triggering symbols, the Dice included when ``with_dice``. As
    in the base game, one symbol per reel on distinct reels, the Dice on reel 5 and each row
    uniform; the Scatters take reels 1, 2, ... (every rule is the same under a permutation of
    the reels, so which reels they are does not change the distribution). ``acc``/``sq`` as
    :func:`slotlab.mechanics.accumulators.record` (feature = the Final Game was reached;
    components :data:`C_REELS`, :data:`C_FINAL`); ``counts`` int64[N_FLAGS] counts the bonuses
    with each flag bit set.
    """
    cells_ = np.zeros(N_CELLS, np.int64)
    val_ = np.zeros(N_CELLS, np.int64)
    tmp_ = np.zeros(WORK, np.int64)
    ev_ = np.zeros((1, EV_WIDTH), np.int64)
    # Views without reference counts (alive as long as this call): passing arrays, and the
    # tuple of 16 of them, to the feature functions then costs no atomic operation.
    cells, val, tmp, ev, s = unmanaged(cells_), unmanaged(val_), unmanaged(tmp_), \
        unmanaged(ev_), unmanaged(stream)
    u = (unmanaged(bp[0]), unmanaged(bp[1]), unmanaged(bp[2]), unmanaged(bp[3]),
         unmanaged(bp[4]), unmanaged(bp[5]), unmanaged(bp[6]), unmanaged(bp[7]),
         unmanaged(bp[8]), unmanaged(bp[9]), unmanaged(bp[10]), unmanaged(bp[11]),
         unmanaged(bp[12]), unmanaged(bp[13]), unmanaged(bp[14]), unmanaged(bp[15]),
         unmanaged(bp[16]))
    scatters = symbols - 1 if with_dice else symbols
    for _ in range(n):
        for c in range(N_CELLS):
            cells[c] = 0
        for r in range(scatters):
            cells[r * N_ROWS + _below(s, N_ROWS)] = 1
        dice_cell = 4 * N_ROWS + _below(s, N_ROWS) if with_dice else -1
        reels, final, _, flags = _play(s, u, cells, dice_cell, False, ev, 0, val, tmp)
        record(acc, sq, reels + final, 1, (flags & FLAG_FINAL_GAME) != 0)
        acc[ACC_COMPONENTS + C_REELS] += reels
        acc[ACC_COMPONENTS + C_FINAL] += final
        for b in range(N_FLAGS):
            if (flags >> b) & 1:
                counts[b] += 1


# Events -------------------------------------------------------------------------------------------

EVENT_DOC = """JSON events of a Bonus Game, in order (every ``cell`` is ``reel * 5 + row``, row 0
top; ``square`` an index on the 24-square board, 0 bottom-left, clockwise; amounts x total bet).
Events that change the reels carry ``reels``: the 25 prizes after the event (0 empty).

* ``bonus_started``: ``prizes`` [{cell, value}] (the triggering symbols' prizes), ``dice_cell``
  (or null), ``dice``, ``spins``, ``max_spins``, ``board`` (24 square names), ``final_board``
  (24 prizes, null for a die square), ``reels``.
* ``dice_rolled``: ``value`` 1-6, ``from``, ``to``, ``passed_start``, ``dice`` (left), ``hearts``.
* ``heart_gained``: ``hearts`` (after a roll that landed on or passed Start).
* ``square_landed``: ``square``, ``feature`` (its name, "-" for a blank), ``value`` (a blank's
  Upgrade value, 0 when none).
* ``bonus_spun``: ``spin`` (1-based), ``prizes`` [{cell, value}] landed, ``dice_cells`` [cell]
  where a Dice landed, ``spins`` left after, ``dice`` in the counter, ``reels``.
* ``spins_reset``: ``spins``, ``max_spins``, ``reason`` ("prize_landed" | "heart_used"), ``hearts``.
* ``starburst_placed``: ``column``, ``top_row``, ``value``, ``run`` (2 = Replay's second run),
  ``cells`` [{cell, value, was, merged}], ``reels``.
* ``gonzo_multiplied``: ``count``, ``run``, ``cells`` [{cell, multiplier, value, was}], ``reels``.
* ``miss_banks_placed``: ``count``, ``run``, ``cells`` [{cell, added, value, was, merged}],
  ``reels``.
* ``finn_merged``: ``count``, ``run``, ``from_cells``, ``to_cell``, ``value``, ``cells`` [{cell,
  raised (its prize +5), value (after: the sum or 0), was}], ``reels``.
* ``space_wars_respun``: ``run``, ``values`` (the highest prize values), ``respins`` [{respin,
  prizes [{cell, value}]}], ``reels``.
* ``wheel_spun``: ``segment`` (DICE1, DICE2, RANDOM, REPLAY, PLUS1, UPGRADE), ``segment_index``
  (in the model's wheel), ``feature`` (Random's character, else null), ``dice`` (counter after).
* ``plus_one_added``: ``amount``, ``cells`` [{cell, value, was}], ``reels``.
* ``upgrade_added``: ``square_value`` (every blank square's value now).
* ``upgraded_square_paid``: ``square_value``, ``times`` (2 under Replay), ``cells``, ``reels``.
* ``replay_armed``: ``armed`` (false: one was armed already and this one is lost).
* ``replay_used``: ``feature`` (the doubled feature; "-" for an upgraded square).
* ``extra_spins_gained``: ``spins``, ``max_spins``, ``applied`` (false after the first time).
* ``final_game_started``: ``dice_left``, ``max_spins``, ``hearts``, ``replay`` (armed, doubles),
  ``start_square_dice``, ``dice`` (= (dice_left + max_spins + hearts x max_spins) x (2 if replay)
  + start_square_dice), ``reels_total``, ``board`` (the Final board).
* ``final_dice_rolled``: ``value``, ``from``, ``to``, ``dice`` (left after this roll's square).
* ``final_prize_collected``: ``square``, ``value``, ``final_total`` (so far).
* ``final_die_gained``: ``square``, ``dice``.
* ``bonus_ended``: ``total`` (uncapped), ``reels_total``, ``final_total``, ``final_game``.
"""

_CELL_HEADS = {EV_STARTED, EV_SPUN, EV_STARBURST, EV_GONZO, EV_MISSBANKS, EV_FINN, EV_SW_RESPIN,
               EV_PLUS, EV_UPGRADE_PAID}


def _groups(rows: list[list[int]]) -> list[tuple[list[int], list[list[int]]]]:
    """Rows as (head, the EV_CELL / EV_VALUE rows right after it)."""
    out: list[tuple[list[int], list[list[int]]]] = []
    for row in rows:
        if row[0] in (EV_CELL, EV_VALUE):
            if not out or out[-1][0][0] not in _CELL_HEADS | {EV_SPACEWARS}:
                raise ValueError(f"an event row of kind {row[0]} has no head row before it")
            out[-1][1].append(row)
        else:
            out.append((row, []))
    return out


def bonus_events(rows: list[list[int]], spec: BonusSpec | None = None) -> list[dict[str, Any]]:
    """The Bonus Game's event rows (from ``play_bonus`` with ``trace``) as JSON events.

    ``spec`` adds the square names and the boards; the formats are in :data:`EVENT_DOC`.
    """
    sq_names = list(SQUARES)
    board = list(spec.board) if spec else None
    final_board = [None if v == "DICE" else v for v in spec.final_board] if spec else None
    reels = [0] * N_CELLS
    events: list[dict[str, Any]] = []
    final_total = 0

    def apply(cells: list[list[int]]) -> None:
        for r in cells:
            reels[r[1]] = r[2]

    for head, kids in _groups(rows):
        k, a, b, c, d, e, f = head[0], head[1], head[2], head[3], head[4], head[5], head[6]
        cells = [r for r in kids if r[0] == EV_CELL]
        apply(cells)
        ev: dict[str, Any]
        if k == EV_STARTED:
            ev = {"type": "bonus_started", "prizes": [{"cell": r[1], "value": r[2]} for r in cells],
                  "dice_cell": e if e >= 0 else None, "dice": a, "spins": b, "max_spins": c,
                  "board": board, "final_board": final_board}
        elif k == EV_DICE_ROLLED:
            events.append({"type": "dice_rolled", "value": a, "from": b, "to": c,
                           "passed_start": bool(d), "dice": e, "hearts": f})
            if d:
                events.append({"type": "heart_gained", "hearts": f})
            continue
        elif k == EV_SQUARE:
            ev = {"type": "square_landed", "square": a, "feature": sq_names[b], "value": c}
        elif k == EV_SPUN:
            ev = {"type": "bonus_spun", "spin": a,
                  "prizes": [{"cell": r[1], "value": r[2]} for r in cells if r[4] == CELL_SPIN],
                  "dice_cells": [r[1] for r in cells if r[4] == CELL_DICE],
                  "spins": b, "dice": c}
        elif k == EV_SPINS_RESET:
            ev = {"type": "spins_reset", "spins": a, "max_spins": d,
                  "reason": "heart_used" if b else "prize_landed", "hearts": c}
        elif k == EV_STARBURST:
            ev = {"type": "starburst_placed", "column": a, "top_row": b, "value": c, "run": d,
                  "cells": [{"cell": r[1], "value": r[2], "was": r[3],
                             "merged": r[4] == CELL_MERGED} for r in cells]}
        elif k == EV_GONZO:
            ev = {"type": "gonzo_multiplied", "count": a, "run": b,
                  "cells": [{"cell": r[1], "multiplier": r[5], "value": r[2], "was": r[3]}
                            for r in cells]}
        elif k == EV_MISSBANKS:
            ev = {"type": "miss_banks_placed", "count": a, "run": b,
                  "cells": [{"cell": r[1], "added": r[5], "value": r[2], "was": r[3],
                             "merged": r[4] == CELL_MERGED} for r in cells]}
        elif k == EV_FINN:
            ev = {"type": "finn_merged", "count": a, "run": d, "from_cells": [r[1] for r in cells],
                  "to_cell": b, "value": c,
                  "cells": [{"cell": r[1], "raised": r[5], "value": r[2], "was": r[3]}
                            for r in cells]}
        elif k == EV_SPACEWARS:
            ev = {"type": "space_wars_respun", "run": b, "values": [r[1] for r in kids],
                  "respins": []}
        elif k == EV_SW_RESPIN:
            sw = events[-1]
            if sw["type"] != "space_wars_respun":
                raise ValueError("a Space Wars respin row outside a Space Wars feature")
            sw["respins"].append({"respin": a, "prizes": [{"cell": r[1], "value": r[2]}
                                                          for r in cells]})
            sw["reels"] = list(reels)
            continue
        elif k == EV_WHEEL:
            ev = {"type": "wheel_spun", "segment": WHEEL_SEGMENTS[b], "segment_index": a,
                  "feature": sq_names[c] if c >= 0 else None, "dice": d}
        elif k == EV_PLUS:
            ev = {"type": "plus_one_added", "amount": a,
                  "cells": [{"cell": r[1], "value": r[2], "was": r[3]} for r in cells]}
        elif k == EV_UPGRADE:
            ev = {"type": "upgrade_added", "square_value": a}
        elif k == EV_UPGRADE_PAID:
            ev = {"type": "upgraded_square_paid", "square_value": a, "times": b,
                  "cells": [{"cell": r[1], "value": r[2], "was": r[3]} for r in cells]}
        elif k == EV_REPLAY_ARMED:
            ev = {"type": "replay_armed", "armed": bool(a)}
        elif k == EV_REPLAY_USED:
            ev = {"type": "replay_used", "feature": sq_names[a]}
        elif k == EV_EXTRASPINS:
            ev = {"type": "extra_spins_gained", "spins": a, "max_spins": b, "applied": bool(c)}
        elif k == EV_FINAL_STARTED:
            start = e - ((a + b + c * b) * (2 if d else 1))
            ev = {"type": "final_game_started", "dice_left": a, "max_spins": b, "hearts": c,
                  "replay": bool(d), "start_square_dice": start, "dice": e, "reels_total": f,
                  "board": final_board}
        elif k == EV_FINAL_ROLLED:
            events.append({"type": "final_dice_rolled", "value": a, "from": b, "to": c,
                           "dice": f})
            if d:
                final_total += d
                events.append({"type": "final_prize_collected", "square": c, "value": d,
                               "final_total": final_total})
            if e:
                events.append({"type": "final_die_gained", "square": c, "dice": f})
            continue
        elif k == EV_ENDED:
            ev = {"type": "bonus_ended", "total": a, "reels_total": b, "final_total": c,
                  "final_game": bool(d)}
        else:
            raise ValueError(f"unknown Bonus Game event row kind {k}")
        if head[0] in _CELL_HEADS:
            ev["reels"] = list(reels)
        events.append(ev)
    return events


def trace_bonus(bp: tuple[np.ndarray, ...], stream: np.ndarray, trigger_cells: Sequence[int],
                dice_cell: int, rows: int = 512) -> tuple[int, int, list[list[int]]]:
    """Play one traced Bonus Game (retrying with a larger buffer): ``(win, flags, rows)``.

    The stream is copied before each try, so the caller's stream is left as it was.
    """
    cells = np.asarray(trigger_cells, dtype=np.int64)
    while True:
        s = stream.copy()
        ev = np.zeros((rows, EV_WIDTH), np.int64)
        win, n_ev, flags = play_bonus(s, bp, cells, dice_cell, True, ev, 0)
        if n_ev <= rows:
            stream[:] = s
            return int(win), int(flags), ev[:n_ev].tolist()
        rows = 2 * n_ev


def class_stats(bp: tuple[np.ndarray, ...], symbols: int, with_dice: bool, n: int,
                stream: np.ndarray) -> dict[str, Any]:
    """Mean Bonus Game value of one trigger class with its 99% interval, from ``n`` bonuses."""
    from slotlab.mechanics.accumulators import ACC_FEATURES, ACC_MAX, ACC_WIN, Z99, new_accumulators

    acc, sq = new_accumulators()
    counts = np.zeros(N_FLAGS, np.int64)
    simulate_bonuses(stream, bp, symbols, with_dice, n, acc, sq, counts)
    mean = acc[ACC_WIN] / n
    var = max(sq[0] / n - mean * mean, 0.0)
    half = Z99 * (var / n) ** 0.5
    return {"symbols": symbols, "with_dice": with_dice, "bonuses": n, "mean_x_bet": mean,
            "sd_x_bet": var**0.5, "ci99": [mean - half, mean + half],
            "reels_mean": acc[ACC_COMPONENTS + C_REELS] / n,
            "final_mean": acc[ACC_COMPONENTS + C_FINAL] / n,
            "final_game_rate": acc[ACC_FEATURES] / n, "max_x_bet": int(acc[ACC_MAX]),
            "flag_rates": {name: counts[i] / n for i, name in enumerate(FLAG_NAMES)}}

