"""Games, wallet, jackpots and starting a round."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from slotlab.server.deps import (
    IDEMPOTENCY_KEY_REQUIRED,
    Bearer,
    CurrentPlayer,
    RequiredIdempotencyKeyHeader,
    ServicesDep,
)
from slotlab.server.errors import ApiError
from slotlab.server.schemas import (
    GAME_LINKS,
    ROUND_LINKS,
    ErrorPublic,
    FreeRoundPackagesPublic,
    GameSummaryPublic,
    JackpotsPublic,
    RoundCreate,
    RoundPublic,
    WalletPublic,
    errors,
)
from slotlab.server.services import auth, free_rounds, jackpots, round_view, rounds, wallet
from slotlab.server.services import idempotency as idem
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.help import operator_help

router = APIRouter(prefix="/api", tags=["games"])


@router.get("/wallet", response_model=WalletPublic)
def read_wallet(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    return wallet.wallet_view(ctx, player.player_id)


@router.get("/free-rounds", response_model=FreeRoundPackagesPublic)
def list_free_rounds(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    """The player's Free Round Bonus packages, oldest first (the order they are used in)."""
    return {"packages": free_rounds.list_packages(ctx, player.player_id),
            **round_view.money_of(ctx, player.currency or ctx.settings.currency)}


# Which currency a listing is in: ``?currency=COP``; else the player's when a player's token is
# sent; else the server's default.
CurrencyQuery = Annotated[str | None, Query(min_length=3, max_length=3, pattern="^[A-Z]{3}$",
                                            description="ISO 4217 code; default: the "
                                            "player's (with a token) or the server's")]


def _viewer_currency(ctx: ServicesDep, creds: Bearer, currency: str | None) -> str:
    if currency is not None:
        return currency
    token = creds.credentials if creds is not None else ""
    if token and len(token) <= 200 and token.isascii():
        try:
            viewer = auth.cached_auth(ctx, token) or auth.authenticate(ctx, token)
        except ApiError:  # not a live player token (the admin's, an old one): the default
            viewer = None
        if viewer is not None and viewer.currency:
            return viewer.currency
    return ctx.settings.currency


def _offer(ctx: ServicesDep, e: GameEntry) -> dict[str, Any]:
    """What every game listing says: bets in money (in the entry's currency), RTP, max win,
    version and variant."""
    return {
        "id": e.id,
        "name": e.game.name,
        "bets": e.bets_minor(),
        "bets_credits": list(e.bets_credits),
        "denomination": e.denomination,
        "currency": e.currency,
        "decimals": e.decimals,
        "rtp": e.rtp,
        "max_win_cash": e.cash_cap,
        "model_hash": e.game.model_hash,
        "variant": e.variant,
        "in_service": ctx.catalog.in_service(e.id),
    }


@router.get("/games", response_model=list[GameSummaryPublic],
            responses={200: {"links": GAME_LINKS}})
def list_games(ctx: ServicesDep, creds: Bearer, currency: CurrencyQuery = None
               ) -> list[dict[str, Any]]:
    """The offered games, their bets in one currency (422 ``currency_not_offered``)."""
    code = _viewer_currency(ctx, creds, currency)
    return [{**_offer(ctx, e), "max_win": e.max_win_x,
             "max_win_bound": bool(e.description.get("max_win_bound", False)),
             "max_win_simulated": e.description.get("max_win_simulated"),
             "progressives": bool(e.progressives)}
            for e in ctx.catalog.in_currency(code)]


@router.get("/games/{game_id}", responses={404: {"model": ErrorPublic}})
def read_game(ctx: ServicesDep, game_id: str, creds: Bearer, currency: CurrencyQuery = None
              ) -> dict[str, Any]:
    """Everything a client needs to draw the game and its PAYS/HELP pages."""
    e = ctx.catalog.get(game_id, _viewer_currency(ctx, creds, currency))
    return {
        **e.description,
        **_offer(ctx, e),
        "max_win_x": e.max_win_x,
        "jackpots": [j for j in jackpots.pool_values(ctx.db, ctx.catalog, e.currency)
                     if j["game"] == e.id],
        "operator": operator_help(ctx.settings),
    }


@router.get("/jackpots", response_model=JackpotsPublic)
def list_jackpots(ctx: ServicesDep, currency: CurrencyQuery = None) -> dict[str, Any]:
    """Every pool in play, each in its currency (``?currency=``: that currency's only)."""
    return {"jackpots": jackpots.pool_values(ctx.db, ctx.catalog, currency)}


@router.post(
    "/games/{game_id}/rounds",
    status_code=201,
    response_model=RoundPublic,
    operation_id="create_round",
    responses={201: {"links": ROUND_LINKS},
               **errors(400, 401, 402, 403, 404, 409, 413, 422, 429, 503)},
    openapi_extra=IDEMPOTENCY_KEY_REQUIRED,
)
def create_round(ctx: ServicesDep, player: CurrentPlayer, game_id: str, body: RoundCreate,
                 request: Request, idempotency_key: RequiredIdempotencyKeyHeader = None
                 ) -> JSONResponse:
    """Debit the bet and play the round; one that needs no choice completes in this call."""
    key = idem.check_key(idempotency_key)
    ctx.catalog.get(game_id)
    h = idem.request_hash("POST", f"/api/games/{game_id}/rounds",
                          body.model_dump(exclude_none=True))
    # Most rounds never get here: server/fast_rounds.py answers them; one it played but handed
    # over (its write failed, or found the state changed) comes with its seed and outcome.
    status, data = rounds.start_round(ctx, player, game_id, body.bet, key, h, body.free_round_id,
                                      body.autoplay,
                                      played=request.scope.get(rounds.PLAYED_SCOPE_KEY),
                                      writer=rounds.writer_of(ctx))
    return JSONResponse(round_view.with_profile(ctx, player, data), status_code=status)
