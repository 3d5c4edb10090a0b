"""The seamless-wallet adapter: debits, credits and rollbacks on an operator's wallet over HTTP.

The game server calls :class:`OperatorWallet` instead of posting bets and wins to its own ledger
(docs/operator-wallet.md has the protocol). Every request carries a transaction id and the round
id and is signed with HMAC-SHA256 over its method, path, timestamp, nonce and body
(:mod:`slotlab.operator.signing`); an answer must be signed over the request it answers, within
the clock tolerance, and a confirmation must repeat the movement it confirms (transaction, round,
player, amount). Transaction ids are deterministic per round and purpose (``<round>:debit``,
``<round>:credit:<n>``, ``<round>:debit:rollback``), so every retry, by this process or by a
restarted one, collapses at the operator into one movement.

Outcomes of one call: a 2xx is confirmed; a 4xx is a definitive refusal (nothing moved); a
timeout, a connection error, a 5xx, or an answer badly signed, signed for another request or
confirming another movement leaves the outcome UNKNOWN. Then:

- a debit whose outcome is unknown is rolled back at once (the rollback is retried until the
  operator confirms it); the round does not go ahead;
- a credit is never rolled back: it is retried with exponential backoff until the operator
  confirms it. Past ``max_attempts`` inline tries it stays ``pending`` in the
  :class:`~slotlab.store.operator_wallet.OperatorWalletStore` and :func:`resume_pending`
  (start-up and periodic) carries on; the round stays ``crediting`` meanwhile. After
  ``retry_window`` (24 h) a credit still unpaid becomes ``unpaid``: kept on record and retried
  every ``unpaid_retry`` (daily) until confirmed, or discarded after 24 months.

Every operation is written to the store before it is sent, so a crash at any point is resumed.
Call the adapter outside any database transaction of the server: it makes HTTP calls and its
store opens its own transactions (on SQLite, the server's write lock is not re-entrant).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import httpx

from slotlab.json_text import json_text
from slotlab.operator.signing import (
    DEFAULT_TOLERANCE_S,
    Keyring,
    SignatureError,
    SignedRequest,
    check_response,
    sign_request,
)
from slotlab.store.models import utcnow
from slotlab.store.operator_wallet import (
    CREDIT,
    DEBIT,
    DONE,
    PENDING,
    REFUSED,
    ROLLBACK,
    ROLLED_BACK,
    ROLLING_BACK,
    UNPAID,
    OperatorWalletOp,
    OperatorWalletStore,
    credit_txid,
    debit_txid,
    rollback_txid,
)

log = logging.getLogger("slotlab.server.operator_wallet")

FAILED = "failed"  # an operation the operator refused that should not be refusable (needs a human)


@dataclass(frozen=True)
class WalletResult:
    """What became of one wallet operation.

    ``status``: ``done`` (confirmed), ``refused`` (a debit the operator declined: ``code`` says
    why, e.g. ``insufficient_funds``), ``rolled_back`` (a debit whose outcome was unknown, now
    refunded or voided at the operator), ``rolling_back`` (its rollback is still being retried),
    ``pending`` / ``unpaid`` (a credit still being retried), ``failed`` (needs a human).
    """

    transaction_id: str
    kind: str
    status: str
    round_id: str
    balance: int | None = None
    currency: str | None = None
    code: str | None = None
    message: str | None = None
    response: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status == DONE


class OperatorError(Exception):
    """authenticate/balance failed: ``code`` is the operator's error code or ours."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status = code, message, status


@dataclass(frozen=True)
class _Outcome:
    kind: str  # "ok", "refused", "unknown"
    status: int | None
    body: dict[str, Any] | None
    code: str
    message: str

    @property
    def balance(self) -> int | None:
        b = (self.body or {}).get("balance")
        return b if isinstance(b, int) else None


# What a confirmed money answer must repeat of its request: the movement it confirms.
_ECHOED = ("transaction_id", "round_id", "player_id", "amount", "currency",
           "reference_transaction_id")


