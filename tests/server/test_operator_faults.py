"""Exactly once in operator-wallet mode under faults: concurrent play while the operator answers
slowly (the game server times out), answers 500, applies a movement and loses its answer, is
killed with SIGKILL and restarted, and while the game server itself is killed and restarted.

Both are real processes: ``python -m slotlab.operator.reference_wallet`` and
``serve_subprocess.py``. Afterwards, once the sweep has finished what was left: every debit the
operator kept has exactly one round at slotlab and every round its one debit; every settled
round was credited exactly once with its win and jackpots (a refunded one with its bet; max
bets of a game whose every max bet wins a pool are in the mix); no debit was rolled
back after its round was credited; and each player's balance at the operator is what slotlab's
rounds make it, to the cent.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from slotlab.store import normalize_url

from .. import processes
from ..operator_wallet.conftest import SECRET, signed_post
from .server_util import ADMIN_TOKEN, FAST_HASH, Database, free_port

HERE = Path(__file__).parent
START = 100_000
PASSWORD = "a long pass phrase " + uuid.uuid4().hex[:8]


class Operator:
    """The reference wallet as its own process, restartable on its port and file."""

    def __init__(self, db: Path) -> None:
        self.db, self.port, self.log = db, free_port(), db.with_suffix(".log")
        self.url = f"http://127.0.0.1:{self.port}"
        self.http = httpx.Client(base_url=self.url, timeout=10)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = processes.start(
            [sys.executable, "-m", "slotlab.operator.reference_wallet", "--port", str(self.port),
             "--db", str(self.db), "--faults"], self.log,
            {**os.environ, "SLOTLAB_OPERATOR_SECRET": SECRET})
        # Any answer (a GET of its POST-only route): it serves.
        processes.wait_until_answers(self.proc, f"{self.url}/wallet/balance", self.log,
                                     lambda _: True)

    def kill(self) -> None:
        assert self.proc is not None
        processes.kill(self.proc)

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        r = signed_post(self.http, path, payload)
        assert r.status_code == 200, r.text
        return dict(r.json())


class GameServer:
    """slotlab in operator-wallet mode as its own process, restartable."""

    def __init__(self, db_url: str, operator_url: str, log: Path) -> None:
        self.db_url, self.log = db_url, log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ, "SLOTLAB_DATABASE_URL": db_url, "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
            "SLOTLAB_WALLET_MODE": "operator", "SLOTLAB_OPERATOR_WALLET_URL": operator_url,
            "SLOTLAB_OPERATOR_WALLET_SECRET": SECRET, "SLOTLAB_OPERATOR_WALLET_TIMEOUT_S": "1",
            "SLOTLAB_OPERATOR_WALLET_ATTEMPTS": "2", "SLOTLAB_OPERATOR_WALLET_BACKOFF_S": "0",
            "SLOTLAB_OPERATOR_WALLET_STALE_AFTER_S": "2", "SLOTLAB_OPEN_ROUND_GRACE_S": "1",
            "SLOTLAB_PLAY_MONEY_BALANCE": "0",
            "SLOTLAB_ARGON2_TIME_COST": str(FAST_HASH["argon2_time_cost"]),
            "SLOTLAB_ARGON2_MEMORY_KIB": str(FAST_HASH["argon2_memory_kib"])}
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = processes.start([sys.executable, str(HERE / "serve_subprocess.py"),
                                     str(self.port)], self.log, self.env)
        processes.wait_until_answers(self.proc, f"{self.url}/api/health", self.log)

    def kill(self) -> None:
        assert self.proc is not None
        processes.kill(self.proc)

    def stop(self) -> None:
        if self.proc is not None:
            processes.stop(self.proc)

    def admin(self, method: str, path: str, body: dict[str, Any] | None = None
              ) -> dict[str, Any]:
        r = httpx.request(method, f"{self.url}{path}", timeout=60, json=body,
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert r.status_code in (200, 201), r.text
        return dict(r.json())


def _register(game: GameServer, operator: Operator, n: int
              ) -> list[tuple[str, str, int | None]]:
    """``n`` players (name, token, a Free Round Bonus package for every other one)."""
    players = []
    with httpx.Client(base_url=game.url, timeout=30) as c:
        for i in range(n):
            name = f"f{i}{uuid.uuid4().hex[:8]}"
            assert c.post("/api/players", json={"username": name, "password": PASSWORD}
                          ).status_code == 201
            token = c.post("/api/sessions", json={"username": name, "password": PASSWORD}
                           ).json()["token"]
            operator.post("/admin/players", {"player_id": name, "balance": START,
                                              "currency": "EUR"})
            package = None if i % 2 else game.admin("POST", "/api/admin/free-rounds", {
                "username": name, "game": "instant-test", "bet": 1, "rounds": 100_000,
                "expires_at": "2099-01-01T00:00:00+00:00"})["id"]
            players.append((name, token, package))
    return players


def _play(url: str, token: str, package: int | None, stop: threading.Event,
          outcomes: Counter[str]) -> None:
    """Rounds until told to stop: instant ones (every other one a free round where the player
    has a package), pick ones with their choice, and max bets that win a jackpot; each request
    retried with its own key while the server is unreachable (a retry moves money once)."""
    def send(c: httpx.Client, path: str, body: dict[str, Any]) -> httpx.Response | None:
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        for _ in range(40):
            try:
                return c.post(path, json=body, headers=headers)
            except httpx.TransportError:
                outcomes["unreachable"] += 1
                time.sleep(0.25)
        return None

    with httpx.Client(base_url=url, timeout=15,
                      headers={"Authorization": f"Bearer {token}"}) as c:
        i = 0
        while not stop.is_set():
            i += 1
            game = ("pick-test" if i % 3 == 0 else "jackpot-test" if i % 7 == 1
                    else "instant-test")
            free = package is not None and game == "instant-test" and i % 2 == 0
            bet = 10 if game == "jackpot-test" else 1 + i % 5  # a max bet: it feeds and wins
            r = send(c, f"/api/games/{game}/rounds",
                     {"bet": 1, "free_round_id": package} if free else {"bet": bet})
            if r is None:
                continue
            outcomes[str(r.status_code)] += 1
            live = (r.json() if r.status_code == 201
                    else r.json().get("round") if r.status_code == 409 else None)
            if live and live.get("status") == "awaiting_choice":
                send(c, f"/api/rounds/{live['round_id']}/choices",
                     {"choice": "left", "step": live["step"]})
        # Leave nothing waiting for a choice.
        for _ in range(5):
            r = send(c, "/api/games/instant-test/rounds", {"bet": 1})
            live = r.json().get("round") if r is not None and r.status_code == 409 else None
            if not live or live.get("status") != "awaiting_choice":
                break
            send(c, f"/api/rounds/{live['round_id']}/choices",
                 {"choice": "right", "step": live["step"]})


def _settled(game: GameServer) -> None:
    """Sweep until no round is live (crediting ones paid, open ones played) - bounded."""
    deadline = time.monotonic() + 90
    while True:
        game.admin("POST", "/api/admin/maintenance")
        live = game.admin("GET", "/api/admin/rounds/open")["rounds"]
        if not live:
            return
        assert time.monotonic() < deadline, f"still live after the sweeps: {live}"
        time.sleep(0.5)


def _rounds(game: GameServer, name: str) -> list[dict[str, Any]]:
    """Every round of the player, as the database records them (the history API shows at most
    1,000: the long run plays more)."""
    engine = create_engine(normalize_url(game.db_url))
    try:
        with engine.connect() as c:
            return [dict(row._mapping) for row in c.execute(text(
                "SELECT r.id AS round_id, r.status, r.bet, r.win, r.jackpot_win FROM rounds r "
                "JOIN players p ON p.id = r.player_id WHERE p.username = :u"), {"u": name})]
    finally:
        engine.dispose()


def _free_rounds(db_url: str, name: str) -> set[str]:
    """The player's free rounds, as the database records them."""
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as c:
            return set(c.execute(text(
                "SELECT r.id FROM rounds r JOIN players p ON p.id = r.player_id "
                "WHERE p.username = :u AND r.free_round_id IS NOT NULL"), {"u": name}
            ).scalars())
    finally:
        engine.dispose()


