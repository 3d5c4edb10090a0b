"""Superstars Bonus Game: each rule sentence of the seed text, on scripted draws.

Every test scripts the draws of a whole Bonus Game (:class:`Script`) and checks both the events
and that the kernel used exactly the scripted draws (so a position that spun when locked, a
second wheel spin or a skipped roll all fail).
"""

from __future__ import annotations

import pytest

from slotlab.games.superstars.bonus import FLAG_FINAL_GAME, pack_bonus

from .bonus_reference import DICE, Played, Script, model_spec, play_script

SPEC = model_spec()
BP = pack_bonus(SPEC)
TRIG = [0, 5, 10]  # reels 1-3, top row
PRIZES = {0: 1, 5: 2, 10: 3}


def script(prizes: dict[int, int] | None = None) -> Script:
    return Script(SPEC).prizes(prizes or PRIZES)


def play(sc: Script, dice_cell: int = -1, trigger: list[int] | None = None) -> Played:
    return play_script(SPEC, BP, sc.words, trigger or TRIG, dice_cell)


def with_dice(prizes: dict[int, int] | None = None) -> Script:
    """Scatters on cells 0, 5, 10 and the Dice on cell 20 (reel 5, top row)."""
    return script({**PRIZES, 20: 4} if prizes is None else prizes)


def blank_spins(sc: Script, n: int) -> Script:
    for _ in range(n):
        sc.spin()
    return sc


def final_reels(p: Played) -> list[int]:
    return [e for e in p.events if "reels" in e][-1]["reels"]


# Start of the Bonus Game -------------------------------------------------------------------------

def test_triggering_scatters_become_prizes_of_the_prize_table() -> None:
    p = play(blank_spins(script({0: 1, 5: 25, 10: 10}), 3))
    start = p.events[0]
    assert start["type"] == "bonus_started"
    assert start["prizes"] == [{"cell": 0, "value": 1}, {"cell": 5, "value": 25},
                               {"cell": 10, "value": 10}]
    assert start["dice"] == 0 and start["spins"] == 3
    assert p.win == 36


def test_prize_values_are_1_to_25_times_the_bet() -> None:
    assert [v for v, _ in SPEC.prizes_x_bet] == [1, 2, 3, 4, 5, 10, 15, 20, 25]
    with pytest.raises(ValueError, match="outside the rule's 1 to 25"):
        SPEC.model_validate({**SPEC.model_dump(), "prizes_x_bet": [[1, 5], [30, 1]]})


def test_dice_trigger_becomes_a_prize_and_adds_one_die() -> None:
    sc = with_dice().roll(1)  # the die is rolled before the first spin: square 1 is blank
    p = play(blank_spins(sc, 3), dice_cell=20)
    start = p.events[0]
    assert start["dice"] == 1 and start["dice_cell"] == 20
    assert {"cell": 20, "value": 4} in start["prizes"]
    assert p.types()[1:3] == ["dice_rolled", "square_landed"]
    assert p.win == 1 + 2 + 3 + 4


# Spins -------------------------------------------------------------------------------------------

def test_locked_positions_do_not_spin() -> None:
    sc = script().spin({1: 5})  # 22 positions spin, one locks
    sc.spin().spin().spin()  # now 21 spin each time
    p = play(sc)
    assert p.used == 3 + 22 + 3 * 21
    assert final_reels(p)[:6] == [1, 5, 0, 0, 0, 2]


def test_three_spins_reset_to_three_when_a_prize_lands() -> None:
    sc = script().spin().spin().spin({24: 2})
    p = play(blank_spins(sc, 3))
    assert [e["spins"] for e in p.of("bonus_spun")] == [2, 1, 3, 2, 1, 0]
    assert p.of("spins_reset") == [{"type": "spins_reset", "spins": 3, "max_spins": 3,
                                    "reason": "prize_landed", "hearts": 0}]
    assert p.win == 6 + 2


def test_bonus_ends_with_no_spins_and_no_dice_and_pays_the_sum_of_prizes() -> None:
    p = play(blank_spins(script(), 3))
    assert p.types() == ["bonus_started"] + ["bonus_spun"] * 3 + ["bonus_ended"]
    assert p.events[-1] == {"type": "bonus_ended", "total": 6, "reels_total": 6,
                            "final_total": 0, "final_game": False}
    assert p.win == 6 and not p.flags & FLAG_FINAL_GAME


