"""The games the server offers, with their money terms per currency (denomination, bets in minor
units, cash cap), on the RTP variant the operator chose (``SLOTLAB_VARIANTS``), and the models
rounds were played on.

A :class:`GameEntry` is one game in one currency: ``catalog.get(game_id, currency)`` is what a
round of a player holding that currency is played on (``credits_of``, ``bets_minor``,
``denomination``, ``cash_cap``); its pools are keyed by (game, currency, denomination, tier)."""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from slotlab.games import find_game, game_ids, offered_ids
from slotlab.kernel_cache import play_once
from slotlab.model_archive import archived
from slotlab.rounds import Game, game_cash_caps
from slotlab.server.currencies import CurrencyTerms, not_offered
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
    currency: str = ""  # the ISO 4217 code these money terms are in
    decimals: int = 2  # its minor-unit digits
    cash_cap: int | None = None  # the most a round pays, minor units (None: no cap)
    game_max_credits: int = 0  # the game's own max bet (jackpot contributions); 0: the ladder's

    @property
    def max_bet_credits(self) -> int:
        return self.game_max_credits or self.bets_credits[-1]

    @property
    def max_win_cash(self) -> int | None:
        """The most a round pays in this currency (None: no cash cap). The game caps a round at
        ``max_win_x`` times the bet as well: whichever binds first applies."""
        return self.cash_cap

    def bets_minor(self) -> list[int]:
        return [b * self.denomination for b in self.bets_credits]

    def credits_of(self, bet_minor: int) -> int | None:
        """The bet in credits for a money bet, or None when it is not an allowed bet."""
        if bet_minor <= 0 or bet_minor % self.denomination:
            return None
        credits = bet_minor // self.denomination
        return credits if credits in self.bets_credits else None


def _progressives(game: Game) -> tuple[Progressive, ...]:
    if game.progressives is None:
        return ()
    out = []
    for p in game.progressives():
        rate = Fraction(str(p["rate"]))
        if not 0 <= rate < 1:
            raise ValueError(f"{game.id}: progressive rate {p['rate']} outside [0, 1)")
        out.append(Progressive(str(p["tier"]), int(p["reset"]), rate))
    return tuple(sorted(out, key=lambda p: p.tier))


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
                 sources: ModelSources | None = None,
                 by_currency: Mapping[str, Mapping[str, GameEntry]] | None = None) -> None:
        self.entries = dict(entries)  # the default currency's
        first = next(iter(self.entries.values()), None)
        self.default_currency = first.currency if first is not None else ""
        # currency -> game id -> that game's entry in that currency (the default one included)
        self.by_currency: dict[str, dict[str, GameEntry]] = {
            c: dict(es) for c, es in (by_currency or {}).items()}
        self.by_currency.setdefault(self.default_currency, self.entries)
        self._resolve = resolve or _resolver(None)
        self._sources = sources
        self._by_hash: dict[str, Game] = {e.game.model_hash: e.game for e in self.entries.values()}
        self._lock = threading.Lock()
        # Games taken out of play by the integrity check: game id -> why (replaced whole).
        self.out_of_service: dict[str, str] = {}

    def get(self, game_id: str, currency: str | None = None) -> GameEntry:
        """An offered game that is in play, in ``currency`` (None: the default one): 404 for an
        unknown game, 503 for one out of play, 422 ``currency_not_offered``."""
        entry = self.entries.get(game_id)
        if entry is None:
            raise not_found("unknown_game", f"no game {game_id!r}")
        if game_id in self.out_of_service:
            raise out_of_service(game_id)
        if currency is None or currency == self.default_currency:
            return entry
        return self._in(currency, game_id)

    def _in(self, currency: str, game_id: str) -> GameEntry:
        games = self.by_currency.get(currency)
        if games is None:
            raise not_offered(currency, self.currencies)
        entry = games.get(game_id)
        if entry is None:
            raise not_found("unknown_game", f"no game {game_id!r} in {currency}")
        return entry

    def in_service(self, game_id: str) -> bool:
        return game_id not in self.out_of_service

    def find(self, game_id: str, currency: str | None = None) -> GameEntry | None:
        """The game in ``currency`` (None: the default one), or None when either is not
        offered."""
        if currency is None:
            return self.entries.get(game_id)
        return self.by_currency.get(currency, {}).get(game_id)

    @property
    def currencies(self) -> list[str]:
        """The offered currencies, the default first."""
        return list(self.by_currency)

    def in_currency(self, currency: str | None = None) -> list[GameEntry]:
        """Every offered game in ``currency`` (None: the default); 422 for one not offered."""
        code = currency or self.default_currency
        if code not in self.by_currency:
            raise not_offered(code, self.currencies)
        return list(self.by_currency[code].values())

    def every_currency(self) -> list[GameEntry]:
        """Every (game, currency) entry: what pools are created for."""
        return [e for es in self.by_currency.values() for e in es.values()]

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
            entry = GameEntry(gid, game, settings.variants.get(gid, gid), 1, bets,
                              _progressives(game), rtp, int(game.max_win_x()),
                              dict(game.describe()), game_max_credits=bets[-1])
            play_once(game)  # compiled now, not on a player's round
        except Exception:
            log.exception("game %s failed its warm-up; left out", gid)
            continue
        if sources is not None:
            sources.keep(game)
        entries[gid] = entry
    by_currency = {code: {gid: in_currency(e, settings.money(code)) for gid, e in entries.items()}
                   for code in settings.offered_currencies}
    _check_named_games(settings, set(offered) | set(settings.games or ()))
    return Catalog(by_currency[settings.currency], resolve, sources, by_currency)


def in_currency(entry: GameEntry, terms: CurrencyTerms) -> GameEntry:
    """The game's entry in one currency: its denomination and ladder there (ValueError, which
    stops the start-up, for a ladder the game cannot play)."""
    denom = terms.denomination(entry.id)
    ladder = terms.ladder(entry.id)
    allowed = entry.bets_credits
    if ladder is None:
        credits = allowed
    else:
        credits = tuple(b // denom for b in ladder)
        bad = [b for b, c in zip(ladder, credits, strict=True) if b % denom or c not in allowed]
        if bad:
            raise ValueError(
                f"SLOTLAB_CURRENCIES.{terms.code}.games.{entry.id}.bets: {bad} are not the "
                f"denomination {denom} times a bet the game allows (credits {list(allowed)})")
    return dataclasses.replace(entry, denomination=denom, bets_credits=credits,
                               currency=terms.code, decimals=terms.decimals,
                               cash_cap=lower_cap(terms.cash_cap,
                                                  game_cap_minor(entry.game, terms)))


def game_cap_minor(game: Game, terms: CurrencyTerms) -> int | None:
    """The game's own cash cap in this currency, minor units (None: it has none)."""
    whole = game_cash_caps(game).get(terms.code)
    return None if whole is None else whole * 10**terms.decimals


def lower_cap(a: int | None, b: int | None) -> int | None:
    """Of two caps the lower (None: no cap)."""
    return b if a is None else a if b is None else min(a, b)


def _check_named_games(settings: Settings, offered: set[str]) -> None:
    for code in settings.offered_currencies:
        terms = settings.money(code)
        named = (set(terms.denominations) | set(terms.ladders)) - offered
        if named and code in settings.currencies:
            raise ValueError(f"SLOTLAB_CURRENCIES.{code}.games names games that are not "
                             f"offered: {sorted(named)}; offered: {sorted(offered)}")
