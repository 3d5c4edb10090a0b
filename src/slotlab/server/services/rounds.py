"""The money path of a round: start it, continue it with a choice, settle it.

The rest lives by concern: :mod:`.round_view` (a round's public body), :mod:`.round_history`
(history, records, the open round), :mod:`.round_replay` (replay and the round audit),
:mod:`.round_recovery` (auto-completion, start-up recovery, voiding) and
:mod:`.round_operator` (operator wallet mode's credits and sweep).

Money flow with the internal wallet: the round is played first (a pure function of its fresh
seed), then ONE write locks the wallet, checks the key, the live round, the pace, the loss
limits and the funds, debits the bet, adds jackpot contributions, inserts the round and,
unless it waits for a choice, credits the win and completes it: the batched path's writer's
(:mod:`slotlab.ledger`'s statements, through :class:`~slotlab.server.fast_rounds.FastRoundPath`;
:func:`_write_round`, :func:`_write_choice`), the one write of every round start and choice on
the internal wallet, whichever route the request took. So "debit + creation" and "credit +
completion" are each atomic, and no round is ever visible half-paid. With
``split_round_commits`` (the operator-wallet shape) the debit and the round's creation (status
``open``) are the writer's first write and the round is played and settled by a second
(:func:`_settle_opened`); a crash between the two leaves an ``open`` round that
:func:`~.round_recovery.recover` completes from its recorded seed at the next start-up, with
the same write. A round ended before its play did (an admin's void, the better-of rule:
:func:`end_by_writer`) is one write of the writer too. A server does not start without that
writer (``fast_rounds.start``), and a round's money has no other way: no transaction of this
module's own writes it (incident voids, an admin's action, are written in ``round_voids``'
own).

With ``wallet_mode=operator`` (docs/operators.md, "Seamless wallet") the money is the operator's
and round starts go through the operator pipeline (:mod:`slotlab.server.operator_rounds`; one
the app answers is handed to it, :func:`_operator_round`; a free round, with no debit, is
written by the batch writers with its credit's row and paid by that pipeline): the round is
opened and the debit's row written before the debit is sent. A settled round waits in
``crediting`` while its win (zero included; the bet for a voided or refunded round) is sent as
a credit AFTER the settling write. A confirmed credit completes the round; an unconfirmed one
is retried by :func:`~.round_operator.operator_sweep` (start-up and the periodic sweep). The
internal ledger is not touched by operator-mode rounds: the operations log
``operator_wallet_ops`` is their money record.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast

import anyio.from_thread
from sqlalchemy import select
from sqlalchemy.orm import Session

from slotlab.json_text import json_object_with, to_jsonable
from slotlab.ledger.batch import FUNDS, LOSS_LIMIT, PACE, Refused, RoundWrite, Written
from slotlab.rng import Seed
from slotlab.rounds import IllegalBetError, IllegalChoiceError, RoundResult
from slotlab.server import metrics
from slotlab.server.errors import (
    ApiError,
    conflict,
    forbidden,
    insufficient_funds,
    not_found,
    too_fast,
    unprocessable,
)
from slotlab.server.schemas import AutoplayCreate
from slotlab.server.services import autoplay as autoplay_rules
from slotlab.server.services import (
    autoplay_runs,
    demo,
    fairness,
    free_rounds,
    limits,
    profiles,
    reality,
)
from slotlab.server.services import idempotency as idem
from slotlab.server.services.auth import Auth
from slotlab.server.services.catalog import GameEntry, out_of_service
from slotlab.server.services.context import Services
from slotlab.server.services.live_seeds import fresh_seed as fresh_seed  # fast path's too
from slotlab.server.services.round_view import ROUND_ID, cash_cap_of, round_public
from slotlab.store.engine import CommitFailed
from slotlab.store.models import (
    AWAITING_CHOICE,
    LIVE_STATUSES,
    OPEN,
    FreeRoundPackage,
    Player,
    Round,
    Wallet,
    utcnow,
)

if TYPE_CHECKING:
    from slotlab.server.fast_rounds import FastRoundPath

log = logging.getLogger("slotlab.server")


def play(entry: GameEntry, credits: int, seeds: list[bytes], choices: list[str]) -> RoundResult:
    return entry.game.play(credits, seeds, choices)


# ---------------------------------------------------------------------------------------------
# Ending a live round before its play did


def better_of(ctx: Services, round_id: str, notice: bool = True, reason: str | None = None
              ) -> dict[str, Any]:
    """Settle a round that cannot continue: the better of its win so far and a bet refund.
    ``reason`` (why it cannot continue) is kept in the round's notes (``admin_actions``). A
    round no longer live (ended meanwhile) is answered as it is."""
    def better(r: Round, cap: int | None) -> tuple[bool, str]:  # (refunded, outcome)
        refunds = _refund_is_better(r, cap)
        return refunds, "better_of_refund" if refunds else "better_of_win"

    note = None if reason is None else ("round_refused", reason)
    ended = end_by_writer(ctx, round_id, better, note, notice)
    if isinstance(ended, dict):
        return ended
    with ctx.db.read() as s:
        return round_public(ctx, ended, _balance_of(ctx, s, ended.player_id))


def _balance_of(ctx: Services, s: Session, player_id: int) -> int | None:
    """The player's balance in an answer (None in operator-wallet mode: the money is the
    operator's, not the internal wallet's)."""
    if ctx.operator is not None:
        return None
    return s.scalar(select(Wallet.balance).where(Wallet.player_id == player_id))


def _refund_is_better(r: Round, cap: int | None) -> bool:
    """The better-of rule: the bet refunded unless the round's win so far (capped) is more."""
    win = r.win_credits * r.denomination
    return (win if cap is None else min(win, cap)) <= r.bet


