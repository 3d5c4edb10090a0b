"""The game contract: every family registered once, its games found by id or by a model file of
any family, in every command; a new family is one registration."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pytest
from pydantic import PositiveInt
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import (
    FAMILIES,
    GameFamily,
    UnknownGameError,
    find_game,
    game_from_source,
    game_ids,
    game_of_data,
    registered,
)
from slotlab.games.contract import FamilyGame
from slotlab.mechanics.accumulators import ACC_COMPONENTS, new_accumulators, record
from slotlab.model import GameModel, ModelError, Strict, content_hash, read_spec
from slotlab.rng import Seed, chacha_stream, randbelow
from slotlab.rounds import (
    Event,
    Game,
    IllegalChoiceError,
    RoundResult,
    Simulatable,
    check_inputs,
)

runner = CliRunner()

# One shipped game of each family: its model file is copied and used by path.
ONE_OF_EACH = {"crystal_star_deluxe": "crystal-star-deluxe", "superstars": "superstars-96",
               "super_12_stars": "super-12-stars", "lines": "fruit-5x3",
               "composed": "lucky-coin-link"}
FEW_BONUSES = "1000"  # Superstars' Bonus Games simulated in its RTP: few, for speed


def cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def copied(game_id: str, folder: Path, **changes: Any) -> tuple[Path, dict[str, Any]]:
    """A copy of a shipped game's model file, as a designer would start one."""
    shipped = {k: v for k, v in find_game(game_id).model.raw.items() if k != "family"}
    raw = {**shipped, "id": f"copied-{game_id}", **changes}
    path = folder / f"copied-{game_id}{''.join(f'-{k}' for k in changes)}.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path, raw


def test_the_registry_names_every_family_once_with_its_own_games():
    assert set(ONE_OF_EACH) == set(FAMILIES)  # a new family gets a copied-model test here too
    for name, family in FAMILIES.items():
        assert family.name == name
        for gid in family.ids():
            game = find_game(gid)
            assert isinstance(game, family.game_class()) and game.family == name
            assert isinstance(game, Game) and isinstance(game, Simulatable)
            assert game_from_source(*game.model_source()).model_hash == game.model_hash
    assert game_ids().count("superstars-96") == 1


def test_optional_capabilities_are_none_where_a_game_lacks_them():
    csd, stars, lines = (find_game(g) for g in ("crystal-star-deluxe", "superstars", "fruit-5x3"))
    assert csd.progressives is not None and [p["tier"] for p in csd.progressives()] == [
        "top", "bottom"]
    assert lines.progressives is None and lines.sd is None and lines.composed is None
    assert csd.sd is not None and csd.sd() == csd.exact()["sd"]
    assert stars.composed is not None and stars.tuner is not None and csd.tuner is None


@pytest.mark.parametrize("family", sorted(ONE_OF_EACH))
def test_a_copied_model_of_each_family_works_by_path_in_rtp_simulate_and_play(family, tmp_path):
    path, raw = copied(ONE_OF_EACH[family], tmp_path)  # no "family": found by its schema
    model_hash = content_hash(raw)
    extra = ["--bonuses", FEW_BONUSES] if family == "superstars" else []
    report = cli("rtp", str(path), "--json", *extra)
    assert report["model_hash"] == model_hash
    if family != "superstars":  # the copy's math is the shipped model's
        assert report["rtp_fraction"] == find_game(ONE_OF_EACH[family]).exact(
            report["bet"])["rtp_fraction"]
    sim = cli("simulate", str(path), "--spins", "2000", "--json")
    assert sim["model_hash"] == model_hash and sim["spins"] == 2000
    played = cli("play", str(path), "--seed", "7", "--json")
    assert played["model_hash"] == model_hash and played["game"] == raw["id"]
    declared, declared_raw = copied(ONE_OF_EACH[family], tmp_path, family=family)
    played = cli("play", str(declared), "--seed", "7", "--json")
    assert played["model_hash"] == content_hash(declared_raw) != model_hash


@pytest.mark.parametrize("family", ["crystal_star_deluxe", "lines"])
def test_a_copied_model_gets_a_par_sheet(family, tmp_path):
    path, raw = copied(ONE_OF_EACH[family], tmp_path, family=family)
    result = runner.invoke(app, ["par", str(path), "--out", str(tmp_path / "par"),
                                 "--spins", "20000", "--sample", "2000"])
    assert result.exit_code == 0, result.output
    par = json.loads((tmp_path / "par" / "par.json").read_text())
    assert par["game"] == raw["id"] and par["model_hash"] == content_hash(raw)


