"""The fast round write on SQLite: a batch of rounds in one ``BEGIN IMMEDIATE`` transaction.

One writer thread with its own connection (the standard library's sqlite3: no ORM session, no
savepoint per round) runs each batch: per round one SELECT checks, with the write lock held,
what the general path checks (funds, the wallet's currency, no live round, the key unused, the
player's loss limits, the pace of a paced profile, a free round's package and an autoplay run as
they were read, no older package of the free round's game playable, the session still live and
the player in its jurisdiction; for a choice, its round still waiting as it was read); a round
refused for the pace, a loss limit or the funds where the general path would refuse it for them
says so (:class:`~.batch.Refused`), one whose key was used before returns the key's first answer
(:class:`~.batch.Stored`): the caller answers the player; another refused round is the general
path's; a round that passes is debited and credited and its ledger entries, round (a choice's:
updated) and key (where it has one; a split round's opening reserves it with no answer, its
settling answers it) are written; the batch's jackpot contributions are added
to the pools at the end. A round that won jackpots is written alone
(:meth:`SqliteRoundWriter.write_won`), its amounts paid from the pools as read with the write
lock held.
One COMMIT (one fsync with ``synchronous=FULL``) makes the whole batch durable.

Values go through the same SQLAlchemy type processors as the general path's inserts, with the
engine's JSON encoder (:func:`slotlab.json_text.json_text`), so the stored text (times, JSON,
booleans) is the same whichever path wrote a row; the events and the stored answer go in as
the JSON text already encoded for the answer.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import ColumnElement
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import make_url

from slotlab.json_text import json_object_with, json_text
from slotlab.ledger import loss_limits
from slotlab.ledger.batch import (
    CHOICE_COLUMNS,
    FUNDS,
    LOSS_LIMIT,
    PACE,
    RUN_ACTIVE,
    RUN_STOPPED,
    Outcome,
    Refused,
    RoundSession,
    RoundWrite,
    Stored,
    Written,
    pool_moves,
)
from slotlab.ledger.kinds import PLAY_KINDS
from slotlab.store.chain import register_sqlite
from slotlab.store.models import (
    LIVE_STATUSES,
    LedgerEntry,
    Player,
    Round,
)
from slotlab.store.operator_wallet import OperatorWalletOp

_DIALECT = sqlite_dialect.pysqlite.dialect(json_serializer=json_text)  # as the engine's
Processor = Callable[[Any], Any]


def _processor(col: ColumnElement[Any]) -> Processor:
    p = col.type.dialect_impl(_DIALECT).bind_processor(_DIALECT)
    return p if p is not None else (lambda v: v)


_ROUND_COLUMNS = [c for c in Round.__table__.columns if c.key != "seq"]
# The events go in as the JSON text the answer carries (the engine's encoder: the same text).
_ROUND_PROCESSORS = [(c.key, _processor(c) if c.key != "events" else None)
                     for c in _ROUND_COLUMNS]
_INSERT_ROUND = (f"INSERT INTO rounds ({', '.join(c.key for c in _ROUND_COLUMNS)}) "
                 f"VALUES ({', '.join('?' for _ in _ROUND_COLUMNS)})")
_UPDATE_CHOICE = (f"UPDATE rounds SET {', '.join(f'{k} = ?' for k in CHOICE_COLUMNS)} "
                  "WHERE id = ?")
_TIME = _processor(LedgerEntry.__table__.c.created_at)
READ_TIME = cast(Processor, Player.__table__.c.last_round_at.type.dialect_impl(
    _DIALECT).result_processor(_DIALECT, None))  # the stored text as a time
# A row of the operator wallet's operations log (operator-wallet mode), every column but ``id``.
OP_PROCESSORS = [(c.key, _processor(c)) for c in OperatorWalletOp.__table__.columns
                  if c.key != "id"]
INSERT_OP = (f"INSERT INTO operator_wallet_ops ({', '.join(k for k, _ in OP_PROCESSORS)}) "
              f"VALUES ({', '.join('?' for _ in OP_PROCESSORS)})")
# A choice's round, still waiting (or an open round, still open) as it was remembered
# (batch.Continues).
_WAITING = ("SELECT 1 FROM rounds WHERE id = ? AND player_id = ? AND status = ? "
            "AND step = ? AND updated_at = ? AND json(seeds) = json(?) "
            "AND json(choices) = json(?) AND coalesce(json(events), 'null') = json(?)")
# An open round settled: the answer its opening's key waits for (batch.Continues).
_ANSWER_OPENED = ("UPDATE idempotency_keys SET status_code = 201, response = ? "
                  "WHERE round_id = ? AND response IS NULL")
_LIVE = ", ".join(f"'{s}'" for s in LIVE_STATUSES)
_DEMO = ("(SELECT p.demo FROM players p WHERE p.id = w.player_id)"
         if "demo" in Player.__table__.c else "0")
_CHECK = f"""
SELECT w.id, w.balance, w.currency,
  EXISTS (SELECT 1 FROM rounds o WHERE o.player_id = w.player_id AND o.status IN ({_LIVE})),
  k.request_hash, k.status_code, k.response,
  EXISTS (SELECT 1 FROM player_limits l WHERE l.player_id = w.player_id
          AND l.kind = '{loss_limits.LOSS}'),
  {_DEMO},
  (SELECT p.last_round_at FROM players p WHERE p.id = w.player_id)