def end_by_writer(ctx: Services, round_id: str,
                  decide: Callable[[Round, int | None], tuple[bool, str]],
                  note: tuple[str, str] | None, notice: bool) -> dict[str, Any] | Round:
    """A live round ended by the round writer before its play did (an admin's void, the
    better-of rule: :meth:`~slotlab.server.fast_rounds.FastRoundPath.write_ended`), ``decide``
    saying from the round as read and its cash cap whether it is refunded and its outcome;
    ``note``: its notes' entry. The round as then answered; the round as read where it is no
    longer ``open`` or waiting (ended meanwhile: nothing written). A write that finds the round
    changed since it was read is made again on the round read anew; one that fails raises,
    leaving the round as it was. In operator-wallet mode the write leaves the round
    ``crediting`` with its credit's row (the bet back, or the win so far), and the pipeline
    then sends the credit (:meth:`~slotlab.server.operator_rounds.OperatorRounds.pay_write`:
    confirmed, the round ``cancelled`` or ``completed``; else the sweep carries on)."""
    writer = writer_of(ctx)
    operator = writer.operator
    if not ROUND_ID.fullmatch(round_id):
        raise not_found("unknown_round", f"no round {round_id!r}")
    for _ in range(3):
        username = None
        with ctx.db.read() as s:
            r = s.scalar(select(Round).where(Round.id == round_id))
            if r is None:
                raise not_found("unknown_round", f"no round {round_id!r}")
            if r.status not in (OPEN, AWAITING_CHOICE):
                return r
            refunds, outcome = decide(r, cash_cap_of(ctx, r.game_id, r.currency))
            live = writer.live_of(s, r)
            is_demo = demo.is_demo_player(s, r.player_id)
            if operator is not None:
                username = s.scalar(select(Player.username).where(Player.id == r.player_id))
        if live is None:  # its package gone: only with its (demo) player, rounds and all
            continue
        write, written = writer.call(writer.write_ended, live, refunds, outcome, note, notice,
                                     is_demo, username)
        if isinstance(written, Written):
            return paid_answer(writer, username, write, written)
    raise conflict("concurrent_request", "the round kept changing while it was being ended; "
                   "retry")


