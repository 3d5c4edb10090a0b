"""``slotlab fit``: a model fitted to many targets at once over the parameters a designer names.

A target is a figure of the game at one bet with a tolerance: ``rtp``, ``hit_rate``,
``feature_rate``, ``sd`` (of a round's win over the bet), ``volatility`` (the 90 % volatility
index), ``p_win_ge_X`` (the chance a round wins X times the bet or more) or ``top_prize`` (the
chance the game's top prize is won per feature game, where the game has that figure: Superstars'
Final board's 1000x square per Bonus Game). A parameter is an integer of the model file named by
its path, as ``slotlab tune`` reads it (a pay ``pays.CHERRY.3``, a weight, or the stops of a
symbol on a strip ``strips.base.0.CHERRY``), or a ``"p/q"`` probability searched over its
numerator at the denominator it is written with (``bonus.land.prize=10000..11000`` on
``"10645/100000"``: k/100000), with the range it may take.

Each figure is exact where the game's exact report has it (the line family's RTP and hit rate,
all of Crystal Star Deluxe's figures, a tail at a band edge where the report has exact bands),
composed where the game composes its RTP (Superstars: an exact base game and feature rate,
simulated Bonus Games with the RTP's 99 % interval; its top prize on as many traced Bonus Games)
and simulated otherwise, on the same seed
for every model tried (common random numbers), with its 99 % interval. The search is scipy's
differential evolution over the integers (its ``integrality``), started from the model as it
is, stopped as soon as every target is met. The verdicts are then made on the best model again,
exact figures in exact arithmetic: an exact target is met when ``|value - target| <=
tolerance`` holds between fractions (an exact RTP is a fraction, the target and tolerance are
read as decimals), so a met exact target is met exactly, not to a float's rounding. A simulated
target is met when its 99 % interval lies inside the band, not met when the interval lies
outside it, and undecided when the interval crosses an edge (more rounds decide it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from slotlab.games import AnyGame, game_from_source
from slotlab.mechanics.accumulators import (
    ACC_FEATURES,
    ACC_HITS,
    ACC_SPINS,
    ACC_WIN,
    BAND_EDGES,
    band_labels,
)
from slotlab.model import ModelError
from slotlab.rng import chunk_stream
from slotlab.simulate.par.figures import exact_feature_rate
from slotlab.simulate.par.intervals import wilson99
from slotlab.simulate.stats import Z90, Z99
from slotlab.tune import Param, TuneError

FIGURES = ("rtp", "hit_rate", "feature_rate", "sd", "volatility", "top_prize")
TAIL = re.compile(r"p_win_ge_(\d+(?:\.\d+)?)$")
INVALID = 1e12  # the objective of a model that is not valid
ROUNDS = 1_000_000  # simulated rounds per model where a figure is simulated
BONUSES = 100_000  # simulated Bonus Games per model where the RTP is composed (Superstars)
TOP_PRIZE = "top_prize"


class FitError(ValueError):
    """A target or parameter that cannot be read, or a model that is not valid as it is."""


def _number(text: str) -> Fraction:
    """``0.965``, ``96.5%``, ``1/200`` as a fraction (a decimal read as written)."""
    t = text.strip()
    try:
        return Fraction(t[:-1]) / 100 if t.endswith("%") else Fraction(t)
    except (ValueError, ZeroDivisionError) as exc:
        raise FitError(f"{text!r} is not a number (0.965, 96.5% or 1/200)") from exc


@dataclass(frozen=True)
class Target:
    """A figure, its target value and how far from it still meets it."""

    figure: str
    value: Fraction
    tolerance: Fraction

    @classmethod
    def parse(cls, text: str) -> Target:
        """``rtp=96.5%+-0.05%``, ``hit_rate=0.3+-0.01``, ``p_win_ge_100=1/5000+-1/20000``,
        ``top_prize=1.11%+-0.03%``."""
        name, sep, rest = text.partition("=")
        name = name.strip()
        if not sep or (name not in FIGURES and not TAIL.match(name)):
            raise FitError(f"{text!r}: a target is FIGURE=VALUE+-TOLERANCE, FIGURE one of "
                           f"{', '.join(FIGURES)} or p_win_ge_X (X in bets)")
        value, _, tol = rest.partition("+-")
        tolerance = _number(tol) if tol else Fraction(0)
        if tolerance < 0:
            raise FitError(f"{text!r}: the tolerance is below zero")
        return cls(name, _number(value), tolerance)

    def __str__(self) -> str:
        return f"{self.figure}={float(self.value):g}+-{float(self.tolerance):g}"


def _slot(raw: dict[str, Any], path: str) -> tuple[Any, Any]:
    """The container holding the value at ``path`` (dots; list indices as numbers), and its
    key there."""
    *keys, last = path.split(".")
    node: Any = raw
    for key in keys:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node, int(last) if isinstance(node, list) else last


def _written_denominator(raw: dict[str, Any], path: str) -> int:
    """The denominator of the ``"p/q"`` text at ``path`` as written (not reduced)."""
    container, key = _slot(raw, path)
    node = container[key]
    _, slash, q = str(node).partition("/")
    if not slash:  # "0.005": no grid is written; the designer says which by writing p/q
        raise FitError(f"{path} is {node!r}: write it as p/q to fit it (its numerator is "
                       "searched over that denominator)")
    return int(q)


@dataclass(frozen=True)
class Bound:
    """An integer parameter of the model and the range it may take (both ends in it). A
    ``"p/q"`` probability is searched over its numerator: ``scale`` is its written denominator,
    kept as the grid so that a fitted file can be fitted again on the same steps."""

    param: Param
    low: int
    high: int
    scale: int = 1

    @classmethod
    def parse(cls, raw: dict[str, Any], text: str) -> Bound:
        """``PATH=LOW..HIGH``, e.g. ``pays.CHERRY.3=2..40``, ``strips.base.0.SEVEN=1..6`` or
        ``bonus.land.prize=6000..12000`` (numerators of a ``"p/q"`` probability)."""
        path, sep, span = text.partition("=")
        match = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", span)
        if not sep or match is None:
            raise FitError(f"{text!r}: a parameter is PATH=LOW..HIGH, e.g. pays.CHERRY.3=2..40")
        try:
            param = Param.at(raw, path.strip())
        except TuneError as exc:
            raise FitError(str(exc)) from exc
        if not param.integral and param.kind != "fraction":
            raise FitError(f"{path}: the fit searches integers (pays, weights, strip counts, "
                           f"numerators of p/q probabilities); this one is a {param.kind}")
        low, high = int(match[1]), int(match[2])
        if low > high:
            raise FitError(f"{text!r}: the range is empty")
        scale = _written_denominator(raw, param.path) if param.kind == "fraction" else 1
        return cls(param, low, high, scale)

    @property
    def current(self) -> int:
        """The model's value on the search's grid (a probability's written numerator)."""
        return int(self.param.current * self.scale)

    def applied(self, raw: dict[str, Any], k: int) -> dict[str, Any]:
        """A copy of ``raw`` with the parameter at grid point ``k``."""
        out = self.param.applied(raw, Fraction(k, self.scale))
        if self.scale > 1:  # "k/scale" as written, not reduced: the grid stays the same
            container, key = _slot(out, self.param.path)
            container[key] = f"{k}/{self.scale}"
        return out


@dataclass
class Measure:
    """One figure of a model: its value (a fraction where exact), its 99 % interval."""

    value: Fraction | float
    exact: bool
    low: float
    high: float
    how: str


def _exact_report(game: AnyGame, bet: int) -> dict[str, Any]:
    if game.exact is None or game.composed is not None:
        return {}  # no exact report, or one whose RTP is partly simulated
    return game.exact(bet)


def _exact_figure(report: dict[str, Any], figure: str, bet: int) -> Fraction | float | None:
    """The exact value of ``figure`` in ``report``, or None where it has none."""
    if figure == "rtp" and isinstance(report.get("rtp_fraction"), str):
        return Fraction(report["rtp_fraction"])
    if (figure == "hit_rate" and isinstance(report.get("hit_rate_fraction"), str)
            and report.get("hit_rate_exact", True)):
        return Fraction(report["hit_rate_fraction"])
    if figure == "sd" and isinstance(report.get("sd"), float):
        return float(report["sd"])
    if figure == "volatility" and isinstance(report.get("volatility_index_90"), float):
        return float(report["volatility_index_90"])
    if figure == "feature_rate" and report:
        return exact_feature_rate(report)
    tail = TAIL.match(figure)
    if tail and isinstance(report.get("win_bands"), dict):
        x = float(tail[1])
        if x in BAND_EDGES:  # P(win >= edge) is the sum of the bands from that edge on
            labels = band_labels()[2 + BAND_EDGES.index(int(x)):]
            if all(lab in report["win_bands"] for lab in labels):
                return float(sum(report["win_bands"][lab] for lab in labels))
    return None


def _composed_figure(game: AnyGame, bet: int, figure: str, bonuses: int,
                     seed: int) -> Measure | None:
    """A game whose RTP is composed (an exact base game, a simulated feature): its RTP with the
    composed 99 % interval, its feature rate exact; None for any other figure or game."""
    if game.composed is None or figure not in ("rtp", "feature_rate"):
        return None
    report = game.composed(bet, bonuses=bonuses, seed=seed)
    if figure == "feature_rate":
        text = report.get("bonus_frequency_fraction")
        if not isinstance(text, str):
            return None
        value = Fraction(text)
        return Measure(value, True, float(value), float(value), "exact")
    rtp, half = float(report["rtp"]), float(report["ci99_half_width"])
    return Measure(rtp, False, rtp - half, rtp + half,
                   f"composed: exact base game, {bonuses:,} simulated Bonus Games")


def _top_prize_figure(game: AnyGame, bonuses: int, seed: int) -> Measure:
    """P(the top prize is won) per feature game, simulated on ``bonuses`` of them with its 99 %
    interval (the same seed, so the same draws, for every model tried)."""
    if game.top_prize is None:
        raise FitError(f"{game.id} has no top-prize figure (a game that simulates its top "
                       "prize's rate per feature game has one: Superstars)")
    r = game.top_prize(bonuses=bonuses, seed=seed)
    low, high = (float(x) for x in r["ci99"])
    return Measure(float(r["per_bonus_game"]), False, low, high,
                   f"simulated, {bonuses:,} Bonus Games")


def measure(game: AnyGame, bet: int, figures: list[str], rounds: int, seed: int,
            bonuses: int = BONUSES) -> dict[str, Measure]:
    """Each of ``figures`` for ``game`` at ``bet``: exact where it can be, composed where the
    game composes it (``bonuses`` simulated Bonus Games), else simulated on ``rounds`` rounds
    of chunk stream 0 of ``seed`` (the same rounds for every model)."""
    report = _exact_report(game, bet)
    out: dict[str, Measure] = {}
    sim: tuple[np.ndarray, np.ndarray] | None = None
    wins: np.ndarray | None = None
    for figure in figures:
        if figure == TOP_PRIZE:
            out[figure] = _top_prize_figure(game, bonuses, seed)
            continue
        composed = _composed_figure(game, bet, figure, bonuses, seed)
        if composed is not None:
            out[figure] = composed
            continue
        value = _exact_figure(report, figure, bet)
        if value is not None:
            v = float(value)
            out[figure] = Measure(value, True, v, v, "exact")
            continue
        if TAIL.match(figure):
            if wins is None:
                wins = game.round_wins(bet, rounds, chunk_stream(seed, 0))
            x = Fraction(TAIL.match(figure)[1])  # type: ignore[index]
            k = int((wins * x.denominator >= x.numerator * bet).sum())
            low, high = wilson99(k, rounds)
            out[figure] = Measure(k / rounds, False, low, high, f"simulated, {rounds:,} rounds")
            continue
        if sim is None:
            sim = game.simulate_chunk(bet, rounds, chunk_stream(seed, 0))
        acc, sq = sim
        n = int(acc[ACC_SPINS])
        mean = int(acc[ACC_WIN]) / (bet * n)
        sd = math.sqrt(max(float(sq[0]) / n - mean * mean, 0.0))
        how = f"simulated, {rounds:,} rounds"
        if figure == "rtp":
            half = Z99 * sd / math.sqrt(n)
            out[figure] = Measure(mean, False, mean - half, mean + half, how)
        elif figure in ("hit_rate", "feature_rate"):
            k = int(acc[ACC_HITS if figure == "hit_rate" else ACC_FEATURES])
            low, high = wilson99(k, n)
            out[figure] = Measure(k / n, False, low, high, how)
        else:  # sd, volatility: a point estimate (no interval is computed for them)
            v = sd if figure == "sd" else Z90 * sd
            out[figure] = Measure(v, False, v, v, how + ", point estimate")
    return out


@dataclass
class Verdict:
    """Whether a target is met by the fitted model, and why."""

    target: Target
    measure: Measure
    met: bool | None  # None: undecided (a simulated interval crosses an edge of the band)
    why: str

    def to_json(self) -> dict[str, Any]:
        v = self.measure.value
        return {"figure": self.target.figure, "target": float(self.target.value),
                "tolerance": float(self.target.tolerance), "value": float(v),
                "value_fraction": (f"{v.numerator}/{v.denominator}"
                                   if isinstance(v, Fraction) else None),
                "exact": self.measure.exact, "ci99": [self.measure.low, self.measure.high],
                "how": self.measure.how, "met": self.met, "why": self.why}


def _miss(m: Measure, target: Target) -> float:
    """How far a figure lies outside the target's band, relative to the band's width: an exact
    value, or a simulated 99 % interval (0 once it lies wholly inside, as the verdict asks)."""
    if isinstance(m.value, Fraction):  # exact: inside the band means exactly inside it
        off = float(abs(m.value - target.value) - target.tolerance)
    elif m.exact:
        off = abs(m.value - float(target.value)) - float(target.tolerance)
    else:
        lo, hi = float(target.value - target.tolerance), float(target.value + target.tolerance)
        off = max(m.high - hi, 0.0) + max(lo - m.low, 0.0)
    scale = float(target.tolerance) or max(abs(float(target.value)), 1e-12) * 1e-9
    return max(off, 0.0) / scale


def judge(target: Target, m: Measure, seen: list[float], evaluations: int) -> Verdict:
    """The verdict on one target; ``seen`` holds the figure of every valid model tried (the why
    of a target not met: no model came near, or the models stepped over the band)."""
    band = f"[{float(target.value - target.tolerance):.6g}, " \
           f"{float(target.value + target.tolerance):.6g}]"
    if m.exact:
        value = m.value if isinstance(m.value, Fraction) else Fraction(m.value)
        off = abs(value - target.value) - target.tolerance
        if off <= 0:
            return Verdict(target, m, True, f"exact value {float(value):.8g} is inside {band} "
                                            "(checked in exact arithmetic)")
        why = f"exact value {float(value):.8g} lies {float(off):.3g} outside {band}"
    else:
        if target.value - target.tolerance <= m.low and m.high <= target.value + target.tolerance:
            return Verdict(target, m, True, f"the 99% interval [{m.low:.6g}, {m.high:.6g}] "
                                            f"lies inside {band}")
        inside = target.value - target.tolerance <= m.value <= target.value + target.tolerance
        if m.low <= target.value + target.tolerance and target.value - target.tolerance <= m.high:
            return Verdict(target, m, None,
                           f"undecided: the 99% interval [{m.low:.6g}, {m.high:.6g}] crosses an "
                           f"edge of {band} (estimate {'inside' if inside else 'outside'}); "
                           "more rounds (--rounds) decide it")
        why = f"the 99% interval [{m.low:.6g}, {m.high:.6g}] lies outside {band}"
    if seen:
        lo, hi = min(seen), max(seen)
        band_lo = float(target.value - target.tolerance)
        band_hi = float(target.value + target.tolerance)
        why += f"; over {evaluations} valid models tried it ranged {lo:.6g} .. {hi:.6g}"
        if band_hi < lo or band_lo > hi:
            why += ", and the band lies outside every value seen: no model in the parameters' " \
                   "ranges came near (widen them or name other parameters)"
        else:
            below = max((v for v in seen if v < band_lo), default=None)
            above = min((v for v in seen if v > band_hi), default=None)
            near = " and ".join(f"{v:.6g}" for v in (below, above) if v is not None)
            why += (f"; the values nearest the band were {near}: the parameters' integer steps "
                    "jump over the band, or the other targets pull away from it")
    return Verdict(target, m, False, why)


@dataclass
class FitResult:
    model: dict[str, Any]
    values: dict[str, int]  # parameter path -> fitted value
    previous: dict[str, int]
    verdicts: list[Verdict]
    evaluations: int
    invalid: int
    stopped: str

    @property
    def all_met(self) -> bool:
        return all(v.met is True for v in self.verdicts)

    def to_json(self) -> dict[str, Any]:
        return {"all_met": self.all_met, "params": self.values, "previous": self.previous,
                "targets": [v.to_json() for v in self.verdicts],
                "evaluations": self.evaluations, "invalid_models": self.invalid,
                "stopped": self.stopped}


def fit(family: str, raw: dict[str, Any], bet: int | None, targets: list[Target],
        bounds: list[Bound], *, rounds: int = ROUNDS, seed: int = 0, maxiter: int = 30,
        popsize: int = 8, bonuses: int = BONUSES,
        on_step: Callable[[dict[str, Any]], None] | None = None) -> FitResult:
    """Fit the parameters ``bounds`` of the model ``raw`` to ``targets``."""
    from scipy.optimize import differential_evolution  # type: ignore[import-untyped]

    if not targets or not bounds:
        raise FitError("a fit needs at least one target and one parameter")
    if len({b.param.path for b in bounds}) < len(bounds):
        raise FitError("a parameter is named twice")
    figures = list(dict.fromkeys(t.figure for t in targets))
    cache: dict[tuple[int, ...], dict[str, Measure] | None] = {}
    seen: dict[str, list[float]] = {f: [] for f in figures}

    def model_at(x: tuple[int, ...]) -> dict[str, Any]:
        out = raw
        for b, v in zip(bounds, x, strict=True):
            out = b.applied(out, v)
        return out

    def evaluate(x: tuple[int, ...]) -> dict[str, Measure] | None:
        if x not in cache:
            try:
                game = game_from_source(family, model_at(x))
                at = bet if bet is not None else game.bets()[0]
                cache[x] = measure(game, at, figures, rounds, seed, bonuses)
            except FitError:
                raise  # a request the game cannot answer, not a model that is not valid
            except (ModelError, ValueError, KeyError, IndexError, ZeroDivisionError,
                    OverflowError):
                cache[x] = None
            found = cache[x]
            if found is not None:
                for f, m in found.items():
                    seen[f].append(float(m.value))
            if on_step is not None:
                on_step({"params": dict(zip((b.param.path for b in bounds), x, strict=True)),
                         "values": None if found is None else
                         {f: float(m.value) for f, m in found.items()}})
        return cache[x]

    def objective(v: np.ndarray) -> float:
        x = tuple(round(float(t)) for t in v)
        found = evaluate(x)
        if found is None:
            return INVALID
        return sum(_miss(found[t.figure], t) ** 2 for t in targets)

    start = tuple(min(max(b.current, b.low), b.high) for b in bounds)
    if evaluate(start) is None:
        named = ", ".join(f"{b.param.path}={v}" for b, v in zip(bounds, start, strict=True))
        raise FitError(f"the model is not valid at the start of the search ({named})")
    stopped = "the search ended (its generations were used up or it converged)"
    if objective(np.array(start, dtype=float)) > 0:
        result = differential_evolution(
            objective, [(b.low, b.high) for b in bounds], integrality=[True] * len(bounds),
            x0=np.array(start, dtype=float), seed=seed, maxiter=maxiter, popsize=popsize,
            polish=False, tol=0, atol=0,
            callback=lambda intermediate_result: bool(intermediate_result.fun == 0))
        best = tuple(round(float(t)) for t in result.x)
        if objective(result.x) == 0:
            stopped = "every target is met"
    else:
        best = start
        stopped = "the model as it is meets every target"
    valid = {x: m for x, m in cache.items() if m is not None}
    # the best model by the objective among all tried (differential evolution's own best)
    best = min(valid, key=lambda x: (objective(np.array(x, dtype=float)), x != best))
    found = valid[best]
    verdicts = []
    for t in targets:
        verdicts.append(judge(t, found[t.figure], seen[t.figure], len(valid)))
    paths = [b.param.path for b in bounds]
    return FitResult(model_at(best), dict(zip(paths, best, strict=True)),
                     {b.param.path: b.current for b in bounds}, verdicts,
                     len(cache), len(cache) - len(valid), stopped)