def test_dice_landing_adds_a_die_rolled_before_the_next_spin_and_does_not_lock() -> None:
    sc = script().spin({1: DICE, 2: DICE})
    sc.roll(1, 2)  # squares 1 and 3: blank
    p = play(blank_spins(sc, 2))
    spun = p.of("bonus_spun")
    assert spun[0]["dice_cells"] == [1, 2] and spun[0]["dice"] == 2
    assert spun[0]["spins"] == 2  # a Dice is no prize: no reset
    assert p.types()[2:6] == ["dice_rolled", "square_landed"] * 2
    assert [(e["from"], e["to"], e["dice"]) for e in p.of("dice_rolled")] == [(0, 1, 1), (1, 3, 0)]
    assert p.used == 3 + 3 * 22 + 2  # the Dice positions spin again


def test_dice_from_the_last_spin_are_still_rolled() -> None:
    sc = script().spin().spin().spin({1: DICE})
    sc.roll(1)
    p = play(sc)
    assert p.types()[-3:] == ["dice_rolled", "square_landed", "bonus_ended"]


def test_token_moves_1_to_6_squares_clockwise() -> None:
    sc = script().spin({1: DICE, 2: DICE, 3: DICE})
    sc.roll(1, 6, 4)  # 0 -> 1 -> 7 -> 11, all blank
    p = play(blank_spins(sc, 2))
    assert [(e["value"], e["from"], e["to"]) for e in p.of("dice_rolled")] == \
        [(1, 0, 1), (6, 1, 7), (4, 7, 11)]
    assert [e["feature"] for e in p.of("square_landed")] == ["-", "-", "-"]


def test_board_has_24_squares_12_with_features_start_bottom_left() -> None:
    assert len(SPEC.board) == 24 and sum(s != "-" for s in SPEC.board) == 12
    assert SPEC.board[0] == "START" and SPEC.board[12] == "EXTRASPINS"
    bad = list(SPEC.board)
    bad[1] = "GONZO"
    with pytest.raises(ValueError, match="12 feature squares"):
        SPEC.model_validate({**SPEC.model_dump(), "board": bad})


# Extra Life and Extra Spins ----------------------------------------------------------------------

def test_passing_start_gives_a_heart_that_resets_the_spins_to_3() -> None:
    sc = with_dice().roll(6).wheel("DICE2").roll(5, 6)  # 6 wheel, 11, 17
    sc.spin({1: DICE}).roll(6)  # 23
    sc.spin({1: DICE}).roll(2)  # 23 + 2 passes Start: square 1
    sc.spin()  # spins 0, dice 0: the heart resets the spins
    p = play(blank_spins(sc, 3), dice_cell=20)
    passed = [e for e in p.of("dice_rolled") if e["passed_start"]]
    assert [(e["from"], e["to"]) for e in passed] == [(23, 1)]
    assert p.of("heart_gained") == [{"type": "heart_gained", "hearts": 1}]
    assert p.of("spins_reset") == [{"type": "spins_reset", "spins": 3, "max_spins": 3,
                                    "reason": "heart_used", "hearts": 0}]
    assert len(p.of("bonus_spun")) == 6


def test_landing_on_start_gives_a_heart_and_extra_spins_make_it_reset_to_4() -> None:
    sc = with_dice().roll(6).wheel("DICE2").roll(6).roll(6).wheel("DICE1").roll(6)  # 6, 12, 18, 0
    blank_spins(sc, 4)  # Extra Spins: 4 spins; then the heart gives 4 more
    p = play(blank_spins(sc, 4), dice_cell=20)
    assert [e["to"] for e in p.of("dice_rolled")] == [6, 12, 18, 0]
    assert p.of("heart_gained")[0]["hearts"] == 1
    assert p.of("spins_reset")[0]["spins"] == 4
    assert len(p.of("bonus_spun")) == 8


def test_extra_spins_raise_the_remaining_spins_and_the_maximum_to_4() -> None:
    sc = script().spin().spin({1: DICE, 2: DICE})  # 1 spin left, 2 dice
    sc.roll(6).wheel("UPGRADE").roll(6)  # 6, 12: Extra Spins
    sc.spin({3: 1})  # a prize now resets to 4
    p = play(blank_spins(sc, 4))
    assert p.of("extra_spins_gained") == [{"type": "extra_spins_gained", "spins": 4,
                                           "max_spins": 4, "applied": True}]
    assert [e["spins"] for e in p.of("bonus_spun")] == [2, 1, 4, 3, 2, 1, 0]
    assert p.of("spins_reset")[-1]["spins"] == 4


