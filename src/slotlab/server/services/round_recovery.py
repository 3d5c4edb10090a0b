"""Rounds the player left or that cannot go on: auto-completion of abandoned choices, start-up
recovery of debited rounds never played (split commits: settled by the round writer as the
round's own settling would have been,
:meth:`~slotlab.server.fast_rounds.FastRoundPath.settle_open`), and the admin's void (written
by the round writer where it runs, as the better-of rule is:
:func:`~slotlab.server.services.rounds.end_by_writer`).

An auto-completion is written by the server's round writer, as a player's choice is
(:meth:`~slotlab.server.fast_rounds.FastRoundPath.write_auto`): the choices the game's policy
made, the win credited, in one write that requires the round still waiting as read (in
operator-wallet mode the round left ``crediting`` with its credit's row, the credit then sent
by the operator pipeline). Its own transaction writes it where no writer runs (a service used
outside a server: a server does not start without its writer); a round the writer cannot
continue is settled by the better-of rule."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from slotlab import ledger
from slotlab.ledger.batch import Written
from slotlab.rng import Seed
from slotlab.rounds import RoundResult
from slotlab.server.errors import conflict, not_found
from slotlab.server.fast_choices import Steps
from slotlab.server.services import demo, fairness
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.server.services.live_seeds import fresh_seed
from slotlab.server.services.round_operator import debit_confirmed, pay_if_crediting
from slotlab.server.services.round_view import ROUND_ID, round_public, to_jsonable
from slotlab.server.services.rounds import (
    advance_open,
    better_of,
    continuable,
    end_by_writer,
    paid_answer,
    play,
    refund,
    settle,
)
from slotlab.store.models import (
    AWAITING_CHOICE,
    OPEN,
    AdminAction,
    IdempotencyKey,
    Player,
    Round,
    Wallet,
    utcnow,
)

log = logging.getLogger("slotlab.server")
MAX_AUTO_STEPS = 1000


def auto_complete(ctx: Services, round_id: str) -> dict[str, Any] | None:
    """Finish an abandoned round with the game's random choice policy and credit its win: the
    round as it then is, or None where it was not finished (not waiting, its game out of play,
    the player back meanwhile, a write that failed: the next sweep tries again)."""
    writer = ctx.round_writer
    with ctx.db.read() as s:
        r0 = s.scalar(select(Round).where(Round.id == round_id))
        if r0 is None or r0.status != AWAITING_CHOICE or not ctx.catalog.in_service(r0.game_id):
            return None  # (a game out of play keeps its rounds until it is back)
        jurisdiction, username = s.execute(select(Player.jurisdiction, Player.username)
                                           .where(Player.id == r0.player_id)).one()
        is_demo = demo.is_demo_player(s, r0.player_id)
        waiting = None if writer is None else writer.waiting_of(s, r0)
    entry = continuable(ctx, r0)
    try:
        if entry is None:
            raise LookupError("game gone or changed")
        steps, result = _by_policy(ctx, entry, r0, jurisdiction)
    except Exception:
        log.exception("round %s cannot be auto-completed; better-of rule", round_id)
        return better_of(ctx, round_id)
    if writer is None or waiting is None:
        return _auto_complete_tx(ctx, r0, entry, steps, result)
    ids = writer.read_pool_ids(entry) if entry.progressives else {}
    operator = writer.operator  # operator-wallet mode: the operator pays the win
    try:
        write, outcome = writer.call(writer.write_auto, waiting, steps, result, is_demo, ids,
                                     None if operator is None else username)
    except Exception:
        log.warning("round %s: the auto-completion's write failed", round_id, exc_info=True)
        return None
    if not isinstance(outcome, Written):
        return None  # the round changed since it was read: the player came back meanwhile
    return paid_answer(writer, username, write, outcome)


def _by_policy(ctx: Services, entry: GameEntry, r0: Round, jurisdiction: str | None
               ) -> tuple[Steps, RoundResult]:
    """The waiting round ``r0`` played on to its end by the game's random choice policy (each
    policy choice drawn on a seed of its own, each step on a round seed); raises where its
    record does not re-play as stored, or the policy does not finish it."""
    seeds = [bytes.fromhex(x) for x in r0.seeds]
    choices = list(r0.choices)
    result = play(entry, r0.bet_credits, seeds, choices)
    if to_jsonable(list(result.events)) != r0.events:
        raise ValueError("stored events do not replay")
    new_seeds: list[Seed] = []
    new_choices: list[str] = []
    auto_seeds: list[Seed] = []
    while result.awaiting is not None:
        if len(new_choices) >= MAX_AUTO_STEPS:
            raise RuntimeError("auto policy does not finish the round")
        aseed = fresh_seed()
        new_choices.append(entry.game.auto_choice(result, aseed))
        auto_seeds.append(aseed)
        new_seeds.append(fairness.round_seed(ctx, r0.player_id, jurisdiction, fresh_seed))
        result = play(entry, r0.bet_credits, [*seeds, *new_seeds], [*choices, *new_choices])
    return Steps(tuple(new_seeds), tuple(new_choices), "auto_completed", tuple(auto_seeds)), result


def _auto_complete_tx(ctx: Services, r0: Round, entry: GameEntry, steps: Steps,
                      result: RoundResult) -> dict[str, Any] | None:
    """:func:`auto_complete`'s write in its own transaction (where no writer takes it)."""
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, r0.player_id)
        r = s.scalar(select(Round).where(Round.id == r0.id).with_for_update())
        assert r is not None
        if r.status != AWAITING_CHOICE or r.step != r0.step:
            return None  # the player came back meanwhile
        r.seeds = [*r0.seeds, *(x.hex() for x in steps.seeds)]
        r.choices = [*r0.choices, *steps.choices]
        r.auto_seeds = [*r0.auto_seeds, *(x.hex() for x in steps.auto_seeds)]
        settle(ctx, s, entry, r, wallet, result, now, steps.outcome)
        r.notice_pending = True
        body = round_public(ctx, r, wallet.balance)
    return pay_if_crediting(ctx, body)


