"""Message signatures of the wallet protocol: HMAC-SHA256 over the raw body, in a header.

``X-Signature: sha256=<64 lowercase hex digits>``. Both directions are signed: the game server
signs its requests and the operator signs its responses with the same shared secret. The body is
signed byte for byte as sent, so neither side re-serialises JSON before checking.
"""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_HEADER = "X-Signature"
_PREFIX = "sha256="


def _key(secret: str | bytes) -> bytes:
    return secret.encode() if isinstance(secret, str) else secret


def sign(secret: str | bytes, body: bytes) -> str:
    """The header value for ``body``."""
    return _PREFIX + hmac.new(_key(secret), body, hashlib.sha256).hexdigest()


def verify(secret: str | bytes, body: bytes, header: str | None) -> bool:
    """Whether ``header`` is the signature of ``body`` (constant-time comparison)."""
    if not header or not header.startswith(_PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body), header.strip())
