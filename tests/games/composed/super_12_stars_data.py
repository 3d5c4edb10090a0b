"""Super 12 Stars written as a composed model: the coded game's model file (its numbers and
strips) read into the composed format, feature by feature. The shipped file
``examples/composed/super-12-stars.json`` is this function's output for the shipped v2
model (a test holds them equal); ``python -m tests.games.composed.super_12_stars_data`` writes it
again after the coded model changes.

The mapping, in pay units of one line bet (30 to the total bet, as the coded game's):

* lines, pays, the Wild (it stands in for the eight paying symbols) and the strips as they are;
  the Bonus symbol is the line keys' scatter (three pay the total bet and start the TV mini
  game); the golden and silver Super 5 Stars are paying ``scatters``;
* the Super 7 is the expanding symbol with one respin;
* the TV mini game is the wheel the scatters' award spins, one segment per (spins, multiplier)
  weighted by the product of the two draws' weights; each segment gives its own spins, again on
  each retrigger, up to 50;
* the Wheel is a wheel three Wheel symbols spin, paying its segment in line bets;
* the Super 10 is a wheel three Super 10 cells spin (it stands only on reel 3, three stops tall:
  three in view is the whole symbol), its segments paying x total bet, starting the Frenzy Wheel
  (the colour wheel) or free spins on the ``super10_free`` reels;
* the Super 12 is a whole-reel symbol that starts Lucky Stars, a hold and win whose coins (stars)
  land nowhere on the reels (``STAR``), with Minor and Major stars and a Grand for a full grid.

Weights the coded model gives as decimals (0.5, 2.5) are scaled to whole numbers, table by
table: the same probabilities.
"""

from __future__ import annotations

import json
import math
import re
import sys
from fractions import Fraction
from typing import Any

from slotlab.games.super_12_stars.model import model_path

LINE_BETS = 30  # the coded game's pay unit is the line bet; a total bet is 30 of them
PAYING = ["SE", "BA", "BE", "GR", "PL", "OR", "LE", "CH"]
FILE = "examples/composed/super-12-stars.json"
# Above the coded game's rigorous bound on any round's win (``max_win_x()``, 226,821x for v2):
# the composed format needs a cap, and this one never binds (a test holds it above the bound).
NO_CAP_X = 250_000


def _whole(weights: list[Any]) -> list[int]:
    """Decimal weights scaled to whole numbers, in proportion."""
    fractions = [Fraction(str(w)) for w in weights]
    scale = math.lcm(*(f.denominator for f in fractions))
    return [int(f * scale) for f in fractions]


def _units(x_total_bet: Any) -> int:
    units = Fraction(str(x_total_bet)) * LINE_BETS
    assert units.denominator == 1, x_total_bet
    return int(units)


