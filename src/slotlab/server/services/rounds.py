"""Rounds: start, continue, auto-complete, recover, void; history, records and replay.

Money flow with the internal wallet: the round is played first (a pure function of its fresh
seed), then ONE write transaction locks the wallet, reserves the idempotency key, debits the bet,
adds jackpot contributions, inserts the round and, unless it waits for a choice, credits the win
and completes it. So "debit + creation" and "credit + completion" are each atomic, and no round
is ever visible half-paid. With ``split_round_commits`` (the operator-wallet shape) the debit and
the round's creation (status ``open``) commit first and the round is played and settled in a
second transaction; a crash between the two leaves an ``open`` round that :func:`recover`
completes from its recorded seed at the next start-up.

With ``wallet_mode=operator`` (docs/operators.md, "Seamless wallet") the money is the operator's:
the bet is debited at the operator (:class:`~slotlab.server.operator_wallet.OperatorWallet`)
BEFORE the round's write transaction, and rolled back if the round is then not created; the
round is always played with split commits and, once settled, waits in ``crediting`` while its
win (zero included; the bet for a voided or refunded round) is sent as a credit AFTER the
settling transaction. A confirmed credit completes the round; an unconfirmed one is retried by
:func:`operator_sweep` (start-up and the periodic sweep). The internal ledger is not touched
by operator-mode rounds: the operations log ``operator_wallet_ops`` is their money record.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, exists, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from slotlab import CODE_VERSION
from slotlab.rng import Seed, fresh_seed
from slotlab.rounds import IllegalBetError, IllegalChoiceError, RoundResult, replay
from slotlab.server.errors import (
    ApiError,
    conflict,
    forbidden,
    not_found,
    too_fast,
    unprocessable,
)
from slotlab.server.operator_wallet import WalletResult
from slotlab.server.operator_wallet_store import (
    CREDIT,
    DEBIT,
    DONE,
    REFUSED,
    OperatorWalletOp,
)
from slotlab.server.services import free_rounds, jackpots, ledger, profiles
from slotlab.server.services import idempotency as idem
from slotlab.server.services.auth import Auth
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.store.models import (
    AWAITING_CHOICE,
    CANCELLED,
    COMPLETED,
    CREDITING,
    LIVE_STATUSES,
    OPEN,
    AdminAction,
    IdempotencyKey,
    LedgerEntry,
    Player,
    Round,
    Wallet,
    utcnow,
)

log = logging.getLogger("slotlab.server")
_ROUND_ID = re.compile(r"[0-9a-f]{32}")
MAX_AUTO_STEPS = 1000
_REFUND_OUTCOMES = ("voided", "better_of_refund")  # operator mode: the credit is the bet
_OPERATOR_SWEEP = threading.Lock()  # resume_pending must not run concurrently with itself


# ---------------------------------------------------------------------------------------------
# Rendering


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    raise TypeError(f"not JSON: {type(o).__name__}")


def to_jsonable(x: Any) -> Any:
    """Plain JSON values (tuples become lists), as the database will give them back."""
    return json.loads(json.dumps(x, default=_json_default))


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def _win_now(ctx: Services, r: Round) -> int:
    if r.status in (COMPLETED, CANCELLED):
        return r.win
    win = r.win_credits * r.denomination
    cap = ctx.settings.cash_cap()
    return win if cap is None else min(win, cap)


def round_public(ctx: Services, r: Round, balance: int | None) -> dict[str, Any]:
    return {
        "round_id": r.id,
        "game": r.game_id,
        "status": r.status,
        "bet": r.bet,
        "bet_credits": r.bet_credits,
        "denomination": r.denomination,
        "currency": r.currency,
        "win": _win_now(ctx, r),
        "jackpots": list(r.jackpots or []),
        "jackpot_win": r.jackpot_win,
        "balance": balance,
        "awaiting": r.awaiting,
        "events": list(r.events or []),
        "model_hash": r.model_hash,
        "variant": r.variant or r.game_id,
        "outcome": r.outcome,
        "free_round_id": r.free_round_id,
        "created_at": _iso(r.created_at),
        "completed_at": _iso(r.completed_at),
    }


def round_summary(ctx: Services, r: Round) -> dict[str, Any]:
    return {
        "round_id": r.id,
        "game": r.game_id,
        "model_hash": r.model_hash,
        "variant": r.variant or r.game_id,
        "bet": r.bet,
        "win": _win_now(ctx, r),
        "jackpot_win": r.jackpot_win,
        "status": r.status,
        "outcome": r.outcome,
        "created_at": _iso(r.created_at),
        "completed_at": _iso(r.completed_at),
    }


# ---------------------------------------------------------------------------------------------
# Settling (inside a write transaction, wallet locked)


def _play(entry: GameEntry, credits: int, seeds: list[bytes], choices: list[str]) -> RoundResult:
    return entry.game.play(credits, seeds, choices)


def _settle(ctx: Services, s: Session, entry: GameEntry | None, r: Round, wallet: Wallet,
            result: RoundResult, now: datetime, outcome: str | None = None) -> None:
    r.events = to_jsonable(list(result.events))
    r.win_credits = int(result.win)
    r.updated_at = now
    r.step += 1
    if result.awaiting is not None:
        r.status = AWAITING_CHOICE
        r.awaiting = to_jsonable(result.awaiting.to_json())
        return
    _complete(ctx, s, entry, r, wallet, list(result.jackpots), now, outcome)


def _complete(ctx: Services, s: Session, entry: GameEntry | None, r: Round, wallet: Wallet,
              tiers: list[str], now: datetime, outcome: str | None) -> None:
    win = r.win_credits * r.denomination
    r.uncapped_win = win
    cap = ctx.settings.cash_cap()
    if cap is not None and win > cap:
        win = cap
    operator = ctx.operator is not None  # the win is paid by an operator credit, not here
    if operator:
        pass
    elif win and r.free_round_id is not None:
        # A free round's win: its own kind, and the ref names the package.
        ledger.post(s, wallet, win, ledger.FREE_ROUND_WIN,
                    f"free_round:{r.free_round_id}:round:{r.id}:win", round_id=r.id, now=now)
    elif win:
        ledger.post(s, wallet, win, ledger.WIN, f"round:{r.id}:win", round_id=r.id, now=now)
    r.win = win
    won: list[dict[str, Any]] = []
    if tiers and entry is not None and entry.progressives:
        pools = jackpots.lock_pools(s, entry)
        for i, tier in enumerate(tiers):
            pool = pools.get(tier)
            if pool is None:
                log.error("round %s won unknown tier %s", r.id, tier)
                continue
            amount = jackpots.award(s, pool, r.id, now)
            if amount and not operator:
                ledger.post(s, wallet, amount, ledger.JACKPOT, f"round:{r.id}:jackpot:{i}:{tier}",
                            round_id=r.id, now=now)
            won.append({"tier": tier, "amount": amount})
    r.jackpots = won
    r.jackpot_win = sum(j["amount"] for j in won)
    if r.free_round_id is not None:
        free_rounds.add_win(s, r.free_round_id, r.win + r.jackpot_win)
    r.status = CREDITING if operator else COMPLETED
    r.awaiting = None
    r.completed_at = None if operator else now
    r.updated_at = now
    r.outcome = outcome or "played"


def _refund(s: Session, r: Round, wallet: Wallet, now: datetime, outcome: str,
            operator: bool = False) -> None:
    if r.free_round_id is not None:
        free_rounds.give_back(s, r.free_round_id)  # nothing was debited: the round goes back
    elif operator:  # the bet goes back to the operator's wallet as a credit
        r.status = CREDITING
        r.win = 0
        r.awaiting = None
        r.completed_at = None
        r.updated_at = now
        r.outcome = outcome
        return
    else:
        ledger.post(s, wallet, r.bet, ledger.REFUND, f"round:{r.id}:refund", round_id=r.id,
                    now=now)
    r.status = CANCELLED
    r.win = 0
    r.awaiting = None
    r.completed_at = now
    r.updated_at = now
    r.outcome = outcome


# ---------------------------------------------------------------------------------------------
# Player calls


def _owner(auth: Auth) -> str:
    return f"p:{auth.player_id}"


def _stored(ctx: Services, row: Any, default_status: int) -> tuple[int, dict[str, Any]]:
    """The first response for a key (or, while its round is still being settled, its state)."""
    if row.response is not None and row.status_code is not None:
        return row.status_code, row.response
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == row.round_id))
        if r is None:
            raise conflict("request_in_progress", "a request with this key is in progress")
        balance = s.scalar(select(Wallet.balance).where(Wallet.player_id == r.player_id))
        return default_status, round_public(ctx, r, balance)


_INSERT_ROUND = insert(Round.__table__)
_W, _R, _K = Wallet.__table__, Round.__table__, IdempotencyKey.__table__
_LOCK_FOR_ROUND = (
    select(
        _W.c.id, _W.c.balance, _W.c.currency,
        select(_R.c.id).where(_R.c.player_id == _W.c.player_id, _R.c.status.in_(LIVE_STATUSES))
        .limit(1).scalar_subquery().label("live_id"),
        select(_K.c.request_hash).where(_K.c.owner == bindparam("owner"),
                                        _K.c.key == bindparam("key"))
        .scalar_subquery().label("key_hash"),
    )
    .where(_W.c.player_id == bindparam("pid"))
    .with_for_update(of=_W)
)
_INSERT_KEY = insert(IdempotencyKey.__table__)
_ROUND_COLUMNS = [c.key for c in Round.__table__.columns if c.key != "seq"]


def _round_values(r: Round) -> dict[str, Any]:
    return {k: getattr(r, k) for k in _ROUND_COLUMNS}


def _check_pace(interval: int, last: datetime | None, now: datetime) -> None:
    if last is not None:
        wait = last + timedelta(milliseconds=interval) - now
        if wait > timedelta(0):
            raise too_fast(f"rounds may start every {interval} ms; retry in "
                           f"{int(wait.total_seconds() * 1000) + 1} ms")


def start_round(ctx: Services, auth: Auth, game_id: str, bet: int, key: str, req_hash: str,
                free_round_id: int | None = None) -> tuple[int, dict[str, Any]]:
    entry = ctx.catalog.get(game_id)
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
    owner = _owner(auth)
    operator = ctx.operator is not None
    split = ctx.settings.split_round_commits or operator
    seed0 = fresh_seed()
    try:
        result = None if split else _play(entry, credits, [seed0], [])
    except IllegalBetError as e:
        raise unprocessable("bet_not_allowed", str(e)) from None
    rid = uuid.uuid4().hex
    interval = max(ctx.settings.min_round_interval_ms,
                   ctx.profile(auth.jurisdiction).min_cycle_ms)
    debit: WalletResult | None = None
    if operator and free_round_id is None:
        # The operator's debit, outside any write transaction; rolled back below if the round
        # is then not created.
        early, debit = _operator_debit(ctx, auth, owner, key, req_hash, rid, bet, interval)
        if early is not None:
            return _stored(ctx, early, 201)
    try:
        return _start_round_tx(ctx, auth, entry, credits, bet, key, req_hash, free_round_id,
                               owner, seed0, result, rid, interval, operator, debit)
    finally:
        if debit is not None and not _round_exists(ctx, rid):
            _operator_rollback(ctx, debit)


def _round_exists(ctx: Services, rid: str) -> bool:
    with ctx.db.read() as s:
        return s.scalar(select(Round.id).where(Round.id == rid)) is not None


def _start_round_tx(ctx: Services, auth: Auth, entry: GameEntry, credits: int, bet: int,
                    key: str, req_hash: str, free_round_id: int | None, owner: str,
                    seed0: Seed, result: RoundResult | None, rid: str, interval: int,
                    operator: bool, debit: WalletResult | None) -> tuple[int, dict[str, Any]]:
    stored = None
    try:
        # The hot path: Core statements on a detached wallet and round, one transaction.
        with ctx.db.write() as s:
            now = utcnow()
            # One statement locks the wallet and reads the key and any live round.
            row = s.execute(_LOCK_FOR_ROUND, {"pid": auth.player_id, "owner": owner,
                                              "key": key}).one_or_none()
            if row is None:
                raise not_found("unknown_player", "no wallet for this player")
            wallet = Wallet(id=row.id, player_id=auth.player_id, balance=row.balance,
                            currency=row.currency)
            if row.key_hash is not None:
                stored = idem.lookup(s, owner, key, req_hash)
            if stored is None:
                live_id = row.live_id
                if live_id is not None:
                    live = s.scalar(select(Round).where(Round.id == live_id))
                    assert live is not None
                    raise conflict("round_open", "finish the open round first",
                                   round=round_public(ctx, live, wallet.balance))
                if interval:
                    last = s.scalar(select(Player.last_round_at)
                                    .where(Player.id == auth.player_id))
                    _check_pace(interval, last, now)
                    s.execute(update(Player).where(Player.id == auth.player_id)
                              .values(last_round_at=now))
                if operator and free_round_id is None:
                    pass  # debited at the operator before this transaction
                elif free_round_id is None:
                    ledger.post(s, wallet, -bet, ledger.BET, f"round:{rid}:bet", round_id=rid,
                                now=now)
                else:  # a free round: no debit, one round of the package used
                    free_rounds.take_round(s, auth.player_id, free_round_id, entry, bet, now)
                r = Round(
                    id=rid, player_id=auth.player_id, game_id=entry.id,
                    model_hash=entry.game.model_hash, variant=entry.variant,
                    code_version=CODE_VERSION,
                    currency=wallet.currency, denomination=entry.denomination,
                    bet_credits=credits, bet=bet, win_credits=0, win=0, uncapped_win=0,
                    jackpot_win=0, jackpots=[], status=OPEN, seeds=[seed0.hex()], choices=[],
                    auto_seeds=[], events=None, awaiting=None, step=0, outcome=None,
                    notice_pending=False, free_round_id=free_round_id, created_at=now,
                    updated_at=now, completed_at=None,
                )
                if (entry.progressives and credits == entry.max_bet_credits
                        and free_round_id is None):
                    jackpots.contribute(s, entry, jackpots.lock_pools(s, entry), bet, rid, now)
                if result is not None:
                    _settle(ctx, s, entry, r, wallet, result, now)
                s.execute(_INSERT_ROUND, _round_values(r))
                ledger.save_balance(s, wallet)
                body = round_public(ctx, r, wallet.balance)
                if free_round_id is not None:
                    body["free_round"] = free_rounds.state(s, free_round_id)
                s.execute(_INSERT_KEY, {
                    "owner": owner, "key": key, "request_hash": req_hash, "round_id": rid,
                    "status_code": 201 if result is not None else None,
                    "response": body if result is not None else None, "created_at": now})
    except IntegrityError:
        # A concurrent request with the same key, or a concurrent round, won the race.
        with ctx.db.read() as s:
            row = idem.lookup(s, owner, key, req_hash)
            live = s.scalar(select(Round).where(Round.player_id == auth.player_id,
                                                Round.status.in_(LIVE_STATUSES)))
            balance = s.scalar(select(Wallet.balance).where(Wallet.player_id == auth.player_id))
            live_body = None if live is None else round_public(ctx, live, balance)
        if row is not None:
            return _stored(ctx, row, 201)
        if live_body is not None:
            raise conflict("round_open", "finish the open round first", round=live_body) from None
        raise conflict("concurrent_request", "a concurrent request interfered; retry") from None
    if stored is not None:
        return _stored(ctx, stored, 201)
    if result is not None:
        return 201, body
    # Split commits: the debit is durable; now play and settle.
    body = _advance_open(ctx, rid, entry, key_row_key=(owner, key))
    if operator:
        if debit is not None and debit.balance is not None:
            body = {**body, "balance": debit.balance}
        body = _pay_if_crediting(ctx, body)
    return 201, body


def _advance_open(ctx: Services, rid: str, entry: GameEntry,
                  key_row_key: tuple[str, str] | None = None, outcome: str | None = None
                  ) -> dict[str, Any]:
    with ctx.db.read() as s:
        r0 = s.scalar(select(Round).where(Round.id == rid))
    assert r0 is not None
    try:
        seeds = [bytes.fromhex(x) for x in r0.seeds]
        result = _play(entry, r0.bet_credits, seeds, list(r0.choices))
    except Exception:
        log.exception("round %s cannot be played; paying the better of win so far and refund", rid)
        return better_of(ctx, rid)
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, r0.player_id)
        r = s.scalar(select(Round).where(Round.id == rid).with_for_update())
        assert r is not None
        if r.status == OPEN:
            _settle(ctx, s, entry, r, wallet, result, now, outcome)
        body = round_public(ctx, r, wallet.balance)
        if r.free_round_id is not None:
            body["free_round"] = free_rounds.state(s, r.free_round_id)
        if key_row_key is not None:
            key_row = s.get(IdempotencyKey, key_row_key)
            if key_row is not None and key_row.response is None:
                key_row.status_code, key_row.response = 201, body
        return body


def _load_own(s: Session, auth: Auth, round_id: str) -> Round:
    r = None
    if _ROUND_ID.fullmatch(round_id):
        r = s.scalar(select(Round).where(Round.id == round_id))
    if r is None:
        raise not_found("unknown_round", f"no round {round_id!r}")
    if r.player_id != auth.player_id:
        raise forbidden("not_your_round", "this round belongs to another player")
    return r


def _continuable(ctx: Services, r: Round) -> GameEntry | None:
    """The offered game on the round's own model (its variant may no longer be the one
    offered), or None when the game is gone or no known model has the round's hash."""
    entry = ctx.catalog.find(r.game_id)
    if entry is None:
        return None
    if entry.game.model_hash == r.model_hash:
        return entry
    game = ctx.catalog.model(r.game_id, r.variant, r.model_hash)
    if game is None:
        return None
    return dataclasses.replace(entry, game=game, variant=r.variant or r.game_id)


