"""``slotlab tune``: find the value of one numeric model parameter that gives a target RTP.

The parameter is named by its path in the model file (``bonus.land.prize``, ``line_pays.SB.5``,
``bonus.prizes_x_bet.0.1``). Its values are searched on a grid: integers for an integer
parameter, ``k / denominator`` for a ``"p/q"`` probability (``denominator`` 100,000 unless told).
The search keeps a bracket ``[lo, hi]`` whose RTPs lie either side of the target and shrinks it
by regula falsi (the Illinois variant, a bisection that cuts where the line through the two ends
crosses the target, which needs a few evaluations where plain halving needs a dozen), and
halves it when an interpolated cut would not shrink it.

Every evaluation uses the same seed, so two values are compared on common random numbers and
the RTP is a steady function of the parameter even where it is simulated. The RTP is the game's
composed RTP (:meth:`Superstars.exact`: exact base game + Bonus Games simulated per trigger
class) at ``bonuses`` Bonus Games; prove the result with a larger run on a fresh seed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction
from typing import Any

DEFAULT_DENOMINATOR = 100_000


def get_path(raw: dict[str, Any], path: str) -> Any:
    node: Any = raw
    for key in path.split("."):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def set_path(raw: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``raw`` with the parameter at ``path`` set to ``value``."""
    out = copy.deepcopy(raw)
    keys = path.split(".")
    node: Any = out
    for key in keys[:-1]:
        node = node[int(key)] if isinstance(node, list) else node[key]
    last = keys[-1]
    if isinstance(node, list):
        node[int(last)] = value
    elif last in node:
        node[last] = value
    else:
        raise KeyError(last)
    return out


class Grid:
    """How a parameter's grid points ``k`` map to model values (and back)."""

    def __init__(self, current: Any, denominator: int) -> None:
        if isinstance(current, bool) or not isinstance(current, int | str):
            raise ValueError(f"the parameter must be an integer or a 'p/q' string, got "
                             f"{current!r}")
        self.fraction = isinstance(current, str)
        self.denominator = denominator if self.fraction else 1
        if self.fraction:
            try:
                self.current = Fraction(current)
            except (ValueError, ZeroDivisionError) as exc:
                raise ValueError(f"{current!r} is not a fraction like '13/200'") from exc
        else:
            self.current = Fraction(current)

    def value(self, k: int) -> int | str:
        if not self.fraction:
            return k
        f = Fraction(k, self.denominator)
        return f"{f.numerator}/{f.denominator}"

    def point(self, x: Fraction) -> int:
        return round(x * self.denominator)


def tune(
    raw: dict[str, Any], path: str, target: float, evaluate: Callable[[dict[str, Any]], float],
    lo: Fraction | None = None, hi: Fraction | None = None,
    denominator: int = DEFAULT_DENOMINATOR, max_evaluations: int = 12,
    tolerance: float = 0.0001, on_step: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Search the value of ``path`` whose ``evaluate(model)`` RTP is nearest ``target``.

    ``lo``/``hi`` bound the search (default: half and twice the current value); it stops once
    an RTP is within ``tolerance`` of the target (0.0001 = 0.01 percentage points), the bracket
    is one grid step wide, or after ``max_evaluations``. Returns the best value, its RTP, the
    model with it, and every evaluation.
    """
    grid = Grid(get_path(raw, path), denominator)
    a = grid.point(lo if lo is not None else grid.current / 2)
    b = grid.point(hi if hi is not None else grid.current * 2)
    if a >= b:
        raise ValueError(f"empty search range [{a}, {b}] on the parameter's grid")
    steps: list[dict[str, Any]] = []
    seen: dict[int, float] = {}

    def f(k: int) -> float:
        if k not in seen:
            model = set_path(raw, path, grid.value(k))
            seen[k] = evaluate(model) - target
            step = {"value": grid.value(k), "rtp": seen[k] + target}
            steps.append(step)
            if on_step is not None:
                on_step(step)
        return seen[k]

    fa, fb = f(a), f(b)
    if fa * fb > 0:
        raise ValueError(f"the target {target} is not between the RTPs at {grid.value(a)} "
                         f"({fa + target:.6f}) and {grid.value(b)} ({fb + target:.6f}); "
                         "widen --lo/--hi")
    side = 0  # Illinois: halve the weight of an end kept twice in a row
    while (b - a > 1 and len(steps) < max_evaluations
           and min(abs(x) for x in seen.values()) > tolerance):
        wa, wb = fa, fb
        if side == -1:
            wb = fb / 2
        elif side == 1:
            wa = fa / 2
        cut = round(a - wa * (b - a) / (wb - wa)) if wb != wa else (a + b) // 2
        if not a < cut < b:
            cut = (a + b) // 2
        fc = f(cut)
        if fc == 0:
            a = b = cut
            break
        if fa * fc < 0:
            b, fb = cut, fc
            side = 1 if side in (0, 1) else 0
        else:
            a, fa = cut, fc
            side = -1 if side in (0, -1) else 0
    best = min(seen, key=lambda k: abs(seen[k]))
    return {"param": path, "target": target, "value": grid.value(best),
            "rtp": seen[best] + target, "evaluations": steps,
            "model": set_path(raw, path, grid.value(best))}


def superstars_evaluator(bonuses: int, seed: int) -> Callable[[dict[str, Any]], float]:
    """The composed RTP of a Superstars model dict (exact lines + simulated Bonus Games)."""
    from .game import Superstars
    from .model import load_model

    def evaluate(raw: dict[str, Any]) -> float:
        game = Superstars(load_model(raw))
        return float(game.exact(bonuses=bonuses, seed=seed)["rtp"])

    return evaluate
