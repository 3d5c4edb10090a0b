"""The game server's seamless-wallet adapter against the real reference wallet over HTTP."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from slotlab.months import add_months
from slotlab.server.operator_wallet import OperatorError, OperatorWallet, WalletResult
from slotlab.store.models import utcnow
from slotlab.store.operator_wallet import (
    DISCARDED,
    DONE,
    PENDING,
    ROLLED_BACK,
    UNPAID,
    OperatorWalletStore,
    credit_txid,
    debit_txid,
)
from tests.async_util import run
from tests.operator_wallet.conftest import (
    IMPATIENT_S,
    SECRET,
    START_BALANCE,
    WalletServer,
    new_round,
)


def _kinds(wallet_server: WalletServer, rid: str) -> list[tuple[str, int, int]]:
    return [(t["kind"], t["amount"], t["status_code"]) for t in wallet_server.transactions(rid)]


def test_happy_path(wallet_server: WalletServer, adapter: OperatorWallet) -> None:
    pid = wallet_server.player()
    me = adapter.authenticate(f"tok-{pid}")
    assert me == {"player_id": pid, "balance": START_BALANCE, "currency": "EUR"}
    assert adapter.balance(pid)["balance"] == START_BALANCE
    rid = new_round()
    d = adapter.debit(pid, 200, "EUR", rid)
    assert d.ok and d.status == DONE and d.balance == START_BALANCE - 200
    assert d.transaction_id == debit_txid(rid)
    c = adapter.credit(pid, 650, "EUR", rid)
    assert c.ok and c.balance == START_BALANCE + 450 and c.transaction_id == credit_txid(rid, 0)
    assert wallet_server.balance(pid) == START_BALANCE + 450
    assert _kinds(wallet_server, rid) == [("debit", 200, 200), ("credit", 650, 200)]
    assert adapter.store is not None and not adapter.store.round_open(rid)
    assert [op.status for op in adapter.store.for_round(rid)] == [DONE, DONE]


def test_several_credits_and_zero_credit_are_sent(wallet_server: WalletServer,
                                                  adapter: OperatorWallet) -> None:
    pid = wallet_server.player()
    rid = new_round()
    assert adapter.debit(pid, 100, "EUR", rid).ok
    for n, amount in enumerate([0, 40, 0]):  # e.g. free spins: one credit each, zeros included
        assert adapter.credit(pid, amount, "EUR", rid, seq=n).ok
    assert _kinds(wallet_server, rid) == [("debit", 100, 200), ("credit", 0, 200),
                                          ("credit", 40, 200), ("credit", 0, 200)]
    assert wallet_server.balance(pid) == START_BALANCE - 60


def test_duplicate_calls_move_money_once(wallet_server: WalletServer,
                                         make_adapter: Callable[..., OperatorWallet]) -> None:
    pid = wallet_server.player()
    rid = new_round()
    a = make_adapter()
    # A second adapter without a log: only the operator's idempotency protects.
    b = OperatorWallet(wallet_server.url, SECRET, timeout=1)
    assert a.debit(pid, 300, "EUR", rid).ok
    assert b.debit(pid, 300, "EUR", rid).balance == START_BALANCE - 300
    assert a.credit(pid, 100, "EUR", rid).ok
    assert b.credit(pid, 100, "EUR", rid).balance == START_BALANCE - 200
    assert a.debit(pid, 300, "EUR", rid).ok  # answered from a's own log
    assert wallet_server.calls("debit") == 2
    assert wallet_server.balance(pid) == START_BALANCE - 200
    assert len(wallet_server.transactions(rid)) == 2
    b.close()


def test_insufficient_funds_is_refused(wallet_server: WalletServer,
                                       adapter: OperatorWallet) -> None:
    pid = wallet_server.player(balance=99)
    rid = new_round()
    d = adapter.debit(pid, 100, "EUR", rid)
    assert not d.ok and d.status == "refused" and d.code == "insufficient_funds"
    assert wallet_server.balance(pid) == 99
    assert wallet_server.calls("rollback") == 0  # a refusal is definitive: nothing to roll back


def test_wrong_secret(wallet_server: WalletServer,
                      make_adapter: Callable[..., OperatorWallet]) -> None:
    pid = wallet_server.player()
    bad = OperatorWallet(wallet_server.url, "not-the-shared-secret", timeout=1)
    try:
        with pytest.raises(OperatorError) as e:
            bad.balance(pid)
        # The operator refused it (401), and its answer is not signed with our secret either.
        assert e.value.code == "bad_response_signature"
        bad.verify_responses = False
        with pytest.raises(OperatorError) as e:
            bad.balance(pid)
        assert (e.value.status, e.value.code) == (401, "unknown_key")  # not a secret it knows
    finally:
        bad.close()
    assert wallet_server.balance(pid) == START_BALANCE


def test_debit_timeout_is_rolled_back_and_the_late_debit_refused(
        wallet_server: WalletServer, make_adapter: Callable[..., OperatorWallet]) -> None:
    adapter = make_adapter(timeout=IMPATIENT_S)
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.faults("debit", delay_s=2.0, delay_calls=1)  # arrives after the client gave up
    d = adapter.debit(pid, 500, "EUR", rid)
    assert d.status == ROLLED_BACK and d.code == "timeout" and not d.ok
    assert adapter.store is not None
    ops = {op.kind: op.status for op in adapter.store.for_round(rid)}
    assert ops == {"debit": ROLLED_BACK, "rollback": DONE}
    deadline = time.monotonic() + 10
    while len(wallet_server.transactions(rid)) < 2:  # wait for the delayed debit to be handled
        assert time.monotonic() < deadline
        time.sleep(0.05)
    txs = {t["kind"]: t for t in wallet_server.transactions(rid)}
    assert txs["rollback"]["amount"] == 0  # nothing had been taken when it came
    assert txs["debit"]["status_code"] == 409 and not txs["debit"]["applied"]
    assert wallet_server.balance(pid) == START_BALANCE


def test_debit_applied_but_answer_lost_is_refunded(
        wallet_server: WalletServer, make_adapter: Callable[..., OperatorWallet]) -> None:
    adapter = make_adapter(timeout=IMPATIENT_S)
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.faults("debit", drop=1, hold_s=2.0)
    d = adapter.debit(pid, 500, "EUR", rid)
    assert d.status == ROLLED_BACK and d.balance == START_BALANCE
    txs = {t["kind"]: t for t in wallet_server.transactions(rid)}
    assert txs["debit"]["applied"] and txs["debit"]["rolled_back"]
    assert txs["rollback"]["amount"] == 500  # refunds exactly what was taken
    assert wallet_server.balance(pid) == START_BALANCE


def test_debit_5xx_is_rolled_back_and_rollback_retried(wallet_server: WalletServer,
                                                        adapter: OperatorWallet) -> None:
    pid = wallet_server.player()
    rid = new_round()
    wallet_server.faults("debit", fail=1)
    wallet_server.faults("rollback", fail=2)
    d = adapter.debit(pid, 500, "EUR", rid)
    assert d.status == ROLLED_BACK and d.code == "internal_error"
    assert wallet_server.calls("rollback") == 3
    assert wallet_server.balance(pid) == START_BALANCE
    # The debit can no longer arrive (e.g. a proxy re-sending it).
    again = adapter.debit(pid, 500, "EUR", rid)
    assert again.status == ROLLED_BACK and wallet_server.calls("debit") == 1


def test_rollback_not_confirmed_inline_is_resumed(wallet_server: WalletServer,
                                                  make_adapter: Callable[..., OperatorWallet]
                                                  ) -> None:
    pid = wallet_server.player()
    rid = new_round()
    a = make_adapter(max_attempts=2, timeout=IMPATIENT_S)
    wallet_server.faults("debit", drop=1, hold_s=2.0)
    wallet_server.faults("rollback", fail=5)
    d = a.debit(pid, 500, "EUR", rid)
    assert d.status == "rolling_back"
    assert a.store is not None and a.store.round_open(rid)
    assert wallet_server.balance(pid) == START_BALANCE - 500
    wallet_server.faults("rollback")  # the operator recovers
    settled: list[WalletResult] = []
    out = a.resume_pending(now=utcnow() + timedelta(hours=1), on_settled=settled.append)
    assert [(r.kind, r.status) for r in out] == [("debit", ROLLED_BACK)]
    assert settled == out
    assert not a.store.round_open(rid)
    assert wallet_server.balance(pid) == START_BALANCE


def test_credit_5xx_is_retried_until_confirmed(wallet_server: WalletServer,
                                               adapter: OperatorWallet) -> None:
    pid = wallet_server.player()
    rid = new_round()
    assert adapter.debit(pid, 100, "EUR", rid).ok
    wallet_server.faults("credit", fail=2)
    c = adapter.credit(pid, 1000, "EUR", rid)
    assert c.ok and c.balance == START_BALANCE + 900
    assert wallet_server.calls("credit") == 3
    assert wallet_server.calls("rollback") == 0  # a credit is never rolled back
    assert _kinds(wallet_server, rid) == [("debit", 100, 200), ("credit", 1000, 200)]


def test_credit_applied_but_answer_lost_is_applied_once(
        wallet_server: WalletServer, make_adapter: Callable[..., OperatorWallet]) -> None:
    adapter = make_adapter(timeout=IMPATIENT_S)
    pid = wallet_server.player()
    rid = new_round()
    assert adapter.debit(pid, 100, "EUR", rid).ok
    wallet_server.faults("credit", drop=1, hold_s=2.0)
    c = adapter.credit(pid, 1000, "EUR", rid)
    assert c.ok and c.balance == START_BALANCE + 900
    assert wallet_server.calls("credit") == 2
    assert wallet_server.balance(pid) == START_BALANCE + 900
    assert _kinds(wallet_server, rid) == [("debit", 100, 200), ("credit", 1000, 200)]


def test_restart_in_the_middle_resumes_the_credit(
        tmp_path: Path, wallet_server: WalletServer,
        make_store: Callable[[], OperatorWalletStore],
        make_adapter: Callable[..., OperatorWallet]) -> None:
    """The operator goes down while a win is being paid and the game server restarts."""
    pid = wallet_server.player()
    rid = new_round()
    first = make_adapter(max_attempts=2)
    assert first.debit(pid, 100, "EUR", rid).ok
    port = wallet_server.port
    wallet_server.stop()  # the operator is unreachable
    c = first.credit(pid, 2500, "EUR", rid)
    assert c.status == PENDING and c.code == "connection_error"
    first.close()  # the game server stops with the credit unpaid
    del first

    store = make_store()  # the game server starts again on its database
    op = store.get(credit_txid(rid))
    assert op is not None and op.status == PENDING and op.attempts == 2 and op.amount == 2500
    assert store.round_open(rid)
    back = WalletServer(wallet_server.db_path, port=port).start()  # the operator is back
    try:
        second = make_adapter(url=back.url, store=store)
        assert op.next_attempt_at is not None
        # Not due before its next attempt (exponential backoff).
        assert second.resume_pending(now=op.next_attempt_at - timedelta(milliseconds=1)) == []
        settled: list[WalletResult] = []
        out = second.resume_pending(now=utcnow() + timedelta(minutes=5),
                                    on_settled=settled.append)
        assert [(r.transaction_id, r.status) for r in out] == [(credit_txid(rid), DONE)]
        assert settled == out and out[0].balance == START_BALANCE + 2400
        assert not store.round_open(rid)
        assert second.resume_pending(now=utcnow() + timedelta(days=1)) == []  # nothing left
        assert back.balance(pid) == START_BALANCE + 2400
        assert _kinds(back, rid) == [("debit", 100, 200), ("credit", 2500, 200)]
    finally:
        back.stop()


def test_crash_after_sending_a_debit_is_rolled_back_at_restart(
        wallet_server: WalletServer, make_store: Callable[[], OperatorWalletStore],
        make_adapter: Callable[..., OperatorWallet]) -> None:
    """The game server recorded and sent a debit, then died before reading the answer."""
    pid = wallet_server.player()
    rid = new_round()
    store = make_store()
    store.ensure(transaction_id=debit_txid(rid), kind="debit", round_id=rid, player_id=pid,
                 amount=800, currency="EUR")
    r = wallet_server.post("/wallet/debit", {"transaction_id": debit_txid(rid), "round_id": rid,
                                             "player_id": pid, "amount": 800, "currency": "EUR"})
    assert r.status_code == 200
    adapter = make_adapter(store=store)
    assert adapter.resume_pending() == []  # too recent: it may still be in flight
    out = adapter.resume_pending(now=utcnow() + timedelta(minutes=10))
    assert [(r.kind, r.status) for r in out] == [("debit", ROLLED_BACK)]
    assert wallet_server.balance(pid) == START_BALANCE
    assert not store.round_open(rid)


def test_unpaid_winnings_are_kept_then_discarded_after_24_months(
        wallet_server: WalletServer, make_adapter: Callable[..., OperatorWallet]) -> None:
    pid = wallet_server.player()
    rid = new_round()
    a = make_adapter(max_attempts=1)
    store = a.store
    assert store is not None
    wallet_server.faults("credit", fail=100)
    assert a.credit(pid, 70, "EUR", rid).status == PENDING
    later = utcnow() + timedelta(hours=25)  # past the 24-hour retry window
    out = a.resume_pending(now=later)
    assert [r.status for r in out] == [UNPAID]
    op = store.get(credit_txid(rid))
    assert op is not None and op.status == UNPAID
    assert op.keep_until is not None
    assert op.keep_until == add_months(op.created_at, 24)  # calendar months, not 730 days
    assert [u.transaction_id for u in store.unpaid()] == [credit_txid(rid)]
    assert store.round_open(rid)
    assert store.discard_expired(now=later) == []  # kept on record
    assert store.retry_now(credit_txid(rid))  # an admin asks for an attempt now
    assert [r.status for r in a.resume_pending(now=utcnow() + timedelta(seconds=1))] == [UNPAID]
    assert store.discard_expired(now=op.keep_until - timedelta(seconds=1)) == []
    gone = store.discard_expired(now=op.keep_until)
    assert [g["transaction_id"] for g in gone] == [credit_txid(rid)]
    kept = store.get(credit_txid(rid))  # kept on record, never sent again
    assert kept is not None and kept.status == DISCARDED and not store.round_open(rid)
    assert a.resume_pending(now=op.keep_until + timedelta(days=1)) == []


def test_unpaid_winnings_are_still_paid_when_the_operator_recovers(
        wallet_server: WalletServer, make_adapter: Callable[..., OperatorWallet]) -> None:
    pid = wallet_server.player()
    rid = new_round()
    a = make_adapter(max_attempts=1)
    wallet_server.faults("credit", fail=100)
    a.credit(pid, 70, "EUR", rid)
    assert [r.status for r in a.resume_pending(now=utcnow() + timedelta(hours=25))] == [UNPAID]
    wallet_server.faults("credit")
    out = a.resume_pending(now=utcnow() + timedelta(days=3))  # unpaid: retried daily
    assert [r.status for r in out] == [DONE]
    assert a.store is not None and not a.store.retry_now(credit_txid(rid))  # nothing open
    assert wallet_server.balance(pid) == START_BALANCE + 70


def test_no_rollback_after_settlement(wallet_server: WalletServer,
                                      adapter: OperatorWallet) -> None:
    pid = wallet_server.player()
    rid = new_round()
    assert adapter.debit(pid, 100, "EUR", rid).ok
    assert adapter.credit(pid, 0, "EUR", rid).ok
    rb = adapter.rollback(pid, rid, debit_txid(rid))
    assert rb.status == "failed" and rb.code == "round_settled"
    assert wallet_server.calls("rollback") == 1  # a refusal is not retried
    assert wallet_server.balance(pid) == START_BALANCE - 100


def test_signature_secret_is_shared(wallet_server: WalletServer) -> None:
    pid = wallet_server.player()
    with OperatorWallet(wallet_server.url, SECRET) as w:
        assert w.balance(pid)["balance"] == START_BALANCE


def test_calls_on_the_event_loop_read_answers_as_the_threads_calls_do(
        wallet_server: WalletServer, make_adapter: Callable[..., OperatorWallet]) -> None:
    """``call_async`` (the batched round path's) against the real wallet: a confirmed debit,
    an answer later than the timeout (unknown: "timeout"), an answer signed with another
    secret (unknown: "bad_response_signature"), an operator gone (unknown: "connection_error")."""
    pid = wallet_server.player()
    adapter = make_adapter(timeout=IMPATIENT_S)
    other = make_adapter(secret="not the operator's secret")

    def debit(amount: int) -> dict[str, Any]:
        return {"transaction_id": debit_txid(new_round()), "round_id": new_round(),
                "player_id": pid, "amount": amount, "currency": "EUR"}

    async def calls() -> list[Any]:
        try:
            out = [await adapter.call_async("debit", debit(100))]
            wallet_server.faults("debit", delay_s=2.0, delay_calls=1)  # outlasts IMPATIENT_S
            out.append(await adapter.call_async("debit", debit(200)))
            out.append(await other.call_async("debit", debit(300)))
            wallet_server.stop()
            out.append(await adapter.call_async("debit", debit(400)))
            return out
        finally:
            await adapter.aclose()
            await other.aclose()

    ok, slow, unsigned, gone = run(calls())
    assert (ok.kind, ok.status, ok.body["balance"]) == ("ok", 200, START_BALANCE - 100)
    assert (slow.kind, slow.code) == ("unknown", "timeout")
    assert (unsigned.kind, unsigned.code) == ("unknown", "bad_response_signature")
    assert (gone.kind, gone.code) == ("unknown", "connection_error")
