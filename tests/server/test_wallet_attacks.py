"""Operator-wallet mode with a man in the middle: a real proxy process between slotlab and the
reference operator (tests/operator_wallet/mitm_proxy.py) rewrites or replays what it sees. No
attack makes money for anyone: a round is played only on a debit the operator really made,
each movement happens once, and the operator's ledger and slotlab's rounds agree to the cent."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .. import processes
from ..operator_wallet.conftest import SECRET, WalletServer, free_port
from .server_util import LiveServer, key

START = 10_000
BET = 5
ROUNDS = 8
ROOT = Path(__file__).resolve().parents[2]


class Proxy:
    def __init__(self, upstream: str, attack: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = processes.start(
            [sys.executable, "-m", "tests.operator_wallet.mitm_proxy", "--port", str(self.port),
             "--upstream", upstream, "--attack", attack], log, cwd=ROOT)
        processes.wait_until_answers(self.proc, f"{self.url}/_mitm", log)

    def report(self) -> dict[str, Any]:
        return dict(httpx.get(f"{self.url}/_mitm", timeout=5).json())

    def stop(self) -> None:
        processes.stop(self.proc)


@pytest.fixture
def attacked(make_server: Callable[..., LiveServer], wallet_server: WalletServer,
             tmp_path: Path) -> Iterator[Callable[[str], tuple[LiveServer, Proxy]]]:
    proxies: list[Proxy] = []

    def start(attack: str) -> tuple[LiveServer, Proxy]:
        proxy = Proxy(wallet_server.url, attack, tmp_path / f"proxy-{len(proxies)}.log")
        proxies.append(proxy)
        srv = make_server(wallet_mode="operator", operator_wallet_url=proxy.url,
                          operator_wallet_secret=SECRET, operator_wallet_timeout_s=5.0,
                          operator_wallet_attempts=2, operator_wallet_backoff_s=0.0)
        return srv, proxy

    yield start
    for p in proxies:
        p.stop()


def _play(srv: LiveServer, wallet_server: WalletServer) -> tuple[str, list[httpx.Response]]:
    c, username = srv.player()
    r = wallet_server.post("/admin/players", {"player_id": username, "token": f"tok-{username}",
                                       "balance": START, "currency": "EUR"})
    assert r.status_code == 200, r.text
    answers = [c.post("/api/games/instant-test/rounds", json={"bet": BET}, headers=key())
               for _ in range(ROUNDS)]
    return username, answers


def _agree(srv: LiveServer, wallet_server: WalletServer, username: str,
           answers: list[httpx.Response]) -> list[dict[str, Any]]:
    """The rounds slotlab settled: each had exactly one debit and one credit applied at the
    operator, no applied debit lacks its round, and the operator's balance is what those
    rounds make it."""
    played = [a.json() for a in answers if a.status_code == 201]
    assert all(p["status"] == "completed" for p in played)
    ids = {p["round_id"] for p in played}
    moves = wallet_server.post("/admin/transactions", {"player_id": username}
                               ).json()["transactions"]
    applied = [(t["round_id"], t["kind"], t["amount"]) for t in moves
               if t["applied"] and not t["rolled_back"] and t["kind"] != "rollback"]
    assert sorted(applied) == sorted(
        [(p["round_id"], "debit", BET) for p in played]
        + [(p["round_id"], "credit", p["win"]) for p in played])
    assert {rid for rid, _, _ in applied} == ids
    assert wallet_server.balance(username) == START + sum(p["win"] - BET for p in played)
    assert srv.admin().get("/api/admin/audit").json()["ok"]
    return played


def test_without_an_attack_every_round_is_played(attacked, wallet_server):
    srv, proxy = attacked("none")
    username, answers = _play(srv, wallet_server)
    assert [a.status_code for a in answers] == [201] * ROUNDS
    assert len(_agree(srv, wallet_server, username, answers)) == ROUNDS
    assert proxy.report()["forwarded"] >= 2 * ROUNDS


@pytest.mark.parametrize("attack", ["debit-to-credit", "tamper-amount"])
def test_a_rewritten_debit_moves_no_money_and_plays_no_round(attacked, wallet_server, attack):
    """The operator refuses a request not signed as it arrives; its refusal is signed over the
    rewritten request, so slotlab cannot take it for an answer to its own: the outcome is
    unknown, the debit is rolled back, and no round is played."""
    srv, proxy = attacked(attack)
    username, answers = _play(srv, wallet_server)
    assert proxy.report()["carried_out"] == ROUNDS
    assert {(a.status_code, a.json()["error"]["code"]) for a in answers} == {
        (503, "operator_unavailable")}
    assert _agree(srv, wallet_server, username, answers) == []
    assert wallet_server.balance(username) == START
    assert srv.admin().get("/api/admin/rounds/open").json()["rounds"] == []


def test_a_replayed_answer_is_no_debit(attacked, wallet_server):
    """Every debit after the first is answered with the first one's correctly signed answer:
    it answers another request, so no round is played on it."""
    srv, proxy = attacked("replay-answer")
    username, answers = _play(srv, wallet_server)
    assert proxy.report()["carried_out"] == ROUNDS - 1
    assert answers[0].status_code == 201
    assert {(a.status_code, a.json()["error"]["code"]) for a in answers[1:]} == {
        (503, "operator_unavailable")}
    assert len(_agree(srv, wallet_server, username, answers)) == 1


def test_a_replayed_request_is_refused_and_moves_nothing(attacked, wallet_server):
    srv, proxy = attacked("replay-request")
    username, answers = _play(srv, wallet_server)
    report = proxy.report()
    assert report["carried_out"] >= 2 * ROUNDS
    assert set(report["replay_statuses"]) == {401}  # every copy refused (replayed_request)
    assert [a.status_code for a in answers] == [201] * ROUNDS
    assert len(_agree(srv, wallet_server, username, answers)) == ROUNDS
