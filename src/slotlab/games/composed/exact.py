"""Exact mathematics of a composed game, in rational numbers, composed from its mechanics.

* Lines and scatters: the line family's enumeration of the strips
  (:mod:`slotlab.games.lines.exact`), for the base and the free-spin reels. A paying scatter's
  pay depends on its own count alone: that count's distribution is each reel's polynomial
  multiplied (:mod:`slotlab.mechanics.scatter`).
* What a window starts depends on how many scatters and coins it shows together: their joint
  distribution over the reel cycle is the product of each reel's two-variable polynomial
  (:func:`slotlab.mechanics.pair_counts.convolve2`).
* Hold and win: the absorbing chain over (cells held, respins left) gives the distribution of
  the cells held at the end (:func:`slotlab.mechanics.hold_and_win.final_held_distribution`);
  landings are coins or collectors independently of that chain, and coin values independently
  of both, so the feature's value is the mean coin value times ``E[coins x (1 + collectors)]``
  (:mod:`slotlab.mechanics.collectors`).
* Wheel: the weighted mean of what its segments bring (:func:`slotlab.mechanics.wheel.wheel_value`).
* Colour wheel: E[total] for each colour by recursion over the total
  (:func:`slotlab.mechanics.colour_wheel.colour_value`); the RTP takes the colour at random, as
  the simulator and the completion of an abandoned round do, and the report lists each colour.
* Expanding reels: a reel that shows the symbol is the wild and shows no scatter or coin; the
  lines, scatters and the respins' chain over the reels held are
  :class:`slotlab.mechanics.expanding.ExpandingMath`.
* Free spins: Wald's identity, E[number of free spins] (retriggers up to the cap, the line
  family's closed form) times the value of one free spin (its pays and the hold and win its
  coins start), times the multiplier.

All figures are of the uncapped game; the max-win cap's effect is measured by simulation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from slotlab.games.composed.model import FEATURES, CompiledWheel, ComposedModel
from slotlab.games.lines.exact import ReelSetMath, expected_free_spins, report_head
from slotlab.mechanics.collectors import expected_collected, expected_landings
from slotlab.mechanics.colour_wheel import colour_value
from slotlab.mechanics.expanding import ExpandingMath, LinePays, reel_states
from slotlab.mechanics.hold_and_win import final_held_distribution
from slotlab.mechanics.pair_counts import convolve2, window_pair_count_weights
from slotlab.mechanics.scatter import convolve, window_count_weights
from slotlab.mechanics.weighted import WeightedTable
from slotlab.mechanics.wheel import Segment, feature_probability, wheel_value
from slotlab.mechanics.whole_reel import full_stops


def _pairs(model: ComposedModel, strips: np.ndarray, lengths: np.ndarray, counted: int | None = None
           ) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """``P(the window shows i of the symbol counted (default: the scatter) and j coins)`` over
    the reel cycle, the cells of a reel the whole-reel symbol fills counted as coins; and
    ``P(i, j, and no reel filled)``."""
    a = model.lines.arrays
    f = model.features
    symbol = a.scatter if counted is None else counted
    shown, unfilled = [], []
    for r in range(a.reels):
        w = window_pair_count_weights(strips[r], int(lengths[r]), a.rows, symbol, f.coin,
                                      f.expanding, f.whole_reel)
        unfilled.append(w)
        filled = full_stops(strips[r], int(lengths[r]), a.rows, f.whole_reel) \
            if f.whole_reel >= 0 else 0
        shown.append([[x + (filled if (i, j) == (0, a.rows) else 0) for j, x in enumerate(row)]
                      for i, row in enumerate(w)])
    cycle = 1
    for n in lengths:
        cycle *= int(n)
    return ([[Fraction(x, cycle) for x in row] for row in convolve2(shown)],
            [[Fraction(x, cycle) for x in row] for row in convolve2(unfilled)])


def _starts(pairs: tuple[list[list[Fraction]], list[list[Fraction]]],
            trigger: int) -> list[Fraction]:
    """``P(the hold and win starts with j coins)``: ``trigger`` coins or more, or a reel
    filled with the whole-reel symbol (its cells are coins)."""
    shown, unfilled = pairs
    out = []
    for j in range(len(shown[0])):
        p = sum((row[j] for row in shown), Fraction(0))
        if j < trigger:
            p -= sum((row[j] for row in unfilled if j < len(row)), Fraction(0))
        out.append(p)
    return out


def _scatters(model: ComposedModel) -> tuple[list[int], list[np.ndarray]]:
    """Every scatter's symbol and its pays by count: the line keys' scatter first (the one
    that awards free spins; -1 when there is none), then the paying ones."""
    a = model.lines.arrays
    f = model.features
    pays = [np.array(row, dtype=np.int64) for row in f.scatter_pays]
    return [a.scatter, *f.scatter_symbols], [a.scatter_pays, *pays]


def _spin_math(model: ComposedModel, strips: np.ndarray, lengths: np.ndarray
               ) -> tuple[ReelSetMath | ExpandingMath, list[Fraction], Fraction]:
    """A reel set's per-spin line and scatter math, E[each scatter's pay] of a spin (in
    :func:`_scatters` order), and the value of the respins a spin awards (multiplier 1)."""
    f = model.features
    a = model.lines.arrays
    symbols, scatter_pays = _scatters(model)
    if f.expanding < 0:
        math = ReelSetMath(model.lines, strips, lengths)
        each = [math.scatter]
        for symbol, by_count in zip(symbols[1:], scatter_pays[1:], strict=True):
            dist = convolve([window_count_weights(strips[r], int(lengths[r]), a.rows, symbol)
                             for r in range(a.reels)])
            each.append(Fraction(sum(n * int(by_count[c]) for c, n in enumerate(dist)),
                                 math.cycle))
        return math, each, Fraction(0)
    states = [reel_states(strips[r], int(lengths[r]), a.rows, f.expanding, symbols,
                          len(model.symbol_ids)) for r in range(a.reels)]
    line_pays = LinePays(a.lines, a.paytab, a.substitutes.astype(np.int64), a.wild,
                         a.wild_mult, a.wild_each)
    expanding = ExpandingMath(states, line_pays, scatter_pays, f.expanding_respins)
    return expanding, expanding.scatter_each, expanding.respin_value


class _Grid:
    """Hold-and-win values by the number of coins it starts with (multiplier 1, pay units)."""

    def __init__(self, model: ComposedModel) -> None:
        f = model.features
        self.cells = model.cells()
        self.on = f.coin >= 0
        self.trigger = f.trigger
        if not self.on:
            return
        probs = dict(zip(f.landing.values, f.landing.probabilities(), strict=True))
        self.p_land = 1 - probs["nothing"]
        self.q_coin = probs["coin"] / self.p_land
        self.mean_coin = f.coins.mean()
        self.respins = f.respins
        self.labels = f.coin_labels
        self.coin_probs = f.coins.probabilities()
        self.full_grid = f.full_grid
        self.full_grid_name = model.spec.hold_and_win.full_grid if model.spec.hold_and_win \
            else None

    @cache  # noqa: B019 - one per report; the wheels ask again for each scatter count
    def value(self, start: int) -> Fraction:
        if not self.on:
            return Fraction(0)
        return self.mean_coin * expected_collected(self.cells, start, self.p_land, self.q_coin,
                                                   self.respins) \
            + self.full_grid * self.p_full(start)

    def p_full(self, start: int) -> Fraction:
        """P(every cell is held at the end), from ``start`` cells held."""
        if start >= self.cells:
            return Fraction(1)
        ends = final_held_distribution(self.cells, start, self.p_land, self.respins)
        return ends.get(self.cells, Fraction(0))

    def coins_landed(self, start: int) -> Fraction:
        """E[coins in the feature]: those it starts with and those that land."""
        return start + self.q_coin * expected_landings(self.cells, start, self.p_land,
                                                       self.respins)

    def started(self, starts: list[Fraction]) -> Fraction:
        """The value of a spin's hold and win, by the distribution of the coins it starts
        with (:func:`_starts`)."""
        return sum((p * self.value(j) for j, p in enumerate(starts) if p), Fraction(0))


class _FreeSpins:
    """The value of free spins (at the model's multiplier, not a wheel's) on a strip set (by
    default the model's free-spin reels), by what they award."""

    def __init__(self, model: ComposedModel, grid: _Grid, strips: str | None = None) -> None:
        a = model.lines.arrays
        fs = model.spec.free_spins
        assert fs is not None
        self.arrays = a
        self.multiplier = fs.multiplier
        reels, lengths = model.lines.reel_set(strips) if strips else (a.free, a.free_len)
        self.math, scatters, respins = _spin_math(model, reels, lengths)
        starts = _starts(_pairs(model, reels, lengths), grid.trigger) if grid.on else []
        # one free spin at multiplier 1
        self.per_spin = self.math.lines + sum(scatters, Fraction(0)) + respins \
            + grid.started(starts)

    @cache  # noqa: B019 - one per report
    def spins(self, award: int, again: int = 0) -> Fraction:
        """E[spins played] after ``award``, each retrigger awarding ``again`` (0: the
        scatters' award)."""
        return expected_free_spins(self.arrays, self.math, award, again or None)

    def value(self, award: int, again: int = 0) -> Fraction:
        return self.spins(award, again) * self.per_spin * self.multiplier


class _SegmentFreeSpins:
    """The value of the free spins a wheel segment starts: its own ``spins`` (also each
    retrigger's), else the scatters' award, on its own strip set or the model's free-spin
    reels."""

    def __init__(self, model: ComposedModel, grid: _Grid, free: _FreeSpins | None) -> None:
        self.model, self.grid = model, grid
        self.sets: dict[str | None, _FreeSpins] = {None: free} if free else {}

    def on(self, strips: str | None) -> _FreeSpins:
        if strips not in self.sets:
            self.sets[strips] = _FreeSpins(self.model, self.grid, strips)
        return self.sets[strips]

    def of_segment(self, award: int) -> Callable[[Segment], Fraction]:
        return lambda seg: self.on(seg.strips).value(seg.spins or award, seg.spins)


def _add_wheel(components: dict[str, Fraction], own: dict[str, Fraction], p: Fraction,
               wheel: WeightedTable[Segment], free_spins: Callable[[Segment], Fraction],
               hold_and_win: Fraction, colour_wheel: Fraction) -> None:
    """Add a wheel spun with probability ``p`` to ``components`` and to the wheel's ``own``
    figures, given the value of each feature a segment may start (at multiplier 1; free spins
    by the segment)."""
    parts = {"wheel_pays": p * wheel_value(wheel, dict.fromkeys(FEATURES, Fraction(0))),
             "free_spins": Fraction(0), "wheel_hold_and_win": Fraction(0),
             "colour_wheel": Fraction(0)}
    for seg, ps in zip(wheel.values, wheel.probabilities(), strict=True):
        if seg.feature == "free_spins":
            parts["free_spins"] += p * ps * seg.multiplier * free_spins(seg)
        elif seg.feature == "hold_and_win":
            parts["wheel_hold_and_win"] += p * ps * seg.multiplier * hold_and_win
        elif seg.feature == "colour_wheel":
            parts["colour_wheel"] += p * ps * seg.multiplier * colour_wheel
    for k, v in parts.items():
        components[k] += v
        own[k] = own.get(k, Fraction(0)) + v
    own["spun"] = own.get("spun", Fraction(0)) + p


def _colour_totals(model: ComposedModel) -> dict[str, Fraction]:
    """E[the colour wheel's total] for each colour the player may pick."""
    f = model.features
    if not f.colours:
        return {}
    weights = list(f.colour_segments.weights)
    colours = [c for c, _m in f.colour_segments.values]
    mults = [m for _c, m in f.colour_segments.values]
    return {name: colour_value(weights, colours, mults, i, f.colour_limit)
            for i, name in enumerate(f.colours)}


def _wheel_row(model: ComposedModel, wheel: CompiledWheel, own: dict[str, Fraction]
               ) -> dict[str, Any]:
    """A wheel's line of the report: what spins it, how often, and each part of the RTP it
    brings (its pays, and the features its segments start)."""
    spun = own.get("spun", Fraction(0))
    return {"wheel": wheel.name,
            "spun_by": (f"{wheel.count} {model.symbol_ids[wheel.symbol]}"
                        if wheel.symbol >= 0 else "the scatters' award"),
            "per_round": float(spun), "one_in": float(1 / spun) if spun else None,
            **{f"rtp_{k}": float(own.get(k, Fraction(0)) / model.divisor)
               for k in ("wheel_pays", "free_spins", "wheel_hold_and_win", "colour_wheel")}}


def exact_report(model: ComposedModel, bet: int) -> dict[str, Any]:
    """The exact figures of the uncapped game at total bet ``bet`` credits (JSON-able)."""
    started = time.perf_counter()
    a = model.lines.arrays
    divisor = model.divisor
    f = model.features
    grid = _Grid(model)
    base, base_scatters, base_respins = _spin_math(model, a.base, a.base_len)
    base_joint = _pairs(model, a.base, a.base_len)
    base_pairs = base_joint[0]
    base_starts = _starts(base_joint, grid.trigger) if grid.on else []
    components: dict[str, Fraction] = {
        "base_lines": base.lines, "base_scatter": sum(base_scatters, Fraction(0)),
        "hold_and_win": grid.started(base_starts),
        "wheel_pays": Fraction(0), "wheel_hold_and_win": Fraction(0),
        "free_spins": Fraction(0), "respins": base_respins, "colour_wheel": Fraction(0)}
    colour_totals = _colour_totals(model)
    colour_total = (sum(colour_totals.values(), Fraction(0)) / len(colour_totals)
                    if colour_totals else Fraction(0))
    p_hw = sum(base_starts, Fraction(0))
    p_free = Fraction(0)
    fs_rows: list[dict[str, Any]] = []
    free = _FreeSpins(model, grid) if model.spec.free_spins is not None else None
    by_segment = _SegmentFreeSpins(model, grid, free)
    # each wheel's own figures per round (pay units), in the model's order
    own: list[dict[str, Fraction]] = [{} for _w in f.wheels]
    if free is not None:
        spun_by_award = f.award_index
        wheel = f.wheels[spun_by_award].table if spun_by_award >= 0 else None
        for s, row in enumerate(base_pairs):
            award = int(a.fs_awards[s]) if s < len(a.fs_awards) else 0
            p_s = sum(row, Fraction(0))
            if award == 0 or p_s == 0:
                continue
            if wheel is None:
                components["free_spins"] += p_s * free.value(award)
                p_free += p_s
            else:
                # The wheel's hold and win starts from the coins this window shows.
                for j, p in enumerate(row):
                    if p:
                        _add_wheel(components, own[spun_by_award], p, wheel,
                                   by_segment.of_segment(award), grid.value(j),
                                   divisor * colour_total)
                p_free += p_s * feature_probability(wheel, "free_spins")
            fs_rows.append({"scatters": s, "probability": float(p_s), "one_in": float(1 / p_s),
                            "awarded": award, "expected_spins": float(free.spins(award))})
    for w, spun in enumerate(f.wheels):
        if spun.symbol < 0:
            continue
        # spun by its own symbol: its hold and win starts from the coins in view, its free
        # spins are the segment's (a segment starts free spins only in a model that has them)
        joint = _pairs(model, a.base, a.base_len, spun.symbol)[0]
        for row in joint[spun.count:]:
            for j, p in enumerate(row):
                if p:
                    _add_wheel(components, own[w], p, spun.table, by_segment.of_segment(0),
                               grid.value(j), divisor * colour_total)
        p_free += own[w].get("spun", Fraction(0)) * feature_probability(spun.table,
                                                                        "free_spins")
    total = sum(components.values(), Fraction(0))
    rtp = total / divisor
    jackpots = []
    if grid.on:
        # E[feature coins] per round: base trigger (and wheel) only; jackpots in free spins
        # follow the same table (a lower bound is given, see notes).
        coins_per_round = sum((p * grid.coins_landed(j) for j, p in enumerate(base_starts)),
                              Fraction(0))
        for label, pj in zip(grid.labels, grid.coin_probs, strict=True):
            if label is not None:
                rate = coins_per_round * pj
                jackpots.append({"jackpot": label, "per_round": float(rate),
                                 "one_in": float(1 / rate) if rate else None})
        if grid.full_grid:
            rate = sum((p * grid.p_full(j) for j, p in enumerate(base_starts)), Fraction(0))
            jackpots.append({"jackpot": grid.full_grid_name, "full_grid": True,
                             "per_round": float(rate),
                             "one_in": float(1 / rate) if rate else None})
    return {
        **report_head(model, bet, rtp, {k: v / divisor for k, v in components.items()}),
        "hit_rate": None,
        "hit_rate_exact": False,
        "hold_and_win_rate": float(p_hw),
        "hold_and_win_one_in": float(1 / p_hw) if p_hw else None,
        "free_spins_rate": float(p_free),
        "free_spins_one_in": float(1 / p_free) if p_free else None,
        "spins": base.cycle,
        "sd": None,
        "max_win": model.spec.max_win_x * bet,
        "max_win_x": model.spec.max_win_x,
        "simulated": ["cap", "hit_rate", "sd"],
        "tables": {"free spins": fs_rows, "base-triggered jackpots": jackpots,
                   "scatters": [
                       {"symbol": model.symbol_ids[sym], "rtp_base": float(part / divisor)}
                       for sym, part in zip(_scatters(model)[0], base_scatters, strict=True)
                       if sym >= 0],
                   "wheels": [_wheel_row(model, w, figures)
                              for w, figures in zip(f.wheels, own, strict=True)],
                   "colour wheel": [{"colour": c, "expected_total_x_bet": float(v)}
                                    for c, v in colour_totals.items()]},
        "notes": [
            "Exact RTP of the uncapped game, composed from its mechanics: lines and scatters "
            "by enumeration of the strips, the hold and win by its Markov chain, the wheel by "
            "its weights, free spins by their closed form, expanding reels' respins by their "
            "chain over the reels held.",
            "Simulated: the max-win cap's effect, the hit rate and the standard deviation.",
        ],
        "seconds": time.perf_counter() - started,
    }
