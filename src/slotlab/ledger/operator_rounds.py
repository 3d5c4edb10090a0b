"""Operator-wallet rounds (seamless wallet) in batches: the three writes of a round whose money
is the operator's, each grouped with the same write of concurrent rounds in one transaction.

A round's money moves at the operator (server/operator_rounds.py sends the calls); what is
written here is the record the calls are made from, so that a crash at any point leaves
something the sweep finishes (services/round_operator.py, services/round_recovery.py):

1. :class:`Opening`, BEFORE the debit is sent: the debit's row in the operations log
   (``pending``), the round (``open``, its seed recorded) and the idempotency key (reserved, no
   answer yet), after the general path's checks with the wallet locked (PostgreSQL: in the one
   statement, the round left out where its wallet changed since the statement began, as the
   round writer's rule; ledger/postgres.py): the wallet's currency,
   no live round, the key unused, the player's loss limits (:mod:`.loss_limits`, the general
   path's count), the pace of a paced profile (the player's last round time stamped), an
   autoplay run still active with the figures its row had when read (the opened round's share
   added: one round, its bet; stopped if the round meets a condition:
   ``autoplay_runs.stop_reason``), the session it is played under still live and the
   player still in its jurisdiction (its last-seen time set when due). A retry (the key used
   before: :class:`~.batch.Stored`), a round too soon for the pace or a bet past a loss limit
   (:class:`~.batch.Refused`) is said so, decided in the general path's order (the key, a live
   round, the pace, the loss limits), and nothing is written but the session's last-seen time.
2. :class:`Settling`, once the operator confirmed the debit and the round was played: the debit
   ``done`` with the operator's answer, the round ``crediting`` with its outcome (its win added
   to its autoplay run's figures; a round that could not be played, refunded: its bet taken
   off them) and the credit's row (``pending``), or the round
   ``awaiting_choice`` with no credit yet (its choice's write carries it:
   server/fast_choices.py), the key's answer and a max bet's jackpot contributions (the pools
   locked last, in tier order, as every writer locks them). Only while the round is still
   ``open`` and its debit still ``pending`` (the sweep may have rolled back a debit it judged
   cut off).
3. :class:`Completion`, once the operator confirmed the credit: the credit ``done``, the round
   ``completed`` (``cancelled`` where the credit gave its bet back), the key's answer as the
   round now is, and the round's other stored answers (its start's, where a choice completed
   it) with its status, balance and completion time.

Or, after the opening, :class:`Withdrawal`: a round whose debit was refused or rolled back is
taken out again, its key freed and its run's figures without it.

The rows are the ones the general path writes for the same round (services/rounds.py,
store/operator_wallet.py; tests/server/test_operator_rounds.py holds them equal). The internal
ledger is not touched: in this mode the operations log is the money record.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import asyncpg
from sqlalchemy.dialects import sqlite as sqlite_dialect

from slotlab.json_text import json_object_with, json_text
from slotlab.ledger.batch import (
    KEY,
    LOSS_LIMIT,
    PACE,
    RUN_ACTIVE,
    RUN_STOPPED,
    Refused,
    RoundSession,
    Stored,
    pool_moves,
)
from slotlab.ledger.loss_limits import LOSS
from slotlab.ledger.postgres import (
    CONTRIBUTIONS,
    KEYED_PLANS,
    LOCK_WALLET,
    OP_COLUMNS,
    SESSION_FIELDS,
    SESSION_LIVE,
    asyncpg_dsn,
    first_loss_limit_passed,
    limit_passed,
    lock_pools,
    locked_wallets,
    no_reset,
    row_sql,
    session_fields,
    session_seen,
    status_is,
)
from slotlab.ledger.sqlite import (
    INSERT_OP,
    OP_PROCESSORS,
    READ_TIME,
    add_pool_moves,
    immediate,
    mark_seen,
    pool_values,
    run_unchanged,
    session_live,
    too_soon,
    writer_connection,
)
from slotlab.ledger.sqlite import loss_limit_passed as sqlite_loss_limit_passed
from slotlab.store.models import COMPLETED, CREDITING, LIVE_STATUSES, OPEN, Round
from slotlab.store.operator_wallet import DONE, PENDING, OperatorWalletOp


@dataclass(slots=True)
class Opening:
    player_id: int
    currency: str  # the wallet must hold it
    owner: str  # of the idempotency key
    key: str
    request_hash: str
    at: datetime
    pace_ms: int  # the profile's minimum time between the player's rounds (0: none)
    round_values: dict[str, Any]  # every column of ``rounds`` but ``seq``
    debit: dict[str, Any]  # every column of ``operator_wallet_ops`` but ``id``
    # A round of an autoplay run: (run id, the run's figures as read: rounds, bet charged, paid,
    # best single payment; the stop reason the opened round meets, or None). The write requires
    # the run still active with those figures, and stops it for that reason (RoundWrite's rule).
    autoplay: tuple[int, tuple[int, int, int, int], str | None] | None = None
    # The session the round is played under, checked and its last-seen time set when due
    # (RoundWrite's rule).
    session: RoundSession | None = None


@dataclass(slots=True)
class Settling:
    player_id: int
    round_id: str
    debit_txid: str
    at: datetime
    debit_balance: int | None  # the operator's answer to the debit
    debit_response: dict[str, Any]
    # The columns settling sets (:data:`SETTLED`) and the events as JSON text (None: a round
    # that could not be played, refunded: ``gives_back``).
    settled: dict[str, Any]
    events_json: str | None
    owner: str
    key: str
    answer: dict[str, Any]  # the key's stored answer
    credit: dict[str, Any] | None  # the credit's row, every column but ``id`` (None: waiting)
    # A max bet's jackpot contributions, (pool id, micro-units) in tier order: added once the
    # operator confirmed the bet, as the general path adds them once it is debited.
    contributions: tuple[tuple[int, int], ...] = ()
    # The jackpots the round won, as RoundWrite.awards (written by ``settle_won`` only, the
    # pools locked); their amounts are in ``settled``, the answer and the credit already.
    awards: tuple[tuple[int, int, int], ...] = ()
    # A round settled by a refund of its bet (it could not be played): its run's figures no
    # longer charge it (the credit's row gives the bet back).
    gives_back: bool = False


@dataclass(slots=True)
class Completion:
    player_id: int
    round_id: str
    credit_txid: str
    at: datetime
    attempts: int
    credit_balance: int | None
    credit_response: dict[str, Any]
    owner: str
    key: str | None  # None: no request (an auto-completion), no key of its own to answer
    answer: dict[str, Any]  # the key's stored answer once completed
    status: str = COMPLETED  # the round's, once credited (``cancelled``: its bet given back)


@dataclass(slots=True)
class Withdrawal:
    """An ``open`` round whose debit the operator did not confirm: it never took place. The
    round and its reserved key are deleted (a retry with the key asks again; the debit's row
    stays in the operations log), its run's figures no longer count it, and ``resume_run``: the
    run its opening stopped goes on (the caller read that the run stopped at this round's
    start for a condition its figures without it do not meet)."""

    round_id: str
    resume_run: bool = False


_OPS = OperatorWalletOp.__table__
_ROUND_COLUMNS = [c for c in Round.__table__.columns if c.key != "seq"]
_LIVE = ", ".join(f"'{s}'" for s in LIVE_STATUSES)
# A withdrawn round's run goes on where it was asked to and its opening stopped it.
_RESUMES = f"o.resume AND a.status = '{RUN_STOPPED}' AND a.stopped_at = o.created_at"
# The columns a settling sets (Settling.settled).
SETTLED = ("status", "win_credits", "win", "uncapped_win", "jackpot_win", "jackpots", "step",
           "outcome", "awaiting", "notice_pending", "updated_at")


# -- PostgreSQL ---------------------------------------------------------------------------------


# One statement, its own transaction. Its snapshot is taken before it locks the wallets, so an
# opening whose wallet row changed meanwhile (another transaction's round of the player written
# under the lock) is left out, as the round writer leaves such a round out (locked_wallets):
# the caller takes the general path for it. An opening does not move the wallet's balance, so it
# writes the row as it is (``wv``): its new version is what tells a concurrent opening of the
# same player, as a debit's does.
OPEN_SQL = f"""/* slotlab operator round opening */
WITH r AS MATERIALIZED (
  SELECT * FROM json_to_recordset($1::json) AS r(n int, pid bigint, currency text, owner text,
    key text, req_hash text, ts timestamptz, pace_ms int, row json, op json, ap_id bigint,
    ap_rounds bigint, ap_bet bigint, ap_win bigint, ap_best bigint, ap_stop text,
    {", ".join(f"{f} {t}" for f, t in SESSION_FIELDS)})
), {locked_wallets("w.currency")},
lka AS MATERIALIZED (  -- locked after the wallets (lk): the global lock order
  SELECT a.id, a.status, a.rounds_played, a.total_bet, a.total_win, a.best_win
  FROM autoplay_runs a
  WHERE a.id IN (SELECT r.ap_id FROM lk JOIN r ON r.pid = lk.player_id WHERE r.ap_id IS NOT NULL)
  ORDER BY a.id FOR UPDATE
), chk AS MATERIALIZED (  -- each opening's checks (a wallet changed meanwhile: no row at all)
  SELECT r.*, lk.id AS wallet_id, p.last_round_at AS last_at,
    k.request_hash AS k_hash, k.status_code AS k_status, k.response::text AS k_answer,
    -- the general path's checks before the key (the session; the currency, checked with the
    -- round there), and the batch's own
    coalesce(lk.currency = r.currency
      AND (SELECT count(*) FROM r AS twice WHERE twice.pid = r.pid) = 1
      AND {SESSION_LIVE}, false) AS valid,
    -- after the key, before the pace: the run as read, no live round
    coalesce((r.ap_id IS NULL OR (lka.status = '{RUN_ACTIVE}' AND (r.ap_rounds, r.ap_bet,
         r.ap_win, r.ap_best) = (lka.rounds_played, lka.total_bet, lka.total_win, lka.best_win)))
      AND NOT EXISTS (SELECT 1 FROM rounds o WHERE o.player_id = r.pid
                      AND o.status IN ({_LIVE})), false) AS ready,
    (r.pace_ms = 0 OR p.last_round_at IS NULL
     OR p.last_round_at <= r.ts - r.pace_ms * interval '1 millisecond') AS paced,
    {first_loss_limit_passed("r.pid", "(r.row->>'bet')::bigint", "r.ts")} AS over
  FROM r JOIN lk ON lk.player_id = r.pid JOIN snap ON snap.id = lk.id AND snap.x = lk.x
  JOIN players p ON p.id = r.pid LEFT JOIN lka ON lka.id = r.ap_id
  LEFT JOIN idempotency_keys k ON k.owner = r.owner AND k.key = r.key
), ok AS MATERIALIZED (
  SELECT chk.* FROM chk
  WHERE chk.valid AND chk.k_hash IS NULL AND chk.ready AND chk.paced AND chk.over IS NULL
), refused AS MATERIALIZED (  -- batch.Refused and batch.Stored, in the general path's order
  SELECT chk.n, chk.ts, chk.sid, chk.seen, chk.last_at, chk.over, chk.k_hash, chk.k_status,
    chk.k_answer, CASE WHEN chk.k_hash IS NOT NULL THEN '{KEY}' WHEN NOT chk.paced
      THEN '{PACE}' ELSE '{LOSS_LIMIT}' END AS reason
  FROM chk WHERE chk.valid AND (chk.k_hash IS NOT NULL
    OR (chk.ready AND (NOT chk.paced OR chk.over IS NOT NULL)))
), seen AS (
  {session_seen("ok")}
), seen_refused AS (
  {session_seen("refused")}
), wv AS (
  UPDATE wallets SET balance = wallets.balance FROM ok
  WHERE wallets.id = ok.wallet_id RETURNING 1
), pace AS (
  UPDATE players SET last_round_at = ok.ts FROM ok
  WHERE players.id = ok.pid AND ok.pace_ms > 0 RETURNING players.id
), aps AS (
  UPDATE autoplay_runs a SET rounds_played = a.rounds_played + 1,
    total_bet = a.total_bet + (ok.row->>'bet')::bigint,
    status = CASE WHEN ok.ap_stop IS NULL THEN a.status ELSE '{RUN_STOPPED}' END,
    stop_reason = coalesce(ok.ap_stop, a.stop_reason),
    stopped_at = CASE WHEN ok.ap_stop IS NULL THEN a.stopped_at ELSE ok.ts END
  FROM ok WHERE a.id = ok.ap_id RETURNING a.id
), ri AS (
  INSERT INTO rounds ({", ".join(c.key for c in _ROUND_COLUMNS)})
  SELECT {row_sql(_ROUND_COLUMNS, "x")}
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::rounds, ok.row) AS x ORDER BY ok.n
  RETURNING 1
), ki AS (
  INSERT INTO idempotency_keys (owner, key, request_hash, round_id, status_code, response,
                                created_at)
  SELECT ok.owner, ok.key, ok.req_hash, ok.row->>'id', NULL, NULL, ok.ts FROM ok ORDER BY ok.n
  RETURNING 1
), oi AS (
  INSERT INTO operator_wallet_ops ({", ".join(c.key for c in OP_COLUMNS)})
  SELECT {row_sql(OP_COLUMNS, "x")}
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::operator_wallet_ops, ok.op) AS x
  ORDER BY ok.n RETURNING 1
)
SELECT ok.n, NULL::text AS reason, NULL::timestamptz AS last_at, NULL::text AS over,
  NULL::text AS k_hash, NULL::int AS k_status, NULL::text AS k_answer
