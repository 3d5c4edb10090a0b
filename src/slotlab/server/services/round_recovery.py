"""Rounds the player left or that cannot go on: auto-completion of abandoned choices, start-up
recovery of debited rounds never played (split commits: settled by the round writer as the
round's own settling would have been,
:meth:`~slotlab.server.fast_rounds.FastRoundPath.settle_open`), and the admin's void (written
by the round writer, as the better-of rule is:
:func:`~slotlab.server.services.rounds.end_by_writer`).

An auto-completion is written by the server's round writer, as a player's choice is
(:meth:`~slotlab.server.fast_rounds.FastRoundPath.write_auto`): the choices the game's policy
made, the win credited, in one write that requires the round still waiting as read (in
operator-wallet mode the round left ``crediting`` with its credit's row, the credit then sent
by the operator pipeline); a round that cannot be played on is settled by the better-of
rule."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from slotlab.json_text import to_jsonable
from slotlab.ledger.batch import Written
from slotlab.rng import Seed
from slotlab.rounds import RoundResult
from slotlab.server.errors import conflict
from slotlab.server.fast_choices import Steps
from slotlab.server.services import demo, fairness
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.server.services.live_seeds import fresh_seed
from slotlab.server.services.round_operator import debit_confirmed
from slotlab.server.services.rounds import (
    better_of,
    continuable,
    end_by_writer,
    paid_answer,
    play,
    writer_of,
)
from slotlab.store.models import (
    AWAITING_CHOICE,
    OPEN,
    Player,
    Round,
    utcnow,
)

log = logging.getLogger("slotlab.server")
MAX_AUTO_STEPS = 1000


def auto_complete(ctx: Services, round_id: str) -> dict[str, Any] | None:
    """Finish an abandoned round with the game's random choice policy and credit its win: the
    round as it then is, or None where it was not finished (not waiting, its game out of play,
    the player back meanwhile, a write that failed: the next sweep tries again)."""
    writer = writer_of(ctx)
    with ctx.db.read() as s:
        r0 = s.scalar(select(Round).where(Round.id == round_id))
        if r0 is None or r0.status != AWAITING_CHOICE or not ctx.catalog.in_service(r0.game_id):
            return None  # (a game out of play keeps its rounds until it is back)
        jurisdiction, username = s.execute(select(Player.jurisdiction, Player.username)
                                           .where(Player.id == r0.player_id)).one()
        is_demo = demo.is_demo_player(s, r0.player_id)
        waiting = writer.waiting_of(s, r0)
    try:
        if waiting is None:
            raise LookupError("its game or model is gone, its record does not re-play, or its "
                              "free round's package is gone")
        steps, result = _by_policy(ctx, waiting.entry, r0, jurisdiction)
    except Exception:
        log.exception("round %s cannot be auto-completed; better-of rule", round_id)
        return better_of(ctx, round_id)
    entry = waiting.entry
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
    done = 0
    for r0 in rows:
        if not ctx.catalog.in_service(r0.game_id):  # kept until the game is back in play
            continue
        if not debit_confirmed(ctx, r0, startup=older_than_s is None):
            continue  # operator wallet: never played on a debit not confirmed
        entry = continuable(ctx, r0)
        if entry is None:
            better_of(ctx, r0.id)
            done += 1
        elif _settle_recovered(ctx, r0.id, entry):
            done += 1
    return done


def _settle_recovered(ctx: Services, round_id: str, entry: GameEntry) -> bool:
    """An open round settled by the server's round writer, as a split round start's settling
    is (:meth:`~slotlab.server.fast_rounds.FastRoundPath.settle_open`, outcome ``recovered``:
    the player told at their next login, the key its opening reserved answered); one that
    cannot be played (a defect), or whose free round's package is gone, by the better-of
    rule. False where it was not settled here: settled meanwhile by another process, or a
    write that failed (the next sweep tries again).

    In operator-wallet mode (its debit confirmed: :func:`debit_confirmed`; the pipeline marks a
    debit done only in the write that settles its round, with a max bet's contributions) the
    round is left ``crediting`` with its credit's row, and its credit is
    then sent by the pipeline (:meth:`~slotlab.server.operator_rounds.OperatorRounds.pay_write`;
    not confirmed, the sweep carries on)."""
    writer = writer_of(ctx)
    operator = writer.operator
    username = None
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == round_id))
        if r is None or r.status != OPEN:
            return False
        waiting = writer.as_stored(s, r, entry)
        is_demo = demo.is_demo_player(s, r.player_id)
        if operator is not None:
            username = s.scalar(select(Player.username).where(Player.id == r.player_id))
    try:
        if waiting is None:
            raise LookupError("the round's free round package is gone")
        result = play(entry, waiting.values["bet_credits"], waiting.seeds(), [])
    except Exception:
        log.exception("round %s cannot be played; paying the better of win so far and refund",
                      round_id)
        better_of(ctx, round_id)
        return True
    ids = writer.read_pool_ids(entry) if entry.progressives else {}
    try:
        write, outcome = writer.call(writer.settle_open, waiting, result, is_demo, ids,
                                     "recovered", username)
    except Exception:
        log.warning("round %s: its recovery's write failed", round_id, exc_info=True)
        return False
    if not isinstance(outcome, Written):
        return False
    paid_answer(writer, username, write, outcome)
    return True


def void_round(ctx: Services, round_id: str) -> dict[str, Any]:
    """Admin: a malfunction voids pays and plays; the bet is refunded, the round cancelled
    (409 ``round_not_voidable`` for a round no longer ``open`` or waiting)."""
    ended = end_by_writer(ctx, round_id, lambda r, cap: (True, "voided"), ("void_round", ""),
                          notice=True)
    if isinstance(ended, Round):
        raise conflict("round_not_voidable", f"a {ended.status} round cannot be voided")
    return ended
