"""Every rule of the seed text, each with a test that fails when the rule is broken.

Windows are forced with test strips (``make_game``: stop 0 shows the window) and every further
draw is scripted with ``play_stops(bet, stops, draws)`` in the kernel's draw order. At bet 30 one
credit is one line bet (the pay unit), so a total-bet multiple ``x`` is ``30 x`` credits.
"""

from __future__ import annotations

import pytest

from slotlab.games.super_12_stars.model import load_model

from .conftest import BET, ZERO, of_type, rows_to_columns, types

TOP = "LE BE GR BE GR"  # fillers that pay nothing with the middle rows used below
BOTTOM = "PL GR BA GR BA"
QUIET = [TOP, "OR BA LE SE CH", BOTTOM]  # a window without any win
FIVE_SPINS, X1, X2, X3 = 0, 0, 1, 2  # TV table indices: 5 spins; multipliers 1, 2, 3


def middle(row: str) -> list[str]:
    return [TOP, row, BOTTOM]


def lines_of(result):
    return {(e["line"], e["symbol"], e["count"]): e["win"] for e in of_type(result, "line_won")}


# -- lines ---------------------------------------------------------------------------------


def test_spin_plays_30_lines_at_the_total_bet_and_a_line_pays_x_line_bet(make_game):
    g = make_game(base=middle("SE SE SE BA GR"))
    assert len(g.model.lines) == 30 and g.bets() == [30 * c for c in g.model.line_levels]
    for bet in (30, 300, 3000):
        r = g.play_stops(bet, ZERO)
        assert lines_of(r) == {(1, "SE", 3): 80 * bet // 30}
        assert r.win == 80 * bet // 30


def test_three_four_and_five_of_a_kind_pay_two_do_not(make_game):
    pays = {"SE SE CH BA GR": 0, "SE SE SE BA GR": 80, "SE SE SE SE GR": 400,
            "SE SE SE SE SE": 1500}
    for row, win in pays.items():
        assert make_game(base=middle(row)).play_stops(BET, ZERO).win == win, row


def test_a_line_pays_only_its_highest_combination(make_game):
    r = make_game(base=middle("SE SE SE SE GR")).play_stops(BET, ZERO)
    assert lines_of(r) == {(1, "SE", 4): 400}  # not 400 + 80 for the three inside the four


def test_combinations_pay_left_to_right_from_the_leftmost_reel(make_game):
    assert make_game(base=middle("CH SE SE SE SE")).play_stops(BET, ZERO).win == 0
    assert make_game(base=middle("SE SE SE CH GR")).play_stops(BET, ZERO).win == 80


def test_combinations_pay_on_adjacent_reels_only(make_game):
    assert make_game(base=middle("SE SE BA SE SE")).play_stops(BET, ZERO).win == 0


def test_wins_on_different_lines_are_added(make_game):
    # The Seven on reel 1 top row reaches the middle row of reel 2 on line 16 [0,1,1,1,0].
    r = make_game(base=["SE BE GR BE GR", "SE SE SE BA GR", BOTTOM]).play_stops(BET, ZERO)
    assert lines_of(r) == {(1, "SE", 3): 80, (16, "SE", 3): 80}
    assert r.win == 160


def test_wild_substitutes_for_paying_symbols(make_game):
    r = make_game(base=middle("CH W CH BA GR")).play_stops(BET, ZERO)
    assert lines_of(r) == {(1, "CH", 3): 11}


def test_wild_does_not_substitute_bonus_wheel_or_scatters(make_game):
    # Two Bonus and a Wild, two Wheels and a Wild, two golden and a Wild, silver stacks with
    # wilds: none completes its feature or pays.
    cases = {
        "bonus": ["LE BO W BO GR", "OR BA LE SE CH", BOTTOM],
        "wheel": ["WH BE W BE WH", "OR BA LE SE CH", BOTTOM],
        "golden": ["GS GS W BE GR", "OR BA LE SE CH", BOTTOM],
    }
    for name, rows in cases.items():
        r = make_game(base=rows).play_stops(BET, ZERO)
        assert set(types(r)) <= {"reels_stopped", "line_won", "round_ended"}, name
    silver = make_game(base=[["LE", "OR", "PL"], ["SS", "SS", "BE"], ["W", "W", "W"],
                             ["BE", "GR", "BA"], ["BE", "GR", "BA"]])
    assert of_type(silver.play_stops(BET, ZERO), "scatter_won") == []  # 2 silver + 3 wilds


def test_wild_appears_on_reels_2_to_4_only(v1_raw):
    for set_name in ("base", "free", "super10_free"):
        strips = v1_raw["reel_strips"][set_name]
        assert [("W" in s) for s in strips] == [False, True, True, True, False]
        for reel in (0, 4):
            raw = {**v1_raw, "reel_strips": {**v1_raw["reel_strips"],
                                             set_name: [list(s) for s in strips]}}
            raw["reel_strips"][set_name][reel][0] = "W"
            with pytest.raises(ValueError, match="W may not appear"):
                load_model(raw)


def test_a_line_of_wilds_pays_as_sevens(game):
    # Wilds never stand on reel 1, so a run of wilds from the leftmost reel cannot land; the
    # evaluator would pay it from the Seven's row of the pay table.
    m = game.model
    assert m.paytab[m.code["W"]].tolist() == m.paytab[m.code["SE"]].tolist()
    assert m.spec.wild_only_line_pays_as == "SE"


def test_wild_on_a_line_starting_with_another_symbol_completes_longest_run(make_game):
    r = make_game(base=middle("OR W W W OR")).play_stops(BET, ZERO)
    assert lines_of(r)[(1, "OR", 5)] == 120


# -- scatters ------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "x"), [(3, 5), (4, 25), (5, 200)])
def test_golden_scatter_pays_by_count_anywhere_x_total_bet(make_game, count, x):
    cols = [["GS", "OR", "PL"], ["BE", "GS", "BA"], ["GR", "BA", "GS"], ["GS", "GR", "BA"],
            ["BE", "GS", "BA"]]
    for r in range(count, 5):  # remove golden from the last reels
        cols[r] = [s if s != "GS" else "CH" for s in cols[r]]
    g = make_game(base=cols)
    for bet in (30, 600):
        r = g.play_stops(bet, ZERO)
        (sc,) = of_type(r, "scatter_won")
        assert (sc["scatter"], sc["count"], sc["win"]) == ("golden", count, x * bet)
        assert len(sc["positions"]) == count
    assert of_type(make_game(base=[c if i else ["CH", "OR", "PL"] for i, c in
                                   enumerate(cols[:2] + [["GR", "BA", "CH"]] * 3)])
                   .play_stops(BET, ZERO), "scatter_won") == []  # 1 golden pays nothing


@pytest.mark.parametrize(("count", "x"), [
    (2, 0), (3, 0.5), (4, 1), (5, 2), (6, 5), (7, 15), (8, 40), (9, 100)])
def test_silver_scatter_pays_3_to_9_anywhere_x_total_bet(make_game, count, x):
    cols = [["LE", "OR", "PL"]] + [["BE", "GR", "BA"] for _ in range(4)]
    for r in (1, 2, 3):  # silver fills reels 2, 3, 4 from the top
        k = min(3, max(0, count - 3 * (r - 1)))
        cols[r] = ["SS"] * k + cols[r][k:]
    r = make_game(base=cols).play_stops(300, ZERO)
    got = [(e["scatter"], e["count"], e["win"]) for e in of_type(r, "scatter_won")]
    assert got == ([("silver", count, int(x * 300))] if x else [])
    assert r.win == int(x * 300)


def test_scatter_wins_are_added_to_line_wins(make_game):
    g = make_game(base=["GS BE GR BE GS", "SE SE SE BA GR", "PL GR GS GR BA"])
    r = g.play_stops(BET, ZERO)
    assert lines_of(r) == {(1, "SE", 3): 80}
    assert r.win == 80 + 5 * BET


# -- Wheel ---------------------------------------------------------------------------------


def test_wheel_symbols_appear_on_reels_1_3_5_only(v1_raw):
    assert [("WH" in s) for s in v1_raw["reel_strips"]["base"]] == [True, False, True, False,
                                                                     True]
    raw = {**v1_raw, "reel_strips": {**v1_raw["reel_strips"]}}
    raw["reel_strips"]["base"] = [list(s) for s in v1_raw["reel_strips"]["base"]]
    raw["reel_strips"]["base"][1][0] = "WH"
    with pytest.raises(ValueError, match="WH may not appear"):
        load_model(raw)


@pytest.mark.parametrize("segment", [0, 4, 10])
def test_three_wheels_spin_the_wheel_paying_segment_x_line_bet(make_game, segment):
    g = make_game(base=["WH BE GR BE GR", "OR BA WH SE CH", "PL GR BA GR WH"])
    value = g.model.wheel.values[segment]
    for bet in (30, 150):
        r = g.play_stops(bet, ZERO, [segment])
        (w,) = of_type(r, "wheel_spun")
        assert (w["segment"], w["value"], w["win"]) == (segment, value, value * bet // 30)
        assert r.win == value * bet // 30
    two = make_game(base=["WH BE GR BE GR", "OR BA LE SE CH", "PL GR BA GR WH"])
    assert of_type(two.play_stops(BET, ZERO), "wheel_spun") == []


# -- Bonus and free spins ------------------------------------------------------------------


def _bonus_game(make_game, free_rows=None, **kw):
    return make_game(base=["LE BO BO BO GR", "OR BA LE SE CH", BOTTOM],
                     free=free_rows or middle("SE SE SE BA GR"), **kw)


def test_bonus_symbols_appear_on_reels_2_3_4_only(v1_raw):
    for set_name in ("base", "free"):
        assert [("BO" in s) for s in v1_raw["reel_strips"][set_name]] == [
            False, True, True, True, False]
    raw = {**v1_raw, "reel_strips": {**v1_raw["reel_strips"]}}
    raw["reel_strips"]["base"] = [list(s) for s in v1_raw["reel_strips"]["base"]]
    raw["reel_strips"]["base"][0][1] = "BO"
    with pytest.raises(ValueError, match="BO may not appear"):
        load_model(raw)


def test_three_bonus_pay_the_total_bet_once_and_start_the_tv_mini_game(make_game):
    g = _bonus_game(make_game)
    r = g.play_stops(BET, ZERO, [FIVE_SPINS, X1] + [0] * 25)
    (b,) = of_type(r, "bonus_won")
    assert b["count"] == 3 and b["win"] == BET and b["stage"] == "base"  # once, not per symbol
    (tv,) = of_type(r, "tv_drawn")
    assert (tv["spins"], tv["multiplier"]) == (5, 1)
    assert types(r).index("tv_drawn") < types(r).index("free_spins_awarded")
    two = make_game(base=["LE BO BO GR GR", "OR BA LE SE CH", BOTTOM])
    assert of_type(two.play_stops(BET, ZERO), "bonus_won") == []


@pytest.mark.parametrize(("si", "mi"), [(0, 0), (2, 1), (4, 2)])
def test_tv_mini_game_draws_the_number_of_free_spins_and_the_multiplier(make_game, si, mi):
    g = _bonus_game(make_game)
    spins, mult = g.model.tv_spins.values[si], g.model.tv_multiplier.values[mi]
    r = g.play_stops(BET, ZERO, [si, mi] + [0] * (5 * spins))
    assert of_type(r, "tv_drawn")[0] == {"type": "tv_drawn", "spins": spins, "multiplier": mult,
                                         "spins_index": si, "multiplier_index": mi}
    free = [e for e in of_type(r, "reels_stopped") if e["stage"] == "free"]
    assert [e["spin"] for e in free] == list(range(1, spins + 1))
    assert {e["multiplier"] for e in free} == {mult}


@pytest.mark.parametrize("mi", [0, 1, 2])
def test_every_free_spin_win_is_multiplied_by_the_multiplier(make_game, mi):
    # Each free spin: three Sevens on line 1 and three silver (one on reel 3, stacked pair...)
    free_rows = ["LE BE SS BE GR", "SE SE SE BA GR", "PL SS GR SS BA"]
    g = _bonus_game(make_game, free_rows=free_rows)
    mult = g.model.tv_multiplier.values[mi]
    r = g.play_stops(BET, ZERO, [FIVE_SPINS, mi] + [0] * 25)
    free_lines = [e for e in of_type(r, "line_won") if e["stage"] == "free"]
    assert len(free_lines) == 5 and all(e["win"] == 80 * mult and e["multiplier"] == mult
                                        for e in free_lines)
    free_silver = [e for e in of_type(r, "scatter_won") if e["stage"] == "free"]
    assert [e["win"] for e in free_silver] == [BET // 2 * mult] * 5
    assert r.win == BET + 5 * (80 + BET // 2) * mult


def test_free_spins_are_played_on_special_reels_without_golden_or_wheel(v1_raw):
    for set_name in ("free", "super10_free"):
        flat = {s for strip in v1_raw["reel_strips"][set_name] for s in strip}
        assert not flat & {"GS", "WH", "T10", "T12"}
    for sym, reel in (("GS", 2), ("WH", 0)):
        raw = {**v1_raw, "reel_strips": {**v1_raw["reel_strips"]}}
        raw["reel_strips"]["free"] = [list(s) for s in v1_raw["reel_strips"]["free"]]
        raw["reel_strips"]["free"][reel][0] = sym
        with pytest.raises(ValueError, match=f"{sym} may not appear"):
            load_model(raw)


def test_a_free_spin_window_comes_from_the_free_spin_strips(make_game):
    g = _bonus_game(make_game, free_rows=middle("CH CH CH BA GR"))
    r = g.play_stops(BET, ZERO, [FIVE_SPINS, X1] + [0, 0, 0, 0, 0] + [0] * 20)
    first = next(e for e in of_type(r, "reels_stopped") if e["stage"] == "free")
    assert first["window"] == g.model.window(1, ZERO) == rows_to_columns(middle("CH CH CH BA GR"))
    assert first["window"] != of_type(r, "reels_stopped")[0]["window"]  # not the base strips


def test_three_bonus_in_free_spins_add_the_initial_spins_and_pay_bet_x_multiplier(make_game):
    g = _bonus_game(make_game, free_rows=["LE BO BO BO GR", "OR BA LE SE CH", BOTTOM])
    # 5 spins x3: every free spin shows 3 Bonus, so every spin adds 5 more until 50 in all.
    r = g.play_stops(BET, ZERO, [FIVE_SPINS, X3] + [0] * 250)
    re = of_type(r, "free_spins_retriggered")
    assert [e["awarded"] for e in re] == [5] * 9
    assert [e["total"] for e in re] == list(range(10, 55, 5))
    free_bonus = [e for e in of_type(r, "bonus_won") if e["stage"] == "free"]
    assert len(free_bonus) == 50 and all(e["win"] == BET * 3 for e in free_bonus)
    assert r.win == BET + 50 * BET * 3


def test_free_spins_stop_at_50_awarded_in_total(make_game):
    g = _bonus_game(make_game, free_rows=["LE BO BO BO GR", "OR BA LE SE CH", BOTTOM])
    r = g.play_stops(BET, ZERO, [4, X1] + [0] * 250)  # 15 spins: 15, 30, 45, then 5 more
    assert [e["awarded"] for e in of_type(r, "free_spins_retriggered")] == [15, 15, 5]
    free = [e for e in of_type(r, "reels_stopped") if e["stage"] == "free"]
    assert len(free) == 50 and free[-1]["spins"] == 50


def test_free_spins_are_played_at_the_bet_of_the_triggering_spin(make_game):
    g = _bonus_game(make_game)
    for bet in (30, 90, 3000):
        r = g.play_stops(bet, ZERO, [FIVE_SPINS, X2] + [0] * 25)
        level = bet // 30
        free_lines = [e for e in of_type(r, "line_won") if e["stage"] == "free"]
        assert {e["win"] for e in free_lines} == {80 * 2 * level}
        assert r.win == bet + 5 * 160 * level


# -- Super 7 -------------------------------------------------------------------------------


def test_super7_appears_on_the_central_reel_only(v1_raw):
    for set_name in ("base", "free", "super10_free"):
        assert [("S7" in s) for s in v1_raw["reel_strips"][set_name]] == [
            False, False, True, False, False]
    for giant in ("S7", "T10", "T12"):
        raw = {**v1_raw, "reel_strips": {**v1_raw["reel_strips"]}}
        raw["reel_strips"]["base"] = [list(s) for s in v1_raw["reel_strips"]["base"]]
        raw["reel_strips"]["base"][1][0] = giant
        with pytest.raises(ValueError, match=f"{giant} may not appear"):
            load_model(raw)


@pytest.mark.parametrize("row", [0, 1, 2])
def test_super7_expands_the_central_reel_into_wilds_for_the_spin(make_game, row):
    reel3 = ["GR", "BA", "CH"]
    reel3[row] = "S7"
    cols = [["LE", "SE", "PL"], ["BE", "SE", "GR"], reel3, ["BE", "SE", "GR"],
            ["GR", "BA", "BA"]]
    g = make_game(base=cols)
    r = g.play_stops(BET, ZERO, [0, 0, 0, 0])
    (x,) = of_type(r, "super7_expanded")
    assert x["reel"] == 3 and x["row"] == row and x["window"][2] == ["W", "W", "W"]
    initial = {(e["line"], e["symbol"], e["count"]) for e in lines_of_after(r, 0)}
    # Line 1 SE SE W SE and the lines through the other wild cells of reel 3 pay four Sevens.
    assert (1, "SE", 4) in initial
    assert all(c == 4 and s == "SE" for _, s, c in initial)


def test_super7_gives_one_respin_with_the_central_reel_held_as_wilds(make_game):
    cols = [["LE", "SE", "PL"], ["BE", "SE", "GR"], ["GR", "S7", "CH"], ["BE", "SE", "GR"],
            ["GR", "BA", "BA"]]
    g = make_game(base=cols)
    r = g.play_stops(BET, [0, 0, 0, 0, 0], [0, 0, 0, 3])  # the respin: 4 stops, reel 3 kept
    spins = of_type(r, "reels_stopped")
    assert [e["respin"] for e in spins] == [False, True]  # one respin, no more
    assert spins[1]["stops"][2] == 0 and spins[1]["window"][2] == ["W", "W", "W"]
    assert spins[1]["window"][4] == ["LE", "OR", "PL"]  # reel 5 spun (to stop 3)
    respin_lines = lines_of_after(r, 1)
    assert respin_lines and r.win == sum(e["win"] for e in of_type(r, "line_won"))
    with pytest.raises(ValueError, match="not used"):
        g.play_stops(BET, ZERO, [0, 0, 0, 0, 0])  # a fifth respin stop is never drawn


def lines_of_after(result, spin_number):
    """line_won events after the ``spin_number``-th reels_stopped (0-based)."""
    seen = -1
    out = []
    for e in result.events:
        if e["type"] == "reels_stopped":
            seen += 1
        elif e["type"] == "line_won" and seen == spin_number:
            out.append(e)
    return out


def test_super7_in_free_spins_expands_and_respins_with_the_multiplier(make_game):
    g = _bonus_game(make_game, free_rows=[["LE", "SE", "PL"], ["BE", "SE", "GR"],
                                          ["GR", "S7", "CH"], ["BE", "SE", "GR"],
                                          ["GR", "BA", "BA"]])
    r = g.play_stops(BET, ZERO, [FIVE_SPINS, X2] + [0] * (5 * 9))
    free = [e for e in of_type(r, "reels_stopped") if e["stage"] == "free"]
    assert [e["respin"] for e in free] == [False, True] * 5
    assert len([e for e in of_type(r, "super7_expanded") if e["stage"] == "free"]) == 5
    assert all(e["multiplier"] == 2 for e in of_type(r, "line_won") if e["stage"] == "free")


def test_super7_in_super10_free_spins_expands_and_respins(make_game):
    g = make_game(base=["LE BE T10 BE GR", "OR BA T10 SE CH", "PL GR T10 GR BA"],
                  super10_free=[["LE", "SE", "PL"], ["BE", "SE", "GR"], ["GR", "S7", "CH"],
                                ["BE", "SE", "GR"], ["GR", "BA", "BA"]])
    r = g.play_stops(BET, ZERO, [8] + [0] * (5 * 9))  # 5 Super 10 free spins
    free = [e for e in of_type(r, "reels_stopped") if e["stage"] == "super10_free"]
    assert [e["respin"] for e in free] == [False, True] * 5
    assert all(e["multiplier"] == 1 for e in of_type(r, "line_won"))


# -- Super 10 ------------------------------------------------------------------------------


def _s10_game(make_game, **kw):
    return make_game(base=["LE BE T10 BE GR", "OR BA T10 SE CH", "PL GR T10 GR BA"], **kw)


def test_full_super10_starts_the_mini_game_with_a_direct_win_x_total_bet(make_game):
    g = _s10_game(make_game)
    for oi in range(7):
        x = g.model.super10.values[oi][1]
        for bet in (30, 300):
            r = g.play_stops(bet, ZERO, [oi])
            (s,) = of_type(r, "super10_spun")
            assert (s["outcome"], s["value"], s["win"]) == ("direct", x, x * bet)
            assert r.win == x * bet and r.is_complete


def test_super10_free_spins_use_their_reels_without_multiplier_or_retrigger(make_game):
    g = _s10_game(make_game, super10_free=middle("SE SE SE BA GR"))
    for oi, spins in ((8, 5), (9, 8), (10, 10)):
        r = g.play_stops(BET, ZERO, [oi] + [0] * (5 * spins))
        (s,) = of_type(r, "super10_spun")
        assert (s["outcome"], s["value"]) == ("free_spins", spins)
        (a,) = of_type(r, "free_spins_awarded")
        assert (a["feature"], a["awarded"]) == ("super10_free", spins)
        free = [e for e in of_type(r, "reels_stopped") if e["stage"] == "super10_free"]
        assert len(free) == spins and {e["multiplier"] for e in free} == {1}
        assert r.win == 80 * spins
    for set_name in ("BO", "GS", "WH"):
        assert not any(set_name in s for s in g.model.spec.reel_strips.super10_free)


def test_super10_free_spin_reels_refuse_bonus_symbols(v1_raw):
    raw = {**v1_raw, "reel_strips": {**v1_raw["reel_strips"]}}
    raw["reel_strips"]["super10_free"] = [list(s) for s in v1_raw["reel_strips"]["super10_free"]]
    raw["reel_strips"]["super10_free"][2][0] = "BO"
    with pytest.raises(ValueError, match="BO may not appear"):
        load_model(raw)


def test_super10_frenzy_outcome_waits_for_the_colour(make_game):
    g = _s10_game(make_game)
    r = g.play_stops(BET, ZERO, [7])
    assert not r.is_complete
    assert r.awaiting.kind == "frenzy_colour" and r.awaiting.options == ("red", "green")
    assert types(r)[-2:] == ["super10_spun", "frenzy_offered"]


@pytest.mark.parametrize("giant", ["T10", "T12"])
def test_a_partial_super10_or_super12_is_a_blank_that_breaks_lines(make_game, giant):
    # Reel 3 strip: stop 0 shows giant, giant, SE (the block wraps round from the last stop).
    cols = [["LE", "SE", "SE"], ["BE", "SE", "SE"], [giant, giant, "SE", "LE", "OR", giant],
            ["BE", "SE", "GR"], ["GR", "SE", "BA"]]
    g = make_game(base=cols)
    r = g.play_stops(BET, ZERO)
    assert not of_type(r, "super10_spun") and not of_type(r, "lucky_stars_started")
    through_middle = [e for e in of_type(r, "line_won") if e["positions"][-1][0] >= 2
                      and any(p == [2, 0] or p == [2, 1] for p in e["positions"])]
    assert through_middle == []  # no line crosses a giant cell
    assert any(e["line"] == 3 for e in of_type(r, "line_won"))  # the bottom row still pays


# -- Frenzy Wheel --------------------------------------------------------------------------


def _frenzy(g, colour, boxes, bet=BET):
    return g.play_stops(bet, ZERO, [7, *boxes], [colour])


def test_frenzy_same_colour_spins_again_other_colour_ends(make_game):
    g = _s10_game(make_game)
    red = [0, 1, 2]  # red boxes 1, 2, 3; green boxes are 10..19
    r = _frenzy(g, "red", [*red, 12])
    spins = of_type(r, "frenzy_spun")
    assert [(e["value"], e["colour"]) for e in spins] == [(1, "red"), (2, "red"), (3, "red"),
                                                          (3, "green")]
    (end,) = of_type(r, "frenzy_ended")
    assert end["colour"] == "red" and end["total"] == 9
    g2 = _frenzy(g, "green", [10, 11, 0])
    assert [e["total"] for e in of_type(g2, "frenzy_spun")] == [1, 3, 4]
    assert of_type(g2, "frenzy_ended")[0]["total"] == 4


def test_frenzy_value_is_added_before_the_colour_test(make_game):
    r = _frenzy(_s10_game(make_game), "green", [9])  # red 25 on the first spin
    (end,) = of_type(r, "frenzy_ended")
    assert end["total"] == 25 and r.win == 25 * BET


def test_frenzy_ends_once_the_total_passes_100(make_game):
    g = _s10_game(make_game)
    r = _frenzy(g, "red", [9, 9, 9, 9, 9])  # 25 red each: 25, 50, 75, 100 (not above), 125
    assert [e["total"] for e in of_type(r, "frenzy_spun")] == [25, 50, 75, 100, 125]
    assert of_type(r, "frenzy_ended")[0]["total"] == 125
    with pytest.raises(ValueError, match="not used"):
        _frenzy(g, "red", [9, 9, 9, 9, 9, 9])  # no sixth spin


@pytest.mark.parametrize("bet", [30, 90, 1500])
def test_frenzy_pays_the_total_x_the_bet_of_the_mini_game(make_game, bet):
    r = _frenzy(_s10_game(make_game), "red", [4, 5, 16], bet=bet)  # 5 + 8 red, then green 10
    assert of_type(r, "frenzy_ended")[0]["win"] == 23 * bet and r.win == 23 * bet


def test_frenzy_wheel_mirrors_its_values_so_either_colour_wins_the_same(game):
    m = game.model
    red = [(v, m.frenzy.weights[i]) for i, (v, c) in enumerate(m.frenzy.values) if c == "red"]
    green = [(v, m.frenzy.weights[i]) for i, (v, c) in enumerate(m.frenzy.values)
             if c == "green"]
    assert red == green and len(red) == len(m.frenzy_per_colour.values)


# -- Lucky Stars ---------------------------------------------------------------------------


def _s12_game(make_game, **kw):
    return make_game(base=["LE BE T12 BE GR", "OR BA T12 SE CH", "PL GR T12 GR BA"], **kw)


def test_super12_becomes_3_held_stars_and_3_respins(make_game):
    g = _s12_game(make_game)
    r = g.play_stops(BET, ZERO, [0, 1, 2] + [0] * 36)  # three empty respins of 12 cells
    (start,) = of_type(r, "lucky_stars_started")
    assert [s["cell"] for s in start["stars"]] == [[2, 0], [2, 1], [2, 2]]
    assert [s["value"] for s in start["stars"]] == ["0.5", "1", "2"]
    assert start["counter"] == 3


def test_lucky_stars_end_when_the_respins_run_out(make_game):
    g = _s12_game(make_game)
    r = g.play_stops(BET, ZERO, [0, 1, 2] + [0] * 36)
    assert [e["counter"] for e in of_type(r, "lucky_stars_respun")] == [2, 1, 0]
    (end,) = of_type(r, "lucky_stars_ended")
    assert end["stars"] == 3 and end["values_win"] == int(3.5 * BET) and not end["grand"]
    assert r.win == int(3.5 * BET)


def test_each_new_star_is_held_and_the_counter_restarts_at_3(make_game):
    g = _s12_game(make_game)
    major = 1 + g.model.star_values.values.index("MAJOR")  # cell outcome of a Major star
    draws = [0, 0, 0] + [0] * 12 + [major] + [0] * 11 + [0] * 33
    r = g.play_stops(BET, ZERO, draws)
    respins = of_type(r, "lucky_stars_respun")
    assert [e["counter"] for e in respins] == [2, 3, 2, 1, 0]
    assert respins[1]["new_stars"] == [{"cell": [0, 0], "value": "MAJOR", "win": 50 * BET}]
    assert [e["stars_held"] for e in respins] == [3, 4, 4, 4, 4]
    (end,) = of_type(r, "lucky_stars_ended")
    assert end["stars"] == 4 and end["major"] == 1 and end["major_win"] == 50 * BET


def test_lucky_stars_end_when_all_15_positions_hold_stars_and_add_the_grand(make_game):
    g = _s12_game(make_game)
    minor = g.model.star_values.values.index("MINOR")
    r = g.play_stops(BET, ZERO, [minor] * 3 + [1] * 12)  # every free cell lands a 0.5 star
    respins = of_type(r, "lucky_stars_respun")
    assert len(respins) == 1 and respins[0]["stars_held"] == 15
    (end,) = of_type(r, "lucky_stars_ended")
    assert end["stars"] == 15 and end["grand"] and end["grand_win"] == 250 * BET
    assert end["minor"] == 3 and end["minor_win"] == 3 * 15 * BET
    assert end["values_win"] == 12 * BET // 2
    assert r.win == 250 * BET + 45 * BET + 6 * BET


def test_star_values_are_added_and_minor_major_are_their_fixed_prizes(make_game):
    g = _s12_game(make_game)
    labels = g.model.star_values.values
    draws = [labels.index("MINOR"), labels.index("MAJOR"), labels.index("10")] + [0] * 36
    for bet in (30, 600):
        r = g.play_stops(bet, ZERO, draws)
        (end,) = of_type(r, "lucky_stars_ended")
        assert end["win"] == (15 + 50 + 10) * bet == r.win


def test_minor_major_grand_are_fixed_not_progressive(make_game):
    g = _s12_game(make_game)
    draws = [7] * 3 + [1] * 12
    wins = {g.play_stops(BET, ZERO, draws).win for _ in range(3)}
    other_first = g.play_stops(BET, ZERO, [8] * 3 + [1] * 12)  # another round in between
    assert len(wins) == 1 and other_first.jackpots == () and g.play_stops(
        BET, ZERO, draws).win in wins
    assert "progressive" not in str(g.describe()["lucky_stars"]).lower()


# -- order of evaluation ----------------------------------------------------------------------


def test_features_follow_lines_scatters_and_bonus_pay(make_game):
    g = make_game(base=["GS BO BO BO GS", "SE SE SE BA GR", "PL GR GS GR BA"])
    r = g.play_stops(BET, ZERO, [FIVE_SPINS, X1] + [0] * 25)
    t = types(r)
    assert t.index("line_won") < t.index("scatter_won") < t.index("bonus_won") < t.index(
        "tv_drawn")
    assert r.win == 80 + 5 * BET + BET + sum(
        e["win"] for e in r.events if e.get("stage") == "free" and "win" in e)


# -- max win ------------------------------------------------------------------------------------


def test_v1_has_no_cap_and_a_model_cap_limits_the_round_win(game, make_game):
    assert game.model.cap_x is None  # the rule text states no cap
    g = make_game(base=middle("SE SE SE SE SE"), max_win_cap_x=10)
    r = g.play_stops(BET, ZERO)
    assert sum(e["win"] for e in of_type(r, "line_won")) == 1500
    assert r.win == 10 * BET and of_type(r, "win_capped") == [
        {"type": "win_capped", "cap": 10 * BET, "uncapped": 1500}]
    assert g.max_win_x() == 10 and "10 times the total bet" in " ".join(g.rules())
    frenzy = _s10_game(make_game, max_win_cap_x=20)
    done = _frenzy(frenzy, "green", [9])  # 25x, above the cap
    assert done.win == 20 * BET and of_type(done, "win_capped")[0]["uncapped"] == 25 * BET