def test_extra_spins_only_once_per_bonus_game() -> None:
    sc = with_dice().roll(6).wheel("DICE2").roll(6).roll(6).wheel("DICE2")  # 6, 12, 18
    sc.roll(6, 6).wheel("DICE2").roll(6, 5)  # 0 (heart), 6, 12 again, 17
    blank_spins(sc, 4)
    p = play(blank_spins(sc, 4), dice_cell=20)
    assert [e["applied"] for e in p.of("extra_spins_gained")] == [True, False]
    assert all(e["max_spins"] == 4 for e in p.of("extra_spins_gained"))
    assert len(p.of("bonus_spun")) == 8


# Features ----------------------------------------------------------------------------------------

def test_starburst_places_a_vertical_stack_on_a_prize_merged_by_product() -> None:
    # Prizes at 0, 5, 10, 20 (top row): the 3-stacks that touch one are the top ones of reels
    # 1, 2, 3 and 5, in that order; the second is chosen.
    sc = with_dice().roll(4)
    sc.pick(SPEC.starburst_table(), 3).below(1, 4)
    sc.held |= {6, 7}
    p = play(blank_spins(sc, 3), dice_cell=20)
    (sb,) = p.of("starburst_placed")
    assert (sb["column"], sb["top_row"], sb["value"]) == (1, 0, 3)
    assert [(c["cell"], c["value"], c["merged"]) for c in sb["cells"]] == \
        [(5, 6, True), (6, 3, False), (7, 3, False)]
    assert p.win == 1 + 6 + 3 + 4 + 3 + 3


def test_starburst_stack_values_are_2_to_5() -> None:
    assert [v for v, _ in SPEC.starburst.values_x_bet] == [2, 3, 4, 5]
    with pytest.raises(ValueError, match="outside the rule's 2 to 5"):
        SPEC.model_validate({**SPEC.model_dump(),
                             "starburst": {"stack": 3, "values_x_bet": [[6, 1]]}})


def test_gonzo_multiplies_random_prizes_one_multiplier_each() -> None:
    sc = with_dice().roll(6).wheel("RANDOM").random("GONZO")
    sc.below(2, 24)  # 3 prizes
    mults = SPEC.gonzo_table()
    sc.below(2, 4).pick(mults, 5)  # [0, 5, 10, 20] -> cell 10 first
    sc.below(0, 3).pick(mults, 2)  # then cell 5
    sc.below(1, 2).pick(mults, 3)  # then cell 20
    p = play(blank_spins(sc, 3), dice_cell=20)
    (g,) = p.of("gonzo_multiplied")
    assert [(c["cell"], c["multiplier"], c["was"], c["value"]) for c in g["cells"]] == \
        [(10, 5, 3, 15), (5, 2, 2, 4), (20, 3, 4, 12)]
    assert p.win == 1 + 4 + 15 + 12


def test_gonzo_count_is_capped_by_the_prizes_on_the_reels() -> None:
    sc = with_dice().roll(6).wheel("RANDOM").random("GONZO").below(23, 24)  # 24 wanted, 4 there
    for n in (4, 3, 2, 1):
        sc.below(0, n).pick(SPEC.gonzo_table(), 2)
    p = play(blank_spins(sc, 3), dice_cell=20)
    assert p.of("gonzo_multiplied")[0]["count"] == 4
    assert p.win == 2 * (1 + 2 + 3 + 4)


def test_miss_banks_places_prizes_one_per_position_merged_by_sum() -> None:
    sc = with_dice().roll(6).wheel("RANDOM").random("MISSBANKS").below(0, 12)  # 4 prizes
    sc.below(0, 25).below(4, 5)  # cell 0 (holds 1) + 5
    sc.below(0, 24).below(0, 5)  # cell 1 (swapped in) + 1
    sc.below(0, 23).below(2, 5)  # cell 2 + 3
    sc.below(1, 22).below(1, 5)  # cell 4 + 2
    sc.held |= {1, 2, 4}
    p = play(blank_spins(sc, 3), dice_cell=20)
    (mb,) = p.of("miss_banks_placed")
    assert [(c["cell"], c["added"], c["value"], c["merged"]) for c in mb["cells"]] == \
        [(0, 5, 6, True), (1, 1, 1, False), (2, 3, 3, False), (4, 2, 2, False)]
    assert p.win == 6 + 2 + 3 + 4 + 1 + 3 + 2