FROM ok
UNION ALL
SELECT f.n, f.reason, f.last_at, f.over, f.k_hash, f.k_status, f.k_answer FROM refused f
"""
SETTLE_SQL = f"""/* slotlab operator round settling */
WITH r AS MATERIALIZED (
  SELECT * FROM json_to_recordset($1::json) AS r(n int, rid text, txid text, ts timestamptz,
    balance bigint, response json, st json, events json, owner text, key text, answer json,
    op json, contrib json, back boolean)
), ok AS MATERIALIZED (
  SELECT r.* FROM r JOIN rounds o ON o.id = r.rid JOIN operator_wallet_ops d
    ON d.transaction_id = r.txid
  WHERE {status_is("o", OPEN)} AND {status_is("d", PENDING)} FOR UPDATE OF o, d
), ru AS (
  UPDATE rounds o SET {", ".join(f"{c} = x.{c}" for c in SETTLED)}, events = ok.events
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::rounds, ok.st) AS x
  WHERE o.id = ok.rid RETURNING o.id, o.autoplay_run_id AS run, x.win + x.jackpot_win AS win,
    CASE WHEN ok.back THEN o.bet ELSE 0 END AS back
), au AS (
  UPDATE autoplay_runs a SET total_win = a.total_win + ru.win, total_bet = a.total_bet - ru.back,
    best_win = greatest(a.best_win, ru.win)
  FROM ru WHERE a.id = ru.run RETURNING 1
), du AS (
  UPDATE operator_wallet_ops d SET status = '{DONE}', attempts = 1, balance = ok.balance,
    response = ok.response, completed_at = ok.ts, next_attempt_at = NULL, last_error = NULL,
    updated_at = ok.ts
  FROM ok WHERE d.transaction_id = ok.txid RETURNING 1
), ci AS (
  INSERT INTO operator_wallet_ops ({", ".join(c.key for c in OP_COLUMNS)})
  SELECT {row_sql(OP_COLUMNS, "x")}
  FROM ok CROSS JOIN LATERAL json_populate_record(NULL::operator_wallet_ops, ok.op) AS x
  WHERE json_typeof(ok.op) = 'object' ORDER BY ok.n RETURNING 1
), ku AS (
  UPDATE idempotency_keys k SET status_code = 201, response = ok.answer FROM ok
  WHERE k.owner = ok.owner AND k.key = ok.key RETURNING 1
), c AS MATERIALIZED (
  SELECT ok.n, ok.rid, ok.ts, e.pool, e.kind, e.micro, e.i FROM ok
  CROSS JOIN LATERAL json_to_recordset(ok.contrib) AS e(i int, pool bigint, kind text, micro bigint)
), {CONTRIBUTIONS}
SELECT ok.n FROM ok
"""
COMPLETE_SQL = f"""/* slotlab operator round completion */
WITH r AS MATERIALIZED (
  SELECT * FROM json_to_recordset($1::json) AS r(n int, rid text, txid text, ts timestamptz,
    attempts int, balance bigint, response json, owner text, key text, answer json,
    status text)
), cu AS (
  UPDATE operator_wallet_ops d SET status = '{DONE}', attempts = r.attempts,
    balance = r.balance, response = r.response, completed_at = r.ts, next_attempt_at = NULL,
    last_error = NULL, updated_at = r.ts
  FROM r WHERE d.transaction_id = r.txid RETURNING 1
), ru AS (
  UPDATE rounds o SET status = r.status, completed_at = r.ts, updated_at = r.ts FROM r
  WHERE o.id = r.rid AND {status_is("o", CREDITING)} RETURNING o.id
), ku AS (
  UPDATE idempotency_keys k SET response = r.answer FROM r JOIN ru ON ru.id = r.rid
  WHERE k.owner = r.owner AND k.key = r.key AND k.response IS NOT NULL RETURNING 1
), ko AS (  -- the round's earlier answers (its start, before a choice) follow
  UPDATE idempotency_keys k SET response = (k.response::jsonb || jsonb_build_object(
    'status', r.answer::jsonb -> 'status', 'balance', r.answer::jsonb -> 'balance',
    'completed_at', r.answer::jsonb -> 'completed_at'))::json
  FROM r JOIN ru ON ru.id = r.rid
  WHERE k.round_id = r.rid AND (k.owner, k.key) <> (r.owner, r.key)
    AND k.response IS NOT NULL RETURNING 1
)
SELECT r.n FROM r JOIN ru ON ru.id = r.rid
"""


WITHDRAW_SQL = f"""/* slotlab operator round withdrawal */
WITH r AS MATERIALIZED (
  SELECT * FROM json_to_recordset($1::json) AS r(n int, rid text, resume boolean)
), o AS MATERIALIZED (
  SELECT r.n, r.resume, o.id, o.autoplay_run_id AS run, o.created_at,
    CASE WHEN o.free_round_id IS NULL THEN o.bet ELSE 0 END AS charged
  FROM r JOIN rounds o ON o.id = r.rid WHERE {status_is("o", OPEN)} FOR UPDATE OF o
), kd AS (
  DELETE FROM idempotency_keys k USING o WHERE k.round_id = o.id RETURNING 1
), od AS (
  DELETE FROM rounds x USING o WHERE x.id = o.id RETURNING 1
), au AS (
  UPDATE autoplay_runs a SET rounds_played = a.rounds_played - 1,
    total_bet = a.total_bet - o.charged,
    status = CASE WHEN {_RESUMES} THEN '{RUN_ACTIVE}' ELSE a.status END,
    stop_reason = CASE WHEN {_RESUMES} THEN NULL ELSE a.stop_reason END,
    stopped_at = CASE WHEN {_RESUMES} THEN NULL ELSE a.stopped_at END
  FROM o WHERE a.id = o.run RETURNING 1
)
SELECT o.n FROM o
"""


def _opening_json(n: int, w: Opening) -> str:
    ap: dict[str, Any] = {}
    if w.autoplay is not None:
        run, (rounds, bet, win, best), stop = w.autoplay
        ap = {"ap_id": run, "ap_rounds": rounds, "ap_bet": bet, "ap_win": win, "ap_best": best,
              "ap_stop": stop}
    return json_text({"n": n, "pid": w.player_id, "currency": w.currency, "owner": w.owner,
                      "key": w.key, "req_hash": w.request_hash, "ts": w.at,
                      "pace_ms": w.pace_ms, "row": w.round_values, "op": w.debit, **ap,
                      **session_fields(w.session)})


def _settling_json(n: int, w: Settling) -> str:
    record = json_text({"n": n, "rid": w.round_id, "txid": w.debit_txid, "ts": w.at,
                        "balance": w.debit_balance, "response": w.debit_response,
                        "st": w.settled, "owner": w.owner, "key": w.key, "answer": w.answer,
                        "op": w.credit, "back": w.gives_back,
                        "contrib": [{"i": i, "pool": pool, "kind": kind, "micro": micro}
                                    for i, (pool, kind, micro)
                                    in enumerate(pool_moves(w.contributions, w.awards))]})
    return json_object_with(record, events=w.events_json or "null")


def _withdrawal_json(n: int, w: Withdrawal) -> str:
    return json_text({"n": n, "rid": w.round_id, "resume": w.resume_run})


def _completion_json(n: int, w: Completion) -> str:
    return json_text({"n": n, "rid": w.round_id, "txid": w.credit_txid, "ts": w.at,
                      "attempts": w.attempts, "balance": w.credit_balance,
                      "response": w.credit_response, "owner": w.owner, "key": w.key,
                      "answer": w.answer, "status": w.status})


def _array(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


class PostgresOperatorRounds:
    """The three writes on a small asyncpg pool of its own, each batch one transaction."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    @classmethod
    async def connect(cls, url: str, connections: int, prepared: bool = True
                      ) -> PostgresOperatorRounds:
        pool = await asyncpg.create_pool(
            asyncpg_dsn(url), min_size=connections, max_size=connections,
            reset=no_reset, statement_cache_size=100 if prepared else 0,
            server_settings=KEYED_PLANS if prepared else None)
        return cls(pool)

    async def open(self, batch: Sequence[Opening]) -> list[Opened]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(OPEN_SQL, _array(
                [_opening_json(n, w) for n, w in enumerate(batch)]))
        return _opened(len(batch), rows)

    async def settle(self, batch: Sequence[Settling]) -> Sequence[bool | None]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(SETTLE_SQL, _array(
                [_settling_json(n, w) for n, w in enumerate(batch)]))
        return _done(len(batch), rows)

    async def settle_won(self, player_id: int, pools: Sequence[int],
                         build: Callable[[Mapping[int, tuple[int, int]]], Settling]
                         ) -> tuple[Settling, bool]:
        """A round that won jackpots, settled alone: the wallet locked, then the game's pools
        in tier order, ``build`` given their values (pool id -> (value, reset value)) to make
        the settling with its awards, then the settling statement (ledger/postgres.py's
        ``write_won`` for the internal wallet)."""
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(LOCK_WALLET, player_id)
            w = build(await lock_pools(conn, pools))
            rows = await conn.fetch(SETTLE_SQL, _array([_settling_json(0, w)]))
        return w, bool(rows)

    async def complete(self, batch: Sequence[Completion]) -> Sequence[bool | None]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(COMPLETE_SQL, _array(
                [_completion_json(n, w) for n, w in enumerate(batch)]))
        return _done(len(batch), rows)

    async def withdraw(self, batch: Sequence[Withdrawal]) -> Sequence[bool | None]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(WITHDRAW_SQL, _array(
                [_withdrawal_json(n, w) for n, w in enumerate(batch)]))
        return _done(len(batch), rows)

    async def close(self) -> None:
        await self.pool.close()


