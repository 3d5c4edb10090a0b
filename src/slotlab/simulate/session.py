"""A player's session, simulated: a bankroll played a round at a time at one bet until the
session's rounds are played or the bankroll no longer covers the bet.

The per-round wins come from the game's own kernels (:meth:`FamilyGame.round_wins`), session
``i`` from the simulation stream ``chunk_stream(seed, i)``, so a session's rounds are fixed by
the seed and do not depend on how many sessions are drawn. Every bankroll and session length is
read off the same drawn rounds: a 100-round session is the first 100 rounds of a 1,000-round one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from slotlab.games.contract import AnyGame
from slotlab.rng import chunk_stream

SESSION_ROUNDS = (100, 250, 1_000)  # rounds a session plays at most
BANKROLLS = (50, 100, 200)  # a session's starting bankroll, in total bets
SESSIONS = 10_000  # sessions drawn per game
BIG_WIN_X = 100  # "a win of 100x or more": one round's win over the total bet
PERCENTILES = (5, 25, 50, 75, 95)  # of a session's net result


def draw_sessions(game: AnyGame, bet: int, sessions: int, rounds: int, seed: int) -> np.ndarray:
    """Each round's win in credits: int64[sessions, rounds], row ``i`` from the stream of
    chunk ``i`` of ``seed``."""
    if sessions < 1 or rounds < 1:
        raise ValueError(f"sessions and rounds must be at least 1, not {sessions} and {rounds}")
    out = np.empty((sessions, rounds), np.int64)
    for i in range(sessions):
        out[i] = game.round_wins(bet, rounds, chunk_stream(seed, i))
    return out


@dataclass(frozen=True)
class Sessions:
    """Sessions of one bankroll and length, read off drawn wins.

    ``broke_at`` is the round (1-based) after which the bankroll fell below one bet, or 0 for a
    session that played all its rounds; ``net`` is the final bankroll less the starting one, in
    credits; ``big_win`` says whether a round of the session won ``BIG_WIN_X`` bets or more.
    """

    bankroll: int  # credits
    rounds: int
    broke_at: np.ndarray  # int64[sessions]
    net: np.ndarray  # int64[sessions]
    big_win: np.ndarray  # bool[sessions]

    @property
    def count(self) -> int:
        return int(self.broke_at.shape[0])

    def went_broke(self) -> np.ndarray:
        return self.broke_at > 0


def play_sessions(wins: np.ndarray, bet: int, bankroll: int, rounds: int) -> Sessions:
    """The sessions of ``rounds`` rounds (the first columns of ``wins``) on ``bankroll``
    credits at ``bet`` credits a round. A session stops once its bankroll is below one bet, so
    the rounds after that never count."""
    if not 1 <= rounds <= wins.shape[1]:
        raise ValueError(f"a session of {rounds} rounds needs 1 to {wins.shape[1]} drawn rounds")
    played = wins[:, :rounds]
    balance = bankroll + np.cumsum(played - bet, axis=1)
    short = balance < bet
    is_broke = short.any(axis=1)
    first = np.where(is_broke, short.argmax(axis=1), rounds - 1)  # the session's last round
    rows = np.arange(played.shape[0])
    final = balance[rows, first]
    best = np.maximum.accumulate(played, axis=1)[rows, first]
    return Sessions(bankroll, rounds, np.where(is_broke, first + 1, 0), final - bankroll,
                    best >= BIG_WIN_X * bet)


def broke_curve(wins: np.ndarray, bet: int, bankroll: int) -> np.ndarray:
    """float[rounds]: the share of sessions broke after each round (1 .. all drawn rounds)."""
    s = play_sessions(wins, bet, bankroll, wins.shape[1])
    counts = np.bincount(s.broke_at, minlength=wins.shape[1] + 1)[1:]
    return np.cumsum(counts) / s.count
