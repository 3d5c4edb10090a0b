"""Players and sessions."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from slotlab.server.deps import CurrentPlayer, ServicesDep
from slotlab.server.schemas import (
    PlayerCreate,
    PlayerPublic,
    SessionCreate,
    SessionInfoPublic,
    SessionPublic,
)
from slotlab.server.services import auth, free_rounds, round_history, round_recovery, wallet
from slotlab.server.services.round_view import net_position
from slotlab.store.models import utcnow

router = APIRouter(prefix="/api", tags=["players"])


@router.post("/players", status_code=201, response_model=PlayerPublic)
def create_player(ctx: ServicesDep, body: PlayerCreate) -> dict[str, Any]:
    return {"player_id": auth.register(ctx, body.username, body.password)}


@router.post("/sessions", status_code=201, response_model=SessionPublic)
def create_session(ctx: ServicesDep, body: SessionCreate) -> dict[str, Any]:
    token, expires = auth.login(ctx, body.username, body.password)
    pid = auth.find_player_id(ctx, body.username)
    assert pid is not None
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
