"""Replay and audit of rounds: what a round decided, checked against its record and its money.

Replay plays a finished round again from its recorded seeds and choices and compares all it
decided with the record: the events, the win (with today's cash cap), the uncapped win and the
jackpot tiers won, every movement of money the round made, and whether the round's row and its
ledger entries still match their hash-chain digests (slotlab.store.chain). The audit ties
every round to its ledger entries (bet, win, refund, jackpot: amounts and counts) in one
statement, so a concurrent round is seen whole or not at all.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import case, exists, func, select
from sqlalchemy.orm import Session

from slotlab import CODE_VERSION, ledger
from slotlab.json_text import to_jsonable
from slotlab.ledger import chain_audit
from slotlab.rounds import replay
from slotlab.server.errors import conflict, not_found
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.server.services.round_history import round_record
from slotlab.server.services.round_view import cash_cap_of
from slotlab.server.services.round_voids import INCIDENT_VOID
from slotlab.server.services.unpaid_winnings import DISCARDED
from slotlab.store.models import (
    AWAITING_CHOICE,
    CANCELLED,
    COMPLETED,
    CREDITING,
    OPEN,
    REFUND_OUTCOMES,
    LedgerEntry,
    Round,
    RoundVoid,
)
from slotlab.store.operator_wallet import CREDIT, DEBIT, DONE, ROLLBACK, OperatorWalletOp

log = logging.getLogger("slotlab.server")


def replay_round(ctx: Services, auth: Auth | None, round_id: str) -> dict[str, Any]:
    rec = round_record(ctx, auth, round_id)
    if rec["seeds"] is None:
        raise conflict("round_not_finished", "a round can be replayed once it is over")
    if rec["events"] == [] and rec["status"] == CANCELLED:
        raise conflict("round_not_played", "this round was cancelled before it was played")
    entry = ctx.catalog.find(rec["game"])
    # The round's own model (found by its variant and hash); else the one offered now, which
    # shows the difference.
    game = ctx.catalog.model(rec["game"], rec["variant"], rec["model_hash"])
    if game is None:
        if entry is None:
            raise not_found("unknown_game", f"game {rec['game']!r} is no longer offered")
        game = entry.game
    current = entry.game.model_hash if entry is not None else game.model_hash
    events = win_credits = win = uncapped = tiers = error = None
    try:  # a damaged record (a seed that is not hex, a choice the game refuses) does not replay
        seeds = [bytes.fromhex(x) for x in rec["seeds"]]
        _, result = replay(game, rec["bet_credits"], seeds, rec["choices"], rec["events"])
        events = to_jsonable(list(result.events))
        win_credits = int(result.win)
        win, uncapped, tiers = _decided_money(ctx, rec, win_credits, list(result.jackpots))
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
        log.warning("replay of %s failed: %s", round_id, error)
    hash_ok = game.model_hash == rec["model_hash"]
    same = events == rec["events"]
    money_ok = (win == rec["win"] and uncapped == rec["uncapped_win"]
                and tiers == [j["tier"] for j in rec["jackpots"]])
    at_operator, moved = _moved(ctx, rec)
    with ctx.db.read() as s:
        tampered = chain_audit.round_record_problems(s, rec["round_id"])
    # A void or a discard added movements of its own: the audit checks those against its record.
    paid_ok = (None if rec["outcome"] in (INCIDENT_VOID, DISCARDED)
               else win is not None and moved == _movements(rec, win, at_operator))
    return {
        "round_id": rec["round_id"],
        "identical": same and money_ok and paid_ok is not False and hash_ok and not tampered,
        "events_identical": same,
        "win_identical": money_ok,
        # Every movement of money the round made (ledger entries, or the operator's confirmed
        # debits and credits) is the one its replayed outcome calls for.
        "payments_identical": paid_ok,
        "payments": moved,
        # The round's row and its ledger entries still match their hash-chain digests.
        "record_intact": not tampered,
        "record_problems": tampered,
        "model_hash_matches": hash_ok,  # replayed on the model the round was played on
        "recorded_model_hash": rec["model_hash"],
        "replayed_model_hash": game.model_hash,
        "current_model_hash": current,  # the model the game is offered on now
        "variant": rec["variant"],
        "code_version": CODE_VERSION,
        "win_credits": win_credits,
        "win": win,
        "uncapped_win": uncapped,
        "jackpots": tiers,
        "error": error,
        "events": events,
    }


def _movements(rec: dict[str, Any], win: int, at_operator: bool) -> list[list[Any]]:
    """The money a finished round must have moved for a replayed win of ``win``, as sorted
    ``[kind, amount]`` pairs: on the internal ledger its bet, its win (a free round's as such)
    and each jackpot, or its refund; at an operator its debit and its one credit."""
    free = rec["free_round_id"] is not None
    bet = [] if free else [[ledger.BET, -rec["bet"]]]
    jackpot_win = sum(int(j.get("amount") or 0) for j in rec["jackpots"])
    if at_operator:
        debit = [] if free else [[DEBIT, rec["bet"]]]
        if rec["status"] == CREDITING:
            return debit
        refund = rec["outcome"] in REFUND_OUTCOMES
        return sorted([*debit, [CREDIT, (0 if free else rec["bet"]) if refund
                                else win + jackpot_win]])
    if rec["status"] == CANCELLED:
        return sorted([*bet, *([] if free else [[ledger.REFUND, rec["bet"]]])])
    wins = [[ledger.FREE_ROUND_WIN if free else ledger.WIN, win]] if win else []
    jackpots = [[ledger.JACKPOT, int(j["amount"])] for j in rec["jackpots"] if j.get("amount")]
    return sorted([*bet, *wins, *jackpots])


def _moved(ctx: Services, rec: dict[str, Any]) -> tuple[bool, list[list[Any]]]:
    """Whether the round's money was the operator's, and what it moved, as :func:`_movements`
    lists it: its ledger entries, or the operator's confirmed debits and credits."""
    with ctx.db.read() as s:
        ops = s.execute(select(OperatorWalletOp.kind, OperatorWalletOp.amount,
                               OperatorWalletOp.status)
                        .where(OperatorWalletOp.round_id == rec["round_id"])).all()
    if not ops and (ctx.operator is None or rec["ledger"]):
        return False, sorted([[e["kind"], e["amount"]] for e in rec["ledger"]])
    return True, sorted([[kind, amount] for kind, amount, status in ops
                         if status == DONE and kind in (DEBIT, CREDIT)])


def _decided_money(ctx: Services, rec: dict[str, Any], win_credits: int, tiers: list[str]
                   ) -> tuple[int, int, list[str]]:
    """(win, uncapped win, jackpot tiers) the record must show for the replayed result."""
    if rec["status"] == CANCELLED:  # voided or refunded: nothing won, the bet went back
        return 0, 0, []
    uncapped = win_credits * rec["denomination"]
    cap = cash_cap_of(ctx, rec["game"], rec["currency"])
    win = uncapped if cap is None else min(uncapped, cap)
    if rec["outcome"] == DISCARDED:  # incomplete for 24 months: its winnings were not paid
        return 0, uncapped, []
    # The better-of rule pays the win so far of a round that stopped: no jackpot is awarded.
    return win, uncapped, [] if rec["outcome"] == "better_of_win" else tiers


def _kind(kind: str) -> tuple[Any, Any]:
    L = LedgerEntry
    return (func.sum(case((L.kind == kind, 1), else_=0)).label(f"{kind}_n"),
            func.sum(case((L.kind == kind, L.amount), else_=0)).label(f"{kind}_sum"))


_KINDS = (ledger.BET, ledger.WIN, ledger.FREE_ROUND_WIN, ledger.REFUND, ledger.JACKPOT, ledger.VOID,
          ledger.UNPAID_DISCARDED)
_PAYMENTS = (ledger.WIN, ledger.FREE_ROUND_WIN, ledger.JACKPOT)


def audit_rounds(ctx: Services, s: Session) -> dict[str, Any]:
    """Every round against its ledger entries and its own figures; entries naming no round."""
    L = LedgerEntry
    moved = (select(L.round_id, func.count().label("entries"),
                    *[c for k in _KINDS for c in _kind(k)])
             .where(L.round_id.is_not(None)).group_by(L.round_id).subquery())
    operator = exists().where(OperatorWalletOp.round_id == Round.id).label("operator")
    at_operator = _operator_moves()
    rows = s.execute(
        select(Round.id, Round.status, Round.outcome, Round.bet, Round.win, Round.uncapped_win,
               Round.win_credits, Round.denomination, Round.jackpot_win, Round.jackpots,
               Round.free_round_id, operator, moved,
               RoundVoid.paid.label("void_paid"), RoundVoid.shortfall.label("void_shortfall"),
               *[c for c in at_operator.c if c.key != "round_id"])
        .outerjoin(moved, moved.c.round_id == Round.id)
        .outerjoin(RoundVoid, RoundVoid.round_id == Round.id)
        .outerjoin(at_operator, at_operator.c.round_id == Round.id)
        .order_by(Round.seq)).mappings()
    bad, count = [], 0
    for row in rows:
        count += 1
        problems = _round_problems(ctx, row)
        if problems:
            bad.append({"round_id": row["id"], "problems": problems})
    orphans = list(s.scalars(select(L.round_id).distinct().where(
        L.round_id.is_not(None), ~exists().where(Round.id == L.round_id))))
    bad.extend({"round_id": rid, "problems": ["ledger entries name no round"]}
               for rid in orphans)
    return {"rounds": count, "bad_rounds": bad}


def _operator_moves() -> Any:
    """Per round, what the operator confirmed (operations log): debits, credits, rollbacks."""
    op = OperatorWalletOp

    def confirmed(kind: str) -> list[Any]:
        done = (op.kind == kind) & (op.status == DONE)
        return [func.count(case((done, 1))).label(f"op_{kind}_n"),
                func.coalesce(func.sum(case((done, op.amount), else_=0)), 0)
                .label(f"op_{kind}_sum")]

    return (select(op.round_id, *confirmed(DEBIT), *confirmed(CREDIT), *confirmed(ROLLBACK))
            .where(op.transaction_id.not_like("%:void:%"))  # an incident void's are its own
            .group_by(op.round_id).subquery())


def _operator_problems(row: Any) -> list[str]:
    """An operator-wallet round against the movements the operator confirmed: its bet debited
    once (none for a free round) and never rolled back, and once settled its one credit: the win
    and jackpots, or the bet given back for a refunded round."""
    problems = []
    free, bet, status = row["free_round_id"] is not None, row["bet"], row["status"]
    debits = (int(row["op_debit_n"] or 0), int(row["op_debit_sum"] or 0))
    if debits != ((0, 0) if free else (1, bet)):
        problems.append(f"operator debits: {debits[0]} of {debits[1]}, expected "
                        f"{0 if free else 1} of {0 if free else bet}")
    if row["op_rollback_n"]:
        problems.append("the operator confirmed a rollback of the round's debit")
    credits = (int(row["op_credit_n"] or 0), int(row["op_credit_sum"] or 0))
    if status in (COMPLETED, CANCELLED):
        refund = row["outcome"] in REFUND_OUTCOMES
        amount = ((0 if free else bet) if refund
                  else int(row["void_paid"] or 0) if row["outcome"] == INCIDENT_VOID
                  else row["win"] + row["jackpot_win"])
        if credits != (1, amount):
            problems.append(f"operator credits: {credits[0]} of {credits[1]}, expected 1 of "
                            f"{amount}")
    elif credits[0]:
        problems.append(f"a {status} round was credited at the operator")
    return problems


def _round_problems(ctx: Services, row: Any) -> list[str]:
    got = {k: (int(row[f"{k}_n"] or 0), int(row[f"{k}_sum"] or 0)) for k in _KINDS}
    entries = int(row["entries"] or 0)
    status, bet, win, free = row["status"], row["bet"], row["win"], row["free_round_id"]
    jackpots = list(row["jackpots"] or [])
    problems = []
    # The round's own figures.
    if row["jackpot_win"] != sum(int(j.get("amount", 0)) for j in jackpots):
        problems.append("jackpot_win is not the sum of the jackpots won")
    if status in (COMPLETED, CREDITING):
        if row["uncapped_win"] != row["win_credits"] * row["denomination"]:
            problems.append("uncapped_win is not win_credits x denomination")
        if not 0 <= win <= row["uncapped_win"]:
            problems.append("win is above the uncapped win (or negative)")
    elif win or row["jackpot_win"]:
        problems.append(f"a {status} round shows a win")
    # Operator-wallet rounds move money at the operator (operator_wallet_ops), not here.
    if row["operator"] or (ctx.operator is not None and free is not None and not entries):
        if entries:
            problems.append("an operator-wallet round has ledger entries")
        return problems + _operator_problems(row)
    if row["outcome"] == INCIDENT_VOID and status == CANCELLED:
        return problems + _void_problems(row, got, entries)
    paid = status == COMPLETED
    discarded = row["outcome"] == DISCARDED
    want = {
        ledger.BET: (0, 0) if free is not None else (1, -bet),
        ledger.WIN: (1, win) if paid and win and free is None else (0, 0),
        ledger.FREE_ROUND_WIN: (1, win) if paid and win and free is not None else (0, 0),
        ledger.REFUND: (1, bet) if status == CANCELLED and free is None else (0, 0),
        ledger.JACKPOT: ((sum(1 for j in jackpots if j.get("amount")), row["jackpot_win"])
                         if paid else (0, 0)),
        ledger.VOID: (0, 0),
        ledger.UNPAID_DISCARDED: (1, 0) if discarded else (0, 0),
    }
    if status not in (OPEN, AWAITING_CHOICE, COMPLETED, CANCELLED):
        problems.append(f"status {status!r} without an operator wallet")
    for k in _KINDS:
        if got[k] != want[k]:
            problems.append(f"{k} entries: {got[k][0]} of {got[k][1]}, expected "
                            f"{want[k][0]} of {want[k][1]}")
    if entries != sum(n for n, _ in got.values()):
        problems.append("ledger entries of another kind")
    return problems


def _void_problems(row: Any, got: dict[str, tuple[int, int]], entries: int) -> list[str]:
    """A completed round voided for a malfunction: its bet and payments stay in the ledger, the
    ``void`` entries reverse them, and all of it adds up to the shortfall not taken back."""
    problems = []
    if row["void_paid"] is None:
        return ["an incident-voided round without its void record"]
    if got[ledger.BET] != ((0, 0) if row["free_round_id"] is not None else (1, -row["bet"])):
        problems.append(f"bet entries: {got[ledger.BET][0]} of {got[ledger.BET][1]}")
    paid = sum(got[k][1] for k in _PAYMENTS)
    if paid != row["void_paid"]:
        problems.append(f"payments of {paid} in the ledger, the void reversed {row['void_paid']}")
    total = sum(amount for _, amount in got.values())
    if total != row["void_shortfall"] or row["void_shortfall"] < 0:
        problems.append(f"the round's entries add up to {total}, not the void's shortfall "
                        f"{row['void_shortfall']}")
    if got[ledger.REFUND][0] or got[ledger.UNPAID_DISCARDED][0]:
        problems.append("refund or discard entries on a voided round")
    if entries != sum(n for n, _ in got.values()):
        problems.append("ledger entries of another kind")
    return problems
