"""Every line-game rule, on windows built to exercise it (kernel vs. hand-worked pays)."""

from __future__ import annotations

from typing import ClassVar

import pytest

from slotlab.rounds import IllegalBetError, IllegalChoiceError
from tests.games.lines.conftest import toy_game

# Rows of a window written top to bottom, one string per row, reels left to right.


def grid(*rows: str) -> list[list[str]]:
    cells = [row.split() for row in rows]
    return [[cells[r][c] for r in range(len(cells))] for c in range(len(cells[0]))]


FILL_TOP = "X C X C X"
FILL_BOT = "C X C X C"


def middle_line(game, middle: str):
    """Pays of a window whose only possible win is on the middle row (line 1)."""
    return game.evaluate_window(grid(FILL_TOP, middle, FILL_BOT))


def test_wins_pay_left_to_right_on_adjacent_reels(toy):
    assert middle_line(toy, "A A A X X")[0] == 20
    assert middle_line(toy, "X A A A X")[0] == 0  # does not start on the leftmost reel
    assert middle_line(toy, "A A X A A")[0] == 2  # the run stops at the gap: two A pay 2


def test_only_the_highest_win_per_line(toy):
    # Three wilds then two A: wild-only run pays 50; A x5 through wilds pays 300 x 2.
    units, _, _, events = middle_line(toy, "W W W A A")
    assert units == 600
    assert [(e["symbol"], e["count"], e["multiplier"]) for e in events] == [("A", 5, 2)]
    # Three wilds then B: wild run 50 beats B x4 (30 x 2 = 60)? No: 60 > 50, B wins.
    assert middle_line(toy, "W W W B X")[0] == 60
    # Three wilds then C: C x4 with wild 15 x 2 = 30 < 50, the wilds pay on their own.
    units, _, _, events = middle_line(toy, "W W W C X")
    assert units == 50 and events[0]["symbol"] == "W"


def test_wild_substitutes_and_multiplies_once_per_line(toy):
    assert middle_line(toy, "A W A X X")[0] == 20 * 2
    assert middle_line(toy, "A W W A X")[0] == 60 * 2  # once per line, not per wild


def test_wild_multiplier_once_per_wild_when_the_model_says_so():
    game = toy_game(wild={"symbol": "W", "substitutes": "all", "multiplier": 2,
                          "multiplier_mode": "each"})
    assert middle_line(game, "A W W A X")[0] == 60 * 4


def test_wild_substitutes_only_for_listed_symbols():
    game = toy_game(wild={"symbol": "W", "substitutes": ["A"], "multiplier": 1})
    assert middle_line(game, "B W B X X")[0] == 0
    assert middle_line(game, "A W A X X")[0] == 20


def test_wild_without_own_pays_pays_only_by_substitution():
    pays = dict(toy_game().model.spec.pays)
    pays.pop("W")
    game = toy_game(pays={k: {str(c): p for c, p in t.items()} for k, t in pays.items()})
    assert middle_line(game, "W W W X X")[0] == 0
    assert middle_line(game, "W W W A X")[0] == 60 * 2


def test_scatter_is_never_substituted_and_never_pays_on_a_line(toy):
    units, scatter, count, _ = middle_line(toy, "S W S X X")
    assert units == 0 and count == 2 and scatter == 4
    # a wild next to a scatter pays only what the wild run pays on its own
    assert middle_line(toy, "W W W S X")[0] == 50


def test_wins_on_different_lines_add(toy):
    units, _, _, events = toy.evaluate_window(grid("A A A X X", "A A A X X", "C X C X C"))
    # lines 1 and 2 pay A x3; line 4 (top, middle, bottom...) pays A x2
    assert units == 20 + 20 + 2 and sorted(e["line"] for e in events) == [1, 2, 4]


def test_scatter_pays_anywhere_by_count_added_to_line_wins(toy):
    units, scatter, count, _ = toy.evaluate_window(grid("S X X X S", "A A A X X", "X S X X X"))
    assert (units, scatter, count) == (20, 20, 3)