def continuable(ctx: Services, r: Round) -> GameEntry | None:
    """The offered game on the round's own model (its variant may no longer be the one
    offered), or None when the game is gone or no known model has the round's hash."""
    entry = ctx.catalog.find(r.game_id, r.currency)
    if entry is None:
        return None
    if entry.game.model_hash == r.model_hash:
        return entry
    game = ctx.catalog.model(r.game_id, r.variant, r.model_hash)
    if game is None:
        return None
    return dataclasses.replace(entry, game=game, variant=r.variant or r.game_id)


# ---------------------------------------------------------------------------------------------
# Starting a round and continuing it


def writer_of(ctx: Services) -> FastRoundPath:
    """The server's round writer, which every round's money goes through (a server whose
    writer cannot start does not start: ``fast_rounds.start``)."""
    if ctx.round_writer is None:
        raise RuntimeError("the server's round writer is not running")
    return ctx.round_writer


def key_owner(auth: Auth) -> str:
    """Whose idempotency keys a player's requests use (keys are unique per owner)."""
    return f"p:{auth.player_id}"


def _stored(ctx: Services, row: Any, default_status: int) -> tuple[int, dict[str, Any]]:
    """The first response for a key (or, while its round is still being settled, its state)."""
    if row.response is not None and row.status_code is not None:
        return row.status_code, row.response
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == row.round_id))
        if r is None:
            raise conflict("request_in_progress", "a request with this key is in progress")
        return default_status, round_public(ctx, r, _balance_of(ctx, s, r.player_id))


def _pace_error(interval: int, last: datetime | None, now: datetime) -> ApiError | None:
    """429 where a round at ``now`` starts less than ``interval`` ms after the player's last."""
    if last is not None:
        wait = last + timedelta(milliseconds=interval) - now
        if wait > timedelta(0):
            return too_fast(f"rounds may start every {interval} ms; retry in "
                            f"{int(wait.total_seconds() * 1000) + 1} ms")
    return None


def _check_pace(interval: int, last: datetime | None, now: datetime) -> None:
    error = _pace_error(interval, last, now)
    if error is not None:
        raise error


def refusal(refused: Refused, bet: int, interval: int, at: datetime) -> ApiError:
    """The error a round start at ``at`` that the ledger's write refused
    (:class:`~slotlab.ledger.batch.Refused`) is answered with: the one this path raises for
    the same state."""
    if refused.reason == PACE:
        error = _pace_error(interval, refused.last_round_at, at)
        assert error is not None, "refused for the pace, yet on time"
        return error
    if refused.reason == LOSS_LIMIT:
        assert refused.limit is not None
        return limits.loss_limit_reached(*refused.limit)
    assert refused.reason == FUNDS, refused
    return insufficient_funds(refused.balance, bet)


@dataclasses.dataclass(frozen=True)
class Played:
    """A round the fast path (server/fast_rounds.py) drew and played but hands to this path,
    because its write failed or found the state changed since its reads: it is written again
    on its own seed, never played again on a new one (a re-draw would let the outcome decide
    which seed counts)."""

    game_id: str
    bet: int
    seed: Seed
    result: RoundResult


PLAYED_SCOPE_KEY = "slotlab.played"  # where the fast path leaves a Played in the ASGI scope


@dataclasses.dataclass(frozen=True)
class PlayedChoice:
    """A choice the fast path (server/fast_choices.py) drew a seed for and played but hands to
    this path (its write failed, or found the round changed): the choice is written again on
    that seed, for the same reason as :class:`Played`'s."""

    round_id: str
    step: int
    choice: str
    seed: Seed


PLAYED_CHOICE_KEY = "slotlab.played_choice"  # where the fast path leaves a PlayedChoice