FROM wallets w LEFT JOIN idempotency_keys k ON k.owner = ? AND k.key = ?
WHERE w.player_id = ?
"""
# An older package of the same player and game still playable: it goes first.
_OLDER_PACKAGE = ("SELECT 1 FROM free_round_packages p JOIN free_round_packages o "
                  "ON o.player_id = p.player_id AND o.game_id = p.game_id AND o.id < p.id "
                  "WHERE p.id = ? AND o.rounds_left > 0 AND o.expires_at > ?")
# The session a round was played under, live at the round's time, its player still in the
# jurisdiction the round was played under (batch.RoundWrite.session).
_SESSION_LIVE = ("SELECT 1 FROM sessions s JOIN players p ON p.id = s.player_id "
                 "WHERE s.id = ? AND s.player_id = ? AND NOT s.revoked AND s.expires_at > ? "
                 "AND p.jurisdiction IS ?")
_NET = (f"SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE wallet_id = ? "
        f"AND created_at >= ? AND kind IN ({', '.join(repr(k) for k in PLAY_KINDS)})")
# A run's round: its share added (a round started: one round, its bet, its win; a choice: its
# win) and, where the round meets a stop condition, the run stopped.
_RUN_ROUND = ("UPDATE autoplay_runs SET rounds_played = rounds_played + ?, "
              "total_bet = total_bet + ?, total_win = total_win + ?, best_win = max(best_win, ?), "
              "status = coalesce(?, status), stop_reason = coalesce(?, stop_reason), "
              "stopped_at = coalesce(?, stopped_at) WHERE id = ?")
_USE_FREE_ROUND = ("UPDATE free_round_packages SET rounds_left = rounds_left - ?, "
                   "total_won = total_won + ? WHERE id = ? AND rounds_left = ? AND total_won = ?")
_INSERT_LEDGER = ("INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, round_id, "
                  "ref, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
_INSERT_KEY = ("INSERT INTO idempotency_keys (owner, key, request_hash, round_id, status_code, "
               "response, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
_INSERT_POOL_ENTRY = ("INSERT INTO jackpot_entries (pool_id, kind, amount_micro, "
                      "value_after_micro, round_id, created_at) VALUES (?, ?, ?, ?, ?, ?)")


def session_live(con: sqlite3.Connection, session: RoundSession | None, player_id: int,
                 at: str) -> bool:
    """The session a round was played under (batch.RoundWrite.session) is live at ``at`` (the
    stored time text) and its player still in that jurisdiction; true where none is named."""
    return session is None or con.execute(
        _SESSION_LIVE, (session[0], player_id, at, session[1])).fetchone() is not None


def mark_seen(con: sqlite3.Connection, session: RoundSession | None, at: str) -> None:
    """The session's last-seen time set to the round's, where it was due."""
    if session is not None and session[2]:
        con.execute("UPDATE sessions SET last_seen = ? WHERE id = ?", (at, session[0]))


def add_pool_moves(con: sqlite3.Connection,
                   rounds: Sequence[tuple[str, datetime, Sequence[tuple[int, str, int]]]]
                   ) -> None:
    """The jackpot pool entries of written rounds (round id, time, (pool id, kind, micro-units):
    :func:`.batch.pool_moves`): each pool read and updated once, an entry per move in round
    order with the pool's value after it."""
    ids = sorted({pool for _, _, moves in rounds for pool, _, _ in moves})
    if not ids:
        return
    marks = ", ".join("?" for _ in ids)
    value = dict(con.execute(
        f"SELECT id, value_micro FROM jackpot_pools WHERE id IN ({marks})", ids).fetchall())
    entries = []
    for round_id, at, moves in rounds:
        for pool, kind, micro in moves:
            value[pool] += micro
            entries.append((pool, kind, micro, value[pool], round_id, _TIME(at)))
    con.executemany(_INSERT_POOL_ENTRY, entries)
    con.executemany("UPDATE jackpot_pools SET value_micro = ? WHERE id = ?",
                    [(v, pool) for pool, v in value.items()])


