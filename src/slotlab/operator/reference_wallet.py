"""A reference operator wallet: a real HTTP server speaking the seamless-wallet protocol.

It is what slotlab's :class:`slotlab.server.operator_wallet.OperatorWallet` talks to in tests and
what docs/operator-wallet.md shows operators as an example. Money is integer minor units, kept in
one SQLite file (stdlib ``sqlite3``, WAL, ``synchronous=FULL``). One writer thread owns the
connection and commits calls in groups: the calls in flight together share one ``BEGIN IMMEDIATE``
transaction and one fsync, each in its own savepoint (so the checks and the movement of one call
are atomic, and a call that fails undoes only its own writes); no call is answered before its
group's commit is durable.

Endpoints (all ``POST``, JSON bodies; every request and every answer signed over the whole
exchange by :mod:`slotlab.operator.signing`: method, path, timestamp, nonce and body, and an
answer over the request it answers; a request outside the tolerance or repeating a nonce is
refused):

- ``/wallet/authenticate`` {token} -> {player_id, balance, currency}
- ``/wallet/balance`` {player_id} -> {player_id, balance, currency}
- ``/wallet/debit`` {transaction_id, round_id, player_id, amount, currency}
- ``/wallet/credit`` {transaction_id, round_id, player_id, amount (may be 0), currency}
- ``/wallet/rollback`` {transaction_id, round_id, player_id, reference_transaction_id}
- ``/admin/players`` (create or reset a player), ``/admin/player``, ``/admin/transactions``
- ``/_faults`` (only with ``faults_enabled``): fault injection for tests

Rules: a repeated ``transaction_id`` gets the first answer (status and body) with no second
effect, and 409 ``transaction_mismatch`` if the request differs; a rollback refunds only what its
debit actually took, once, and is refused once the round has been credited (settled); a rollback
of a debit never seen is recorded, and that debit is refused (409 ``transaction_rolled_back``) if
it arrives later; credits are never rolled back.

Run it: ``python -m slotlab.operator.reference_wallet --port 9000 --db wallet.db --secret S
--player alice:token-alice:100000:EUR``.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import hashlib
import json
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from slotlab.operator.signing import (
    DEFAULT_TOLERANCE_S,
    KEY_ID_HEADER,
    Keyring,
    SignatureError,
    check_request,
    received_digest,
    sign_response,
)

_T = TypeVar("_T")
_Op = Callable[[sqlite3.Connection], Any]

# Calls in one group commit at most: bounds one transaction's size and its first call's wait.
GROUP_MAX = 256

ENDPOINTS = ("authenticate", "balance", "debit", "credit", "rollback")
_ID = Field(min_length=1, max_length=200)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    player_id TEXT PRIMARY KEY,
    token TEXT UNIQUE,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    currency TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS transactions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    player_id TEXT NOT NULL,
    round_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    reference_transaction_id TEXT,
    request_hash TEXT NOT NULL,
    applied INTEGER NOT NULL,
    rolled_back INTEGER NOT NULL DEFAULT 0,
    status_code INTEGER NOT NULL,
    response TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_transactions_round ON transactions (round_id);
CREATE TABLE IF NOT EXISTS nonces (
    nonce TEXT PRIMARY KEY,
    signed_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_nonces_signed_at ON nonces (signed_at);
CREATE TABLE IF NOT EXISTS voided_debits (
    transaction_id TEXT PRIMARY KEY,
    rollback_transaction_id TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""


# ---------------------------------------------------------------------------------------------
# Requests


class _Req(BaseModel):
    model_config = ConfigDict(extra="ignore")


class AuthenticateReq(_Req):
    token: StrictStr = _ID


class BalanceReq(_Req):
    player_id: StrictStr = _ID


class DebitReq(_Req):
    transaction_id: StrictStr = _ID
    round_id: StrictStr = _ID
    player_id: StrictStr = _ID
    amount: StrictInt = Field(gt=0, le=10**15)
    currency: StrictStr = Field(min_length=1, max_length=8)


class CreditReq(DebitReq):
    amount: StrictInt = Field(ge=0, le=10**15)


class RollbackReq(_Req):
    transaction_id: StrictStr = _ID
    round_id: StrictStr = _ID
    player_id: StrictStr = _ID
    reference_transaction_id: StrictStr = _ID


class PlayerReq(_Req):
    player_id: StrictStr = _ID
    token: StrictStr | None = Field(None, min_length=1, max_length=200)
    balance: StrictInt = Field(0, ge=0, le=10**15)
    currency: StrictStr = Field("EUR", min_length=1, max_length=8)


class TransactionsReq(_Req):
    round_id: StrictStr | None = None
    player_id: StrictStr | None = None


class FaultReq(_Req):
    endpoint: StrictStr = "*"
    fail: StrictInt = Field(0, ge=0)
    delay_s: float = Field(0.0, ge=0)
    delay_calls: StrictInt = Field(0, ge=0)
    drop: StrictInt = Field(0, ge=0)
    drop_as: StrictStr = Field("hold", pattern="^(hold|500)$")
    hold_s: float = Field(5.0, ge=0)


class WalletError(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}, **self.extra}


# ---------------------------------------------------------------------------------------------
# Fault injection


@dataclass
class _EndpointFaults:
    fail: int = 0  # the next N calls answer 500 and apply nothing
    delay_s: float = 0.0  # wait this long before processing ...
    delay_calls: int = 0  # ... the next N calls (0 with delay_s > 0: every call)
    drop: int = 0  # the next N calls are applied, then the response is lost
    drop_as: str = "hold"  # "hold": kept hold_s seconds (client timeout); "500": error answer
    hold_s: float = 5.0


@dataclass
class Faults:
    """Faults per endpoint (``debit``, ``credit``, ``rollback``, ``balance``, ``authenticate``)."""

    by_endpoint: dict[str, _EndpointFaults] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)  # requests received (signed correctly)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def set(self, endpoint: str = "*", *, fail: int = 0, delay_s: float = 0.0,
            delay_calls: int = 0, drop: int = 0, drop_as: str = "hold",
            hold_s: float = 5.0) -> None:
        """Arm faults for ``endpoint`` (``*``: every wallet endpoint); replaces earlier ones."""
        names = ENDPOINTS if endpoint == "*" else (endpoint,)
        for name in names:
            if name not in ENDPOINTS:
                raise ValueError(f"unknown endpoint {name!r}")
            with self._lock:
                self.by_endpoint[name] = _EndpointFaults(fail, delay_s, delay_calls, drop,
                                                         drop_as, hold_s)

    def clear(self) -> None:
        with self._lock:
            self.by_endpoint.clear()

    def take(self, endpoint: str) -> tuple[bool, float, str | None, float]:
        """Consume this call's faults: (fail, delay, drop mode or None, hold seconds)."""
        with self._lock:
            self.calls[endpoint] = self.calls.get(endpoint, 0) + 1
            f = self.by_endpoint.get(endpoint)
            if f is None:
                return False, 0.0, None, 0.0
            if f.fail:
                f.fail -= 1
                return True, 0.0, None, 0.0
            delay = 0.0
            if f.delay_s:
                delay = f.delay_s
                if f.delay_calls:
                    f.delay_calls -= 1
                    if not f.delay_calls:
                        f.delay_s = 0.0
            drop = None
            if f.drop:
                f.drop -= 1
                drop = f.drop_as
            return False, delay, drop, f.hold_s


