"""Responsible gambling: the player's own loss and deposit limits, and reality checks."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from slotlab.server.deps import CurrentPlayer, ServicesDep
from slotlab.server.schemas import MAX_AMOUNT, ErrorPublic
from slotlab.server.services import limits, reality
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import money_of

router = APIRouter(prefix="/api", tags=["responsible gambling"])


def _money(ctx: Services, player: Auth) -> dict[str, Any]:
    """The currency the player's limits and net position are in (their wallet's)."""
    return money_of(ctx, player.currency or ctx.settings.currency)


_ERRORS: dict[int | str, dict[str, Any]] = {s: {"model": ErrorPublic} for s in (401, 422)}


class LimitUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    amount: StrictInt | None = Field(..., gt=0, le=MAX_AMOUNT,
                               description="minor units; null removes the limit (after the "
                                           "cooling-off day)")


@router.get("/limits", responses=_ERRORS)
def read_limits(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    """The player's loss and deposit limits per period, what each period has used, and any
    raise waiting for its cooling-off day."""
    return {**limits.view(ctx, player.player_id), **_money(ctx, player)}


@router.put("/limits/{kind}/{period}", responses=_ERRORS)
def update_limit(ctx: ServicesDep, player: CurrentPlayer, kind: str, period: str,
                 body: LimitUpdate) -> dict[str, Any]:
    """Set a limit (``kind``: loss or deposit; ``period``: day, week or month). Lowering it
    applies at once; raising or removing it applies after a cooling-off day."""
    return {**limits.set_limit(ctx, player.player_id, kind, period, body.amount),
            **_money(ctx, player)}


@router.get("/session/reality-check", responses=_ERRORS)
def read_reality_check(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    """The session's elapsed time and net position, and when the next reminder is due."""
    return {**reality.status(ctx, player), **_money(ctx, player)}


@router.post("/session/reality-check", responses=_ERRORS)
def acknowledge_reality_check(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    """The player has seen the reminder: play carries on until the next one."""
    return {**reality.acknowledge(ctx, player), **_money(ctx, player)}