def submit_choice(ctx: Services, auth: Auth, round_id: str, choice: str, key: str,
                  req_hash: str) -> tuple[int, dict[str, Any]]:
    """Continue a waiting round: one transaction (the re-play is pure and takes microseconds)."""
    owner = _owner(auth)
    if not _ROUND_ID.fullmatch(round_id):
        raise not_found("unknown_round", f"no round {round_id!r}")
    stored = None
    broken = False
    try:
        with ctx.db.write() as s:
            now = utcnow()
            wallet = ledger.lock_wallet_row(s, auth.player_id)
            stored = idem.lookup(s, owner, key, req_hash)
            if stored is None:
                r = s.scalar(select(Round).where(Round.id == round_id).with_for_update())
                if r is None:
                    raise not_found("unknown_round", f"no round {round_id!r}")
                if r.player_id != auth.player_id:
                    raise forbidden("not_your_round", "this round belongs to another player")
                if r.status != AWAITING_CHOICE:
                    raise conflict("round_not_awaiting_choice", f"the round is {r.status}",
                                   round=round_public(ctx, r, wallet.balance))
                options = list((r.awaiting or {}).get("options", []))
                if choice not in options:
                    raise unprocessable("illegal_choice",
                                        f"choice {choice!r} is not one of {options}")
                entry = _continuable(ctx, r)
                if entry is None:
                    broken = True
                else:
                    seeds = [*r.seeds, fresh_seed().hex()]
                    choices = [*r.choices, choice]
                    try:
                        result = _play(entry, r.bet_credits, [bytes.fromhex(x) for x in seeds],
                                       choices)
                    except IllegalChoiceError as e:
                        raise unprocessable("illegal_choice", str(e)) from None
                    r.seeds = seeds
                    r.choices = choices
                    _settle(ctx, s, entry, r, wallet, result, now)
                    ledger.save_balance(s, wallet)
                    body = round_public(ctx, r, wallet.balance)
                    if r.free_round_id is not None:
                        body["free_round"] = free_rounds.state(s, r.free_round_id)
                    s.execute(_INSERT_KEY, {
                        "owner": owner, "key": key, "request_hash": req_hash, "round_id": r.id,
                        "status_code": 200, "response": body, "created_at": now})
    except IntegrityError:
        with ctx.db.read() as s:
            row = idem.lookup(s, owner, key, req_hash)
        if row is not None:
            return _stored(ctx, row, 200)
        raise conflict("concurrent_request", "a concurrent request interfered; retry") from None
    if stored is not None:
        return _stored(ctx, stored, 200)
    if broken:
        body = better_of(ctx, round_id)
        raise conflict("round_cannot_continue",
                       "the game changed; the round was settled by the better-of rule", round=body)
    return 200, _pay_if_crediting(ctx, body)


