"""Exact figures: the numba full cycle against a pure-Python brute force, and the v1 report."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotlab.games.crystal_star_deluxe import kernel as k
from slotlab.games.crystal_star_deluxe.exact import exact_report
from slotlab.games.crystal_star_deluxe.game import CrystalStarDeluxe
from slotlab.games.crystal_star_deluxe.model import load_model
from slotlab.simulate.stats import band_labels

from .conftest import MAX_BET, of_type, rows_to_window, window_model
from .reference import ref_full_cycle, ref_play

B = "-"

# Small strips (7 and 8 stops) dense in Stars, multipliers and mixed symbols, so that every rule
# (nudges from each row, both tiers, repeats, caps) occurs in a cycle of a few hundred plays.
SMALL_STRIPS = [
    ["STARv", "777x5", "7x3", "STAR^", "-", "2BARx5", "1BAR"],
    ["777", "STAR^", "-", "7x2", "STARv", "77x3", "1BARx3", "-"],
    ["STARv", "7", "-", "STAR^", "777x5", "2BAR", "-"],
]


def small_raw(v1_raw, strips=SMALL_STRIPS, **changes):
    raw = window_model(v1_raw, [[B] * 3] * 3)
    raw["reel_strips"] = strips
    raw.update(changes)
    return raw


def exact_as_fractions(report):
    return {
        "rtp": Fraction(report["rtp_fraction"]),
        "variance": Fraction(report["variance_fraction"]),
        "hit_rate": Fraction(report["hit_rate_fraction"]),
        "max_win": report["max_win"],
        "components": {k: Fraction(v["fraction"]) for k, v in report["components"].items()},
    }


@pytest.mark.parametrize("bet", [9, 27, 45])
def test_full_cycle_equals_pure_python_brute_force(v1_raw, bet):
    raw = small_raw(v1_raw)
    report = exact_report(load_model(raw), bet)
    ref = ref_full_cycle(raw, bet // 9)
    assert exact_as_fractions(report) == ref


def test_full_cycle_equals_brute_force_with_a_cap_that_binds(v1_raw):
    raw = small_raw(v1_raw, multiplier_cap=20)
    assert exact_as_fractions(exact_report(load_model(raw), MAX_BET)) == ref_full_cycle(raw, 5)


def test_every_play_of_a_small_cycle_matches_the_reference_events(v1_raw):
    raw = small_raw(v1_raw)
    game = CrystalStarDeluxe(load_model(raw))
    for stops in product(*(range(len(s)) for s in SMALL_STRIPS)):
        for bet in (18, MAX_BET):
            ref = ref_play(raw, stops, bet // 9)
            result = game.play_stops(bet, stops)
            got = []
            for e in result.events:
                if e["type"] == "line_won":
                    got.append((e["stage"], "line", e["line"], e["win"]))
                elif e["type"] == "flat_prize_won":
                    got.append((e["stage"], "flat", e["line"], e["win"]))
                elif e["type"] == "progressive_won":
                    got.append((e["stage"], e["tier"], e["line"], 0))
            assert got == ref["events"], stops
            assert result.win == ref["lines"] + ref["flat"]


@settings(max_examples=300, deadline=None)
@given(st.tuples(*(st.integers(0, 75) for _ in range(3))), st.sampled_from([9, 18, 27, 36, 45]))
def test_v1_plays_match_the_reference(game, v1_raw, stops, bet):
    ref = ref_play(v1_raw, stops, bet // 9)
    result = game.play_stops(bet, stops)
    assert result.win == ref["lines"] + ref["flat"]
    assert sorted(result.jackpots) == sorted(t for t in ("top", "bottom") if ref[t])


def test_v1_plays_with_stars_match_the_reference(game, v1_raw):
    # A fixed sample of the plays that nudge (the interesting ones), through the kernel's totals.
    m = game.model
    rng = random.Random(3)
    star_stops = [
        [s for s in range(int(m.lengths[r])) if any(
            m.symbol_ids[m.strips[r, s + i]].startswith("STAR") for i in range(3))]
        for r in range(3)
    ]
    for _ in range(400):
        stops = [rng.choice(star_stops[r]) if rng.random() < 0.7 else rng.randrange(76)
                 for r in range(3)]
        for line_bet in (1, 5):
            ref = ref_play(v1_raw, tuple(stops), line_bet)
            tot = np.zeros(k.T_SIZE, np.int64)
            k.play_stops(
                np.array(stops, np.int64), line_bet, line_bet == 5, m.strips, m.lengths,
                m.nonblank, m.line_table, m.base, m.mult, m.arrow, m.lines, m.combo_mask,
                m.combo_pay, m.params, tot, False, np.zeros((1, k.EV_COLS), np.int64),
                np.zeros(k.W_SIZE, np.int64),
            )
            assert (tot[k.T_LINES], tot[k.T_FLAT], tot[k.T_TOP], tot[k.T_BOTTOM]) == (
                ref["lines"], ref["flat"], ref["top"], ref["bottom"]
            ), stops


def test_rtp_with_pools_at_reset_is_the_same_at_every_bet(game):
    # The flat prizes scale with the line bet, and at max bet (5 credits a line) the progressive
    # resets equal them: 20,000 = 4,000 x 5 and 1,500 = 300 x 5. So every figure per unit bet is
    # identical, exactly.
    reports = [game.exact(bet) for bet in game.bets()]
    for key in ("rtp_fraction", "variance_fraction", "hit_rate_fraction", "max_win_x",
                "win_bands", "progressive_odds"):
        assert len({str(r[key]) for r in reports}) == 1, key
    at_max, below = reports[-1], reports[0]
    assert Fraction(at_max["components"]["progressives"]["fraction"]) + Fraction(
        at_max["components"]["flat_prizes"]["fraction"]
    ) == Fraction(below["components"]["flat_prizes"]["fraction"])
    assert below["components"]["progressives"]["rtp"] == 0


def test_long_run_rtp_adds_the_contributions_at_max_bet_only(game):
    at_max = game.exact(MAX_BET)
    assert Fraction(at_max["rtp_long_run_fraction"]) == Fraction(at_max["rtp_fraction"]) + (
        Fraction(1, 250) + Fraction(3, 1000)
    )
    below = game.exact(9)
    assert below["rtp_long_run_fraction"] == below["rtp_fraction"]


def test_report_is_consistent(game):
    r = game.exact(MAX_BET)
    assert r["game"] == "crystal-star-deluxe" and r["model_hash"] == game.model_hash
    assert r["cycle"] == 76**3
    assert sum(Fraction(c["fraction"]) for c in r["components"].values()) == Fraction(
        r["rtp_fraction"]
    )
    assert list(r["win_bands"]) == band_labels()
    assert sum(r["win_bands"].values()) == pytest.approx(1.0)
    assert r["win_bands"]["0"] == pytest.approx(1 - r["hit_rate"])
    assert r["volatility_index_90"] == pytest.approx(1.6448536269514722 * r["sd"])
    assert r["max_win_x"] == r["max_win"] / MAX_BET
    assert r["hit_rate_exact"] is True
    tables = r["tables"]
    combos = [c for c in tables["combinations"] if c["stage"] == "all stages"]
    assert [c["code"] for c in combos] == ["S3", "S2", "S1", "B2", "ANY7", "B1", "ANYB"]
    assert sum(c["rtp"] for c in combos) == pytest.approx(r["components"]["lines"]["rtp"])
    by_stage = [c for c in tables["combinations"] if c["stage"] != "all stages"]
    assert sum(c["hits"] for c in by_stage) == sum(c["hits"] for c in combos)
    assert sum(c["hits"] for c in by_stage) == sum(s["line wins"] for s in tables["stages"])
    assert sum(s["rtp"] for s in tables["stages"]) == pytest.approx(r["rtp"])
    assert tables["stages"][0]["plays"] == r["cycle"]
    assert sum(x["plays"] for x in tables["win_distribution"]) == r["cycle"]
    star_rtp = sum(x["rtp"] for x in tables["three_stars"])
    assert star_rtp == pytest.approx(
        r["components"]["progressives"]["rtp"] + r["components"]["flat_prizes"]["rtp"]
    )
    assert set(r["progressive_odds"]) == {"top", "bottom"}


def test_the_top_line_never_pays_twice_in_one_play(game):
    # Question (d): a Star's row sequence over the stages is 0,1,2 / 2,1,0 / 1,2,2 / 1,0,0, so
    # the middle row (which line 9 needs on reels 1 and 3) is visited once: no play can hold
    # three Stars on line 9 twice. Checked over the whole v1 cycle ...
    events = [row["event"] for row in game.exact(MAX_BET)["tables"]["three_stars"]]
    assert not any(e.startswith("flat prize, line 9") for e in events)


# ... and over every way Stars can land on each reel (none, top, middle up, middle down, bottom).

@pytest.mark.parametrize("reel1", range(5))
def test_no_landing_of_stars_pays_line_9_twice(window_game, reel1):
    landings = [(B, B, B), ("STARv", B, B), (B, "STAR^", B), (B, "STARv", B), (B, B, "STAR^")]
    for reel2, reel3 in product(range(5), repeat=2):
        window = [list(landings[reel1]), list(landings[reel2]), list(landings[reel3])]
        result = window_game(window).play_stops(MAX_BET, [0, 0, 0])
        line9 = [e for e in result.events if e.get("line") == 9 and e["type"] in (
            "progressive_won", "flat_prize_won")]
        assert len(line9) <= 1


@pytest.mark.slow
def test_v1_full_cycle_equals_pure_python_brute_force(game, v1_raw):
    """The whole v1 cycle (438,976 plays, every stage) in pure Python: about 10 seconds."""
    assert exact_as_fractions(game.exact(MAX_BET)) == ref_full_cycle(v1_raw, 5)


def test_window_helper_shows_the_window(window_game):
    window = rows_to_window([["7", B, B], [B, "777", B], [B, B, "1BAR"]])
    assert of_type(window_game(window).play_stops(9, [0, 0, 0]), "reels_stopped")[0][
        "window"
    ] == window
