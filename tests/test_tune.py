"""slotlab tune on every game: exact where the RTP is exact, the simulated tuner elsewhere, and
clear answers for a target out of reach or a bad parameter path."""

from __future__ import annotations

import json
import re
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import AnyGame, find_game
from slotlab.tune import (
    Param,
    TuneError,
    UnreachableTarget,
    exact_evaluator,
    simplest_between,
    tune_exact,
)

GAMES = Path(__file__).resolve().parents[1] / "src" / "slotlab" / "games"


def load_model(ref: str) -> tuple[str, dict[str, Any], AnyGame]:
    game = find_game(ref)
    return (*game.model_source(), game)


def rtp_with(ref: str, path: str, value: int | float | str) -> Fraction:
    family, raw, _ = load_model(ref)
    param = Param.at(raw, path)
    return exact_evaluator(family, None)(param.applied(raw, Fraction(str(value))))


def test_a_line_pay_is_solved_exactly_when_an_integer_hits_the_target():
    target = rtp_with("fruit-5x3", "pays.CHERRY.3", 5)  # an RTP an integer pay gives exactly
    family, raw, _ = load_model("fruit-5x3")
    out = tune_exact(raw, "pays.CHERRY.3", target, exact_evaluator(family, None))
    assert out["value"] == 5 and out["hit"] is True
    assert Fraction(out["rtp_fraction"]) == target
    assert out["method"] == "linear solve (exact)" and len(out["evaluations"]) <= 6
    assert out["model"]["pays"]["CHERRY"]["3"] == 5 and raw["pays"]["CHERRY"]["3"] == 2


def test_a_target_between_two_integers_gets_the_nearest_and_says_so():
    family, raw, _ = load_model("classic-3x3")
    low, high = rtp_with("classic-3x3", "pays.SEVEN.3", 100), rtp_with(
        "classic-3x3", "pays.SEVEN.3", 101)
    target = low + (high - low) / 3  # nearer 100
    out = tune_exact(raw, "pays.SEVEN.3", target, exact_evaluator(family, None))
    assert out["value"] == 100 and out["hit"] is False
    assert "100" in out["note"] and "101" in out["note"]


def test_the_count_of_a_symbol_on_a_strip():
    family, raw, _ = load_model("fruit-5x3")
    strip = raw["strips"]["base"][0]
    param = Param.at(raw, "strips.base.0.CHERRY")
    assert param.kind == "count" and param.current == strip.count("CHERRY")
    more = param.applied(raw, param.current + 3)["strips"]["base"][0]
    assert more.count("CHERRY") == strip.count("CHERRY") + 3 and len(more) == len(strip) + 3
    assert [s for s in more if s != "CHERRY"] == [s for s in strip if s != "CHERRY"]
    target = rtp_with("fruit-5x3", "strips.base.0.CHERRY", int(param.current) + 4)
    out = tune_exact(raw, "strips.base.0.CHERRY", target, exact_evaluator(family, None))
    assert out["value"] == param.current + 4 and out["hit"] is True


def test_an_exact_seed_game_a_pay_and_a_probability():
    family, raw, _ = load_model("crystal-star-deluxe")
    target = rtp_with("crystal-star-deluxe", "line_pays_x_line_bet.S3", 120)
    out = tune_exact(raw, "line_pays_x_line_bet.S3", target, exact_evaluator(family, None))
    assert out["value"] == 120 and out["hit"] is True
    # Super 12 Stars' Lucky Stars star chance: not a straight line; bisected to the decimals
    # the model takes, within a millionth of the target
    family, raw, _ = load_model("super-12-stars")
    out = tune_exact(raw, "lucky_stars.p_star_per_empty_cell", Fraction("0.97"),
                     exact_evaluator(family, None))
    assert isinstance(out["value"], float) and out["value"] > 0.0585
    assert abs(out["rtp"] - 0.97) < 1e-6
    assert out["rtp"] == float(rtp_with("super-12-stars", "lucky_stars.p_star_per_empty_cell",
                                        out["value"]))


def test_a_target_out_of_reach_is_said_to_be():
    family, raw, _ = load_model("classic-3x3")
    with pytest.raises(UnreachableTarget, match=re.escape("cannot be reached with pays.CHERRY.1")):
        tune_exact(raw, "pays.CHERRY.1", Fraction(1, 2), exact_evaluator(family, None))
    family, raw, _ = load_model("crystal-star-deluxe")  # the RTP ignores the progressive rate
    with pytest.raises(UnreachableTarget, match="does not change"):
        tune_exact(raw, "progressives.0.rate", Fraction("0.96"), exact_evaluator(family, None))


