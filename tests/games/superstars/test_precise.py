"""The variance-reduced composed RTP (``precise.py``): its control variates' exact means, its
interval against the plain per-class estimator, and ``slotlab rtp --precision``.

Every statistical check states its confidence; seeds are fixed, so a run is repeatable.
"""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import numpy as np
import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import find_game
from slotlab.games.superstars import bonus as b
from slotlab.games.superstars import exact, precise
from slotlab.games.superstars.game import Superstars
from slotlab.mechanics.accumulators import Z99
from slotlab.rng import chunk_stream

from .conftest import STAND_IN

pytestmark = pytest.mark.skipif(STAND_IN, reason="needs the real Bonus Game's tallies")


@pytest.fixture(scope="module")
def game() -> Superstars:
    g = find_game("superstars")
    assert isinstance(g, Superstars)
    return g


def test_final_game_means_are_the_absorbing_chains_figures(game: Superstars) -> None:
    spec = game.model.bonus_spec
    table = precise.final_game_means(spec, 8)
    assert table[0] == 0
    for d in range(1, 9):
        assert table[d] == b.final_game_mean(spec, d)  # Fractions: equal exactly


def test_landing_chances_cover_the_six_squares_ahead(game: Superstars) -> None:
    sixths = precise.landing_sixths(game.model.bonus_spec)
    assert (sixths.sum(axis=1) == 6).all()
    codes = game.model.bonus_spec.square_codes()
    assert sixths[len(codes) - 1, codes[0]] >= 1  # from the last square, Start is one ahead


def test_tallies_count_what_the_traced_game_shows(game: Superstars) -> None:
    """The tallies the control variates read agree with the Bonus Game's own events."""
    val, tmp = b.new_scratch()
    for seed in range(40):
        cells = np.zeros(25, np.int64)
        cells[[0, 5, 10]] = 1
        ev = np.zeros((4096, b.EV_WIDTH), np.int64)
        _reels, _final, n_ev, _flags = b.play_bonus_with_scratch(
            chunk_stream(7, seed), game._bp, cells, 24, True, ev, 0, val, tmp)
        assert n_ev <= len(ev)
        rows = ev[:n_ev]
        t = b.TALLY
        rolled = rows[rows[:, 0] == b.EV_DICE_ROLLED]
        assert tmp[t + b.T_ROLLS] == len(rolled)
        assert tmp[t + b.T_ROLL_SUM] == rolled[:, 1].sum()
        spun = rows[rows[:, 0] == b.EV_SPUN]
        assert tmp[t + b.T_SPIN_PRIZES] == spun[:, 4].sum()
        assert tmp[t + b.T_SPIN_DICE] == spun[:, 5].sum()
        started = rows[rows[:, 0] == b.EV_FINAL_STARTED]
        assert tmp[t + b.T_FINAL_DICE] == (started[0, 5] if len(started) else 0)
        assert tmp[t + b.T_SPINS_AT:t + b.T_SPINS_AT + precise.N_AT].sum() == len(spun)


@pytest.mark.parametrize("k", [0, 1])  # the two common classes: 3 symbols, with/without Dice
def test_each_control_variate_has_its_exact_mean(game: Superstars, k: int) -> None:
    """Each control variate's mean is exactly 0 by the model; its simulated mean must lie in
    its 99.9 % interval (Bonferroni over the variates: each at 99.9 % / N_CV)."""
    setup = precise.Setup(game)
    mom = setup.run(k, 200_000, chunk_stream(11, k))
    mean, cov = precise._cov(mom)
    n = mom[0, 0]
    z = NormalDist().inv_cdf(1 - 0.001 / 2 / precise.N_CV)
    for i, name in enumerate(setup.cv_names):
        sd = math.sqrt(max(cov[i + 1, i + 1], 0.0))
        if sd == 0:
            assert mean[i + 1] == 0, name
        else:
            assert abs(mean[i + 1]) <= z * sd / math.sqrt(n), (name, mean[i + 1], sd)