def expire_awaiting(ctx: Services, player_id: int | None = None) -> int:
    """Auto-complete rounds that waited longer than ``auto_complete_after_s``."""
    cutoff = utcnow() - timedelta(seconds=ctx.settings.auto_complete_after_s)
    with ctx.db.read() as s:
        q = select(Round.id).where(Round.status == AWAITING_CHOICE, Round.updated_at <= cutoff)
        if player_id is not None:
            q = q.where(Round.player_id == player_id)
        ids = list(s.scalars(q))
    done = 0
    for rid in ids:
        if auto_complete(ctx, rid) is not None:
            done += 1
    return done


def recover(ctx: Services, older_than_s: float | None = None) -> int:
    """Finish every debited round that waits for no choice, from its recorded seed: at start-up
    all of them; from the sweep (``older_than_s``) those left that long, by a process that died
    while others serve on. A round another process is finishing meanwhile is finished once: both
    lock it and only one finds it still open."""
    q = select(Round).where(Round.status == OPEN)
    if older_than_s is not None:
        q = q.where(Round.updated_at <= utcnow() - timedelta(seconds=older_than_s))
    with ctx.db.read() as s:
        rows = list(s.scalars(q))
    for r0 in rows:
        if not ctx.catalog.in_service(r0.game_id):  # kept until the game is back in play
            continue
        if not debit_confirmed(ctx, r0, startup=older_than_s is None):
            continue  # operator wallet: never played on a debit not confirmed
        rid = r0.id
        entry = continuable(ctx, r0)
        if entry is None:
            better_of(ctx, rid)
        elif not _recovered_by_writer(ctx, rid, entry):
            advance_open(ctx, rid, entry, outcome="recovered")
            # Fill in the first response for a key left pending by the crash; the player never
            # saw the result: it is shown at their next login.
            with ctx.db.write() as s:
                r = s.scalar(select(Round).where(Round.id == rid))
                if r is not None and r.status != OPEN:
                    r.notice_pending = True
                key_row = s.scalar(select(IdempotencyKey).where(IdempotencyKey.round_id == rid,
                                                                IdempotencyKey.response.is_(None)))
                if r is not None and key_row is not None:
                    balance = s.scalar(select(Wallet.balance)
                                       .where(Wallet.player_id == r.player_id))
                    key_row.status_code = 201
                    key_row.response = round_public(ctx, r, balance)
    return len(rows)


def _recovered_by_writer(ctx: Services, round_id: str, entry: GameEntry) -> bool:
    """An open round settled by the server's round writer, as a split round start's settling
    is (:meth:`~slotlab.server.fast_rounds.FastRoundPath.settle_open`, outcome ``recovered``:
    the player told at their next login, the key its opening reserved answered); False where
    the writer did not (none runs, operator-wallet mode without its pipeline, a round that
    does not play, a write not made): the round's own transaction then settles it, or finds
    it settled.

    In operator-wallet mode (its debit confirmed: :func:`debit_confirmed`; an open round whose
    debit is ``done`` fed the pools already, wherever it was opened: the pipeline marks its
    debit done with its settling, or with its contributions where the general path settles
    it) the round is left ``crediting`` with its credit's row, and its credit is then sent by
    the pipeline (:meth:`~slotlab.server.operator_rounds.OperatorRounds.pay_write`;
    not confirmed, the sweep carries on)."""
    writer = ctx.round_writer
    operator = None if writer is None else writer.operator
    if writer is None or (ctx.operator is not None and operator is None):
        return False
    username = None
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == round_id))
        waiting = None if r is None or r.status != OPEN else writer.as_stored(s, r, entry)
        is_demo = demo.is_demo_player(s, r.player_id) if r is not None else False
        if waiting is not None and operator is not None:
            username = s.scalar(select(Player.username).where(Player.id == waiting.player_id))
    if waiting is None:
        return False
    try:
        result = play(entry, waiting.values["bet_credits"], waiting.seeds(), [])
        ids = writer.read_pool_ids(entry) if entry.progressives else {}
        write, outcome = writer.call(writer.settle_open, waiting, result, is_demo, ids,
                                     "recovered", username)
    except Exception:
        log.warning("round %s: recovery by the writer failed", round_id, exc_info=True)
        return False
    if not isinstance(outcome, Written):
        return False
    paid_answer(writer, username, write, outcome)
    return True


def void_round(ctx: Services, round_id: str) -> dict[str, Any]:
    """Admin: a malfunction voids pays and plays; the bet is refunded, the round cancelled."""
    with ctx.db.read() as s:
        pid = s.scalar(select(Round.player_id).where(Round.id == round_id)) if ROUND_ID.fullmatch(
            round_id) else None
    if pid is None:
        raise not_found("unknown_round", f"no round {round_id!r}")
    body = end_by_writer(ctx, round_id, lambda r, entry: (True, "voided"),
                         ("void_round", ""), notice=True)
    if body is not None:
        return body
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, pid)
        r = s.scalar(select(Round).where(Round.id == round_id).with_for_update())
        assert r is not None
        if r.status not in (OPEN, AWAITING_CHOICE):
            raise conflict("round_not_voidable", f"a {r.status} round cannot be voided")
        refund(s, r, wallet, now, "voided", ctx.operator is not None)
        r.notice_pending = True
        s.add(AdminAction(action="void_round", target=round_id, detail="", created_at=now))
        body = round_public(ctx, r, wallet.balance)
    return pay_if_crediting(ctx, body)
