"""Exact mathematics of Super 12 Stars, in rational numbers (pay units = line bets).

* **One spin of a reel set.** Reels stop independently and uniformly. The central reel decides
  what the spin is: a window with a Super 7 is three wilds (the expansion covers what was
  under it), a full Super 10 or Super 12 block starts its feature and shows three blanks, a
  partial block shows blanks in its cells. So its stops are enumerated (grouped by what they
  show) and the other four reels enter through their marginals: a payline takes one cell of
  each reel, every row of a reel has the reel's symbol distribution, and a line's expected
  pay given the central cell is a sum over its first symbol of products of match
  probabilities. The scatter counts (golden, silver, Bonus, Wheel) of the four other reels
  are one joint distribution (their per-reel window counts convolved).
* **Super 7.** The initial spin is paid with the central reel wild; the respin of the other
  four reels is a fresh spin against the same wild reel, so it is worth the same expectation.
* **Free spins.** By Wald's identity a feature is worth E[spins played] x E[one spin]; spins
  played follow from the retrigger probability by an exact dynamic programme over the spins
  awarded (capped at ``max_free_spins``), in integers scaled by powers of the denominator.
* **Frenzy Wheel** by backward recursion on the running total (it is a colour wheel:
  :func:`slotlab.mechanics.colour_wheel.colour_value`); **Lucky Stars** by the absorbing
  chain of :func:`slotlab.mechanics.hold_and_win.final_held_distribution` (every star, the three
  initial ones included, carries an independent value; the Grand is added on a full grid).
* **Hit rate** (P(round win > 0)) exactly: a line win is decided by the first three reels, so
  the stops of reels 1 and 2 are enumerated (numpy) against each central-reel view and the
  scatter counts of the other reels convolved; a Super 7 round is silent when both its spins
  are, a Super 10 round when its spin, and every immediate free spin it awards, are.

Every figure is an expectation per round, in pay units; the RTP is that over the 30 units of
the total bet, and credits are units x credits per line, so it is the same at every bet. The
max win is not enumerable (features chain); :func:`max_win_bound` gives a rigorous upper bound.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from slotlab.mechanics.colour_wheel import colour_value
from slotlab.mechanics.hold_and_win import final_held_distribution

from .model import (
    BASE,
    BO,
    CENTRE,
    FREE,
    GS,
    N_REELS,
    N_ROWS,
    PAY_DIVISOR,
    S7,
    S10_FREE,
    S10_FREE_SPINS,
    S10_FRENZY,
    SS,
    SYMBOLS,
    T10,
    T12,
    WH,
    Model,
    W,
)

BLANK = -1  # a cell of a giant symbol: pays nothing, matches nothing
NORMAL, SUPER7, SUPER10, SUPER12 = 0, 1, 2, 3
KIND_NAMES = ("normal", "super7", "super10", "super12")
OTHERS = tuple(r for r in range(N_REELS) if r != CENTRE)
Counts = tuple[int, int, int, int]  # golden, silver, Bonus, Wheel symbols in view


def fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _one_in(p: Fraction) -> float | None:
    return float(1 / p) if p else None


@dataclass(frozen=True)
class CentreView:
    """What one central-reel stop shows, as the rules read it."""

    kind: int
    cells: tuple[int, ...]  # effective symbol per row: W under a Super 7, BLANK in a giant
    counts: Counts


def centre_view(window: list[int]) -> CentreView:
    """The view of a central-reel ``window`` (symbol codes, top row first)."""
    if S7 in window:  # expands over the whole reel: three wilds, nothing else counts
        return CentreView(SUPER7, (W,) * N_ROWS, (0, 0, 0, 0))
    if all(s == T10 for s in window):
        return CentreView(SUPER10, (BLANK,) * N_ROWS, (0, 0, 0, 0))
    if all(s == T12 for s in window):
        return CentreView(SUPER12, (BLANK,) * N_ROWS, (0, 0, 0, 0))
    cells = tuple(BLANK if s in (T10, T12) else s for s in window)
    return CentreView(NORMAL, cells, _counts(cells))


def _counts(cells: tuple[int, ...] | list[int]) -> Counts:
    return (cells.count(GS), cells.count(SS), cells.count(BO), cells.count(WH))


def _add(a: Counts, b: Counts) -> Counts:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


class SpinMath:
    """Exact per-spin figures of one reel set, in pay units, before any multiplier."""

    def __init__(self, model: Model, reel_set: int) -> None:
        self.model = model
        lengths = [int(x) for x in model.lengths[reel_set]]
        strips = model.strips[reel_set]
        self.windows = [
            [[int(strips[r, i + k]) for k in range(N_ROWS)] for i in range(lengths[r])]
            for r in range(N_REELS)
        ]
        for r in OTHERS:
            if any(s in (S7, T10, T12) for w in self.windows[r] for s in w):
                raise ValueError("Super 7, 10 and 12 may stand on the central reel only")
        if any(s == W for w in self.windows[0] for s in w):
            raise ValueError("a wild on reel 1 is not modelled (a line would start with a wild)")
        self.centre_length = lengths[CENTRE]
        self.others_total = 1
        for r in OTHERS:
            self.others_total *= lengths[r]
        self.views = Counter(centre_view(w) for w in self.windows[CENTRE])
        # Joint scatter counts of the four other reels: Counter[(g, s, b, w)] of stop tuples.
        joint: Counter[Counts] = Counter({(0, 0, 0, 0): 1})
        for r in OTHERS:
            reel = Counter(_counts(w) for w in self.windows[r])
            nxt: Counter[Counts] = Counter()
            for a, n in joint.items():
                for b, m in reel.items():
                    nxt[_add(a, b)] += n * m
            joint = nxt
        self.others = joint
        # For the max-win bound: symbols each reel shows, most of each count the others show.
        self.shown = [{s for w in self.windows[r] for s in w} for r in range(N_REELS)]
        self.line_bound: dict[int, int] = {}  # filled by _spin_bound
        self.most: Counts = (0, 0, 0, 0)
        for r in OTHERS:
            self.most = _add(self.most, tuple(max(c) for c in zip(
                *(_counts(w) for w in self.windows[r]), strict=True)))
        self._line_value = self._line_values(lengths)
        self.rows_used = [sum(1 for line in model.lines if line[CENTRE] == row)
                          for row in range(N_ROWS)]
        self.lines_of: dict[CentreView, Fraction] = {}
        self.scatter_of: dict[CentreView, dict[str, Fraction]] = {}
        for view in self.views:
            self.lines_of[view] = sum(
                (self.rows_used[row] * self._line_value[c] for row, c in enumerate(view.cells)),
                Fraction(0))
            self.scatter_of[view] = self._scatter(view.counts)
        # The Super 7 spin (initial or respin): the central reel all wild.
        s7 = CentreView(SUPER7, (W,) * N_ROWS, (0, 0, 0, 0))
        self.s7_view = s7
        if s7 not in self.lines_of:
            self.lines_of[s7] = sum((n * self._line_value[W] for n in self.rows_used), Fraction(0))
            self.scatter_of[s7] = self._scatter(s7.counts)
        if self.scatter_of[s7]["p_bonus"] or self.scatter_of[s7]["p_wheel"]:
            raise ValueError("a Bonus or Wheel trigger beside a Super 7 reel is not modelled")

    def _line_values(self, lengths: list[int]) -> dict[int, Fraction]:
        """E[units of one payline] given the symbol on its central cell (BLANK included)."""
        m = self.model
        count = [Counter(w[0] for w in self.windows[r]) for r in range(N_REELS)]
        d = {r: Fraction(1, lengths[r]) for r in OTHERS}

        def match(r: int, t: int) -> Fraction:
            return (count[r][t] + count[r][W]) * d[r]

        out: dict[int, Fraction] = {}
        for x in (*range(len(SYMBOLS)), BLANK):
            total = Fraction(0)
            for t in range(len(SYMBOLS)):
                if not m.substitutes[t] or count[0][t] == 0 or x not in (t, W):
                    continue
                p1, q2, q4, q5 = count[0][t] * d[0], match(1, t), match(3, t), match(4, t)
                pay3, pay4, pay5 = (int(m.paytab[t, k]) for k in (3, 4, 5))
                total += p1 * q2 * ((1 - q4) * pay3 + q4 * (1 - q5) * pay4 + q4 * q5 * pay5)
            out[x] = total
        return out

    def _scatter(self, centre: Counts) -> dict[str, Fraction]:
        m = self.model
        golden = silver = bonus = wheel = either = 0
        for c, n in self.others.items():
            g, s, b, w = _add(c, centre)
            golden += n * int(m.golden_pays[g])
            silver += n * int(m.silver_pays[s])
            bonus += n * (b >= 3)
            wheel += n * (w >= 3)
            either += n * (b >= 3 or w >= 3)
        t = self.others_total
        return {"golden": Fraction(golden, t), "silver": Fraction(silver, t),
                "p_bonus": Fraction(bonus, t), "p_wheel": Fraction(wheel, t),
                "p_bonus_or_wheel": Fraction(either, t)}

    def p(self, view: CentreView) -> Fraction:
        return Fraction(self.views[view], self.centre_length)

    def p_kind(self, kind: int) -> Fraction:
        return sum((self.p(v) for v in self.views if v.kind == kind), Fraction(0))

    def expect(self, key: str, kinds: tuple[int, ...] = (NORMAL, SUPER7, SUPER10, SUPER12)
               ) -> Fraction:
        """E[``key``] over the central stops (``lines`` or a scatter figure) of a spin."""
        total = Fraction(0)
        for view in self.views:
            if view.kind in kinds:
                x = self.lines_of[view] if key == "lines" else self.scatter_of[view][key]
                total += self.p(view) * x
        return total

    def s7_spin(self) -> Fraction:
        """Units of one spin against the wild central reel (a Super 7 initial spin or respin)."""
        sc = self.scatter_of[self.s7_view]
        return self.lines_of[self.s7_view] + sc["golden"] + sc["silver"]


def expected_free_spins(initial: int, award: int, cap: int, retrigger: Fraction) -> Fraction:
    """E[free spins played] from ``initial`` awarded, each spin adding ``award`` with
    probability ``retrigger``, at most ``cap`` awarded in all.

    A forward programme over the spins awarded so far; after ``p`` spins the weights are
    integers scaled by ``den**p`` (``retrigger = num/den``), so it stays exact without a gcd
    at every step.
    """
    if initial < 1 or award < 0 or cap < 1 or not 0 <= retrigger <= 1:
        raise ValueError("need initial >= 1, award >= 0, cap >= 1 and 0 <= retrigger <= 1")
    num, den = retrigger.numerator, retrigger.denominator
    alive = {min(initial, cap): 1}
    ended = 0
    played = 0
    while alive:
        nxt: dict[int, int] = {}
        for awarded, w in alive.items():
            more = min(awarded + award, cap)
            nxt[more] = nxt.get(more, 0) + w * num
            nxt[awarded] = nxt.get(awarded, 0) + w * (den - num)
        played += 1
        done = nxt.pop(played, 0)  # awarded == played: the last spin was played
        ended += done * played * den ** (cap - played)
        alive = nxt
    return Fraction(ended, den**cap)


def frenzy_distribution(boxes: list[tuple[int, str, Fraction]], colour: str, limit: int
                        ) -> dict[int, Fraction]:
    """P(final total = f), by the forward programme on the running total."""
    alive: dict[int, Fraction] = {0: Fraction(1)}
    final: dict[int, Fraction] = {}
    for t in range(limit + 1):
        pt = alive.pop(t, Fraction(0))
        if not pt:
            continue
        for v, c, p in boxes:
            u = t + v
            target = alive if u <= limit and c == colour else final
            target[u] = target.get(u, Fraction(0)) + pt * p
    return dict(sorted(final.items()))


def lucky_stars(model: Model) -> dict[str, Any]:
    """Exact Lucky Stars: final-star distribution, expected stars and the award's parts (units)."""
    dist = final_held_distribution(model.lucky_cells, model.lucky_initial, model.lucky_p,
                                   model.lucky_respins)
    stars = sum((k * p for k, p in dist.items()), Fraction(0))
    probs = model.star_values.probabilities()
    parts = {"cash": Fraction(0), "minor": Fraction(0), "major": Fraction(0)}
    for label, p, units in zip(model.star_values.values, probs, model.star_units, strict=True):
        key = label.lower() if label in ("MINOR", "MAJOR") else "cash"
        parts[key] += stars * p * int(units)
    p_full = dist.get(model.lucky_cells, Fraction(0))
    parts["grand"] = p_full * model.grand_units
    return {"distribution": dist, "expected_stars": stars, "p_grand": p_full, "parts": parts,
            "award": sum(parts.values(), Fraction(0))}


