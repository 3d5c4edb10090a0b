"""A colour wheel, the mini game on the player's choice, composed from a model file
(``colour_wheel``): the round waits for the colour and plays it from the next seed, the wheel
spins again on the chosen colour up to the limit, an abandoned round is completed at random;
the exact value of each colour against an enumeration of every sequence of spins, and the
exact RTP against the compiled simulation. A variant of Lucky Coin Link whose Bonus Wheel may
start a Frenzy Wheel (``conftest.frenzy_raw``)."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from slotlab.games.composed.game import ComposedGame
from slotlab.mechanics.colour_wheel import colour_value
from slotlab.rng import parse_seed
from slotlab.rounds import IllegalChoiceError, RoundResult
from tests.games.composed.conftest import BET, assert_model_error, frenzy_game, frenzy_raw
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds


@cache
def _waiting() -> tuple[tuple[int, RoundResult], ...]:
    """The first 12 rounds from seeds 0.. that reach the colour wheel, unanswered."""
    game = frenzy_game()
    out = []
    for i in range(100_000):
        r = game.play(BET, [parse_seed(i)])
        if r.awaiting is not None:
            out.append((i, r))
            if len(out) == 12:
                break
    return tuple(out)


def _answered(i: int, colour: str, j: int) -> RoundResult:
    return frenzy_game().play(BET, [parse_seed(i), parse_seed(10_000 + j)], [colour])


def test_the_round_waits_for_the_players_colour() -> None:
    for _i, r in _waiting():
        assert r.awaiting is not None
        assert (r.awaiting.kind, r.awaiting.options) == ("colour_wheel", ("Red", "Green"))
        last = r.events[-1]
        assert last["type"] == "colour_wheel_offered" and last["options"] == ["Red", "Green"]
        assert not any(e["type"] == "round_ended" for e in r.events)
        spun = next(e for e in r.events if e["type"] == "wheel_spun")
        assert spun["feature"] == "colour_wheel"
        assert r.win == last["win_so_far"]


def test_the_wheel_spins_again_on_the_chosen_colour_up_to_the_limit() -> None:
    """Each spin adds its multiplier; it spins again exactly when it lands on the chosen colour
    and the total is within 20; the total times the bet, times the Bonus Wheel segment's 2,
    is paid on top of what the round had won."""
    again = stopped_by_limit = 0
    for i, r in _waiting():
        for j, colour in enumerate(("Red", "Green")):
            done = _answered(i, colour, j)
            assert done.awaiting is None
            assert done.events[: len(r.events)] == r.events
            spins = [e for e in done.events if e["type"] == "colour_wheel_spun"]
            total = 0
            for k, e in enumerate(spins):
                total += e["multiplier"]
                assert e["total"] == total
                should = e["colour"] == colour and total <= 20
                assert e["again"] == should
                assert (k < len(spins) - 1) == should
                again += should
                stopped_by_limit += e["colour"] == colour and total > 20
            ended = next(e for e in done.events if e["type"] == "colour_wheel_ended")
            assert ended["win"] == total * BET * 2
            assert done.win == r.win + ended["win"]
            assert done.events[-1] == {"type": "round_ended", "win": done.win}
    assert again > 5


def test_a_colour_not_offered_or_a_choice_not_awaited_is_refused() -> None:
    i, _r = _waiting()[0]
    with pytest.raises(IllegalChoiceError, match="not one of"):
        _answered(i, "Blue", 0)
    plain = next(k for k in range(100) if frenzy_game().play(BET, [parse_seed(k)]).awaiting is None)
    with pytest.raises(IllegalChoiceError, match="no choice is awaited"):
        frenzy_game().play(BET, [parse_seed(plain), parse_seed(1)], ["Red"])


def test_an_abandoned_round_is_completed_with_a_colour_drawn_from_its_seed() -> None:
    game = frenzy_game()
    _i, r = _waiting()[0]
    picks = {game.auto_choice(r, parse_seed(s)) for s in range(40)}
    assert picks == {"Red", "Green"}
    assert game.auto_choice(r, parse_seed(3)) == game.auto_choice(r, parse_seed(3))


def _enumerated(weights: list[int], colours: list[int], mults: list[int], colour: int,
                limit: int) -> Fraction:
    """E[total] by walking every sequence of spins (a plain depth-first enumeration)."""
    n = sum(weights)

    def walk(total: int, p: Fraction) -> Fraction:
        out = Fraction(0)
        for w, c, m in zip(weights, colours, mults, strict=True):
            q = p * Fraction(w, n)
            out += walk(total + m, q) if c == colour and total + m <= limit else q * (total + m)
        return out

    return walk(0, Fraction(1))


@pytest.mark.parametrize("colour", [0, 1])
def test_each_colours_value_is_every_sequence_enumerated(colour: int) -> None:
    weights, colours, mults = [5, 3, 2, 1], [0, 0, 1, 1], [1, 2, 3, 10]
    assert colour_value(weights, colours, mults, colour, 9) == _enumerated(
        weights, colours, mults, colour, 9)


def test_the_report_takes_a_colour_at_random_and_lists_each() -> None:
    report = frenzy_game().exact()
    table = {row["colour"]: row["expected_total_x_bet"] for row in report["tables"]["colour wheel"]}
    spec = frenzy_raw()["colour_wheel"]
    segs = spec["segments"]
    args = ([s["weight"] for s in segs], [spec["colours"].index(s["colour"]) for s in segs],
            [s["multiplier"] for s in segs])
    for k, name in enumerate(spec["colours"]):
        assert table[name] == pytest.approx(float(colour_value(*args, k, spec["limit"])))
    assert table["Red"] > table["Green"]  # the colours differ: the choice matters
    assert report["components"]["colour_wheel"]["rtp"] > 0


def test_kernel_and_traced_rounds_agree_with_a_colour_wheel() -> None:
    assert _same_rounds(frenzy_game(), 5_000, 13) > 100


def test_the_compiled_simulation_holds_the_exact_rtp() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(frenzy_game(), 1_000_000, 33)
    assert ok, text


@pytest.mark.parametrize(("change", "words"), [
    ({"colours": ["Red", "Red"]}, ["colour_wheel", "each colour once"]),
    ({"colours": ["Red"]}, ["colour_wheel.colours"]),
    ({"segments": [{"weight": 1, "colour": "Blue", "multiplier": 2}]},
     ["segments[0].colour", "Blue"]),
    ({"limit": 0}, ["colour_wheel.limit"]),
])
def test_a_bad_colour_wheel_names_its_field(change: dict[str, Any], words: list[str]) -> None:
    raw = frenzy_raw()
    raw["colour_wheel"].update(change)
    assert_model_error(raw, words)


def test_a_colour_wheel_needs_a_segment_that_starts_it() -> None:
    raw = frenzy_raw()
    raw["wheel"]["segments"] = [s for s in raw["wheel"]["segments"]
                                if s.get("feature") != "colour_wheel"]
    assert_model_error(raw, ["colour_wheel", "none does"])
    raw = frenzy_raw()
    del raw["colour_wheel"]
    assert_model_error(raw, ["starts colour_wheel", "no colour_wheel"])


def test_the_game_describes_its_colour_wheel_for_the_client() -> None:
    game: ComposedGame = frenzy_game()
    d = game.describe()["colour_wheel"]
    assert d["colours"] == ["Red", "Green"] and d["limit"] == 20
    assert d["segments"][3] == {"colour": "Green", "multiplier": 10}