def _differs(request: dict[str, Any], answer: dict[str, Any]) -> str | None:
    """The first field a confirmation names differently from its request (None: it confirms
    this very movement). Only fields the request carries are compared (a balance query's answer
    repeats its player)."""
    return next((name for name in _ECHOED
                 if name in request and answer.get(name) != request[name]), None)


def _result(op: OperatorWalletOp | None, *, transaction_id: str, kind: str, round_id: str,
            status: str, outcome: _Outcome | None = None) -> WalletResult:
    body = outcome.body if outcome is not None else (op.response if op is not None else None)
    balance = outcome.balance if outcome is not None else (op.balance if op is not None else None)
    code = None
    message = None
    if outcome is not None and outcome.kind != "ok":
        code, message = outcome.code, outcome.message
    elif outcome is None and op is not None and status != DONE:
        code = op.last_error
    currency = (body or {}).get("currency") if isinstance(body, dict) else None
    return WalletResult(transaction_id, kind, status, round_id, balance, currency, code, message,
                        body)


class OperatorWallet:
    """Client of an operator's seamless wallet.

    ``timeout``: seconds per HTTP call. ``max_attempts``: tries of a credit or rollback inside
    the call before it is left to :meth:`resume_pending`. ``backoff``: first delay between tries,
    doubled each time up to ``max_backoff``. ``store``: the operations log (without one nothing
    is persisted and an unconfirmed credit cannot be resumed: use one in production).
    ``idle_s``: an idle connection to the operator is dropped after this, before the operator's
    own server closes it: a call sent on a connection being closed gets no answer, and a debit
    without an answer is rolled back (a spin lost). Servers close idle connections after 2 s
    (gunicorn), 5 s (uvicorn, Node.js) or more; under load no connection is idle that long.
    """

    def __init__(self, base_url: str, secret: str | Keyring, timeout: float = 5.0,
                 max_attempts: int = 3, backoff: float = 0.5, *,
                 store: OperatorWalletStore | None = None, max_backoff: float = 3600.0,
                 retry_window: timedelta = timedelta(hours=24),
                 unpaid_retry: timedelta = timedelta(hours=24),
                 stale_after: timedelta | None = None, verify_responses: bool = True,
                 tolerance_s: float = DEFAULT_TOLERANCE_S, idle_s: float = 1.5) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.base_url = base_url.rstrip("/")
        # The secret requests are signed with, and (during a rotation) the ones still accepted
        # on answers.
        self.keyring = secret if isinstance(secret, Keyring) else Keyring(secret)
        self.tolerance_s = tolerance_s
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.retry_window = retry_window
        self.unpaid_retry = unpaid_retry
        # A debit still "pending" this long after it was recorded was cut off by a crash.
        self.stale_after = stale_after or timedelta(seconds=max(60.0, 4 * timeout))
        self.verify_responses = verify_responses
        self.store = store
        self.idle_s = idle_s
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout,
                                  limits=httpx.Limits(keepalive_expiry=idle_s))
        self._ahttp: aiohttp.ClientSession | None = None
        # Told each call's time on the event loop (the server's metrics): endpoint, seconds.
        self.call_seconds: Callable[[str, float], None] = lambda endpoint, seconds: None

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OperatorWallet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- HTTP --------------------------------------------------------------------------------

    def _call(self, endpoint: str, payload: dict[str, Any]) -> _Outcome:
        path, body, signed = self._signed(endpoint, payload)
        try:
            r = self._http.post(path, content=body,
                                headers={**signed.headers, "Content-Type": "application/json"})
        except httpx.TimeoutException as e:
            return _Outcome("unknown", None, None, "timeout", f"{endpoint}: {type(e).__name__}")
        except httpx.TransportError as e:
            return _Outcome("unknown", None, None, "connection_error", f"{endpoint}: {e!r}")
        return self._outcome(endpoint, payload, signed, r.status_code, r.content, r.headers)

    def _signed(self, endpoint: str, payload: dict[str, Any]
                ) -> tuple[str, bytes, SignedRequest]:
        path = f"/wallet/{endpoint}"
        body = json_text(payload).encode()  # compact UTF-8 JSON, as every money-path text
        return path, body, sign_request(self.keyring, "POST", path, body)  # a new nonce a try

    def _outcome(self, endpoint: str, payload: dict[str, Any], signed: SignedRequest,
                 status: int, content: bytes, headers: Mapping[str, str]) -> _Outcome:
        """What an answer (its status, body as sent and headers, whichever client read it)
        means: checked as signed over the request sent, then read."""
        if self.verify_responses:
            try:  # an answer to another request, or from anyone but the operator, is no answer
                check_response(self.keyring, signed.digest, status, content, headers,
                               tolerance_s=self.tolerance_s)
            except SignatureError as e:
                return _Outcome("unknown", status, None, "bad_response_signature",
                                f"{endpoint}: {e.message}")
        try:
            data = json.loads(content)
        except ValueError:  # not JSON, or not UTF-8 text (UnicodeDecodeError)
            data = None
        if not isinstance(data, dict):
            return _Outcome("unknown", status, None, "bad_response",
                            f"{endpoint}: HTTP {status}, not a JSON object")
        error = data.get("error")
        err: dict[str, Any] = error if isinstance(error, dict) else {}
        code = str(err.get("code", f"http_{status}"))
        message = str(err.get("message", ""))
        if 200 <= status < 300:
            differs = _differs(payload, data)
            if differs:
                return _Outcome("unknown", status, None, "response_mismatch",
                                f"{endpoint}: the answer's {differs} is not the request's")
            return _Outcome("ok", status, data, "ok", "")
        if status >= 500 or status < 400:
            return _Outcome("unknown", status, data, code or f"http_{status}", message)
        return _Outcome("refused", status, data, code, message)

    # -- the same calls on the event loop (the batched round path, server/operator_rounds.py) --

    def _async_http(self) -> aiohttp.ClientSession:
        """One keep-alive pool for every concurrent call of the process's event loop (the
        reference operator serves HTTP/1.1: no HTTP/2 to multiplex on). aiohttp, not httpx's
        AsyncClient: measured on the operator-wallet production mix, httpx's pool spent 40 % of
        the server's CPU finding a free connection among hundreds (a readability check of each
        socket per request). Bodies are read as sent (no decompression): the answer's
        signature covers them."""
        if self._ahttp is None:
            self._ahttp = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=256, keepalive_timeout=self.idle_s),
                timeout=aiohttp.ClientTimeout(total=None, connect=self.timeout,
                                              sock_read=self.timeout),
                auto_decompress=False)
        return self._ahttp

    async def call_async(self, endpoint: str, payload: dict[str, Any]) -> _Outcome:
        """:meth:`_call` without a thread: the same signing, checks and outcome rules."""
        path, body, signed = self._signed(endpoint, payload)
        started = time.perf_counter()
        try:
            async with self._async_http().post(
                    self.base_url + path, data=body,
                    headers={**signed.headers, "Content-Type": "application/json"}) as answer:
                status, content, headers = answer.status, await answer.read(), answer.headers
        except TimeoutError as e:  # aiohttp's connect and read timeouts are TimeoutErrors
            return _Outcome("unknown", None, None, "timeout", f"{endpoint}: {type(e).__name__}")
        except aiohttp.ClientError as e:
            return _Outcome("unknown", None, None, "connection_error", f"{endpoint}: {e!r}")
        finally:
            self.call_seconds(endpoint, time.perf_counter() - started)
        return self._outcome(endpoint, payload, signed, status, content, headers)

    async def attempt_async(self, endpoint: str, payload: dict[str, Any], tries: int
                            ) -> tuple[_Outcome, int]:
        """A credit sent up to ``tries`` times (the backoff between tries as :meth:`_attempt`'s,
        slept on the loop): (the last outcome, the tries made)."""
        out: _Outcome | None = None
        for i in range(tries):
            if i:
                await asyncio.sleep(min(self.max_backoff, self.backoff * 2 ** (i - 1)))
            out = await self.call_async(endpoint, payload)
            if out.kind == "ok":
                return out, i + 1
            log.warning("%s %s: attempt %d not confirmed (%s %s)", endpoint,
                        payload.get("transaction_id"), i + 1, out.code, out.message)
        assert out is not None
        return out, tries

    async def aclose(self) -> None:
        if self._ahttp is not None:
            await self._ahttp.close()
            self._ahttp = None

    def _sleep_before(self, attempt: int) -> None:
        time.sleep(min(self.max_backoff, self.backoff * 2**attempt))

    def _next_attempt(self, op: OperatorWalletOp | None, attempts: int, now: datetime
                      ) -> tuple[str | None, datetime]:
        """(new status or None, when to try again) for an operation that is still open."""
        if op is not None and op.kind == CREDIT and now >= op.created_at + self.retry_window:
            return UNPAID, now + self.unpaid_retry
        delay = min(self.max_backoff, self.backoff * 2 ** max(0, attempts - 1))
        return None, now + timedelta(seconds=delay)

    # -- store helpers (no-ops without a store) ------------------------------------------------

    def _ensure(self, **values: Any) -> OperatorWalletOp | None:
        if self.store is None:
            return None
        op, _ = self.store.ensure(**values)
        return op

    def _update(self, transaction_id: str, **values: Any) -> None:
        if self.store is not None:
            self.store.update(transaction_id, **values)

    def _get(self, transaction_id: str) -> OperatorWalletOp | None:
        return None if self.store is None else self.store.get(transaction_id)

    # -- player ------------------------------------------------------------------------------

    def _query(self, endpoint: str, payload: dict[str, Any]) -> dict[str, Any]:
        out = self._call(endpoint, payload)
        if out.kind != "ok" or out.body is None:
            raise OperatorError(out.code, out.message, out.status)
        return out.body

    def authenticate(self, token: str) -> dict[str, Any]:
        """{player_id, balance, currency} for a launch token; :class:`OperatorError` if refused."""
        return self._query("authenticate", {"token": token})

    def balance(self, player_id: str) -> dict[str, Any]:
        """{player_id, balance, currency}; :class:`OperatorError` if it cannot be read."""
        return self._query("balance", {"player_id": player_id})

    # -- money -------------------------------------------------------------------------------

    def debit(self, player_id: str, amount: int, currency: str, round_id: str,
              transaction_id: str | None = None) -> WalletResult:
        """Take a bet. ``done``: the round may be played; anything else: it must not be."""
        txid = transaction_id or debit_txid(round_id)
        op = self._ensure(transaction_id=txid, kind=DEBIT, round_id=round_id,
                          player_id=player_id, amount=amount, currency=currency)
        if op is not None and op.status in (DONE, REFUSED, ROLLED_BACK, FAILED):
            return _result(op, transaction_id=txid, kind=DEBIT, round_id=round_id,
                           status=op.status)
        if op is not None and op.status == ROLLING_BACK:
            return self._roll_back_debit(op.player_id, op.round_id, txid, op.last_error or "")
        out = self._call(DEBIT, {"transaction_id": txid, "round_id": round_id,
                                 "player_id": player_id, "amount": amount, "currency": currency})
        now = utcnow()
        if out.kind == "ok":
            self._update(txid, status=DONE, attempts=1, balance=out.balance, response=out.body,
                         completed_at=now, next_attempt_at=None, last_error=None)
            return _result(None, transaction_id=txid, kind=DEBIT, round_id=round_id,
                           status=DONE, outcome=out)
        if out.kind == "refused":
            self._update(txid, status=REFUSED, attempts=1, response=out.body, completed_at=now,
                         next_attempt_at=None, last_error=out.code)
            return _result(None, transaction_id=txid, kind=DEBIT, round_id=round_id,
                           status=REFUSED, outcome=out)
        log.warning("debit %s: outcome unknown (%s); rolling it back", txid, out.code)
        # Still "pending" until the rollback is on record: a crash in between is a stale pending
        # debit, which resume_pending rolls back too.
        self._update(txid, attempts=1, last_error=out.code)
        return self._roll_back_debit(player_id, round_id, txid, out.code)

    def _roll_back_debit(self, player_id: str, round_id: str, debit_id: str, reason: str,
                         tries: int | None = None, now: datetime | None = None
                         ) -> WalletResult:
        rb = self.rollback(player_id, round_id, debit_id, tries=tries, now=now)
        if rb.status == DONE:
            status = ROLLED_BACK
        elif rb.status == FAILED:
            status = FAILED
        else:
            status = ROLLING_BACK
        return WalletResult(debit_id, DEBIT, status, round_id, rb.balance, rb.currency,
                            reason or rb.code, rb.message, rb.response)

    def rollback(self, player_id: str, round_id: str, reference_transaction_id: str,
                 transaction_id: str | None = None, *, tries: int | None = None,
                 now: datetime | None = None) -> WalletResult:
        """Cancel a debit (refunds what it took, if anything); retried until confirmed."""
        txid = transaction_id or rollback_txid(reference_transaction_id)
        debit = self._get(reference_transaction_id)
        op = self._ensure(transaction_id=txid, kind=ROLLBACK, round_id=round_id,
                          player_id=player_id, amount=0,
                          currency=debit.currency if debit is not None else "",
                          reference_transaction_id=reference_transaction_id)
        if op is not None and op.status in (DONE, FAILED):
            return _result(op, transaction_id=txid, kind=ROLLBACK, round_id=round_id,
                           status=op.status)
        if debit is not None and debit.status not in (ROLLING_BACK, ROLLED_BACK, FAILED):
            self._update(reference_transaction_id, status=ROLLING_BACK, next_attempt_at=None)
        return self._attempt(op, ROLLBACK, txid, round_id, self._rollback_payload(
            txid, round_id, player_id, reference_transaction_id), tries or self.max_attempts, now)

    @staticmethod
    def _rollback_payload(txid: str, round_id: str, player_id: str, ref: str) -> dict[str, Any]:
        return {"transaction_id": txid, "round_id": round_id, "player_id": player_id,
                "reference_transaction_id": ref}

    def credit(self, player_id: str, amount: int, currency: str, round_id: str,
               transaction_id: str | None = None, *, seq: int = 0) -> WalletResult:
        """Pay a win (0 included; ``seq`` numbers several credits of one round).

        ``done``: paid. ``pending``: not confirmed yet; it is in the store and
        :func:`resume_pending` will carry on (the round stays ``crediting``).
        """
        txid = transaction_id or credit_txid(round_id, seq)
        op = self._ensure(transaction_id=txid, kind=CREDIT, round_id=round_id,
                          player_id=player_id, amount=amount, currency=currency)
        if op is not None and op.status == DONE:
            return _result(op, transaction_id=txid, kind=CREDIT, round_id=round_id, status=DONE)
        payload = {"transaction_id": txid, "round_id": round_id, "player_id": player_id,
                   "amount": amount, "currency": currency}
        return self._attempt(op, CREDIT, txid, round_id, payload, self.max_attempts)

    def _attempt(self, op: OperatorWalletOp | None, kind: str, txid: str, round_id: str,
                 payload: dict[str, Any], tries: int, now: datetime | None = None
                 ) -> WalletResult:
        """Send a credit or rollback up to ``tries`` times; record what became of it."""
        attempts = op.attempts if op is not None else 0
        out: _Outcome | None = None
        for i in range(tries):
            if i:
                self._sleep_before(i - 1)
            out = self._call(kind, payload)
            attempts += 1
            if out.kind == "ok":
                break
            if kind == ROLLBACK and out.kind == "refused":
                break  # the operator says this rollback can never succeed: stop and report
            log.warning("%s %s: attempt %d not confirmed (%s %s)", kind, txid, attempts, out.code,
                        out.message)
        assert out is not None
        now = now or utcnow()
        if out.kind == "ok":
            self._update(txid, status=DONE, attempts=attempts, balance=out.balance,
                         response=out.body, completed_at=now, next_attempt_at=None,
                         last_error=None)
            if kind == ROLLBACK and op is not None and op.reference_transaction_id:
                self._update(op.reference_transaction_id, status=ROLLED_BACK, completed_at=now)
            return _result(None, transaction_id=txid, kind=kind, round_id=round_id, status=DONE,
                           outcome=out)
        if kind == ROLLBACK and out.kind == "refused":
            log.error("rollback %s refused by the operator: %s %s", txid, out.code, out.message)
            self._update(txid, status=FAILED, attempts=attempts, response=out.body,
                         last_error=out.code, next_attempt_at=None, completed_at=now)
            if op is not None and op.reference_transaction_id:
                self._update(op.reference_transaction_id, status=FAILED, last_error=out.code)
            return _result(None, transaction_id=txid, kind=kind, round_id=round_id,
                           status=FAILED, outcome=out)
        new_status, when = self._next_attempt(op, attempts, now)
        status = new_status or (op.status if op is not None and op.status == UNPAID else PENDING)
        if new_status == UNPAID and (op is None or op.status != UNPAID):
            log.error("credit %s still unpaid after %s; kept on record", txid, self.retry_window)
        self._update(txid, status=status, attempts=attempts, next_attempt_at=when,
                     last_error=out.code)
        return _result(None, transaction_id=txid, kind=kind, round_id=round_id, status=status,
                       outcome=out)

    # -- recovery ----------------------------------------------------------------------------

    def resume_pending(self, now: datetime | None = None, limit: int = 100,
                       on_settled: Callable[[WalletResult], None] | None = None
                       ) -> list[WalletResult]:
        """One pass over due operations: retry credits and rollbacks once each, and roll back
        debits cut off by a crash. Call it at start-up and periodically (not concurrently with
        itself). ``on_settled`` is called for each operation that reached an end (a credit
        paid, a debit rolled back), e.g. to complete a ``crediting`` round. ``now`` (tests):
        the pass runs as if it were then (what is due, the retry window, the next attempt)."""
        if self.store is None:
            raise RuntimeError("resume_pending needs a store")
        now = now or utcnow()
        results = []
        for op in self.store.due(now, limit):
            r = self._resume_one(op, now)
            if r is None:
                continue
            results.append(r)
            if on_settled is not None and r.status in (DONE, ROLLED_BACK, FAILED):
                try:
                    on_settled(r)
                except Exception:
                    log.exception("on_settled failed for %s", r.transaction_id)
        return results

    def _resume_one(self, op: OperatorWalletOp, now: datetime) -> WalletResult | None:
        if op.kind == CREDIT:
            payload = {"transaction_id": op.transaction_id, "round_id": op.round_id,
                       "player_id": op.player_id, "amount": op.amount, "currency": op.currency}
            return self._attempt(op, CREDIT, op.transaction_id, op.round_id, payload, 1, now)
        if op.kind == ROLLBACK:
            assert op.reference_transaction_id is not None
            r = self._attempt(op, ROLLBACK, op.transaction_id, op.round_id,
                              self._rollback_payload(op.transaction_id, op.round_id,
                                                     op.player_id, op.reference_transaction_id),
                              1, now)
            if r.status != DONE:
                return r
            return WalletResult(op.reference_transaction_id, DEBIT, ROLLED_BACK, op.round_id,
                                r.balance, r.currency, None, None, r.response)
        if op.kind == DEBIT and op.status == PENDING:
            if op.created_at > now - self.stale_after:
                return None  # probably still in flight in another thread
            log.warning("debit %s was cut off before its answer; rolling it back",
                        op.transaction_id)
            return self._roll_back_debit(op.player_id, op.round_id, op.transaction_id,
                                         op.last_error or "interrupted", tries=1, now=now)
        return None


def resume_pending(wallet: OperatorWallet, now: datetime | None = None, limit: int = 100,
                   on_settled: Callable[[WalletResult], None] | None = None
                   ) -> list[WalletResult]:
    """Module-level form of :meth:`OperatorWallet.resume_pending` (for the server's sweeper)."""
    return wallet.resume_pending(now, limit, on_settled)
