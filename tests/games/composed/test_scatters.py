"""Paying scatters composed from a model file (``scatters``): the rule on rounds of Lucky Coin Link
with a Golden and a Silver Star (seeds 0..1999), the model's checks, and the exact calculator
against a brute-force enumeration of a small game and against the compiled simulation."""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

import pytest

from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.rng import parse_seed
from slotlab.rounds import RoundResult
from tests.games.composed.conftest import (
    BET,
    assert_model_error,
    plain_line_units,
    stars_game,
    stars_raw,
)
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds

STAR_PAYS = {"GOLD": {3: 60, 4: 300, 5: 3000}, "SILVER": {2: 4, 3: 10, 4: 30, 5: 100, 6: 500}}


@cache
def _corpus(with_seven: bool) -> tuple[RoundResult, ...]:
    game = stars_game(with_seven)
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(2000))


@pytest.mark.parametrize("with_seven", [False, True])
def test_each_scatter_pays_its_count_anywhere_times_the_spins_multiplier(
        with_seven: bool) -> None:
    """Every spin of every round: each star pays by how many of it the window shows (after any
    reel expanded), wherever they are, times the free spins' multiplier; a star count without a
    pay pays nothing. Level 1: credits are pay units."""
    paid = {"GOLD": 0, "SILVER": 0}
    in_free = 0
    for r in _corpus(with_seven):
        mult = 1
        window: list[list[str]] = []
        for e in r.events:
            if e["type"] == "free_spin_started":
                mult = e["multiplier"]
            elif e["type"] in ("reels_stopped", "reels_expanded"):
                window = e["window"]
            elif e["type"] == "scatter_won" and e["symbol"] in paid:
                sym = e["symbol"]
                cells = [[k, row] for k, col in enumerate(window)
                         for row, s in enumerate(col) if s == sym]
                assert (e["count"], e["positions"]) == (len(cells), cells)
                assert e["win"] == STAR_PAYS[sym][len(cells)] * mult
                paid[sym] += 1
                in_free += mult > 1
        _check_no_pay_is_missed(r)
    assert paid["GOLD"] > 3 and paid["SILVER"] > 100, paid
    assert in_free > 0


def _check_no_pay_is_missed(r: RoundResult) -> None:
    """Each spin whose final window shows a paying count of a star has its ``scatter_won``."""
    spins: list[list[dict[str, Any]]] = []
    for e in r.events:
        if e["type"] == "reels_stopped":
            spins.append([e])
        elif spins:
            spins[-1].append(e)
    for spin in spins:
        window = spin[0]["window"]
        expanded = next((e for e in spin if e["type"] == "reels_expanded"), None)
        if expanded is not None:
            window = expanded["window"]
        won = {e["symbol"] for e in spin if e["type"] == "scatter_won"}
        for sym, pays in STAR_PAYS.items():
            count = sum(col.count(sym) for col in window)
            assert (sym in won) == (count in pays), (sym, count, spin)


@pytest.mark.parametrize("with_seven", [False, True])
def test_kernel_and_traced_rounds_agree_with_paying_scatters(with_seven: bool) -> None:
    assert _same_rounds(stars_game(with_seven), 3_000, 12) > 80


def test_the_compiled_simulation_holds_the_exact_rtp_with_paying_scatters() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(stars_game(), 1_000_000, 41)
    assert ok, text


@pytest.mark.parametrize(("change", "words"), [
    ([{"symbol": "NOPE", "pays": {"3": 5}}], ["scatters[0].symbol", "NOPE"]),
    ([{"symbol": "BONUS", "pays": {"3": 5}}], ["scatters[0].symbol", "the scatter"]),
    ([{"symbol": "WILD", "pays": {"3": 5}}], ["scatters[0].symbol", "the wild"]),
    ([{"symbol": "COIN", "pays": {"3": 5}}], ["scatters[0].symbol", "the coin"]),
    ([{"symbol": "DRAGON", "pays": {"3": 5}}], ["scatters[0].symbol", "never pays on lines"]),
    ([{"symbol": "GOLD", "pays": {"3": 5}}, {"symbol": "GOLD", "pays": {"4": 5}}],
     ["scatters[1].symbol", "twice"]),
    ([{"symbol": "GOLD", "pays": {"16": 5}}], ["scatters[0].pays", "16"]),
    ([{"symbol": "GOLD", "pays": {"3": 0}}], ["scatters.0.pays.3"]),
    ([{"symbol": "GOLD", "pays": {}}], ["scatters.0.pays"]),
])
def test_a_bad_scatters_key_names_its_field(change: list[dict[str, Any]],
                                            words: list[str]) -> None:
    raw = stars_raw()
    raw["scatters"] = change
    assert_model_error(raw, words)


