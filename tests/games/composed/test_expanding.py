"""Expanding reels with respins, composed from a model file (``expanding``): the rules on rounds
of a variant of Lucky Coin Link with a Lucky 7 on reels 2 to 4 (seeds 0..2999), the model's
checks, and the exact calculator against a brute-force enumeration of a small game and against
the compiled simulation."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
import pytest

from slotlab.games import game_of_data
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.mechanics.lines import line_pays
from slotlab.model import ModelError
from slotlab.rounds import RoundResult
from tests.games.composed.conftest import (
    assert_model_error,
    plain_line_units,
    seven_corpus,
    seven_game,
    seven_raw,
    shipped_raw,
)
from tests.games.composed.test_exact import Z999, _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds

Spin = list[dict[str, Any]]  # one spin's events: reels_stopped and what follows it


def _spins(r: RoundResult) -> list[Spin]:
    spins: list[Spin] = []
    for e in r.events:
        if e["type"] == "reels_stopped":
            spins.append([e])
        elif spins:
            spins[-1].append(e)
    return spins


def _expanded(spin: Spin) -> dict[str, Any] | None:
    return next((e for e in spin if e["type"] == "reels_expanded"), None)


def _line_units(game: ComposedGame, window: list[list[str]]) -> int:
    """The window's line pays by the shared evaluator, in pay units."""
    a = game.model.lines.arrays
    idx = game.model.index
    grid = np.array([[idx[s] for s in col] for col in window], dtype=np.int64)
    wins = np.empty((len(a.lines), 5), dtype=np.int64)
    total, _n = line_pays(grid, a.lines, a.paytab, a.substitutes.astype(np.int64), a.wild,
                          a.wild_mult, a.wild_each, np.zeros((0, 1), dtype=np.int64),
                          np.zeros(0, dtype=np.int64), wins)
    return int(total)


def test_a_reel_showing_the_symbol_turns_wild_before_it_pays() -> None:
    game = seven_game()
    seen = 0
    for r in seven_corpus():
        for spin in _spins(r):
            stopped, ex = spin[0], _expanded(spin)
            shown = stopped["window"]
            with_seven = [k for k, col in enumerate(shown) if "SEVEN" in col]
            if ex is None:
                assert not with_seven
                continue
            seen += 1
            assert ex["reels"] == with_seven
            for k, col in enumerate(ex["window"]):
                assert col == (["WILD"] * 3 if k in with_seven else shown[k])
            if stopped["stage"] == "base":  # multiplier 1, level 1: credits are pay units
                paid = sum(e["win"] for e in spin if e["type"] == "line_won")
                assert paid == _line_units(game, ex["window"])
    assert seen > 500


def test_an_expansion_awards_respins_with_the_expanded_reels_held() -> None:
    awarded = grew = 0
    for r in seven_corpus():
        spins = _spins(r)
        for i, spin in enumerate(spins):
            ex = _expanded(spin)
            if ex is None or spin[0].get("respin"):
                continue
            awarded += 1
            assert ex["respins"] == 2
            held = list(ex["reels"])
            stops = spin[0]["stops"]
            for n in (1, 2):
                respin = spins[i + n][0]
                assert (respin["respin"], respin["respins"], respin["held"]) == (n, 2, held)
                for k in held:
                    assert respin["window"][k] == ["WILD"] * 3
                    assert respin["stops"][k] == stops[k]  # a held reel does not move
                new = _expanded(spins[i + n])
                if new is not None:
                    assert new["respins"] == 0  # a respin awards no more
                    if n == 1:
                        grew += 1
                    held = sorted(held + new["reels"])  # held for the respins left
                stops = respin["stops"]
            after = spins[i + 3][0] if i + 3 < len(spins) else None
            assert after is None or not after.get("respin")
    assert awarded > 500 and grew > 20


def test_a_respin_pays_but_starts_nothing() -> None:
    """Respins that show three Bonus Wheel symbols pay them, and start no wheel; no coin value is
    drawn in a respin."""
    scatter_respins = 0
    for r in seven_corpus():
        spins = _spins(r)
        for spin in spins:
            if not spin[0].get("respin"):
                continue
            assert not any(e["type"] == "coins_shown" for e in spin)
            bonus = sum(col.count("BONUS") for col in spin[0]["window"])
            if bonus >= 3:
                scatter_respins += 1
                assert any(e["type"] == "scatter_won" and e["count"] == bonus for e in spin)
        base = spins[0][0]
        base_bonus = sum(col.count("BONUS") for col in
                         (_expanded(spins[0]) or base)["window"])
        assert any(e["type"] == "wheel_spun" for e in r.events) == (base_bonus >= 3)
    assert scatter_respins > 5


def test_an_expanded_reel_shows_no_scatter_or_coin() -> None:
    """What the reel showed besides the symbol is gone: a Bonus Wheel symbol or a Coin on it
    counts for nothing."""
    hidden = 0
    for r in seven_corpus():
        spin = _spins(r)[0]
        ex = _expanded(spin)
        if ex is None:
            continue
        coins = next((e["coins"] for e in spin if e["type"] == "coins_shown"), [])
        assert all(c["cell"][0] not in ex["reels"] for c in coins)
        if any(s in ("BONUS", "COIN") for k in ex["reels"] for s in spin[0]["window"][k]):
            hidden += 1
    assert hidden > 20


def test_the_round_adds_the_respins_and_pays_what_its_events_say() -> None:
    for r in seven_corpus()[:500]:
        assert r.win == r.events[-1]["win"]


