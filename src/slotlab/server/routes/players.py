"""Players and sessions."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from slotlab.server.deps import CurrentPlayer, ServicesDep
from slotlab.server.ratelimit import REFUSAL_DELAY_S, Refused, request_address
from slotlab.server.schemas import (
    ErrorPublic,
    PlayerCreate,
    PlayerPublic,
    SessionCreate,
    SessionInfoPublic,
    SessionPublic,
)
from slotlab.server.services import (
    auth,
    free_rounds,
    password_policy,
    round_history,
    round_recovery,
    wallet,
)
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import net_position
from slotlab.store.models import utcnow

router = APIRouter(prefix="/api", tags=["players"])


# Async endpoints: the password work goes to its own pool (services/auth.py), the database work
# to the worker threads, so that logins cannot take every worker that plays rounds.


@router.post("/players", status_code=201, response_model=PlayerPublic,
             responses={409: {"model": ErrorPublic, "description": "`username_taken`"},
                        429: {"model": ErrorPublic,
                              "description": "`too_many_registrations`; the `Retry-After` "
                                             "header says when to retry"},
                        503: {"model": ErrorPublic,
                              "description": "`registration_busy` (with `Retry-After: 1`)"},
                        422: {"model": ErrorPublic,
                              "description": "`password_blank`, `password_is_username`, "
                                             "`password_too_common`, `currency_not_offered`, "
                                             "`currency_mismatch`"}})
async def create_player(ctx: ServicesDep, body: PlayerCreate, request: Request
                        ) -> dict[str, Any]:
    """A new player; the wallet's currency is ``currency`` (default: the server's), or with
    wallet_mode=operator the one the operator's wallet holds for that username. The password
    may not be blank, the username or one of the 10,000 most common passwords."""
    password_policy.check(body.password, body.username)
    address = request_address(request.scope, ctx.settings.trusted_proxies)
    # The registrations' own pool and limits: a flood of them never takes a login's place.
    try:
        with ctx.registration_pool.admitted():
            await run_in_threadpool(auth.count_registration, ctx, address)
            currency = await run_in_threadpool(wallet.registration_currency, ctx, body.username,
                                               body.currency)
            pw_hash = await auth.hash_password(ctx, body.password)
            return {"player_id": await run_in_threadpool(auth.register, ctx, body.username,
                                                         pw_hash, currency)}
    except Refused:
        # A flood's loops wait for their refusal (busy or over a limit): each costs the server
        # a sleeping coroutine instead of a request parsed per millisecond.
        await asyncio.sleep(REFUSAL_DELAY_S)
        raise


@router.post("/sessions", status_code=201, response_model=SessionPublic,
             responses={401: {"model": ErrorPublic, "description": "wrong username or password"},
                        429: {"description": "too many failed logins (`too_many_logins`); "
                                             "the `Retry-After` header says when to retry"}})
async def create_session(ctx: ServicesDep, body: SessionCreate, request: Request
                         ) -> dict[str, Any]:
    address = request_address(request.scope, ctx.settings.trusted_proxies)
    token, expires, pid = await auth.login(ctx, body.username, body.password, address)
    return await auth.settle(ctx, _session_opened, ctx, token, expires, pid)


def _session_opened(ctx: Services, token: str, expires: datetime, pid: int) -> dict[str, Any]:
    round_recovery.expire_awaiting(ctx, player_id=pid)
    return {"token": token, "expires_at": expires.isoformat(),
            "unseen_results": round_history.unseen_results(ctx, pid),
            "open_round": round_history.live_round_of(ctx, pid)}


@router.get("/session", response_model=SessionInfoPublic)
def read_session(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    round_recovery.expire_awaiting(ctx, player_id=player.player_id)
    now = utcnow()
    return {
        "player": {"id": player.player_id, "username": player.username},
        "demo": player.demo,  # play money, nothing kept after it ends
        "jurisdiction": ctx.profile(player.jurisdiction).to_json(),
        "session": {"started_at": player.session_started.isoformat(),
                    "expires_at": player.expires_at.isoformat(),
                    "elapsed_s": int((now - player.session_started).total_seconds())},
        "net_position": net_position(ctx, player.player_id, player.session_started),
        "wallet": wallet.wallet_view(ctx, player.player_id),
        "unseen_results": round_history.unseen_results(ctx, player.player_id),
        "open_round": round_history.live_round_of(ctx, player.player_id),
        "free_rounds": free_rounds.summary(ctx, player.player_id),
    }


@router.delete("/session/unseen", status_code=204)
def acknowledge_unseen(ctx: ServicesDep, player: CurrentPlayer) -> Response:
    """The client has shown the unseen results; stop listing them."""
    round_history.ack_unseen(ctx, player.player_id)
    return Response(status_code=204)


@router.delete("/sessions/current", status_code=204)
def delete_session(ctx: ServicesDep, player: CurrentPlayer) -> Response:
    auth.logout(ctx, player)
    return Response(status_code=204)