def free_spin_value(spin: SpinMath) -> Fraction:
    """Units of one free spin before its multiplier: lines, scatters, a 3-Bonus pay, and a
    Super 7's initial spin and respin."""
    m = spin.model
    normal = (NORMAL,)
    return (spin.expect("lines", normal) + spin.expect("golden", normal)
            + spin.expect("silver", normal) + spin.expect("p_bonus", normal) * m.bonus_pay
            + spin.p_kind(SUPER7) * 2 * spin.s7_spin())


def _check_free_set(spin: SpinMath, name: str, bonus_allowed: bool) -> None:
    if spin.p_kind(SUPER10) or spin.p_kind(SUPER12) or spin.expect("p_wheel"):
        raise ValueError(f"{name}: Super 10/12 or a Wheel trigger in free spins is not modelled")
    if not bonus_allowed and spin.expect("p_bonus"):
        raise ValueError(f"{name}: a Bonus trigger in the Super 10 free spins is not modelled")


@dataclass
class Figures:
    """Every exact figure per round, in pay units or probabilities."""

    components: dict[str, Fraction]
    lucky_parts: dict[str, Fraction]
    frequencies: dict[str, Fraction]
    fs_rows: list[dict[str, Any]]
    s10_rows: list[dict[str, Any]]
    stars: dict[int, Fraction]
    expected_stars: Fraction
    frenzy: dict[str, Fraction]
    frenzy_distribution: dict[int, Fraction]
    free_spin_units: Fraction
    s10_free_spin_units: Fraction
    s7_spin_units: Fraction
    retrigger: Fraction
    expected_fs_feature: Fraction  # E[free spins played] over the TV draw