def test_miss_banks_counts_4_to_15_values_1_to_5() -> None:
    assert SPEC.missbanks.count == (4, 15) and SPEC.missbanks.values_x_bet == (1, 5)
    with pytest.raises(ValueError, match=r"missbanks\.count"):
        SPEC.model_validate({**SPEC.model_dump(),
                             "missbanks": {"count": [3, 15], "values_x_bet": [1, 5]}})


def test_finn_adds_5_and_merges_into_one_position_leaving_the_others_empty() -> None:
    sc = with_dice().roll(2).below(2, 5)  # square 2 FINN, 3 prizes of [0, 5, 10, 20]
    sc.below(3, 4).below(0, 3).below(0, 2)  # 20, then 5, then 10
    sc.below(1, 3)  # into the second: cell 5
    sc.held -= {20, 10}
    p = play(blank_spins(sc, 3), dice_cell=20)
    (f,) = p.of("finn_merged")
    assert f["from_cells"] == [20, 5, 10] and f["to_cell"] == 5
    assert f["value"] == (4 + 5) + (2 + 5) + (3 + 5)
    assert final_reels(p)[:21:5] == [1, 24, 0, 0, 0]
    assert p.used == 4 + 1 + 5 + 3 * 23  # the emptied positions spin again
    assert p.win == 1 + 24


def test_space_wars_respins_with_the_3_highest_values_and_no_spin_reset() -> None:
    prizes = {0: 25, 5: 25, 10: 10, 15: 1, 20: 5}
    sc = Script(SPEC).prizes(prizes).roll(1).spin({1: DICE})
    sc.roll(5).wheel("RANDOM").random("SPACEWARS")  # after a spin: 2 spins left
    num, den = 3, 20
    free = [c for c in range(25) if c not in prizes]
    for respin in range(3):
        for c in free:
            if (respin, c) == (0, 1):
                sc.below(num - 1, den).below(1, 3)  # lands the second value, 10
            elif (respin, c) == (2, 24):
                sc.below(0, den).below(2, 3)  # lands 5
            else:
                sc.below(num, den)  # no landing
        if respin == 0:
            free.remove(1)
    sc.held |= {1, 24}
    p = play(blank_spins(sc, 2), trigger=[0, 5, 10, 15], dice_cell=20)
    (sw,) = p.of("space_wars_respun")
    assert sw["values"] == [25, 10, 5]
    assert [r["prizes"] for r in sw["respins"]] == [[{"cell": 1, "value": 10}], [],
                                                    [{"cell": 24, "value": 5}]]
    assert [e["spins"] for e in p.of("bonus_spun")] == [2, 1, 0]
    assert p.win == 25 + 25 + 10 + 1 + 5 + 10 + 5


def test_space_wars_has_3_respins_and_3_values_in_the_model() -> None:
    assert (SPEC.spacewars.respins, SPEC.spacewars.top_values) == (3, 3)


# The Wheel Game ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("segment", "dice"), [("DICE1", 1), ("DICE2", 2)])
def test_wheel_dice_segments_add_dice(segment: str, dice: int) -> None:
    sc = with_dice().roll(6).wheel(segment).roll(*[1] * dice)  # 6 -> 7 blank (-> 8 Gonzo)
    if dice == 2:
        sc.below(0, 24).below(0, 4).pick(SPEC.gonzo_table(), 2)
    p = play(blank_spins(sc, 3), dice_cell=20)
    (w,) = p.of("wheel_spun")
    assert w["segment"] == segment and w["dice"] == dice
    assert len(p.of("dice_rolled")) == 1 + dice


def test_wheel_plus_one_adds_1_to_every_prize() -> None:
    p = play(blank_spins(with_dice().roll(6).wheel("PLUS1"), 3), dice_cell=20)
    (plus,) = p.of("plus_one_added")
    assert [(c["cell"], c["was"], c["value"]) for c in plus["cells"]] == \
        [(0, 1, 2), (5, 2, 3), (10, 3, 4), (20, 4, 5)]
    assert p.win == 14