def test_a_wild_never_substitutes_for_a_paying_scatter() -> None:
    raw = stars_raw()
    raw["wild"]["substitutes"].append("GOLD")
    assert_model_error(raw, ["wild.substitutes", "GOLD"])


# ---- exact ------------------------------------------------------------------------------------

TINY_STRIPS = [["A", "P", "B", "S", "X", "P"], ["W", "P", "P", "S", "A"],
               ["B", "X", "A", "P", "S", "B", "P"]]
TINY_LINES = [[0, 0, 0], [1, 1, 1], [0, 1, 0]]
TINY_PAYS = {"A": {2: 2, 3: 10}, "B": {3: 6}}
SCATTER_PAYS = {2: 3, 3: 9}  # S
PAYING_PAYS = {1: 1, 2: 2, 4: 20, 5: 50}  # P


def _tiny(respins: int | None) -> ComposedGame:
    """Three reels of two rows; W is wild, S the scatter, P a paying scatter; X expands on reels
    1 and 3 with ``respins`` respins (``None``: X is a blank)."""
    raw: dict[str, Any] = {
        "format": "slotlab.composed/1", "id": "tiny-scatters", "name": "Tiny",
        "reels": 3, "rows": 2,
        "symbols": [{"id": s} for s in ("W", "S", "P", "X", "A", "B")],
        "bet": {"divisor": 3, "levels": [1]}, "lines": TINY_LINES,
        "pays": {s: {str(k): v for k, v in p.items()} for s, p in TINY_PAYS.items()},
        "wild": {"symbol": "W", "substitutes": ["A", "B"]},
        "scatter": {"symbol": "S", "pays": {str(k): v for k, v in SCATTER_PAYS.items()}},
        "scatters": [{"symbol": "P", "pays": {str(k): v for k, v in PAYING_PAYS.items()}}],
        "strips": {"base": TINY_STRIPS}, "max_win_x": 1000}
    if respins is not None:
        raw["expanding"] = {"symbol": "X", "respins": respins}
    return ComposedGame(ComposedModel.from_dict(raw))


def _tiny_pay(window: list[list[str]]) -> int:
    """Lines and both scatters of a window, by the rules in words (no shared code)."""
    total = plain_line_units(window, TINY_LINES, TINY_PAYS)
    shown = [s for col in window for s in col]
    return total + SCATTER_PAYS.get(shown.count("S"), 0) + PAYING_PAYS.get(shown.count("P"), 0)


def _outcomes(held: frozenset[int], expands: bool) -> list[tuple[int, frozenset[int]]]:
    """Every stop of the reels not held: what the window pays and the reels held after it (a
    reel showing X turns wild when X ``expands``)."""
    free = [r for r in range(3) if r not in held]
    out = []
    for stops in product(*(range(len(TINY_STRIPS[r])) for r in free)):
        window = [["W", "W"] for _ in range(3)]
        now = set(held)
        for r, p in zip(free, stops, strict=True):
            strip = TINY_STRIPS[r]
            col = [strip[p], strip[(p + 1) % len(strip)]]
            if expands and "X" in col:
                col = ["W", "W"]
                now.add(r)
            window[r] = col
        out.append((_tiny_pay(window), frozenset(now)))
    return out


def _tiny_respins(held: frozenset[int], left: int) -> Fraction:
    """E[what ``left`` respins pay with ``held`` reels held (a reel a respin expands is held
    for the respins left)]."""
    if left == 0:
        return Fraction(0)
    outcomes = _outcomes(held, True)
    return sum((pay + _tiny_respins(now, left - 1) for pay, now in outcomes),
               Fraction(0)) / len(outcomes)


def _tiny_value(respins: int | None) -> Fraction:
    """E[a round]: the spin, and the respins it awards when it expands a reel."""
    outcomes = _outcomes(frozenset(), respins is not None)
    return sum((pay + (_tiny_respins(now, respins or 0) if now else 0)
                for pay, now in outcomes), Fraction(0)) / len(outcomes)


@pytest.mark.parametrize("respins", [None, 0, 1, 2])
def test_the_exact_value_is_the_enumerated_one_with_a_paying_scatter(
        respins: int | None) -> None:
    """Lines, the scatter and the paying scatter (and the respins an expanding reel awards)
    equal, fraction for fraction, every stop of the spin and of each respin enumerated."""
    parts = _tiny(respins).exact(3)["components"]
    exact = sum((Fraction(parts[c]["fraction"]) for c in ("base_lines", "base_scatter",
                                                         "respins")), Fraction(0))
    assert exact * 3 == _tiny_value(respins)