Sets = tuple[SpinMath, SpinMath, SpinMath]


def spin_maths(model: Model) -> Sets:
    """The per-spin figures of the base, free-spin and Super 10 free-spin reel sets."""
    return SpinMath(model, BASE), SpinMath(model, FREE), SpinMath(model, S10_FREE)


def compute(model: Model, sets: Sets | None = None) -> Figures:
    """The exact figures of the model (independent of the bet)."""
    base, free, s10 = sets or spin_maths(model)
    _check_free_set(free, "free spins", True)
    _check_free_set(s10, "Super 10 free spins", False)
    p7, p10, p12 = base.p_kind(SUPER7), base.p_kind(SUPER10), base.p_kind(SUPER12)
    p_bonus, p_wheel = base.expect("p_bonus"), base.expect("p_wheel")

    # Free spins: TV draw of (spins, multiplier), Wald per initial award.
    retrigger = free.expect("p_bonus")
    fs_unit = free_spin_value(free)
    e_mult = model.tv_multiplier.mean()
    fs_feature = Fraction(0)
    e_spins = Fraction(0)
    fs_rows = []
    for n0, p_n0 in zip(model.tv_spins.values, model.tv_spins.probabilities(), strict=True):
        spins = expected_free_spins(int(n0), int(n0), model.max_free_spins, retrigger)
        e_spins += p_n0 * spins
        value = spins * e_mult * fs_unit
        fs_feature += p_n0 * value
        fs_rows.append({"initial_spins": int(n0), "probability": float(p_n0),
                        "expected_spins": float(spins),
                        "expected_spins_fraction": fraction_text(spins),
                        "expected_win_x_bet": float(value / PAY_DIVISOR)})

    # Super 10: direct win, Frenzy Wheel, or immediate free spins (no multiplier).
    boxes = [(int(v), c, p) for (v, c), p in zip(model.frenzy.values,
                                                 model.frenzy.probabilities(), strict=True)]
    # the Frenzy Wheel is a colour wheel (mechanics/colour_wheel), E[total] per colour
    frenzy_by_colour = {
        c: colour_value(list(model.frenzy.weights),
                        [model.colours.index(k) for _v, k in model.frenzy.values],
                        [int(v) for v, _k in model.frenzy.values], i, model.frenzy_limit)
        for i, c in enumerate(model.colours)}
    frenzy_x = frenzy_by_colour[model.colours[0]]
    if len(set(frenzy_by_colour.values())) != 1:
        raise ValueError("the Frenzy Wheel's expectation depends on the colour chosen")
    frenzy_dist = frenzy_distribution(boxes, model.colours[0], model.frenzy_limit)
    s10_unit = free_spin_value(s10)
    direct = frenzy = s10_fs = Fraction(0)
    p_frenzy = p_s10_fs = Fraction(0)
    s10_rows = []
    for i, p in enumerate(model.super10.probabilities()):
        kind, amount = int(model.s10_kind[i]), int(model.s10_amount[i])
        if kind == S10_FRENZY:
            value = frenzy_x * PAY_DIVISOR
            frenzy += p * value
            p_frenzy += p
        elif kind == S10_FREE_SPINS:
            value = amount * s10_unit
            s10_fs += p * value
            p_s10_fs += p
        else:
            value = Fraction(amount)
            direct += p * value
        label, raw = model.super10.values[i]
        s10_rows.append({"outcome": f"{label} {raw}" if raw is not None else label,
                         "probability": float(p), "expected_win_x_bet":
                         float(value / PAY_DIVISOR)})

    lucky = lucky_stars(model)
    s7_value = base.s7_spin()
    components = {
        "lines": base.expect("lines"),
        "golden": base.expect("golden"),
        "silver": base.expect("silver"),
        "bonus_pay": p_bonus * model.bonus_pay,
        "super7_respins": p7 * s7_value,
        "wheel": p_wheel * model.wheel.mean(),
        "free_spins": p_bonus * fs_feature,
        "super10_direct": p10 * direct,
        "frenzy": p10 * frenzy,
        "super10_free_spins": p10 * s10_fs,
        "lucky_stars": p12 * lucky["award"],
    }
    lucky_parts = {k: p12 * v for k, v in lucky["parts"].items()}
    p_golden = sum((base.p(v) * _p_pay(base, v.counts, 0) for v in base.views), Fraction(0))
    p_silver = sum((base.p(v) * _p_pay(base, v.counts, 1) for v in base.views), Fraction(0))
    p_any = sum((base.p(v) * (1 if v.kind != NORMAL else base.scatter_of[v]["p_bonus_or_wheel"])
                 for v in base.views), Fraction(0))
    frequencies = {
        "golden_scatter_pay": p_golden,
        "silver_scatter_pay": p_silver,
        "free_spins": p_bonus,
        "wheel": p_wheel,
        "super7": p7,
        "super10": p10,
        "super10_direct": p10 * sum((p for i, p in enumerate(model.super10.probabilities())
                                     if model.s10_kind[i] not in (S10_FRENZY, S10_FREE_SPINS)),
                                    Fraction(0)),
        "frenzy": p10 * p_frenzy,
        "super10_free_spins": p10 * p_s10_fs,
        "lucky_stars": p12,
        "grand": p12 * lucky["p_grand"],
        "any_feature": p_any,
        "retrigger_per_free_spin": retrigger,
    }
    return Figures(components, lucky_parts, frequencies, fs_rows, s10_rows,
                   lucky["distribution"], lucky["expected_stars"],
                   {c: v for c, v in frenzy_by_colour.items()}, frenzy_dist, fs_unit, s10_unit,
                   s7_value, retrigger, e_spins)


