"""Malfunction voids: "if a technical error occurs ... all of the bets and payments made will be
cancelled". An operator voids the rounds of an incident, completed ones included; every bet and
payment of each round is reversed by NEW movements that name the incident (nothing is deleted).

- Internal wallet: one ``void`` ledger entry per movement of the round (``bet``, ``win``,
  ``jackpot``, ``free_round_win``), ref ``void:<incident>:<the movement's ref>``. The bet comes
  back first; a payment is taken back as far as the balance allows (a balance never goes
  negative): what cannot be taken is the void's ``shortfall`` (status ``partial``), left to the
  operator.
- Operator wallet: the bet goes back as a credit ``<round>:void:<incident>:credit``; the
  payments are taken back by a debit ``<round>:void:<incident>:debit`` of at most the operator's
  balance (the protocol has no reversal of a credit; a debit refused or of unknown outcome is a
  shortfall). Until the credit is confirmed the void is ``pending`` and the maintenance sweep
  carries it on (the transaction ids make every retry one movement).
- A live round (open or waiting for a choice) is voided as before: the bet refunded.

A round is voided once: naming it again (by the same or another incident) moves nothing and
answers ``already_voided`` with the void on record. The round becomes ``cancelled`` (outcome
``incident_void`` for a completed one), and the player sees the void with its reason in the
history (RECALL).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotlab import ledger
from slotlab.server.errors import ApiError, not_found, unprocessable
from slotlab.server.operator_wallet import OperatorError
from slotlab.server.services import autoplay_runs, free_rounds
from slotlab.server.services.context import Services
from slotlab.server.services.round_operator import pay_if_crediting
from slotlab.server.services.round_view import iso, round_public
from slotlab.store.models import (
    AWAITING_CHOICE,
    CANCELLED,
    COMPLETED,
    CREDITING,
    OPEN,
    VOID_DONE,
    VOID_PARTIAL,
    VOID_PENDING,
    AdminAction,
    LedgerEntry,
    Player,
    Round,
    RoundVoid,
    Wallet,
    utcnow,
)
from slotlab.store.operator_wallet import DONE, REFUSED, ROLLED_BACK

log = logging.getLogger("slotlab.server")
INCIDENT_VOID = "incident_void"  # the outcome of a completed round voided for a malfunction
MAX_ROUNDS = 10_000  # rounds per request: a larger incident is voided window by window
_REVERSED = (ledger.BET, ledger.WIN, ledger.JACKPOT, ledger.FREE_ROUND_WIN)
_FINAL_DEBIT = (DONE, REFUSED, ROLLED_BACK, "failed")  # a debit that will not change any more


def void_txid(round_id: str, incident_id: str, kind: str) -> str:
    return f"{round_id}:void:{incident_id}:{kind}"


def void_incident(ctx: Services, incident_id: str, reason: str, *,
                  round_ids: list[str] | None = None, game: str | None = None,
                  start: datetime | None = None, end: datetime | None = None
                  ) -> dict[str, Any]:
    """Void the rounds named (``round_ids``) or those of ``game`` started in [start, end)."""
    ids = _rounds_of(ctx, round_ids, game, start, end)
    results = [void_round(ctx, rid, incident_id, reason) for rid in ids]
    return {"incident_id": incident_id, "reason": reason, "rounds": results,
            "counts": dict(Counter(r["result"] for r in results))}


def _rounds_of(ctx: Services, round_ids: list[str] | None, game: str | None,
               start: datetime | None, end: datetime | None) -> list[str]:
    window = (game, start, end)
    if round_ids is not None:
        if any(x is not None for x in window):
            raise _invalid("name the rounds or a game and a time window, not both")
        ids = list(dict.fromkeys(round_ids))
        with ctx.db.read() as s:
            known = set(s.scalars(select(Round.id).where(Round.id.in_(ids))))
        unknown = [x for x in ids if x not in known]
        if unknown:
            raise not_found("unknown_round", f"no round {unknown[0]!r} (nothing was voided)")
        return ids
    if game is None or start is None or end is None:
        raise _invalid("name the rounds (round_ids) or a game, start and end")
    if not start < end:
        raise _invalid("start must be before end")
    with ctx.db.read() as s:
        ids = list(s.scalars(select(Round.id).where(
            Round.game_id == game, Round.created_at >= start, Round.created_at < end)
            .order_by(Round.seq).limit(MAX_ROUNDS + 1)))
    if len(ids) > MAX_ROUNDS:
        raise _invalid(f"more than {MAX_ROUNDS} rounds in the window: void it in parts",
                       code="too_many_rounds")
    return ids


def _invalid(message: str, code: str = "invalid_void_request") -> ApiError:
    return unprocessable(code, message)


def void_round(ctx: Services, rid: str, incident_id: str, reason: str) -> dict[str, Any]:
    """Void one round for the incident; what became of it (``result``: ``voided``,
    ``partial``, ``pending``, ``already_voided`` or ``skipped`` with ``detail``)."""
    operator = ctx.operator is not None
    with ctx.db.read() as s:
        pid = s.scalar(select(Round.player_id).where(Round.id == rid))
    if pid is None:
        raise not_found("unknown_round", f"no round {rid!r}")
    live_body: dict[str, Any] | None = None
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, pid)
        r = s.scalar(select(Round).where(Round.id == rid).with_for_update())
        assert r is not None
        done = s.scalar(select(RoundVoid).where(RoundVoid.round_id == rid))
        if done is not None:
            return {**void_public(done), "round_id": rid, "result": "already_voided"}
        if r.status == CREDITING:
            return _skipped(rid, "its win is still being credited by the operator's wallet: "
                                 "void it once the credit is confirmed")
        if r.status == CANCELLED:
            return _skipped(rid, "already cancelled: its bet was refunded and nothing paid")
        bet = 0 if r.free_round_id is not None else r.bet
        v = RoundVoid(round_id=rid, incident_id=incident_id, reason=reason,
                      round_status=r.status, bet=bet, paid=0, bet_returned=0, win_reversed=0,
                      shortfall=0, note=None, created_at=now, completed_at=None)
        if r.status in (OPEN, AWAITING_CHOICE):
            _refund_live(s, r, wallet, now, operator)
            v.bet_returned, v.status, v.completed_at = bet, VOID_DONE, now
            live_body = round_public(ctx, r, wallet.balance)
        else:
            assert r.status == COMPLETED
            v.paid = r.win + r.jackpot_win
            if operator:
                v.status = VOID_PENDING
            else:
                _reverse_ledger(s, r, wallet, v, now)
            if r.free_round_id is not None:
                free_rounds.give_back(s, r.free_round_id)
                free_rounds.add_win(s, r.free_round_id, -v.paid)
            r.status, r.outcome = CANCELLED, INCIDENT_VOID
            # What it paid is in the ledger and the void's ``paid``; as a cancelled round it
            # shows no win (so losses, reports and replays count it as voided).
            r.win, r.uncapped_win, r.jackpot_win, r.jackpots = 0, 0, 0, []
            r.updated_at = now
            autoplay_runs.recount(s, r)
        r.notice_pending = True
        s.add(v)
        s.add(AdminAction(action="void_round", target=rid,
                          detail=f"incident {incident_id}: {reason}", created_at=now))
    if live_body is not None:
        pay_if_crediting(ctx, live_body)  # operator wallet: the refund of the bet
    if operator and v.status == VOID_PENDING:
        settle_operator_void(ctx, rid)
    return _result(ctx, rid)


def _refund_live(s: Session, r: Round, wallet: Wallet, now: datetime, operator: bool) -> None:
    """A live round voided in the void's own transaction (its record written with it): its
    bet refunded (a free round: its round back to its package, nothing refunded), the round
    ``cancelled``; in operator-wallet mode left ``crediting`` for the bet's credit (0 for a
    free round, which closes the round there as its win's credit would), which
    ``pay_if_crediting`` then sends; its run's figures without its bet either way."""
    if r.free_round_id is not None:
        free_rounds.give_back(s, r.free_round_id)
    if not operator and r.free_round_id is None:
        ledger.post(s, wallet, r.bet, ledger.REFUND, f"round:{r.id}:refund", round_id=r.id,
                    now=now)
    r.status = CREDITING if operator else CANCELLED
    r.win = 0
    r.awaiting = None
    r.completed_at = None if operator else now
    r.updated_at = now
    r.outcome = "voided"
    autoplay_runs.recount(s, r)  # refunded: not charged, whether ``cancelled`` or ``crediting``


