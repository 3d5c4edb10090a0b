"""Bad model files are rejected with a message that names the problem."""

from __future__ import annotations

import json

import pytest

from slotlab.games import find_game
from slotlab.games.lines.model import LineModel
from slotlab.model import ModelError
from tests.games.lines.conftest import TOY, toy_model

BASE = TOY["strips"]["base"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"strips": {"base": [["A", "Q", "B"]] * 5}}, "unknown symbol 'Q'"),
        ({"lines": [[1, 1, 1, 1, 3]]}, "line 1: row outside the window"),
        ({"lines": [[1, 1, 1]]}, "line 1: 3 rows given for 5 reels"),
        ({"strips": {"base": [["A", "B"]] * 5}}, "2 stops is shorter than 3 rows"),
        ({"strips": {"base": BASE[:4]}}, "4 strips for 5 reels"),
        ({"strips": {"free": BASE}}, "a 'base' reel set is required"),
        ({"pays": {"A": {"3": 0}}}, "pays.A: pay for 3 must be positive"),
        ({"pays": {"A": {"3": -5}}}, "must be positive"),
        ({"pays": {"A": {}}}, "pays.A: missing pays"),
        ({"pays": {}}, "no paying symbol"),
        ({"pays": {"A": {"6": 10}}}, "count 6 outside 1..5"),
        ({"pays": {"S": {"3": 10}}}, "the scatter pays by count"),
        ({"wild": {"symbol": "W", "substitutes": ["A", "S"]}}, "never substitutes for the scatter"),
        ({"wild": {"symbol": "Z"}}, "wild.symbol: unknown symbol 'Z'"),
        ({"bet": {"divisor": 0, "levels": [1]}}, "bet.divisor"),
        ({"bet": {"divisor": 4, "levels": []}}, "bet.levels"),
        ({"free_spins": {"awards": {"3": 5}, "strips": "bonus"}}, "no reel set 'bonus'"),
        ({"scatter": None}, "free_spins: awarded by scatter count, but there is no scatter"),
        ({"max_win_x": 0}, "max_win_x"),
        ({"colour": "red"}, "colour: Extra inputs are not permitted"),
        ({"symbols": [{"id": "A"}, {"id": "A"}]}, "symbol ids must be unique"),
    ],
)
def test_bad_models_are_rejected_with_a_message_naming_the_problem(changes, message):
    with pytest.raises(ModelError, match="invalid model") as info:
        LineModel.from_dict(toy_model(**changes), "toy.json")
    assert message in str(info.value)
    assert str(info.value).startswith("toy.json:")


def test_a_file_that_is_not_json_is_rejected(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{ not json")
    with pytest.raises(ModelError, match="not valid JSON"):
        LineModel.from_file(path)


def test_a_model_file_path_is_a_game(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(toy_model()))
    game = find_game(str(path))
    assert game.id == "toy" and game.bets() == [4, 8, 20]


def test_the_model_hash_is_its_content_not_its_layout(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps(toy_model(), indent=4))
    b.write_text(json.dumps(toy_model(), separators=(",", ":")))
    c = toy_model(max_win_x=999)
    assert LineModel.from_file(a).hash == LineModel.from_file(b).hash
    assert LineModel.from_file(a).hash != LineModel.from_dict(c).hash
    assert len(LineModel.from_file(a).hash) == 64