def test_round_win_is_in_credits_of_the_bet_level():
    game = toy_game(strips={"base": [["A", "A", "A"]] * 5})
    # every line shows A x5 (300 units); 4 lines; level = bet / divisor
    for bet in game.bets():
        result = game.play(bet, [b"seed"])
        assert result.win == 4 * 300 * (bet // 4)


def test_max_win_cap_limits_the_round():
    game = toy_game(strips={"base": [["A", "A", "A"]] * 5}, max_win_x=10)
    result = game.play(4, [b"seed"])
    assert result.win == 40
    capped = [e for e in result.events if e["type"] == "win_capped"]
    assert capped == [{"type": "win_capped", "cap": 40, "uncapped": 1200}]


def test_free_spins_trigger_multiply_and_retrigger_up_to_the_cap():
    # Every window shows 5 scatters (top row): base pays scatter x5 and awards 10 spins;
    # each free spin retriggers 10 more until 20 in all.
    all_scatter = [["S", "X", "X"]] * 5
    game = toy_game(strips={"base": all_scatter, "free": all_scatter}, max_win_x=100000)
    result = game.play(4, [b"seed"])
    kinds = [e["type"] for e in result.events]
    assert kinds.count("free_spin_started") == 20
    triggers = [e for e in result.events if e["type"] == "free_spins_triggered"]
    assert [t["total_awarded"] for t in triggers] == [10, 20]
    free_scatter = [e for e in result.events if e["type"] == "scatter_won"][1:]
    assert all(e["win"] == 400 * 3 for e in free_scatter)  # x3 on free-spin wins
    assert result.win == 400 + 20 * 400 * 3


def test_free_spins_without_retrigger_play_the_award_only():
    all_scatter = [["S", "X", "X"]] * 5
    fs = {"awards": {"5": 7}, "multiplier": 1, "retrigger": False, "strips": "free"}
    game = toy_game(strips={"base": all_scatter, "free": all_scatter}, free_spins=fs,
                    max_win_x=100000)
    result = game.play(4, [b"seed"])
    assert [e["type"] for e in result.events].count("free_spin_started") == 7


def test_free_spin_multiplier_applies_on_top_of_the_wild_multiplier():
    # a 3-stop strip shows all its symbols in a 3-row window, whatever the stop
    trigger = [["S", "X", "X"]] * 3 + [["X", "X", "X"]] * 2
    free = [["A"] * 3, ["W"] * 3, ["A"] * 3, ["X"] * 3, ["X"] * 3]
    fs = {"awards": {"3": 1}, "multiplier": 3, "retrigger": False, "strips": "free"}
    game = toy_game(strips={"base": trigger, "free": free}, free_spins=fs)
    line_wins = [e for e in game.play(4, [b"s"]).events if e["type"] == "line_won"]
    # A x3 pays 20, x2 for the wild, x3 in free spins, on each of the 4 lines
    assert [(e["multiplier"], e["win"]) for e in line_wins] == [(6, 120)] * 4


def test_a_bet_not_on_the_ladder_is_refused(toy):
    with pytest.raises(IllegalBetError, match="allowed"):
        toy.play(3, [b"s"])


class TestGamble:
    WIN_EVERY_TIME: ClassVar[dict] = {"base": [["A"] * 3] * 5}  # 4 lines x A x5 = 1200 always
    WIN = 1200

    def game(self):
        return toy_game(strips=self.WIN_EVERY_TIME, max_win_x=100_000)

    def test_a_winning_round_waits_for_collect_or_a_colour(self):
        result = self.game().play(4, [b"s"])
        assert result.win == self.WIN
        assert result.awaiting is not None and result.awaiting.options == ("collect", "red",
                                                                          "black")

    def test_collect_ends_the_round_with_the_win(self):
        result = self.game().play(4, [b"s", b"t"], ["collect"])
        assert result.is_complete and result.win == self.WIN

    def test_the_right_colour_doubles_the_wrong_one_loses(self):
        game = self.game()
        outcomes = set()
        for k in range(40):
            seed = k.to_bytes(4, "little")
            card = next(e for e in game.play(4, [b"s", seed], ["red"]).events
                        if e["type"] == "gamble_resolved")["card"]
            for colour in ("red", "black"):
                r = game.play(4, [b"s", seed], [colour])
                assert r.win == (2 * self.WIN if colour == card else 0)
                assert r.is_complete == (colour != card)
                outcomes.add(colour == card)
        assert outcomes == {True, False}

    def test_at_most_max_steps_gambles(self):
        game = self.game()
        # find seeds that win three times in a row, then check no fourth offer
        seeds, choices = [b"s"], []
        k = 0
        while len(choices) < 3:
            seed = k.to_bytes(4, "little")
            k += 1
            trial = game.play(4, [*seeds, seed], [*choices, "red"])
            if trial.win > 0:
                seeds.append(seed)
                choices.append("red")
        result = game.play(4, seeds, choices)
        assert result.win == self.WIN * 8 and result.is_complete
        with pytest.raises(IllegalChoiceError):
            game.play(4, [*seeds, b"x"], [*choices, "red"])

    def test_gamble_never_exceeds_the_max_win(self):
        game = toy_game(strips=self.WIN_EVERY_TIME, max_win_x=500)  # cap 2000 < 2 x 1200
        assert game.play(4, [b"s"]).awaiting is None

    def test_bad_choices_are_refused(self):
        game = self.game()
        with pytest.raises(IllegalChoiceError, match="not one of"):
            game.play(4, [b"s", b"t"], ["green"])
        with pytest.raises(IllegalChoiceError, match="over"):
            game.play(4, [b"s", b"t", b"u"], ["collect", "red"])
        with pytest.raises(ValueError, match="seeds"):
            game.play(4, [b"s"], ["collect"])

    def test_an_abandoned_gamble_is_collected(self):
        game = self.game()
        result = game.play(4, [b"s"])
        assert game.auto_choice(result, b"x") == "collect"

    def test_no_gamble_without_a_win_or_without_the_option(self):
        losing = toy_game(strips={"base": [["X"] * 3] * 5})
        assert losing.play(4, [b"s"]).awaiting is None
        no_gamble = toy_game(strips=self.WIN_EVERY_TIME, gamble=None)
        assert no_gamble.play(4, [b"s"]).awaiting is None


def test_the_event_log_of_a_waiting_round_is_a_prefix_of_the_finished_one():
    game = toy_game(strips={"base": [["A"] * 3] * 5}, max_win_x=100_000)
    waiting = game.play(4, [b"s"])
    assert waiting.events[-1]["type"] == "gamble_offered"
    done = game.play(4, [b"s", b"t"], ["red"])
    assert done.events[: len(waiting.events)] == waiting.events
    collected = game.play(4, [b"s", b"t"], ["collect"])
    assert collected.events[: len(waiting.events)] == waiting.events
