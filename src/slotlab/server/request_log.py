"""Logs that trace a request: JSON lines, a request id on every line and in the answer.

:class:`RequestLog` (ASGI, outermost) gives each request an id (the client's ``X-Request-ID`` when
it is a sane one, else a new one), returns it in the ``X-Request-ID`` header, keeps it in a
context variable for every log line written while the request is served (the worker threads
of the general path copy the context), and writes one line per request when it is answered.
The money paths write one line per round settled (``slotlab.server.metrics.round_settled``).

:class:`JsonLines` formats a record as one JSON object: ``ts``, ``level``, ``logger``, ``msg``,
``request_id`` when there is one, and the record's ``fields`` (``extra={"fields": {...}}``).
Nothing logged carries a password, a session token or a seed: rounds are logged by id, and a
round's seeds are only in its record once it is over.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotlab.json_text import json_text

REQUEST_ID: ContextVar[str | None] = ContextVar("slotlab_request_id", default=None)
_SANE_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
log = logging.getLogger("slotlab.requests")


class JsonLines(logging.Formatter):
    """One JSON object per line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name,
            "msg": record.getMessage()}
        rid = REQUEST_ID.get()
        if rid is not None:
            line["request_id"] = rid
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json_text(line)


class RequestLog:
    """ASGI: the request id, its header, and a line per request answered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k == b"x-request-id"), None)
        rid = given.decode() if given is not None and _SANE_ID.fullmatch(given) else (
            uuid.uuid4().hex)
        token = REQUEST_ID.set(rid)
        started = time.perf_counter()
        status = 0

        async def with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()),
                                      (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, with_id)
        finally:
            if log.isEnabledFor(logging.INFO):
                log.info("%s %s %d", scope["method"], scope["path"], status, extra={"fields": {
                    "event": "request", "method": scope["method"], "path": scope["path"],
                    "status": status, "ms": round((time.perf_counter() - started) * 1000, 3)}})
            REQUEST_ID.reset(token)
