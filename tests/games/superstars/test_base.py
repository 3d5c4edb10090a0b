"""The base game's rules, one forced window each (stops 0 of a model whose strips show it)."""

from __future__ import annotations

import pytest

from slotlab.model import ModelError

from .conftest import of_type

STOPS = [0, 0, 0, 0, 0]
BET = 20  # the smallest bet, 0.10: one pay unit (1/20 of the bet) is 1 credit
PLAIN = "TE JA QU KI AC"  # rows that pay nothing on their own
PLAIN2 = "JA QU KI AC TE"


def lines_won(result):
    return {e["line"]: e for e in of_type(result, "line_won")}


@pytest.mark.parametrize("bet", [20, 200, 20000])
def test_pays_are_x_total_bet_per_line(window_game, bet):
    # Five Starbursts on line 1 (the top row) pay 5 x the total bet, whatever the bet.
    g = window_game(["SB SB SB SB SB", PLAIN, PLAIN2, PLAIN, PLAIN2])
    r = g.play_stops(bet, STOPS)
    assert lines_won(r)[1]["win"] == 5 * bet
    assert r.win == 5 * bet


@pytest.mark.parametrize(("symbol", "x3", "x4", "x5"), [
    ("SB", 20, 50, 100), ("GO", 12, 30, 60), ("SW", 12, 30, 60), ("FI", 8, 20, 40),
    ("MB", 8, 20, 40), ("AC", 4, 10, 20), ("KI", 4, 10, 20), ("QU", 4, 10, 20),
    ("JA", 2, 5, 10), ("TE", 2, 5, 10)])
def test_paytable_in_twentieths_of_the_bet(window_game, symbol, x3, x4, x5):
    other = "JA" if symbol != "JA" else "QU"
    for n, pay in ((3, x3), (4, x4), (5, x5)):
        top = " ".join([symbol] * n + [other] * (5 - n))
        g = window_game([top, PLAIN, PLAIN2, PLAIN, PLAIN2])
        r = g.play_stops(BET, STOPS)
        assert lines_won(r)[1]["win"] == pay, (symbol, n)
        assert lines_won(r)[1]["count"] == n


def test_wins_run_from_the_far_left_reel(window_game):
    # Four Starbursts on reels 2-5 of the top row: not from the leftmost reel, no win.
    g = window_game(["TE SB SB SB SB", PLAIN, PLAIN2, PLAIN, PLAIN2])
    r = g.play_stops(BET, STOPS)
    assert 1 not in lines_won(r)


def test_a_gap_ends_the_run(window_game):
    g = window_game(["SB SB TE SB SB", PLAIN, PLAIN2, PLAIN, PLAIN2])
    assert 1 not in lines_won(g.play_stops(BET, STOPS))


def test_only_the_highest_win_per_line_is_paid(window_game):
    # Three Wilds then J J: the Wild run (3 x Starburst, 1x) beats five Js (0.5x); one pay.
    g = window_game(["W W W JA JA", PLAIN, PLAIN2, PLAIN, PLAIN2])
    won = lines_won(g.play_stops(BET, STOPS))
    assert won[1]["win"] == 20 and won[1]["symbol"] == "W" and won[1]["count"] == 3
    # W W W GO GO: five Gonzos (3x) beat three Wilds (1x).
    g = window_game(["W W W GO GO", PLAIN, PLAIN2, PLAIN, PLAIN2])
    won = lines_won(g.play_stops(BET, STOPS))
    assert won[1]["win"] == 60 and won[1]["symbol"] == "GO" and won[1]["count"] == 5


def test_wins_on_different_lines_are_added(window_game):
    g = window_game(["SB SB SB SB SB", "GO GO GO TE JA", PLAIN2, PLAIN, "FI FI FI FI QU"])
    r = g.play_stops(BET, STOPS)
    won = lines_won(r)
    assert won[1]["win"] == 100 and won[2]["win"] == 12 and won[5]["win"] == 20
    assert r.win == sum(e["win"] for e in won.values())
    assert len(won) >= 3