def pool_values(con: sqlite3.Connection, pools: Sequence[int]) -> dict[int, tuple[int, int]]:
    """Pools by id: (value, reset value), what an award needs (jackpots.won); read with the
    write lock held, so they stay as read until the commit."""
    marks = ", ".join("?" for _ in pools)
    return {pid: (value, reset) for pid, value, reset in con.execute(
        f"SELECT id, value_micro, reset_micro FROM jackpot_pools WHERE id IN ({marks})",
        list(pools)).fetchall()}


def too_soon(last_round_at: str | None, at: datetime, pace_ms: int) -> bool:
    """A paced player's round starting less than ``pace_ms`` after their last one started
    (the stored times are text in one format: they compare as strings)."""
    return bool(pace_ms) and last_round_at is not None and last_round_at > _TIME(
        at - timedelta(milliseconds=pace_ms))


def run_unchanged(con: sqlite3.Connection, run: int, figures: tuple[int, int, int, int]
                  ) -> bool:
    """An autoplay run still active with the figures its row had when the round read it."""
    now = con.execute("SELECT status, rounds_played, total_bet, total_win, best_win "
                      "FROM autoplay_runs WHERE id = ?", (run,)).fetchone()
    return now is not None and now[0] == RUN_ACTIVE and tuple(now[1:]) == figures


_LIMITS = (f"SELECT l.period, {loss_limits.IN_FORCE.format(now='?')} FROM player_limits l "
           f"WHERE l.player_id = ? AND l.kind = '{loss_limits.LOSS}'")
_LOSSES = loss_limits.LOSSES.format(player="?", since="?")


def loss_limit_passed(con: sqlite3.Connection, player_id: int, bet: int, at: datetime
                      ) -> tuple[str, int, int] | None:
    """The first of the player's loss limits (the shortest period first) that a bet of ``bet``
    at ``at`` would pass: (period, amount in force, losses so far), what the player is told;
    None: none."""
    in_force = dict(con.execute(_LIMITS, (_TIME(at), player_id)).fetchall())
    for period, length in loss_limits.PERIODS.items():
        amount = in_force.get(period)
        if amount is None:
            continue
        used = int(con.execute(_LOSSES, (player_id, _TIME(at - length))).fetchone()[0])
        if used + bet > amount:
            return period, int(amount), used
    return None


