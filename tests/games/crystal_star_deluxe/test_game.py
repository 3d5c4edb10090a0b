"""The game facade: rounds from seeds, replay, protocols, registry, PAYS/HELP description."""

from __future__ import annotations

import json

import pytest

from slotlab.games import find_game
from slotlab.rng import parse_seed
from slotlab.rounds import Game, IllegalChoiceError, replay
from slotlab.simulate.runner import Simulatable

from .conftest import MAX_BET, of_type


def test_registry_serves_the_game(game):
    found = find_game("crystal-star-deluxe")
    assert isinstance(found, Game) and isinstance(found, Simulatable)
    assert found.model_hash == game.model_hash
    assert found.id == "crystal-star-deluxe" and found.name == "Crystal Star Deluxe"


def test_a_round_is_a_pure_function_of_its_seed(game):
    seed = parse_seed(12345)
    first = game.play(MAX_BET, [seed])
    assert game.play(MAX_BET, [seed]) == first
    ok, again = replay(game, MAX_BET, [seed], [], first.events)
    assert ok and again == first
    assert json.loads(json.dumps(first.to_json())) == first.to_json()


def test_replay_detects_altered_events(game):
    seed = parse_seed(7)
    result = game.play(9, [seed])
    altered = list(result.events)
    altered[0] = {**altered[0], "stops": [0, 0, 0]}
    assert replay(game, 9, [seed], [], altered)[0] is False


def test_seeds_give_different_stops_and_the_round_records_them(game):
    stops = {tuple(of_type(game.play(9, [parse_seed(i)]), "reels_stopped")[0]["stops"])
             for i in range(50)}
    assert len(stops) > 40
    result = game.play(9, [parse_seed(3)])
    first = of_type(result, "reels_stopped")[0]
    assert game.play_stops(9, first["stops"]) == result  # the seed only picks the stops


def test_exactly_one_seed_and_no_choices(game):
    with pytest.raises(ValueError):
        game.play(9, [])
    with pytest.raises(ValueError):
        game.play(9, [b"a", b"b"])
    with pytest.raises(IllegalChoiceError):
        game.play(9, [b"a", b"b"], ["red"])
    with pytest.raises(IllegalChoiceError):
        game.auto_choice(game.play(9, [b"a"]), b"b")


@pytest.mark.parametrize("stops", [[76, 0, 0], [0, -1, 0], [0, 0], [0, 0, 0, 0], [0.5, 0, 0]])
def test_bad_stops_are_refused(game, stops):
    with pytest.raises(ValueError, match="stops"):
        game.play_stops(9, stops)


def test_events_follow_the_contract(game):
    # A known v1 play with a nudge, both progressives and line wins (stops 0, 35, 36).
    result = game.play_stops(MAX_BET, [0, 35, 36])
    assert result.is_complete and result.model_hash == game.model_hash
    types = [e["type"] for e in result.events]
    assert types[0] == "progressive_contributed" and types[-1] == "round_ended"
    for e in result.events:
        if e["type"] == "reels_stopped":
            assert set(e) == {"type", "stage", "stops", "window"}
            assert len(e["window"]) == 3 and all(len(col) == 3 for col in e["window"])
        elif e["type"] == "reels_nudged":
            assert set(e) == {"type", "step", "stops", "window"} and e["step"] in (1, 2)
        elif e["type"] == "line_won":
            assert {"line", "symbol", "count", "positions", "multiplier", "win"} <= set(e)
        elif e["type"] == "progressive_won":
            assert {"tier", "line"} <= set(e) and e["tier"] in ("top", "bottom")
        elif e["type"] == "flat_prize_won":
            assert {"line", "win", "reason"} <= set(e)
    assert result.jackpots == ("bottom", "top")
    symbols = {s["id"] for s in game.describe()["symbols"]}
    for e in of_type(result, "reels_stopped") + of_type(result, "reels_nudged"):
        assert {s for col in e["window"] for s in col} <= symbols


def test_describe_has_what_pays_and_help_need(game):
    d = game.describe()
    assert json.loads(json.dumps(d)) == d
    for key in ("id", "name", "kind", "reels", "rows", "symbols", "lines", "bets", "pay_divisor",
                "paytable", "rules", "max_win_x", "rtp", "progressives"):
        assert key in d, key
    assert d["bets"] == [9, 18, 27, 36, 45] and d["pay_divisor"] == 9
    assert d["lines"][8] == [1, 2, 1]
    assert [p["label"] for p in d["paytable"]][:3] == ["Triple Seven", "Double Seven", "Seven"]
    assert [p["symbols"] for p in d["paytable"]][:3] == [["777"], ["77"], ["7"]]
    assert [p["name"] for p in d["progressives"]] == ["Top Progressive", "Bottom Progressive"]
    wild = [s for s in d["symbols"] if s["wild"]]
    assert {s["id"] for s in wild} == {"STAR^", "STARv"}
    assert d["max_win_x"] >= d["max_win_x_exact"] > d["max_win_x"] - 1
    assert d["rtp"] == game.theoretical_rtp()


def test_progressives_settings(game):
    assert game.progressives() == [
        {"tier": "top", "name": "Top Progressive", "reset": 20000, "rate": "1/250",
         "lines": [9], "max_bet": 45},
        {"tier": "bottom", "name": "Bottom Progressive", "reset": 1500, "rate": "3/1000",
         "lines": [1, 2, 3, 4, 5, 6, 7, 8], "max_bet": 45},
    ]


def test_theoretical_figures_come_from_the_exact_report(game):
    report = game.exact()
    assert report["bet"] == MAX_BET
    assert game.theoretical_rtp() == report["rtp"]
    assert game.sd() == report["sd"]
    assert game.max_win_x() == -(-report["max_win"] // MAX_BET)
