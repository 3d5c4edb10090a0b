"""Several wheels (``wheel`` and ``wheels``): each spun by what its model says, each its own
segments, and a segment's free spins on reels of their own (``strips``). Rounds of Lucky Two
Wheels (seeds 0..2999): the Bonus Wheel the scatters' award spins, the Lucky Wheel three Wheel
symbols spin; the model's checks; the exact figures composed wheel by wheel; the compiled
simulation against them."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.rng import parse_seed
from slotlab.rounds import RoundResult
from tests.games.composed.conftest import (
    BET,
    assert_model_error,
    shipped_raw,
    two_wheels_game,
    two_wheels_raw,
    wheel_symbol_raw,
)
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds

BONUS_WHEEL, LUCKY_WHEEL = 0, 1  # the wheels' indices: ``wheel``, then ``wheels``


@cache
def _corpus() -> tuple[RoundResult, ...]:
    game = two_wheels_game()
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(3000))


def _count(r: RoundResult, symbol: str) -> int:
    return sum(col.count(symbol) for col in r.events[0]["window"])


def test_each_wheel_is_spun_by_its_own_trigger() -> None:
    """The Lucky Wheel once when three or more Wheel symbols are in view, the Bonus Wheel once
    when the Bonus scatters award free spins (three or more); the Lucky Wheel first."""
    both = 0
    for r in _corpus():
        spun = [e["wheel"] for e in r.events if e["type"] == "wheel_spun"
                and not _in_free_spins(r, e)]
        expected = ([LUCKY_WHEEL] if _count(r, "WHEEL") >= 3 else []) + (
            [BONUS_WHEEL] if _count(r, "BONUS") >= 3 else [])
        assert spun == expected
        both += len(spun) == 2
    assert sum(_count(r, "WHEEL") >= 3 for r in _corpus()) > 20
    assert sum(_count(r, "BONUS") >= 3 for r in _corpus()) > 40


def _in_free_spins(r: RoundResult, event: dict[str, Any]) -> bool:
    """Whether ``event`` comes between a free_spins_triggered and its end (a wheel never spins
    there: the base spin alone spins wheels)."""
    depth = 0
    for e in r.events:
        if e is event:
            return depth > 0
        depth += {"free_spins_triggered": 1, "free_spins_ended": -1}.get(e["type"], 0)
    raise AssertionError("not in the round")


def test_a_wheels_segment_is_one_of_its_own() -> None:
    """A spin's segment indexes its own wheel's segments, and brings what that segment says."""
    game = two_wheels_game()
    wheels = game.describe()["wheels"]
    assert [w["name"] for w in wheels] == [None, "Lucky Wheel"]
    seen = set()
    for r in _corpus():
        for e in (e for e in r.events if e["type"] == "wheel_spun"):
            segments = wheels[e["wheel"]]["segments"]
            assert e["segments"] == len(segments)
            seg = segments[e["segment"]]
            assert (e["pay"], e["feature"], e["multiplier"]) == (
                seg.get("pay", 0) * BET // game.model.divisor, seg.get("feature"),
                seg["multiplier"])
            seen.add((e["wheel"], e["segment"]))
    assert {w for w, _s in seen} == {BONUS_WHEEL, LUCKY_WHEEL}


def test_a_segments_free_spins_play_on_its_own_reels() -> None:
    """The Lucky Wheel's 5 free spins show windows of its strip set (lucky_free, which has
    no Bonus scatter: they never retrigger); the Bonus Wheel's play on the model's free reels."""
    raw = two_wheels_raw()
    own = raw["strips"]["lucky_free"]
    free = raw["strips"][raw["free_spins"]["strips"]]
    rows = raw["rows"]
    played = {"lucky_free": 0, "free": 0}
    for r in _corpus():
        strips: list[list[str]] | None = None
        for e in r.events:
            if e["type"] == "free_spins_triggered":
                strips = own if e["strips"] == "lucky_free" else free
                if e["strips"] == "lucky_free":
                    assert (e["awarded"], e["multiplier"]) == (5, 1)
            elif e["type"] == "free_spins_ended":
                strips = None
            elif e["type"] == "reels_stopped" and strips is not None and "respin" not in e:
                assert e["window"] == [[strip[(stop + k) % len(strip)] for k in range(rows)]
                                       for strip, stop in zip(strips, e["stops"], strict=True)]
                played["lucky_free" if strips is own else "free"] += 1
            elif e["type"] == "free_spins_retriggered":
                assert strips is free
    assert played["lucky_free"] >= 10 and played["free"] >= 100, played


def test_kernel_and_traced_rounds_agree_with_two_wheels() -> None:
    assert _same_rounds(two_wheels_game(), 5_000, 15) > 100


def test_the_compiled_simulation_holds_the_exact_rtp_with_two_wheels() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(two_wheels_game(), 1_000_000, 45)
    assert ok, text


def _fractions(raw: dict[str, Any]) -> dict[str, Fraction]:
    game = ComposedGame(ComposedModel.from_dict(raw))
    return {k: Fraction(v["fraction"]) for k, v in game.exact(BET)["components"].items()}


def test_the_exact_figures_compose_wheel_by_wheel() -> None:
    """Wheels add: on the same reels, two wheels plus no wheel equal each wheel alone, component
    for component, fraction for fraction (the Bonus Wheel alone spun by the scatters; the Lucky
    Wheel alone, the scatters starting free spins directly; no wheel: the scatters start them
    directly)."""
    both = two_wheels_raw()
    lucky_alone = {**both, "wheel": both["wheels"][0], "wheels": []}
    bonus_alone = {**both, "wheels": []}
    none = {**both, "wheel": None, "wheels": []}
    a, b, c, d = (_fractions(r) for r in (both, none, lucky_alone, bonus_alone))
    assert a.keys() == c.keys()
    for k in a:
        assert a[k] + b[k] == c[k] + d[k], k
    assert a["wheel_pays"] > c["wheel_pays"] > 0


def test_the_report_gives_each_wheels_part() -> None:
    """A row per wheel: what spins it, how often, and its parts of the RTP, which add up to the
    wheels' components (every free spin here starts on a wheel: the scatters spin the Bonus
    Wheel)."""
    report = two_wheels_game().exact(BET)
    rows = report["tables"]["wheels"]
    assert [r["spun_by"] for r in rows] == ["the scatters' award", "3 WHEEL"]
    for part in ("wheel_pays", "free_spins", "wheel_hold_and_win"):
        assert sum(r[f"rtp_{part}"] for r in rows) == pytest.approx(
            report["components"][part]["rtp"], rel=1e-12)
    assert all(r["per_round"] > 0 for r in rows)


@pytest.mark.parametrize(("change", "words"), [
    (lambda raw: raw["wheels"][0].pop("trigger"),
     ["wheels[0]", "wheel is already the wheel the scatters' award spins"]),
    (lambda raw: raw["wheels"].append(dict(raw["wheels"][0])),
     ["wheels[1].trigger.symbol", "WHEEL already spins wheels[0]"]),
    (lambda raw: raw["wheels"][0]["segments"][-1].update(strips="nope"),
     ["wheels[0].segments[4].strips", "'nope'", "lucky_free"]),
    (lambda raw: raw["wheels"][0]["segments"][0].update(strips="lucky_free"),
     ["wheels.0.segments.0", "starts no free_spins"]),
    (lambda raw: raw["wheels"][0].update(name=""), ["wheels.0.name"]),
])
def test_bad_wheels_name_their_field(change: Any, words: list[str]) -> None:
    raw = two_wheels_raw()
    change(raw)
    assert_model_error(raw, words)


def test_a_single_wheel_keeps_its_key_in_errors() -> None:
    raw = wheel_symbol_raw()
    raw["wheel"]["segments"][-1]["strips"] = "nope"
    assert_model_error(raw, ["wheel.segments[4].strips", "'nope'"])
    assert shipped_raw().get("wheels") is None  # the shipped game keeps its one wheel


def test_a_wheel_after_free_spins_starts_its_hold_and_win_from_the_base_coins() -> None:
    """A variant where one Wheel symbol spins the Lucky Wheel, which always gives free spins,
    and the Bonus Wheel always starts Coin Link: in rounds with both, the Coin Link the Bonus
    Wheel starts holds the base spin's coins, not a free spin's (compiled and traced agree
    round by round)."""
    raw = two_wheels_raw()
    raw["wheels"][0]["trigger"]["count"] = 1
    raw["wheels"][0]["segments"] = [{"weight": 1, "feature": "free_spins", "spins": 5}]
    raw["wheel"]["segments"] = [{"weight": 1, "feature": "hold_and_win"}]
    game = ComposedGame(ComposedModel.from_dict(raw))
    both = 0
    for i in range(2000):
        r = game.play(BET, [parse_seed(i)])
        types = [e["type"] for e in r.events]
        if "free_spins_ended" not in types or "hold_and_win_started" not in types[
                types.index("free_spins_ended"):]:
            continue
        both += 1
        shown = r.events[next(i for i, t in enumerate(types) if t == "coins_shown")] \
            if "coins_shown" in types[:types.index("free_spins_triggered")] else {"coins": []}
        started = r.events[len(types) - 1 - types[::-1].index("hold_and_win_started")]
        assert {tuple(c["cell"]) for c in started["coins"]} == {
            tuple(c["cell"]) for c in shown["coins"]}
    assert both > 20
    assert _same_rounds(game, 5_000, 17) > 500
