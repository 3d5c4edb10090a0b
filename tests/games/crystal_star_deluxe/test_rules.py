"""Every rule of Crystal Star Deluxe on forced windows (stops 0, 0, 0 of a model built to show
them), each test named after the rule it would catch being broken. RULES.md maps the seed text
to these tests."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotlab.games.crystal_star_deluxe import kernel as k
from slotlab.rounds import IllegalBetError

from .conftest import MAX_BET, of_type, rows_to_window

B = "-"
BELOW_MAX_BETS = [9, 18, 27, 36]


def stage_wins(result, stage=0, kind="line_won"):
    return {e["line"]: e for e in of_type(result, kind) if e["stage"] == stage}


def middle(a, b, c):
    """A window with a, b, c on payline 1 (the middle row) and blanks elsewhere."""
    return rows_to_window([[B, B, B], [a, b, c], [B, B, B]])


def on_line(rows, symbols):
    """A window with ``symbols`` on the cells of a line given as rows per reel."""
    grid = [[B] * 3 for _ in range(3)]
    for r, row in enumerate(rows):
        grid[row][r] = symbols[r]
    return rows_to_window(grid)


# -- Crystal Star wild -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "combo", "pays"),
    [
        (("STARv", "777", "777"), "S3", 100),
        (("777", "STARv", "STARv"), "S3", 100),
        (("77", "77", "STAR^"), "S2", 50),
        (("STARv", "7", "STARv"), "S1", 25),
        (("2BAR", "STARv", "2BAR"), "B2", 18),
        (("STARv", "1BAR", "1BAR"), "B1", 6),
    ],
)
def test_star_substitutes_for_any_base_symbol(window_game, cells, combo, pays):
    result = window_game(middle(*cells)).play_stops(MAX_BET, [0, 0, 0])
    win = stage_wins(result)[1]
    assert (win["symbol"], win["multiplier"], win["win"]) == (combo, 1, pays * 5)


def test_star_stands_in_for_a_multiplier_symbol_without_its_multiplier(window_game):
    # STAR + 777x2 + 777x5: 777 x3 times 2 x 5; the Star adds no multiplier of its own and
    # copies none (it would be 20X or 50X if it did).
    result = window_game(middle("STARv", "777x2", "777x5")).play_stops(MAX_BET, [0, 0, 0])
    win = stage_wins(result)[1]
    assert (win["symbol"], win["multiplier"], win["win"]) == ("S3", 10, 100 * 10 * 5)


def test_star_with_two_multiplier_symbols_of_different_base_pays_mixed(window_game):
    result = window_game(middle("7x2", "STARv", "777x5")).play_stops(18, [0, 0, 0])
    win = stage_wins(result)[1]
    assert (win["symbol"], win["multiplier"], win["win"]) == ("ANY7", 10, 10 * 10 * 2)


@pytest.mark.parametrize(
    "cells", [("STARv", B, "777"), ("STARv", "STARv", B), (B, "STARv", "7x3")]
)
def test_star_never_substitutes_for_a_blank(window_game, cells):
    result = window_game(middle(*cells)).play_stops(MAX_BET, [0, 0, 0])
    assert stage_wins(result) == {}


@pytest.mark.parametrize(
    ("cells", "combo"),
    [
        (("777", "STARv", "7"), "ANY7"),
        (("77", "7", "777"), "ANY7"),
        (("2BAR", "STARv", "1BAR"), "ANYB"),
        (("1BAR", "2BAR", "1BAR"), "ANYB"),
    ],
)
def test_mixed_sevens_and_mixed_bars_pay_any(window_game, cells, combo):
    result = window_game(middle(*cells)).play_stops(MAX_BET, [0, 0, 0])
    assert stage_wins(result)[1]["symbol"] == combo


@pytest.mark.parametrize("cells", [("777", "2BAR", "777"), ("7", "STARv", "1BAR")])
def test_sevens_and_bars_never_mix(window_game, cells):
    assert stage_wins(window_game(middle(*cells)).play_stops(MAX_BET, [0, 0, 0])) == {}


def test_three_stars_pay_only_the_three_star_prize(window_game):
    result = window_game(middle("STARv", "STARv", "STARv")).play_stops(MAX_BET, [0, 0, 0])
    assert stage_wins(result) == {}
    assert [e["tier"] for e in of_type(result, "progressive_won") if e["stage"] == 0] == [
        "bottom"
    ]


# -- fixed multipliers -------------------------------------------------------------------------


def test_all_multipliers_on_a_line_multiply_together(window_game):
    result = window_game(middle("7x2", "7x3", "7x3")).play_stops(27, [0, 0, 0])
    win = stage_wins(result)[1]
    assert (win["symbol"], win["multiplier"], win["win"]) == ("S1", 18, 25 * 18 * 3)


def test_total_multiplier_is_capped_at_75x(window_game):
    # Only a model with a 5X symbol on reel 2 can reach 5 x 5 x 5 = 125.
    result = window_game(middle("777x5", "777x5", "777x5")).play_stops(MAX_BET, [0, 0, 0])
    win = stage_wins(result)[1]
    assert (win["multiplier"], win["win"]) == (75, 100 * 75 * 5)


def test_the_cap_is_read_from_the_model(window_game):
    game = window_game(middle("777x5", "777x5", "777x5"), multiplier_cap=100)
    assert stage_wins(game.play_stops(MAX_BET, [0, 0, 0]))[1]["multiplier"] == 100


def test_v1_strips_reach_exactly_the_75x_cap(game):
    mults = [row["multiplier"] for row in game.exact()["tables"]["multipliers"]]
    assert max(mults) == 75


@pytest.mark.parametrize("bet", BELOW_MAX_BETS)
def test_multipliers_never_apply_to_three_star_prizes(window_game, bet):
    # Multiplier symbols all around the three-Star line; the prize is still 300 x line bet.
    window = rows_to_window(
        [["777x5", "7x3", "2BARx5"], ["STARv", "STARv", "STARv"], ["1BARx5", "77x3", "777x2"]]
    )
    result = window_game(window).play_stops(bet, [0, 0, 0])
    flats = stage_wins(result, kind="flat_prize_won")
    assert flats[1]["win"] == 300 * (bet // 9)


# -- double nudge ------------------------------------------------------------------------------


def test_no_star_no_nudge(window_game):
    result = window_game(middle("777", "777", "777")).play_stops(MAX_BET, [0, 0, 0])
    assert of_type(result, "reels_nudged") == []


def test_top_row_star_nudges_down_twice(window_game):
    window = rows_to_window([["STAR^", B, B], [B, B, B], ["7", B, B]])
    result = window_game(window).play_stops(MAX_BET, [0, 0, 0])
    nudges = of_type(result, "reels_nudged")
    assert [n["step"] for n in nudges] == [1, 2]
    # The Star goes to the middle row, then to the bottom row; the whole reel moves with it.
    assert nudges[0]["window"][0] == [B, "STAR^", B]
    assert nudges[1]["window"][0] == [B, B, "STAR^"]
    assert [n["stops"][0] for n in nudges] == [7, 6]  # strip of 8: stop 0 -> 7 -> 6
    assert all(n["stops"][1:] == [0, 0] for n in nudges)  # reels without a Star stay


def test_bottom_row_star_nudges_up_twice(window_game):
    window = rows_to_window([[B, B, "1BAR"], [B, B, B], [B, B, "STARv"]])
    nudges = of_type(window_game(window).play_stops(MAX_BET, [0, 0, 0]), "reels_nudged")
    assert [n["window"][2] for n in nudges] == [[B, "STARv", B], ["STARv", B, B]]


@pytest.mark.parametrize(
    ("star", "after"), [("STAR^", ["STAR^", B, B]), ("STARv", [B, B, "STARv"])]
)
def test_middle_row_star_nudges_once_the_way_its_arrow_points(window_game, star, after):
    window = rows_to_window([[B, B, B], [B, star, B], [B, B, B]])
    nudges = of_type(window_game(window).play_stops(MAX_BET, [0, 0, 0]), "reels_nudged")
    assert [n["window"][1] for n in nudges] == [after]


def test_all_stars_nudge_at_the_same_time(window_game):
    # Reel 1: top (2 steps); reel 2: middle, arrow up (1 step); reel 3: bottom (2 steps).
    window = rows_to_window([["STARv", B, B], [B, "STAR^", B], [B, B, "STAR^"]])
    nudges = of_type(window_game(window).play_stops(MAX_BET, [0, 0, 0]), "reels_nudged")
    assert nudges[0]["stops"] == [7, 1, 1]  # every Star moved in step 1
    assert nudges[1]["stops"] == [6, 1, 2]  # reel 2's Star reached the top and stays


def test_initial_stop_is_paid_first_then_each_nudge(window_game):
    # Stage 0: 777 777 777 on line 1. Step 1: reel 1's Star comes to the middle: STAR 777 777.
    # Step 2: the Star reaches the bottom row: line 3 is STAR 2BAR 2BAR.
    window = rows_to_window([["STARv", B, B], ["777", "777", "777"], [B, "2BAR", "2BAR"]])
    result = window_game(window).play_stops(9, [0, 0, 0])
    kinds = [(e["type"], e.get("stage", e.get("step"))) for e in result.events]
    assert kinds == [
        ("reels_stopped", "base"),
        ("line_won", 0),
        ("reels_nudged", 1),
        ("line_won", 1),
        ("reels_nudged", 2),
        ("line_won", 2),
        ("round_ended", None),
    ]
    assert [(e["line"], e["symbol"]) for e in of_type(result, "line_won")] == [
        (1, "S3"), (1, "S3"), (3, "B2")
    ]
    assert result.win == 100 + 100 + 18


def test_star_never_leaves_lines_2_and_3_over_every_v1_landing(game):
    # Every top-row stop of every reel, with the Star in view in each: over the two steps the
    # Star stays on rows 0..2 (lines 2..3 are the edges) and moves once from the middle, twice
    # from an edge.
    m = game.model
    for r in range(3):
        n = int(m.lengths[r])
        for stop in range(n):
            col = [m.symbol_ids[m.strips[r, stop + i]] for i in range(3)]
            rows = [i for i, s in enumerate(col) if s.startswith("STAR")]
            if not rows:
                continue
            stops = [0, 0, 0]
            stops[r] = stop
            result = game.play_stops(MAX_BET, stops)
            seen = [rows[0]]
            for e in of_type(result, "reels_nudged"):
                seen += [i for i, s in enumerate(e["window"][r]) if s.startswith("STAR")]
            expected_steps = 1 if rows[0] == 1 else 2
            assert len(seen) - 1 >= expected_steps
            # The Star's own movement: one row per step until it reaches an edge, then stays.
            moves = [b - a for a, b in itertools.pairwise(seen)]
            assert sum(1 for d in moves if d) == expected_steps
            assert all(0 <= row <= 2 for row in seen)


def test_progressive_before_the_nudge(window_game):
    window = rows_to_window([[B, B, B], ["STAR^", "STARv", "STARv"], [B, B, B]])
    result = window_game(window).play_stops(MAX_BET, [0, 0, 0])
    assert [(e["tier"], e["stage"], e["line"]) for e in of_type(result, "progressive_won")] == [
        ("bottom", 0, 1)
    ]


def test_progressive_after_the_nudge(window_game):
    # Stars on the top row of reels 1 and 3 and the middle of reel 2 (arrow down): no line at
    # stage 0 holds three Stars; after step 1 they sit on rows 1, 2, 1 = payline 9.
    window = rows_to_window([["STARv", B, "STARv"], [B, "STARv", B], [B, B, B]])
    result = window_game(window).play_stops(MAX_BET, [0, 0, 0])
    assert [(e["tier"], e["stage"], e["line"]) for e in of_type(result, "progressive_won")] == [
        ("bottom", 0, 6),  # rows 0, 1, 0 = payline 6
        ("top", 1, 9),
    ]
    assert result.jackpots == ("bottom", "top")


# -- symbol-triggered progressives ------------------------------------------------------------


@pytest.mark.parametrize("line", range(1, 9))
def test_three_stars_on_lines_1_to_8_award_the_bottom_progressive(game, window_game, line):
    rows = game.model.spec.lines[line - 1]
    result = window_game(on_line(rows, ["STARv", "STARv", "STARv"])).play_stops(
        MAX_BET, [0, 0, 0]
    )
    first = of_type(result, "progressive_won")[0]
    assert (first["tier"], first["line"], first["stage"]) == ("bottom", line, 0)
    assert "bottom" in result.jackpots


def test_three_stars_on_line_9_award_the_top_progressive(game, window_game):
    rows = game.model.spec.lines[8]
    assert list(rows) == [1, 2, 1]
    result = window_game(on_line(rows, ["STARv", "STARv", "STARv"])).play_stops(
        MAX_BET, [0, 0, 0]
    )
    first = of_type(result, "progressive_won")[0]
    assert (first["tier"], first["line"], first["stage"]) == ("top", 9, 0)


def test_progressive_amount_is_not_part_of_the_round_win(window_game):
    window = rows_to_window([[B, B, B], ["STAR^", "STARv", "STARv"], [B, B, B]])
    result = window_game(window).play_stops(MAX_BET, [0, 0, 0])
    assert result.jackpots == ("bottom",)
    line_and_flat = sum(e["win"] for e in result.events if e["type"] in ("line_won",
                                                                          "flat_prize_won"))
    assert result.win == line_and_flat
    assert of_type(result, "round_ended")[0]["win"] == result.win


def test_each_tier_once_per_play_then_1500_credits_on_lines_1_to_8(window_game):
    # Three Stars across the top row: line 2 at stage 0, line 1 after step 1, line 3 after 2.
    window = rows_to_window([["STARv", "STAR^", "STARv"], [B, B, B], [B, B, B]])
    result = window_game(window).play_stops(MAX_BET, [0, 0, 0])
    assert [(e["tier"], e["line"]) for e in of_type(result, "progressive_won")] == [("bottom", 2)]
    flats = of_type(result, "flat_prize_won")
    assert [(f["stage"], f["line"], f["win"], f["reason"]) for f in flats] == [
        (1, 1, 1500, "bottom_progressive_already_won"),
        (2, 3, 1500, "bottom_progressive_already_won"),
    ]
    assert result.jackpots == ("bottom",)
    assert result.win == 3000


def test_repeated_top_line_hit_pays_4000_times_line_bet():
    # Unreachable with nudges (see test_exact), so the branch is checked in the kernel itself.
    params = np.array([75, 8, 4000, 300, 4000, 1500, 20000, 1500], np.int64)
    won = np.array([1, 0], np.int64)
    tot = np.zeros(k.T_SIZE, np.int64)
    ev = np.zeros((1, k.EV_COLS), np.int64)
    n = k._three_stars(1, 8, 5, True, params, won, tot, True, ev, 0)
    assert n == 1
    assert list(ev[0, :5]) == [k.EV_FLAT, 1, 8, 20000, k.FLAT_TOP_ALREADY_WON]
    assert tot[k.T_FLAT] == 20000 and tot[k.T_TOP] == 0


@pytest.mark.parametrize("bet", BELOW_MAX_BETS)
def test_below_max_bet_three_stars_pay_flat_prizes_times_line_bet(game, window_game, bet):
    line_bet = bet // 9
    nine = window_game(on_line(game.model.spec.lines[8], ["STARv"] * 3)).play_stops(bet, [0, 0, 0])
    assert nine.jackpots == () and of_type(nine, "progressive_won") == []
    assert stage_wins(nine, kind="flat_prize_won")[9]["win"] == 4000 * line_bet
    one = window_game(middle("STARv", "STARv", "STARv")).play_stops(bet, [0, 0, 0])
    first = stage_wins(one, kind="flat_prize_won")[1]
    assert (first["win"], first["reason"]) == (300 * line_bet, "three_stars_below_max_bet")


@pytest.mark.parametrize("bet", BELOW_MAX_BETS)
def test_below_max_bet_several_flat_prizes_in_one_play(window_game, bet):
    window = rows_to_window([["STARv", "STAR^", "STARv"], [B, B, B], [B, B, B]])
    result = window_game(window).play_stops(bet, [0, 0, 0])
    assert [f["line"] for f in of_type(result, "flat_prize_won")] == [2, 1, 3]
    assert result.win == 3 * 300 * (bet // 9)


def test_contribution_event_at_max_bet_only(game):
    at_max = game.play_stops(MAX_BET, [5, 5, 5])
    contributed = of_type(at_max, "progressive_contributed")
    assert contributed == [
        {"type": "progressive_contributed", "contributions": {"top": "9/50", "bottom": "27/200"}}
    ]
    assert of_type(game.play_stops(36, [5, 5, 5]), "progressive_contributed") == []


# -- lines, bets, credits ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "rows"), [(1, [1, 1, 1]), (2, [0, 0, 0]), (3, [2, 2, 2]), (9, [1, 2, 1])]
)
def test_payline_numbering(window_game, line, rows):
    result = window_game(on_line(rows, ["777", "777", "777"])).play_stops(9, [0, 0, 0])
    assert list(stage_wins(result)) == [line]
    assert stage_wins(result)[line]["positions"] == [[r, rows[r]] for r in range(3)]


def test_wins_need_all_three_reels_from_the_left(window_game):
    assert stage_wins(window_game(middle("777", "777", B)).play_stops(9, [0, 0, 0])) == {}
    assert stage_wins(window_game(middle(B, "777", "777")).play_stops(9, [0, 0, 0])) == {}


def test_wins_only_on_paylines(window_game):
    # 777 on rows 0, 2, 0: a V that is no payline.
    window = rows_to_window([["777", B, "777"], [B, B, B], [B, "777", B]])
    assert window_game(window).play_stops(MAX_BET, [0, 0, 0]).win == 0


def test_wins_on_several_lines_are_added(window_game):
    window = rows_to_window([["7", "7", "7"], ["1BAR", "1BAR", "1BAR"], [B, B, B]])
    result = window_game(window).play_stops(18, [0, 0, 0])
    assert {line: e["win"] for line, e in stage_wins(result).items()} == {1: 12, 2: 50}
    assert result.win == 62


def test_only_the_highest_winner_per_line_and_stage(window_game):
    # 777 777 777 is also "any 7s"; only the 777 x3 pay counts.
    result = window_game(middle("777", "777", "777")).play_stops(9, [0, 0, 0])
    assert [(e["line"], e["symbol"]) for e in of_type(result, "line_won")] == [(1, "S3")]
    assert result.win == 100


@pytest.mark.parametrize("bet", [9, 18, 27, 36, 45])
def test_bets_are_1_to_5_credits_on_9_lines_and_wins_scale(window_game, bet):
    result = window_game(middle("2BAR", "2BARx2", "2BAR")).play_stops(bet, [0, 0, 0])
    assert result.win == 18 * 2 * (bet // 9)


@pytest.mark.parametrize("bet", [0, 1, 10, 44, 46, 90, -45])
def test_illegal_bets_are_refused(game, bet):
    with pytest.raises(IllegalBetError):
        game.play(bet, [b"seed"])
    with pytest.raises(IllegalBetError):
        game.play_stops(bet, [0, 0, 0])


def test_bets_and_max_bet(game):
    assert game.bets() == [9, 18, 27, 36, 45]
    assert game.max_bet() == 45


# -- invariants over any v1 play ---------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(st.tuples(*(st.integers(0, 75) for _ in range(3))), st.sampled_from([9, 18, 27, 36, 45]))
def test_invariants_of_every_play(game, stops, bet):
    result = game.play_stops(bet, stops)
    events = result.events
    line_bet = bet // 9
    pays = {c["combination"]: c["pays"]["3"] for c in game.describe()["paytable"]}
    start = 1 if bet == MAX_BET else 0
    assert (events[0]["type"] == "progressive_contributed") == (bet == MAX_BET)
    assert events[start]["type"] == "reels_stopped" and events[-1]["type"] == "round_ended"
    # Stages: none without a Star, one when every Star landed on the middle row, else two.
    rows = [[i for i, s in enumerate(col) if s.startswith("STAR")] for col in
            events[start]["window"]]
    landed = [r[0] for r in rows if r]
    expected = 0 if not landed else (1 if all(r == 1 for r in landed) else 2)
    assert len(of_type(result, "reels_nudged")) == expected
    wins = 0
    for e in of_type(result, "line_won"):
        assert 1 <= e["multiplier"] <= 75
        assert e["win"] == pays[e["symbol"]] * e["multiplier"] * line_bet
        wins += e["win"]
    wins += sum(e["win"] for e in of_type(result, "flat_prize_won"))
    assert result.win == wins == events[-1]["win"]
    tiers = [e["tier"] for e in of_type(result, "progressive_won")]
    assert len(tiers) == len(set(tiers)) and tuple(tiers) == result.jackpots
    assert not tiers or bet == MAX_BET
