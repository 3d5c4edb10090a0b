"""The games the server offers, with their money terms (denomination, bets in minor units)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from slotlab.games import find_game, game_ids
from slotlab.rounds import Game
from slotlab.server.errors import not_found
from slotlab.server.settings import Settings

log = logging.getLogger("slotlab.server")

MICRO = 1_000_000  # jackpot pools are kept in micro-units of a minor unit


@dataclass(frozen=True)
class Progressive:
    tier: str
    reset_credits: int
    rate: Fraction  # share of max-bet coin-in

    @property
    def rate_text(self) -> str:
        return f"{self.rate.numerator}/{self.rate.denominator}"


@dataclass(frozen=True)
class GameEntry:
    game: Game
    denomination: int
    bets_credits: tuple[int, ...]
    progressives: tuple[Progressive, ...]
    rtp: float | None
    max_win_x: int
    description: dict[str, Any]

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def max_bet_credits(self) -> int:
        return self.bets_credits[-1]

    def bets_minor(self) -> list[int]:
        return [b * self.denomination for b in self.bets_credits]

    def credits_of(self, bet_minor: int) -> int | None:
        """The bet in credits for a money bet, or None when it is not an allowed bet."""
        if bet_minor <= 0 or bet_minor % self.denomination:
            return None
        credits = bet_minor // self.denomination
        return credits if credits in self.bets_credits else None


def _progressives(game: Game) -> tuple[Progressive, ...]:
    fn = getattr(game, "progressives", None)
    if not callable(fn):
        return ()
    out = []
    for p in fn() or ():
        rate = Fraction(str(p["rate"]))
        if not 0 <= rate < 1:
            raise ValueError(f"{game.id}: progressive rate {p['rate']} outside [0, 1)")
        out.append(Progressive(str(p["tier"]), int(p["reset"]), rate))
    return tuple(sorted(out, key=lambda p: p.tier))


def _warm_up(game: Game, bet: int, tries: int = 3) -> None:
    """Compile the game's kernels now, not on a player's round. Retried: numba's on-disk cache
    can be caught half-written by another process compiling the same kernels."""
    for attempt in range(tries):
        try:
            game.play(bet, [bytes(32)], [])
            return
        except Exception:
            if attempt == tries - 1:
                raise
            log.warning("warm-up of %s failed; retrying", game.id, exc_info=True)


class Catalog:
    def __init__(self, entries: Mapping[str, GameEntry]) -> None:
        self.entries = dict(entries)

    def get(self, game_id: str) -> GameEntry:
        entry = self.entries.get(game_id)
        if entry is None:
            raise not_found("unknown_game", f"no game {game_id!r}")
        return entry

    def find(self, game_id: str) -> GameEntry | None:
        return self.entries.get(game_id)

    def __iter__(self) -> Any:
        return iter(self.entries.values())


def load_catalog(settings: Settings, games: Mapping[str, Game] | None = None) -> Catalog:
    """Every offered game, warmed up (kernels compiled) so the first round is fast.

    ``games`` overrides the engine's registry (tests and embedding). A game that fails to load
    is left out with a warning, so one broken model cannot take the server down.
    """
    if games is None:
        ids = settings.games if settings.games is not None else game_ids()
        loaded: dict[str, Game] = {}
        for gid in ids:
            if gid not in game_ids():
                log.warning("game %s is not known to the engine; left out", gid)
                continue
            try:
                loaded[gid] = find_game(gid)
            except Exception:
                log.exception("game %s failed to load; left out", gid)
        games = loaded
    entries = {}
    for gid, game in games.items():
        try:
            bets = tuple(int(b) for b in game.bets())
            try:
                rtp: float | None = float(game.theoretical_rtp())
            except Exception:
                log.exception("game %s has no theoretical RTP", gid)
                rtp = None
            entry = GameEntry(game, settings.denomination(gid), bets, _progressives(game), rtp,
                              int(game.max_win_x()), dict(game.describe()))
            _warm_up(game, bets[0])
        except Exception:
            log.exception("game %s failed its warm-up; left out", gid)
            continue
        entries[gid] = entry
    return Catalog(entries)