W = TypeVar("W")  # one item of a batch (an opening, a settling, a completion)
R = TypeVar("R")  # what the write says of it
# What the opening says of a round: opened, refused for a reason the player is told, its key
# used before, or not opened (the general path's).
Opened = bool | Refused | Stored


def _opened(size: int, rows: Sequence[Any]) -> list[Opened]:
    out: list[Opened] = [False] * size
    for row in rows:
        reason = row["reason"]
        out[row["n"]] = (
            True if reason is None
            else Stored(row["k_hash"], row["k_status"], row["k_answer"]) if reason == KEY
            else Refused(reason, last_round_at=row["last_at"],
                         limit=None if row["over"] is None else limit_passed(row["over"])))
    return out


def _done(size: int, rows: Sequence[Any]) -> list[bool | None]:
    out: list[bool | None] = [False] * size
    for row in rows:
        out[row["n"]] = True
    return out


# -- SQLite ---------------------------------------------------------------------------------------

_DIALECT = sqlite_dialect.pysqlite.dialect(json_serializer=json_text)  # as the engine's
Processor = Callable[[Any], Any]


def _processors(table: Any, keys: Sequence[str]) -> list[tuple[str, Processor]]:
    out = []
    for k in keys:
        p = table.c[k].type.dialect_impl(_DIALECT).bind_processor(_DIALECT)
        out.append((k, p if p is not None else (lambda v: v)))
    return out


