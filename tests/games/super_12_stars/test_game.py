"""The game facade: the round contract (seeds, the Frenzy colour choice, replay), forced
outcomes, simulation sums and the PAYS/HELP description."""

from __future__ import annotations

import json
import re

import pytest

from slotlab.games import find_game
from slotlab.games.super_12_stars.game import Super12Stars
from slotlab.games.super_12_stars.model import model_path
from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_SPINS, ACC_WIN
from slotlab.rng import chunk_stream, parse_seed
from slotlab.rounds import Game, IllegalBetError, IllegalChoiceError, replay
from slotlab.simulate.runner import Simulatable

from .conftest import BET, ZERO, of_type, types

EVENT_TYPES = {
    "reels_stopped", "super7_expanded", "line_won", "scatter_won", "bonus_won", "wheel_spun",
    "tv_drawn", "free_spins_awarded", "free_spins_retriggered", "super10_spun",
    "frenzy_offered", "frenzy_spun", "frenzy_ended", "lucky_stars_started",
    "lucky_stars_respun", "lucky_stars_ended", "win_capped", "round_ended",
}


def _first_seed(game, want, limit=40_000):
    for i in range(limit):
        seed = parse_seed(i)
        if want(game.play(BET, [seed])):
            return seed
    raise AssertionError("no seed found")


@pytest.fixture(scope="module")
def frenzy_seed(game):
    return _first_seed(game, lambda r: not r.is_complete)


@pytest.fixture(scope="module")
def free_spins_seed(game):
    return _first_seed(game, lambda r: bool(of_type(r, "free_spins_retriggered")))


@pytest.fixture(scope="module")
def lucky_seed(game):
    return _first_seed(game, lambda r: bool(of_type(r, "lucky_stars_started")))


def test_registry_serves_the_game(game):
    """The registry serves the shipped version (v2); the fixture plays v1, the same game."""
    found = find_game("super-12-stars")
    assert isinstance(found, Game) and isinstance(found, Simulatable)
    assert found.model_hash == Super12Stars.from_file(model_path()).model_hash
    assert found.model.version == 2 and game.model.version == 1
    assert (found.id, found.name) == ("super-12-stars", "Super 12 Stars")


def test_a_round_is_a_pure_function_of_its_seed(game):
    for i in range(20):
        seed = parse_seed(i)
        first = game.play(BET, [seed])
        assert game.play(BET, [seed]) == first
        ok, again = replay(game, BET, [seed], [], first.events)
        assert ok and again == first
        assert json.loads(json.dumps(first.to_json())) == first.to_json()
        assert game.play_forced(BET, [], seeds=[seed]) == first  # no script: the seed decides


def test_feature_rounds_replay_identically(game, free_spins_seed, lucky_seed):
    for seed in (free_spins_seed, lucky_seed):
        result = game.play(BET, [seed])
        assert replay(game, BET, [seed], [], result.events)[0]


def test_replay_detects_altered_events(game):
    seed = parse_seed(7)
    result = game.play(BET, [seed])
    altered = list(result.events)
    altered[0] = {**altered[0], "stops": [1, 2, 3, 4, 5]}
    assert replay(game, BET, [seed], [], altered)[0] is False


def test_the_seed_only_picks_the_stops_of_a_plain_round(game):
    for i in range(30):
        result = game.play(BET, [parse_seed(i)])
        spins = of_type(result, "reels_stopped")
        if len(spins) == 1 and result.is_complete:
            assert game.play_stops(BET, spins[0]["stops"]) == result


def test_every_event_is_json_with_a_known_past_tense_type(game, free_spins_seed, lucky_seed,
                                                          frenzy_seed):
    results = [game.play(BET, [s]) for s in (free_spins_seed, lucky_seed)]
    results.append(game.play(BET, [frenzy_seed, b"x"], ["green"]))
    for r in results:
        assert r.events[-1] == {"type": "round_ended", "win": r.win}
        for e in r.events:
            assert e["type"] in EVENT_TYPES and re.fullmatch(r"[a-z0-9_]+", e["type"])
            assert json.loads(json.dumps(e)) == e


