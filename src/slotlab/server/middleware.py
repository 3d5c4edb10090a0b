"""ASGI middlewares: the request body cap and the security headers of every response.

Both are plain ASGI (no Starlette ``BaseHTTPMiddleware``): the body cap must act before the body
is read, and neither adds a task or a copy of the body to the round path.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

_TOO_LARGE = b'{"error":{"code":"too_large","message":"the request body is too large"}}'


class BodyLimit:
    """413 for a request body over ``max_bytes``: at once when Content-Length says so (nothing
    of the body is read), else as soon as the streamed body passes the limit."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit()
                                              or int(value) > self.max_bytes):
                await _refuse(send)
                return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    # Handled by the app's error mapping (413 too_large) like any HTTP error.
                    raise HTTPException(413, "the request body is too large")
            return message

        await self.app(scope, counted, send)


async def _refuse(send: Send) -> None:
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(_TOO_LARGE)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": _TOO_LARGE})


# The browser client has no inline script; its inline styles are SVG attributes and CSSOM.
_APP_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
               "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
               "base-uri 'none'; form-action 'self'")
# The API docs pages (Swagger UI, ReDoc) carry one inline start-up script each: it is allowed
# by its hash, computed from the page served, never by 'unsafe-inline'.
_DOCS_POLICY = ("default-src 'self'; script-src 'self'{hashes}; style-src 'self' 'unsafe-inline'; "
                "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
                "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'")
_DOCS_PATHS = ("/docs", "/redoc")
_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


_NO_STORE = (b"cache-control", b"no-store")


class SecurityHeaders:
    """Content-Security-Policy (with ``frame-ancestors``), ``X-Content-Type-Options: nosniff``
    and ``Referrer-Policy`` on every response: pages, assets, API answers and errors; and
    ``Cache-Control: no-store`` on every API answer, so that no browser or proxy cache keeps a
    token, a balance or a round (the static client stays cacheable)."""

    def __init__(self, app: ASGIApp, frame_ancestors: Sequence[str] = ()) -> None:
        self.app = app
        self.ancestors = "; frame-ancestors " + " ".join(["'self'", *frame_ancestors])
        self.common = [(b"x-content-type-options", b"nosniff"),
                       (b"referrer-policy", b"strict-origin-when-cross-origin")]
        self.app_headers = [(b"content-security-policy",
                             (_APP_POLICY + self.ancestors).encode()), *self.common]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"].startswith(_DOCS_PATHS):
            await self._docs(scope, receive, send)
            return

        extra = ([*self.app_headers, _NO_STORE] if scope["path"].startswith("/api/")
                 else self.app_headers)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)

    async def _docs(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hold the (small) docs page to hash its inline scripts into its policy."""
        start: Message | None = None
        body: list[bytes] = []

        async def held(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            page = b"".join(body)
            hashes = "".join(
                " 'sha256-" + base64.b64encode(hashlib.sha256(m).digest()).decode() + "'"
                for m in _INLINE_SCRIPT.findall(page))
            policy = _DOCS_POLICY.format(hashes=hashes) + self.ancestors
            start["headers"] = [*start.get("headers", ()),
                                (b"content-security-policy", policy.encode()), *self.common]
            await send(start)
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, held)
