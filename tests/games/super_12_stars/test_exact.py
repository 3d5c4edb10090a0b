"""Exact figures: ``exact.py`` against the pure-Python brute force of ``reference.py``."""

from __future__ import annotations

import copy
import json
import math
from fractions import Fraction
from typing import Any

import pytest

from slotlab.games.super_12_stars import exact as ex
from slotlab.games.super_12_stars.model import PAY_DIVISOR, load_model, model_path
from slotlab.mechanics.colour_wheel import colour_value
from slotlab.mechanics.hold_and_win import final_held_distribution

from . import reference as ref

# A small model whose full cycle (4 x 7 x 13 x 7 x 4 base stops) a brute force walks in seconds,
# dense in every special symbol: Super 7 (with its respin), whole and partial Super 10/12
# blocks, wilds, both scatters, Bonus and Wheel triggers, retriggers in free spins.
SMALL_STRIPS = {
    "base": [["WH", "SE", "GS", "CH"],
             ["SE", "W", "BO", "SS", "SS", "SS", "GS"],
             ["S7", "SE", "T10", "T10", "T10", "BO", "WH", "T12", "T12", "T12", "GS", "SS", "W"],
             ["SE", "BO", "W", "SS", "SS", "SS", "GS"],
             ["SE", "WH", "CH", "GS"]],
    "free": [["SE", "CH", "LE", "SE"], ["W", "SE", "BO", "SS", "CH"],
             ["S7", "W", "BO", "SE", "SS", "SS", "SS", "CH"], ["BO", "SE", "W", "SS", "CH"],
             ["CH", "SE", "LE", "SE"]],
    "super10_free": [["SE", "CH", "LE", "SE"], ["W", "SE", "SS", "CH"],
                     ["S7", "W", "SE", "SS", "SS", "SS", "CH"], ["SE", "W", "SS", "CH"],
                     ["CH", "SE", "LE", "SE"]],
}


def as_x_bet(components: dict[str, Fraction]) -> dict[str, Fraction]:
    return {k: v / PAY_DIVISOR for k, v in components.items()}


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    return json.loads(model_path().read_text())  # the shipped version, as load_model()


@pytest.fixture(scope="module")
def figures() -> ex.Figures:
    return ex.compute(load_model())