def _skipped(rid: str, detail: str) -> dict[str, Any]:
    return {"round_id": rid, "result": "skipped", "detail": detail}


def _result(ctx: Services, rid: str) -> dict[str, Any]:
    with ctx.db.read() as s:
        v = s.scalar(select(RoundVoid).where(RoundVoid.round_id == rid))
    assert v is not None
    result = {VOID_DONE: "voided", VOID_PARTIAL: "partial"}.get(v.status, v.status)
    return {**void_public(v), "round_id": rid, "result": result}


def _reverse_ledger(s: Session, r: Round, wallet: Wallet, v: RoundVoid, now: datetime) -> None:
    """Internal wallet: a ``void`` entry against each movement of the round: the bet back
    first, then each payment taken back as far as the balance allows."""
    moved = list(s.scalars(select(LedgerEntry).where(
        LedgerEntry.round_id == r.id, LedgerEntry.kind.in_(_REVERSED)).order_by(LedgerEntry.id)))
    for e in sorted(moved, key=lambda e: e.amount > 0):  # credits (bet back) before debits
        amount = -e.amount if e.amount < 0 else -min(e.amount, wallet.balance)
        if amount:
            ledger.post(s, wallet, amount, ledger.VOID, f"void:{v.incident_id}:{e.ref}",
                        round_id=r.id, now=now)
        if e.amount < 0:
            v.bet_returned += amount
        else:
            v.win_reversed -= amount
            v.shortfall += e.amount + amount
    v.status = VOID_PARTIAL if v.shortfall else VOID_DONE
    if v.shortfall:
        v.note = "the balance did not cover the payments: the shortfall was not taken back"
    v.completed_at = now