def start_round(ctx: Services, auth: Auth, game_id: str, bet: int, key: str, req_hash: str,
                free_round_id: int | None = None, autoplay: AutoplayCreate | None = None,
                played: Played | None = None, *, writer: FastRoundPath
                ) -> tuple[int, dict[str, Any]]:
    """A round start, on a worker thread: its checks, its seed and play, then its write, the
    server's round writer's (``writer``: its
    :class:`~slotlab.server.fast_rounds.FastRoundPath`, which every round start goes through:
    :func:`_write_round`; in operator-wallet mode its operator pipeline's,
    :func:`_operator_round`)."""
    started = metrics.clock()
    entry = ctx.catalog.get(game_id, auth.currency)  # the game in the player's currency
    credits = entry.credits_of(bet)
    if credits is None:
        raise unprocessable("bet_not_allowed",
                            f"bet {bet} is not allowed; allowed bets: {entry.bets_minor()}")
    profile = ctx.profile(auth.jurisdiction)
    # The catalogue meets the server's profile; a player under another one may need more.
    if profile.id != ctx.settings.jurisdiction and profiles.below_min_rtp(profile, entry.rtp):
        raise forbidden("rtp_below_minimum",
                        f"{game_id} is not offered under jurisdiction {profile.id}: its RTP is "
                        f"below the minimum {profile.min_rtp}")
    autoplay_rules.check_round(profile, autoplay)  # None: a round the player started
    autoplay_runs.check_round(ctx, auth, game_id, autoplay, key_owner(auth), key, req_hash)
    reality.check_round(ctx, auth)  # a reminder due first: no bet until it is seen
    interval = max(ctx.settings.min_round_interval_ms, profile.min_cycle_ms)
    if ctx.operator is not None:  # a server in this mode runs its writer with the pipeline
        assert writer.operator is not None, "operator-wallet mode with no operator pipeline"
        answer = _operator_round(ctx, writer, auth, key, req_hash, entry, credits, bet,
                                 free_round_id, autoplay, interval)
        metrics.round_latency("general", started)
        return answer
    split = ctx.settings.split_round_commits
    result: RoundResult | None
    if (played is not None and not split
            and (played.game_id, played.bet) == (game_id, bet)):
        seed0, result = played.seed, played.result
    else:
        seed0 = fairness.round_seed(ctx, auth.player_id, auth.jurisdiction, fresh_seed)
        try:
            result = None if split else play(entry, credits, [seed0], [])
        except IllegalBetError as e:
            raise unprocessable("bet_not_allowed", str(e)) from None
    answer = _write_round(ctx, writer, auth, entry, credits, bet, key, req_hash, seed0, result,
                          free_round_id, autoplay)
    metrics.round_latency("general", started)
    return answer


def _write_round(ctx: Services, writer: FastRoundPath, auth: Auth, entry: GameEntry,
                 credits: int, bet: int, key: str, req_hash: str, seed: Seed,
                 result: RoundResult | None, free_round_id: int | None,
                 autoplay: AutoplayCreate | None) -> tuple[int, dict[str, Any]]:
    """A round start on the internal wallet, written by the batched path's writer
    (:meth:`FastRoundPath.write`, on the event loop; everything else here, on this thread: a
    thread waiting for another of the pool could wait for ever): its package and run read
    anew (a copy the batched path kept may be why the round came here), then the write.
    ``result`` None (split commits): the round's opening is written first
    (:meth:`FastRoundPath.write_opening`), then it is played and settled (:func:`_settle_opened`).
    A write that finds the state changed since its reads is made again on state read anew,
    twice at most; a failed one is answered 503 unless its key shows it written."""
    owner = key_owner(auth)
    for _ in range(3):
        try:
            package = None if free_round_id is None else free_rounds.usable(
                ctx, auth.player_id, free_round_id, entry, bet, utcnow())
            run = autoplay_runs.usable(ctx, auth, entry.id, autoplay)
        except (ApiError, LookupError) as e:  # a retry, or a live round, is answered first
            answer = unwritten(ctx, auth, entry, owner, key, req_hash)
            if answer is not None:
                return answer
            if isinstance(e, ApiError):
                raise
            # The run stopped or must stop: its check records the stop and says so.
            autoplay_runs.check_round(ctx, auth, entry.id, autoplay, owner, key, req_hash)
            continue
        ids = writer.read_pool_ids(entry) if entry.progressives else {}
        try:
            if result is None:
                write, outcome = anyio.from_thread.run(writer.write_opening, auth, entry,
                                                       credits, bet, key, req_hash, seed,
                                                       package, run, ids)
            else:
                write, outcome = anyio.from_thread.run(writer.write, auth, entry, credits, bet,
                                                       key, req_hash, seed, result, package,
                                                       run, False, ids)
        except Exception as e:
            return _after_failed_write(ctx, e, owner, key, req_hash, 201)
        if isinstance(outcome, Written) and result is None:
            return 201, _settle_opened(ctx, writer, auth, entry, write, package)
        if isinstance(outcome, Written):
            anyio.from_thread.run_sync(writer.after_write, auth, entry, write, package, run)
            return 201, written_answer(write, outcome)
        if isinstance(outcome, Refused):
            raise refusal(outcome, write.bet, write.pace_ms, write.at)
        anyio.from_thread.run_sync(writer.forget_run, auth, run)
        anyio.from_thread.run_sync(writer.forget_package, auth, package)
        answer = unwritten(ctx, auth, entry, owner, key, req_hash)
        if answer is not None:  # a retry, a key in progress, a live round
            return answer
    raise conflict("concurrent_request", "a concurrent request interfered; retry")