def _p_pay(spin: SpinMath, centre: Counts, which: int) -> Fraction:
    """P(the golden (``which`` 0) or silver (1) scatter pays) given the central counts."""
    pays = spin.model.golden_pays if which == 0 else spin.model.silver_pays
    n = sum(k for c, k in spin.others.items() if pays[c[which] + centre[which]] > 0)
    return Fraction(n, spin.others_total)


# -- hit rate -----------------------------------------------------------------------------------


_DIGIT = 16  # scatter counts (each < 16) packed as one integer, so that codes add up


def _code(c: Counts) -> int:
    return ((c[0] * _DIGIT + c[1]) * _DIGIT + c[2]) * _DIGIT + c[3]


def _silent(spin: SpinMath) -> dict[CentreView, Fraction]:
    """P(the spin pays nothing and triggers neither Bonus nor Wheel | central view)."""
    m = spin.model
    if any(int(m.min_count[t]) != 3 for t in range(len(SYMBOLS)) if m.substitutes[t]):
        raise ValueError("the hit rate assumes every paying symbol pays from a run of 3")
    w1 = np.array(spin.windows[0], np.int64)  # [stop, row]
    w2 = np.array(spin.windows[1], np.int64)
    paying = m.substitutes.astype(bool)
    code = [np.array([_code(_counts(w)) for w in spin.windows[r]], np.int64)
            for r in range(N_REELS)]
    pair = code[0][:, None] + code[1][None, :]  # [s1, s2]: counts of reels 1 and 2
    rest = np.bincount((code[3][:, None] + code[4][None, :]).ravel())  # reels 4 and 5
    # silent_code[c]: counts c pay no scatter and trigger nothing.
    g, sv, b, w = np.unravel_index(np.arange(_DIGIT**4), (_DIGIT,) * 4)
    golden = np.zeros(_DIGIT, np.int64)
    golden[: len(m.golden_pays)] = m.golden_pays
    silver = np.zeros(_DIGIT, np.int64)
    silver[: len(m.silver_pays)] = m.silver_pays
    silent_code = ((golden[g] == 0) & (silver[sv] == 0) & (b < 3) & (w < 3)).astype(np.int64)
    # pays[row][x][s1, s2]: some line crossing reel 3 at ``row`` pays when that cell reads x
    # (a run of 3 decides a line win: reel 1's symbol, matched on reel 2 and on reel 3).
    none = np.zeros((w1.shape[0], w2.shape[0]), bool)
    pays = [{x: none.copy() for x in range(len(SYMBOLS))} for _ in range(N_ROWS)]
    for line in m.lines:
        a, bb, row = int(line[0]), int(line[1]), int(line[CENTRE])
        t = w1[:, a]
        two = paying[t][:, None] & ((w2[None, :, bb] == t[:, None]) | (w2[None, :, bb] == W))
        for x in range(len(SYMBOLS)):
            pays[row][x] |= two & ((t == x) | (x == W))[:, None]
    out: dict[CentreView, Fraction] = {}
    for view in [*spin.views, spin.s7_view]:
        if view in out:
            continue
        cells = (BLANK,) * N_ROWS if view.kind in (SUPER10, SUPER12) else view.cells
        quiet = ~none
        for row, x in enumerate(cells):
            if x != BLANK:
                quiet &= ~pays[row][x]
        front = np.bincount(pair[quiet] + _code(view.counts))
        silent = 0
        for c in np.nonzero(front)[0]:
            silent += int(front[c]) * int(rest @ silent_code[c : c + len(rest)])
        out[view] = Fraction(silent, spin.others_total)
    return out


