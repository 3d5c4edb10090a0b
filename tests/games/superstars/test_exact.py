"""The exact base game against full enumeration and simulation; the composed RTP against a plain
simulation and each variant's declared RTP. Intervals are 99 %; seeds are fixed."""

from __future__ import annotations

import copy
import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import find_game
from slotlab.games.superstars import exact, tune
from slotlab.games.superstars import kernel as k
from slotlab.games.superstars.game import Superstars
from slotlab.games.superstars.model import load_model
from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_FEATURES, ACC_SPINS, ACC_WIN, Z99
from slotlab.rng import chacha_stream, chunk_stream
from slotlab.simulate.runner import simulate

# Short strips whose full cycle (6^4 x 10 windows) can be played round by round.
SMALL = [
    ["SC", "SB", "W", "GO", "SB", "TE"],
    ["SB", "W", "SC", "SB", "GO", "JA"],
    ["GO", "SB", "SB", "W", "SC", "TE"],
    ["SB", "GO", "W", "SB", "TE", "SC"],
    ["SC", "SB", "W", "GO", "SB", "DI", "TE", "SB", "W", "GO"],
]


@pytest.fixture(scope="module")
def small(raw) -> Superstars:
    m = copy.deepcopy(raw)
    m["reel_strips"] = SMALL
    return Superstars(load_model(m))


@pytest.fixture(scope="module")
def small_cycle(small):
    """Every window of the small model, played by the kernel with its base-game rows traced:
    (line pay units, trigger class or None)."""
    out = []
    stream = chacha_stream(b"\0" * 32)
    ev = np.zeros((4096, k.EV_WIDTH), np.int64)
    st, window, wins, cells = k.scratch()
    for stops in itertools.product(*(range(len(s)) for s in SMALL)):
        st[:] = stops
        res = k.play_stops(small._m, small._bp, stream, True, ev, st, window, wins, cells)
        rows = ev[: min(int(res[-1]), len(ev))]
        trig = rows[rows[:, 0] == k.EV_TRIGGER]
        cls = None if not len(trig) else (int(trig[0, 1]), int(trig[0, 2] >= 0))
        assert int(rows[rows[:, 0] == k.EV_LINE, 4].sum()) == int(res[1])
        out.append((int(res[1]), cls))
    return out


def test_line_rtp_equals_the_full_cycle(small, small_cycle):
    cycle = len(small_cycle)
    assert cycle == 6**4 * 10
    played = Fraction(sum(w for w, _ in small_cycle), cycle * small.model.divisor)
    assert exact.line_report(small.model)["rtp"] == played


def test_trigger_classes_equal_the_full_cycle(small, small_cycle):
    cycle = len(small_cycle)
    counts: dict[tuple[int, int], int] = {}
    for _, cls in small_cycle:
        if cls is not None:
            counts[cls] = counts.get(cls, 0) + 1
    probs = exact.class_probabilities(small.model)
    assert {c: Fraction(n, cycle) for c, n in counts.items()} == probs


def test_shipped_trigger_probabilities_are_products_of_reel_marginals(game):
    probs = exact.class_probabilities(game.model)
    lengths = [int(x) for x in game.model.lengths]
    # Each of the five reels shows a Scatter on 5 of its stops; reel 5 a Dice on 5 others.
    sc = [Fraction(5, n) for n in lengths]
    assert probs[(5, 0)] == math.prod(sc)
    assert probs[(5, 1)] == math.prod(sc[:4]) * Fraction(5, lengths[4])
    assert set(probs) == {(3, 0), (3, 1), (4, 0), (4, 1), (5, 0), (5, 1)}
    p3 = sum(math.prod(sc[r] if r in on else 1 - sc[r] - (Fraction(5, 85) if r == 4 else 0)
                       for r in range(5)) for on in itertools.combinations(range(5), 3))
    assert probs[(3, 0)] == p3


def test_exact_lines_agree_with_a_simulation_of_the_base_game(raw):
    # trigger_count 6 can never be reached: the game is its base game alone.
    m = copy.deepcopy(raw)
    m["trigger_count"] = 6
    g = Superstars(load_model(m))
    res = simulate(g, "", 20, 2_000_000, seed=11)
    low, high = res.ci99
    assert low <= float(exact.line_report(g.model)["rtp"]) <= high
    assert res.features == 0


