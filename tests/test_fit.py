"""slotlab fit: many targets met at once on a small game (exactly where the math is exact), an
impossible target reported as not met with its reason, simulated figures with their intervals,
and clear errors for bad input."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.fit import Bound, FitError, Measure, Target, fit, judge, measure
from slotlab.games import find_game, game_from_source
from slotlab.games.superstars.top_prize import top_square_chance
from slotlab.rng import chunk_stream
from slotlab.simulate.par.intervals import wilson99

runner = CliRunner()
PARAMS = ["pays.BAR1.3=5..40", "strips.base.0.CHERRY=2..8", "pays.SEVEN.3=50..200"]


def classic() -> tuple[str, dict]:
    return find_game("classic-3x3").model_source()


def exact_figures(family: str, raw: dict) -> tuple[Fraction, Fraction]:
    report = game_from_source(family, raw).exact(5)
    return Fraction(report["rtp_fraction"]), Fraction(report["hit_rate_fraction"])


def test_fit_meets_exact_targets_on_a_small_game():
    """Targets taken from another model of the same game (so a solution exists in the ranges):
    the fit finds a model meeting both, and the written model's exact figures, recomputed from
    the file, lie inside the bands as fractions."""
    family, raw = classic()
    other = raw
    for path, value in (("pays.BAR1.3", 24), ("strips.base.0.CHERRY", 6), ("pays.SEVEN.3", 80)):
        other = Bound.parse(raw, f"{path}=0..999").param.applied(other, Fraction(value))
    rtp, hit = exact_figures(family, other)
    assert exact_figures(family, raw)[0] != rtp  # the model as it is misses the targets
    targets = [Target("rtp", rtp, Fraction(1, 1000)), Target("hit_rate", hit, Fraction(1, 200))]
    result = fit(family, raw, None, targets, [Bound.parse(raw, p) for p in PARAMS], seed=1)
    assert result.all_met, [v.why for v in result.verdicts]
    assert all(v.measure.exact and v.measure.how == "exact" for v in result.verdicts)
    got_rtp, got_hit = exact_figures(family, result.model)
    assert abs(got_rtp - rtp) <= Fraction(1, 1000) and abs(got_hit - hit) <= Fraction(1, 200)
    assert result.verdicts[0].measure.value == got_rtp  # the verdict's figure is that fraction
    assert result.values != result.previous


def test_impossible_target_is_reported_not_met(tmp_path: Path):
    out, report = tmp_path / "fitted.json", tmp_path / "report.json"
    res = runner.invoke(app, ["fit", "classic-3x3", "--target", "rtp=150%+-1%",
                              "--target", "hit_rate=0.36+-0.02", "--param", "pays.BAR1.3=5..40",
                              "--out", str(out), "--report", str(report), "--generations", "5"])
    assert res.exit_code == 1, res.output
    data = json.loads(report.read_text())
    assert data["all_met"] is False
    rtp = data["targets"][0]
    assert rtp["met"] is False and rtp["exact"] is True
    assert "outside [1.49, 1.51]" in rtp["why"] and "outside every value seen" in rtp["why"]
    assert data["targets"][1]["met"] is True
    assert json.loads(out.read_text())["pays"]["BAR1"]["3"] == data["params"]["pays.BAR1.3"]
    assert "NOT MET" in res.output


def test_simulated_tail_has_its_interval_on_the_shared_rounds():
    """classic-3x3 has no exact win distribution: P(win >= 20x) is counted on the seed's
    rounds (the same for every model tried) with its 99% Wilson interval."""
    game = find_game("classic-3x3")
    m = measure(game, 5, ["p_win_ge_20", "rtp"], 20_000, seed=4)
    tail = m["p_win_ge_20"]
    wins = game.round_wins(5, 20_000, chunk_stream(4, 0))
    k = int((wins >= 100).sum())
    assert not tail.exact and tail.value == k / 20_000 and (tail.low, tail.high) == wilson99(
        k, 20_000)
    assert m["rtp"].exact and m["rtp"].value == Fraction(game.exact(5)["rtp_fraction"])


def test_crystal_star_deluxe_tail_and_sd_are_exact():
    game = find_game("crystal-star-deluxe")
    m = measure(game, 9, ["p_win_ge_100", "sd", "p_win_ge_3"], 10_000, seed=1)
    report = game.exact(9)
    assert m["sd"].exact and m["sd"].value == report["sd"]
    assert m["p_win_ge_100"].exact
    assert m["p_win_ge_100"].value == pytest.approx(
        sum(p for label, p in report["win_bands"].items()
            if label in ("100-200x", "200-500x", "500-1000x", "1000-5000x", "5000x and over")))
    assert not m["p_win_ge_3"].exact  # 3x is not a band edge: simulated


def test_a_simulated_verdict_is_undecided_when_its_interval_crosses_the_band():
    t = Target("hit_rate", Fraction(3, 10), Fraction(1, 100))
    assert judge(t, Measure(0.3, False, 0.295, 0.305, "sim"), [], 1).met is True
    assert judge(t, Measure(0.305, False, 0.30, 0.315, "sim"), [], 1).met is None
    assert judge(t, Measure(0.33, False, 0.32, 0.34, "sim"), [], 1).met is False
    # exact: decided in fractions, so the band's edge itself is inside
    edge = Measure(Fraction(31, 100), True, 0.31, 0.31, "exact")
    assert judge(t, edge, [], 1).met is True
    beyond = Measure(Fraction(31, 100) + Fraction(1, 10**30), True, 0.31, 0.31, "exact")
    assert judge(t, beyond, [], 1).met is False


def test_targets_and_parameters_are_parsed_or_refused():
    t = Target.parse("rtp=96.5%+-0.05%")
    assert (t.value, t.tolerance) == (Fraction(965, 1000), Fraction(5, 10000))
    assert Target.parse("p_win_ge_100=1/4000").tolerance == 0
    for bad in ("rpt=0.9", "rtp", "rtp=abc", "rtp=0.9+--1"):
        with pytest.raises(FitError):
            Target.parse(bad)
    _, raw = classic()
    assert Bound.parse(raw, "strips.base.0.CHERRY=2..8").param.kind == "count"
    for bad in ("pays.BAR1.3=9..2", "pays.BAR1.3", "pays.NOPE.3=1..2", "pays.BAR1.3=a..b"):
        with pytest.raises(FitError):
            Bound.parse(raw, bad)


def test_fit_command_refuses_bad_input_and_writes_nothing(tmp_path: Path):
    out = tmp_path / "fitted.json"
    res = runner.invoke(app, ["fit", "classic-3x3", "--target", "rtp=0.95+-0.001",
                              "--param", "pays.BAR1.3=x", "--out", str(out)])
    assert res.exit_code == 2 and "PATH=LOW..HIGH" in res.output and not out.exists()


def test_fit_command_refuses_an_output_folder_that_is_not_there(tmp_path: Path):
    out = tmp_path / "missing" / "fitted.json"
    res = runner.invoke(app, ["fit", "classic-3x3", "--target", "rtp=0.95+-0.001",
                              "--param", "pays.BAR1.3=5..40", "--out", str(out)])
    assert res.exit_code == 2 and "no folder" in res.output and not out.parent.exists()


def test_fit_holds_crystal_star_deluxe_sd_and_tail_exactly():
    """Crystal Star Deluxe's full cycle makes its SD and its tail at a band edge exact too: a
    fit to another model's RTP, SD and P(win >= 10x) finds that model's pay."""
    family, raw = find_game("crystal-star-deluxe").model_source()
    bound = Bound.parse(raw, "line_pays_x_line_bet.ANYB=1..10")
    other = game_from_source(family, bound.param.applied(raw, Fraction(6))).exact(9)
    tail = sum(p for label, p in other["win_bands"].items()
               if label in ("10-20x", "20-50x", "50-100x", "100-200x", "200-500x", "500-1000x",
                            "1000-5000x", "5000x and over"))
    assert tail != measure(find_game("crystal-star-deluxe"), 9, ["p_win_ge_10"], 1000,
                           0)["p_win_ge_10"].value  # the pay moves the tail
    targets = [Target("rtp", Fraction(other["rtp_fraction"]), Fraction(0)),
               Target("sd", Fraction(other["sd"]), Fraction(1, 10**6)),
               Target("p_win_ge_10", Fraction(tail), Fraction(1, 10**9))]
    result = fit(family, raw, 9, targets, [bound], seed=2, maxiter=5, popsize=4)
    assert result.all_met and result.values == {"line_pays_x_line_bet.ANYB": 6}
    assert all(v.measure.exact for v in result.verdicts)
    assert "exact arithmetic" in result.verdicts[0].why  # tolerance 0: the RTP is the fraction


def test_a_target_between_two_integer_steps_says_so():
    """pays.BAR1.3 = 15 and 16 give RTPs either side of 95% +- 0.1%: not met, and the report
    names the nearest values on both sides."""
    family, raw = classic()
    result = fit(family, raw, None, [Target.parse("rtp=95%+-0.1%")],
                 [Bound.parse(raw, "pays.BAR1.3=5..40")], seed=0)
    (verdict,) = result.verdicts
    assert verdict.met is False and not result.all_met
    below, above = (exact_figures(family, Bound.parse(raw, "pays.BAR1.3=0..99").param.applied(
        raw, Fraction(v)))[0] for v in (15, 16))
    assert below < Fraction(949, 1000) and above > Fraction(951, 1000)
    assert f"nearest the band were {float(below):.6g} and {float(above):.6g}" in verdict.why
    assert "integer steps jump over the band" in verdict.why


def test_superstars_rtp_is_composed_and_its_feature_rate_exact():
    """Superstars' RTP is composed (exact base game, simulated Bonus Games): the fit reads it
    with the composed 99% interval, and the Bonus Game trigger rate as its exact fraction."""
    game = find_game("superstars")
    m = measure(game, 20, ["rtp", "feature_rate", "hit_rate"], 5_000, seed=3, bonuses=2_000)
    report = game.composed(20, bonuses=2_000, seed=3)
    assert not m["rtp"].exact and m["rtp"].value == report["rtp"]
    assert m["rtp"].high - m["rtp"].low == pytest.approx(2 * report["ci99_half_width"])
    assert m["feature_rate"].exact
    assert m["feature_rate"].value == Fraction(report["bonus_frequency_fraction"])
    assert m["hit_rate"].how == "simulated, 5,000 rounds"  # no exact hit rate: simulated


def superstars_final_at_once() -> tuple[str, dict]:
    """Superstars with no Dice on the reels and every empty position landing a prize: each
    Bonus Game fills the reels on its first spin and plays the Final Game with 0 dice left + 3
    spins + the bottom-left die = 4 dice, so P(the top square per Bonus Game) is exactly the
    4-dice chance of :func:`top_square_chance`."""
    family, raw = find_game("superstars").model_source()
    m = json.loads(json.dumps(raw))
    m["reel_strips"][4] = ["KI" if s == "DI" else s for s in m["reel_strips"][4]]
    m["bonus"]["land"] = {"prize": "1/1", "dice": "0/1"}
    return family, m


def test_superstars_top_prize_is_the_top_square_per_bonus_game():
    """The fit's top_prize: on the model above its 99% interval holds the exact 4-dice chance
    (9.98%), a figure a per-round count (about 0.3% of it) or a count of any Final Game prize
    (every one of them) would miss; the interval is the binomial one of the Bonus Games."""
    family, m = superstars_final_at_once()
    game = game_from_source(family, m)
    exact = float(top_square_chance(game.model.bonus_spec, 4))
    n = 20_000
    got = measure(game, 20, ["top_prize"], 1000, seed=5, bonuses=n)["top_prize"]
    assert not got.exact and got.how == f"simulated, {n:,} Bonus Games"
    assert got.low <= exact <= got.high  # 99%, fixed seed
    assert got.high - got.low == pytest.approx(2 * 2.5758 * (exact * (1 - exact) / n) ** 0.5,
                                               rel=0.1)
    assert game.top_prize(bonuses=n, seed=5)["final_game_per_bonus_game"] == 1.0


def test_superstars_top_prize_is_counted_per_bonus_game_not_per_final_game():
    """On the shipped model a Final Game follows some Bonus Games only: the figure is below the
    Final Game's own rate per Bonus Game, as a chance per Bonus Game must be (per Final Game
    it would be at least the 4-dice 9.98%, above that rate)."""
    game = find_game("superstars")
    got = measure(game, 20, ["top_prize"], 1000, seed=6, bonuses=20_000)["top_prize"]
    r = game.top_prize(bonuses=20_000, seed=6)
    assert got.value == r["per_bonus_game"] and got.high < r["final_game_per_bonus_game"]
    assert r["per_final_game"] >= float(top_square_chance(game.model.bonus_spec, 4)) * 0.8


def test_a_game_without_a_top_prize_is_refused():
    family, raw = classic()
    with pytest.raises(FitError, match="no top-prize figure"):
        fit(family, raw, None, [Target.parse("top_prize=1%+-0.1%")],
            [Bound.parse(raw, "pays.BAR1.3=5..40")])


def superstars_landing(prize: str) -> tuple[str, dict]:
    """The shipped Superstars model with ``bonus.land.prize`` set to ``prize``."""
    family, raw = find_game("superstars").model_source()
    m = json.loads(json.dumps(raw))
    m["bonus"]["land"]["prize"] = prize
    return family, m


def test_a_probability_is_searched_over_its_numerator():
    _, raw = superstars_landing("6617/100000")
    b = Bound.parse(raw, "bonus.land.prize=6000..12000")
    assert (b.scale, b.current, b.low, b.high) == (100_000, 6617, 6000, 12000)
    out = b.applied(raw, 10650)
    assert out["bonus"]["land"]["prize"] == "10650/100000"  # the grid kept, not 213/2000
    assert Bound.parse(out, "bonus.land.prize=1..2").current == 10650
    assert raw["bonus"]["land"]["prize"] == "6617/100000"  # the model itself untouched
    with pytest.raises(FitError, match="write it as p/q"):
        Bound.parse(raw, "bet.credit_value=1..9")  # "0.005": no denominator to search on


def test_fit_reaches_a_top_prize_rate_by_the_land_probability():
    """A target taken from another model (land.prize 12000/100000) on the same seed, with a
    tolerance of twice its 99% half-width: the fit moves land.prize from 6617 to a value whose
    99% interval lies inside the band, and the written model measures the same again."""
    family, raw = superstars_landing("6617/100000")
    bound = Bound.parse(raw, "bonus.land.prize=6000..14000")
    n, seed = 20_000, 2
    other = measure(game_from_source(family, bound.applied(raw, 12000)), 20, ["top_prize"],
                    1000, seed, n)["top_prize"]
    half = (other.high - other.low) / 2
    target = Target("top_prize", Fraction(other.value).limit_denominator(10**9),
                    Fraction(2 * half).limit_denominator(10**9))
    start = measure(game_from_source(family, raw), 20, ["top_prize"], 1000, seed,
                    n)["top_prize"]
    assert start.high < float(target.value - target.tolerance)  # the model as it is misses
    result = fit(family, raw, None, [target], [bound], seed=seed, bonuses=n, maxiter=10,
                 popsize=6)
    assert result.all_met, [v.why for v in result.verdicts]
    k = result.values["bonus.land.prize"]
    assert result.model["bonus"]["land"]["prize"] == f"{k}/100000"
    again = measure(game_from_source(family, result.model), 20, ["top_prize"], 1000, seed,
                    n)["top_prize"]
    assert again.value == result.verdicts[0].measure.value