@pytest.fixture(scope="module")
def small_raw(raw: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(raw)
    out["reel_strips"] = copy.deepcopy(SMALL_STRIPS)
    return out


@pytest.fixture(scope="module")
def small_cycles(small_raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return ref.cycles(small_raw)


def test_rtp_split_equals_brute_force_of_the_model(raw, figures):
    """Every component of the shipped model, exactly: symbol tuples and count tables."""
    expected = ref.rtp(raw)
    assert as_x_bet(figures.components) == expected
    report = ex.exact_report(load_model(), 30, with_hit_rate=False)
    assert Fraction(report["rtp_fraction"]) == sum(expected.values())


def test_small_model_equals_its_full_cycle(small_raw, small_cycles):
    """Every stop combination of a small model: the window rules (wrap round, Super 7 covering
    reel 3, giant blanks, scatters anywhere) and the whole feature chain."""
    model = load_model(small_raw)
    figures = ex.compute(model)
    expected = ref.rtp(small_raw, small_cycles)
    assert as_x_bet(figures.components) == expected
    assert all(v > 0 for v in expected.values())  # every feature is reached
    base = small_cycles["base"]
    freq = figures.frequencies
    assert (freq["super7"], freq["super10"], freq["lucky_stars"]) == (
        base["p_S7"], base["p_T10"], base["p_T12"])
    assert (freq["free_spins"], freq["wheel"]) == (base["p_bonus"], base["p_wheel"])
    assert freq["retrigger_per_free_spin"] == small_cycles["free"]["p_bonus"]


def test_small_model_hit_rate_equals_its_full_cycle(small_raw, small_cycles):
    """P(round win > 0): silent spins counted stop by stop, Super 7 and Super 10 rounds with
    their respin and immediate free spins."""
    assert ex.hit_rate(load_model(small_raw)) == ref.hit_rate_small(small_raw, small_cycles)


def test_trigger_frequencies_equal_count_tables(raw, figures):
    tables = ref.spin_by_tables(raw, "base")
    freq = figures.frequencies
    assert freq["golden_scatter_pay"] == tables["p_golden_pays"]
    assert freq["silver_scatter_pay"] == tables["p_silver_pays"]
    assert freq["free_spins"] == tables["p_bonus"]
    assert freq["wheel"] == tables["p_wheel"]
    assert (freq["super7"], freq["super10"], freq["lucky_stars"]) == (
        tables["p_S7"], tables["p_T10"], tables["p_T12"])
    assert freq["any_feature"] == (tables["p_S7"] + tables["p_T10"] + tables["p_T12"]
                                   + tables["p_bonus_or_wheel"])
    assert freq["retrigger_per_free_spin"] == ref.spin_by_tables(raw, "free")["p_bonus"]


@pytest.mark.parametrize("retrigger", [Fraction(0), Fraction(1, 133), Fraction(1, 3), Fraction(1)])
@pytest.mark.parametrize(("initial", "cap"), [(1, 1), (1, 6), (2, 7), (3, 12), (5, 12), (5, 14),
                                              (8, 13), (12, 13)])
def test_free_spins_dp_equals_every_retrigger_sequence(initial, cap, retrigger):
    assert ex.expected_free_spins(initial, initial, cap, retrigger) == ref.free_spins_by_paths(
        initial, cap, retrigger)


def test_free_spins_with_the_50_cap(raw, figures):
    cap = raw["fs_minigame"]["max_total_spins"]
    r = figures.retrigger
    for row in figures.fs_rows:
        n0 = row["initial_spins"]
        spins = ex.expected_free_spins(n0, n0, cap, r)
        assert spins == ref.free_spins_backward(n0, cap, r)
        assert Fraction(row["expected_spins_fraction"]) == spins
        # The cap binds: fewer spins than the uncapped n0 / (1 - n0 r), more than n0.
        assert n0 < spins < n0 / (1 - n0 * r)
    assert ex.expected_free_spins(50, 50, 50, Fraction(1, 2)) == 50  # capped at once


def test_free_spins_bad_input_is_refused():
    with pytest.raises(ValueError):
        ex.expected_free_spins(0, 5, 50, Fraction(1, 2))
    with pytest.raises(ValueError):
        ex.expected_free_spins(5, 5, 50, Fraction(3, 2))


def lopsided_boxes() -> list[tuple[int, str, Fraction]]:
    """A wheel whose colours differ (not the game's), so a colour's recursion is really tested."""
    boxes = [(1, "red", 3), (2, "green", 2), (3, "red", 1), (5, "green", 2), (1, "green", 1)]
    total = sum(w for *_, w in boxes)
    return [(v, c, Fraction(w, total)) for v, c, w in boxes]


def _colour_value(boxes: list[tuple[int, str, Fraction]], colour: str, limit: int) -> Fraction:
    """The game's Frenzy value (the colour wheel mechanic's) of boxes given by probability."""
    scale = math.lcm(*(p.denominator for *_, p in boxes))
    colours = sorted({c for _, c, _ in boxes})
    return colour_value([int(p * scale) for *_, p in boxes],
                        [colours.index(c) for _, c, _ in boxes], [v for v, _, _ in boxes],
                        colours.index(colour), limit)


@pytest.mark.parametrize("limit", [1, 2, 5, 8, 11])
def test_frenzy_recursion_equals_every_sequence(raw, limit):
    for boxes in (ref.frenzy_boxes(raw), lopsided_boxes()):
        for colour in ("red", "green"):
            expected = ref.frenzy_by_sequences(boxes, colour, limit)
            assert _colour_value(boxes, colour, limit) == expected
            dist = ex.frenzy_distribution(boxes, colour, limit)
            enumerated: dict[int, Fraction] = {}
            for seq, p in ref.frenzy_sequences(boxes, colour, limit):
                enumerated[sum(seq)] = enumerated.get(sum(seq), Fraction(0)) + p
            assert dist == dict(sorted(enumerated.items()))


def test_frenzy_of_the_model(raw, figures):
    """Limit 100: the recursion, the forward programme and the distribution agree, whichever
    colour; the most it pays is 100 + the top box; the colour does not change the RTP."""
    boxes = ref.frenzy_boxes(raw)
    limit = raw["frenzy_wheel"]["stop_when_total_gt"]
    expected = ref.frenzy_forward(boxes, "red", limit)
    assert set(figures.frenzy.values()) == {expected}
    dist = figures.frenzy_distribution
    assert sum(dist.values()) == 1
    assert sum(f * p for f, p in dist.items()) == expected
    assert max(dist) == limit + max(raw["frenzy_wheel"]["values_per_colour"])
    assert min(dist) == min(raw["frenzy_wheel"]["values_per_colour"])


@pytest.mark.parametrize(("cells", "start", "respins"), [(3, 1, 1), (4, 1, 3), (5, 2, 2),
                                                          (6, 3, 3), (7, 1, 2)])
def test_lucky_stars_chain_equals_every_landing_pattern(cells, start, respins):
    p = Fraction(2, 7)
    assert final_held_distribution(cells, start, p, respins) == ref.lucky_by_patterns(
        cells, start, p, respins)


def test_lucky_stars_of_the_model(raw, figures):
    ls = raw["lucky_stars"]
    final = ref.lucky_forward(ls["cells"], ls["initial_stars"], ref.q(ls["p_star_per_empty_cell"]),
                              ls["respins"])
    assert figures.stars == final
    assert sum(final.values()) == 1 and min(final) == 3 and max(final) == 15
    p12 = figures.frequencies["lucky_stars"]
    assert as_x_bet({k: v / p12 for k, v in figures.lucky_parts.items()}) == ref.lucky_award(
        raw, final)
    assert sum(figures.lucky_parts.values()) == figures.components["lucky_stars"]


def test_figures_agree_with_the_research_derivation(figures):
    """game-models.md 2.4.6 derived these (independently, in floating point) for this model."""
    spins = [row["expected_spins"] for row in figures.fs_rows]
    assert spins == pytest.approx([5.20, 8.51, 10.81, 13.19, 16.87], abs=0.006)
    assert float(next(iter(figures.frenzy.values()))) == pytest.approx(9.844, abs=0.0005)
    assert float(figures.expected_stars) == pytest.approx(7.44, abs=0.005)
    assert float(figures.stars[15]) == pytest.approx(0.00296, abs=0.000005)
    research = [.114, .085, .099, .107, .112, .112, .106, .093, .075, .052, .030, .013, .003]
    assert [float(figures.stars[k]) for k in range(3, 16)] == pytest.approx(research, abs=0.0006)


def test_rtp_is_the_same_at_every_bet():
    """'RTP ... does not depend on the chosen bet': identical fractions at every bet level."""
    model = load_model()
    reports = [ex.exact_report(model, bet, with_hit_rate=False) for bet in model.bets()]
    assert len(model.bets()) > 1
    assert {r["rtp_fraction"] for r in reports} == {reports[0]["rtp_fraction"]}
    assert all(r["components"] == reports[0]["components"] for r in reports)
    assert [r["line_bet"] for r in reports] == [b // PAY_DIVISOR for b in model.bets()]


def test_report_is_consistent():
    report = ex.exact_report(load_model(), 60)
    json.dumps(report)  # JSON-able
    rtp = Fraction(report["rtp_fraction"])
    assert float(rtp) == pytest.approx(report["rtp"], rel=1e-12)
    parts = [Fraction(c["fraction"]) for c in report["components"].values()]
    assert sum(parts) == rtp
    assert list(report["components"]) == ["lines", "golden", "silver", "bonus_pay",
                                          "super7_respins", "wheel", "free_spins",
                                          "super10_direct", "frenzy", "super10_free_spins",
                                          "lucky_stars"]
    lucky = sum(Fraction(c["fraction"]) for c in report["lucky_stars_parts"].values())
    assert lucky == Fraction(report["components"]["lucky_stars"]["fraction"])
    assert sum(Fraction(p) for p in report["lucky_stars_distribution"].values()) == 1
    assert report["hit_rate_exact"] and 0 < report["hit_rate"] < 1
    for row in report["tables"]["trigger frequencies"]:
        assert row["one_in"] == pytest.approx(1 / row["probability"])


def test_bad_bet_is_refused():
    with pytest.raises(ValueError, match="not allowed"):
        ex.exact_report(load_model(), 31)


def test_cli_rtp_prints_the_fraction_split_frequencies_hit_rate_and_stars():
    from typer.testing import CliRunner

    from slotlab.cli import app

    runner = CliRunner()
    text = runner.invoke(app, ["rtp", "super-12-stars", "--fractions"], terminal_width=200)
    assert text.exit_code == 0, text.output
    report = ex.exact_report(load_model(), 30)
    flat = "".join(text.output.split())  # the long fractions fold over lines
    assert report["rtp_fraction"] in flat.replace("│", "")
    for name in [*report["components"], "trigger frequencies", "lucky stars final stars",
                 "hit rate", "free spins per initial award"]:
        assert name.replace("_", " ") in text.output or name in text.output, name
    out = runner.invoke(app, ["rtp", "super-12-stars", "--bet", "300", "--json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert data["bet"] == 300 and data["rtp_fraction"] == report["rtp_fraction"]
    assert set(data["lucky_stars_distribution"]) == {str(k) for k in range(3, 16)}
    assert data["hit_rate_exact"] and data["frequencies"]["lucky_stars"] == "1/195"
