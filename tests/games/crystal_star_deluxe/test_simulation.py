"""Simulation agrees with the exact full cycle, and runs the same rules as live play."""

from __future__ import annotations

import math

import numpy as np
import pytest

from slotlab.games.crystal_star_deluxe import kernel as k
from slotlab.games.crystal_star_deluxe.exact import run_full_cycle
from slotlab.rng import chunk_stream
from slotlab.simulate.runner import simulate
from slotlab.simulate.stats import (
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_HITS,
    ACC_SPINS,
    ACC_WIN,
    Z99,
)

SPINS = 1_000_000


def within_99(observed: float, expected: float, sd: float, n: int) -> bool:
    return abs(observed - expected) <= Z99 * sd / math.sqrt(n)


@pytest.mark.parametrize(("bet", "seed"), [(45, 11), (9, 12)])
def test_simulation_agrees_with_exact_within_99_percent(game, bet, seed):
    exact = game.exact(bet)
    sim = simulate(game, game.id, bet, SPINS, seed=seed, chunk_spins=1 << 18)
    assert sim.spins == SPINS and sim.model_hash == game.model_hash
    assert within_99(sim.rtp, exact["rtp"], exact["sd"], SPINS)
    p = exact["hit_rate"]
    assert within_99(sim.hits / SPINS, p, math.sqrt(p * (1 - p)), SPINS)
    assert sum(sim.components.values()) == sim.total_win
    if bet < game.max_bet():
        assert sim.components["progressives"] == 0 and sim.components["flat_prizes"] > 0
    assert sim.max_win <= exact["max_win"]
    assert sim.sd == pytest.approx(exact["sd"], rel=0.1)


def test_feature_rate_agrees_with_the_three_star_odds(game):
    acc, _ = game.simulate_chunk(45, 400_000, chunk_stream(5, 0))
    # At max bet every play with three Stars on a line wins at least one progressive, so the
    # feature counter counts progressive plays.
    totals = run_full_cycle(game.model, 5)["totals"]
    plays = int((totals[:, k.T_STAR_LINES] > 0).sum())
    assert plays == int(((totals[:, k.T_TOP] + totals[:, k.T_BOTTOM]) > 0).sum())
    p = plays / totals.shape[0]
    assert within_99(acc[ACC_FEATURES] / acc[ACC_SPINS], p, math.sqrt(p * (1 - p)), 400_000)


@pytest.mark.parametrize("bet", [9, 45])
def test_simulation_kernel_and_live_round_play_the_same_rules(game, bet):
    """The untraced simulation loop and the traced round give the same wins on the same draws."""
    n = 4000
    acc, _ = game.simulate_chunk(bet, n, chunk_stream(99, 3))
    stream = chunk_stream(99, 3)
    stops = np.empty(3, np.int64)
    total = hits = lines = flats = prog = 0
    resets = {p["tier"]: p["reset"] for p in game.progressives()}
    for _ in range(n):
        k.draw_stops(stream, game.model.lengths, stops)
        result = game.play_stops(bet, stops)
        value = sum(resets[t] for t in result.jackpots)
        won = result.win + value
        total += won
        hits += won > 0
        lines += sum(e["win"] for e in result.events if e["type"] == "line_won")
        flats += sum(e["win"] for e in result.events if e["type"] == "flat_prize_won")
        prog += value
    assert (acc[ACC_SPINS], acc[ACC_WIN], acc[ACC_HITS]) == (n, total, hits)
    assert list(acc[ACC_COMPONENTS : ACC_COMPONENTS + 3]) == [lines, prog, flats]


def test_simulation_is_reproducible(game):
    a = simulate(game, game.id, 45, 100_000, seed=4, chunk_spins=1 << 15)
    b = simulate(game, game.id, 45, 100_000, seed=4, chunk_spins=1 << 15)
    assert (a.total_win, a.hits, a.sum_sq, a.bands) == (b.total_win, b.hits, b.sum_sq, b.bands)
    assert game.component_names() == ["lines", "progressives", "flat_prizes"]