@pytest.mark.parametrize("symbol", ["SB", "GO", "SW", "FI", "MB", "AC", "KI", "QU", "JA", "TE"])
def test_wild_substitutes_for_every_paying_symbol(window_game, symbol):
    g = window_game([f"{symbol} W {symbol} W {symbol}", PLAIN, PLAIN2, PLAIN, PLAIN2])
    won = lines_won(g.play_stops(BET, STOPS))
    assert won[1]["symbol"] == symbol and won[1]["count"] == 5
    assert won[1]["win"] == g.model.spec.line_pays[symbol][5]


def test_wild_does_not_stand_in_for_the_scatter_or_the_dice(window_game):
    # Two Scatters and three Wilds in view: Wilds count for no Scatter, so no Bonus Game.
    g = window_game(["SC W TE JA W", "JA SC QU W AC", PLAIN, PLAIN2, PLAIN])
    r = g.play_stops(BET, STOPS)
    assert not of_type(r, "bonus_triggered")
    # Scatter then four Wilds on line 1: the Wilds do not make a run of Scatters (which never
    # pay on a line), and a Wild run must start on reel 1.
    g = window_game(["SC W W W W", PLAIN, PLAIN2, PLAIN, PLAIN2])
    assert 1 not in lines_won(g.play_stops(BET, STOPS))
    # Nor does a Wild on reel 5 stand in for the Dice: two Scatters stay two.
    g = window_game(["SC TE JA QU W", "JA SC QU KI AC", PLAIN, PLAIN2, PLAIN])
    assert not of_type(g.play_stops(BET, STOPS), "bonus_triggered")


def test_a_line_of_wilds_pays_the_highest_combination(window_game):
    # Five Wilds pay as five Starbursts, 5x the bet; four and three as four and three.
    for n, pay in ((5, 100), (4, 50), (3, 20)):
        top = " ".join(["W"] * n + ["TE"] * (5 - n))
        won = lines_won(window_game([top, PLAIN, PLAIN2, PLAIN, PLAIN2]).play_stops(BET, STOPS))
        assert won[1]["win"] == pay and won[1]["symbol"] == "W" and won[1]["count"] == n


def test_wild_appears_on_every_reel_of_the_main_game(game):
    for strip in game.model.spec.reel_strips:
        assert "W" in strip


# -- the trigger -----------------------------------------------------------------------------


def test_two_scatters_do_not_trigger(window_game):
    g = window_game(["SC TE JA QU KI", "JA QU SC KI AC", PLAIN, PLAIN2, PLAIN])
    r = g.play_stops(BET, STOPS)
    assert not of_type(r, "bonus_triggered") and not of_type(r, "bonus_paid")


@pytest.mark.parametrize("rows", [
    ["SC TE JA QU KI", "JA QU SC KI AC", PLAIN, PLAIN2, "QU KI AC SC TE"],  # 3 anywhere
    ["SC TE JA QU KI", "JA SC QU KI AC", "QU KI SC AC TE", PLAIN2, "KI AC TE JA SC"],  # 4
    ["SC SC SC SC SC", PLAIN, PLAIN2, PLAIN, PLAIN2],  # 5
])
def test_three_or_more_scatters_anywhere_start_the_bonus_game(window_game, rows):
    g = window_game(rows)
    r = g.play_stops(BET, STOPS)
    (t,) = of_type(r, "bonus_triggered")
    n = sum(row.split().count("SC") for row in rows)
    assert t["scatters"] == n and len(t["positions"]) == n and t["dice"] is None
    assert of_type(r, "bonus_paid")


def test_a_dice_on_reel_5_counts_as_a_scatter(window_game):
    g = window_game(["SC TE JA QU KI", "JA QU SC KI AC", "QU KI AC TE DI", PLAIN2, PLAIN])
    r = g.play_stops(BET, STOPS)
    (t,) = of_type(r, "bonus_triggered")
    assert t["scatters"] == 3 and t["dice"] == [4, 2] and len(t["positions"]) == 2


def test_the_dice_may_only_be_on_reel_5(raw):
    from slotlab.games.superstars.model import load_model

    from .conftest import window_model

    bad = window_model(raw, ["DI TE JA QU KI", PLAIN, PLAIN2, PLAIN, PLAIN2])
    with pytest.raises(ModelError, match="Dice may only be on reel 5"):
        load_model(bad)


