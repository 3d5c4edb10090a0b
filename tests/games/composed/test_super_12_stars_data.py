"""Super 12 Stars as a data model (``examples/composed/super-12-stars.json``, no code of its
own) equals the coded game: its exact RTP fraction for fraction, every component of it, the
features' frequencies, and the compiled simulation holds it. Both models, v1 and v2 (the shipped
one), read into the composed format by :mod:`tests.games.composed.super_12_stars_data`."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from slotlab.games import find_game, game_of_data
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.games.super_12_stars.model import model_path
from tests.games.composed.super_12_stars_data import (
    FILE,
    NO_CAP_X,
    composed_raw,
    shipped_source,
)
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds

ROOT = Path(__file__).resolve().parents[3]
BET = 30


def test_the_shipped_file_is_the_coded_models_numbers() -> None:
    assert json.loads((ROOT / FILE).read_text()) == composed_raw(shipped_source())


def test_its_cap_never_binds() -> None:
    """The coded game has no cap; the data model's is above the coded game's rigorous bound
    on any round's win."""
    assert find_game("super-12-stars").max_win_x() <= NO_CAP_X


@cache
def _pair(version: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The exact reports at 30 credits of the coded game and of its data model."""
    raw = json.loads(model_path(version).read_text())
    coded = find_game("super-12-stars") if version == 2 else game_of_data(raw, "v1")
    data = ComposedGame(ComposedModel.from_dict(composed_raw(raw)))
    return coded.exact(BET), data.exact(BET)


def _fraction(report: dict[str, Any], component: str) -> Fraction:
    return Fraction(report["components"][component]["fraction"])


@pytest.mark.parametrize("version", [1, 2])
def test_the_exact_rtp_is_the_coded_games_fraction_for_fraction(version: int) -> None:
    coded, data = _pair(version)
    assert Fraction(data["rtp_fraction"]) == Fraction(coded["rtp_fraction"])


@pytest.mark.parametrize("version", [1, 2])
def test_every_component_is_the_coded_ones(version: int) -> None:
    """Each of the coded game's eleven components is a composed component, or the row of one
    wheel or one scatter in the composed report (which split a component the coded game
    splits too): equal fractions, and equal figures row by row."""
    coded, data = _pair(version)
    c = {k: _fraction(coded, k) for k in coded["components"]}
    assert c["lines"] == _fraction(data, "base_lines")
    assert c["super7_respins"] == _fraction(data, "respins")
    assert c["lucky_stars"] == _fraction(data, "hold_and_win")
    assert c["frenzy"] == _fraction(data, "colour_wheel")
    assert c["golden"] + c["silver"] + c["bonus_pay"] == _fraction(data, "base_scatter")
    assert c["wheel"] + c["super10_direct"] == _fraction(data, "wheel_pays")
    assert c["free_spins"] + c["super10_free_spins"] == _fraction(data, "free_spins")
    assert _fraction(data, "wheel_hold_and_win") == 0
    scatters = {r["symbol"]: r["rtp_base"] for r in data["tables"]["scatters"]}
    assert scatters == {"BO": float(c["bonus_pay"]), "GS": float(c["golden"]),
                        "SS": float(c["silver"])}
    wheels = {r["wheel"]: r for r in data["tables"]["wheels"]}
    assert wheels["Wheel"]["rtp_wheel_pays"] == float(c["wheel"])
    assert wheels["TV"]["rtp_free_spins"] == float(c["free_spins"])
    assert wheels["Super 10 Stars"]["rtp_wheel_pays"] == float(c["super10_direct"])
    assert wheels["Super 10 Stars"]["rtp_free_spins"] == float(c["super10_free_spins"])
    assert wheels["Super 10 Stars"]["rtp_colour_wheel"] == float(c["frenzy"])


@pytest.mark.parametrize("version", [1, 2])
def test_the_features_come_as_often(version: int) -> None:
    """The Wheel, the TV mini game (free spins), the Super 10 and Lucky Stars per round, and the
    Grand (a full Lucky Stars grid)."""
    coded, data = _pair(version)
    freq = {r["feature"]: r["probability"] for r in coded["tables"]["trigger frequencies"]}
    wheels = {r["wheel"]: r["per_round"] for r in data["tables"]["wheels"]}
    assert wheels == {"TV": freq["free_spins"], "Wheel": freq["wheel"],
                      "Super 10 Stars": freq["super10"]}
    assert data["hold_and_win_rate"] == freq["lucky_stars"]
    grand = next(r for r in data["tables"]["base-triggered jackpots"] if r.get("full_grid"))
    assert grand["per_round"] == pytest.approx(freq["grand"], rel=1e-12)


def _data_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_file(ROOT / FILE))


def test_its_compiled_and_traced_rounds_agree() -> None:
    """Round by round from equal streams, component by component (every feature is reached:
    the Frenzy and Lucky Stars come about once in 900 and 200 rounds)."""
    assert _same_rounds(_data_game(), 20_000, 63) > 500


def test_the_compiled_simulation_of_the_file_holds_the_coded_rtp() -> None:
    """2 M rounds of the data model (fixed seed) against the coded game's exact RTP, 99.9 %
    interval (about +- 2.5 points: the Frenzy and Lucky Stars make it a wide game)."""
    ok, text = _kernel_rtp_within(_data_game(), 2_000_000, 61)
    assert ok, text


@pytest.mark.slow
def test_the_compiled_simulation_of_the_file_holds_the_coded_rtp_long() -> None:
    """200 M rounds (fixed seed), 99.9 % interval (about +- 0.25 points)."""
    ok, text = _kernel_rtp_within(_data_game(), 200_000_000, 62)
    assert ok, text


def test_the_file_works_by_path_like_any_model() -> None:
    """A lab's check: the file loads by path as a composed game, with the coded game's RTP."""
    game = game_of_data(json.loads((ROOT / FILE).read_text()), FILE)
    assert isinstance(game, ComposedGame)
    assert game.theoretical_rtp() == pytest.approx(find_game("super-12-stars").theoretical_rtp(),
                                                   abs=1e-15)