def open_round(ctx: Services, auth: Auth) -> dict[str, Any] | None:
    expire_awaiting(ctx, player_id=auth.player_id)
    return live_round_of(ctx, auth.player_id)


def live_round_of(ctx: Services, player_id: int) -> dict[str, Any] | None:
    """The player's live round (a waiting one with its ``awaiting`` options), with its game."""
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.player_id == player_id,
                                         Round.status.in_(LIVE_STATUSES)))
        if r is None:
            return None
        balance = s.scalar(select(Wallet.balance).where(Wallet.player_id == player_id))
        body = round_public(ctx, r, balance)
    entry = ctx.catalog.find(r.game_id)
    body["game_info"] = None if entry is None else {
        "id": entry.id, "name": entry.game.name, "bets": entry.bets_minor()}
    return body


def history(ctx: Services, auth: Auth, limit: int) -> list[dict[str, Any]]:
    with ctx.db.read() as s:
        rows = s.scalars(select(Round).where(Round.player_id == auth.player_id)
                         .order_by(Round.seq.desc()).limit(limit))
        return [round_summary(ctx, r) for r in rows]


def round_record(ctx: Services, auth: Auth | None, round_id: str) -> dict[str, Any]:
    with ctx.db.read() as s:
        if auth is None:  # admin
            r = s.scalar(select(Round).where(Round.id == round_id)) if _ROUND_ID.fullmatch(
                round_id) else None
            if r is None:
                raise not_found("unknown_round", f"no round {round_id!r}")
        else:
            r = _load_own(s, auth, round_id)
        entries = s.scalars(select(LedgerEntry).where(LedgerEntry.round_id == r.id)
                            .order_by(LedgerEntry.id)).all()
        balance = s.scalar(select(Wallet.balance).where(Wallet.player_id == r.player_id))
        body = round_public(ctx, r, balance)
    terminal = r.status in (COMPLETED, CANCELLED)
    body.update({
        "choices": list(r.choices),
        # Seeds are secret until the round is over: they would reveal what comes next.
        "seeds": list(r.seeds) if terminal else None,
        "auto_seeds": list(r.auto_seeds) if terminal else None,
        "uncapped_win": r.uncapped_win,
        "code_version": r.code_version,
        "ledger": [{"id": e.id, "kind": e.kind, "amount": e.amount, "ref": e.ref,
                    "balance_after": e.balance_after, "created_at": _iso(e.created_at)}
                   for e in entries],
    })
    return body


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
    seeds = [bytes.fromhex(x) for x in rec["seeds"]]
    try:
        _, result = replay(game, rec["bet_credits"], seeds, rec["choices"], rec["events"])
        events = to_jsonable(list(result.events))
        win_credits = int(result.win)
    except (ValueError, LookupError) as e:
        events, win_credits = None, None
        log.warning("replay of %s failed: %s", round_id, e)
    hash_ok = game.model_hash == rec["model_hash"]
    same = events == rec["events"]
    return {
        "round_id": rec["round_id"],
        "identical": same and hash_ok,
        "events_identical": same,
        "model_hash_matches": hash_ok,  # replayed on the model the round was played on
        "recorded_model_hash": rec["model_hash"],
        "replayed_model_hash": game.model_hash,
        "current_model_hash": current,  # the model the game is offered on now
        "variant": rec["variant"],
        "code_version": CODE_VERSION,
        "win_credits": win_credits,
        "events": events,
    }