def test_kernel_and_traced_rounds_agree_with_expanding_reels() -> None:
    assert _same_rounds(seven_game(), 5_000, 11) > 1_000


@pytest.mark.parametrize(("change", "words"), [
    ({"symbol": "NOPE"}, ["expanding.symbol", "NOPE"]),
    ({"symbol": "WILD"}, ["expanding.symbol", "the wild"]),
    ({"symbol": "BONUS"}, ["expanding.symbol", "the scatter"]),
    ({"symbol": "COIN"}, ["expanding.symbol", "the coin"]),
    ({"symbol": "DRAGON"}, ["expanding.symbol", "never pays"]),
    ({"symbol": "SEVEN", "respins": 11}, ["expanding.respins"]),
    ({"symbol": "SEVEN", "held": True}, ["expanding.held"]),
])
def test_a_bad_expanding_key_names_its_field(change: dict[str, Any], words: list[str]) -> None:
    raw = seven_raw()
    raw["expanding"] = change
    assert_model_error(raw, words)


def test_expanding_needs_a_wild() -> None:
    raw = seven_raw()
    raw["wild"] = None
    with pytest.raises(ModelError, match=r"expanding: .*no wild"):
        game_of_data(raw, "mine.json")


# ---- exact ------------------------------------------------------------------------------------

TINY_STRIPS = [["A", "X", "B", "S", "A"], ["W", "A", "B", "S"], ["B", "X", "A", "A", "S", "B"]]
TINY_LINES = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]
TINY_PAYS = {"A": {2: 2, 3: 10}, "B": {3: 6}}


def _tiny(respins: int) -> ComposedGame:
    """Three reels of two rows; X expands on reels 1 and 3, W is wild, S a scatter paying 3 for
    two."""
    return ComposedGame(ComposedModel.from_dict({
        "format": "slotlab.composed/1", "id": "tiny-expanding", "name": "Tiny",
        "reels": 3, "rows": 2,
        "symbols": [{"id": s} for s in ("W", "S", "X", "A", "B")],
        "bet": {"divisor": 3, "levels": [1]}, "lines": TINY_LINES,
        "pays": {s: {str(k): v for k, v in p.items()} for s, p in TINY_PAYS.items()},
        "wild": {"symbol": "W", "substitutes": ["A", "B"]},
        "scatter": {"symbol": "S", "pays": {"2": 3, "3": 9}},
        "strips": {"base": TINY_STRIPS}, "max_win_x": 1000,
        "expanding": {"symbol": "X", "respins": respins}}))


def _tiny_pay(window: list[list[str]]) -> int:
    """Lines and scatters of a window, by the rules in words (no shared code)."""
    total = plain_line_units(window, TINY_LINES, TINY_PAYS)
    scatters = sum(col.count("S") for col in window)
    return total + {2: 3, 3: 9}.get(scatters, 0)


def _tiny_value(held: frozenset[int], left: int, first: bool) -> Fraction:
    """E[what a spin (``first``: the one that may award respins) and its respins pay]."""
    free = [r for r in range(3) if r not in held]
    total = Fraction(0)
    outcomes = list(product(*(range(len(TINY_STRIPS[r])) for r in free)))
    for stops in outcomes:
        window = [["W", "W"] for _ in range(3)]
        now = set(held)
        for r, p in zip(free, stops, strict=True):
            strip = TINY_STRIPS[r]
            col = [strip[p], strip[(p + 1) % len(strip)]]
            if "X" in col:
                col = ["W", "W"]
                now.add(r)
            window[r] = col
        value = Fraction(_tiny_pay(window))
        if first and now != set(held):
            value += _tiny_value(frozenset(now), left, False)
        elif not first and left > 1:
            value += _tiny_value(frozenset(now), left - 1, False)
        total += value
    return total / len(outcomes)


@pytest.mark.parametrize("respins", [0, 1, 3])
def test_the_exact_value_is_the_enumerated_one(respins: int) -> None:
    """The calculator's lines, scatters and respins equal, fraction for fraction, every stop of
    the spin and of each respin enumerated with a plain evaluator."""
    report = _tiny(respins).exact(3)
    parts = report["components"]
    exact = sum((Fraction(parts[c]["fraction"]) for c in ("base_lines", "base_scatter",
                                                         "respins")), Fraction(0))
    enumerated = _tiny_value(frozenset(), respins, True) if respins else _tiny_value(
        frozenset(), 0, False)
    assert exact * 3 == enumerated
    assert (Fraction(parts["respins"]["fraction"]) > 0) == (respins > 0)


def test_the_exact_respins_match_the_played_ones() -> None:
    """The respins' component of 3,000 played rounds against the exact one, at 99.9 %."""
    game = seven_game()
    exact = game.exact()["components"]["respins"]["rtp"]
    samples = []
    for r in seven_corpus():
        won = 0
        for spin in _spins(r):
            if spin[0].get("respin") and spin[0]["stage"] == "base":
                won += sum(e["win"] for e in spin if e["type"] in ("line_won", "scatter_won"))
        samples.append(won / 20)
    arr = np.array(samples)
    se = float(arr.std(ddof=1)) / math.sqrt(len(arr))
    assert abs(float(arr.mean()) - exact) <= Z999 * se, (arr.mean(), exact, se)


def test_the_compiled_simulation_holds_the_exact_rtp() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(seven_game(1), 1_000_000, 31)
    assert ok, text


def test_a_game_without_the_key_is_unchanged() -> None:
    """Lucky Coin Link has no expanding reels: its respins component is 0."""
    report = game_of_data(shipped_raw()).exact()
    assert Fraction(report["components"]["respins"]["fraction"]) == 0
