"""Operator calls, authorised by ``SLOTLAB_ADMIN_TOKEN`` (off when it is unset)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from slotlab.server.deps import Admin, IdempotencyKeyHeader, ServicesDep
from slotlab.server.schemas import (
    AdminMovePublic,
    AmountCreate,
    ErrorPublic,
    LiveRoundsPublic,
    RoundPublic,
    RoundRecordPublic,
)
from slotlab.server.services import idempotency as idem
from slotlab.server.services import ledger, maintenance, rounds, wallet

router = APIRouter(
    prefix="/api/admin",
    tags=["admin"],
    dependencies=[Admin],
    responses={s: {"model": ErrorPublic} for s in (401, 403, 404, 409)},
)


def _move(ctx: ServicesDep, username: str, body: AmountCreate, key: str | None, credit: bool
          ) -> dict[str, Any]:
    if key is not None:
        key = idem.check_key(key)
    op = "credit" if credit else "debit"
    h = idem.request_hash("POST", f"/api/admin/players/{username}/{op}", body.model_dump())
    return wallet.admin_move(ctx, username, body.amount, credit, key, h)


@router.post("/players/{username}/credit", response_model=AdminMovePublic,
             responses={402: {"model": ErrorPublic}})
def credit_player(ctx: ServicesDep, username: str, body: AmountCreate,
                  idempotency_key: IdempotencyKeyHeader = None) -> dict[str, Any]:
    return _move(ctx, username, body, idempotency_key, True)


@router.post("/players/{username}/debit", response_model=AdminMovePublic,
             responses={402: {"model": ErrorPublic}})
def debit_player(ctx: ServicesDep, username: str, body: AmountCreate,
                 idempotency_key: IdempotencyKeyHeader = None) -> dict[str, Any]:
    return _move(ctx, username, body, idempotency_key, False)


@router.get("/rounds/open", response_model=LiveRoundsPublic)
def list_open_rounds(ctx: ServicesDep) -> dict[str, Any]:
    return {"rounds": rounds.live_rounds(ctx)}


@router.get("/rounds/{round_id}", response_model=RoundRecordPublic)
def read_any_round(ctx: ServicesDep, round_id: str) -> JSONResponse:
    return JSONResponse(rounds.round_record(ctx, None, round_id))


@router.post("/rounds/{round_id}/void", response_model=RoundPublic)
def void_round(ctx: ServicesDep, round_id: str) -> JSONResponse:
    return JSONResponse(rounds.void_round(ctx, round_id))


@router.get("/audit")
def audit(ctx: ServicesDep) -> dict[str, Any]:
    """Check the ledger invariants: every balance equals its ledger, none negative, pools add up."""
    with ctx.db.read() as s:
        return ledger.audit(s)


@router.post("/maintenance")
def run_maintenance(ctx: ServicesDep) -> dict[str, int]:
    """Run the housekeeping sweep now (auto-complete abandoned rounds, forget old keys)."""
    return maintenance.sweep(ctx)
