"""What the fast paths (:mod:`.fast_rounds`, :mod:`.fast_choices`) read of a request's headers
before deciding to serve it: the session's token, its one Idempotency-Key (checked as the app
checks it) and a JSON body. Anything else is the app's to answer, as it always did."""

from __future__ import annotations

import re

from slotlab.server.errors import ApiError
from slotlab.server.services import idempotency as idem

_BEARER = re.compile(rb"Bearer ([A-Za-z0-9_\-]{1,200})")
_JSON = b"application/json"


def token_and_key(headers: list[tuple[bytes, bytes]]) -> tuple[str, str] | None:
    """The bearer token and the Idempotency-Key of a JSON request that has exactly one of
    each; else None."""
    token = key = None
    content_type = b""
    keys = 0
    for name, value in headers:
        if name == b"authorization":
            m = _BEARER.fullmatch(value)
            token = m.group(1).decode() if m else None
        elif name == b"idempotency-key":
            keys += 1
            key = value.decode("latin-1")
        elif name == b"content-type":
            content_type = value
    if token is None or keys != 1 or key is None or content_type != _JSON:
        return None
    try:
        return token, idem.check_key(key)
    except ApiError:
        return None
