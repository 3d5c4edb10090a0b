"""The games the server offers, with their money terms (denomination, bets in minor units), on
the RTP variant the operator chose (``SLOTLAB_VARIANTS``), and the models rounds were played on."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from slotlab.games import find_game, game_ids, offered_ids
from slotlab.model_archive import archived
from slotlab.rounds import Game
from slotlab.server.errors import ApiError, not_found
from slotlab.server.services.profiles import PROFILES, below_min_rtp
from slotlab.server.settings import Settings
from slotlab.store.model_sources import ModelSources

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
    id: str  # the offered game id (URLs, rounds, pools, packages)
    game: Game  # the model played now: the operator's variant, or the game itself
    variant: str  # what that model is: a game id the engine knows, or a model file path
    denomination: int
    bets_credits: tuple[int, ...]
    progressives: tuple[Progressive, ...]
    rtp: float | None
    max_win_x: int
    description: dict[str, Any]

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


Resolver = Callable[[str], Game]


def _resolver(games: Mapping[str, Game] | None) -> Resolver:
    """A variant reference -> its game: the override mapping first, then the engine's registry
    (a game id, or a line-game model file path)."""
    def resolve(ref: str) -> Game:
        if games is not None and ref in games:
            return games[ref]
        return find_game(ref)
    return resolve


class Catalog:
    """The offered games, and every model a round was played on: a round keeps its own model
    (found by its model hash) after the operator switches variants or edits a model file."""

    def __init__(self, entries: Mapping[str, GameEntry], resolve: Resolver | None = None,
                 sources: ModelSources | None = None) -> None:
        self.entries = dict(entries)
        self._resolve = resolve or _resolver(None)
        self._sources = sources
        self._by_hash: dict[str, Game] = {e.game.model_hash: e.game for e in self.entries.values()}
        self._lock = threading.Lock()
        # Games taken out of play by the integrity check: game id -> why (replaced whole).
        self.out_of_service: dict[str, str] = {}

    def get(self, game_id: str) -> GameEntry:
        """An offered game that is in play: 404 for an unknown game, 503 for one out of play."""
        entry = self.entries.get(game_id)
        if entry is None:
            raise not_found("unknown_game", f"no game {game_id!r}")
        if game_id in self.out_of_service:
            raise out_of_service(game_id)
        return entry

    def in_service(self, game_id: str) -> bool:
        return game_id not in self.out_of_service

    def find(self, game_id: str) -> GameEntry | None:
        return self.entries.get(game_id)

    def model(self, game_id: str, variant: str | None, model_hash: str) -> Game | None:
        """The model a round was played on: an offered one, one the database keeps by hash, the
        round's variant if its file still has that hash, or an archived shipped version. None
        when none has the hash: such a round cannot be continued or replayed faithfully."""
        game = self._by_hash.get(model_hash)
        if game is not None:
            return game
        with self._lock:
            game = self._stored(model_hash)
            if game is not None:
                self._by_hash[model_hash] = game
                return game
            for ref in dict.fromkeys(r for r in (variant, game_id) if r):
                try:
                    game = self._resolve(ref)
                except Exception:
                    log.warning("variant %s of %s cannot be loaded", ref, game_id, exc_info=True)
                    continue
                if game.model_hash == model_hash:
                    self._by_hash[model_hash] = game
                    return game
        return None

    def _stored(self, model_hash: str) -> Game | None:
        try:
            if self._sources is not None:
                game = self._sources.load(model_hash)
                if game is not None:
                    return game
            return archived(model_hash)
        except Exception:
            log.warning("stored model %s cannot be loaded", model_hash[:12], exc_info=True)
            return None

    def __iter__(self) -> Any:
        return iter(self.entries.values())


def out_of_service(game_id: str) -> ApiError:
    return ApiError(503, "game_out_of_service",
                    f"game {game_id!r} is out of service: its software failed the integrity "
                    "check; open rounds are kept and settled when it returns")


def _offered(settings: Settings) -> dict[str, Game]:
    ids = settings.games if settings.games is not None else offered_ids()
    loaded: dict[str, Game] = {}
    for gid in ids:
        if gid not in game_ids():
            log.warning("game %s is not known to the engine; left out", gid)
            continue
        try:
            loaded[gid] = find_game(gid)
        except Exception:
            log.exception("game %s failed to load; left out", gid)
    return loaded


def _variant(settings: Settings, resolve: Resolver, gid: str) -> Game:
    ref = settings.variants[gid]
    try:
        return resolve(ref)
    except Exception as e:
        raise ValueError(f"SLOTLAB_VARIANTS: variant {ref!r} of game {gid!r} cannot be loaded: "
                         f"{e}") from e


def load_catalog(settings: Settings, games: Mapping[str, Game] | None = None,
                 sources: ModelSources | None = None) -> Catalog:
    """Every offered game on its chosen variant, warmed up (kernels compiled), its model kept in
    ``sources`` by hash before any round is played on it.

    ``games`` overrides the engine's registry (tests and embedding). A game that fails to load
    is left out with a warning, so one broken model cannot take the server down. A variant the
    operator chose that cannot be loaded, or whose RTP is below the jurisdiction's minimum,
    stops the start-up with a clear error; a game offered by default below that minimum is left
    out (games of an override mapping are the embedder's own and are not checked).
    """
    resolve = _resolver(games)
    offered = dict(games) if games is not None else _offered(settings)
    unknown = sorted(set(settings.variants) - set(offered))
    if unknown:
        raise ValueError(f"SLOTLAB_VARIANTS names games that are not offered: {unknown}; "
                         f"offered: {sorted(offered)}")
    profile = PROFILES[settings.jurisdiction]
    entries = {}
    # Said before the warm-up: on a cold kernel cache it takes minutes, and nothing else shows.
    log.info("loading %d games (a first start compiles their kernels: a few minutes)",
             len(offered))
    for gid, game in offered.items():
        chosen = gid in settings.variants
        if chosen:
            game = _variant(settings, resolve, gid)
        try:
            rtp: float | None = float(game.theoretical_rtp())
        except Exception:
            log.exception("game %s has no theoretical RTP", gid)
            rtp = None
        if below_min_rtp(profile, rtp) and (chosen or games is None):
            ref = settings.variants.get(gid, gid)
            shown = "unknown" if rtp is None else f"{rtp:.4%}"
            msg = (f"game {gid!r} on variant {ref!r} has RTP {shown}, below the minimum "
                   f"{profile.min_rtp:.2%} of jurisdiction {profile.id!r}")
            if chosen:
                raise ValueError(f"{msg}; choose another variant in SLOTLAB_VARIANTS")
            log.error("%s; left out", msg)
            continue
        try:
            bets = tuple(int(b) for b in game.bets())
            entry = GameEntry(gid, game, settings.variants.get(gid, gid),
                              settings.denomination(gid), bets, _progressives(game), rtp,
                              int(game.max_win_x()), dict(game.describe()))
            _warm_up(game, bets[0])
        except Exception:
            log.exception("game %s failed its warm-up; left out", gid)
            continue
        if sources is not None:
            sources.keep(game)
        entries[gid] = entry
    return Catalog(entries, resolve, sources)