def test_trigger_rate_agrees_with_a_simulation(game):
    acc, _ = game.simulate_chunk(20, 2_000_000, chunk_stream(12, 0))
    p = float(sum(exact.class_probabilities(game.model).values()))
    n = int(acc[ACC_SPINS])
    half = Z99 * math.sqrt(p * (1 - p) / n)
    assert abs(acc[ACC_FEATURES] / n - p) <= half


def test_composed_rtp_agrees_with_a_plain_simulation(game):
    report = game.exact(20, bonuses=200_000, seed=5)
    res = simulate(game, "superstars", 20, 3_000_000, seed=13)
    # Two independent estimates: their difference within the 99 % interval of the sum.
    half_sim = res.ci99[1] - res.rtp
    half = math.hypot(half_sim, report["ci99_half_width"])
    assert abs(res.rtp - report["rtp"]) <= half
    assert report["base_rtp"] == pytest.approx(res.components["lines"] / (res.spins * 20),
                                               abs=0.01)
    assert report["rtp_fraction"] is None
    assert Fraction(report["base_rtp_fraction"]) == exact.line_report(game.model)["rtp"]


@pytest.mark.parametrize("gid", ["superstars", "superstars-96", "superstars-92"])
def test_each_variants_declared_rtp_is_inside_its_interval(gid):
    # A short version of the recorded proof (RULES.md, RTP proofs): 400,000 Bonus Games.
    g = find_game(gid)
    report = g.exact(20, bonuses=400_000, seed=21)
    low, high = report["ci99"]
    assert low <= g.theoretical_rtp() <= high
    assert report["target_inside_ci99"]


def test_the_cap_is_reflected_in_the_simulation(game):
    acc, _ = game.simulate_chunk(20, 500_000, chunk_stream(14, 0))
    assert acc[ACC_COMPONENTS + 3] <= 0  # what the cap removed is never a gain
    assert acc[ACC_WIN] <= 500_000 * 20 * 10_000


# -- slotlab tune ------------------------------------------------------------------------------


def test_tune_finds_the_value_of_a_steady_rtp_curve(raw):
    # A stand-in RTP that grows with the landing probability: 0.5 + 5 x p.
    def rtp_of(model):
        return 0.5 + 5 * float(Fraction(model["bonus"]["land"]["prize"]))

    out = tune.tune(raw, "bonus.land.prize", 0.84, rtp_of, lo=Fraction(1, 20),
                    hi=Fraction(1, 10), tolerance=1e-9)
    assert out["value"] == "17/250" and out["rtp"] == pytest.approx(0.84)  # p = 0.068
    assert out["model"]["bonus"]["land"]["prize"] == "17/250"
    assert len(out["evaluations"]) <= 12
    assert raw["bonus"]["land"]["prize"] != "17/250"  # the input model is left as it was


def test_tune_on_an_integer_parameter_and_bad_requests(raw):
    def rtp_of(model):
        return model["line_pays"]["SB"]["5"] / 100

    out = tune.tune(raw, "line_pays.SB.5", 0.73, rtp_of, lo=Fraction(10), hi=Fraction(200))
    assert out["value"] == 73
    with pytest.raises(ValueError, match="not between"):
        tune.tune(raw, "line_pays.SB.5", 5.0, rtp_of, lo=Fraction(10), hi=Fraction(200))
    with pytest.raises(ValueError, match="integer or a 'p/q'"):
        tune.tune(raw, "bonus.board", 0.9, rtp_of)
    with pytest.raises(KeyError):
        tune.tune(raw, "bonus.nope", 0.9, rtp_of)


def test_tune_and_rtp_on_the_command_line(tmp_path):
    runner = CliRunner()
    out = tmp_path / "tuned.json"
    res = runner.invoke(app, ["tune", "superstars", "--param", "bonus.land.prize", "--target",
                              "94.06", "--lo", "0.08", "--hi", "0.13", "--bonuses", "5000",
                              "--out", str(out), "--id", "superstars-test", "--json"])
    assert res.exit_code == 0, res.output
    tuned = json.loads(out.read_text())
    assert tuned["id"] == "superstars-test" and tuned["rtp_target"] == "94.06%"
    assert load_model(tuned).spec.bonus.land.prize == json.loads(res.output)["value"]
    res = runner.invoke(app, ["rtp", "superstars", "--bonuses", "5000", "--json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert report["rtp_fraction"] is None and report["bonuses_simulated"] >= 5000
    assert report["ci99"][0] < report["rtp"] < report["ci99"][1]
    res = runner.invoke(app, ["rtp", "crystal-star-deluxe", "--bonuses", "5000"])
    assert res.exit_code == 2 and "takes no --bonuses" in res.output