_ROUNDS = Round.__table__
_ROUND_PROCESSORS = _processors(_ROUNDS, [c.key for c in _ROUND_COLUMNS])
_TIME = _processors(_OPS, ["created_at"])[0][1]
_JSON = _processors(_OPS, ["response"])[0][1]
_S_INSERT_ROUND = (f"INSERT INTO rounds ({', '.join(k for k, _ in _ROUND_PROCESSORS)}) "
                   f"VALUES ({', '.join('?' for _ in _ROUND_PROCESSORS)})")
_S_CHECK = f"""
SELECT w.currency,
  EXISTS (SELECT 1 FROM rounds o WHERE o.player_id = w.player_id AND o.status IN ({_LIVE})),
  k.request_hash, k.status_code, k.response,
  EXISTS (SELECT 1 FROM player_limits l WHERE l.player_id = w.player_id
          AND l.kind = '{LOSS}'),
  (SELECT p.last_round_at FROM players p WHERE p.id = w.player_id)
FROM wallets w LEFT JOIN idempotency_keys k ON k.owner = ? AND k.key = ?
WHERE w.player_id = ?
"""
# An autoplay run's round opened (its share: one round, its bet; stopped where it meets a stop
# condition), then its win added once it is settled (its bet given back where it is refunded).
_S_RUN_OPENED = ("UPDATE autoplay_runs SET rounds_played = rounds_played + 1, "
                 "total_bet = total_bet + ?, status = coalesce(?, status), "
                 "stop_reason = coalesce(?, stop_reason), stopped_at = coalesce(?, stopped_at) "
                 "WHERE id = ?")