def composed_raw(s12: dict[str, Any]) -> dict[str, Any]:
    """The composed model of the coded model file ``s12``."""
    fs = s12["fs_minigame"]
    spins, spin_w = zip(*fs["spins_weight"], strict=True)
    mults, mult_w = zip(*fs["multiplier_weight"], strict=True)
    tv_weights = _whole([Fraction(str(a)) * Fraction(str(b)) for a in spin_w for b in mult_w])
    tv = [{"weight": w, "feature": "free_spins", "spins": n, "multiplier": m}
          for w, (n, m) in zip(tv_weights, [(n, m) for n in spins for m in mults], strict=True)]
    wheel = s12["wheel_segments_x_line_bet_weight"]
    s10 = s12["super10_reel"]
    s10_segments = []
    for (kind, value, _w), weight in zip(s10, _whole([w for *_kv, w in s10]), strict=True):
        if kind == "DIRECT":
            s10_segments.append({"weight": weight, "pay": _units(value)})
        elif kind == "FRENZY":
            s10_segments.append({"weight": weight, "feature": "colour_wheel"})
        else:
            s10_segments.append({"weight": weight, "feature": "free_spins", "spins": value,
                                 "strips": "super10_free"})
    fw = s12["frenzy_wheel"]
    ls = s12["lucky_stars"]
    star_values, star_w = zip(*ls["star_values_x_total_bet_weight"], strict=True)
    named = {"MINOR": "Minor", "MAJOR": "Major"}
    p = Fraction(str(ls["p_star_per_empty_cell"]))
    strips = s12["reel_strips"]
    return {
        "family": "composed", "format": "slotlab.composed/1",
        "id": "super-12-stars-data", "name": "Super 12 Stars (data model)",
        "reels": 5, "rows": 3,
        "symbols": [{"id": k, "name": v} for k, v in s12["symbols"].items()]
        + [{"id": "STAR", "name": "Star"}],
        "bet": {"divisor": LINE_BETS, "levels": s12["bet"]["credits_per_line"]},
        "lines": s12["lines"],
        "pays": {sym: {str(n): pay for n, pay in zip((3, 4, 5), pays, strict=True)}
                 for sym, pays in s12["line_pays_x_line_bet"].items()},
        "wild": {"symbol": "W", "substitutes": PAYING},
        "scatter": {"symbol": "BO", "pays": {"3": _units(s12["bonus_trigger_pay_x_total_bet"])}},
        "scatters": [
            {"symbol": "GS", "pays": {n: _units(x) for n, x in
                                      s12["golden_scatter_pays_x_total_bet"].items()}},
            {"symbol": "SS", "pays": {n: _units(x) for n, x in
                                      s12["silver_scatter_pays_x_total_bet"].items()}}],
        "strips": {"base": strips["base"], "free": strips["free"],
                   "super10_free": strips["super10_free"]},
        # the award starts the TV mini game, whose segment gives the spins
        "free_spins": {"awards": {"3": min(spins)}, "multiplier": 1, "retrigger": True,
                       "max_spins": fs["max_total_spins"], "strips": "free"},
        "expanding": {"symbol": "S7", "respins": 1},
        "wheel": {"name": "TV", "segments": tv},
        "wheels": [
            {"name": "Wheel", "trigger": {"symbol": "WH", "count": 3},
             "segments": [{"weight": w, "pay": v}
                          for (v, _w), w in zip(wheel, _whole([w for _v, w in wheel]),
                                                strict=True)]},
            {"name": "Super 10 Stars", "trigger": {"symbol": "T10", "count": 3},
             "segments": s10_segments}],
        "colour_wheel": {
            "name": "Frenzy Wheel", "colours": fw["colours"], "limit": fw["stop_when_total_gt"],
            "segments": [{"weight": w, "colour": c, "multiplier": v} for c in fw["colours"]
                         for v, w in zip(fw["values_per_colour"], _whole(fw["weights"]),
                                         strict=True)]},
        "whole_reel": {"symbol": "T12"},
        "hold_and_win": {
            "name": "Lucky Stars", "symbol": "STAR", "trigger": ls["cells"],
            "respins": ls["respins"],
            "landing": {"nothing": p.denominator - p.numerator, "coin": p.numerator},
            "coins": [{"weight": w, "jackpot": named[v]} if v in named else
                      {"weight": w, "value": _units(v)}
                      for v, w in zip(star_values, _whole(list(star_w)), strict=True)],
            "jackpots": {"Minor": _units(ls["MINOR"]), "Major": _units(ls["MAJOR"]),
                         "Grand": _units(ls["GRAND"])},
            "full_grid": "Grand"},
        "max_win_x": NO_CAP_X,
        "rules": [],
    }


def shipped_source() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(model_path(2).read_text())
    return data


def to_text(raw: dict[str, Any]) -> str:
    """The model as JSON, a list of plain values (a strip, a line) or an object of them (a
    segment) on one line."""
    text = json.dumps(raw, indent=1)
    for pattern, (start, end) in ((r"\[\s*([^\[\]{}]*?)\s*\]", "[]"),
                                  (r"\{\s*([^\[\]{}]*?)\s*\}", "{}")):
        text = re.sub(pattern, lambda m, s=start, e=end: s + ", ".join(
            x.strip() for x in m.group(1).split(",")) + e, text)
    return text + "\n"


if __name__ == "__main__":
    sys.stdout.write(to_text(composed_raw(shipped_source())))