def _round_row(w: RoundWrite) -> list[Any]:
    values = w.round_values
    return [w.events_json if proc is None else proc(values[key])
            for key, proc in _ROUND_PROCESSORS]


_CHOICE_PROCESSORS = [(k, dict(_ROUND_PROCESSORS)[k]) for k in CHOICE_COLUMNS]


def _choice_row(w: RoundWrite) -> list[Any]:
    values = w.round_values
    return [*(w.events_json if proc is None else proc(values[key])
              for key, proc in _CHOICE_PROCESSORS), w.round_id]


@contextmanager
def immediate(con: sqlite3.Connection) -> Iterator[None]:
    """One write transaction on a writer's connection: ``BEGIN IMMEDIATE`` (the write lock held
    from the start), committed at the end, rolled back on any error (the commit's included)."""
    con.execute("BEGIN IMMEDIATE")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def writer_connection(url: str, busy_timeout_ms: int, synchronous: str) -> sqlite3.Connection:
    """A batch writer's own connection to the SQLite file: autocommit (each batch begins its
    own transaction), usable from its writer thread, with the hash-chain function the
    triggers call."""
    path = make_url(url).database
    if not path:
        raise ValueError("a batch writer needs an SQLite file")
    con = sqlite3.connect(path, timeout=busy_timeout_ms / 1000, isolation_level=None,
                          check_same_thread=False)
    con.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    con.execute(f"PRAGMA synchronous={synchronous}")
    con.execute("PRAGMA foreign_keys=ON")
    register_sqlite(con)
    return con


def _net(con: sqlite3.Connection, wallet_id: int, since: datetime | None) -> int | None:
    """The session's net position (its play entries since ``since``), where asked for."""
    if since is None:
        return None
    return int(con.execute(_NET, (wallet_id, _TIME(since))).fetchone()[0])