_S_RUN_WON = ("UPDATE autoplay_runs SET total_win = total_win + ?, best_win = max(best_win, ?), "
              "total_bet = total_bet - CASE WHEN ? THEN (SELECT bet FROM rounds WHERE id = ?) "
              "ELSE 0 END WHERE id = (SELECT autoplay_run_id FROM rounds WHERE id = ?)")
_S_RESUMES = f"? AND status = '{RUN_STOPPED}' AND stopped_at = ?"  # resume, created_at
_S_RUN_WITHDRAWN = (
    "UPDATE autoplay_runs SET rounds_played = rounds_played - 1, total_bet = total_bet - ?, "
    f"status = CASE WHEN {_S_RESUMES} THEN '{RUN_ACTIVE}' ELSE status END, "
    f"stop_reason = CASE WHEN {_S_RESUMES} THEN NULL ELSE stop_reason END, "
    f"stopped_at = CASE WHEN {_S_RESUMES} THEN NULL ELSE stopped_at END WHERE id = ?")
_S_SETTLE_PROCESSORS = _processors(_ROUNDS, SETTLED)
_S_SETTLE = (f"UPDATE rounds SET {', '.join(f'{k} = ?' for k in SETTLED)}, events = ? "
             f"WHERE id = ? AND status = '{OPEN}'")
