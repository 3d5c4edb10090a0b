"""The PAR sheet's player sessions: for each session length and bankroll, the chance of going
broke and when, the session's net result, the chance of ending ahead and of a big win."""

from __future__ import annotations

from typing import Any

import numpy as np

from slotlab.games.contract import AnyGame
from slotlab.simulate.par.intervals import wilson99
from slotlab.simulate.par.tables import Cell, Table
from slotlab.simulate.session import (
    BANKROLLS,
    BIG_WIN_X,
    PERCENTILES,
    SESSION_ROUNDS,
    broke_curve,
    draw_sessions,
    play_sessions,
)

CURVE_POINTS = 100  # points of each bankroll's broke-by-round curve in the plot data
RESULT_QUANTILES = np.linspace(0, 100, 101)  # of the longest sessions' net result, for the plot


def session_figures(game: AnyGame, bet: int, sessions: int,
                    seed: int) -> tuple[Table, dict[str, Any]]:
    """The sessions table and its plot data (``broke`` curves, net ``results`` quantiles)."""
    longest = max(SESSION_ROUNDS)
    wins = draw_sessions(game, bet, sessions, longest, seed)
    rows: list[list[Cell]] = []
    for rounds in SESSION_ROUNDS:
        for bets in BANKROLLS:
            s = play_sessions(wins, bet, bets * bet, rounds)
            broke = s.went_broke()
            k = int(broke.sum())
            low, high = wilson99(k, s.count)
            ahead = int((s.net > 0).sum())
            big = int(s.big_win.sum())
            net_x = s.net / bet
            rows.append([
                rounds, bets, s.count, k / s.count, low, high,
                float(np.median(s.broke_at[broke])) if k else None,
                *(float(v) for v in np.percentile(net_x, PERCENTILES)),
                ahead / s.count, *wilson99(ahead, s.count),
                big / s.count, *wilson99(big, s.count),
            ])
    at = np.unique(np.linspace(1, longest, CURVE_POINTS).round().astype(int))
    plot = {
        "rounds": at.tolist(),
        "broke": {str(b): broke_curve(wins, bet, b * bet)[at - 1].tolist() for b in BANKROLLS},
        "result_quantiles": RESULT_QUANTILES.tolist(),
        "results": {str(b): np.percentile(play_sessions(wins, bet, b * bet, longest).net / bet,
                                          RESULT_QUANTILES).tolist() for b in BANKROLLS},
        "longest": longest,
    }
    table = Table(
        "sessions", "A player's session",
        ["rounds", "bankroll (bets)", "sessions", "P(broke)", "99% low", "99% high",
         "median rounds to broke", *(f"net result P{p} (bets)" for p in PERCENTILES),
         "P(ahead)", "ahead 99% low", "ahead 99% high", f"P(a win of {BIG_WIN_X}x or more)",
         "big win 99% low", "big win 99% high"],
        rows, section="sessions",
        note=f"{sessions:,} simulated sessions at {bet} credits a round, each played until its "
             "rounds are done or its bankroll is below one bet (broke); a shorter session is "
             "the start of a longer one, so the rows share their rounds. Net result: final "
             "bankroll less the starting one, in bets; ahead: a net result above zero; median "
             "rounds to broke: over the sessions that went broke. 99% Wilson intervals.")
    return table, plot