class SqliteRoundWriter:
    """Batches on one connection in one thread (SQLite has one writer at a time anyway)."""

    def __init__(self, url: str, *, busy_timeout_ms: int, synchronous: str) -> None:
        self._con = writer_connection(url, busy_timeout_ms, synchronous)
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="slotlab-round-writer")

    async def write(self, batch: Sequence[RoundWrite]) -> list[Outcome]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._write, list(batch))

    def _write(self, batch: list[RoundWrite]) -> list[Outcome]:
        con = self._con
        with immediate(con):
            out = [self._one(con, w) for w in batch]
            add_pool_moves(con, [(w.round_id, w.at, pool_moves(w.contributions, w.awards))
                                 for w, b in zip(batch, out, strict=True)
                                 if isinstance(b, Written)])
        return out

    async def write_won(self, player_id: int, pools: Sequence[int],
                        build: Callable[[Mapping[int, tuple[int, int]]], RoundWrite]
                        ) -> tuple[RoundWrite, Outcome]:
        """A round that won jackpots, alone in its transaction (``BEGIN IMMEDIATE``: the write
        lock held throughout): ``build`` given the pools' values (pool id -> (value, reset
        value)) to make the round's write with its awards, then written as a batch's round."""
        del player_id  # one writer at a time: nothing else to lock
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._write_won, list(pools), build)

    def _write_won(self, pools: list[int],
                   build: Callable[[Mapping[int, tuple[int, int]]], RoundWrite]
                   ) -> tuple[RoundWrite, Outcome]:
        con = self._con
        with immediate(con):
            w = build(pool_values(con, pools))
            out = self._one(con, w)
            if isinstance(out, Written):
                add_pool_moves(con, [(w.round_id, w.at, pool_moves(w.contributions, w.awards))])
        return w, out

    def _one(self, con: sqlite3.Connection, w: RoundWrite) -> Outcome:
        row = con.execute(_CHECK, (w.owner, w.key, w.player_id)).fetchone()
        if row is None:
            return None
        (wallet_id, balance, currency, live, key_hash, key_status, key_answer, limited, demo,
         last_round_at) = row
        if currency != w.currency or (demo and w.contributions):
            return None
        at = _TIME(w.at)
        if not session_live(con, w.session, w.player_id, at):
            return None
        started = w.continues is None
        if key_hash is not None:  # used before (batch.Stored); a choice's: the general path's
            if not started:
                return None
            mark_seen(con, w.session, at)
            return Stored(key_hash, key_status, key_answer, _net(con, wallet_id, w.since))
        if started and live:
            return None
        if (w.autoplay is not None and w.autoplay[1] is not None  # a start: its run as read
                and not run_unchanged(con, w.autoplay[0], w.autoplay[1])):
            return None  # stopped, or played, since it was read
        # The refusals the player is told (batch.Refused), in the general path's order.
        if started and too_soon(last_round_at, w.at, w.pace_ms):
            mark_seen(con, w.session, at)
            return Refused(PACE, balance, READ_TIME(last_round_at))
        over = (loss_limit_passed(con, w.player_id, w.bet, w.at)
                if started and limited and w.free_round is None else None)
        if over is not None:
            mark_seen(con, w.session, at)
            return Refused(LOSS_LIMIT, balance, limit=over)
        if balance < w.bet:
            mark_seen(con, w.session, at)
            return Refused(FUNDS, balance)
        c = w.continues
        if c is not None and con.execute(_WAITING, (
                w.round_id, w.player_id, c.status, c.step, _TIME(c.updated_at), c.seeds,
                c.choices, c.events)).fetchone() is None:
            return None  # the round changed since it was read
        if w.free_round is not None:
            package, left, won = w.free_round
            if started and con.execute(_OLDER_PACKAGE, (package, at)).fetchone() is not None:
                return None  # an older package became playable since it was read
            if con.execute(_USE_FREE_ROUND, (int(started) - int(w.gives_back), w.win, package,
                                             left, won)).rowcount != 1:
                return None  # the package changed since it was read (no write before this)
        if w.pace_ms and started:
            con.execute("UPDATE players SET last_round_at = ? WHERE id = ?", (at, w.player_id))
        mark_seen(con, w.session, at)
        if w.autoplay is not None:
            run, _, stop = w.autoplay
            bet, won = w.bet, w.win
            if w.gives_back:  # its bet off the run's figures (a free round's was never on)
                bet, won = -(w.round_values["bet"] if w.free_round is None else 0), 0
            con.execute(_RUN_ROUND, (int(started), bet, won, won, stop and RUN_STOPPED,
                                     stop, stop and at, run))
        after = balance - w.bet + (w.win if w.credit is None else 0)  # else the operator pays
        con.execute("UPDATE wallets SET balance = ? WHERE id = ?", (after, wallet_id))
        con.executemany(_INSERT_LEDGER, [
            (wallet_id, e.kind, e.amount, after - e.back, w.round_id, e.ref, at)
            for e in w.ledger])
        if started:
            con.execute(_INSERT_ROUND, _round_row(w))
        else:
            con.execute(_UPDATE_CHOICE, _choice_row(w))
        if w.credit is not None:
            con.execute(INSERT_OP, [p(w.credit[k]) for k, p in OP_PROCESSORS])
        answer = None if w.opening else json_object_with(w.response_json, balance=str(after))
        if w.key is not None:  # else no request to answer (an auto-completion)
            con.execute(_INSERT_KEY, (w.owner, w.key, w.request_hash, w.round_id,
                                      None if w.opening else w.status_code, answer, at))
        if c is not None and c.settles_open:
            con.execute(_ANSWER_OPENED, (answer, w.round_id))
        if w.note is not None:
            con.execute("INSERT INTO admin_actions (action, target, detail, created_at) "
                        "VALUES (?, ?, ?, ?)", (w.note[0], w.round_id, w.note[1], at))
        return Written(int(after), _net(con, wallet_id, w.since))

    async def close(self) -> None:
        self._executor.shutdown(wait=True)
        self._con.close()
