"""The composed exact RTP against simulation (fixed seeds), the hold and win's chain against
played features, and the CLI on the model file by path."""

from __future__ import annotations

import json
import math
import shutil
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games.composed.exact import _Grid
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.round import COMPONENTS, Tables, hold_and_win, play_round
from slotlab.mechanics.collectors import coins_times_collectors, expected_collected
from slotlab.mechanics.weighted import draw
from slotlab.rng import chacha_stream, chunk_stream, parse_seed

Z999 = 3.2905  # two-sided 99.9 % normal quantile


def _within(samples: np.ndarray, exact: float, z: float = Z999) -> tuple[bool, str]:
    mean = float(samples.mean())
    se = float(samples.std(ddof=1)) / math.sqrt(len(samples))
    return abs(mean - exact) <= z * se, f"mean {mean:.6f}, exact {exact:.6f}, se {se:.6f}"


def test_coins_times_collectors_by_enumeration() -> None:
    """E[(start + X)(1 + n - X)], X ~ Binomial(n, q), against the sum over X."""
    q = Fraction(9, 10)
    for n in range(6):
        for start in range(4):
            direct = sum((math.comb(n, x) * q**x * (1 - q) ** (n - x) * (start + x) * (1 + n - x)
                          for x in range(n + 1)), Fraction(0))
            assert coins_times_collectors(n, start, q) == direct


def test_no_collectors_reduce_to_the_expected_coins_held() -> None:
    e = expected_collected(15, 6, Fraction(1, 10), Fraction(1), 3)
    assert 6 < e < 15 and expected_collected(15, 15, Fraction(1, 10), Fraction(1), 3) == 15


def test_hold_and_win_value_matches_played_features(game: ComposedGame) -> None:
    """20,000 features from 6 coins (fixed streams; the start coins' values drawn from the coin
    table as on the reels): the mean win is within the 99.9 % interval of the chain's exact
    value."""
    t = Tables(game.model)
    wins = np.empty(20_000, dtype=np.float64)
    for i in range(len(wins)):
        stream = chacha_stream(parse_seed(i))
        start = {c: draw(stream, t.coins) for c in (0, 3, 6, 9, 12, 14)}
        wins[i] = hold_and_win(t, stream, start, 1, 1, None)
    ok, text = _within(wins, float(_Grid(game.model).value(6)))
    assert ok, text


def test_round_components_match_the_exact_report(game: ComposedGame) -> None:
    """40,000 rounds from one fixed stream: each component's mean (per unit bet) within its
    99.9 % interval of the exact figure; the cap, simulated, is the only component without an
    exact figure."""
    report = game.exact()
    t = Tables(game.model)
    stream = chunk_stream(2026, 0)
    n = 40_000
    parts = np.zeros((n, len(COMPONENTS)), dtype=np.float64)
    for i in range(n):
        tally = play_round(t, stream, 1, None)
        parts[i] = [tally.parts[c] for c in COMPONENTS]
    parts /= game.model.divisor
    for k, name in enumerate(COMPONENTS):
        if name == "cap":
            continue
        ok, text = _within(parts[:, k], report["components"][name]["rtp"])
        assert ok, f"{name}: {text}"
    ok, text = _within(parts.sum(axis=1), report["rtp"])
    assert ok, f"rtp: {text}"


def test_rtp_and_simulate_work_on_the_model_file_by_path(game: ComposedGame,
                                                         tmp_path: Path) -> None:
    source = Path(game.model.source)
    copy = tmp_path / "my-coin-game.json"
    shutil.copy(source, copy)
    runner = CliRunner()
    rtp = runner.invoke(app, ["rtp", str(copy), "--json"])
    assert rtp.exit_code == 0, rtp.output
    report = json.loads(rtp.stdout)
    assert report["rtp_fraction"] == game.exact()["rtp_fraction"]
    sim = runner.invoke(app, ["simulate", str(copy), "--spins", "3000", "--seed", "3", "--json"])
    assert sim.exit_code == 0, sim.output
    out = json.loads(sim.stdout)
    assert out["spins"] == 3000 and out["model_hash"] == game.model_hash


def _kernel_rtp_within(game: ComposedGame, rounds: int, seed: int) -> tuple[bool, str]:
    """The compiled simulation's uncapped RTP (its win less the cap's component) against the
    exact RTP, at 99.9 % with the simulated SD."""
    from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_SPINS, ACC_WIN

    bet = game.bets()[0]
    acc, sq = game.simulate_chunk(bet, rounds, chunk_stream(seed, 0))
    cap = int(acc[ACC_COMPONENTS + COMPONENTS.index("cap")])
    n = int(acc[ACC_SPINS])
    mean = (int(acc[ACC_WIN]) - cap) / bet / n
    sd = math.sqrt(max(float(sq[0]) / n - (int(acc[ACC_WIN]) / bet / n) ** 2, 0.0))
    exact = game.exact()["rtp"]
    return abs(mean - exact) <= Z999 * sd / math.sqrt(n), (
        f"simulated {mean:.5f} +- {Z999 * sd / math.sqrt(n):.5f}, exact {exact:.5f}")


def test_the_compiled_simulation_holds_the_exact_rtp(game: ComposedGame) -> None:
    """4 M rounds (fixed seed), 99.9 % interval (about +- 2.3 points at this game's SD of 14)."""
    ok, text = _kernel_rtp_within(game, 4_000_000, 28)
    assert ok, text


@pytest.mark.slow
def test_the_compiled_simulation_holds_the_exact_rtp_long(game: ComposedGame) -> None:
    """200 M rounds (fixed seed), 99.9 % interval (about +- 0.3 points)."""
    ok, text = _kernel_rtp_within(game, 200_000_000, 29)
    assert ok, text
