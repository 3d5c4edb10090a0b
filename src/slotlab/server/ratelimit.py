"""Fixed-window limits per key (failed logins per client address, registrations, demo
sessions), and the client's address.

Each limit is a fixed-window counter in ``login_limits``, taken with one atomic upsert, so that
every server process on the database counts the same attempts and two concurrent attempts can
never both take the last one. An attempt is counted before its password is checked (a flood is
refused before it costs any hashing) and given back when the login succeeds, so the limits bind
failed logins only.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import math
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import lru_cache

from sqlalchemy import case, delete, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from starlette.types import ASGIApp, Receive, Scope, Send

from slotlab.server import metrics
from slotlab.server.errors import ApiError
from slotlab.store.models import LoginLimit, UTCDateTime

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=16)
def _networks(trusted: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    return tuple(ipaddress.ip_network(n, strict=False) for n in trusted)


def _trusted(addr: str, networks: Sequence[IPNetwork]) -> bool:
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    return any(ip in n for n in networks)


def client_address(peer: str | None, forwarded_for: str | None, trusted: Sequence[str]) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy; then the right-most
    entry of X-Forwarded-For that is not a trusted proxy (entries left of it are whatever the
    client chose to send, so they are never believed)."""
    addr = peer or "unknown"
    networks = _networks(tuple(trusted))
    if not networks or not forwarded_for or not _trusted(addr, networks):
        return addr
    for hop in reversed([h.strip() for h in forwarded_for.split(",") if h.strip()]):
        addr = hop[:64]
        if not _trusted(hop, networks):
            break
    return addr


class Refused(ApiError):
    """An error that tells the client when to try again (``Retry-After``)."""

    def __init__(self, status: int, code: str, message: str, retry_after: int) -> None:
        super().__init__(status, code, message)
        self.headers = {"Retry-After": str(retry_after)}


def request_address(scope: Scope, trusted: Sequence[str]) -> str:
    """:func:`client_address` of an ASGI request."""
    client = scope.get("client")
    forwarded = b",".join(v for k, v in scope["headers"] if k == b"x-forwarded-for")
    return client_address(client[0] if client else None, forwarded.decode("latin-1"), trusted)


class Blocks:
    """Client addresses whose failed logins this process saw over the limit, until their window
    ends: a cache of the database's verdict, so that a flood from one address is refused before
    its body is even parsed (:class:`LoginGate`). The count itself stays in the database."""

    MAX = 100_000

    def __init__(self) -> None:
        self._until: dict[str, float] = {}

    def add(self, address: str, retry_after: int) -> None:
        if len(self._until) >= self.MAX:
            now = time.monotonic()
            self._until = {a: t for a, t in self._until.items() if t > now}
        self._until[address] = time.monotonic() + retry_after

    def retry_after(self, address: str) -> int | None:
        until = self._until.get(address)
        if until is None:
            return None
        left = until - time.monotonic()
        if left <= 0:
            self._until.pop(address, None)
            return None
        return max(1, math.ceil(left))


_LOGIN_PATH = "/api/sessions"
REFUSAL_DELAY_S = 1.0


class LoginGate:
    """ASGI: ``POST /api/sessions`` from an address in the services' :class:`Blocks` gets 429
    after ``REFUSAL_DELAY_S``, at the cost of a dictionary lookup instead of a request's."""

    def __init__(self, app: ASGIApp, trusted_proxies: Sequence[str]) -> None:
        self.app = app
        self.trusted = tuple(trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope["path"] == _LOGIN_PATH
                and scope["method"] == "POST"):
            services = getattr(scope["app"].state, "services", None)
            if services is not None:
                wait = services.login_blocks.retry_after(request_address(scope, self.trusted))
                if wait is not None:
                    # A flood's loops wait for their refusal: each one costs the server a
                    # sleeping coroutine instead of a request parsed per millisecond.
                    await asyncio.sleep(min(wait, REFUSAL_DELAY_S))
                    metrics.rate_limited("login_gate")
                    await _too_many_response(send, wait)
                    return
        await self.app(scope, receive, send)


async def _too_many_response(send: Send, wait: int) -> None:
    body = json.dumps(too_many(wait).body()).encode()
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"retry-after", str(wait).encode())]})
    await send({"type": "http.response.body", "body": body})


def too_many(retry_after: int) -> Refused:
    return Refused(429, "too_many_logins",
                   f"too many failed logins; try again in {retry_after} s", retry_after)


def _retry_after(window_start: datetime, now: datetime, window_s: int) -> int:
    left = (window_start + timedelta(seconds=window_s) - now).total_seconds()
    return max(1, math.ceil(left))


def refused(s: Session, limits: Sequence[tuple[str, int]], now: datetime, window_s: int
            ) -> dict[str, int]:
    """The counters of ``limits`` (key, limit) that are full, with the seconds until their
    window ends. A read: refusing a flood writes nothing."""
    cutoff = now - timedelta(seconds=window_s)
    keys = [k for k, _ in limits]
    rows = s.execute(select(LoginLimit.key, LoginLimit.window_start, LoginLimit.attempts)
                     .where(LoginLimit.key.in_(keys), LoginLimit.window_start > cutoff)).all()
    caps = dict(limits)
    return {r.key: _retry_after(r.window_start, now, window_s) for r in rows
            if r.attempts >= caps[r.key]}


def take(s: Session, limits: Sequence[tuple[str, int]], now: datetime, window_s: int
         ) -> dict[str, int]:
    """Count one attempt on every counter; those now over their limit, with the seconds until
    their window ends."""
    dialect = s.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    expired = LoginLimit.window_start <= now - timedelta(seconds=window_s)
    over = {}
    for k, limit in sorted(limits):  # a fixed order: concurrent takers never deadlock
        upsert = insert(LoginLimit).values(key=k, window_start=now, attempts=1)
        stmt = upsert.on_conflict_do_update(
            index_elements=[LoginLimit.key],
            set_={"attempts": case((expired, 1), else_=LoginLimit.attempts + 1),
                  "window_start": case((expired, literal(now, UTCDateTime)),
                                       else_=LoginLimit.window_start)},
        ).returning(LoginLimit.attempts, LoginLimit.window_start)
        row = s.execute(stmt).one()
        if row.attempts > limit:
            over[k] = _retry_after(row.window_start, now, window_s)
    return over


def give_back(s: Session, keys: Sequence[str]) -> None:
    """A login succeeded: its attempt does not count against the limits."""
    s.execute(update(LoginLimit).where(LoginLimit.key.in_(sorted(keys)), LoginLimit.attempts > 0)
              .values(attempts=LoginLimit.attempts - 1))


def purge(s: Session, now: datetime, window_s: int, own_windows: Mapping[str, int] | None = None
          ) -> int:
    """Drop counters whose window has passed; the number dropped. ``own_windows`` gives key
    prefixes counted in windows of their own (``{"d:": 3600}``, the demo sessions')."""
    own = dict(own_windows or {})
    dropped = 0
    for prefix, w in [*own.items(), (None, window_s)]:
        cond = LoginLimit.window_start <= now - timedelta(seconds=w)
        if prefix is not None:
            cond = cond & LoginLimit.key.startswith(prefix, autoescape=True)
        else:
            for p in own:
                cond = cond & ~LoginLimit.key.startswith(p, autoescape=True)
        res = s.execute(delete(LoginLimit).where(cond))
        dropped += int(res.rowcount or 0)  # type: ignore[attr-defined]
    return dropped