# ---------------------------------------------------------------------------------------------
# Rounds the player left: auto-completion, better-of, recovery, void


def better_of(ctx: Services, round_id: str, notice: bool = True) -> dict[str, Any]:
    """Settle a round that cannot continue: the better of its win so far and a bet refund."""
    with ctx.db.read() as s:
        pid = s.scalar(select(Round.player_id).where(Round.id == round_id))
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, pid)
        r = s.scalar(select(Round).where(Round.id == round_id).with_for_update())
        assert r is not None
        if r.status in LIVE_STATUSES:
            win = r.win_credits * r.denomination
            cap = ctx.settings.cash_cap()
            if cap is not None:
                win = min(win, cap)
            if win > r.bet:
                _complete(ctx, s, None, r, wallet, [], now, "better_of_win")
            else:
                _refund(s, r, wallet, now, "better_of_refund", ctx.operator is not None)
            r.notice_pending = notice
        body = round_public(ctx, r, wallet.balance)
    return _pay_if_crediting(ctx, body)


def auto_complete(ctx: Services, round_id: str) -> dict[str, Any] | None:
    """Finish an abandoned round with the game's random choice policy and credit its win."""
    with ctx.db.read() as s:
        r0 = s.scalar(select(Round).where(Round.id == round_id))
    if r0 is None or r0.status != AWAITING_CHOICE:
        return None
    entry = _continuable(ctx, r0)
    try:
        if entry is None:
            raise LookupError("game gone or changed")
        seeds = [bytes.fromhex(x) for x in r0.seeds]
        choices = list(r0.choices)
        auto_seeds = list(r0.auto_seeds)
        result = _play(entry, r0.bet_credits, seeds, choices)
        if to_jsonable(list(result.events)) != r0.events:
            raise ValueError("stored events do not replay")
        steps = 0
        while result.awaiting is not None:
            steps += 1
            if steps > MAX_AUTO_STEPS:
                raise RuntimeError("auto policy does not finish the round")
            aseed = fresh_seed()
            choice = entry.game.auto_choice(result, aseed)
            auto_seeds.append(aseed.hex())
            seeds.append(fresh_seed())
            choices.append(choice)
            result = _play(entry, r0.bet_credits, seeds, choices)
    except Exception:
        log.exception("round %s cannot be auto-completed; better-of rule", round_id)
        return better_of(ctx, round_id)
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, r0.player_id)
        r = s.scalar(select(Round).where(Round.id == round_id).with_for_update())
        assert r is not None
        if r.status != AWAITING_CHOICE or r.step != r0.step:
            return None  # the player came back meanwhile
        r.seeds = [x.hex() for x in seeds]
        r.choices = choices
        r.auto_seeds = auto_seeds
        _settle(ctx, s, entry, r, wallet, result, now, "auto_completed")
        r.notice_pending = True
        body = round_public(ctx, r, wallet.balance)
    return _pay_if_crediting(ctx, body)


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