def _settle_opened(ctx: Services, writer: FastRoundPath, auth: Auth, entry: GameEntry,
                   opened: RoundWrite, package: FreeRoundPackage | None) -> dict[str, Any]:
    """Split commits: the round its opening made durable, played on its recorded seed and
    settled by the writer. Where that write is not made the round is answered as it now is:
    changed since (voided, or settled by another process's recovery), or still open, its bet
    taken, where the write failed (left to recovery, :func:`~.round_recovery.recover`, as a
    crash from the opening on leaves it; a retry meanwhile is answered the same)."""
    rid = opened.round_id
    waiting = writer.opened(opened, entry, package)
    try:
        result = play(entry, opened.round_values["bet_credits"], waiting.seeds(), [])
    except Exception:
        log.exception("round %s cannot be played; paying the better of win so far and refund",
                      rid)
        return better_of(ctx, rid)
    ids = writer.read_pool_ids(entry) if entry.progressives else {}
    try:
        settled, outcome = anyio.from_thread.run(writer.settle_open, waiting, result, auth.demo,
                                                 ids)
    except Exception:
        log.warning("round %s: its settling's write failed; recovery settles it", rid,
                    exc_info=True)
        outcome = None
    if isinstance(outcome, Written):
        return written_answer(settled, outcome)
    with ctx.db.read() as s:
        row = idem.lookup(s, opened.owner, str(opened.key), opened.request_hash)
    assert row is not None, "the opening reserved the round's key"
    return _stored(ctx, row, 201)[1]


def written_answer(write: RoundWrite, written: Written) -> dict[str, Any]:
    """A written round's answer: the stored answer with the balance the write left."""
    return cast(dict[str, Any], json.loads(json_object_with(write.response_json,
                                                            balance=str(written.balance))))


def paid_answer(writer: FastRoundPath, username: str | None, write: RoundWrite,
                written: Written) -> dict[str, Any]:
    """The answer of a write no request made (an auto-completion, a recovery, a round's
    end), from the writer's thread's caller; in operator-wallet mode, where it left the round
    ``crediting`` with its credit's row, once the pipeline sent the credit to ``username``
    (:meth:`~slotlab.server.operator_rounds.OperatorRounds.pay_write`; not confirmed, or
    failed: the round as written, its credit left to the sweep)."""
    operator = writer.operator
    if operator is None or username is None or write.credit is None:
        return written_answer(write, written)
    try:
        final = writer.call(operator.pay_write, write.player_id, username, write,
                            written.balance)
    except Exception:
        log.warning("round %s: its credit failed; the sweep sends it", write.round_id,
                    exc_info=True)
        final = None
    return written_answer(write, written) if final is None else final


def _after_failed_write(ctx: Services, error: Exception, owner: str, key: str, req_hash: str,
                        status: int) -> tuple[int, dict[str, Any]]:
    """After a write that raised: its key's answer where its commit landed after all (a
    connection lost after the commit), else 503 (``CommitFailed``): nothing was written."""
    log.warning("a round's write failed", exc_info=error)
    with ctx.db.read() as s:
        row = idem.lookup(s, owner, key, req_hash)
    if row is None:
        raise CommitFailed("the round's write failed") from error
    return _stored(ctx, row, status)


