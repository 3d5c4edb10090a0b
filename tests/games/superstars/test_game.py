"""The facade: registry, the round contract, describe(), input errors, the simulation chunk."""

from __future__ import annotations

import json

import numpy as np
import pytest

from slotlab.games import find_game, game_ids
from slotlab.mechanics.accumulators import (
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_HITS,
    ACC_SPINS,
    ACC_WIN,
)
from slotlab.rng import chunk_stream
from slotlab.rounds import Game, IllegalBetError, IllegalChoiceError, replay
from slotlab.simulate.runner import Simulatable

from .conftest import of_type

VARIANTS = ("superstars", "superstars-96", "superstars-92")


def seed(i: int) -> bytes:
    return i.to_bytes(32, "little")


def test_the_three_variants_are_registered():
    for gid in VARIANTS:
        assert gid in game_ids()
        g = find_game(gid)
        assert g.id == gid and isinstance(g, Game) and isinstance(g, Simulatable)
    assert len({find_game(g).model_hash for g in VARIANTS}) == 3


def test_a_round_is_a_pure_function_of_its_seed(game):
    a, b = game.play(20, [seed(5)]), game.play(20, [seed(5)])
    assert a.events == b.events and a.win == b.win
    ok, _ = replay(game, 20, [seed(5)], [], a.events)
    assert ok


def first_bonus(game, bet=20, limit=5000):
    for i in range(limit):
        r = game.play(bet, [seed(i)])
        if of_type(r, "bonus_triggered"):
            return i, r
    raise AssertionError("no Bonus Game in the first seeds")


def test_a_bonus_round_replays_and_its_events_are_json(game):
    i, r = first_bonus(game)
    ok, _ = replay(game, 20, [seed(i)], [], json.loads(json.dumps(list(r.events))))
    assert ok
    kinds = [e["type"] for e in r.events]
    assert kinds[0] == "reels_stopped" and kinds[-1] == "round_ended"
    assert "bonus_started" in kinds and "bonus_ended" in kinds and "bonus_paid" in kinds
    assert r.events[-1]["win"] == r.win
    assert r.is_complete and r.awaiting is None


def test_a_long_bonus_game_grows_the_event_buffer(game):
    g = type(game)(game.model)
    g._ev_rows = 4  # far too small for any Bonus Game: the round is re-run with a larger one
    i, r = first_bonus(game)
    again = g.play(20, [seed(i)])
    assert again.events == r.events and g._ev_rows > 4


def test_the_game_never_waits_for_a_choice(game):
    r = game.play(20, [seed(1)])
    assert r.awaiting is None
    with pytest.raises(IllegalChoiceError):
        game.play(20, [seed(1), seed(2)], ["throw_dice"])
    with pytest.raises(IllegalChoiceError):
        game.auto_choice(r, seed(2))


def test_bad_input_is_refused(game):
    with pytest.raises(IllegalBetError):
        game.play(21, [seed(1)])
    with pytest.raises(IllegalBetError):
        game.play_stops(30, [0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="5 ints"):
        game.play_stops(20, [0, 0, 0, 0])
    with pytest.raises(ValueError, match="range"):
        game.play_stops(20, [0, 0, 0, 0, 85])
    with pytest.raises(ValueError, match="integers"):
        game.play_stops(20, [0, 0, 0.5, 0, 0])


def test_describe_has_what_the_client_draws(game):
    d = game.describe()
    assert d["kind"] == "superstars" and d["reels"] == 5 and d["rows"] == 5
    assert len(d["lines"]) == 45 and d["bets"] == game.bets() and d["pay_divisor"] == 20
    assert {s["id"] for s in d["symbols"]} == set(game.model.symbol_ids)
    assert [s["id"] for s in d["symbols"] if s["wild"]] == ["W"]
    assert {p["symbol"] for p in d["paytable"]} == set(game.model.spec.line_pays)
    assert len(d["board"]) == 24 and len(d["final_board"]) == 24
    assert d["max_win_x"] == 10000 and d["rtp"] == pytest.approx(0.9406)
    assert d["bet_money"][0] == "0.1" and d["bet_money"][-1] == "100"
    assert any("10,000 times the stake" in r for r in d["rules"])
    json.dumps(d)


def test_theoretical_rtp_is_the_variants_declared_rtp():
    assert find_game("superstars").theoretical_rtp() == pytest.approx(0.9406)
    assert find_game("superstars-96").theoretical_rtp() == pytest.approx(0.9608)
    assert find_game("superstars-92").theoretical_rtp() == pytest.approx(0.9201)


def test_simulate_chunk_components_add_up_to_the_win(game):
    names = game.component_names()
    assert names == ["lines", "bonus_reels", "bonus_final_game", "cap_removed"]
    assert len(names) <= 16
    acc, _ = game.simulate_chunk(20, 200_000, chunk_stream(3, 0))
    assert acc[ACC_SPINS] == 200_000 and acc[ACC_FEATURES] > 0
    assert acc[ACC_WIN] == sum(int(acc[ACC_COMPONENTS + i]) for i in range(len(names)))
    again, _ = game.simulate_chunk(20, 200_000, chunk_stream(3, 0))
    assert np.array_equal(acc, again)


def test_the_simulation_loop_plays_the_rounds_live_play_plays(game):
    """The simulation reads a round from its stops (per-stop Scatter counts and line masks)
    and hands a trigger to the live round: the same draws, wins and components as the live
    kernel's ``play_round`` round by round (Bonus Games and wild-led windows among them)."""
    from slotlab.games.superstars import kernel as k

    rounds = 60_000
    acc, _ = game.simulate_chunk(20, rounds, chunk_stream(8, 1))
    stream, level = chunk_stream(8, 1), game.pay_unit(20)
    ev = np.zeros((0, k.EV_WIDTH), np.int64)
    parts, triggers, hits = np.zeros(4, np.int64), 0, 0
    for _ in range(rounds):
        win, lines, bonus, final, uncapped, triggered, _f, _n = k.play_round(
            game._m, game._bp, stream, False, ev, *k.scratch())
        parts += np.array([lines, bonus - final, final, win - uncapped]) * level
        triggers += triggered
        hits += win > 0
    assert triggers > 100 and acc[ACC_FEATURES] == triggers
    assert [int(x) for x in acc[ACC_COMPONENTS:ACC_COMPONENTS + 4]] == parts.tolist()
    assert acc[ACC_WIN] == parts.sum() and acc[ACC_HITS] == hits


def test_simulation_scales_with_the_bet(game):
    small, _ = game.simulate_chunk(20, 50_000, chunk_stream(4, 0))
    big, _ = game.simulate_chunk(2000, 50_000, chunk_stream(4, 0))
    assert big[ACC_WIN] == 100 * small[ACC_WIN]
