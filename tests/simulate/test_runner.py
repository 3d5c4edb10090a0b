"""The simulation runner: fixed chunks, so results do not depend on where chunks run."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from slotlab.games import find_game
from slotlab.simulate.runner import chunk_plan, simulate
from slotlab.simulate.stats import (
    ACC_TOP,
    N_TOP,
    band_of,
    merge,
    new_accumulators,
    record,
    tail_level,
)


def test_chunk_plan_covers_every_spin_once():
    assert chunk_plan(10, 4) == [(0, 4), (1, 4), (2, 2)]
    assert chunk_plan(8, 4) == [(0, 4), (1, 4)]
    with pytest.raises(ValueError):
        chunk_plan(0)


def _figures(result):
    data = result.to_json()
    return {k: data[k] for k in ("rtp", "hit_rate", "sd", "max_win", "max_win_count",
                                 "win_bands", "rtp_components", "feature_rate")}


def test_result_is_identical_with_one_or_two_worker_processes():
    game = find_game("fruit-5x3")
    one = simulate(game, "fruit-5x3", 30, 200_000, seed=3, workers=1, chunk_spins=50_000)
    two = simulate(game, "fruit-5x3", 30, 200_000, seed=3, workers=2, chunk_spins=50_000)
    assert _figures(one) == _figures(two)
    assert two.workers == 2


@pytest.mark.slow
def test_result_is_identical_on_a_ray_cluster():
    ray = pytest.importorskip("ray")
    game = find_game("classic-3x3")
    local = simulate(game, "classic-3x3", 5, 300_000, seed=11, chunk_spins=100_000)
    try:
        on_ray = simulate(game, "classic-3x3", 5, 300_000, seed=11, ray_address="local",
                          chunk_spins=100_000)
    finally:
        ray.shutdown()
    assert _figures(local) == _figures(on_ray)
    assert on_ray.workers >= 1  # the cluster's CPUs, not a fixed 1


def test_bands_edges():
    assert [band_of(w, 10) for w in (0, 5, 10, 19, 20, 49, 50, 99, 100, 5000, 4999)] == [
        0, 1, 2, 2, 3, 3, 4, 4, 5, 10, 9]


def test_merge_keeps_the_larger_max_and_its_count():
    a, b = new_accumulators(), new_accumulators()
    for win in (30, 30, 5):
        record(a[0], a[1], win, 10, False)
    for win in (30, 7):
        record(b[0], b[1], win, 10, True)
    merge(a, b)
    acc, sq = a
    assert acc[3] == 30 and acc[4] == 3  # max win and how often
    assert acc[0] == 5 and acc[1] == 102 and acc[5] == 2
    assert np.isclose(sq[0], 3 * 9 + 0.25 + 0.49)


def test_the_largest_wins_are_kept_in_order_and_merged():
    a, b = new_accumulators(), new_accumulators()
    for win in (3, 90, 0, 12, 90, 7, 1, 2, 5, 4, 60):
        record(a[0], a[1], win, 10, False)
    for win in (80, 6, 95):
        record(b[0], b[1], win, 10, False)
    assert list(a[0][ACC_TOP:]) == [90, 90, 60, 12, 7, 5, 4, 3]  # the 8 largest, ties kept
    merge(a, b)
    assert list(a[0][ACC_TOP:]) == [95, 90, 90, 80, 60, 12, 7, 6]
    assert a[0][3] == 95 and a[0][4] == 1  # the max and its count, as before


def test_a_run_reports_its_largest_wins_and_the_same_on_any_workers():
    game = find_game("fruit-5x3")
    one = simulate(game, "fruit-5x3", 30, 200_000, seed=3, workers=1, chunk_spins=50_000)
    two = simulate(game, "fruit-5x3", 30, 200_000, seed=3, workers=2, chunk_spins=50_000)
    assert one.top_wins == two.top_wins and len(one.top_wins) == N_TOP
    assert one.top_wins[0] == one.max_win and one.top_wins == sorted(one.top_wins, reverse=True)
    assert one.top_wins.count(one.max_win) == min(one.max_win_count, N_TOP)


def test_the_tail_level_bound_takes_the_order_its_confidence_needs():
    # rounds above the 1-in-n level: Binomial(n, 1/n), about Poisson(1): P(<= 4) = 99.6 %
    level = tail_level([9, 8, 7, 6, 5, 4, 3, 2], 2_000_000_000, 2_000_000_000)
    assert level is not None and (level.order, level.at_least) == (5, 5)
    assert level.confidence == pytest.approx(0.99634, abs=1e-5)
    assert tail_level([9, 8, 7], 2_000_000_000, 2_000_000_000) is None  # too few kept
    # a rarer level needs fewer: 1 in 10 n, P(0 above) = e^-0.1 = 90.5 %, P(<= 1) = 99.5 %
    rarer = tail_level([9, 8, 7], 1_000_000, 10_000_000)
    assert rarer is not None and rarer.order == 2


def test_the_tail_level_bound_holds_as_often_as_it_says():
    """Exponential wins, whose 1-in-n level is ln(n) exactly: over 4,000 runs of n = 2,000 the
    bound (99.6 %) lies above it in about 0.37 % of runs, 15 expected; 99.9 % of the time
    (binomial, fixed seed) fewer than 29. Taking the 4th largest instead (98.1 %) fails it."""
    rng = np.random.default_rng(17)
    n, runs = 2_000, 4_000
    top = -np.sort(-rng.exponential(size=(runs, n)), axis=1)[:, :N_TOP]
    level = tail_level([8, 7, 6, 5, 4, 3, 2, 1], n, n)
    assert level is not None
    above = int(np.sum(top[:, level.order - 1] > np.log(n)))
    assert above < 29, above
    assert int(np.sum(top[:, level.order - 2] > np.log(n))) > 29  # the order is not too small


@pytest.mark.parametrize(("address", "says"), [
    ("127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1"),
    ("not an address", "is not host:port"),
    ("ray://127.0.0.1:1", "no Ray cluster answers at 127.0.0.1:1"),
])
def test_a_wrong_ray_address_fails_fast_in_one_line(address: str, says: str) -> None:
    pytest.importorskip("ray")
    from slotlab.simulate.runner import RayConnectError

    with pytest.raises(RayConnectError, match=says) as info:
        simulate(find_game("classic-3x3"), "classic-3x3", 5, 1000, ray_address=address)
    assert "\n" not in str(info.value)  # our one line, before Ray's retries and traceback


def test_worker_processes_run_a_game_no_reference_names():
    """The pool's workers inherit the game itself, so a model built in memory (an edited copy
    that is no file and no id) runs on several workers with the same result as on one."""
    from slotlab.games import game_from_source, model_source

    family, data = model_source(find_game("fruit-5x3"))
    edited = game_from_source(family, {**data, "id": "fruit-edited"})
    one = simulate(edited, "", 30, 100_000, seed=8, chunk_spins=25_000)
    two = simulate(edited, "", 30, 100_000, seed=8, workers=2, chunk_spins=25_000)
    assert _figures(one) == _figures(two) and two.backend == "processes"


@pytest.mark.parametrize("n", [1, 2, 3, 10, 2_000, 1 << 20, 10**8, 2_000_000_000])
def test_the_binomial_cdf_is_scipys_figure_to_the_bit(n: int) -> None:
    from scipy.stats import binom

    from slotlab.simulate.stats import binomial_cdf

    for one_in in (max(1, n // 2), n, 2 * n, 10 * n):
        for k in range(N_TOP + 1):
            assert binomial_cdf(k, n, 1 / one_in) == float(binom.cdf(k, n, 1 / one_in))


def test_a_runs_report_does_not_import_scipy_stats() -> None:
    # scipy.stats costs 0.45 s of every `slotlab simulate`; the tail level needs one function
    code = ("import sys; from slotlab.simulate.stats import tail_level; "
            "assert tail_level([9, 8, 7, 6, 5], 10**6, 10**6) is not None; "
            "assert 'scipy.stats' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


class _CountingGame:
    """A game that counts the chunks simulated in this process."""

    def __init__(self, game: object) -> None:
        self._game = game
        self.chunks: list[int] = []

    def simulate_chunk(self, bet: int, spins: int, stream: np.ndarray) -> object:
        self.chunks.append(spins)
        return self._game.simulate_chunk(bet, spins, stream)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> object:
        return getattr(self._game, name)


def test_a_pool_loads_the_kernel_once_before_forking_and_gives_the_same_figures() -> None:
    game = _CountingGame(find_game("classic-3x3"))
    two = simulate(game, "classic-3x3", 5, 40_000, seed=4, workers=2,  # type: ignore[arg-type]
                   chunk_spins=10_000)
    assert game.chunks == [1]  # one round in the parent: the workers run every chunk
    one = simulate(find_game("classic-3x3"), "classic-3x3", 5, 40_000, seed=4, workers=1,
                   chunk_spins=10_000)
    assert _figures(one) == _figures(two)
