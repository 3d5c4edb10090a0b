"""``slotlab tune``: change one parameter of any game's model to hit a target RTP.

The parameter is a path into the model file: ``pays.CHERRY.3`` (a pay), ``strips.base.0.7``
(a weight or any number in a list), ``bonus.land.prize`` (a ``"p/q"`` probability), or a
strip followed by a symbol, ``strips.base.0.CHERRY``, for the number of that symbol's stops on
the strip (copies are added next to the ones there, or taken off from the end).

Where the game's RTP is exact (a ``rtp_fraction`` in its exact report) the search is exact: an
RTP linear in the parameter (a pay) is solved as a fraction in one step; otherwise the target
is bracketed and bisected, over the integers for an integer parameter (the nearest RTP an
integer gives is reported beside the target), over the rationals for a fraction or a decimal.
A target outside every RTP the parameter can give is said to be out of reach, with the range
seen. Where the RTP is simulated (Superstars' Bonus Game) the game's own tuner runs on common
random numbers, and the RTP reached comes with its 99 % interval.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from slotlab.games import AnyGame, game_from_source
from slotlab.model import ModelError

Value = int | float | str
MAX_DOUBLINGS = 40  # bracket search: the parameter grows to about 2^40 times its step at most
RATIONAL_STEPS = 200  # bisection steps on a fraction or decimal parameter


class TuneError(ValueError):
    """The request cannot be carried out (a bad path, a parameter that is not a number)."""


class _Invalid(Exception):
    """The model is not valid with this value of the parameter."""

    def __init__(self, x: Fraction, where: str = "with") -> None:
        super().__init__(x)
        self.x, self.where = x, where


class UnreachableTarget(TuneError):
    """No value of the parameter gives the target RTP; the message gives the range seen."""


# -- the parameter ------------------------------------------------------------------------


def _step_into(node: Any, key: str, where: str) -> Any:
    if isinstance(node, dict):
        if key not in node:
            keys = ", ".join(map(str, list(node)[:12]))
            raise TuneError(f"no key {key!r} at {where or 'the top level'} (keys: {keys})")
        return node[key]
    if isinstance(node, list):
        if not key.lstrip("-").isdigit():
            raise TuneError(f"{where} is a list: {key!r} is not an index")
        i = int(key)
        if not -len(node) <= i < len(node):
            raise TuneError(f"index {i} is outside {where} (length {len(node)})")
        return node[i]
    raise TuneError(f"{where} is a {type(node).__name__}, not a table: cannot look up {key!r}")


@dataclass
class Param:
    """One tunable number of a model, read and written by its path."""

    path: str
    kind: str  # "int", "fraction" ("p/q" text), "decimal" (float), "count" (stops on a strip)
    current: Fraction

    @classmethod
    def at(cls, raw: dict[str, Any], path: str) -> Param:
        keys = path.split(".")
        if not path or any(not k for k in keys):
            raise TuneError(f"{path!r} is not a dotted path like pays.CHERRY.3")
        node: Any = raw
        for n, key in enumerate(keys):
            where = ".".join(keys[:n])
            if (n == len(keys) - 1 and isinstance(node, list) and node
                    and all(isinstance(s, str) for s in node) and not key.lstrip("-").isdigit()):
                if key not in node:
                    raise TuneError(f"{key!r} is not on {where}: a count can be tuned only for "
                                    "a symbol the strip carries")
                return cls(path, "count", Fraction(node.count(key)))
            node = _step_into(node, key, where)
        if isinstance(node, bool) or not isinstance(node, int | float | str):
            raise TuneError(f"{path} is a {type(node).__name__}, not a number to tune")
        if isinstance(node, int):
            return cls(path, "int", Fraction(node))
        if isinstance(node, float):
            return cls(path, "decimal", Fraction(str(node)))  # as written, not as binary
        try:
            return cls(path, "fraction", Fraction(node))
        except (ValueError, ZeroDivisionError) as exc:
            raise TuneError(f"{path} is {node!r}, not a number to tune") from exc

    @property
    def integral(self) -> bool:
        return self.kind in ("int", "count")

    @property
    def upper(self) -> Fraction | None:
        """A fraction parameter is a probability when it is one now."""
        return Fraction(1) if self.kind == "fraction" and self.current <= 1 else None

    def snap(self, x: Fraction) -> Fraction:
        """``x`` on the parameter's grid: integers, or decimals two places finer than the value
        as written (a model's decimals become fractions; long ones overflow its weights)."""
        if self.integral:
            return Fraction(math.floor(x))
        if self.kind == "decimal":
            return Fraction(round(x, self.places))
        return x

    @property
    def places(self) -> int:
        """Decimal places a decimal parameter is tuned in: two more than it is written with."""
        text = repr(float(self.current))
        digits = len(text.split(".")[1]) if "." in text and "e" not in text else 6
        return digits + 2

    def text(self, x: Fraction) -> Value:
        if self.integral:
            return int(x)
        if self.kind == "fraction":
            return f"{x.numerator}/{x.denominator}"
        return float(x)

    def applied(self, raw: dict[str, Any], x: Fraction) -> dict[str, Any]:
        out = copy.deepcopy(raw)
        keys = self.path.split(".")
        node: Any = out
        for key in keys[:-1]:
            node = node[int(key)] if isinstance(node, list) else node[key]
        last = keys[-1]
        if self.kind == "count":
            _set_count(node, last, int(x))
        elif isinstance(node, list):
            node[int(last)] = self.text(x)
        else:
            node[last] = self.text(x)
        return out


def _set_count(strip: list[str], symbol: str, n: int) -> None:
    """Make ``symbol`` appear ``n`` times on ``strip``: new copies go right after existing
    ones (spread over them from the end), surplus ones come off from the end."""
    have = [i for i, s in enumerate(strip) if s == symbol]
    if n < len(have):
        for i in reversed(have[n:]):
            del strip[i]
        return
    for k in range(n - len(have)):
        at = have[len(have) - 1 - (k % len(have))]
        strip.insert(at + 1, symbol)


# -- exact search -------------------------------------------------------------------------


def exact_evaluator(family: str, bet: int | None) -> Callable[[dict[str, Any]], Fraction]:
    """The exact RTP of a model of ``family`` as a fraction (at ``bet``, default the least)."""

    def rtp(raw: dict[str, Any]) -> Fraction:
        game = game_from_source(family, raw)
        if game.exact is None:
            raise TuneError(f"{game.id} has no exact RTP")
        report = game.exact(bet if bet is not None else game.bets()[0])
        return Fraction(report["rtp_fraction"])

    return rtp


def simplest_between(a: Fraction, b: Fraction) -> Fraction:
    """The fraction with the least denominator in ``[a, b]`` (Stern-Brocot descent)."""
    if a > b:
        a, b = b, a
    fl = math.floor(a)
    if fl == a or fl + 1 <= b:
        return Fraction(fl if fl == a else fl + 1)
    rest = simplest_between(1 / (b - fl), 1 / (a - fl))
    return fl + 1 / rest


def tune_exact(raw: dict[str, Any], path: str, target: Fraction,
               evaluate: Callable[[dict[str, Any]], Fraction],
               lo: Fraction | None = None, hi: Fraction | None = None,
               on_step: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The value of ``path`` whose exact RTP is ``target`` (or nearest it, for an integer)."""
    param = Param.at(raw, path)
    seen: dict[Fraction, Fraction | None] = {}
    errors: dict[Fraction, str] = {}
    steps: list[dict[str, Any]] = []

    def rtp(x: Fraction) -> Fraction | None:
        """The RTP at ``x``, or None where the model is not valid with that value."""
        if x < 0 or (param.upper is not None and x > param.upper):
            return None
        if x not in seen:
            try:
                seen[x] = evaluate(param.applied(raw, x))
            except (ModelError, ValueError, KeyError, IndexError, ZeroDivisionError,
                    OverflowError) as exc:
                seen[x] = None
                errors[x] = " ".join(str(exc).removeprefix("<dict>: ").split())
            value = seen[x]
            step = {"value": param.text(x), "rtp": None if value is None else float(value)}
            steps.append(step)
            if on_step is not None:
                on_step(step)
        return seen[x]

    def result(x: Fraction, method: str, note: str = "") -> dict[str, Any]:
        value = seen[x]
        assert value is not None
        return {"param": path, "kind": param.kind, "target": float(target),
                "value": param.text(x), "previous": param.text(param.current),
                "rtp": float(value), "rtp_fraction": f"{value.numerator}/{value.denominator}",
                "exact": True, "hit": value == target, "method": method, "note": note,
                "evaluations": steps, "model": param.applied(raw, x)}

    x0 = param.current
    f0 = rtp(x0)
    if f0 is None:
        raise TuneError(f"the model is not valid as it is: {path} = {param.text(x0)}")
    if f0 == target:
        return result(x0, "already at the target")
    try:
        return _search(param, rtp, x0, f0, target, lo, hi, result)
    except _Invalid as bad:
        shown = x0 if bad.where == "next to" else bad.x
        reason = errors.get(bad.x, "a value below zero or a probability over 1")
        raise TuneError(f"the model is not valid {bad.where} {path} = {param.text(shown)} "
                        f"({reason})") from None


def _search(param: Param, rtp: Callable[[Fraction], Fraction | None], x0: Fraction,
            f0: Fraction, target: Fraction, lo: Fraction | None, hi: Fraction | None,
            result: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    path = param.path
    if lo is not None and hi is not None:
        a, b = (param.snap(lo), param.snap(hi)) if lo < hi else (param.snap(hi), param.snap(lo))
    else:
        a, b = _bracket(param, rtp, x0, f0, target)
    fa, fb = rtp(a), rtp(b)
    if fa is None or fb is None:
        raise _Invalid(a if fa is None else b)
    if (fa - target) * (fb - target) > 0:
        low_rtp, high_rtp = sorted((fa, fb))
        raise UnreachableTarget(
            f"the target RTP {float(target):.6%} cannot be reached with {path}: values from "
            f"{param.text(a)} to {param.text(b)} give RTPs from {float(low_rtp):.6%} to "
            f"{float(high_rtp):.6%}, and past them the model is not valid or the search "
            "range ends")
    if not param.integral:
        linear = _linear_solve(param, rtp, a, b, target)
        if linear is not None:
            return result(linear, "linear solve (exact)")
    elif b - a > 1 and fa != fb:  # a pay: the line's crossing brackets the answer at once
        x = a + (target - fa) * (b - a) / (fb - fa)
        low, high = Fraction(math.floor(x)), Fraction(math.ceil(x))
        fl, fh = rtp(low), rtp(high)
        if fl is not None and fh is not None and a <= low <= high <= b:
            if fl == target:
                return result(low, "linear solve (exact)")
            if fh == target:
                return result(high, "linear solve (exact)")
            if (fl - target) * (fh - target) < 0:
                a, b = low, high
    return _bisect(param, rtp, a, b, target, result)


def _bracket(param: Param, rtp: Callable[[Fraction], Fraction | None], x0: Fraction,
             f0: Fraction, target: Fraction) -> tuple[Fraction, Fraction]:
    """Two values whose RTPs lie either side of the target (or the ends of the domain seen)."""
    unit = Fraction(1) if param.integral else param.snap(abs(x0) / 8 or Fraction(1, 1000))
    up = rtp(param.snap(x0 + unit))
    down = rtp(param.snap(x0 - unit)) if x0 - unit >= 0 else None
    near = up if up is not None else down
    if near is None or near == f0:
        other = up if up is not None else down
        if other is not None and other == f0:
            raise UnreachableTarget(f"the RTP does not change with {param.path} near "
                                    f"{param.text(x0)}: it cannot reach the target")
        raise _Invalid(param.snap(x0 + unit) if up is None else x0, "next to")
    rising = (up - f0 > 0) if up is not None else (f0 - down > 0)  # type: ignore[operator]
    direction = 1 if (target > f0) == rising else -1
    best = x0
    step = unit
    for _ in range(MAX_DOUBLINGS):
        x = param.snap(x0 + direction * step)
        if x < 0:
            x = Fraction(0)
        if param.upper is not None and x > param.upper:
            x = param.upper
        fx = rtp(x)
        if fx is None:  # the model stops being valid: search between the last good value and it
            lo_ok, hi_bad = best, x
            for _ in range(60):
                mid = param.snap((lo_ok + hi_bad) / 2)
                if param.integral and direction < 0:
                    mid = Fraction(math.ceil((lo_ok + hi_bad) / 2))
                if mid in (lo_ok, hi_bad):
                    break
                if rtp(mid) is None:
                    hi_bad = mid
                else:
                    lo_ok = mid
            return (min(x0, lo_ok), max(x0, lo_ok))
        if (fx - target) * (f0 - target) <= 0:
            return (min(best, x), max(best, x))
        best = x
        if x == 0 or x == param.upper:
            break
        step *= 2
    return (min(x0, best), max(x0, best))


def _linear_solve(param: Param, rtp: Callable[[Fraction], Fraction | None], a: Fraction,
                  b: Fraction, target: Fraction) -> Fraction | None:
    """Where the RTP is a straight line in the parameter (a pay), the value that hits the
    target exactly; None where three points say it is not a line."""
    fa, fb = rtp(a), rtp(b)
    if fa is None or fb is None or fa == fb:
        return None
    x = param.snap(a + (target - fa) * (b - a) / (fb - fa))
    fx = rtp(x)
    return x if fx == target else None


def _bisect(param: Param, rtp: Callable[[Fraction], Fraction | None], a: Fraction,
            b: Fraction, target: Fraction,
            result: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    fa = rtp(a)
    assert fa is not None
    steps = 0
    while steps < RATIONAL_STEPS:
        if param.integral and b - a <= 1:
            break
        mid = Fraction(math.floor((a + b) / 2)) if param.integral else param.snap(
            simplest_between(a + (b - a) / 4, b - (b - a) / 4))
        if mid in (a, b):  # the grid is as fine as it goes here
            break
        fm = rtp(mid)
        if fm is None:
            raise _Invalid(mid)
        if fm == target:
            return result(mid, "bisection (exact)", "")
        if (fm - target) * (fa - target) < 0:
            b = mid
        else:
            a, fa = mid, fm
        steps += 1
        if not param.integral and b - a < Fraction(1, 10**15) * max(Fraction(1), abs(a)):
            break
    ends = [x for x in (a, b) if rtp(x) is not None]
    best = min(ends, key=lambda x: abs(rtp(x) - target))  # type: ignore[operator]
    if param.integral:
        fa_, fb_ = rtp(a), rtp(b)
        assert fa_ is not None and fb_ is not None
        note = (f"no integer value gives the target exactly; the nearest are "
                f"{param.text(a)} ({float(fa_):.6%}) and {param.text(b)} ({float(fb_):.6%})")
        return result(best, "bisection over the integers", note)
    return result(best, "bisection over the rationals",
                  f"the RTP reached is within {float(abs(rtp(best) - target)):.3g} of the "  # type: ignore[operator]
                  "target")


# -- simulated search (Superstars) ---------------------------------------------------------


def tune_simulated(game: AnyGame, raw: dict[str, Any], path: str, target: float, bonuses: int,
                   seed: int, lo: Fraction | None, hi: Fraction | None, tolerance: float,
                   on_step: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The game's own tuner on its composed RTP, then the 99 % interval at the value found."""
    from slotlab.games.superstars.tune import tune as run_tune

    if game.tuner is None:
        raise TuneError(f"{game.id} has no tuner of its simulated RTP")
    try:
        param = Param.at(raw, path)  # the same clear errors for a bad path
        out = run_tune(raw, path, target, game.tuner(bonuses, seed), lo=lo, hi=hi,
                       tolerance=tolerance, on_step=on_step)
    except (KeyError, IndexError) as exc:
        raise TuneError(f"{path}: {exc}") from exc
    except TuneError:
        raise
    except ValueError as exc:
        if "not between" in str(exc):
            raise UnreachableTarget(f"the target RTP {target:.6%} cannot be reached with {path} "
                                    f"in the range searched: {exc}") from exc
        raise TuneError(str(exc)) from exc
    tuned = type(game).from_data(out["model"])
    if tuned.composed is None:
        raise TuneError(f"{game.id} has no simulated RTP to tune")
    report = tuned.composed(bonuses=bonuses, seed=seed)
    out.update({"exact": False, "ci99": report["ci99"], "previous": param.text(param.current),
                "note": f"simulated: {bonuses:,} Bonus Games per evaluation on seed {seed}; "
                        "prove it with a larger run on a fresh seed"})
    return out