def hit_rate(model: Model, sets: Sets | None = None) -> Fraction:
    """P(a round wins anything), exactly."""
    base, _free, s10 = sets or spin_maths(model)
    quiet = _silent(base)
    quiet_s10 = _silent(s10)
    z7_s10 = quiet_s10[s10.s7_view] ** 2
    # One Super 10 free spin pays nothing (a Super 7 in it: both of its spins).
    z_s10 = sum((s10.p(v) * (z7_s10 if v.kind == SUPER7 else quiet_s10[v]) for v in s10.views),
                Fraction(0))
    probs = model.super10.probabilities()
    z_feature10 = sum((p * z_s10 ** int(model.s10_amount[i]) for i, p in enumerate(probs)
                       if model.s10_kind[i] == S10_FREE_SPINS), Fraction(0))
    if min(int(u) for u in model.star_units) <= 0 or model.bonus_pay <= 0:
        raise ValueError("the hit rate assumes every star and the Bonus trigger pay something")
    zero = Fraction(0)
    for view in base.views:
        p = base.p(view)
        if view.kind == SUPER7:
            zero += p * quiet[base.s7_view] ** 2
        elif view.kind == SUPER10:
            zero += p * quiet[view] * z_feature10
        elif view.kind == NORMAL:
            zero += p * quiet[view]
        # a Super 12 round always wins its stars
    return 1 - zero


