"""Operator wallet mode, the credit side: a settled round waits in ``crediting`` while its win
(zero included; the bet for a voided or refunded round) is sent as a credit AFTER the settling
transaction. A confirmed credit completes the round; an unconfirmed one is retried by
:func:`operator_sweep` (start-up and the periodic sweep), which also rolls back confirmed debits
whose round was never created. The debit side is on the money path (:mod:`.rounds`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy import exists, select

from slotlab.ledger.operator_rounds import Completion
from slotlab.server.operator_wallet import WalletResult
from slotlab.server.services import autoplay_runs, unpaid_winnings
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import round_public
from slotlab.store.models import (
    CANCELLED,
    COMPLETED,
    CREDITING,
    OPEN,
    REFUND_OUTCOMES,
    AutoplayRun,
    Player,
    Round,
    utcnow,
)
from slotlab.store.operator_wallet import (
    CREDIT,
    DEBIT,
    DONE,
    PENDING,
    OperatorWalletOp,
    credit_txid,
    debit_txid,
)

log = logging.getLogger("slotlab.server")
_OPERATOR_SWEEP = threading.Lock()  # resume_pending must not run concurrently with itself


def _credit_amount(r: Round) -> int:
    if r.outcome in REFUND_OUTCOMES:
        return 0 if r.free_round_id is not None else r.bet
    return r.win + r.jackpot_win


def pay_if_crediting(ctx: Services, body: dict[str, Any]) -> dict[str, Any]:
    """Operator mode: send a ``crediting`` round's credit now; the round as it then is."""
    if ctx.operator is None or body.get("status") != CREDITING:
        return body
    try:
        paid = pay_operator(ctx, body["round_id"])
    except Exception:  # the sweep carries on
        log.exception("credit of round %s failed", body["round_id"])
        paid = None
    return body if paid is None else {**body, **paid}


def pay_operator(ctx: Services, rid: str) -> dict[str, Any] | None:
    """Send (or resend: the transaction id is the round's) the credit of a ``crediting``
    round; the completed round if the operator confirmed it, else None (still crediting)."""
    assert ctx.operator is not None
    with ctx.db.read() as s:
        row = s.execute(select(Round, Player.username)
                        .join(Player, Player.id == Round.player_id)
                        .where(Round.id == rid)).one_or_none()
    if row is None or row[0].status != CREDITING:
        return None
    r, username = row
    res = ctx.operator.credit(username, _credit_amount(r), r.currency, rid)
    if res.status != DONE:
        log.warning("credit of round %s not confirmed (%s): the round stays crediting", rid,
                    res.code)
        return None
    return finish_credit(ctx, rid, res.balance)


def finish_credit(ctx: Services, rid: str, balance: int | None,
                  txid: str | None = None) -> dict[str, Any] | None:
    """The operator confirmed the round's credit (``txid``; default: the round's first), sent
    by the sweep or the adapter's retries: ``crediting`` -> ``completed`` (``cancelled`` for a
    refunded round), its stored answers following, by the operator pipeline's completion write
    (:class:`~slotlab.ledger.operator_rounds.Completion`, as the pipeline completes the rounds
    it credits itself). The round as it then is (None: no such round)."""
    writer, op = ctx.round_writer, ctx.operator
    assert writer is not None and writer.operator is not None, "no operator pipeline"
    assert op is not None and op.store is not None
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == rid))
    if r is None or r.status != CREDITING:
        return None if r is None else round_public(ctx, r, balance)
    txid = txid or credit_txid(rid)
    credit = op.store.get(txid)
    now = utcnow()
    r.status = CANCELLED if r.outcome in REFUND_OUTCOMES else COMPLETED  # the answer's, as
    r.completed_at = now  # the write makes it (r is detached: nothing is written here)
    answer = round_public(ctx, r, balance)
    done = writer.call(writer.operator.completes.submit, Completion(
        r.player_id, rid, txid, now, 1 if credit is None else credit.attempts, balance,
        (None if credit is None else credit.response) or {}, "", None, answer, r.status))
    if done:
        return answer
    with ctx.db.read() as s:  # completed meanwhile by another process
        again = s.scalar(select(Round).where(Round.id == rid))
    return None if again is None else round_public(ctx, again, balance)