_S_OP_DONE = (f"UPDATE operator_wallet_ops SET status = '{DONE}', attempts = ?, balance = ?, "
              "response = ?, completed_at = ?, next_attempt_at = NULL, last_error = NULL, "
              "updated_at = ? WHERE transaction_id = ?")


def _row(processors: list[tuple[str, Processor]], values: dict[str, Any]) -> list[Any]:
    return [p(values[k]) for k, p in processors]


class SqliteOperatorRounds:
    """The three writes on one connection in one thread, each batch one ``BEGIN IMMEDIATE``
    transaction (one fsync with ``synchronous=FULL``)."""

    def __init__(self, url: str, *, busy_timeout_ms: int, synchronous: str) -> None:
        self._con = writer_connection(url, busy_timeout_ms, synchronous)
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="slotlab-operator-writer")

    async def _run(self, one: Callable[[sqlite3.Connection, W], R], batch: Sequence[W]
                   ) -> list[R]:
        def write() -> list[R]:
            with immediate(self._con):
                return [one(self._con, w) for w in batch]

        return await asyncio.get_running_loop().run_in_executor(self._executor, write)

    async def open(self, batch: Sequence[Opening]) -> list[Opened]:
        return await self._run(self._open, batch)

    async def settle(self, batch: Sequence[Settling]) -> Sequence[bool | None]:
        return await self._run(self._settle, batch)

    async def settle_won(self, player_id: int, pools: Sequence[int],
                         build: Callable[[Mapping[int, tuple[int, int]]], Settling]
                         ) -> tuple[Settling, bool]:
        """A round that won jackpots, settled alone with the write lock held: ``build`` given
        the pools' values (pool id -> (value, reset value)) to make the settling."""
        del player_id  # one writer at a time: nothing else to lock

        def write() -> tuple[Settling, bool]:
            with immediate(self._con):
                w = build(pool_values(self._con, pools))
                return w, self._settle(self._con, w)

        return await asyncio.get_running_loop().run_in_executor(self._executor, write)

    async def complete(self, batch: Sequence[Completion]) -> Sequence[bool | None]:
        return await self._run(self._complete, batch)

    async def withdraw(self, batch: Sequence[Withdrawal]) -> Sequence[bool | None]:
        return await self._run(self._withdraw, batch)

    @staticmethod
    def _open(con: sqlite3.Connection, w: Opening) -> Opened:
        row = con.execute(_S_CHECK, (w.owner, w.key, w.player_id)).fetchone()
        if row is None:
            return False
        currency, live, key_hash, key_status, key_answer, limited, last_round_at = row
        at = _TIME(w.at)
        if currency != w.currency or not session_live(con, w.session, w.player_id, at):
            return False
        # What the player is told (batch.Stored, batch.Refused), in the general path's order.
        if key_hash is not None:
            mark_seen(con, w.session, at)
            return Stored(key_hash, key_status, key_answer)
        if live or (w.autoplay is not None and not run_unchanged(con, w.autoplay[0],
                                                                 w.autoplay[1])):
            return False  # a live round; a run stopped, or played, since it was read
        if too_soon(last_round_at, w.at, w.pace_ms):
            mark_seen(con, w.session, at)
            return Refused(PACE, last_round_at=READ_TIME(last_round_at))
        over = (sqlite_loss_limit_passed(con, w.player_id, w.round_values["bet"], w.at)
                if limited else None)
        if over is not None:
            mark_seen(con, w.session, at)
            return Refused(LOSS_LIMIT, limit=over)
        if w.autoplay is not None:
            run, _, stop = w.autoplay
            con.execute(_S_RUN_OPENED, (w.round_values["bet"], stop and RUN_STOPPED, stop,
                                        stop and at, run))
        if w.pace_ms:
            con.execute("UPDATE players SET last_round_at = ? WHERE id = ?", (at, w.player_id))
        mark_seen(con, w.session, at)
        con.execute(_S_INSERT_ROUND, _row(_ROUND_PROCESSORS, w.round_values))
        con.execute("INSERT INTO idempotency_keys (owner, key, request_hash, round_id, "
                    "status_code, response, created_at) VALUES (?, ?, ?, ?, NULL, NULL, ?)",
                    (w.owner, w.key, w.request_hash, w.round_values["id"], at))
        con.execute(INSERT_OP, _row(OP_PROCESSORS, w.debit))
        return True

    @staticmethod
    def _settle(con: sqlite3.Connection, w: Settling) -> bool:
        debit = con.execute("SELECT status FROM operator_wallet_ops WHERE transaction_id = ?",
                            (w.debit_txid,)).fetchone()
        if debit is None or debit[0] != PENDING:
            return False
        if con.execute(_S_SETTLE, [*_row(_S_SETTLE_PROCESSORS, w.settled), w.events_json,
                                   w.round_id]).rowcount != 1:
            return False
        at = _TIME(w.at)
        paid = w.settled["win"] + w.settled["jackpot_win"]
        con.execute(_S_RUN_WON, (paid, paid, w.gives_back, w.round_id, w.round_id))
        con.execute(_S_OP_DONE, (1, w.debit_balance, _JSON(w.debit_response), at, at,
                                 w.debit_txid))
        if w.credit is not None:
            con.execute(INSERT_OP, _row(OP_PROCESSORS, w.credit))
        con.execute("UPDATE idempotency_keys SET status_code = 201, response = ? "
                    "WHERE owner = ? AND key = ?", (_JSON(w.answer), w.owner, w.key))
        add_pool_moves(con, [(w.round_id, w.at, pool_moves(w.contributions, w.awards))])
        return True

    @staticmethod
    def _complete(con: sqlite3.Connection, w: Completion) -> bool:
        at = _TIME(w.at)
        con.execute(_S_OP_DONE, (w.attempts, w.credit_balance, _JSON(w.credit_response), at, at,
                                 w.credit_txid))
        if con.execute("UPDATE rounds SET status = ?, completed_at = ?, updated_at = ? "
                       f"WHERE id = ? AND status = '{CREDITING}'",
                       (w.status, at, at, w.round_id)).rowcount != 1:
            return False
        con.execute("UPDATE idempotency_keys SET response = ? WHERE owner = ? AND key = ? "
                    "AND response IS NOT NULL", (_JSON(w.answer), w.owner, w.key))
        a = w.answer  # the round's earlier answers follow
        con.execute("UPDATE idempotency_keys SET response = json_set(response, '$.status', ?, "
                    "'$.balance', ?, '$.completed_at', ?) WHERE round_id = ? "
                    "AND NOT (owner = ? AND key = ?) AND response IS NOT NULL",
                    (a["status"], a.get("balance"), a.get("completed_at"), w.round_id, w.owner,
                     w.key))
        return True

    @staticmethod
    def _withdraw(con: sqlite3.Connection, w: Withdrawal) -> bool:
        row = con.execute(f"SELECT autoplay_run_id, created_at, CASE WHEN free_round_id IS NULL "
                          f"THEN bet ELSE 0 END FROM rounds WHERE id = ? AND status = '{OPEN}'",
                          (w.round_id,)).fetchone()
        if row is None:
            return False
        run, created_at, charged = row
        con.execute("DELETE FROM idempotency_keys WHERE round_id = ?", (w.round_id,))
        con.execute("DELETE FROM rounds WHERE id = ?", (w.round_id,))
        if run is not None:
            con.execute(_S_RUN_WITHDRAWN, (charged, *(w.resume_run, created_at) * 3, run))
        return True

    async def close(self) -> None:
        self._executor.shutdown(wait=True)
        self._con.close()