# -- report -------------------------------------------------------------------------------------


def exact_report(model: Model, bet: int, with_hit_rate: bool = True) -> dict[str, Any]:
    """The exact figures at total bet ``bet`` credits (JSON-able; fractions as ``"p/q"``)."""
    started = time.perf_counter()
    if bet not in model.bets():
        raise ValueError(f"bet {bet} is not allowed; allowed total bets: {model.bets()}")
    level = bet // PAY_DIVISOR  # credits per line = credits per pay unit
    sets = spin_maths(model)
    f = compute(model, sets)

    def rtp_of(units: Fraction) -> Fraction:
        return units * level / bet

    total = sum(f.components.values(), Fraction(0))
    rtp = rtp_of(total)
    components = {k: {"rtp": float(rtp_of(v)), "fraction": fraction_text(rtp_of(v))}
                  for k, v in f.components.items()}
    lucky_parts = {k: {"rtp": float(rtp_of(v)), "fraction": fraction_text(rtp_of(v))}
                   for k, v in f.lucky_parts.items()}
    hit = hit_rate(model, sets) if with_hit_rate else None
    freq_rows = [{"feature": k, "probability": float(p), "one_in": _one_in(p),
                  "fraction": fraction_text(p)} for k, p in f.frequencies.items()]
    star_rows = [{"stars": k, "probability": float(p), "fraction": fraction_text(p)}
                 for k, p in f.stars.items()]
    maxima = _feature_maxima(model)
    bound = max_win_bound(model, sets)
    notes = [
        "Exact: central-reel stops enumerated, the other reels by their marginals; Super 7 "
        "respin, free spins (Wald, 50-spin cap by exact DP), Frenzy (recursion) and Lucky Stars "
        "(absorbing chain) in rationals.",
        f"Pay unit = line bet = total bet / {PAY_DIVISOR}; credits = units x {level} at this "
        "bet, so the RTP is the same at every bet.",
        "lucky_stars_parts split lucky_stars: star cash values, Minor and Major stars, Grand.",
        "Frenzy Wheel: the same expectation whichever colour is chosen (mirrored wheel).",
        "hit_rate: P(round win > 0), exact" if hit is not None else "hit_rate: not computed",
        "max_win / max_win_x: a rigorous upper bound, not reached (every line and scatter at "
        "its most at once, 50 free spins at the top multiplier); feature maxima in the table; "
        "the simulated max win from `slotlab simulate`.",
        "sd: not computed exactly (the lines overlap and the features chain); take it from "
        "`slotlab simulate`.",
    ]
    return {
        "game": model.id,
        "model_hash": model.hash,
        "model_version": model.version,
        "bet": bet,
        "line_bet": level,
        "rtp": float(rtp),
        "rtp_fraction": fraction_text(rtp),
        "components": components,
        "lucky_stars_parts": lucky_parts,
        "hit_rate": None if hit is None else float(hit),
        "hit_rate_fraction": None if hit is None else fraction_text(hit),
        "hit_rate_exact": hit is not None,
        "feature_rate": float(f.frequencies["any_feature"]),
        "feature_one_in": _one_in(f.frequencies["any_feature"]),
        "free_spins_one_in": _one_in(f.frequencies["free_spins"]),
        "lucky_stars_one_in": _one_in(f.frequencies["lucky_stars"]),
        "lucky_stars_expected_stars": float(f.expected_stars),
        "lucky_stars_p_grand": float(f.stars.get(model.lucky_cells, Fraction(0))),
        "free_spins_expected": float(f.expected_fs_feature),
        "free_spin_value_x_bet": float(f.free_spin_units / PAY_DIVISOR),
        "super10_free_spin_value_x_bet": float(f.s10_free_spin_units / PAY_DIVISOR),
        "super7_spin_value_x_bet": float(f.s7_spin_units / PAY_DIVISOR),
        "frenzy_expected_x_bet": float(next(iter(f.frenzy.values()))),
        "frenzy_expected_fraction": fraction_text(next(iter(f.frenzy.values()))),
        "sd": None,
        "max_win": bound * level,
        "max_win_x": bound / PAY_DIVISOR,
        "max_win_exact": False,
        "frequencies": {k: fraction_text(p) for k, p in f.frequencies.items()},
        "lucky_stars_distribution": {str(k): fraction_text(p) for k, p in f.stars.items()},
        "tables": {
            "trigger frequencies": freq_rows,
            "lucky stars parts": [{"part": k, **v} for k, v in lucky_parts.items()],
            "lucky stars final stars": star_rows,
            "free spins per initial award": f.fs_rows,
            "super 10 reel": f.s10_rows,
            "feature maxima": maxima,
        },
        "notes": notes,
        "seconds": time.perf_counter() - started,
    }