def _on_settled(ctx: Services, res: WalletResult, counts: dict[str, int]) -> None:
    if res.kind == CREDIT and res.status == DONE:
        if finish_credit(ctx, res.round_id, res.balance, res.transaction_id) is not None:
            counts["operator_credited"] += 1
    elif res.kind == DEBIT:
        counts["operator_rolled_back"] += 1


def operator_sweep(ctx: Services) -> dict[str, int]:
    """Retry due operator operations (``resume_pending``) and complete their rounds; send the
    credit of ``crediting`` rounds that have none in flight (a crash before it was sent, or
    after it was confirmed); roll back confirmed debits whose round was never created."""
    op = ctx.operator
    assert op is not None and op.store is not None
    counts = {"operator_credited": 0, "operator_rolled_back": 0}
    with _OPERATOR_SWEEP:
        op.resume_pending(on_settled=lambda res: _on_settled(ctx, res, counts))
        with ctx.db.read() as s:
            ids = list(s.scalars(select(Round.id).where(Round.status == CREDITING)
                                 .order_by(Round.seq)))
        for rid in ids:
            if not op.store.round_open(rid) and pay_operator(ctx, rid) is not None:
                counts["operator_credited"] += 1
        cutoff = utcnow() - op.stale_after
        with ctx.db.read() as s:
            orphans = list(s.execute(select(OperatorWalletOp.player_id, OperatorWalletOp.round_id,
                                            OperatorWalletOp.transaction_id).where(
                OperatorWalletOp.kind == DEBIT, OperatorWalletOp.status == DONE,
                OperatorWalletOp.created_at < cutoff,
                ~exists().where(Round.id == OperatorWalletOp.round_id))))
        for player, rid, txid in orphans:
            log.warning("debit %s has no round; rolling it back", txid)
            if op.rollback(player, rid, txid).status == DONE:
                counts["operator_rolled_back"] += 1
        # Winnings unpaid for 24 months are discarded (kept on record, their rounds closed).
        gone = op.store.discard_expired()
        for g in gone:
            unpaid_winnings.close_discarded(ctx, g["round_id"], amount=g["amount"])
        counts["operator_unpaid_discarded"] = len(gone)
    return counts


def withdraw(ctx: Services, rid: str) -> bool:
    """An ``open`` round whose debit the operator did not confirm (refused, or its outcome
    unknown and rolled back): it never took place, as with a bet refused before any write. The
    operator pipeline's write takes it out
    (:meth:`~slotlab.server.operator_rounds.OperatorRounds.withdraw`: the round and its
    reserved idempotency key deleted, a retry with the key asks again; the debit's row stays in
    the operations log; its run's figures without it, the run going on where its opening
    stopped it for a condition it does not meet without it). False: the round was no longer
    open."""
    writer = ctx.round_writer
    assert writer is not None and writer.operator is not None, "no operator pipeline"
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == rid))
        if r is None or r.status != OPEN:
            return False
        run = None if r.autoplay_run_id is None else s.get(AutoplayRun, r.autoplay_run_id)
        resume = autoplay_runs.resumes_without(run, r)
    return writer.call(writer.operator.withdraw, rid, resume)


def debit_confirmed(ctx: Services, r: Round, startup: bool) -> bool:
    """Whether an ``open`` round may be played by recovery: its debit confirmed (or none owed:
    a free round, a round of the internal wallet). The batched path (server/operator_rounds.py)
    writes the round before its debit is sent: a debit cut off by a crash (still ``pending``
    past ``stale_after``, or any at start-up) is rolled back, and a round whose debit was not
    confirmed is withdrawn (:func:`withdraw`). False: not to be played (withdrawn, or its
    debit still in flight)."""
    op = ctx.operator
    if op is None or op.store is None or r.free_round_id is not None:
        return True
    txid = debit_txid(r.id)
    debit = op.store.get(txid)
    if debit is None or debit.status == DONE:
        return True
    if debit.status == PENDING:
        if not startup and debit.created_at > utcnow() - op.stale_after:
            return False  # probably still in flight
        log.warning("debit %s was cut off before its answer; rolling it back", txid)
        op.rollback(debit.player_id, r.id, txid)
        debit = op.store.get(txid)
        if debit is not None and debit.status == DONE:
            return True
    withdraw(ctx, r.id)
    return False