def recover(ctx: Services) -> int:
    """Start-up: finish every debited round that waits for no choice, from its recorded seed."""
    with ctx.db.read() as s:
        rows = list(s.scalars(select(Round).where(Round.status == OPEN)))
    for r0 in rows:
        rid = r0.id
        entry = _continuable(ctx, r0)
        if entry is None:
            better_of(ctx, rid)
        else:
            _advance_open(ctx, rid, entry, outcome="recovered")
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


def void_round(ctx: Services, round_id: str) -> dict[str, Any]:
    """Admin: a malfunction voids pays and plays; the bet is refunded, the round cancelled."""
    with ctx.db.read() as s:
        pid = s.scalar(select(Round.player_id).where(Round.id == round_id)) if _ROUND_ID.fullmatch(
            round_id) else None
    if pid is None:
        raise not_found("unknown_round", f"no round {round_id!r}")
    with ctx.db.write() as s:
        now = utcnow()
        wallet = ledger.lock_wallet(s, pid)
        r = s.scalar(select(Round).where(Round.id == round_id).with_for_update())
        assert r is not None
        if r.status not in (OPEN, AWAITING_CHOICE):
            raise conflict("round_not_voidable", f"a {r.status} round cannot be voided")
        _refund(s, r, wallet, now, "voided", ctx.operator is not None)
        r.notice_pending = True
        s.add(AdminAction(action="void_round", target=round_id, detail="", created_at=now))
        body = round_public(ctx, r, wallet.balance)
    return _pay_if_crediting(ctx, body)