def _check_player(game: GameServer, operator: Operator, name: str) -> tuple[int, int, int]:
    """Rounds played, free rounds and rounds that won a jackpot among them, once every check
    passed."""
    rounds = {r["round_id"]: r for r in _rounds(game, name)}
    free = _free_rounds(game.db_url, name)
    moves = operator.post("/admin/transactions", {"player_id": name})["transactions"]
    applied: dict[str, Counter[str]] = {}
    for t in moves:
        if t["applied"]:
            applied.setdefault(t["round_id"], Counter())[t["kind"]] += 1
    kept_debits = {t["round_id"]: t["amount"] for t in moves
                   if t["kind"] == "debit" and t["applied"] and not t["rolled_back"]}
    credits = {t["round_id"]: t["amount"] for t in moves
               if t["kind"] == "credit" and t["applied"]}
    # Each debit the operator kept has its round, and each paid round its debit; a free round
    # has none, and its win is credited like any other (a cancelled one goes back unpaid).
    paid = set(rounds) - free
    assert set(kept_debits) == paid, (set(kept_debits) ^ paid)
    for rid, r in rounds.items():
        assert r["status"] in ("completed", "cancelled"), r
        refund = r["status"] == "cancelled"
        if rid not in paid:
            assert applied.get(rid, Counter())["debit"] == 0, (rid, applied[rid])
            assert applied.get(rid, Counter())["credit"] == (0 if refund else 1), r
            assert refund or credits[rid] == r["win"] + r["jackpot_win"], r
            continue
        assert kept_debits[rid] == r["bet"]
        assert applied[rid]["debit"] == 1 and applied[rid]["credit"] == 1, (rid, applied[rid])
        assert credits[rid] == (r["bet"] if refund else r["win"] + r["jackpot_win"]), r
    # No rollback took money back from a round that was credited.
    for t in moves:
        if t["kind"] == "rollback" and t["applied"] and t["amount"]:
            assert t["round_id"] not in credits, t
    expected = START + sum(credits.get(rid, 0) - kept_debits.get(rid, 0) for rid in rounds)
    assert operator.post("/admin/player", {"player_id": name})["balance"] == expected
    return (len(rounds), len(rounds) - len(paid),
            sum(1 for r in rounds.values() if r["jackpot_win"] > 0))


