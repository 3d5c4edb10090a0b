"""Provably fair seeds (services/fairness.py): the commitment before play, the player's client
seed, rotation that reveals the server seed, and a round's export for ``slotlab verify``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from slotlab.server.deps import CurrentPlayer, ServicesDep
from slotlab.server.schemas import ErrorPublic
from slotlab.server.services import fairness
from slotlab.server.services.round_history import round_record

router = APIRouter(prefix="/api", tags=["provably fair"])

_ERRORS: dict[int | str, dict[str, Any]] = {s: {"model": ErrorPublic} for s in (401, 403, 422)}


class SeedRotation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    client_seed: StrictStr | None = Field(
        None, description="the new pair's client seed, 1-64 printable ASCII characters "
                          "(default: the current one)")


@router.get("/fairness", responses=_ERRORS)
def read_fairness(ctx: ServicesDep, player: CurrentPlayer) -> dict[str, Any]:
    """The active seed pair's commitment (SHA-256 of the secret server seed), client seed and
    next counter, and the pairs revealed so far with their server seeds."""
    return fairness.state(ctx, player)


@router.put("/fairness", responses={**_ERRORS, 409: {"model": ErrorPublic}})
def rotate_fairness(ctx: ServicesDep, player: CurrentPlayer, body: SeedRotation
                    ) -> dict[str, Any]:
    """Reveal the active server seed (every round played under it can now be verified) and
    start a new pair, with the client seed given (409 while a round waits for a choice)."""
    return fairness.rotate(ctx, player, body.client_seed)


@router.get("/fairness/rounds/{round_id}",
            responses={**_ERRORS, 404: {"model": ErrorPublic}, 409: {"model": ErrorPublic}})
def export_round(ctx: ServicesDep, player: CurrentPlayer, round_id: str) -> dict[str, Any]:
    """A finished round as ``slotlab verify ROUND.json`` reads it: the round, its seeds' pair
    and counters, and the server seed once the pair is revealed."""
    return fairness.export_round(ctx, player, round_record(ctx, player, round_id))
