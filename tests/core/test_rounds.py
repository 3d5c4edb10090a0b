"""The round contract: a pure function of (game, bet, seeds, choices), replayable."""

from __future__ import annotations

import json

import pytest

from slotlab.games import find_game
from slotlab.rng import fresh_seed
from slotlab.rounds import Game, check_inputs, play, replay


@pytest.mark.parametrize("game_id", ["fruit-5x3", "classic-3x3", "crystal-star-deluxe"])
def test_every_game_meets_the_protocol(game_id):
    game = find_game(game_id)
    assert isinstance(game, Game)
    assert game.bets() == sorted(game.bets()) and len(game.model_hash) == 64
    described = game.describe()
    json.dumps(described)  # JSON-able for clients
    assert described["id"] == game_id and described["bets"] == game.bets()


def _played_with_choices(game, bet):
    """A live-style round: a fresh seed at the start and one more with every choice."""
    seeds, choices = [fresh_seed()], []
    result = game.play(bet, seeds, choices)
    while result.awaiting is not None:
        choices.append("red" if len(choices) < 2 else "collect")
        seeds.append(fresh_seed())
        result = game.play(bet, seeds, choices)
    return seeds, choices, result


@pytest.mark.parametrize("game_id", ["fruit-5x3", "classic-3x3", "crystal-star-deluxe"])
def test_a_recorded_round_replays_identically(game_id):
    game = find_game(game_id)
    for _ in range(30):
        seeds, choices, result = _played_with_choices(game, game.bets()[-1])
        same, again = replay(game, game.bets()[-1], seeds, choices, result.events)
        assert same and again == result
        assert result.events[-1]["type"] == "round_ended"


def test_replay_detects_events_that_differ():
    game = find_game("fruit-5x3")
    result = play(game, 30, [b"seed"])
    tampered = [*result.events[:-1], {"type": "round_ended", "win": result.win + 1}]
    assert replay(game, 30, [b"seed"], [], tampered)[0] is False


def test_rounds_are_pure_functions_of_their_inputs():
    game = find_game("fruit-5x3")
    a = game.play(60, [b"\x01" * 32])
    b = game.play(60, [b"\x01" * 32])
    c = game.play(60, [b"\x02" * 32])
    assert a == b and a.to_json() == b.to_json()
    assert a.events != c.events


def test_the_outcome_does_not_depend_on_the_bet_level():
    """R4: the same seed gives the same reel stops at every bet; wins scale with the bet."""
    game = find_game("fruit-5x3")
    for k in range(50):
        seed = k.to_bytes(4, "little")
        low, high = game.play(30, [seed]), game.play(600, [seed])
        assert [e.get("stops") for e in low.events] == [e.get("stops") for e in high.events]
        assert high.win == 20 * low.win


def test_seeds_must_match_the_choices():
    game = find_game("fruit-5x3")
    with pytest.raises(ValueError, match="seeds"):
        check_inputs(game, 30, [b"a", b"b"], [])