def test_a_declared_family_is_the_one_that_loads_the_file(tmp_path):
    s12 = dict(find_game("super-12-stars").model.raw)
    with pytest.raises(ModelError, match=r"^x\.json: invalid model\n(.|\n)*rtp_target"):
        game_of_data({**s12, "family": "superstars"}, "x.json")  # Superstars' schema speaks
    with pytest.raises(ModelError, match="family: unknown game family 'nope'"):
        game_of_data({**s12, "family": "nope"}, "x.json")
    path, _ = copied("super-12-stars", tmp_path, family="super_12_stars")
    del_lines = {k: v for k, v in json.loads(path.read_text()).items() if k != "lines"}
    path.write_text(json.dumps(del_lines))
    result = runner.invoke(app, ["rtp", str(path)])
    assert result.exit_code == 2 and "lines: Field required" in result.output
    fruit = find_game("fruit-5x3")
    with pytest.raises(ModelError, match="family: Input should be 'lines'"):
        type(fruit).from_data({**fruit.model.raw, "family": "superstars"})  # its own only


# -- a family of its own, registered for one test ----------------------------------------------


class CoinSpec(Strict):
    family: Literal["coin"] | None = None
    id: str
    name: str
    version: int = 1
    bets: list[PositiveInt]
    heads_pays_x: PositiveInt


class CoinModel(GameModel[CoinSpec]):
    def bets(self) -> list[int]:
        return sorted(self.spec.bets)


class CoinGame(FamilyGame[CoinModel]):
    """A coin is tossed; heads pays ``heads_pays_x`` times the bet."""

    family = "coin"
    kind = "coin"

    @classmethod
    def read_model(cls, source: Path | dict[str, Any]) -> CoinModel:
        return CoinModel(*read_spec(CoinSpec, source, lambda s: None))

    def exact(self, bet: int | None = None) -> dict[str, Any]:
        rtp = Fraction(self.model.spec.heads_pays_x, 2)
        return {"game": self.id, "model_hash": self.model_hash, "bet": bet or self.bets()[0],
                "rtp": float(rtp), "rtp_fraction": f"{rtp.numerator}/{rtp.denominator}",
                "components": {"heads": {"rtp": float(rtp)}}}

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        check_inputs(self, bet, seeds, choices)
        if choices:
            raise IllegalChoiceError("a coin toss takes no choice")
        heads = randbelow(chacha_stream(seeds[0]), 2) == 1
        win = self.model.spec.heads_pays_x * bet if heads else 0
        events: list[Event] = [{"type": "coin_tossed", "heads": heads},
                               {"type": "round_ended", "win": win}]
        return RoundResult(self.id, self.model_hash, bet, tuple(events), win)

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        raise IllegalChoiceError("a coin toss never waits")

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": self.kind, "reels": 1, "rows": 1,
                "lines": [], "bets": self.bets(), "rtp": self.theoretical_rtp()}

    def max_win_x(self) -> int:
        return self.model.spec.heads_pays_x

    def theoretical_rtp(self) -> float:
        return float(self.exact()["rtp"])

    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        acc, sq = new_accumulators()
        for _ in range(spins):
            win = self.model.spec.heads_pays_x * bet * randbelow(stream, 2)
            record(acc, sq, win, bet, False)
            acc[ACC_COMPONENTS] += win
        return acc, sq

    def component_names(self) -> list[str]:
        return ["heads"]


def test_a_new_family_is_one_registration(tmp_path):
    model = {"family": "coin", "id": "coin-toss", "name": "Coin Toss", "bets": [1, 5],
             "heads_pays_x": 1}
    path = tmp_path / "coin-toss.json"
    path.write_text(json.dumps(model))
    coin = GameFamily("coin", f"{__name__}:CoinGame", shipped={"coin-toss": path})
    with registered(coin):
        assert "coin-toss" in game_ids() and isinstance(find_game("coin-toss"), CoinGame)
        assert cli("rtp", str(path), "--json")["rtp_fraction"] == "1/2"
        sim = cli("simulate", str(path), "--spins", "20000", "--seed", "3", "--json")
        low, high = sim["ci99"]  # 99 % interval, fixed seed
        assert low <= 0.5 <= high and sim["model_hash"] == content_hash(model)
        assert cli("play", "coin-toss", "--seed", "1", "--json")["events"][0]["type"] == (
            "coin_tossed")
        assert find_game(str(path)).model_source() == ("coin", model)
    assert "coin-toss" not in game_ids()
    with pytest.raises(ModelError, match="unknown game family 'coin'"):
        find_game(str(path))
    with pytest.raises(UnknownGameError):
        find_game("coin-toss")
