"""Superstars Bonus Game simulation: the trigger-class loop replays play_bonus draw for draw, and
the compiled draws follow the model's probabilities (99% intervals, fixed seeds)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from slotlab.games.superstars.bonus import (
    C_FINAL,
    C_REELS,
    FLAG_FINAL_GAME,
    N_FLAGS,
    bonus_events,
    class_stats,
    final_game_mean,
    pack_bonus,
    play_bonus_parts,
    simulate_bonuses,
    simulate_final_games,
    trace_bonus,
)
from slotlab.games.superstars.bonus_spec import parse_probability
from slotlab.mechanics.accumulators import (
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_SPINS,
    ACC_WIN,
    Z99,
    new_accumulators,
)
from slotlab.rng import chunk_stream, randbelow

from .bonus_reference import model_spec

SPEC = model_spec()
BP = pack_bonus(SPEC)


@pytest.mark.parametrize(("symbols", "with_dice"), [(3, False), (4, True), (5, True)])
def test_simulate_bonuses_plays_the_same_games_as_play_bonus(symbols: int,
                                                            with_dice: bool) -> None:
    n = 300
    acc, sq = new_accumulators()
    counts = np.zeros(N_FLAGS, np.int64)
    simulate_bonuses(chunk_stream(3, symbols), BP, symbols, with_dice, n, acc, sq, counts)
    stream = chunk_stream(3, symbols)
    ev = np.zeros((1, 8), np.int64)
    reels = final = finals = 0
    for _ in range(n):
        cells = np.zeros(25, np.int64)
        for r in range(symbols - with_dice):  # the documented placement: reels 1, 2, ...
            cells[r * 5 + randbelow(stream, 5)] = 1
        dice_cell = 20 + randbelow(stream, 5) if with_dice else -1
        r_, f_, _, flags = play_bonus_parts(stream, BP, cells, dice_cell, False, ev, 0)
        reels, final, finals = reels + r_, final + f_, finals + (flags & FLAG_FINAL_GAME)
    assert acc[ACC_SPINS] == n and acc[ACC_WIN] == reels + final
    assert (acc[ACC_COMPONENTS + C_REELS], acc[ACC_COMPONENTS + C_FINAL]) == (reels, final)
    assert acc[ACC_FEATURES] == counts[0] == finals


def within99(hits: int, n: int, p: Fraction) -> bool:
    half = Z99 * (float(p * (1 - p)) / n) ** 0.5
    return abs(hits / n - float(p)) <= half


def test_spin_landings_and_trigger_prizes_follow_the_model() -> None:
    """First spin of 3000 Bonus Games: each empty position lands a prize and a Dice with the
    model's probabilities (``bonus.land``); the trigger prizes have the prize table's mean
    (99%)."""
    stream = chunk_stream(5, 0)
    cells = np.zeros(25, np.int64)
    cells[[0, 5, 10]] = 1
    spun = prizes = dice = 0
    trigger_values: list[int] = []
    for _ in range(3000):
        _, _, rows = trace_bonus(BP, stream, cells, -1)
        events = bonus_events(rows)
        first = next(e for e in events if e["type"] == "bonus_spun")
        spun += 22
        prizes += len(first["prizes"])
        dice += len(first["dice_cells"])
        trigger_values += [p["value"] for p in events[0]["prizes"]]
    assert within99(prizes, spun, parse_probability(SPEC.land.prize))
    assert within99(dice, spun, parse_probability(SPEC.land.dice))
    table = SPEC.prize_table()
    mean = float(table.mean())
    sd = float(table.mean(lambda v: v * v) - table.mean() ** 2) ** 0.5
    assert abs(np.mean(trigger_values) - mean) <= Z99 * sd / len(trigger_values) ** 0.5


def test_class_stats_reports_a_99_percent_interval() -> None:
    r = class_stats(BP, 3, False, 20_000, chunk_stream(9, 0))
    lo, hi = r["ci99"]
    assert lo < r["mean_x_bet"] < hi
    assert hi - lo == pytest.approx(2 * Z99 * r["sd_x_bet"] / 20_000**0.5)
    assert r["mean_x_bet"] == pytest.approx(r["reels_mean"] + r["final_mean"])
    assert 0 < r["final_game_rate"] < 1 and r["max_x_bet"] >= r["mean_x_bet"]


def test_final_game_mean_of_one_die_is_the_next_six_squares() -> None:
    assert final_game_mean(SPEC, 1) == Fraction(25 + 50 + 25 + 75 + 25 + 100, 6)


@pytest.mark.parametrize("dice", [4, 14])
def test_simulated_final_games_agree_with_the_exact_mean(dice: int) -> None:
    """The compiled Final Game against its exact expectation (absorbing chain), 99%."""
    n = 200_000
    total, sq = simulate_final_games(chunk_stream(4, dice), BP, dice, n)
    mean = total / n
    sd = (sq / n - mean * mean) ** 0.5
    assert abs(mean - float(final_game_mean(SPEC, dice))) <= Z99 * sd / n**0.5
