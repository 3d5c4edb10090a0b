"""What the batched paths (:mod:`.fast_rounds`, :mod:`.operator_rounds`) send at the ASGI
level: a JSON answer, the app's error body for an error, and the answer to a round start
whose write wrote nothing, as the general path answers it."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from starlette.types import Message, Send

from slotlab.json_text import json_text
from slotlab.ledger.batch import KEY, Refused, Stored
from slotlab.server import metrics
from slotlab.server.errors import ApiError
from slotlab.server.services import idempotency as idem
from slotlab.server.services import rounds as general

# The answer with what the player's profile adds now, from the session's net position where
# the write returned it (``round_view.with_profile``).
Profiled = Callable[[dict[str, Any], int | None], Awaitable[dict[str, Any]]]


class Collected:
    """An ASGI ``send`` that keeps what a batched path sent, for the general path that handed
    it the request: :meth:`answer` is that answer as the general path returns one."""

    def __init__(self) -> None:
        self.status: int | None = None
        self.body = b""

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
        elif message["type"] == "http.response.body":
            self.body += message.get("body", b"")

    def answer(self) -> tuple[int, dict[str, Any]]:
        """(status, body) of the answer sent; an error sent is raised as the ApiError it was
        (already counted in the metrics when sent)."""
        assert self.status is not None, "nothing was sent"
        data = json.loads(self.body)
        if self.status < 400:
            return self.status, data
        error = data.pop("error")
        raised = ApiError(self.status, error["code"], error["message"], **data)
        raised.counted = True
        raise raised


async def send_json(send: Send, status: int, data: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-length", str(len(data)).encode()),
                            (b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": data})


async def send_error(send: Send, error: ApiError) -> None:
    metrics.error(error.status, error.code)
    await send_json(send, error.status, json_text(error.body()).encode())


async def answer_unwritten(outcome: Refused | Stored, request_hash: str, bet: int,
                           pace_ms: int, at: datetime, profiled: Profiled, send: Send
                           ) -> str | None:
    """A round start the write did not make, answered as the general path answers it:
    refused for the pace, a loss limit or the funds (its error for that state:
    :func:`general.refusal`), or its key used before (409 where the key came with another
    request, else the first answer as stored with what the player's profile adds now: a retry
    gets the session's figures fresh). The answer's name for the path's stats; None: a key
    whose round is still in progress, nothing sent (the general path answers)."""
    if isinstance(outcome, Refused):
        await send_error(send, general.refusal(outcome, bet, pace_ms, at))
        return f"refused:{outcome.reason}"
    if outcome.request_hash != request_hash:
        await send_error(send, idem.key_reused())
        return f"refused:{KEY}"
    if outcome.status_code is None or outcome.response is None:
        return None
    body = await profiled(json.loads(outcome.response), outcome.net)
    await send_json(send, outcome.status_code, json_text(body).encode())
    return "replayed"
