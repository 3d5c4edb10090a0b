"""Super 12 Stars' features written with the composed mechanics equal the coded game's exact
parts, fraction for fraction: Lucky Stars (a hold and win started by the Super 12's three cells,
Minor and Major stars, a Grand for a full grid), the Frenzy Wheel (a colour wheel) and the free
spins' mini game (a wheel whose segments give the spins and the multiplier). The composed model
takes every number from the coded model (pay unit: the line bet, 30 to the total bet), so a
change there follows here.

These are the first parts of the coded game as a data model; a model has one wheel so far, so
the Wheel (three Wheel symbols) and the Super 10 reel wait for a list of wheels, and the Super 10
free spins for a second free-spin reel set.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from slotlab.games.composed.exact import _colour_totals, _Grid
from slotlab.games.composed.model import ComposedModel
from slotlab.games.super_12_stars.exact import frenzy_expectation, lucky_stars
from slotlab.games.super_12_stars.model import PAY_DIVISOR, Model, load_model
from tests.games.composed.conftest import shipped_raw


def _composed(s12: Model) -> ComposedModel:
    """Lucky Coin Link's reels with Super 12 Stars' feature tables, in line bets."""
    raw: dict[str, Any] = shipped_raw()
    raw["bet"] = {"divisor": PAY_DIVISOR, "levels": [1]}
    p = s12.lucky_p
    stars = s12.star_values
    jackpots = {"MINOR": "Minor", "MAJOR": "Major"}
    raw["hold_and_win"] = {
        "symbol": "COIN", "trigger": 6, "respins": s12.lucky_respins,
        "landing": {"nothing": p.denominator - p.numerator, "coin": p.numerator},
        "coins": [{"weight": w, "jackpot": jackpots[label]} if label in jackpots else
                  {"weight": w, "value": int(units)}
                  for label, w, units in zip(stars.values, stars.weights, s12.star_units,
                                             strict=True)],
        "jackpots": {"Minor": s12.minor_units, "Major": s12.major_units,
                     "Grand": s12.grand_units},
        "full_grid": "Grand"}
    frenzy = s12.frenzy
    raw["colour_wheel"] = {"colours": list(s12.colours), "limit": s12.frenzy_limit,
                           "segments": [{"weight": w, "colour": c, "multiplier": v}
                                        for (v, c), w in zip(frenzy.values, frenzy.weights,
                                                             strict=True)]}
    tv = [{"weight": ws * wm, "feature": "free_spins", "spins": n, "multiplier": m}
          for n, ws in zip(s12.tv_spins.values, s12.tv_spins.weights, strict=True)
          for m, wm in zip(s12.tv_multiplier.values, s12.tv_multiplier.weights, strict=True)]
    raw["wheel"] = {"segments": [*tv, {"weight": 1, "feature": "colour_wheel"}]}
    return ComposedModel.from_dict(raw)


@pytest.fixture(params=[1, 2], ids=["v1", "v2"], scope="module")
def s12(request: pytest.FixtureRequest) -> Model:
    return load_model(request.param)


def test_lucky_stars_is_a_hold_and_win_with_a_full_grid_jackpot(s12: Model) -> None:
    """Three stars held to start (the Super 12's cells as coins), 3 respins reset on each
    landing, Minor and Major as fixed stars, the Grand on a full grid: the same expected
    award."""
    grid = _Grid(_composed(s12))
    coded = lucky_stars(s12)
    assert grid.value(s12.lucky_initial) == coded["award"]
    assert grid.p_full(s12.lucky_initial) == coded["p_grand"]


def test_the_frenzy_wheel_is_a_colour_wheel(s12: Model) -> None:
    boxes = [(int(v), c, p) for (v, c), p in zip(s12.frenzy.values, s12.frenzy.probabilities(),
                                                 strict=True)]
    totals = _colour_totals(_composed(s12))
    for colour in s12.colours:
        assert totals[colour] == frenzy_expectation(boxes, colour, s12.frenzy_limit)


def test_the_free_spins_mini_game_is_a_wheel_of_spins_and_multipliers(s12: Model) -> None:
    """Its segments, one per (spins, multiplier), weigh the product of the two draws: each
    pair has the coded game's probability, and E[spins x multiplier] is the same."""
    wheel = _composed(s12).features.wheel
    assert wheel is not None
    drawn = {(seg.spins, seg.multiplier): p for seg, p in
             zip(wheel.values, wheel.probabilities(), strict=True) if seg.spins}
    p_free = sum(drawn.values(), Fraction(0))
    coded = {(n, m): pn * pm
             for n, pn in zip(s12.tv_spins.values, s12.tv_spins.probabilities(), strict=True)
             for m, pm in zip(s12.tv_multiplier.values, s12.tv_multiplier.probabilities(),
                              strict=True)}
    assert {k: v / p_free for k, v in drawn.items()} == coded
