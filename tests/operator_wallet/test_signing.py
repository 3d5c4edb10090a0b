"""The wallet protocol's signatures: what each side checks, and that a message which is not what
its signature says moves no money (the reference wallet over real HTTP, and the adapter)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from slotlab.operator.signing import (
    Keyring,
    SignatureError,
    check_request,
    check_response,
    key_id,
    sign_request,
    sign_response,
)
from slotlab.server.operator_wallet import OperatorWallet
from tests.operator_wallet.conftest import SECRET, START_BALANCE, WalletServer, new_round

OTHER = "another-operator-secret-" + uuid.uuid4().hex


def _debit(rid: str, pid: str, amount: int) -> dict[str, object]:
    return {"transaction_id": f"{rid}:debit", "round_id": rid, "player_id": pid,
            "amount": amount, "currency": "EUR"}


def _refused(r: httpx.Response, code: str) -> None:
    assert (r.status_code, r.json()["error"]["code"]) == (401, code), r.text


# -- the functions ------------------------------------------------------------------------------


def test_a_request_is_bound_to_its_method_path_time_nonce_and_body() -> None:
    ring = Keyring(SECRET)
    body = b'{"amount":100}'
    s = sign_request(ring, "POST", "/wallet/debit", body, now=1_000_000)
    assert check_request(ring, "POST", "/wallet/debit", body, s.headers,
                         now=1_000_000).digest == s.digest
    for method, path, data in (("POST", "/wallet/credit", body), ("PUT", "/wallet/debit", body),
                               ("POST", "/wallet/debit", b'{"amount":101}')):
        with pytest.raises(SignatureError) as e:
            check_request(ring, method, path, data, s.headers, now=1_000_000)
        assert e.value.code == "invalid_signature"
    for header, value in (("X-Nonce", "0" * 32), ("X-Timestamp", "1000001")):
        with pytest.raises(SignatureError) as e:
            check_request(ring, "POST", "/wallet/debit", body, {**s.headers, header: value},
                          now=1_000_000)
        assert e.value.code == "invalid_signature"
    with pytest.raises(SignatureError) as e:  # another secret
        check_request(Keyring(OTHER), "POST", "/wallet/debit", body, s.headers, now=1_000_000)
    assert e.value.code == "unknown_key"


def test_a_message_outside_the_tolerance_is_refused_either_way() -> None:
    ring = Keyring(SECRET)
    s = sign_request(ring, "POST", "/wallet/debit", b"{}", now=1_000_000)
    check_request(ring, "POST", "/wallet/debit", b"{}", s.headers, now=1_000_300)  # at the edge
    for now in (1_000_301, 999_699):
        with pytest.raises(SignatureError) as e:
            check_request(ring, "POST", "/wallet/debit", b"{}", s.headers, now=now)
        assert e.value.code == "stale_message"
    answer = sign_response(ring, s.digest, 200, b"{}", now=1_000_000)
    with pytest.raises(SignatureError) as e:
        check_response(ring, s.digest, 200, b"{}", answer, now=1_000_000 + 301)
    assert e.value.code == "stale_message"


def test_an_answer_is_bound_to_its_request_status_and_body() -> None:
    ring = Keyring(SECRET)
    mine = sign_request(ring, "POST", "/wallet/debit", b"{}")
    other = sign_request(ring, "POST", "/wallet/debit", b"{}")  # same body, another nonce
    assert mine.digest != other.digest
    headers = sign_response(ring, other.digest, 200, b'{"ok":1}')
    check_response(ring, other.digest, 200, b'{"ok":1}', headers)
    for digest, status, body in ((mine.digest, 200, b'{"ok":1}'),  # another request's answer
                                 (other.digest, 402, b'{"ok":1}'), (other.digest, 200, b"{}")):
        with pytest.raises(SignatureError) as e:
            check_response(ring, digest, status, body, headers)
        assert e.value.code == "invalid_signature"


def test_key_ids_name_secrets_without_showing_them() -> None:
    assert key_id(SECRET) != key_id(OTHER) and SECRET[:8] not in key_id(SECRET)
    ring = Keyring(OTHER, SECRET)  # during a rotation: signs with the new one, accepts both
    assert ring.current_id == key_id(OTHER)
    s = sign_request(Keyring(SECRET), "POST", "/p", b"")
    assert check_request(ring, "POST", "/p", b"", s.headers).key_id == key_id(SECRET)


# -- the reference wallet -----------------------------------------------------------------------


def test_a_debit_posted_to_credit_is_refused_and_moves_nothing(wallet_server: WalletServer
                                                               ) -> None:
    pid = wallet_server.player()
    rid = new_round()
    body = json.dumps(_debit(rid, pid, 100)).encode()
    signed = sign_request(Keyring(SECRET), "POST", "/wallet/debit", body)
    r = wallet_server.http.post("/wallet/credit", content=body, headers=signed.headers)
    _refused(r, "invalid_signature")
    assert wallet_server.balance(pid) == START_BALANCE and wallet_server.transactions(rid) == []


def test_a_request_dated_2001_or_replayed_is_refused(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    _refused(wallet_server.post("/wallet/debit", _debit(rid, pid, 100),
                                now=time.mktime((2001, 1, 1, 0, 0, 0, 0, 0, 0))),
             "stale_message")
    assert wallet_server.transactions(rid) == []
    nonce = uuid.uuid4().hex
    assert wallet_server.post("/wallet/debit", _debit(rid, pid, 100), nonce=nonce
                              ).status_code == 200
    # The same message again, byte for byte: refused (a retry is a new message, new nonce).
    _refused(wallet_server.post("/wallet/debit", _debit(rid, pid, 100), nonce=nonce),
             "replayed_request")
    assert wallet_server.post("/wallet/debit", _debit(rid, pid, 100)).status_code == 200
    assert wallet_server.balance(pid) == START_BALANCE - 100


def test_nonces_outlive_a_restart(tmp_path: Path) -> None:
    nonce = uuid.uuid4().hex
    first = WalletServer(tmp_path / "w.db").start()
    try:
        assert first.post("/admin/player", {"player_id": "x"}, nonce=nonce).status_code == 404
    finally:
        first.stop()
    again = WalletServer(tmp_path / "w.db").start()
    try:
        _refused(again.post("/admin/player", {"player_id": "x"}, nonce=nonce), "replayed_request")
    finally:
        again.stop()


def test_key_rotation_accepts_both_secrets_then_only_the_new(
        tmp_path: Path, make_adapter: Callable[..., OperatorWallet]) -> None:
    """The documented order: the operator accepts the new secret beside the old one; slotlab
    signs with the new one (accepting answers under either); the operator drops the old one."""
    old, new = SECRET, OTHER
    srv = WalletServer(tmp_path / "w.db", secret=Keyring(new, old)).start()
    try:
        pid = srv.player()  # signed with the old secret: still accepted
        for ring in (Keyring(old), Keyring(new, old)):  # before and after slotlab's change
            w = make_adapter(url=srv.url, secret=ring)
            rid = new_round()
            assert w.debit(pid, 10, "EUR", rid).ok and w.credit(pid, 0, "EUR", rid).ok
        assert srv.post("/admin/player", {"player_id": pid}).json()["balance"] == (
            START_BALANCE - 20)
    finally:
        srv.stop()
    done = WalletServer(tmp_path / "w.db", secret=Keyring(new)).start()
    try:
        stale = make_adapter(url=done.url, secret=Keyring(old), verify_responses=False)
        d = stale.debit(pid, 10, "EUR", new_round())
        assert not d.ok and d.code == "unknown_key"
        fresh = make_adapter(url=done.url, secret=Keyring(new))
        assert fresh.balance(pid)["balance"] == START_BALANCE - 20
    finally:
        done.stop()