# ---------------------------------------------------------------------------------------------
# Session view


def unseen_results(ctx: Services, player_id: int) -> list[dict[str, Any]]:
    with ctx.db.read() as s:
        rows = s.scalars(select(Round).where(Round.player_id == player_id,
                                             Round.notice_pending.is_(True))
                         .order_by(Round.seq))
        return [round_summary(ctx, r) for r in rows]


def ack_unseen(ctx: Services, player_id: int) -> None:
    with ctx.db.write() as s:
        s.execute(update(Round).where(Round.player_id == player_id,
                                      Round.notice_pending.is_(True))
                  .values(notice_pending=False))


def with_profile(ctx: Services, auth: Auth, body: dict[str, Any]) -> dict[str, Any]:
    """A round response as the player's jurisdiction wants it: ``celebrate`` always; the
    session's net position and elapsed time when the profile asks for them with every round.
    Added per response (not stored with the idempotency key): a retry gets them fresh."""
    profile = ctx.profile(auth.jurisdiction)
    out = {**body, "celebrate": profiles.celebrate(
        profile, int(body.get("bet") or 0),
        int(body.get("win") or 0) + int(body.get("jackpot_win") or 0))}
    if profile.session_with_rounds:
        now = utcnow()
        out["session"] = {
            "net_position": net_position(ctx, auth.player_id, auth.session_started),
            "elapsed_s": int((now - auth.session_started).total_seconds()),
            "started_at": auth.session_started.isoformat()}
    return out


