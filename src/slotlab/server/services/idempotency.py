"""Idempotency keys: a retried request gets the first response and moves no money.

A key belongs to an owner (a player, or the admin) and remembers the hash of the first request
(method, path and body). The key row is written in the same transaction as the money it guards,
so either both exist or neither; a concurrent duplicate hits the primary key and rolls back.
Keys are kept ``idempotency_ttl_s`` (at least 24 hours).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from slotlab.server.errors import ApiError, bad_request, conflict
from slotlab.store.models import IdempotencyKey, utcnow

MAX_KEY = 200


def check_key(key: str | None) -> str:
    if key is None or not key.strip():
        raise bad_request("missing_idempotency_key", "this call needs an Idempotency-Key header")
    if len(key) > MAX_KEY or not key.isprintable() or not key.isascii():
        raise bad_request("bad_idempotency_key",
                          f"Idempotency-Key must be 1-{MAX_KEY} printable ASCII characters")
    return key


def request_hash(method: str, path: str, body: Any) -> str:
    text = json.dumps([method, path, body], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


_K = IdempotencyKey.__table__
_LOOKUP = select(_K.c.request_hash, _K.c.round_id, _K.c.status_code, _K.c.response).where(
    _K.c.owner == bindparam("owner"), _K.c.key == bindparam("key"))


def key_reused() -> ApiError:
    """409: the key was used with another request (method, path or body)."""
    return conflict("idempotency_key_reused",
                    "this Idempotency-Key was used with a different request")


def lookup(s: Session, owner: str, key: str, req_hash: str) -> Any:
    """The stored key, or None; a key used with another request is refused with 409."""
    row = s.execute(_LOOKUP, {"owner": owner, "key": key}).one_or_none()
    if row is not None and row.request_hash != req_hash:
        raise key_reused()
    return row


def reserve(s: Session, owner: str, key: str, req_hash: str, round_id: str | None = None
            ) -> IdempotencyKey:
    row = IdempotencyKey(owner=owner, key=key, request_hash=req_hash, round_id=round_id,
                         created_at=utcnow())
    s.add(row)
    s.flush()  # a concurrent duplicate fails here (IntegrityError), before any money moves
    return row