def test_cv_means_are_the_tables_means(game: Superstars) -> None:
    m = precise.cv_means(game.model.bonus_spec)
    spec = game.model.bonus_spec
    assert m["p_prize"] + m["p_dice"] < 1
    assert m["trigger_prize"] == m["spin_prize_value"]  # one prize table for both
    assert sum(m[f"wheel_{i}"] for i in range(len(spec.wheel))) == 1
    assert m["roll"] == sum(range(1, 7)) / 6


def test_neyman_allocation_follows_probability_times_sd() -> None:
    n = precise.neyman([0.5, 0.5], [1.0, 3.0], 0.01, minimum=1)
    assert n[1] == pytest.approx(3 * n[0], rel=1e-3)
    # the variance at that allocation meets the half-width
    half = Z99 * math.sqrt(0.25 * 1 / n[0] + 0.25 * 9 / n[1])
    assert half <= 0.01


def test_same_seed_same_figure_on_one_or_two_workers(game: Superstars) -> None:
    one = precise.precise_rtp(game, 5e-3, seed=4, workers=1)
    two = precise.precise_rtp(game, 5e-3, seed=4, workers=2)
    assert one["rtp"] == two["rtp"] and one["ci99"] == two["ci99"]
    assert one["precision_met"] and one["ci99_half_width"] <= 5e-3
    assert one["rtp_estimated"] and one["base_rtp_exact"]


def _agree(a: float, half_a: float, c: float, half_c: float) -> bool:
    """Two independent estimates agree at 99 %: their difference within Z99 x its SD."""
    return abs(a - c) <= math.hypot(half_a, half_c)  # each half is Z99 x its standard error


def test_interval_holds_against_the_plain_estimator(game: Superstars) -> None:
    """The variance-reduced estimate and the plain per-class estimate (independent seeds)
    agree within their combined 99 % interval, and the reduction is real."""
    fast = precise.precise_rtp(game, 1e-3, seed=21, workers=2)
    slow = exact.compose(game, 400_000, seed=22)
    assert _agree(fast["rtp"], fast["ci99_half_width"], slow["total"], slow["bonus_half"])
    assert fast["plain_ci99_half_width"] > 2 * fast["ci99_half_width"]
    # the plain mean of the same Bonus Games differs from the corrected one only by the
    # control variates' noise, well inside the plain interval
    assert abs(fast["plain_rtp"] - fast["rtp"]) <= fast["plain_ci99_half_width"]


@pytest.mark.slow
def test_interval_holds_against_a_long_plain_simulation(game: Superstars) -> None:
    """As above at 0.01 pp against 40 M plain Bonus Games (about 0.03 pp)."""
    fast = precise.precise_rtp(game, 1e-4, seed=31, workers=2)
    slow = exact.compose(game, 40_000_000, seed=32)
    assert fast["precision_met"]
    assert _agree(fast["rtp"], fast["ci99_half_width"], slow["total"], slow["bonus_half"])


def test_cli_precision(game: Superstars) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["rtp", "superstars", "--precision", "0.005", "--seed", "2",
                              "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["precision_met"] and data["ci99_half_width"] <= 0.005
    assert data["rtp_estimated"] and data["base_rtp_exact"]
    low, high = data["ci99"]
    assert low < data["rtp"] < high
    text = runner.invoke(app, ["rtp", "superstars", "--precision", "0.005", "--workers", "1"])
    assert text.exit_code == 0, text.output
    assert "composed rtp (estimated)" in text.output and "(exact)" in text.output
    assert runner.invoke(app, ["rtp", "crystal-star-deluxe", "--precision", "0.01"]).exit_code == 2
    both = runner.invoke(app, ["rtp", "superstars", "--precision", "0.01", "--bonuses", "5000"])
    assert both.exit_code == 2
