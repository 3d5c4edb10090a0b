"""The batched round path in operator-wallet mode (seamless wallet): a round start whose money is
the operator's, on the event loop, its writes grouped with concurrent rounds'.

For a round :mod:`.fast_rounds` recognised whole (a player's session, a new key, a bet on the
ladder, a profile that lets it start; a free round, which has no debit, is written by the
internal path's writers with its credit's row and joins at step 4: fast_rounds.py), per round:

1. the debit's row, the ``open`` round (its seed drawn and recorded) and the reserved key, in one
   batched write (:class:`~slotlab.ledger.operator_rounds.Opening`) BEFORE the debit is sent, so
   that a crash leaves a record the sweep finishes (a debit never answered is rolled back and the
   round withdrawn: services/round_operator.py ``debit_confirmed``);
2. the debit, a signed call on the adapter's one keep-alive pool
   (:meth:`~slotlab.server.operator_wallet.OperatorWallet.call_async`): confirmed (2xx), the
   round is played; refused (4xx), or its outcome unknown (then rolled back, in a worker
   thread as the general path does), the round is withdrawn and the answer is the general
   path's 402, 403 or 503;
3. played on its seed (``rounds.play``); a round that completes at once is settled in the
   next batch (:class:`~slotlab.ledger.operator_rounds.Settling`: the debit ``done``, the
   round ``crediting``, the credit's row, the key's answer, a max bet's jackpot
   contributions), one that won jackpots alone, its game's pools locked and each tier paid
   from its value as locked (the credit carries the win and the jackpots); one that waits for
   a choice is settled in the same batch with no credit (the round ``awaiting_choice``, its
   choice then served by :mod:`.fast_choices`, which writes the credit's row when the choice
   completes the round); a tier the game has no pool for is logged and pays nothing, as on
   the internal wallet. A round whose play raised (a defect) is settled by the better-of rule
   (``rounds.better_of``: the round writer's refund, its credit sent here), in a worker
   thread, once the debit is marked ``done`` and a max bet's contributions added in one
   transaction;
4. the credit sent (retried inline as the adapter retries it); confirmed, the round is completed
   in a batch (:class:`~slotlab.ledger.operator_rounds.Completion`); else it stays ``crediting``
   with its credit ``pending`` and the sweep carries on (R10).

At step 1, a retry (the key used before), a round too soon for the pace and a bet past a loss
limit are answered here from the opening's checks, as the general path answers them
(ledger/batch.Stored, Refused), before anything was sent; whatever else the database refuses
there (a live round, a key whose round is in progress, a run changed) goes to the general path
whole, before anything was sent; at steps 3-4 a round the
sweep took over meanwhile is answered by the general path from its key. Nothing here blocks
the event loop: database batches run on asyncpg or the SQLite writer thread, the rare paths (a
rollback, a refusal's record) in worker threads.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy.dialects.postgresql import asyncpg as asyncpg_dialect
from starlette.concurrency import run_in_threadpool
from starlette.types import Send

from slotlab import CODE_VERSION
from slotlab.json_text import json_text, to_jsonable
from slotlab.ledger.batch import GroupWriter, ReadRow, Refused, RoundWrite, Stored
from slotlab.ledger.operator_rounds import (
    SETTLED,
    Completion,
    Opened,
    Opening,
    PostgresOperatorRounds,
    Settling,
    SqliteOperatorRounds,
    Withdrawal,
)
from slotlab.months import add_months
from slotlab.rng import Seed
from slotlab.rounds import RoundResult
from slotlab.server import metrics
from slotlab.server.errors import ApiError
from slotlab.server.fast_answers import answer_unwritten, send_error, send_json
from slotlab.server.operator_wallet import OperatorWallet
from slotlab.server.services import (
    autoplay_runs,
    fairness,
    jackpots,
    round_view,
)
from slotlab.server.services import rounds as general
from slotlab.server.services.auth import Auth
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.store.models import (
    AWAITING_CHOICE,
    CANCELLED,
    COMPLETED,
    CREDITING,
    OPEN,
    REFUND_OUTCOMES,
    Round,
    utcnow,
)
from slotlab.store.operator_wallet import (
    CREDIT,
    DEBIT,
    KEEP_UNPAID_MONTHS,
    PENDING,
    REFUSED,
    credit_txid,
    debit_txid,
)

log = logging.getLogger("slotlab.server")

_ROUND_COLUMNS = dict.fromkeys(c.key for c in Round.__table__.columns if c.key != "seq")


Backend = PostgresOperatorRounds | SqliteOperatorRounds

# The session's net position (round_view.OPERATOR_NET_POSITION, one definition) as asyncpg runs
# it on the round writer's read connection, in the event loop: read in a worker thread through the
# ORM it took a fifth of a core in the operator-wallet production mix, where every gb round's
# answer shows it.
_NET = round_view.OPERATOR_NET_POSITION.compile(
    dialect=asyncpg_dialect.dialect())  # type: ignore[no-untyped-call]


def _net_args(player_id: int, since: datetime) -> list[Any]:
    given = {**_NET.params, "player_id": player_id, "since": since}
    return [given[name] for name in _NET.positiontup or ()]


@dataclass
class OperatorRounds:
    """The path's state in one server process."""

    ctx: Services
    wallet: OperatorWallet
    backend: Backend
    opens: GroupWriter[Opening, Opened]
    settles: GroupWriter[Settling, bool | None]
    completes: GroupWriter[Completion, bool | None]
    read_row: ReadRow | None = None  # the round writer's read connection (PostgreSQL's)
    usernames: dict[int, str] = field(default_factory=dict)  # player -> id at the operator
    # (player, autoplay run) -> the run as the last round completed here left it (shared with
    # the fast path's, server/fast_rounds.py, which reads it)
    runs: dict[tuple[int, int], autoplay_runs.RunUse] = field(default_factory=dict)

    @classmethod
    async def start(cls, ctx: Services, read_row: ReadRow | None = None
                    ) -> OperatorRounds | None:
        st, wallet = ctx.settings, ctx.operator
        if wallet is None or wallet.store is None:
            return None
        backend: Backend
        if ctx.db.is_sqlite:
            depth = 1
            backend = SqliteOperatorRounds(ctx.db.url, busy_timeout_ms=st.sqlite_busy_timeout_ms,
                                           synchronous=st.sqlite_synchronous)
        elif ctx.db.dialect == "postgresql":
            depth = st.fast_rounds_connections
            prepared = getattr(st, "db_pooler", "none") != "pgbouncer"
            backend = await PostgresOperatorRounds.connect(ctx.db.url, 3 * depth, prepared)
        else:
            return None
        wallet.call_seconds = metrics.operator_call
        size = st.fast_rounds_max_batch
        return cls(ctx, wallet, backend,
                   GroupWriter(metrics.timed_batches(backend.open), depth, size),
                   GroupWriter(metrics.timed_batches(backend.settle), depth, size),
                   GroupWriter(metrics.timed_batches(backend.complete), depth, size),
                   read_row)

    async def close(self) -> None:
        for b in (self.opens, self.settles, self.completes):
            await b.drain()
        await self.backend.close()
        await self.wallet.aclose()
        log.info("operator round path: %d rounds opened in %d batches, %d settled, %d completed",
                 self.opens.rounds, self.opens.batches, self.settles.rounds,
                 self.completes.rounds)

    async def username(self, player_id: int) -> str:
        name = self.usernames.get(player_id)
        if name is None:
            name = await run_in_threadpool(general._username, self.ctx, player_id)
            if len(self.usernames) > 100_000:
                self.usernames.clear()
            self.usernames[player_id] = name
        return name

    async def serve(self, who: Auth, entry: GameEntry, credits: int, bet: int, key: str,
                    request_hash: str, send: Send, started: float | None,
                    run: autoplay_runs.RunUse | None = None,
                    contributions: tuple[tuple[int, int], ...] = (),
                    pools: Mapping[str, int] | None = None,
                    waits: Callable[[dict[str, Any], str], None] | None = None,
                    seen: bool = False) -> str | None:
        """Answer the round start (what was answered: ``served``, ``refused:pace``,
        ``refused:loss_limit``, ``refused:key``, ``replayed``), or leave it to the general path
        (None: nothing was sent to the operator, or the round's key tells the general path the
        answer). A round too soon for the pace or past a loss limit, and a retry, are answered
        from the opening's checks (ledger/batch.Refused, Stored) as the general path answers
        them, with nothing sent to the operator.
        The opening checks the session (``Opening.session``; ``seen``: its last-seen time
        is due, and the opening sets it).
        ``contributions``: a max bet's to the jackpot pools, (pool id, micro-units);
        ``pools``: the game's pool ids by tier (a round that wins one is settled here);
        ``waits``: told a round written waiting for a choice (its values, every column but
        ``seq`` and ``events``, and its events as JSON text), for the choice's write."""
        ctx = self.ctx
        username = await self.username(who.player_id)
        # the general path's source (503 there if it fails), or the player's seed pair
        seed = await fairness.next_seed(ctx, who, general.fresh_seed)
        rid = uuid.uuid4().hex
        owner = general.key_owner(who)
        now = utcnow()
        profile = ctx.profile(who.jurisdiction)
        values = _open_round(who, entry, credits, bet, rid, seed, now)
        autoplay = None
        if run is not None:  # stamped with the run, which it may stop (take_round's rule)
            values["autoplay_run_id"] = run.run_id
            autoplay = (run.run_id, dataclasses.astuple(run.before),
                        run.after(cast(Round, SimpleNamespace(**values))))
        currency = who.currency or ctx.settings.currency  # as the general path's debit
        debit = op_row(debit_txid(rid), DEBIT, rid, username, bet, currency, now)
        pace_ms = max(ctx.settings.min_round_interval_ms, profile.min_cycle_ms)
        opened = await self.opens.submit(Opening(
            who.player_id, entry.currency, owner, key, request_hash, now, pace_ms, values, debit,
            autoplay, (who.session_id, who.jurisdiction, seen)))
        if isinstance(opened, Refused | Stored):  # nothing written, nothing sent
            return await answer_unwritten(opened, request_hash, bet, pace_ms, now,
                                          functools.partial(self.with_profile, who), send)
        if not opened:
            self.forget_run(who, run)
            return None
        payload = {"transaction_id": debit["transaction_id"], "round_id": rid,
                   "player_id": username, "amount": bet, "currency": currency}
        out = await self.wallet.call_async(DEBIT, payload)
        if out.kind != "ok":
            error = await run_in_threadpool(self._not_debited, rid, username, bet, out.kind,
                                            out.code, out.balance, out.message, out.body)
            # A run this round's opening stopped goes on without it (its figures before the
            # round met no stop condition: autoplay_runs.usable).
            await self.withdraw(rid, resume_run=autoplay is not None and autoplay[2] is not None)
            await send_error(send, error)
            return "served"
        try:
            result = general.play(entry, credits, [seed], [])
        except Exception:  # settled by the better-of rule (_refund_unplayable)
            log.exception("round %s cannot be played here", rid)
            result = None
        body: dict[str, Any] | None
        ids = pools or {}
        if result is None:
            body = await self._refund_unplayable(who, entry, rid, username, owner, key, values,
                                                 out.body, out.balance, contributions)
        elif result.awaiting is not None:
            body = await self._settle_waiting(who, rid, owner, key, values, result, out.body,
                                              out.balance, contributions, waits)
        else:
            body = await self._settle(who, entry, rid, username, owner, key, values, result,
                                      out.body, out.balance, contributions, ids)
        if body is None:
            self.forget_run(who, run)
            return None
        if run is not None:
            self.remember_run(who, run, autoplay, {**values, **body})
        await send_json(send, 201, json_text(await self.with_profile(who, body)).encode())
        metrics.round_latency("fast", started)
        return "served"

    async def with_profile(self, who: Auth, body: dict[str, Any], net: int | None = None
                           ) -> dict[str, Any]:
        """The answer with what the player's profile adds (``round_view.with_profile``; the
        session's figures, where the profile shows them and ``net`` does not give them, are
        read: on PostgreSQL on the round writer's read connection, on SQLite in a worker
        thread)."""
        if net is None and self.ctx.profile(who.jurisdiction).session_with_rounds:
            if self.read_row is None:
                return await run_in_threadpool(round_view.with_profile, self.ctx, who, body)
            row = await self.read_row(_NET.string, *_net_args(who.player_id, who.session_started))
            net = 0 if row is None else int(next(iter(row.values())))
        return round_view.with_profile(self.ctx, who, body, net)

    async def pay_write(self, player_id: int, username: str, write: RoundWrite, balance: int
                        ) -> dict[str, Any] | None:
        """A round the internal path's batch writers left ``crediting`` with its credit's row
        (a free round, a choice that completed its round, an auto-completion: nothing to
        debit first): the credit sent and the round completed (:meth:`pay`); the round as it
        then is (None: the round was taken over meanwhile, its key answers)."""
        assert write.credit is not None
        return await self.pay(player_id, username, write.owner, write.key, write.credit,
                              {**write.response, "balance": balance,
                               "events": json.loads(write.events_json)})

    async def pay_written(self, who: Auth, username: str, write: RoundWrite, balance: int
                          ) -> dict[str, Any] | None:
        """:meth:`pay_write` for a request: its answer, with the session's figures."""
        final = await self.pay_write(who.player_id, username, write, balance)
        return None if final is None else await self.with_profile(who, final)

    def remember_run(self, who: Auth, run: autoplay_runs.RunUse,
                     autoplay: tuple[Any, Any, str | None] | None, final: dict[str, Any]
                     ) -> None:
        """The run's figures after a round completed here, for its next round (as the fast
        path keeps them; the opening write checks them against the stored rounds)."""
        if autoplay is None or autoplay[2] is not None or final.get("status") != COMPLETED:
            self.forget_run(who, run)
            return
        if len(self.runs) > 100_000:
            self.runs.clear()
        self.runs[(who.player_id, run.run_id)] = run.played(
            {**final, "free_round_id": None, "jackpot_win": final.get("jackpot_win", 0)})

    def forget_run(self, who: Auth, run: autoplay_runs.RunUse | None) -> None:
        if run is not None:
            self.runs.pop((who.player_id, run.run_id), None)

    def _not_debited(self, rid: str, username: str, bet: int, kind: str, code: str,
                     balance: int | None, message: str, body: dict[str, Any] | None
                     ) -> ApiError:
        """A debit not confirmed: recorded as the adapter records it (a refusal; an unknown
        outcome rolled back, retried until confirmed); the answer (a worker thread: the
        rollback's tries sleep between them). The round is then withdrawn (:meth:`withdraw`)."""
        wallet, store = self.wallet, self.wallet.store
        assert store is not None
        txid = debit_txid(rid)
        if kind == "refused":
            store.update(txid, status=REFUSED, attempts=1, response=body,
                         completed_at=utcnow(), next_attempt_at=None, last_error=code)
        else:
            log.warning("debit %s: outcome unknown (%s); rolling it back", txid, code)
            store.update(txid, attempts=1, last_error=code)
            wallet.rollback(username, rid, txid)  # retried by the sweep until confirmed
        return general.operator_refusal(bet, kind == "refused", code, balance, message)

    async def withdraw(self, rid: str, resume_run: bool) -> bool:
        """An ``open`` round whose debit the operator did not confirm taken out again
        (:class:`~slotlab.ledger.operator_rounds.Withdrawal`: it never took place, as a bet
        refused before any write); False where it was no longer open."""
        (done,) = await self.backend.withdraw([Withdrawal(rid, resume_run)])
        return bool(done)

    async def _refund_unplayable(self, who: Auth, entry: GameEntry, rid: str, username: str,
                                 owner: str, key: str, values: dict[str, Any],
                                 debit_response: dict[str, Any] | None,
                                 debit_balance: int | None,
                                 contributions: tuple[tuple[int, int], ...]
                                 ) -> dict[str, Any] | None:
        """A round whose play raised (a defect, never a game's outcome), settled by the
        better-of rule in the settling write: it won nothing, so its bet is refunded (the debit
        ``done`` and a max bet's contributions added, as any settling; the round ``crediting``,
        outcome ``better_of_refund``, with the bet's credit row; its run's figures without its
        bet; the player told at their next login); then the credit sent and the round
        ``cancelled`` (:meth:`pay`). Its answer (None: taken over meanwhile, its key
        answers)."""
        now = utcnow()
        settled = {"status": CREDITING, "win_credits": 0, "win": 0, "uncapped_win": 0,
                   "jackpot_win": 0, "jackpots": [], "step": values["step"],
                   "outcome": "better_of_refund", "awaiting": None, "notice_pending": True,
                   "updated_at": now}
        body = round_view.round_public(self.ctx, cast(Round, SimpleNamespace(
            **{**values, **settled, "events": None})), debit_balance)
        w = Settling(who.player_id, rid, debit_txid(rid), now, debit_balance,
                     debit_response or {}, settled, None, owner, key, body,
                     credit_row(rid, username, values["bet"], entry.currency, now),
                     contributions, gives_back=True)
        if not await self.settles.submit(w):
            return None
        assert w.credit is not None
        return await self.pay(who.player_id, username, owner, key, w.credit, w.answer)

    async def _settle_waiting(self, who: Auth, rid: str, owner: str, key: str,
                              values: dict[str, Any], result: RoundResult,
                              debit_response: dict[str, Any] | None, debit_balance: int | None,
                              contributions: tuple[tuple[int, int], ...],
                              waits: Callable[[dict[str, Any], str], None] | None
                              ) -> dict[str, Any] | None:
        """Settle a round that waits for a choice, as every writer leaves one
        (``awaiting_choice``, its step and outcome so far; nothing to credit yet); its answer
        (None: the round was taken over meanwhile, its key answers)."""
        assert result.awaiting is not None
        now = utcnow()
        events = to_jsonable(list(result.events))
        settled = {**{k: values[k] for k in SETTLED}, "status": AWAITING_CHOICE,
                   "win_credits": int(result.win), "step": 1,
                   "awaiting": to_jsonable(result.awaiting.to_json()),
                   "updated_at": now}
        r = {**values, **settled}
        body = round_view.round_public(self.ctx, cast(Round, SimpleNamespace(
            **{**r, "events": events})), debit_balance)
        events_json = json_text(events)
        w = Settling(who.player_id, rid, debit_txid(rid), now, debit_balance,
                     debit_response or {}, settled, events_json, owner, key, body, None,
                     contributions)
        if not await self.settles.submit(w):
            return None
        if waits is not None:
            del r["events"]
            waits(r, events_json)
        return body

    async def _settle(self, who: Auth, entry: GameEntry, rid: str, username: str, owner: str,
                      key: str, values: dict[str, Any], result: RoundResult,
                      debit_response: dict[str, Any] | None, debit_balance: int | None,
                      contributions: tuple[tuple[int, int], ...], pools: Mapping[str, int]
                      ) -> dict[str, Any] | None:
        """Settle, credit and complete a round that completed at once; its answer (None: the
        round was taken over meanwhile, its key answers). One that won jackpots is settled
        alone, its game's pools (``pools``, by tier) locked and each tier paid from its value
        as locked (:func:`jackpots.won`, after the round's contributions); the credit carries
        the win and the jackpots, as the general path's does; a tier the game has no pool for
        pays nothing (:func:`jackpots.payable_tiers` logs it; demo play, whose tiers pay
        reset values, is not offered in operator-wallet mode)."""
        ctx = self.ctx
        now = utcnow()
        events = to_jsonable(list(result.events))
        win_credits = int(result.win)
        uncapped = win_credits * entry.denomination
        cap = entry.cash_cap
        win = uncapped if cap is None else min(uncapped, cap)

        def settling(won: Sequence[Mapping[str, Any]] = (),
                     awards: tuple[tuple[int, int, int], ...] = ()) -> Settling:
            jackpot_win = sum(int(j["amount"]) for j in won)
            settled = {"status": CREDITING, "win_credits": win_credits, "win": win,
                       "uncapped_win": uncapped, "jackpot_win": jackpot_win,
                       "jackpots": [dict(j) for j in won], "step": 1, "outcome": "played",
                       "awaiting": None, "notice_pending": False, "updated_at": now}
            r = {**values, **settled, "events": events}
            body = round_view.round_public(ctx, cast(Round, SimpleNamespace(**r)),
                                           debit_balance)
            return Settling(who.player_id, rid, debit_txid(rid), now, debit_balance,
                            debit_response or {}, settled, json_text(events), owner, key, body,
                            credit_row(rid, username, win + jackpot_win, entry.currency, now),
                            contributions, awards)

        tiers = jackpots.payable_tiers(who.demo, entry, result.jackpots, pools)
        if tiers and not who.demo:
            def build(locked: Mapping[int, tuple[int, int]]) -> Settling:
                return settling(*jackpots.won(tiers, pools, locked, contributions))

            w, done = await self.backend.settle_won(who.player_id, list(pools.values()), build)
        else:
            w = settling()
            done = bool(await self.settles.submit(w))
        if not done:
            return None
        assert w.credit is not None
        paid = w.credit["amount"]
        metrics.round_settled(entry.id, entry.currency, values["bet"], paid, round_id=rid,
                              player_id=who.player_id, free=False, demo=who.demo)
        return await self.pay(who.player_id, username, owner, key, w.credit, w.answer)

    async def pay(self, player_id: int, username: str, owner: str, key: str | None,
                  credit: dict[str, Any], body: dict[str, Any]) -> dict[str, Any] | None:
        """After the settling write: the round's credit sent and, once confirmed, the round
        completed; its answer (``crediting`` while the credit is not confirmed: the sweep
        carries on; None: the round was taken over meanwhile, its key answers)."""
        payload = {"transaction_id": credit["transaction_id"], "round_id": body["round_id"],
                   "player_id": username, "amount": credit["amount"],
                   "currency": credit["currency"]}
        out, attempts = await self.wallet.attempt_async(CREDIT, payload, self.wallet.max_attempts)
        if out.kind != "ok":
            log.warning("credit of round %s not confirmed (%s): the round stays crediting",
                        body["round_id"], out.code)
            await run_in_threadpool(self._credit_pending, credit, attempts, out.code)
            return body
        done = utcnow()
        status = CANCELLED if body.get("outcome") in REFUND_OUTCOMES else COMPLETED
        final = {**body, "status": status, "balance": out.balance,
                 "completed_at": round_view.iso(done)}
        if not await self.completes.submit(Completion(
                player_id, body["round_id"], credit["transaction_id"], done, attempts,
                out.balance, out.body or {}, owner, key, final, status)):
            return None
        return final

    def _credit_pending(self, credit: dict[str, Any], attempts: int, code: str) -> None:
        """A credit not confirmed inline: due again as the adapter schedules it (the sweep)."""
        assert self.wallet.store is not None
        status, when = self.wallet._next_attempt(None, attempts, utcnow())
        self.wallet.store.update(credit["transaction_id"], status=status or PENDING,
                                 attempts=attempts, next_attempt_at=when, last_error=code)