def test_round_win_is_the_sum_of_the_wins_in_its_events(game, free_spins_seed, lucky_seed):
    for seed in (free_spins_seed, lucky_seed, parse_seed(3)):
        r = game.play(BET, [seed])
        paid = ("line_won", "scatter_won", "bonus_won", "wheel_spun", "super10_spun",
                "frenzy_ended", "lucky_stars_ended")
        assert r.win == sum(e["win"] for e in r.events if e["type"] in paid)


# -- the Frenzy colour: a real player choice --------------------------------------------------


def test_a_frenzy_round_waits_for_the_colour(game, frenzy_seed):
    r = game.play(BET, [frenzy_seed])
    assert not r.is_complete and r.awaiting.kind == "frenzy_colour"
    assert r.awaiting.options == ("red", "green")
    assert r.events[-1]["type"] == "frenzy_offered" and "round_ended" not in types(r)
    assert r.win == r.awaiting.info["win_so_far"]


@pytest.mark.parametrize("colour", ["red", "green"])
def test_the_event_log_only_grows_and_both_colours_finish_the_round(game, frenzy_seed, colour):
    waiting = game.play(BET, [frenzy_seed])
    done = game.play(BET, [frenzy_seed, b"next"], [colour])
    assert done.is_complete and done.events[: len(waiting.events)] == waiting.events
    (end,) = of_type(done, "frenzy_ended")
    assert end["colour"] == colour
    assert done.win == waiting.win + end["win"]
    spins = of_type(done, "frenzy_spun")
    assert all(s["colour"] == colour for s in spins[:-1])
    assert spins[-1]["colour"] != colour or spins[-1]["total"] > 100
    assert replay(game, BET, [frenzy_seed, b"next"], [colour], done.events)[0]


def test_the_frenzy_is_drawn_from_the_seed_that_comes_with_the_choice(game, frenzy_seed):
    outcomes = {json.dumps(of_type(game.play(BET, [frenzy_seed, parse_seed(k)], ["red"]),
                                   "frenzy_spun")) for k in range(40)}
    assert len(outcomes) > 5  # the next seed decides
    # ... and only it: another round reaching the Frenzy with the same next seed spins alike.
    forced = game.play_forced(BET, [0, 0, 33, 0, 0, 7], ["red"], seeds=[b"other", b"k"])
    live = game.play(BET, [frenzy_seed, b"k"], ["red"])
    assert of_type(forced, "frenzy_spun") == of_type(live, "frenzy_spun")


def test_illegal_choices_are_refused(game, frenzy_seed):
    with pytest.raises(IllegalChoiceError):
        game.play(BET, [frenzy_seed, b"x"], ["blue"])
    with pytest.raises(IllegalChoiceError):
        game.play(BET, [frenzy_seed, b"x", b"y"], ["red", "red"])
    plain = next(parse_seed(i) for i in range(100) if game.play(BET, [parse_seed(i)]).is_complete)
    with pytest.raises(IllegalChoiceError):
        game.play(BET, [plain, b"x"], ["red"])


def test_wrong_number_of_seeds_is_refused(game, frenzy_seed):
    with pytest.raises(ValueError):
        game.play(BET, [])
    with pytest.raises(ValueError):
        game.play(BET, [frenzy_seed, b"x"])
    with pytest.raises(ValueError):
        game.play(BET, [frenzy_seed], ["red"])


@pytest.mark.parametrize("bet", [0, 29, 31, 45, 3030, -30])
def test_bad_bets_are_refused(game, bet):
    with pytest.raises(IllegalBetError):
        game.play(bet, [b"s"])
    with pytest.raises(IllegalBetError):
        game.play_stops(bet, ZERO)


def test_bets_are_the_ladder_030_to_3000_in_cents_multiples_of_30(game):
    assert game.bets() == [30, 60, 90, 120, 150, 300, 600, 900, 1200, 1500, 3000]
    assert all(b % 30 == 0 for b in game.bets())


def test_auto_choice_picks_a_colour_at_random_from_its_seed(game, frenzy_seed):
    waiting = game.play(BET, [frenzy_seed])
    picks = [game.auto_choice(waiting, parse_seed(k)) for k in range(64)]
    assert set(picks) == {"red", "green"}
    assert picks == [game.auto_choice(waiting, parse_seed(k)) for k in range(64)]
    done = game.play(BET, [frenzy_seed, b"n"], [picks[0]])
    with pytest.raises(IllegalChoiceError):
        game.auto_choice(done, b"s")