def _spin_bound(spin: SpinMath, view: CentreView) -> int:
    """An upper bound of one spin's units given the central view: every line at the longest
    run its reels allow, scatters at the most their reels can show (lines share cells, so the
    bound is not reached)."""
    m = spin.model
    if not spin.line_bound:
        # The longest run one line can make (any stop of each reel) given its reel-3 cell x:
        # the same for every line, whatever its rows.
        pay = m.paytab.tolist()
        for x in (*range(len(SYMBOLS)), BLANK):
            best = 0
            for t in range(len(SYMBOLS)):
                if not m.substitutes[t] or t not in spin.shown[0]:
                    continue
                k = 1
                while k < N_REELS and (x in (t, W) if k == CENTRE
                                       else bool(spin.shown[k] & {t, W})):
                    k += 1
                best = max(best, pay[t][k])
            spin.line_bound[x] = best
    lines = sum(n * spin.line_bound[x] for n, x in zip(spin.rows_used, view.cells, strict=True))
    g, s, b, _w = _add(spin.most, view.counts)
    golden = max(int(x) for x in m.golden_pays[: g + 1])
    silver = max(int(x) for x in m.silver_pays[: s + 1])
    return lines + golden + silver + (m.bonus_pay if b >= 3 else 0)


def max_win_bound(model: Model, sets: Sets | None = None) -> int:
    """A rigorous upper bound of a round's units: the best central view, each feature it can
    start at its most (free spins: every spin at its bound, the top multiplier, the cap of
    spins). The true maximum is far below; the simulated one is the useful figure."""
    base, free, s10 = sets or spin_maths(model)

    def set_bound(spin: SpinMath) -> int:
        return max(_spin_bound(spin, v) * (2 if v.kind == SUPER7 else 1) for v in spin.views)

    free_spin, s10_spin = set_bound(free), set_bound(s10)
    fs = model.max_free_spins * max(int(x) for x in model.tv_multiplier.values) * free_spin
    s10_best = 0
    for i in range(len(model.s10_kind)):
        kind, amount = int(model.s10_kind[i]), int(model.s10_amount[i])
        s10_best = max(s10_best, amount * s10_spin if kind == S10_FREE_SPINS else
                       (model.frenzy_limit + max(int(v) for v in model.frenzy_values))
                       * PAY_DIVISOR if kind == S10_FRENZY else amount)
    lucky = model.lucky_cells * max(int(u) for u in model.star_units) + model.grand_units
    wheel = max(int(v) for v in model.wheel.values)
    best = 0
    _g, _s, others_bonus, others_wheel = base.most
    for v in base.views:
        x = _spin_bound(base, v)
        if v.kind == SUPER7:
            x += _spin_bound(base, base.s7_view)
        elif v.kind == SUPER10:
            x += s10_best
        elif v.kind == SUPER12:
            x += lucky
        x += wheel if others_wheel + v.counts[3] >= 3 else 0
        x += fs if others_bonus + v.counts[2] >= 3 else 0
        best = max(best, x)
    return best


def _feature_maxima(model: Model) -> list[dict[str, Any]]:
    major = max(int(u) for u in model.star_units)
    wheel = max(int(v) for v in model.wheel.values)
    frenzy = model.frenzy_limit + max(int(v) for v, _ in model.frenzy.values)
    direct = max((int(model.s10_amount[i]) for i in range(len(model.s10_kind))
                  if model.s10_kind[i] not in (S10_FRENZY, S10_FREE_SPINS)), default=0)
    rows = [
        ("Lucky Stars (15 top stars + Grand)", model.lucky_cells * major + model.grand_units),
        ("Frenzy Wheel (limit + top box)", frenzy * PAY_DIVISOR),
        ("Wheel segment", wheel),
        ("Super 10 direct win", direct),
    ]
    return [{"feature": name, "max_x_bet": units / PAY_DIVISOR} for name, units in rows]
