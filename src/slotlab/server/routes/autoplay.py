"""Autoplay runs: started, read and stopped by the player (services/autoplay_runs.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from slotlab.server.deps import CurrentPlayer, ServicesDep
from slotlab.server.schemas import (
    AutoplayRunCreate,
    AutoplayRunPublic,
    AutoplayStopCreate,
    errors,
)
from slotlab.server.services import autoplay_runs

router = APIRouter(prefix="/api", tags=["autoplay"])
RunId = Annotated[int, Path(gt=0, le=10**15)]


@router.post("/autoplay", status_code=201, response_model=AutoplayRunPublic,
             responses=errors(401, 403, 404, 422, 503))
def start_autoplay(ctx: ServicesDep, player: CurrentPlayer, body: AutoplayRunCreate
                   ) -> dict[str, Any]:
    """Start an autoplay run with its stop conditions (refused as its rounds would be: 403
    ``autoplay_not_allowed``, 422 ``autoplay_stop_required``); an active older run stops."""
    return autoplay_runs.start(ctx, player, body)


@router.get("/autoplay/{run_id}", response_model=AutoplayRunPublic,
            responses=errors(401, 404, 422, 503))
def read_autoplay(ctx: ServicesDep, player: CurrentPlayer, run_id: RunId) -> dict[str, Any]:
    """The run, its figures so far, and why it stopped."""
    return autoplay_runs.read(ctx, player, run_id)


@router.post("/autoplay/{run_id}/stop", response_model=AutoplayRunPublic,
             responses=errors(401, 404, 422, 503))
def stop_autoplay(ctx: ServicesDep, player: CurrentPlayer, run_id: RunId,
                  body: AutoplayStopCreate) -> dict[str, Any]:
    """Stop the run (a run already stopped keeps the reason it stopped for)."""
    return autoplay_runs.stop(ctx, player, run_id, body.reason)