@pytest.mark.parametrize("seconds", [pytest.param(14, id="short"),
                                     pytest.param(90, id="long", marks=pytest.mark.slow)])
def test_exactly_once_through_operator_faults_and_kills(database: Database, tmp_path: Path,
                                                        seconds: int) -> None:
    operator = Operator(tmp_path / "operator.db")
    operator.start()
    game = GameServer(database.url, operator.url, tmp_path / "serve.log")
    game.start()
    try:
        players = _register(game, operator, 6)
        stop = threading.Event()
        outcomes: Counter[str] = Counter()
        threads = [threading.Thread(target=_play,
                                    args=(game.url, token, package, stop, outcomes))
                   for _, token, package in players]
        for t in threads:
            t.start()
        step = seconds / 7
        time.sleep(step)
        faults = [("debit", {"delay_s": 1.5, "delay_calls": 3}),  # the game server times out
                  ("credit", {"fail": 4}),  # 500, nothing applied
                  ("debit", {"drop": 2, "drop_as": "500"}),  # applied, the answer lost
                  ("credit", {"drop": 2, "drop_as": "hold", "hold_s": 1.5}),  # applied, late
                  ("rollback", {"fail": 2})]
        for endpoint, fault in faults:
            operator.post("/_faults", {"endpoint": endpoint, **fault})
            time.sleep(step / len(faults))
        operator.kill()  # in the middle of play
        time.sleep(step / 2)
        operator.start()
        time.sleep(step)
        game.kill()
        game.start()  # its start-up recovery, then the players' retries
        time.sleep(step)
        operator.kill()
        game.kill()
        operator.start()
        game.start()
        time.sleep(step)
        stop.set()
        for t in threads:
            t.join(timeout=180)
            assert not t.is_alive()
        _settled(game)
        counts = [_check_player(game, operator, name) for name, _, _ in players]
        played, free, jackpots = (sum(n) for n in zip(*counts, strict=True))
        assert played >= 3 * len(players) and free and jackpots, (counts, outcomes)
        assert outcomes["201"] and outcomes["503"], outcomes  # play went on, and faults bit
        assert game.admin("GET", "/api/admin/audit")["ok"]
    finally:
        game.stop()
        if operator.proc is not None and operator.proc.poll() is None:
            operator.kill()