def unwritten(ctx: Services, auth: Auth, entry: GameEntry, owner: str, key: str, req_hash: str
              ) -> tuple[int, dict[str, Any]] | None:
    """Why a round start's write wrote nothing, where that is the player's to hear, in this
    path's order: its key used before (the first answer; 409 for another request, or while
    its round is in progress), the wallet in another currency, a live round (409 with it).
    None: none of these (the state changed under the write: it may be written again)."""
    with ctx.db.read() as s:
        row = idem.lookup(s, owner, key, req_hash)
        wallet = s.execute(select(Wallet.balance, Wallet.currency)
                           .where(Wallet.player_id == auth.player_id)).one_or_none()
        live = None if row is not None else s.scalar(
            select(Round).where(Round.player_id == auth.player_id,
                                Round.status.in_(LIVE_STATUSES)).limit(1))
        live_body = None if live is None or wallet is None else round_public(
            ctx, live, wallet.balance)
    if row is not None:
        return _stored(ctx, row, 201)
    if wallet is None:
        raise not_found("unknown_player", "no wallet for this player")
    if wallet.currency != entry.currency:
        raise conflict("currency_mismatch", f"the wallet holds {wallet.currency}, the bet was "
                       f"checked in {entry.currency}; log in again")
    if live_body is not None:
        raise conflict("round_open", "finish the open round first", round=live_body)
    return None


def stored_play_differs(entry: GameEntry, r: Round) -> str | None:
    """Why the round's record cannot be trusted to continue (None: it re-plays as stored):
    its seeds and choices, played again, must give the stored events. A new code version alone
    is no reason; a changed seed or an engine change under the same model hash is."""
    try:
        again = play(entry, r.bet_credits, [bytes.fromhex(x) for x in r.seeds], list(r.choices))
    except Exception as e:
        return f"the stored round cannot be re-played: {type(e).__name__}: {e}"
    if to_jsonable(list(again.events)) != r.events or again.awaiting is None:
        return "the re-played events differ from the stored ones"
    return None


def _check_choice(ctx: Services, auth: Auth, r: Round | None, round_id: str, step: int,
                  choice: str, balance: int | None) -> None:
    """A choice's checks on its round, in order: the round, the player's, waiting for a
    choice, at the step the choice answers, the choice offered, the game in service."""
    if r is None:
        raise not_found("unknown_round", f"no round {round_id!r}")
    if r.player_id != auth.player_id:
        raise forbidden("not_your_round", "this round belongs to another player")
    if r.status != AWAITING_CHOICE:
        raise conflict("round_not_awaiting_choice", f"the round is {r.status}",
                       round=round_public(ctx, r, balance))
    if step != len(r.choices):
        raise conflict("round_changed",
                       f"the choice answers step {step}; the round is at step "
                       f"{len(r.choices)}", round=round_public(ctx, r, balance))
    options = list((r.awaiting or {}).get("options", []))
    if choice not in options:
        raise unprocessable("illegal_choice",
                            f"choice {choice!r} is not one of {options}")
    if not ctx.catalog.in_service(r.game_id):  # integrity check failed: wait
        raise out_of_service(r.game_id)