def _open_round(who: Auth, entry: GameEntry, credits: int, bet: int, rid: str, seed: Seed,
                now: datetime) -> dict[str, Any]:
    """The ``open`` round as the general path inserts it before it is played."""
    return {
        **_ROUND_COLUMNS,  # every column (one added later is None, as on a new Round)
        "id": rid, "player_id": who.player_id, "game_id": entry.id,
        "model_hash": entry.game.model_hash, "variant": entry.variant,
        "code_version": CODE_VERSION, "currency": entry.currency,
        "denomination": entry.denomination, "bet_credits": credits, "bet": bet,
        "win_credits": 0, "win": 0, "uncapped_win": 0, "jackpot_win": 0, "jackpots": [],
        "status": OPEN, "seeds": [seed.hex()], "choices": [], "auto_seeds": [], "events": None,
        "awaiting": None, "step": 0, "outcome": None, "notice_pending": False,
        "free_round_id": None, "autoplay_run_id": None,
        "created_at": now, "updated_at": now, "completed_at": None}


def credit_row(rid: str, username: str, amount: int, currency: str, now: datetime
               ) -> dict[str, Any]:
    """The row of a round's credit (its win) in the operations log, ``pending``."""
    return op_row(credit_txid(rid, 0), CREDIT, rid, username, amount, currency, now)


def op_row(txid: str, kind: str, rid: str, username: str, amount: int, currency: str,
        now: datetime) -> dict[str, Any]:
    """A new row of the operations log, as :meth:`OperatorWalletStore.ensure` makes it."""
    return {"transaction_id": txid, "kind": kind, "round_id": rid, "player_id": username,
            "amount": amount, "currency": currency, "reference_transaction_id": None,
            "status": PENDING, "attempts": 0, "next_attempt_at": now, "last_error": None,
            "balance": None, "response": None, "created_at": now, "updated_at": now,
            "completed_at": None,
            "keep_until": add_months(now, KEEP_UNPAID_MONTHS) if kind == CREDIT else None}
