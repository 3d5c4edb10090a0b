"""Choices, the open round, history, round records and replay."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from slotlab.server.deps import (
    IDEMPOTENCY_KEY_REQUIRED,
    CurrentPlayer,
    RequiredIdempotencyKeyHeader,
    ServicesDep,
)
from slotlab.server.schemas import (
    ROUND_LINKS,
    ChoiceCreate,
    HistoryPublic,
    OpenRoundPublic,
    ReplayPublic,
    RoundPublic,
    RoundRecordPublic,
    errors,
)
from slotlab.server.services import idempotency as idem
from slotlab.server.services import round_history, round_replay, round_view, rounds

router = APIRouter(prefix="/api", tags=["rounds"])


@router.post("/rounds/{round_id}/choices", response_model=RoundPublic,
             operation_id="create_choice", openapi_extra=IDEMPOTENCY_KEY_REQUIRED,
             responses={200: {"links": ROUND_LINKS},
                        **errors(400, 401, 402, 403, 404, 409, 413, 422, 429, 503)})
def create_choice(ctx: ServicesDep, player: CurrentPlayer, round_id: str, body: ChoiceCreate,
                  request: Request, idempotency_key: RequiredIdempotencyKeyHeader = None
                  ) -> JSONResponse:
    key = idem.check_key(idempotency_key)
    h = idem.request_hash("POST", f"/api/rounds/{round_id}/choices",
                          body.model_dump(exclude_none=True))
    # Most choices never get here: server/fast_rounds.py answers them; one it played but
    # handed on is settled on the seed it drew.
    status, data = rounds.submit_choice(ctx, player, round_id, body.choice, key, h,
                                        body.step, request.scope.get(rounds.PLAYED_CHOICE_KEY),
                                        writer=rounds.writer_of(ctx))
    return JSONResponse(round_view.with_profile(ctx, player, data), status_code=status)


@router.get("/rounds/open", response_model=OpenRoundPublic,
            responses={204: {"description": "no open round"}, **errors(401, 503)})
def read_open_round(ctx: ServicesDep, player: CurrentPlayer) -> Any:
    body = round_history.open_round(ctx, player)
    return Response(status_code=204) if body is None else JSONResponse(body)


@router.get("/history", response_model=HistoryPublic, responses=errors(401, 422, 503))
def read_history(ctx: ServicesDep, player: CurrentPlayer,
                 limit: Annotated[int, Query(ge=1, le=1000)] = 10) -> dict[str, Any]:
    return {"rounds": round_history.history(ctx, player, limit)}


@router.get("/rounds/{round_id}", response_model=RoundRecordPublic, operation_id="read_round",
            responses=errors(401, 403, 404, 503))
def read_round(ctx: ServicesDep, player: CurrentPlayer, round_id: str) -> JSONResponse:
    return JSONResponse(round_history.round_record(ctx, player, round_id))


@router.get("/rounds/{round_id}/replay", response_model=ReplayPublic,
            operation_id="replay_round", responses=errors(401, 403, 404, 409, 503))
def replay_round(ctx: ServicesDep, player: CurrentPlayer, round_id: str) -> dict[str, Any]:
    return round_replay.replay_round(ctx, player, round_id)