def net_position(ctx: Services, player_id: int, since: datetime) -> int:
    with ctx.db.read() as s:
        return int(s.scalar(
            select(func.coalesce(func.sum(LedgerEntry.amount), 0))
            .join(Wallet, Wallet.id == LedgerEntry.wallet_id)
            .where(Wallet.player_id == player_id, LedgerEntry.created_at >= since,
                   LedgerEntry.kind.in_(ledger.PLAY_KINDS))
        ) or 0)


def live_rounds(ctx: Services) -> list[dict[str, Any]]:
    with ctx.db.read() as s:
        rows = s.execute(select(Round, Player.username).join(Player, Player.id == Round.player_id)
                         .where(Round.status.in_(LIVE_STATUSES)).order_by(Round.seq)).all()
        return [{**round_summary(ctx, r), "username": u} for r, u in rows]



# ---------------------------------------------------------------------------------------------
# Operator wallet (wallet_mode=operator): debit before the round, credit after it


def _username(ctx: Services, player_id: int) -> str:
    """The player's id at the operator: their slotlab username."""
    with ctx.db.read() as s:
        name = s.scalar(select(Player.username).where(Player.id == player_id))
    if name is None:
        raise not_found("unknown_player", "no such player")
    return name


def _operator_debit(ctx: Services, auth: Auth, owner: str, key: str, req_hash: str, rid: str,
                    bet: int, interval: int) -> tuple[Any, WalletResult | None]:
    """(stored key row, None) for a repeated request; else (None, the confirmed debit).
    Refusals raise: 402 ``insufficient_funds``, 403 ``operator_refused``, 503
    ``operator_unavailable`` (the outcome was unknown and the debit was rolled back)."""
    assert ctx.operator is not None
    with ctx.db.read() as s:
        stored = idem.lookup(s, owner, key, req_hash)
        if stored is not None:
            return stored, None
        live = s.scalar(select(Round).where(Round.player_id == auth.player_id,
                                            Round.status.in_(LIVE_STATUSES)))
        if live is not None:
            raise conflict("round_open", "finish the open round first",
                           round=round_public(ctx, live, None))
        if interval:  # checked again in the round's transaction; here to spare a debit
            _check_pace(interval, s.scalar(select(Player.last_round_at)
                                           .where(Player.id == auth.player_id)), utcnow())
    res = ctx.operator.debit(_username(ctx, auth.player_id), bet, ctx.settings.currency, rid)
    if res.status == DONE:
        return None, res
    if res.status == REFUSED:
        if res.code == "insufficient_funds":
            raise ApiError(402, "insufficient_funds",
                           f"the operator refused the bet of {bet}: insufficient funds"
                           + ("" if res.balance is None else f" (balance {res.balance})"))
        raise ApiError(403, "operator_refused",
                       f"the operator refused the bet: {res.code} {res.message or ''}".strip())
    raise ApiError(503, "operator_unavailable",
                   "the operator's wallet did not confirm the bet; nothing was taken, retry")


