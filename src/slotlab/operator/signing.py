"""Message signatures of the wallet protocol: HMAC-SHA256 over the whole exchange, not the body.

A request's signature covers its method, its path, a timestamp, a nonce and a digest of its body;
an answer's covers the digest of the request it answers (so it cannot be handed to another
request), its status, its own timestamp and its body. Headers (docs/operator-wallet.md):

- ``X-Key-Id``: which shared secret signed the message (:func:`key_id`: a fingerprint, so that
  two secrets can be accepted while one replaces the other);
- ``X-Timestamp``: Unix seconds when it was signed; outside ``tolerance_s`` of the receiver's
  clock the message is refused (a captured message does not keep working);
- ``X-Nonce``: requests only, 128 random bits in hex; the receiver accepts each once;
- ``X-Signature``: ``v2=<64 lowercase hex digits>``.

The body is signed byte for byte as sent (its SHA-256), so neither side re-serialises JSON
before checking. Each side checks in constant time and refuses with a :class:`SignatureError`
whose ``code`` says why.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass

SIGNATURE_HEADER = "X-Signature"
KEY_ID_HEADER = "X-Key-Id"
TIMESTAMP_HEADER = "X-Timestamp"
NONCE_HEADER = "X-Nonce"
DEFAULT_TOLERANCE_S = 300  # five minutes either way: clocks drift, a captured message expires
_SCHEME = "v2="
_DOMAIN = "slotlab-wallet-v2"


class SignatureError(Exception):
    """A message that is not what its signature says: ``code`` is the protocol's error code
    (``invalid_signature``, ``unknown_key``, ``stale_message``, ``replayed_request``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def _key(secret: str | bytes) -> bytes:
    return secret.encode() if isinstance(secret, str) else secret


def key_id(secret: str | bytes) -> str:
    """The public name of a secret: a fingerprint, never the secret itself."""
    return hashlib.sha256(b"slotlab-wallet-key-id\0" + _key(secret)).hexdigest()[:16]


class Keyring:
    """The secret this side signs with, and every secret it accepts: the current one and, during
    a rotation, the ones it replaces."""

    def __init__(self, current: str | bytes, *previous: str | bytes) -> None:
        self.current_id = key_id(current)
        self._keys = {key_id(s): _key(s) for s in (*previous, current) if s}

    def get(self, kid: str | None) -> bytes | None:
        return self._keys.get(kid) if kid else None

    @property
    def current(self) -> bytes:
        return self._keys[self.current_id]


def _mac(key: bytes, *parts: str) -> str:
    return hmac.new(key, "\n".join((_DOMAIN, *parts)).encode(), hashlib.sha256).hexdigest()


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def request_digest(method: str, path: str, timestamp: str, nonce: str, body: bytes) -> str:
    """What identifies one request: an answer is signed over it."""
    return hashlib.sha256("\n".join((_DOMAIN, "request", method.upper(), path, timestamp, nonce,
                                     body_digest(body))).encode()).hexdigest()


def received_digest(method: str, path: str, body: bytes, headers: Mapping[str, str]) -> str:
    """The digest of a request as it arrived, whether or not its signature holds: a refusal is
    signed over it, so that it answers that request and no other."""
    return request_digest(method, path, _header(headers, TIMESTAMP_HEADER) or "",
                          _header(headers, NONCE_HEADER) or "", body)


@dataclass(frozen=True)
class SignedRequest:
    headers: dict[str, str]
    digest: str  # the request's digest, to check its answer with


def sign_request(keyring: Keyring, method: str, path: str, body: bytes, *,
                 now: float | None = None, nonce: str | None = None) -> SignedRequest:
    ts = str(int(time.time() if now is None else now))
    nonce = nonce or secrets.token_hex(16)
    digest = request_digest(method, path, ts, nonce, body)
    return SignedRequest({KEY_ID_HEADER: keyring.current_id, TIMESTAMP_HEADER: ts,
                          NONCE_HEADER: nonce,
                          SIGNATURE_HEADER: _SCHEME + _mac(keyring.current, "request", digest)},
                         digest)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:
        value = headers.get(name.lower())
    return value


def _fresh(ts: str | None, now: float | None, tolerance_s: float) -> str:
    if ts is None or not ts.isdigit() or len(ts) > 12:
        raise SignatureError("invalid_signature", f"missing or malformed {TIMESTAMP_HEADER}")
    skew = abs((time.time() if now is None else now) - int(ts))
    if skew > tolerance_s:
        raise SignatureError("stale_message",
                             f"signed {int(skew)} s away from this clock (tolerance "
                             f"{int(tolerance_s)} s)")
    return ts


def _check_mac(keyring: Keyring, headers: Mapping[str, str], *parts: str) -> str:
    """The key id that signed ``parts``; raises when no accepted key did."""
    kid = _header(headers, KEY_ID_HEADER)
    key = keyring.get(kid)
    if key is None:
        raise SignatureError("unknown_key", f"{KEY_ID_HEADER} names no accepted key")
    given = _header(headers, SIGNATURE_HEADER) or ""
    if not given.startswith(_SCHEME) or not hmac.compare_digest(
            _SCHEME + _mac(key, *parts), given.strip()):
        raise SignatureError("invalid_signature", f"missing or wrong {SIGNATURE_HEADER}")
    assert kid is not None
    return kid


@dataclass(frozen=True)
class CheckedRequest:
    digest: str  # to sign the answer over
    key_id: str  # the key that signed it: the answer is signed with the same one
    nonce: str
    timestamp: int


def check_request(keyring: Keyring, method: str, path: str, body: bytes,
                  headers: Mapping[str, str], *, now: float | None = None,
                  tolerance_s: float = DEFAULT_TOLERANCE_S) -> CheckedRequest:
    """The request's digest and key, if it is signed by an accepted key, for this method and
    path, within the tolerance; else :class:`SignatureError`. The nonce's first use is the
    caller's to check (it keeps the nonces it has seen)."""
    ts = _fresh(_header(headers, TIMESTAMP_HEADER), now, tolerance_s)
    nonce = _header(headers, NONCE_HEADER)
    if not nonce or len(nonce) > 64 or not nonce.isalnum():
        raise SignatureError("invalid_signature", f"missing or malformed {NONCE_HEADER}")
    digest = request_digest(method, path, ts, nonce, body)
    kid = _check_mac(keyring, headers, "request", digest)
    return CheckedRequest(digest, kid, nonce, int(ts))


def sign_response(keyring: Keyring, request: str, status: int, body: bytes, *,
                  kid: str | None = None, now: float | None = None) -> dict[str, str]:
    """Headers for an answer to the request of digest ``request``, signed with the key ``kid``
    the request used where it is an accepted one (else the current one)."""
    kid = kid if kid is not None and keyring.get(kid) is not None else keyring.current_id
    key = keyring.get(kid)
    assert key is not None
    ts = str(int(time.time() if now is None else now))
    return {KEY_ID_HEADER: kid, TIMESTAMP_HEADER: ts,
            SIGNATURE_HEADER: _SCHEME + _mac(key, "response", request, str(status), ts,
                                             body_digest(body))}


def check_response(keyring: Keyring, request: str, status: int, body: bytes,
                   headers: Mapping[str, str], *, now: float | None = None,
                   tolerance_s: float = DEFAULT_TOLERANCE_S) -> None:
    """Raise :class:`SignatureError` unless the answer is signed, by an accepted key, as the
    answer to the request of digest ``request`` with this status and body, within the
    tolerance."""
    ts = _fresh(_header(headers, TIMESTAMP_HEADER), now, tolerance_s)
    _check_mac(keyring, headers, "response", request, str(status), ts, body_digest(body))