# -- forced outcomes ------------------------------------------------------------------------


@pytest.mark.parametrize("stops", [[60, 0, 0, 0, 0], [0, 0, 195, 0, 0], [0, -1, 0, 0, 0],
                                   [0, 0, 0, 0], [0.5, 0, 0, 0, 0]])
def test_bad_stops_are_refused(game, stops):
    with pytest.raises(ValueError, match="stops"):
        game.play_stops(BET, stops)


def test_bad_forced_draws_are_refused(game):
    with pytest.raises(ValueError, match="not used"):
        game.play_stops(BET, [1, 1, 1, 1, 1], [0])
    with pytest.raises(ValueError, match="outside"):
        game.play_stops(BET, [0, 0, 33, 0, 0], [11])  # the Super 10 reel has 11 outcomes
    with pytest.raises(ValueError, match="negative"):
        game.play_forced(BET, [0, -1, 0, 0, 0])
    with pytest.raises(ValueError, match="integers"):
        game.play_forced(BET, [0, "a", 0, 0, 0])


def test_forced_v1_stops_reach_every_feature(game):
    m = game.model
    base = m.spec.reel_strips.base
    centre = base[2]
    t10, t12, s7 = centre.index("T10"), centre.index("T12"), centre.index("S7")
    assert game.play_stops(BET, [0, 0, t10, 0, 0], [7]).awaiting is not None
    assert of_type(game.play_stops(BET, [0, 0, t12, 0, 0], [0] * 3 + [0] * 36),
                   "lucky_stars_ended")
    assert of_type(game.play_stops(BET, [0, 0, s7, 0, 0], [0, 0, 0, 0]), "super7_expanded")


# -- simulation -----------------------------------------------------------------------------


def test_component_names_in_the_agreed_order(game):
    assert game.component_names()[:14] == [
        "lines", "golden", "silver", "bonus_pay", "super7_respins", "wheel", "free_spins",
        "super10_direct", "frenzy", "super10_free_spins", "lucky_stars_values", "minor",
        "major", "grand"]
    assert len(game.component_names()) <= 16


def test_simulation_components_add_up_to_the_total_win(game):
    for bet in (30, 300):
        acc, _sq = game.simulate_chunk(bet, 200_000, chunk_stream(5, 0))
        n = len(game.component_names())
        assert acc[ACC_SPINS] == 200_000
        assert acc[ACC_COMPONENTS : ACC_COMPONENTS + n].sum() == acc[ACC_WIN]
        assert all(acc[ACC_COMPONENTS + i] > 0 for i in (0, 1, 2, 4, 6))  # common parts occur
    a1, _ = game.simulate_chunk(30, 50_000, chunk_stream(9, 3))
    a10, _ = game.simulate_chunk(300, 50_000, chunk_stream(9, 3))
    assert (a10[ACC_COMPONENTS:ACC_COMPONENTS + 15] == 10 * a1[ACC_COMPONENTS:ACC_COMPONENTS
                                                                + 15]).all()


# -- PAYS / HELP ------------------------------------------------------------------------------


def test_describe_has_what_pays_and_help_need(game):
    d = game.describe()
    assert json.loads(json.dumps(d)) == d
    assert {"id", "name", "kind", "reels", "rows", "symbols", "lines", "bets", "pay_divisor",
            "paytable", "rules", "rtp", "max_win_x", "super10_reel", "frenzy_wheel",
            "lucky_stars", "wheel_x_line_bet"} <= set(d)
    assert (d["kind"], d["reels"], d["rows"], d["pay_divisor"]) == ("super-12-stars", 5, 3, 30)
    assert len(d["lines"]) == 30 and len(d["symbols"]) == 16
    assert d["reel_strips"]["base"] == game.model.raw["reel_strips"]["base"]
    assert 0.9 < d["rtp"] < 1.0 and d["rtp"] == game.theoretical_rtp()
    assert d["max_win_x"] == game.max_win_x() >= 1
    assert all(isinstance(s, str) and s for s in d["rules"])
