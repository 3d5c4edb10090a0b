"""A hold and win's full-grid jackpot (``hold_and_win.full_grid``): the rule on features of a
variant of Lucky Coin Link whose coins land often, the model's checks, and the exact value
against an enumeration of every landing of a small grid and against the compiled simulation."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from slotlab.games.composed.exact import _Grid
from slotlab.games.composed.model import ComposedModel
from slotlab.games.composed.round import Tables, hold_and_win
from slotlab.rng import chacha_stream, parse_seed
from slotlab.rounds import Event
from tests.games.composed.conftest import GRAND, assert_model_error, full_game, full_raw
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds


def _features(mult: int) -> list[tuple[int, list[Event]]]:
    """400 features from 6 coins, at ``mult``, from seeds 0..399."""
    t = Tables(full_game().model)
    out = []
    for i in range(400):
        events: list[Event] = []
        start = {cell: 0 for cell in (0, 2, 4, 6, 8, 10)}
        out.append((hold_and_win(t, chacha_stream(parse_seed(i)), start, mult, 1, events),
                    events))
    return out


@pytest.mark.parametrize("mult", [1, 3])
def test_a_full_grid_pays_its_jackpot_on_top_of_the_coins(mult: int) -> None:
    """Every cell held (coins and collectors): the Grand times the feature's multiplier, on top
    of the coins and collectors; short of full, no Grand."""
    full = short = 0
    for win, events in _features(mult):
        end = events[-1]
        held = 6 + sum(len(e["coins"]) + len(e["collectors"]) for e in events
                       if e["type"] == "respin_landed")
        assert end["full"] == (held == 15)
        coin_part = end["coins"] * (1 + end["collectors"])
        if held == 15:
            full += 1
            assert end["full_grid"] == {"jackpot": "Grand", "win": GRAND * mult}
            assert "Grand" in end["jackpots"]
            assert win == end["win"] == coin_part + GRAND * mult
        else:
            short += 1
            assert end["full_grid"] is None
            assert win == end["win"] == coin_part
    assert full > 30 and short > 30


def test_the_game_describes_the_full_grid_and_only_its_jackpots() -> None:
    hw = full_game().describe()["hold_and_win"]
    assert hw["full_grid"] == "Grand" and "Mini" not in hw["jackpots"]
    assert hw["jackpots"]["Grand"] == GRAND


def test_kernel_and_traced_rounds_agree_with_a_full_grid() -> None:
    assert _same_rounds(full_game(), 3_000, 13) > 80


def test_the_compiled_simulation_holds_the_exact_rtp_with_a_full_grid() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(full_game(), 1_000_000, 43)
    assert ok, text


def test_the_report_gives_the_full_grids_rate() -> None:
    rows = full_game().exact()["tables"]["base-triggered jackpots"]
    grand = next(r for r in rows if r.get("full_grid"))
    assert grand["jackpot"] == "Grand" and 0 < grand["per_round"] < 1


@pytest.mark.parametrize(("change", "words"), [
    ({"full_grid": "Mini"}, ["jackpots", "no value for Mini"]),
    ({"full_grid": "Mega"}, ["hold_and_win.full_grid"]),
    ({"jackpots": {"Minor": 5, "Major": 10}}, ["jackpots", "no value for Grand"]),
])
def test_a_bad_full_grid_names_its_field(change: dict[str, Any], words: list[str]) -> None:
    raw = full_raw()
    raw["hold_and_win"].update(change)
    assert_model_error(raw, words)


# ---- exact ------------------------------------------------------------------------------------

def _enumerated_value(cells: int, start: int, p: Fraction, respins: int, mean_coin: Fraction,
                      full: int) -> Fraction:
    """E[coins x mean value + full-grid pay]: every cell's landing or not, respin by respin
    (no shared code; coins only)."""
    def value(held: int, counter: int) -> Fraction:
        if counter == 0 or held == cells:
            return held * mean_coin + (full if held == cells else 0)
        free = cells - held
        total = Fraction(0)
        for lands in product((False, True), repeat=free):
            n = sum(lands)
            pr = p ** n * (1 - p) ** (free - n)
            total += pr * value(held + n, respins if n else counter - 1)
        return total
    return value(start, respins)


@pytest.mark.parametrize("start", [1, 3, 5, 6])
def test_the_exact_value_is_every_landing_enumerated(start: int) -> None:
    """A 3x2 grid, coins only, 2 respins: the calculator's value, fraction for fraction."""
    raw = full_raw()
    raw.update(reels=3, rows=2, lines=[[0, 0, 0], [1, 1, 1]],
               strips={s: [strip[:12] for strip in strips[:3]]
                       for s, strips in raw["strips"].items()})
    raw["pays"] = {s: {"3": p["3"]} for s, p in raw["pays"].items()}
    raw["free_spins"]["awards"] = {"3": 8}
    raw["scatter"]["pays"] = {"3": 40}
    hw = raw["hold_and_win"]
    hw.update(trigger=3, respins=2, landing={"nothing": 7, "coin": 3})
    grid = _Grid(ComposedModel.from_dict(raw))
    p = Fraction(3, 10)
    enumerated = _enumerated_value(6, start, p, 2, grid.mean_coin, GRAND)
    assert grid.value(start) == enumerated
    assert grid.p_full(start) == _enumerated_value(6, start, p, 2, Fraction(0), 1)
