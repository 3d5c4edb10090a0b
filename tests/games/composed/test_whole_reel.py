"""Whole-reel symbols, composed from a model file (``whole_reel``): the rules on rounds of a
variant of Lucky Coin Link with a Mega Coin three rows tall on reel 3 (seeds 0..2999), the
model's checks, and the exact calculator against an enumeration of a small game's windows and
against the compiled simulation."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from slotlab.games import game_of_data
from slotlab.games.composed.exact import _Grid
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.model import ModelError
from tests.games.composed.conftest import assert_model_error, mega_corpus, mega_game, mega_raw
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds


def _base(r: Any) -> list[dict[str, Any]]:
    """The base spin's events, up to the first feature."""
    out = []
    for e in r.events:
        if e["type"] in ("hold_and_win_started", "wheel_spun", "round_ended"):
            break
        out.append(e)
    return out


def test_a_filled_reel_is_coins_and_starts_the_hold_and_win() -> None:
    """However few other coins are in view: the reel's three cells are coins, each with a value
    drawn from the coin table, held from the start."""
    few = 0
    for r in mega_corpus():
        base = _base(r)
        window = base[0]["window"]
        shown = next((e for e in base if e["type"] == "whole_reel_shown"), None)
        full = [k for k, col in enumerate(window) if col == ["MEGA"] * 3]
        assert (shown["reels"] if shown else []) == full
        if not full:
            continue
        coins = next(e["coins"] for e in base if e["type"] == "coins_shown")
        cells = {tuple(c["cell"]) for c in coins}
        assert {(2, row) for row in range(3)} <= cells
        started = next(e for e in r.events if e["type"] == "hold_and_win_started")
        assert {tuple(c["cell"]) for c in started["coins"]} == cells
        if sum(col.count("COIN") for col in window) + 3 < 6:
            few += 1
    assert few > 30


def test_part_of_it_in_view_shows_nothing() -> None:
    partial = 0
    for r in mega_corpus():
        base = _base(r)
        window = base[0]["window"]
        n = window[2].count("MEGA")
        if not 0 < n < 3:
            continue
        partial += 1
        assert not any(e["type"] == "whole_reel_shown" for e in base)
        coins = next((e["coins"] for e in base if e["type"] == "coins_shown"), [])
        assert all(window[c["cell"][0]][c["cell"][1]] == "COIN" for c in coins)
        coin_count = sum(col.count("COIN") for col in window)
        # the base spin's own hold and win follows its events at once
        assert (r.events[len(base)]["type"] == "hold_and_win_started") == (coin_count >= 6)
    assert partial > 200


def test_kernel_and_traced_rounds_agree_with_a_whole_reel_symbol() -> None:
    assert _same_rounds(mega_game(), 5_000, 12) > 100


def test_the_compiled_simulation_holds_the_exact_rtp() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(mega_game(), 1_000_000, 32)
    assert ok, text


@pytest.mark.parametrize(("change", "words"), [
    ({"symbol": "NOPE"}, ["whole_reel.symbol", "NOPE"]),
    ({"symbol": "COIN"}, ["whole_reel.symbol", "the coin"]),
    ({"symbol": "BONUS"}, ["whole_reel.symbol", "the scatter"]),
    ({"symbol": "DRAGON"}, ["whole_reel.symbol", "never pays"]),
    ({"symbol": "MEGA", "starts": "wheel"}, ["whole_reel.starts"]),
])
def test_a_bad_whole_reel_key_names_its_field(change: dict[str, Any], words: list[str]) -> None:
    raw = mega_raw()
    raw["whole_reel"] = change
    assert_model_error(raw, words)


def test_the_symbol_stands_as_tall_as_the_reel_on_every_strip() -> None:
    raw = mega_raw()
    raw["strips"]["free"][2].remove("MEGA")
    with pytest.raises(ModelError, match=r"strips\.free\[2\]: MEGA at stop \d+ stands 2 high"):
        game_of_data(raw, "mine.json")


def test_it_needs_a_hold_and_win() -> None:
    raw = mega_raw()
    del raw["hold_and_win"]
    raw["wheel"]["segments"] = [s for s in raw["wheel"]["segments"]
                                if s.get("feature") != "hold_and_win"]
    with pytest.raises(ModelError, match=r"whole_reel\.starts"):
        game_of_data(raw, "mine.json")


# ---- exact ------------------------------------------------------------------------------------

TINY_STRIPS = [["C", "A", "S", "A", "C"], ["G", "G", "A", "C", "A"], ["A", "G", "G", "S", "C", "A"]]


def _tiny() -> ComposedGame:
    """Three reels of two rows; a two-row Giant on reels 2 and 3; 3 coins start the grid."""
    return ComposedGame(ComposedModel.from_dict({
        "format": "slotlab.composed/1", "id": "tiny-giant", "name": "Tiny",
        "reels": 3, "rows": 2,
        "symbols": [{"id": s} for s in ("W", "S", "C", "G", "A")],
        "bet": {"divisor": 3, "levels": [1]}, "lines": [[0, 0, 0], [1, 1, 1]],
        "pays": {"A": {"3": 5}}, "wild": {"symbol": "W", "substitutes": ["A"]},
        "scatter": {"symbol": "S", "pays": {"2": 3}},
        "strips": {"base": TINY_STRIPS}, "max_win_x": 1000,
        "hold_and_win": {"symbol": "C", "trigger": 3, "respins": 2,
                         "landing": {"nothing": 3, "coin": 1},
                         "coins": [{"weight": 2, "value": 4}, {"weight": 1, "value": 10},
                                   {"weight": 1, "jackpot": "Mini"}],
                         "jackpots": {"Mini": 20, "Minor": 40, "Major": 80, "Grand": 160}},
        "whole_reel": {"symbol": "G"}}))


def test_the_exact_hold_and_win_is_every_window_enumerated() -> None:
    """The hold and win's component equals, fraction for fraction, the mean over every stop
    combination of the grid's value from the coins it starts with (a filled reel's two cells
    among them; a part of the Giant nothing)."""
    game = _tiny()
    grid = _Grid(game.model)
    total = Fraction(0)
    stops = list(product(*(range(len(s)) for s in TINY_STRIPS)))
    for combo in stops:
        cols = [[s[p], s[(p + 1) % len(s)]] for s, p in zip(TINY_STRIPS, combo, strict=True)]
        filled = sum(col == ["G", "G"] for col in cols)
        coins = sum(col.count("C") for col in cols) + 2 * filled
        if coins >= 3 or filled:
            total += grid.value(coins)
    exact = Fraction(game.exact(3)["components"]["hold_and_win"]["fraction"]) * 3
    assert exact == total / len(stops)
    assert game.exact(3)["hold_and_win_rate"] == pytest.approx(
        sum(1 for c in stops if _starts_grid(c)) / len(stops))


def _starts_grid(combo: tuple[int, ...]) -> bool:
    cols = [[s[p], s[(p + 1) % len(s)]] for s, p in zip(TINY_STRIPS, combo, strict=True)]
    return any(col == ["G", "G"] for col in cols) or sum(col.count("C") for col in cols) >= 3