def _write_choice(ctx: Services, writer: FastRoundPath, auth: Auth, round_id: str, choice: str,
                  key: str, req_hash: str, step: int, played: PlayedChoice | None
                  ) -> tuple[int, dict[str, Any]]:
    """A choice, written by the batched path's writer
    (:meth:`FastRoundPath.write_choice`) as :func:`_write_round` writes a start: checked as
    :func:`submit_choice` checks it, on the round read without a lock (the write requires it
    unchanged since), played with one new seed (the batched path's, where it drew one),
    written; a round changed under the write is read and checked again (the checks then say
    why), twice at most. In operator-wallet mode a choice that completes its round is written
    ``crediting`` with its credit's row and paid by the operator pipeline (:func:`_paid`), as
    the batched path's is. A round that does not re-play as stored is settled by the
    better-of rule and the choice refused (409 ``round_cannot_continue``)."""
    owner = key_owner(auth)
    seed = (played.seed if played is not None
            and (played.round_id, played.step, played.choice) == (round_id, step, choice)
            else None)
    req = writer.choice_request(round_id, key, choice, step, req_hash)
    for _ in range(3):
        waiting = broken = None
        with ctx.db.read() as s:
            stored = idem.lookup(s, owner, key, req_hash)
            if stored is None:
                r = s.scalar(select(Round).where(Round.id == round_id))
                balance = s.scalar(select(Wallet.balance)
                                   .where(Wallet.player_id == auth.player_id))
                _check_choice(ctx, auth, r, round_id, step, choice, balance)
                assert r is not None
                waiting = writer.waiting_of(s, r)
                if waiting is None:
                    broken = _why_not_continued(ctx, r)
        if stored is not None:
            return _stored(ctx, stored, 200)
        if waiting is None:
            assert broken is not None
            log.error("round %s cannot continue: %s", round_id, broken)
            body = better_of(ctx, round_id, reason=broken)
            raise conflict("round_cannot_continue",
                           f"{broken}; the round was settled by the better-of rule", round=body)
        if seed is None:
            seed = fairness.round_seed(ctx, auth.player_id, auth.jurisdiction, fresh_seed)
        try:
            result = waiting.play(seed, choice)
        except IllegalChoiceError as e:
            raise unprocessable("illegal_choice", str(e)) from None
        ids = writer.read_pool_ids(waiting.entry) if waiting.entry.progressives else {}
        # Operator-wallet mode: a choice that completes the round is the operator's to pay.
        username = (_username(ctx, auth.player_id)
                    if ctx.operator is not None and result.awaiting is None else None)
        try:
            write, outcome = anyio.from_thread.run(writer.write_choice, auth, waiting, req, seed,
                                                   result, username, False, ids)
        except Exception as e:
            return _after_failed_write(ctx, e, owner, key, req_hash, 200)
        if isinstance(outcome, Written):
            anyio.from_thread.run_sync(writer.after_choice, auth, waiting, write)
            if username is None:
                return 200, written_answer(write, outcome)
            return _paid(ctx, writer, auth, username, write, outcome)
    raise conflict("concurrent_request", "a concurrent request interfered; retry")


def _paid(ctx: Services, writer: FastRoundPath, auth: Auth, username: str, write: RoundWrite,
          written: Written) -> tuple[int, dict[str, Any]]:
    """A choice written ``crediting`` with its credit's row (operator-wallet mode): the credit
    sent by the operator pipeline (:meth:`OperatorRounds.pay_written`) and its answer; where
    the sweep took the round over meanwhile, its key's."""
    assert writer.operator is not None and write.key is not None  # a request's write
    final = anyio.from_thread.run(writer.operator.pay_written, auth, username, write,
                                  written.balance)
    if final is not None:
        return 200, final
    with ctx.db.read() as s:
        row = idem.lookup(s, write.owner, write.key, write.request_hash)
    assert row is not None  # written with the choice
    return _stored(ctx, row, 200)


def submit_choice(ctx: Services, auth: Auth, round_id: str, choice: str, key: str,
                  req_hash: str, step: int, played: PlayedChoice | None = None, *,
                  writer: FastRoundPath) -> tuple[int, dict[str, Any]]:
    """Continue a waiting round: the choice played (the re-play is pure and takes
    microseconds) and written by the server's round writer (:func:`_write_choice`).

    ``step`` names the step the choice answers (the choices made so far, the round's
    ``step``); another step is refused with 409 ``round_changed``, so a double click or a
    second tab cannot stake the same win twice. The stored round is re-played first and, if it
    does not give its stored events, settled by the better-of rule (409
    ``round_cannot_continue``)."""
    started = metrics.clock()
    if not ROUND_ID.fullmatch(round_id):
        raise not_found("unknown_round", f"no round {round_id!r}")
    answer = _write_choice(ctx, writer, auth, round_id, choice, key, req_hash, step, played)
    metrics.choice_latency("general", started)
    return answer


