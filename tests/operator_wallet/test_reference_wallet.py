"""The reference operator wallet over real HTTP: signatures, idempotency, rollback rules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from slotlab.operator.signing import Keyring, sign_request
from slotlab.server.operator_wallet import OperatorError, OperatorWallet
from tests.operator_wallet.conftest import SECRET, START_BALANCE, WalletServer, free_port, new_round


def _debit(rid: str, pid: str, amount: int, txid: str | None = None) -> dict[str, object]:
    return {"transaction_id": txid or f"{rid}:debit", "round_id": rid, "player_id": pid,
            "amount": amount, "currency": "EUR"}


def _credit(rid: str, pid: str, amount: int, n: int = 0) -> dict[str, object]:
    return {"transaction_id": f"{rid}:credit:{n}", "round_id": rid, "player_id": pid,
            "amount": amount, "currency": "EUR"}


def _rollback(rid: str, pid: str, ref: str | None = None, txid: str | None = None
              ) -> dict[str, object]:
    ref = ref or f"{rid}:debit"
    return {"transaction_id": txid or f"{ref}:rollback", "round_id": rid, "player_id": pid,
            "reference_transaction_id": ref}


def test_authenticate_and_balance(wallet_server: WalletServer) -> None:
    pid = wallet_server.player(balance=1234)
    r = wallet_server.post("/wallet/authenticate", {"token": f"tok-{pid}"})
    assert r.status_code == 200
    assert r.json() == {"player_id": pid, "balance": 1234, "currency": "EUR"}
    r = wallet_server.post("/wallet/authenticate", {"token": "nope"})
    assert (r.status_code, r.json()["error"]["code"]) == (401, "invalid_token")
    r = wallet_server.post("/wallet/balance", {"player_id": pid})
    assert r.json()["balance"] == 1234
    r = wallet_server.post("/wallet/balance", {"player_id": "ghost"})
    assert (r.status_code, r.json()["error"]["code"]) == (404, "unknown_player")


def test_bad_signature_is_refused_and_moves_nothing(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    r = wallet_server.post("/wallet/debit", _debit(rid, pid, 100), secret="wrong-secret-123456")
    assert (r.status_code, r.json()["error"]["code"]) == (401, "unknown_key")
    # Signed body altered after signing.
    body = json.dumps(_debit(rid, pid, 100)).encode()
    signed = sign_request(Keyring(SECRET), "POST", "/wallet/debit", body)
    r = wallet_server.http.post("/wallet/debit", content=body.replace(b"100", b"1"),
                                headers=signed.headers)
    assert (r.status_code, r.json()["error"]["code"]) == (401, "invalid_signature")
    r = wallet_server.http.post("/wallet/debit", content=body)  # no header at all
    assert r.status_code == 401
    assert wallet_server.balance(pid) == START_BALANCE
    assert wallet_server.transactions(rid) == []


def test_malformed_and_invalid_requests(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    r = wallet_server.post("/wallet/debit", raw=b"{not json")
    assert (r.status_code, r.json()["error"]["code"]) == (400, "malformed_json")
    rid = new_round()
    for bad in (_debit(rid, pid, -5), _debit(rid, pid, 0), {**_debit(rid, pid, 1), "amount": 1.5},
                {**_debit(rid, pid, 1), "amount": "10"}, {"round_id": rid}):
        r = wallet_server.post("/wallet/debit", bad)
        assert (r.status_code, r.json()["error"]["code"]) == (422, "invalid_request"), bad
    assert wallet_server.balance(pid) == START_BALANCE


def test_duplicates_return_the_first_answer_once(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    first = wallet_server.post("/wallet/debit", _debit(rid, pid, 300))
    again = wallet_server.post("/wallet/debit", _debit(rid, pid, 300))
    assert first.status_code == again.status_code == 200
    assert first.content == again.content
    assert first.json()["balance"] == START_BALANCE - 300
    c1 = wallet_server.post("/wallet/credit", _credit(rid, pid, 500))
    c2 = wallet_server.post("/wallet/credit", _credit(rid, pid, 500))
    assert c1.content == c2.content
    assert wallet_server.balance(pid) == START_BALANCE - 300 + 500
    # The same id with another request is refused, not applied.
    r = wallet_server.post("/wallet/debit", _debit(rid, pid, 301))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "transaction_mismatch")
    assert wallet_server.balance(pid) == START_BALANCE + 200
    assert len(wallet_server.transactions(rid)) == 2


def test_insufficient_funds(wallet_server: WalletServer) -> None:
    pid = wallet_server.player(balance=50)
    rid = new_round()
    r = wallet_server.post("/wallet/debit", _debit(rid, pid, 51))
    assert r.status_code == 402
    assert r.json()["error"]["code"] == "insufficient_funds"
    assert r.json()["balance"] == 50
    # Its duplicate gets the same refusal even once the money is there.
    wallet_server.post("/admin/players", {"player_id": pid, "balance": 100})
    again = wallet_server.post("/wallet/debit", _debit(rid, pid, 51))
    assert again.content == r.content and again.status_code == 402
    # Rolling a refused debit back refunds nothing.
    rb = wallet_server.post("/wallet/rollback", _rollback(rid, pid))
    assert rb.status_code == 200 and rb.json()["refunded"] == 0
    assert wallet_server.balance(pid) == 100


def test_currency_mismatch(wallet_server: WalletServer) -> None:
    pid = wallet_server.player(currency="GBP")
    r = wallet_server.post("/wallet/debit", _debit(new_round(), pid, 10))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "currency_mismatch")
    assert wallet_server.balance(pid) == START_BALANCE


def test_rollback_refunds_once(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.post("/wallet/debit", _debit(rid, pid, 700))
    r1 = wallet_server.post("/wallet/rollback", _rollback(rid, pid))
    r2 = wallet_server.post("/wallet/rollback", _rollback(rid, pid))
    assert r1.content == r2.content and r1.json()["refunded"] == 700
    # Another rollback id for the same debit gives nothing more back.
    r3 = wallet_server.post("/wallet/rollback", _rollback(rid, pid, txid=f"{rid}:other"))
    assert r3.status_code == 200 and r3.json()["refunded"] == 0
    assert wallet_server.balance(pid) == START_BALANCE
    # A win for a round whose bet was rolled back is refused.
    r = wallet_server.post("/wallet/credit", _credit(rid, pid, 50))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "round_rolled_back")


def test_rollback_before_debit_voids_the_late_debit(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    rb = wallet_server.post("/wallet/rollback", _rollback(rid, pid))
    assert rb.status_code == 200 and rb.json()["refunded"] == 0
    late = wallet_server.post("/wallet/debit", _debit(rid, pid, 400))
    assert (late.status_code, late.json()["error"]["code"]) == (409, "transaction_rolled_back")
    assert wallet_server.balance(pid) == START_BALANCE


def test_no_rollback_after_settlement_and_never_of_a_credit(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.post("/wallet/debit", _debit(rid, pid, 100))
    wallet_server.post("/wallet/credit", _credit(rid, pid, 0))  # a zero win settles the round
    r = wallet_server.post("/wallet/rollback", _rollback(rid, pid))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "round_settled")
    r = wallet_server.post("/wallet/rollback", _rollback(rid, pid, ref=f"{rid}:credit:0"))
    assert (r.status_code, r.json()["error"]["code"]) == (409, "not_reversible")
    assert wallet_server.balance(pid) == START_BALANCE - 100


def test_fault_injection_500_applies_nothing(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.faults("debit", fail=1)
    r = wallet_server.post("/wallet/debit", _debit(rid, pid, 100))
    assert r.status_code == 500
    assert wallet_server.balance(pid) == START_BALANCE
    r = wallet_server.post("/wallet/debit", _debit(rid, pid, 100))
    assert r.status_code == 200


def test_fault_injection_drop_applies_then_loses_the_answer(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.faults("credit", drop=1, drop_as="500")
    r = wallet_server.post("/wallet/credit", _credit(rid, pid, 100))
    assert r.status_code == 500
    assert wallet_server.balance(pid) == START_BALANCE + 100  # applied nonetheless
    r = wallet_server.post("/wallet/credit", _credit(rid, pid, 100))
    assert r.status_code == 200 and r.json()["balance"] == START_BALANCE + 100


def test_fault_injection_delay(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    wallet_server.faults("balance", delay_s=0.3, delay_calls=1)
    t0 = time.monotonic()
    wallet_server.post("/wallet/balance", {"player_id": pid})
    assert time.monotonic() - t0 >= 0.3
    t0 = time.monotonic()
    wallet_server.post("/wallet/balance", {"player_id": pid})
    assert time.monotonic() - t0 < 0.3


def test_runs_as_a_process(tmp_path: Path) -> None:
    """``python -m slotlab.operator.reference_wallet`` serves the documented protocol."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "slotlab.operator.reference_wallet", "--port", str(port),
         "--db", str(tmp_path / "w.db"), "--player", "alice:tok-alice:5000:EUR"],
        env={**os.environ, "SLOTLAB_OPERATOR_SECRET": SECRET},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with OperatorWallet(f"http://127.0.0.1:{port}", SECRET, timeout=2) as w:
            deadline = time.monotonic() + 30
            while True:  # wait for the process to listen
                try:
                    me = w.authenticate("tok-alice")
                    break
                except OperatorError as e:
                    assert e.code == "connection_error", e
                    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                    assert time.monotonic() < deadline, "the wallet did not start"
                    time.sleep(0.1)
            assert me == {"player_id": "alice", "balance": 5000, "currency": "EUR"}
            rid = new_round()
            assert w.debit("alice", 1000, "EUR", rid).balance == 4000
            assert w.credit("alice", 0, "EUR", rid).balance == 4000
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_concurrent_debits_never_overdraw(wallet_server: WalletServer) -> None:
    """Many rounds of one player at once, each debit sent twice: funds for 5 of them only."""
    pid = wallet_server.player(balance=500)
    rounds = [new_round() for _ in range(12)]

    def send(rid: str) -> int:
        with OperatorWallet(wallet_server.url, SECRET, timeout=10) as w:
            return w.debit(pid, 100, "EUR", rid).balance or 0

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(send, rounds + rounds))
    taken = [t for rid in rounds for t in wallet_server.transactions(rid) if t["applied"]]
    assert len(taken) == 5
    assert wallet_server.balance(pid) == 0


def test_resetting_a_balance_keeps_the_token(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    wallet_server.post("/admin/players", {"player_id": pid, "balance": 7})
    r = wallet_server.post("/wallet/authenticate", {"token": f"tok-{pid}"})
    assert r.json() == {"player_id": pid, "balance": 7, "currency": "EUR"}