def test_upgrade_gives_blank_squares_1_and_landing_there_adds_it_to_every_prize() -> None:
    sc = with_dice().roll(6).wheel("UPGRADE")
    sc.spin({1: DICE}).roll(1)  # square 7, blank: every prize + 1
    p = play(blank_spins(sc, 2), dice_cell=20)
    assert p.of("upgrade_added") == [{"type": "upgrade_added", "square_value": 1}]
    landed = p.of("square_landed")[-1]
    assert (landed["square"], landed["feature"], landed["value"]) == (7, "-", 1)
    (paid,) = p.of("upgraded_square_paid")
    assert paid["times"] == 1 and len(paid["cells"]) == 4
    assert p.win == 10 + 4


def test_repeated_upgrades_add_1_each() -> None:
    sc = script().spin({1: DICE, 2: DICE, 3: DICE, 4: DICE})
    sc.roll(6).wheel("UPGRADE").roll(6, 6).wheel("UPGRADE").roll(1)  # 6, 12, 18, 19
    p = play(blank_spins(sc, 4))
    assert [e["square_value"] for e in p.of("upgrade_added")] == [1, 2]
    assert p.of("upgraded_square_paid")[0]["square_value"] == 2
    assert p.win == 6 + 3 * 2


def test_replay_plays_the_next_feature_twice() -> None:
    sc = with_dice().roll(6).wheel("REPLAY")
    sc.spin({1: DICE}).roll(2)  # square 8: Gonzo, twice
    for _ in range(2):
        sc.below(0, 24).below(0, 4).pick(SPEC.gonzo_table(), 2)  # cell 0 x2
    p = play(blank_spins(sc, 2), dice_cell=20)
    assert p.of("replay_armed") == [{"type": "replay_armed", "armed": True}]
    assert p.of("replay_used") == [{"type": "replay_used", "feature": "GONZO"}]
    assert [g["run"] for g in p.of("gonzo_multiplied")] == [1, 2]
    assert final_reels(p)[0] == 4


def test_replay_applies_to_a_feature_from_the_wheel() -> None:
    sc = script().spin({1: DICE, 2: DICE, 3: DICE})
    sc.roll(6).wheel("REPLAY").roll(6, 6).wheel("RANDOM").random("GONZO")  # 6, 12, 18
    for _ in range(2):
        sc.below(0, 24).below(0, 3).pick(SPEC.gonzo_table(), 3)
    p = play(blank_spins(sc, 4))
    assert p.of("replay_used")[0]["feature"] == "GONZO"
    assert final_reels(p)[0] == 9


def test_replay_doubles_an_upgraded_square() -> None:
    sc = script().spin({1: DICE, 2: DICE, 3: DICE, 4: DICE})
    sc.roll(6).wheel("UPGRADE").roll(6, 6).wheel("REPLAY").roll(1)  # 6, 12, 18, 19
    p = play(blank_spins(sc, 4))
    (paid,) = p.of("upgraded_square_paid")
    assert (paid["square_value"], paid["times"]) == (1, 2)
    assert p.of("replay_used")[0]["feature"] == "-"
    assert p.win == 6 + 3 * 2


def test_a_second_replay_while_one_is_armed_is_lost() -> None:
    sc = script().spin({1: DICE, 2: DICE, 3: DICE, 4: DICE})
    sc.roll(6).wheel("REPLAY").roll(6, 6).wheel("REPLAY").roll(2)  # 6, 12, 18, 20 Gonzo
    for _ in range(2):
        sc.below(0, 24).below(0, 3).pick(SPEC.gonzo_table(), 2)
    p = play(blank_spins(sc, 4))
    assert [e["armed"] for e in p.of("replay_armed")] == [True, False]
    assert len(p.of("gonzo_multiplied")) == 2


def test_the_wheel_is_spun_once_per_wheel_game() -> None:
    p = play(blank_spins(with_dice().roll(6).wheel("DICE1").roll(1), 3), dice_cell=20)
    assert len(p.of("wheel_spun")) == 1  # and play_script checked no other draw was made


# The Final Game ----------------------------------------------------------------------------------

def fill_all_but(sc: Script, keep: set[int]) -> dict[int, int]:
    return {c: 1 for c in range(25) if c not in sc.held and c not in keep}


