"""A wheel spun by its own symbol (``wheel.trigger``): the rule on rounds of Lucky Coin Link whose
Bonus Wheel three Wheel symbols spin (seeds 0..2999), the model's checks, and the exact
calculator against an enumeration of a small game and against the compiled simulation."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

import pytest

from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.games.composed.round import Tables, play_round
from slotlab.rng import chacha_stream, parse_seed
from slotlab.rounds import Event, RoundResult
from tests.games.composed.conftest import (
    BET,
    assert_model_error,
    wheel_symbol_game,
    wheel_symbol_raw,
)
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds


@cache
def _corpus() -> tuple[RoundResult, ...]:
    game = wheel_symbol_game()
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(3000))


def test_three_wheel_symbols_in_the_base_window_spin_the_wheel() -> None:
    """Three or more anywhere in the base spin's window spin it once; fewer never do. The
    wheel comes after the base spin's Coin Link and before the free spins, and its Coin Link
    starts from the coins in view."""
    spun = 0
    for r in _corpus():
        window = r.events[0]["window"]
        wheels = [i for i, e in enumerate(r.events) if e["type"] == "wheel_spun"]
        assert len(wheels) == (1 if sum(col.count("WHEEL") for col in window) >= 3 else 0)
        if not wheels:
            continue
        spun += 1
        at = wheels[0]
        free = [i for i, e in enumerate(r.events) if e["type"] == "free_spins_triggered"]
        assert all(i > at for i in free)
        e = r.events[at]
        if e["feature"] == "hold_and_win":
            shown = next((c for c in r.events[:at] if c["type"] == "coins_shown"), None)
            started = next(c for c in r.events[at:] if c["type"] == "hold_and_win_started")
            assert started["multiplier"] == 2
            assert {tuple(c["cell"]) for c in started["coins"]} == (
                {tuple(c["cell"]) for c in shown["coins"]} if shown else set())
    assert spun > 20


def test_the_scatters_start_free_spins_without_the_wheel() -> None:
    started = 0
    for r in _corpus():
        if has_wheel_free_spins(r):
            continue
        bonus = sum(col.count("BONUS") for col in r.events[0]["window"])
        triggered = [e for e in r.events if e["type"] == "free_spins_triggered"]
        if bonus >= 3:
            started += 1
            assert triggered and triggered[0]["awarded"] == {3: 8, 4: 10, 5: 12}[bonus]
            assert triggered[0]["multiplier"] == 1
    assert started > 5


def has_wheel_free_spins(r: RoundResult) -> bool:
    return any(e["type"] == "wheel_spun" and e["feature"] == "free_spins" for e in r.events)


def test_a_segments_free_spins_are_its_own_number_and_each_retrigger_gives_it_again() -> None:
    """The segment's 6 spins at x2 (the Bonus scatters in them retrigger 6 more, up to 50)."""
    seen = 0
    for r in _corpus():
        if not has_wheel_free_spins(r):
            continue
        seen += 1
        at = next(i for i, e in enumerate(r.events) if e["type"] == "free_spins_triggered")
        assert (r.events[at]["awarded"], r.events[at]["multiplier"]) == (6, 2)
        end = next(i for i, e in enumerate(r.events) if e["type"] == "free_spins_ended")
        for e in r.events[at:end]:
            if e["type"] == "free_spins_retriggered":
                assert e["awarded"] == min(6, 50 - (e["total_awarded"] - e["awarded"]))
    assert seen > 2


def test_free_spins_from_the_wheel_and_from_the_scatters_both_count() -> None:
    """A round whose wheel and scatters both start free spins pays both (a variant where one
    Wheel symbol spins it and every segment gives 6 free spins)."""
    raw = wheel_symbol_raw()
    raw["wheel"] = {"trigger": {"symbol": "WHEEL", "count": 1}, "segments": [
        {"weight": 1, "feature": "free_spins", "spins": 6}]}
    game = ComposedGame(ComposedModel.from_dict(raw))
    t = Tables(game.model)
    both = 0
    for i in range(3000):
        events: list[Event] = []
        tally = play_round(t, chacha_stream(parse_seed(i)), 1, events)
        ended = [e["win"] for e in events if e["type"] == "free_spins_ended"]
        assert tally.parts["free_spins"] == sum(ended)
        both += len(ended) == 2
    assert both > 5
    assert _same_rounds(game, 3_000, 16) > 1000


def test_kernel_and_traced_rounds_agree_with_a_wheel_symbol() -> None:
    assert _same_rounds(wheel_symbol_game(), 5_000, 14) > 100


