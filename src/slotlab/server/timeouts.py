"""Read timeouts: a client that half-sends a request is dropped.

uvicorn times out an idle keep-alive connection, but not one that sends a request slowly: a
thousand connections each holding back the end of their head (or body) would stay open for
ever. :class:`TimedHttpToolsProtocol` is uvicorn's httptools protocol with two more timers:

- the head of a request (request line and headers) must be complete ``header_timeout_s`` after
  the connection opened or the request's first byte came (else 408, and the connection closes);
- its body must be complete ``body_timeout_s`` after its head (else the connection closes; the
  request, whose body the app is still waiting for, ends as a client disconnect).

The seconds are the app's settings (``SLOTLAB_HEADER_TIMEOUT_S``, ``SLOTLAB_BODY_TIMEOUT_S``),
found through the app the protocol serves, so that each server in a process has its own.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

_TIMEOUT_BODY = b'{"error":{"code":"request_timeout","message":"the request came too slowly"}}'
_TIMEOUT_ANSWER = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\n"
                   b"Connection: close\r\nContent-Length: %d\r\n\r\n%s"
                   % (len(_TIMEOUT_BODY), _TIMEOUT_BODY))
DEFAULTS = (10.0, 30.0)  # when the app's settings cannot be found


def _app_timeouts(app: Any) -> tuple[float, float]:
    """(header, body) seconds from the settings of the slotlab app inside uvicorn's wrappers."""
    for _ in range(8):
        services = getattr(getattr(app, "state", None), "services", None)
        if services is not None:
            st = services.settings
            return float(st.header_timeout_s), float(st.body_timeout_s)
        app = getattr(app, "app", None)
        if app is None:
            break
    return DEFAULTS


class TimedHttpToolsProtocol(HttpToolsProtocol):
    _timer: asyncio.TimerHandle | None = None
    _timeouts: tuple[float, float] = DEFAULTS
    _heading = True  # waiting for a request's head (else for its body)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._timeouts = _app_timeouts(self.app)
        self._arm(heading=True)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm(heading=True)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(heading=False)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, heading: bool) -> None:
        self._disarm()
        self._heading = heading
        seconds = self._timeouts[0 if heading else 1]
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self._heading and (self.cycle is None or self.cycle.response_complete):
            self.transport.write(_TIMEOUT_ANSWER)  # no answer under way: say why
        self.transport.close()