@pytest.mark.parametrize(("path", "message"), [
    ("pays.CHERY.3", "no key 'CHERY' at pays"),
    ("strips.base.9", "index 9 is outside strips.base"),
    ("strips.base.0.7", "is 'ORANGE', not a number"),
    ("strips.base.0.GRAPE", "'GRAPE' is not on strips.base.0"),
    ("wild", "is a dict, not a number"),
    ("pays..3", "not a dotted path"),
])
def test_bad_paths_get_a_clear_error(path: str, message: str):
    _, raw, _ = load_model("fruit-5x3")
    with pytest.raises(TuneError, match=re.escape(message)):
        Param.at(raw, path)


def test_simplest_fraction_between():
    assert simplest_between(Fraction(1, 3), Fraction(1, 2)) == Fraction(1, 2)
    assert simplest_between(Fraction(31, 100), Fraction(32, 100)) == Fraction(5, 16)
    assert simplest_between(Fraction(7, 3), Fraction(5, 2)) == Fraction(5, 2)


runner = CliRunner()


def said(res: object) -> str:
    """The command's output with the terminal's line wrapping undone."""
    return " ".join(res.output.split())  # type: ignore[attr-defined]


def test_command_line_tunes_a_copy_of_a_seed_model_and_writes_it(tmp_path: Path):
    copy = tmp_path / "s12.json"
    shutil.copy(GAMES / "super_12_stars" / "models" / "super-12-stars.v1.json", copy)
    target = rtp_with(str(copy), "line_pays_x_line_bet.SE.2", 2000)
    out = tmp_path / "tuned.json"
    res = runner.invoke(app, ["tune", str(copy), "--param", "line_pays_x_line_bet.SE.2",
                              "--target", str(float(target)), "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    result = json.loads(res.output)
    assert result["value"] == 2000 and result["exact"] is True
    tuned = find_game(str(out))
    assert tuned.model.raw["line_pays_x_line_bet"]["SE"][2] == 2000  # type: ignore[attr-defined]
    assert tuned.exact(30)["rtp"] == result["rtp"]  # type: ignore[attr-defined]


def test_command_line_unreachable_and_bad_path(tmp_path: Path):
    out = tmp_path / "never.json"
    res = runner.invoke(app, ["tune", "classic-3x3", "--param", "pays.CHERRY.1", "--target",
                              "50", "--out", str(out)])
    assert res.exit_code == 1 and "cannot reach the target" in said(res)
    assert "no model written" in said(res) and not out.exists()
    res = runner.invoke(app, ["tune", "fruit-5x3", "--param", "pays.CHERY.3", "--target", "96"])
    assert res.exit_code == 2 and "no key 'CHERY' at pays" in said(res)
    broken = tmp_path / "broken.json"
    broken.write_text('{"hello": 1}')
    res = runner.invoke(app, ["tune", str(broken), "--param", "x", "--target", "96"])
    assert res.exit_code == 2 and "not a valid model of any known game" in said(res)


def test_command_line_simulated_game_reports_its_interval(tmp_path: Path):
    res = runner.invoke(app, ["tune", "superstars", "--param", "bonus.land.prize", "--target",
                              "94.06", "--lo", "0.08", "--hi", "0.13", "--bonuses", "5000",
                              "--json"])
    assert res.exit_code == 0, res.output
    result = json.loads(res.output)
    assert result["exact"] is False
    low, high = result["ci99"]
    assert low < result["rtp"] < high
    res = runner.invoke(app, ["tune", "superstars", "--param", "bonus.land.prize", "--target",
                              "99.5", "--lo", "0.05", "--hi", "0.06", "--bonuses", "5000"])
    assert res.exit_code == 1 and "cannot reach the target" in said(res)


def test_a_broken_seed_model_file_names_its_family_and_problem(tmp_path: Path):
    data = json.loads((GAMES / "super_12_stars" / "models" / "super-12-stars.v1.json").read_text())
    del data["lucky_stars"]
    path = tmp_path / "s12-broken.json"
    path.write_text(json.dumps(data))
    from slotlab.model import ModelError

    with pytest.raises(ModelError) as err:
        find_game(str(path))
    text = str(err.value)
    assert "closest is super 12 stars" in text and "lucky_stars: Field required" in text