def test_the_compiled_simulation_holds_the_exact_rtp_with_a_wheel_symbol() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(wheel_symbol_game(), 1_000_000, 44)
    assert ok, text


@pytest.mark.parametrize(("change", "words"), [
    ({"symbol": "NOPE", "count": 3}, ["wheel.trigger.symbol", "NOPE"]),
    ({"symbol": "BONUS", "count": 3}, ["wheel.trigger.symbol", "the scatter"]),
    ({"symbol": "COIN", "count": 3}, ["wheel.trigger.symbol", "the coin"]),
    ({"symbol": "DRAGON", "count": 3}, ["wheel.trigger.symbol", "never pays"]),
    ({"symbol": "WHEEL", "count": 16}, ["wheel.trigger.count", "15 cells"]),
    ({"symbol": "WHEEL", "count": 0}, ["wheel.trigger.count"]),
])
def test_a_bad_wheel_trigger_names_its_field(change: dict[str, Any], words: list[str]) -> None:
    raw = wheel_symbol_raw()
    raw["wheel"]["trigger"] = change
    assert_model_error(raw, words)


def test_a_wheel_its_symbol_spins_gives_free_spins_only_of_its_own_number() -> None:
    raw = wheel_symbol_raw()
    raw["wheel"]["segments"].append({"weight": 1, "feature": "free_spins"})
    assert_model_error(raw, ["wheel.segments[5]", "give its spins"])
    raw = wheel_symbol_raw()
    del raw["free_spins"]
    assert_model_error(raw, ["wheel.segments[4]", "no free_spins"])
    raw["wheel"]["segments"].pop()
    ComposedModel.from_dict(raw)  # no scatter award needed to spin it


def test_spins_belong_to_a_free_spins_segment() -> None:
    raw = wheel_symbol_raw()
    raw["wheel"]["segments"][0]["spins"] = 5
    assert_model_error(raw, ["wheel.segments.0", "spins"])


# ---- exact ------------------------------------------------------------------------------------

TINY_STRIPS = [["A", "V", "B", "S", "X", "V"], ["V", "A", "B", "S", "A"],
               ["B", "X", "A", "V", "S", "B", "V"]]
SEGMENTS = [(3, 10), (1, 40), (2, 4)]  # (weight, pay)


def _tiny(expanding: bool) -> ComposedGame:
    """Three reels of two rows; two V spin a paying wheel; X expands on reels 1 and 3 (no
    respins) or is a blank."""
    raw: dict[str, Any] = {
        "format": "slotlab.composed/1", "id": "tiny-wheel", "name": "Tiny",
        "reels": 3, "rows": 2,
        "symbols": [{"id": s} for s in ("W", "S", "V", "X", "A", "B")],
        "bet": {"divisor": 3, "levels": [1]}, "lines": [[0, 0, 0]],
        "pays": {"A": {"3": 5}}, "wild": {"symbol": "W", "substitutes": ["A", "B"]},
        "scatter": {"symbol": "S", "pays": {"3": 9}},
        "wheel": {"trigger": {"symbol": "V", "count": 2},
                  "segments": [{"weight": w, "pay": p} for w, p in SEGMENTS]},
        "strips": {"base": TINY_STRIPS}, "max_win_x": 1000}
    if expanding:
        raw["expanding"] = {"symbol": "X", "respins": 0}
    return ComposedGame(ComposedModel.from_dict(raw))


@pytest.mark.parametrize("expanding", [False, True])
def test_the_exact_wheel_is_every_window_enumerated(expanding: bool) -> None:
    """P(two or more V in view, a reel turned wild by X showing none) times the segments'
    mean pay, fraction for fraction."""
    mean_pay = Fraction(sum(w * p for w, p in SEGMENTS), sum(w for w, _ in SEGMENTS))
    spun = 0
    stops = list(product(*(range(len(s)) for s in TINY_STRIPS)))
    for at in stops:
        cols = [[strip[p], strip[(p + 1) % len(strip)]] for strip, p in zip(TINY_STRIPS, at,
                                                                           strict=True)]
        shown = [["W", "W"] if expanding and "X" in col else col for col in cols]
        spun += sum(col.count("V") for col in shown) >= 2
    report = _tiny(expanding).exact(3)
    assert Fraction(report["components"]["wheel_pays"]["fraction"]) * 3 == \
        Fraction(spun, len(stops)) * mean_pay
    assert report["tables"]["wheels"][0]["per_round"] == \
        float(Fraction(spun, len(stops)))