# ---------------------------------------------------------------------------------------------
# The wallet


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _hash(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def _answer(status: int, body: dict[str, Any]) -> Answer:
    return Answer(status, json.dumps(body, separators=(",", ":")).encode())


class ReferenceWallet:
    """The wallet's state and rules, independent of HTTP (the app below serves it)."""

    def __init__(self, db_path: str | Path) -> None:
        self.db_path = str(db_path)
        Path(self.db_path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.db_path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.executescript(_SCHEMA)
        self._queue: queue.SimpleQueue[tuple[_Op, concurrent.futures.Future[Any]] | None] = (
            queue.SimpleQueue())
        self._writer = threading.Thread(target=self._write_groups, name="wallet-writer",
                                        daemon=True)
        self._writer.start()
        self.groups = 0  # group commits made (with ``calls``: the mean group size)
        self.grouped_calls = 0

    def close(self) -> None:
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join()
            self._conn.close()

    # -- transactions ------------------------------------------------------------------------

    def _write_groups(self) -> None:
        """The writer thread: take the calls waiting (at least one), run them in one
        transaction, commit, and only then answer them."""
        while True:
            first = self._queue.get()
            if first is None:
                self._refuse_waiting()
                return
            group = [first]
            while len(group) < GROUP_MAX:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    self._queue.put(None)  # stop after this group
                    break
                group.append(nxt)
            self._run_group(group)

    def _refuse_waiting(self) -> None:
        """Fail calls queued while closing (after the stop), so that no caller waits forever."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if item is not None:
                item[1].set_exception(sqlite3.ProgrammingError("the wallet is closed"))

    def _run_group(self, group: list[tuple[_Op, concurrent.futures.Future[Any]]]) -> None:
        c = self._conn
        outcomes: list[tuple[bool, Any]] = []
        try:
            c.execute("BEGIN IMMEDIATE")
            for fn, _ in group:
                c.execute("SAVEPOINT call")
                try:
                    out = fn(c)
                except Exception as e:  # this call's failure undoes its writes alone
                    c.execute("ROLLBACK TO call")
                    c.execute("RELEASE call")
                    outcomes.append((False, e))
                else:
                    c.execute("RELEASE call")
                    outcomes.append((True, out))
            c.execute("COMMIT")
        except BaseException as e:  # nothing of the group is durable: every call fails
            if c.in_transaction:
                c.execute("ROLLBACK")
            for _, fut in group:
                fut.set_exception(e)
            return
        self.groups += 1
        self.grouped_calls += len(group)
        for (_, fut), (ok, value) in zip(group, outcomes, strict=True):
            if ok:
                fut.set_result(value)
            else:
                fut.set_exception(value)

    def _submit(self, fn: Callable[[sqlite3.Connection], _T]) -> concurrent.futures.Future[_T]:
        if not self._writer.is_alive():
            raise sqlite3.ProgrammingError("the wallet is closed")
        fut: concurrent.futures.Future[_T] = concurrent.futures.Future()
        self._queue.put((fn, fut))
        return fut

    def _tx(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``fn`` in a transaction (grouped with the calls in flight) and wait until it is
        durable."""
        return self._submit(fn).result()

    async def _atx(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """:meth:`_tx` without blocking the event loop: concurrent requests join one group."""
        return await asyncio.wrap_future(self._submit(fn))

    async def apply(self, name: str, req: _Req) -> Answer:
        """The wallet call ``name`` (one of :data:`ENDPOINTS`) from the event loop."""
        op: Callable[[_Req], Callable[[sqlite3.Connection], Answer]] = getattr(
            self, f"_{name}_op")
        return await self._atx(op(req))

    def _player(self, c: sqlite3.Connection, player_id: str) -> sqlite3.Row:
        p: sqlite3.Row | None = c.execute("SELECT * FROM players WHERE player_id = ?",
                                          (player_id,)).fetchone()
        if p is None:
            raise WalletError(404, "unknown_player", f"no player {player_id!r}")
        return p

    # -- admin -------------------------------------------------------------------------------

    def set_player(self, player_id: str, *, balance: int, currency: str = "EUR",
                   token: str | None = None) -> dict[str, Any]:
        """Create a player or reset their balance (tests and the example set-up); a token of
        None keeps the player's current token."""
        def do(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT INTO players (player_id, token, balance, currency) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (player_id) DO UPDATE SET token = COALESCE(excluded.token, token), "
                "balance = excluded.balance, currency = excluded.currency",
                (player_id, token, balance, currency))
        self._tx(do)
        return self.player(player_id)

    def player(self, player_id: str) -> dict[str, Any]:
        p = self._tx(lambda c: self._player(c, player_id))
        return {"player_id": p["player_id"], "balance": p["balance"], "currency": p["currency"]}

    def transactions(self, round_id: str | None = None, player_id: str | None = None
                     ) -> list[dict[str, Any]]:
        q = "SELECT * FROM transactions WHERE 1 = 1"
        args: list[str] = []
        if round_id is not None:
            q, args = q + " AND round_id = ?", [*args, round_id]
        if player_id is not None:
            q, args = q + " AND player_id = ?", [*args, player_id]
        rows = self._tx(lambda c: c.execute(q + " ORDER BY seq", args).fetchall())
        return [{"seq": r["seq"], "transaction_id": r["transaction_id"], "kind": r["kind"],
                 "player_id": r["player_id"], "round_id": r["round_id"], "amount": r["amount"],
                 "reference_transaction_id": r["reference_transaction_id"],
                 "applied": bool(r["applied"]), "rolled_back": bool(r["rolled_back"]),
                 "status_code": r["status_code"], "created_at": r["created_at"]} for r in rows]

    def use_nonce(self, nonce: str, signed_at: int, tolerance_s: float) -> bool:
        return self._tx(self._nonce_op(nonce, signed_at, tolerance_s))

    async def use_nonce_async(self, nonce: str, signed_at: int, tolerance_s: float) -> bool:
        return await self._atx(self._nonce_op(nonce, signed_at, tolerance_s))

    def _nonce_op(self, nonce: str, signed_at: int, tolerance_s: float
                  ) -> Callable[[sqlite3.Connection], bool]:
        """Whether this is the nonce's first use. Nonces are kept (on disk: a restart does not
        forget them) until their message is outside the tolerance, when its timestamp alone
        refuses it."""
        horizon = int(datetime.now(UTC).timestamp() - tolerance_s) - 1

        def do(c: sqlite3.Connection) -> bool:
            c.execute("DELETE FROM nonces WHERE signed_at < ?", (horizon,))
            return c.execute("INSERT OR IGNORE INTO nonces VALUES (?, ?)",
                             (nonce, signed_at)).rowcount == 1
        return do

    # -- wallet calls ------------------------------------------------------------------------

    def authenticate(self, req: AuthenticateReq) -> Answer:
        return self._tx(self._authenticate_op(req))

    def _authenticate_op(self, req: AuthenticateReq) -> Callable[[sqlite3.Connection], Answer]:
        def do(c: sqlite3.Connection) -> Answer:
            p = c.execute("SELECT * FROM players WHERE token = ?", (req.token,)).fetchone()
            if p is None:
                raise WalletError(401, "invalid_token", "unknown or expired token")
            return _answer(200, {"player_id": p["player_id"], "balance": p["balance"],
                                 "currency": p["currency"]})
        return do

    def balance(self, req: BalanceReq) -> Answer:
        return self._tx(self._balance_op(req))

    def _balance_op(self, req: BalanceReq) -> Callable[[sqlite3.Connection], Answer]:
        def do(c: sqlite3.Connection) -> Answer:
            p = self._player(c, req.player_id)
            return _answer(200, {"player_id": p["player_id"], "balance": p["balance"],
                                 "currency": p["currency"]})
        return do

    def _replay(self, c: sqlite3.Connection, txid: str, req_hash: str) -> Answer | None:
        row = c.execute("SELECT request_hash, status_code, response FROM transactions "
                        "WHERE transaction_id = ?", (txid,)).fetchone()
        if row is None:
            return None
        if row["request_hash"] != req_hash:
            raise WalletError(409, "transaction_mismatch",
                              f"transaction {txid!r} was already used with another request")
        return Answer(row["status_code"], row["response"].encode())

    def _record(self, c: sqlite3.Connection, kind: str, txid: str, player_id: str, round_id: str,
                amount: int, ref: str | None, req_hash: str, applied: bool, answer: Answer
                ) -> Answer:
        c.execute(
            "INSERT INTO transactions (transaction_id, kind, player_id, round_id, amount, "
            "reference_transaction_id, request_hash, applied, status_code, response, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (txid, kind, player_id, round_id, amount, ref, req_hash, int(applied), answer.status,
             answer.body.decode(), _now()))
        return answer

    def _move(self, kind: str, req: DebitReq) -> Callable[[sqlite3.Connection], Answer]:
        req_hash = _hash(kind, req.player_id, req.round_id, req.amount, req.currency)

        def do(c: sqlite3.Connection) -> Answer:
            first = self._replay(c, req.transaction_id, req_hash)
            if first is not None:
                return first

            def refuse(e: WalletError) -> Answer:
                return self._record(c, kind, req.transaction_id, req.player_id, req.round_id,
                                    req.amount, None, req_hash, False, _answer(e.status, e.body()))

            try:
                p = self._player(c, req.player_id)
            except WalletError as e:
                return refuse(e)
            if p["currency"] != req.currency:
                return refuse(WalletError(
                    409, "currency_mismatch",
                    f"the player's currency is {p['currency']}, not {req.currency}"))
            if kind == "debit":
                voided = c.execute("SELECT 1 FROM voided_debits WHERE transaction_id = ?",
                                   (req.transaction_id,)).fetchone()
                if voided is not None:
                    return refuse(WalletError(409, "transaction_rolled_back",
                                              "this debit was rolled back before it arrived"))
                if p["balance"] < req.amount:
                    return refuse(WalletError(402, "insufficient_funds",
                                              f"balance {p['balance']} is below {req.amount}",
                                              balance=p["balance"], currency=p["currency"]))
                new_balance = p["balance"] - req.amount
            else:
                cancelled = c.execute(
                    "SELECT 1 FROM transactions WHERE round_id = ? AND kind = 'debit' "
                    "AND rolled_back = 1", (req.round_id,)).fetchone()
                if cancelled is not None:
                    return refuse(WalletError(409, "round_rolled_back",
                                              "the round's debit was rolled back"))
                new_balance = p["balance"] + req.amount
            c.execute("UPDATE players SET balance = ? WHERE player_id = ?",
                      (new_balance, req.player_id))
            seq = c.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM transactions").fetchone()[0]
            return self._record(c, kind, req.transaction_id, req.player_id, req.round_id,
                                req.amount, None, req_hash, True, _answer(200, {
                                    "transaction_id": req.transaction_id,
                                    "operator_transaction_id": str(seq),
                                    "player_id": req.player_id, "round_id": req.round_id,
                                    "amount": req.amount, "balance": new_balance,
                                    "currency": p["currency"]}))
        return do

    def debit(self, req: DebitReq) -> Answer:
        return self._tx(self._move("debit", req))

    def _debit_op(self, req: DebitReq) -> Callable[[sqlite3.Connection], Answer]:
        return self._move("debit", req)

    def credit(self, req: CreditReq) -> Answer:
        return self._tx(self._move("credit", req))

    def _credit_op(self, req: CreditReq) -> Callable[[sqlite3.Connection], Answer]:
        return self._move("credit", req)

    def rollback(self, req: RollbackReq) -> Answer:
        return self._tx(self._rollback_op(req))

    def _rollback_op(self, req: RollbackReq) -> Callable[[sqlite3.Connection], Answer]:
        req_hash = _hash("rollback", req.player_id, req.round_id, req.reference_transaction_id)

        def do(c: sqlite3.Connection) -> Answer:
            first = self._replay(c, req.transaction_id, req_hash)
            if first is not None:
                return first

            def finish(status: int, body: dict[str, Any], refunded: int = 0) -> Answer:
                return self._record(c, "rollback", req.transaction_id, req.player_id,
                                    req.round_id, refunded, req.reference_transaction_id,
                                    req_hash, refunded > 0 or status == 200,
                                    _answer(status, body))

            def refuse(status: int, code: str, message: str) -> Answer:
                return finish(status, WalletError(status, code, message).body())

            p = c.execute("SELECT * FROM players WHERE player_id = ?",
                          (req.player_id,)).fetchone()
            if p is None:
                return refuse(404, "unknown_player", f"no player {req.player_id!r}")
            ref = c.execute("SELECT * FROM transactions WHERE transaction_id = ?",
                            (req.reference_transaction_id,)).fetchone()
            refunded = 0
            if ref is None:
                # Never seen: remember it, so that the debit is refused if it arrives late.
                c.execute("INSERT OR IGNORE INTO voided_debits VALUES (?, ?, ?)",
                          (req.reference_transaction_id, req.transaction_id, _now()))
            elif ref["kind"] != "debit":
                return refuse(409, "not_reversible" if ref["kind"] == "credit"
                              else "invalid_reference",
                              f"a {ref['kind']} cannot be rolled back")
            elif ref["player_id"] != req.player_id or ref["round_id"] != req.round_id:
                return refuse(409, "reference_mismatch",
                              "the referenced debit belongs to another player or round")
            elif ref["applied"] and not ref["rolled_back"]:
                settled = c.execute(
                    "SELECT 1 FROM transactions WHERE round_id = ? AND kind = 'credit' "
                    "AND applied = 1", (ref["round_id"],)).fetchone()
                if settled is not None:
                    return refuse(409, "round_settled",
                                  "the round was credited; its debit cannot be rolled back")
                refunded = ref["amount"]
                c.execute("UPDATE players SET balance = balance + ? WHERE player_id = ?",
                          (refunded, req.player_id))
                c.execute("UPDATE transactions SET rolled_back = 1 WHERE transaction_id = ?",
                          (req.reference_transaction_id,))
            # else: the debit took nothing, or was already refunded: nothing more to give back.
            balance = c.execute("SELECT balance FROM players WHERE player_id = ?",
                                (req.player_id,)).fetchone()[0]
            return finish(200, {"transaction_id": req.transaction_id,
                                "reference_transaction_id": req.reference_transaction_id,
                                "player_id": req.player_id, "round_id": req.round_id,
                                "refunded": refunded, "balance": balance,
                                "currency": p["currency"]}, refunded)
        return do


# ---------------------------------------------------------------------------------------------
# HTTP


def create_app(db_path: str | Path, secret: str | Keyring, *, faults_enabled: bool = False,
               players: Iterable[tuple[str, str | None, int, str]] = (),
               tolerance_s: float = DEFAULT_TOLERANCE_S) -> Starlette:
    """The reference wallet app. ``secret``: the shared secret, or a :class:`Keyring` (the
    current secret and the ones still accepted during a rotation). ``players``: (player_id,
    token, balance, currency) to create. ``tolerance_s``: how far a request's timestamp may be
    from this clock.

    ``app.state.wallet`` is the :class:`ReferenceWallet`, ``app.state.faults`` its
    :class:`Faults` (armed in-process, or over HTTP at ``/_faults`` when ``faults_enabled``).

    A Starlette app, not FastAPI: every endpoint reads its signed body itself, so FastAPI's
    request plumbing (its dependency solving, its middleware) cost CPU for nothing; with it
    gone and the access log off, a signed debit costs the operator about a quarter less.
    """
    keyring = secret if isinstance(secret, Keyring) else Keyring(secret)
    wallet = ReferenceWallet(db_path)
    for pid, token, balance, currency in players:
        wallet.set_player(pid, balance=balance, currency=currency, token=token)
    faults = Faults()
    routes: list[Route] = []

    def reply(request: Request, raw: bytes, a: Answer) -> Response:
        """The answer, signed over the request as it arrived (with the key it was signed with,
        where that is one of ours)."""
        digest = received_digest(request.method, request.url.path, raw, request.headers)
        kid = request.headers.get(KEY_ID_HEADER)
        return Response(a.body, status_code=a.status, media_type="application/json",
                        headers=sign_response(keyring, digest, a.status, a.body, kid=kid))

    def error(e: WalletError) -> Answer:
        return _answer(e.status, e.body())

    async def check(request: Request, raw: bytes) -> None:
        """Refuse a request that is not signed for this path, is outside the tolerance, or
        repeats a nonce."""
        try:
            checked = check_request(keyring, request.method, request.url.path, raw,
                                    request.headers, tolerance_s=tolerance_s)
        except SignatureError as e:
            raise WalletError(401, e.code, e.message) from None
        if not await wallet.use_nonce_async(checked.nonce, checked.timestamp, tolerance_s):
            raise WalletError(401, "replayed_request", "this nonce was already used")

    def parse(raw: bytes, model: type[_Req]) -> Any:
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise WalletError(400, "malformed_json", "the body is not valid JSON") from None
        try:
            return model.model_validate(data)
        except ValidationError as e:
            parts = [f"{'.'.join(str(x) for x in err['loc']) or 'body'}: {err['msg']}"
                     for err in e.errors()[:5]]
            raise WalletError(422, "invalid_request", "; ".join(parts)) from None

    def endpoint(name: str, model: type[_Req]) -> None:
        async def handle(request: Request) -> Response:
            raw = await request.body()
            try:
                await check(request, raw)
                req = parse(raw, model)
            except WalletError as e:
                return reply(request, raw, error(e))
            fail, delay, drop, hold = faults.take(name)
            if fail:
                return reply(request, raw, error(WalletError(500, "internal_error",
                                                             "injected failure")))
            if delay:
                await asyncio.sleep(delay)
            try:
                answer = await wallet.apply(name, req)
            except WalletError as e:
                answer = error(e)
            if drop == "500":
                return reply(request, raw, error(WalletError(
                    500, "internal_error", "injected: applied, answer lost")))
            if drop == "hold":
                await asyncio.sleep(hold)
            return reply(request, raw, answer)

        routes.append(Route(f"/wallet/{name}", handle, methods=["POST"]))

    endpoint("authenticate", AuthenticateReq)
    endpoint("balance", BalanceReq)
    endpoint("debit", DebitReq)
    endpoint("credit", CreditReq)
    endpoint("rollback", RollbackReq)

    def admin(path: str, model: type[_Req], answer: Callable[[Any], Any]) -> None:
        """A signed admin call: ``answer(request) -> body`` (no fault injection here)."""

        async def handle(request: Request) -> Response:
            raw = await request.body()
            try:
                await check(request, raw)
                a = _answer(200, answer(parse(raw, model)))
            except WalletError as e:
                a = error(e)
            return reply(request, raw, a)

        routes.append(Route(f"/admin/{path}", handle, methods=["POST"]))

    admin("players", PlayerReq, lambda req: wallet.set_player(
        req.player_id, balance=req.balance, currency=req.currency, token=req.token))
    admin("player", BalanceReq, lambda req: wallet.player(req.player_id))
    admin("transactions", TransactionsReq, lambda req: {
        "transactions": wallet.transactions(req.round_id, req.player_id)})

    if faults_enabled:
        def arm(req: FaultReq) -> dict[str, Any]:
            try:
                faults.set(req.endpoint, fail=req.fail, delay_s=req.delay_s,
                           delay_calls=req.delay_calls, drop=req.drop, drop_as=req.drop_as,
                           hold_s=req.hold_s)
            except ValueError as e:
                raise WalletError(422, "invalid_request", str(e)) from None
            return {"ok": True}

        async def set_faults(request: Request) -> Response:
            raw = await request.body()
            try:
                await check(request, raw)
                a = _answer(200, arm(parse(raw, FaultReq)))
            except WalletError as e:
                a = error(e)
            return reply(request, raw, a)

        async def clear_faults(request: Request) -> Response:
            raw = await request.body()
            try:
                await check(request, raw)
            except WalletError as e:
                return reply(request, raw, error(e))
            faults.clear()
            return reply(request, raw, _answer(200, {"ok": True}))

        routes += [Route("/_faults", set_faults, methods=["POST"]),
                   Route("/_faults", clear_faults, methods=["DELETE"])]

    async def not_found(request: Request, _: Exception) -> Response:
        return reply(request, b"", error(WalletError(404, "not_found", "no such endpoint")))

    async def not_allowed(request: Request, _: Exception) -> Response:
        return reply(request, b"", error(WalletError(405, "method_not_allowed", "use POST")))

    app = Starlette(routes=routes, exception_handlers={404: not_found, 405: not_allowed})
    app.state.wallet = wallet
    app.state.faults = faults
    return app


def _parse_player(text: str) -> tuple[str, str | None, int, str]:
    parts = text.split(":")
    if len(parts) not in (3, 4):
        raise argparse.ArgumentTypeError("expected PLAYER_ID:TOKEN:BALANCE[:CURRENCY]")
    return parts[0], parts[1] or None, int(parts[2]), parts[3] if len(parts) == 4 else "EUR"


def run(host: str, port: int, db_path: str | Path, secret: str, *, faults_enabled: bool = False,
        players: Sequence[tuple[str, str | None, int, str]] = (),
        previous_secrets: Sequence[str] = (), tolerance_s: float = DEFAULT_TOLERANCE_S,
        access_log: bool = True) -> None:
    """Serve the reference wallet with uvicorn until interrupted (``access_log``: a line per
    request)."""
    import uvicorn

    if any(len(s) < 16 for s in (secret, *previous_secrets)):
        raise ValueError("a shared secret must be at least 16 characters")
    app = create_app(db_path, Keyring(secret, *previous_secrets), faults_enabled=faults_enabled,
                     players=players, tolerance_s=tolerance_s)
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=access_log,
                timeout_graceful_shutdown=2)


def main(argv: Sequence[str] | None = None) -> None:
    import os

    p = argparse.ArgumentParser(prog="python -m slotlab.operator.reference_wallet",
                                description="Serve the slotlab reference operator wallet.")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=9000)
    p.add_argument("--db", default="reference-wallet.db", help="SQLite file")
    p.add_argument("--secret", default=os.environ.get("SLOTLAB_OPERATOR_SECRET"),
                   help="shared HMAC secret (default: $SLOTLAB_OPERATOR_SECRET)")
    p.add_argument("--previous-secret", action="append", default=[], metavar="SECRET",
                   help="a secret still accepted while the shared secret is being replaced "
                   "(repeatable)")
    p.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE_S, metavar="SECONDS",
                   help="how far a request's timestamp may be from this clock")
    p.add_argument("--player", action="append", type=_parse_player, default=[],
                   metavar="ID:TOKEN:BALANCE[:CURRENCY]", help="create or reset a player")
    p.add_argument("--faults", action="store_true", help="enable fault injection at /_faults")
    p.add_argument("--no-access-log", dest="access_log", action="store_false",
                   help="no line per request (a load test's operator)")
    a = p.parse_args(argv)
    if not a.secret:
        p.error("--secret or SLOTLAB_OPERATOR_SECRET is required")
    run(a.host, a.port, a.db, a.secret, faults_enabled=a.faults, players=a.player,
        previous_secrets=a.previous_secret, tolerance_s=a.tolerance, access_log=a.access_log)


if __name__ == "__main__":
    main()
