"""A player's session: drawn from the games' kernels, checked against an exact ruin chance and
carried by the PAR sheet."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from openpyxl import load_workbook
from scipy.stats import binomtest

from slotlab.games import find_game
from slotlab.games.contract import FamilyGame
from slotlab.games.crystal_star_deluxe import kernel as csd_kernel
from slotlab.games.crystal_star_deluxe.exact import run_full_cycle
from slotlab.mechanics.accumulators import ACC_WIN
from slotlab.rng import chunk_stream
from slotlab.simulate.par import compute, write_par
from slotlab.simulate.session import BANKROLLS, SESSION_ROUNDS, draw_sessions, play_sessions


def exact_win_pmf(bet: int) -> dict[int, float]:
    """Crystal Star Deluxe's exact distribution of one play's win in credits at ``bet``: every
    stop combination of the full cycle is equally likely (progressives at reset, as simulated)."""
    game = find_game("crystal-star-deluxe")
    model = game.model
    tot = run_full_cycle(model, game.line_bet(bet))["totals"]
    k = csd_kernel
    win = (tot[:, k.T_LINES] + tot[:, k.T_FLAT]
           + tot[:, k.T_TOP] * model.params[k.P_TOP_RESET]
           + tot[:, k.T_BOTTOM] * model.params[k.P_BOTTOM_RESET])
    counts = Counter(win.tolist())
    return {w: c / len(win) for w, c in counts.items()}


def ruin_chance(pmf: dict[int, float], bet: int, bankroll: int, rounds: int) -> float:
    """P(the bankroll falls below one bet within ``rounds`` rounds), by dynamic programming over
    the bankroll in credits. A bankroll of ``bet * (left + 1)`` or more cannot fall below one
    bet in the ``left`` rounds left, so every such bankroll is one state, safe."""
    cap = bet * (rounds + 1)
    alive = np.zeros(cap + 1)  # alive[b]: P(bankroll b, not broke); alive[cap]: safe
    alive[min(bankroll, cap)] = 1.0
    broke = 0.0
    for _ in range(rounds):
        nxt = np.zeros_like(alive)
        nxt[cap] = alive[cap]
        for w, p in pmf.items():
            moved = np.arange(bet, cap) - bet + w  # the bankrolls b >= bet, after a round
            mass = alive[bet:cap] * p
            low = moved < bet
            broke += mass[low].sum()
            np.add.at(nxt, np.minimum(moved[~low], cap), mass[~low])
        alive = nxt
    return broke


def test_round_wins_are_the_simulation_kernels_rounds():
    for game_id in ("fruit-5x3", "crystal-star-deluxe", "super-12-stars", "superstars"):
        game = find_game(game_id)
        bet = game.bets()[0]
        wins = game.round_wins(bet, 3_000, chunk_stream(5, 2))
        acc, _ = game.simulate_chunk(bet, 3_000, chunk_stream(5, 2))
        assert wins.sum() == acc[ACC_WIN] and (wins >= 0).all()
        # the slow path of the contract, a round per call, draws the same rounds
        assert (FamilyGame.round_wins(game, bet, 300, chunk_stream(5, 2)) == wins[:300]).all()


def test_play_sessions_by_hand():
    bet = 10
    wins = np.array([[0, 0, 50, 0, 0],      # 30 -> 20 -> 10 -> 50 -> 40 -> 30
                     [0, 0, 0, 1000, 0],    # 30 -> 20 -> 10 -> 0: broke after round 3
                     [20, 0, 0, 0, 0]])     # 30 -> 40 -> 30 -> 20 -> 10 -> 0: broke after 5
    s = play_sessions(wins, bet, 30, 5)
    assert s.broke_at.tolist() == [0, 3, 5]
    assert s.net.tolist() == [0, -30, -30]
    assert s.big_win.tolist() == [False, False, False]  # the 1000 came after the player left
    s = play_sessions(wins, bet, 30, 2)
    assert s.broke_at.tolist() == [0, 0, 0] and s.net.tolist() == [-20, -20, 0]
    with pytest.raises(ValueError, match="needs 1 to 5"):
        play_sessions(wins, bet, 30, 6)


def test_broke_chance_matches_the_exact_ruin_chance():
    """Crystal Star Deluxe's win distribution is exact (its full cycle), so the chance of going
    broke has an exact value; the simulated one must hold it in its 99.9% Wilson interval (seed
    3, 4,000 sessions: a correct simulation fails one check in 1,000)."""
    game = find_game("crystal-star-deluxe")
    bet = game.bets()[0]
    pmf = exact_win_pmf(bet)
    assert sum(w * p for w, p in pmf.items()) / bet == pytest.approx(game.exact(bet)["rtp"])
    wins = draw_sessions(game, bet, 4_000, 250, seed=3)
    checked = 0
    for rounds, bets in ((100, 50), (250, 50), (250, 100)):
        exact = ruin_chance(pmf, bet, bets * bet, rounds)
        k = int(play_sessions(wins, bet, bets * bet, rounds).went_broke().sum())
        ci = binomtest(k, 4_000).proportion_ci(confidence_level=0.999, method="wilson")
        assert ci.low <= exact <= ci.high, (rounds, bets, exact, k / 4_000)
        checked += exact > 0.01
    assert checked >= 2  # not a vacuous check of chances near zero


def test_sessions_are_fixed_by_the_seed_and_independent_of_their_count():
    game = find_game("fruit-5x3")
    a = draw_sessions(game, 30, 20, 100, seed=8)
    b = draw_sessions(game, 30, 5, 100, seed=8)
    assert (a[:5] == b).all() and not (a[5:10] == b).all()
    with pytest.raises(ValueError, match="at least 1"):
        draw_sessions(game, 30, 0, 100, seed=8)


@pytest.mark.parametrize("game_id", ["crystal-star-deluxe", "super-12-stars", "superstars"])
def test_par_sheet_carries_the_session_table(game_id, tmp_path):
    game = find_game(game_id)
    bet = game.bets()[0]
    paths = write_par(game, game_id, tmp_path, bet, 4_000, seed=1, sample_rounds=1_000,
                      bonuses=2_000, sessions=300)
    figures = json.loads(paths["json"].read_text())
    sessions = next(t for t in figures["tables"] if t["id"] == "sessions")
    assert [(r[0], r[1]) for r in sessions["rows"]] == [(n, b) for n in SESSION_ROUNDS
                                                       for b in BANKROLLS]
    wins = draw_sessions(game, bet, 300, max(SESSION_ROUNDS), seed=1)
    for row in sessions["rows"]:
        s = play_sessions(wins, bet, row[1] * bet, row[0])
        assert row[2] == 300 and row[3] == s.went_broke().mean()
        assert row[7:12] == sorted(row[7:12])  # percentiles rise
        assert row[12] == (s.net > 0).mean()
    by_bankroll = {r[1]: r[3] for r in sessions["rows"] if r[0] == 1_000}
    assert by_bankroll[50] >= by_bankroll[100] >= by_bankroll[200]  # same rounds, more money
    assert "sessions" in load_workbook(paths["xlsx"], read_only=True).sheetnames
    html = paths["html"].read_text()
    assert 'data-table="sessions"' in html and 'id="plot-session-broke"' in html


def test_compute_takes_the_sessions_count():
    game = find_game("classic-3x3")
    figures = compute(game, "classic-3x3", game.bets()[0], 2_000, seed=2, sample_rounds=500,
                      sessions=50)
    rows = next(t for t in figures["tables"] if t["id"] == "sessions")["rows"]
    assert {r[2] for r in rows} == {50}