def _operator_rollback(ctx: Services, debit: WalletResult) -> None:
    """Give back a confirmed debit whose round was not created (retried by the sweep)."""
    assert ctx.operator is not None
    try:
        op = ctx.operator.store.get(debit.transaction_id) if ctx.operator.store else None
        player = op.player_id if op is not None else ""
        ctx.operator.rollback(player, debit.round_id, debit.transaction_id)
    except Exception:  # the sweep rolls back a debit left without a round
        log.exception("rollback of %s failed", debit.transaction_id)


def _credit_amount(r: Round) -> int:
    if r.outcome in _REFUND_OUTCOMES:
        return 0 if r.free_round_id is not None else r.bet
    return r.win + r.jackpot_win


def _pay_if_crediting(ctx: Services, body: dict[str, Any]) -> dict[str, Any]:
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


def finish_credit(ctx: Services, rid: str, balance: int | None) -> dict[str, Any] | None:
    """The operator confirmed the round's credit: ``crediting`` -> ``completed`` (or
    ``cancelled`` for a refunded round); stored first responses follow."""
    with ctx.db.write() as s:
        r = s.scalar(select(Round).where(Round.id == rid).with_for_update())
        if r is None:
            return None
        if r.status == CREDITING:
            now = utcnow()
            r.status = CANCELLED if r.outcome in _REFUND_OUTCOMES else COMPLETED
            r.completed_at = now
            r.updated_at = now
            body = round_public(ctx, r, balance)
            for k in s.scalars(select(IdempotencyKey).where(IdempotencyKey.round_id == rid)):
                if k.response is not None:
                    k.response = {**k.response, "status": r.status, "balance": balance,
                                  "completed_at": body["completed_at"]}
        return round_public(ctx, r, balance)


def _on_settled(ctx: Services, res: WalletResult, counts: dict[str, int]) -> None:
    if res.kind == CREDIT and res.status == DONE:
        if finish_credit(ctx, res.round_id, res.balance) is not None:
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
        # Winnings unpaid for 24 months are discarded (kept on record until then).
        counts["operator_unpaid_discarded"] = len(op.store.discard_expired())
    return counts