def test_at_most_one_dice_per_spin(raw, game):
    from slotlab.games.superstars.model import load_model

    from .conftest import window_model

    # Two Dice (or a Dice and a Scatter) within one window of reel 5 are refused.
    bad = window_model(raw, [PLAIN, PLAIN2, PLAIN, PLAIN2, "TE JA QU KI DI"])
    bad["reel_strips"][4][0] = "DI"
    with pytest.raises(ModelError, match="fewer than 5 apart"):
        load_model(bad)
    strip = game.model.spec.reel_strips[4]
    assert strip.count("DI") == 1
    assert all("DI" not in s for s in game.model.spec.reel_strips[:4])


# -- the Bonus Game in the round -----------------------------------------------------------


# Scatters on reels 2, 3 and 5 and four Starbursts on line 1 (2.5x).
TRIGGER = ["SB SB SB SB SC", "JA SC QU KI AC", "QU KI SC AC TE", PLAIN2, PLAIN]


def test_the_bonus_total_is_added_to_the_triggering_spins_win(window_game):
    g = window_game(TRIGGER)
    for seed in (b"\1" * 32, b"\2" * 32, b"\3" * 32):
        r = g.play_stops(BET, STOPS, seed=seed)
        lines = sum(e["win"] for e in of_type(r, "line_won"))
        (paid,) = of_type(r, "bonus_paid")
        assert lines > 0 and paid["win"] > 0
        assert r.win == lines + paid["win"]
        assert paid["win"] == paid["x_bet"] * BET


def test_after_the_bonus_game_the_round_returns_and_ends(window_game):
    # After the Bonus Game the game returns to the triggering round: no further spin, the
    # round's only events after it are the payment and the round's end.
    r = window_game(TRIGGER).play_stops(BET, STOPS)
    kinds = [e["type"] for e in r.events]
    i = kinds.index("bonus_paid")
    assert kinds[i + 1:] == ["round_ended"]
    assert r.events[i]["returns_to"] == "base_game"
    assert kinds.count("reels_stopped") == 1
    assert kinds.index("bonus_triggered") < kinds.index("bonus_paid")


def test_the_bonus_game_is_played_with_the_triggering_bet(window_game):
    g = window_game(TRIGGER)
    seed = b"\7" * 32
    small, big = g.play_stops(20, STOPS, seed=seed), g.play_stops(2000, STOPS, seed=seed)
    (a,), (b,) = of_type(small, "bonus_paid"), of_type(big, "bonus_paid")
    assert a["x_bet"] == b["x_bet"] and b["win"] == 100 * a["win"]


def test_the_bonus_game_draws_on_from_the_rounds_stream(window_game):
    g = window_game(TRIGGER)
    wins = {of_type(g.play_stops(BET, STOPS, seed=bytes([s]) * 32), "bonus_paid")[0]["x_bet"]
            for s in range(1, 30)}
    assert len(wins) > 3  # different seeds, different Bonus Games


# -- the cap ---------------------------------------------------------------------------------


def test_the_shipped_cap_is_10000x(game):
    assert game.max_win_x() == 10000 and game.model.spec.max_win_x == 10000


def test_the_round_is_capped_inside_the_round(window_game):
    # A cap of 3x: five Starbursts (5x) on line 1 are cut to 3x and an event says so.
    g = window_game(["SB SB SB SB SB", PLAIN, PLAIN2, PLAIN, PLAIN2], max_win_x=3)
    r = g.play_stops(BET, STOPS)
    (cap,) = of_type(r, "win_capped")
    assert r.win == 3 * BET and cap["cap"] == 3 * BET and cap["uncapped"] == 5 * BET
    assert r.events[-1] == {"type": "round_ended", "win": 3 * BET}


def test_the_cap_applies_to_lines_and_bonus_together(window_game):
    g = window_game(TRIGGER, max_win_x=5)
    r = g.play_stops(BET, STOPS)
    lines = sum(e["win"] for e in of_type(r, "line_won"))
    (paid,) = of_type(r, "bonus_paid")
    assert lines + paid["win"] > 5 * BET
    assert r.win == 5 * BET
    assert of_type(r, "win_capped")[0]["uncapped"] == lines + paid["win"]


def test_no_cap_event_below_the_cap(window_game):
    r = window_game(["SB SB SB SB SB", PLAIN, PLAIN2, PLAIN, PLAIN2]).play_stops(BET, STOPS)
    assert not of_type(r, "win_capped") and r.win == 5 * BET