def settle_operator_void(ctx: Services, rid: str) -> None:
    """Operator wallet: send a pending void's credit (the bet) and then its debit (the
    payments, at most the operator's balance). Safe to repeat: the transaction ids are the
    void's, so the operator applies each once; unconfirmed, the void stays pending."""
    op = ctx.operator
    assert op is not None
    with ctx.db.read() as s:
        row = s.execute(select(RoundVoid, Round.currency, Player.username)
                        .join(Round, Round.id == RoundVoid.round_id)
                        .join(Player, Player.id == Round.player_id)
                        .where(RoundVoid.round_id == rid)).one_or_none()
    if row is None or row[0].status != VOID_PENDING:
        return
    v, currency, username = row
    if v.bet:
        c = op.credit(username, v.bet, currency, rid,
                      transaction_id=void_txid(rid, v.incident_id, "credit"))
        if c.status != DONE:
            _note(ctx, rid, f"the credit of the bet is not confirmed yet ({c.code})")
            return
    taken, note = 0, None
    if v.paid:
        txid = void_txid(rid, v.incident_id, "debit")
        sent = op.store.get(txid) if op.store is not None else None
        if sent is not None:
            amount = sent.amount
        else:
            try:
                amount = min(v.paid, int(op.balance(username)["balance"]))
            except OperatorError as e:
                _note(ctx, rid, f"the operator's balance cannot be read ({e.code})")
                return
        if amount > 0:
            d = op.debit(username, amount, currency, rid, transaction_id=txid)
            if d.status not in _FINAL_DEBIT:
                _note(ctx, rid, f"the debit of the payments is being rolled back ({d.code})")
                return
            taken = amount if d.status == DONE else 0
            if d.status != DONE:
                note = f"the operator did not take the payments back ({d.status}: {d.code})"
        if taken < v.paid and note is None:
            note = "the operator's balance did not cover the payments"
    with ctx.db.write() as s:
        w = s.scalar(select(RoundVoid).where(RoundVoid.round_id == rid).with_for_update())
        assert w is not None
        w.bet_returned, w.win_reversed, w.shortfall = w.bet, taken, w.paid - taken
        w.status = VOID_PARTIAL if w.shortfall else VOID_DONE
        w.note, w.completed_at = note, utcnow()


def _note(ctx: Services, rid: str, note: str) -> None:
    log.warning("void of round %s: %s", rid, note)
    with ctx.db.write() as s:
        w = s.scalar(select(RoundVoid).where(RoundVoid.round_id == rid))
        if w is not None:
            w.note = note


def resume_pending(ctx: Services) -> int:
    """The sweep: carry on operator-wallet voids not yet confirmed; how many were settled."""
    if ctx.operator is None:
        return 0
    with ctx.db.read() as s:
        ids = list(s.scalars(select(RoundVoid.round_id).where(RoundVoid.status == VOID_PENDING)
                             .order_by(RoundVoid.id)))
    for rid in ids:
        settle_operator_void(ctx, rid)
    with ctx.db.read() as s:
        return int(len(ids) - len(list(s.scalars(select(RoundVoid.id).where(
            RoundVoid.round_id.in_(ids), RoundVoid.status == VOID_PENDING)))))


def void_public(v: RoundVoid) -> dict[str, Any]:
    return {"incident_id": v.incident_id, "reason": v.reason, "status": v.status,
            "bet_returned": v.bet_returned, "win_reversed": v.win_reversed,
            "shortfall": v.shortfall, "note": v.note, "voided_at": iso(v.created_at)}


def voids_of(s: Session, round_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The voids on record of these rounds, by round id."""
    ids = list(round_ids)
    if not ids:
        return {}
    return {v.round_id: void_public(v)
            for v in s.scalars(select(RoundVoid).where(RoundVoid.round_id.in_(ids)))}


def incident(ctx: Services, incident_id: str) -> dict[str, Any]:
    """The voids of one incident, oldest first."""
    with ctx.db.read() as s:
        rows = list(s.scalars(select(RoundVoid).where(RoundVoid.incident_id == incident_id)
                              .order_by(RoundVoid.id)))
    if not rows:
        raise not_found("unknown_incident", f"no round was voided for incident {incident_id!r}")
    return {"incident_id": incident_id,
            "rounds": [{**void_public(v), "round_id": v.round_id} for v in rows]}
