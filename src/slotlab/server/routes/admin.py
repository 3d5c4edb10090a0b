"""Operator calls, authorised by ``SLOTLAB_ADMIN_TOKEN`` (off when it is unset)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse

from slotlab import ledger
from slotlab.ledger import chain_audit
from slotlab.server.deps import Admin, IdempotencyKeyHeader, ServicesDep
from slotlab.server.errors import not_found
from slotlab.server.schemas import (
    AdminMovePublic,
    AmountCreate,
    AutoplayRunsPublic,
    ErrorPublic,
    FreeRoundGrantCreate,
    FreeRoundGrantPublic,
    IncidentVoidCreate,
    JurisdictionCreate,
    LiveRoundsPublic,
    RoundPublic,
    RoundRecordPublic,
    UsernamePath,
)
from slotlab.server.services import (
    autoplay_runs,
    free_rounds,
    maintenance,
    reports,
    round_history,
    round_recovery,
    round_replay,
    round_voids,
    session_records,
    wallet,
)
from slotlab.server.services import idempotency as idem

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
def credit_player(ctx: ServicesDep, username: UsernamePath, body: AmountCreate,
                  idempotency_key: IdempotencyKeyHeader = None) -> dict[str, Any]:
    return _move(ctx, username, body, idempotency_key, True)


@router.post("/players/{username}/debit", response_model=AdminMovePublic,
             responses={402: {"model": ErrorPublic}})
def debit_player(ctx: ServicesDep, username: UsernamePath, body: AmountCreate,
                 idempotency_key: IdempotencyKeyHeader = None) -> dict[str, Any]:
    return _move(ctx, username, body, idempotency_key, False)


@router.post("/free-rounds", status_code=201, response_model=FreeRoundGrantPublic,
             responses={422: {"model": ErrorPublic}})
def grant_free_rounds(ctx: ServicesDep, body: FreeRoundGrantCreate,
                      idempotency_key: IdempotencyKeyHeader = None) -> JSONResponse:
    """Give a player a Free Round Bonus package: ``rounds`` rounds of ``game`` at ``bet``."""
    if idempotency_key is not None:
        idempotency_key = idem.check_key(idempotency_key)
    h = idem.request_hash("POST", "/api/admin/free-rounds", body.model_dump(mode="json"))
    status, data = free_rounds.grant(ctx, body.username, body.game, body.bet, body.rounds,
                                     body.expires_at, idempotency_key, h)
    return JSONResponse(data, status_code=status)


@router.put("/players/{username}/jurisdiction", responses={422: {"model": ErrorPublic}})
def set_jurisdiction(ctx: ServicesDep, username: UsernamePath, body: JurisdictionCreate
                     ) -> dict[str, Any]:
    """Per-player jurisdiction override (null: the server's profile)."""
    return wallet.set_jurisdiction(ctx, username, body.jurisdiction)


@router.get("/autoplay-runs", response_model=AutoplayRunsPublic)
def list_autoplay_runs(ctx: ServicesDep, username: Annotated[str | None, Query(
        min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """Autoplay runs, newest first (of one player with ``username``): each with its stop
    conditions, its rounds and money, and why it stopped."""
    return {"runs": autoplay_runs.list_runs(ctx, username, limit)}


@router.get("/rounds/open", response_model=LiveRoundsPublic)
def list_open_rounds(ctx: ServicesDep) -> dict[str, Any]:
    return {"rounds": round_history.live_rounds(ctx)}


@router.get("/rounds/{round_id}", response_model=RoundRecordPublic)
def read_any_round(ctx: ServicesDep, round_id: str) -> JSONResponse:
    return JSONResponse(round_history.round_record(ctx, None, round_id))


@router.post("/rounds/{round_id}/void", response_model=RoundPublic)
def void_round(ctx: ServicesDep, round_id: str) -> JSONResponse:
    return JSONResponse(round_recovery.void_round(ctx, round_id))


@router.post("/incident-voids", responses={422: {"model": ErrorPublic}})
def void_incident(ctx: ServicesDep, body: IncidentVoidCreate) -> dict[str, Any]:
    """Void the rounds of a malfunction, completed ones too: every bet and payment reversed by
    new movements naming the incident. By ``round_ids``, or a ``game`` and [``start``,
    ``end``). A round already voided moves nothing again."""
    return round_voids.void_incident(ctx, body.incident_id, body.reason,
                                     round_ids=body.round_ids, game=body.game,
                                     start=body.start, end=body.end)


@router.get("/incident-voids/{incident_id}")
def read_incident(ctx: ServicesDep, incident_id: Annotated[str, PathParam(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]) -> dict[str, Any]:
    """The rounds voided for one incident, with what was reversed."""
    return round_voids.incident(ctx, incident_id)


@router.get("/reports/games")
def report_games(ctx: ServicesDep) -> dict[str, Any]:
    """Live RTP per game and bet level: observed vs theoretical, the 99 % interval, alerts."""
    return reports.games_report(ctx)


@router.get("/rtp-watch")
def rtp_watch(ctx: ServicesDep) -> dict[str, Any]:
    """The live RTP watch: each bet level's observed RTP over the rolling window against the
    model's interval for that many rounds, and the levels outside it (``alerts``)."""
    assert ctx.rtp_watch is not None  # made at start-up, before any request
    return ctx.rtp_watch.report()


@router.get("/reports/daily")
def report_daily(ctx: ServicesDep,
                 days: Annotated[int, Query(ge=1, le=366)] = 7) -> dict[str, Any]:
    """Totals per UTC day and game, newest day first."""
    return reports.daily_report(ctx, days)


@router.get("/players/{username}/sessions")
def list_sessions(ctx: ServicesDep, username: UsernamePath,
                  limit: Annotated[int, Query(ge=1, le=1000)] = 50) -> dict[str, Any]:
    """The player's sessions (logins), newest first (R8)."""
    return {"sessions": session_records.player_sessions(ctx, username, limit)}


@router.get("/sessions/{session_id}")
def reconstruct_session(
        ctx: ServicesDep,
        session_id: Annotated[int, PathParam(gt=0, le=2**63 - 1)],  # a BIGINT key: 422 past it
) -> dict[str, Any]:
    """A session reconstructed from the records (R8): its rounds, money movements and autoplay
    runs in order, the opening and closing balances, and the checks that they agree."""
    return session_records.reconstruct(ctx, session_id)


@router.get("/audit")
def audit(ctx: ServicesDep) -> dict[str, Any]:
    """Check the money invariants: every balance equals its ledger, none negative, pools add up,
    every round matches its ledger entries (bet, win, refund, jackpot: amounts and counts),
    every autoplay run's figures are its rounds', and every hash chain of ledger entries and
    rounds holds (``broken_chains`` names the first broken row of each chain that does not)."""
    with ctx.db.read() as s:
        money = ledger.audit(s)
        played = round_replay.audit_rounds(ctx, s)
        runs = autoplay_runs.audit(s)
        chains = chain_audit.walk(s)
    return {**money, **played, "bad_autoplay_runs": runs, "chains": chains["chains"],
            "broken_chains": chains["broken_chains"],
            "ok": bool(money["ok"]) and not played["bad_rounds"] and not runs
            and bool(chains["ok"])}


@router.post("/maintenance")
def run_maintenance(ctx: ServicesDep) -> dict[str, int]:
    """Run the housekeeping sweep now (auto-complete abandoned rounds, forget old keys)."""
    return maintenance.sweep(ctx)


@router.get("/integrity")
def read_integrity(ctx: ServicesDep) -> dict[str, Any]:
    """The latest software integrity check (R21): each game in or out of play, and the alerts."""
    if ctx.integrity is None:
        raise not_found("no_integrity_check", "the integrity check has not run")
    return ctx.integrity.report()


@router.post("/integrity")
def run_integrity(ctx: ServicesDep) -> dict[str, Any]:
    """Run the software integrity check now (it runs at start-up and every 24 hours)."""
    if ctx.integrity is None:
        raise not_found("no_integrity_check", "the integrity check has not run")
    ctx.integrity.check()
    return ctx.integrity.report()