def test_all_positions_locked_start_the_final_game_at_once() -> None:
    sc = script()
    sc.spin(fill_all_but(sc, set()))  # every position: the Final Game
    sc.roll(1, 1, 1, 1)  # 3 spins + the bottom-left die = 4 dice: squares 1-4
    p = play(sc)
    start = p.of("final_game_started")[0]
    assert (start["dice_left"], start["max_spins"], start["hearts"], start["replay"]) == \
        (0, 3, 0, False)
    assert start["start_square_dice"] == 1 and start["dice"] == 4
    assert [e["square"] for e in p.of("final_prize_collected")] == [1, 2, 3, 4]
    assert p.events[-1]["final_total"] == 25 + 50 + 25 + 75
    assert p.win == 6 + 22 + 175 and p.flags & FLAG_FINAL_GAME


def test_final_game_worked_example_1_plus_4_plus_2x4_plus_1_is_14() -> None:
    sc = with_dice().roll(6).wheel("DICE2").roll(6).roll(6).wheel("DICE1").roll(6)  # 6 12 18 0
    sc.spin(fill_all_but(sc, {23, 24}))  # heart 1; 4 spins (Extra Spins); 23 and 24 empty
    sc.spin({23: DICE, 24: DICE})  # 2 dice
    sc.roll(6).wheel("DICE2").roll(6, 6).wheel("DICE2").roll(6)  # 6, 12, 18, 0: heart 2
    sc.roll(4).pick(SPEC.starburst_table(), 2).below(14, 15)  # Starburst fills 22-24; 1 die left
    sc.roll(*[1] * 15)  # 14 dice; square 12 gives one more
    p = play(sc, dice_cell=20)
    start = p.of("final_game_started")[0]
    assert (start["dice_left"], start["max_spins"], start["hearts"]) == (1, 4, 2)
    assert start["dice"] == 1 + 4 + 2 * 4 + 1 == 14
    assert p.types()[p.types().index("starburst_placed") + 1] == "final_game_started"
    assert len(p.of("final_dice_rolled")) == 15
    assert [e["square"] for e in p.of("final_die_gained")] == [12]
    assert p.events[-1]["final_total"] == 925 + 25 + 50 + 75


def test_an_unused_replay_doubles_the_final_dice_before_the_bottom_left_die() -> None:
    sc = with_dice().roll(6).wheel("REPLAY")
    sc.spin(fill_all_but(sc, set()))
    sc.roll(*[2] * 8)  # (0 + 3 + 0) x 2 + 1 = 7 dice, and square 12's: squares 2, 4, ..., 16
    p = play(sc, dice_cell=20)
    start = p.of("final_game_started")[0]
    assert start["replay"] and start["dice"] == 7
    assert p.events[-1]["final_total"] == 50 + 75 + 100 + 50 + 500 + 50 + 25


def test_no_pending_feature_or_die_is_played_once_the_reels_are_full() -> None:
    # A Replay doubles Miss Banks; its first run fills the reels: no second run, no die rolled.
    sc = with_dice().roll(6).wheel("REPLAY")
    sc.spin({**fill_all_but(sc, {23, 24}), 23: DICE, 24: DICE})  # 2 dice
    sc.roll(4).below(0, 12)  # square 10: Miss Banks, 4 placements
    sc.below(23, 25).below(0, 5).below(23, 24).below(0, 5)  # cells 23, 24: the reels are full
    sc.below(0, 23).below(0, 5).below(0, 22).below(0, 5)  # cells 2, 3 (merged)
    sc.roll(*[1] * 5)  # the Final Game: 1 die left + 3 spins + the bottom-left die
    p = play(sc, dice_cell=20)
    assert len(p.of("miss_banks_placed")) == 1 and p.of("replay_used")
    assert p.types()[p.types().index("miss_banks_placed") + 1] == "final_game_started"
    start = p.of("final_game_started")[0]
    assert (start["dice_left"], start["replay"], start["dice"]) == (1, False, 5)


def test_final_board_prizes_and_two_die_squares() -> None:
    prizes = [v for v in SPEC.final_board if v != "DICE"]
    assert set(prizes) <= {25, 50, 75, 100, 500, 1000} and len(prizes) == 22
    assert SPEC.final_board[0] == "DICE" and SPEC.final_board.count("DICE") == 2
    bad = ["DICE", *SPEC.final_board[1:-1], 30]
    with pytest.raises(ValueError, match="final_board prizes"):
        SPEC.model_validate({**SPEC.model_dump(), "final_board": bad})