def _why_not_continued(ctx: Services, r: Round) -> str:
    """Why a waiting round cannot continue (its record does not re-play, or is gone)."""
    entry = continuable(ctx, r)
    if entry is None:
        return "the game or the round's model is no longer offered"
    return stored_play_differs(entry, r) or "the round's free round package is gone"


# ---------------------------------------------------------------------------------------------
# Operator wallet (wallet_mode=operator): the debit before the round


def _username(ctx: Services, player_id: int) -> str:
    """The player's id at the operator: their slotlab username."""
    with ctx.db.read() as s:
        name = s.scalar(select(Player.username).where(Player.id == player_id))
    if name is None:
        raise not_found("unknown_player", "no such player")
    return name


def _operator_round(ctx: Services, writer: FastRoundPath, auth: Auth, key: str, req_hash: str,
                    entry: GameEntry, credits: int, bet: int, free_round_id: int | None,
                    autoplay: AutoplayCreate | None, interval: int
                    ) -> tuple[int, dict[str, Any]]:
    """Operator-wallet mode, a round start the app answers (the middleware answers none:
    ``SLOTLAB_FAST_ROUNDS=false``, or split commits; or it passed this one on), handed to the
    operator pipeline from this thread as the middleware hands one
    (:meth:`~slotlab.server.fast_rounds.FastRoundPath.serve_handed`): its opening, the
    operator's debit, play, settling and credit; the answer is what it sent. The checks that
    answer with nothing sent (the key used before, a live round, the pace, the loss limits) are
    made first, so that what the pipeline's opening still refuses is a state changed meanwhile:
    answered from the key, else 409 ``concurrent_request`` (a retry meets the state as it then
    is)."""
    owner = key_owner(auth)
    early = _operator_checks(ctx, auth, owner, key, req_hash, bet, interval,
                             limited=free_round_id is None)
    if early is not None:
        return _stored(ctx, early, 201)
    sent, done = anyio.from_thread.run(writer.serve_handed, auth, entry, credits, bet, key,
                                       req_hash, free_round_id, autoplay)
    if done is False:
        return sent.answer()
    with ctx.db.read() as s:
        row = idem.lookup(s, owner, key, req_hash)
    if row is not None:
        return _stored(ctx, row, 201)
    raise conflict("concurrent_request", "a concurrent request interfered; retry")


def _operator_checks(ctx: Services, auth: Auth, owner: str, key: str, req_hash: str, bet: int,
                     interval: int, limited: bool = True) -> Any:
    """Before anything is sent to the operator: the stored key row of a repeated request (None:
    none), once a live round, the pace and (``limited``: a paid round) the loss limits allow
    the bet, each raising its own 409 or 429 (checked again where the round is written; here
    so that a refused bet is never debited)."""
    with ctx.db.read() as s:
        stored = idem.lookup(s, owner, key, req_hash)
        if stored is not None:
            return stored
        live = s.scalar(select(Round).where(Round.player_id == auth.player_id,
                                            Round.status.in_(LIVE_STATUSES)))
        if live is not None:
            raise conflict("round_open", "finish the open round first",
                           round=round_public(ctx, live, None))
        if interval:
            _check_pace(interval, s.scalar(select(Player.last_round_at)
                                           .where(Player.id == auth.player_id)), utcnow())
        if limited:
            limits.check_bet(s, auth.player_id, bet)
    return None


def operator_refusal(bet: int, refused: bool, code: str | None, balance: int | None,
                     message: str | None) -> ApiError:
    """The answer to a debit the operator did not confirm (the batched path's too):
    ``refused``: it declined (402 or 403); else the outcome was unknown and rolled back (503)."""
    if refused:
        if code == "insufficient_funds":
            return ApiError(402, "insufficient_funds",
                            f"the operator refused the bet of {bet}: insufficient funds"
                            + ("" if balance is None else f" (balance {balance})"))
        return ApiError(403, "operator_refused",
                        f"the operator refused the bet: {code} {message or ''}".strip())
    return ApiError(503, "operator_unavailable",
                    "the operator's wallet did not confirm the bet; nothing was taken, retry")
