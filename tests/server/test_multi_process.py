"""Two server processes on one PostgreSQL database, the same players playing on both at once,
and kill -9 of one of them mid-load.

Each player plays from two threads, one per server. A request whose server dies is retried
with the same Idempotency-Key on the other one; some answered requests are retried on the other
server on purpose. Afterwards: not a cent lost or made (every balance equals its ledger, every
bet has its round and every paid win its entry), every round is completed or resumable (a round
waiting for a choice is finished by its player on the live server, a debited one is finished by
the live server's sweep or the killed server's restart), and every idempotent request was
answered once: each key has one round, and every answer to it is the same body.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from .. import processes
from .server_util import (
    ADMIN_TOKEN,
    FAST_HASH,
    MANY_PLAYERS_ENV,
    PG_URL,
    Database,
    checked_round_statuses,
    free_port,
    make_database,
)

HERE = Path(__file__).parent
pytestmark = [pytest.mark.postgres,
              pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (SLOTLAB_TEST_DATABASE_URL)")]
PASSWORD = "pass word 1"


@pytest.fixture
def pg(tmp_path: Path) -> Iterator[Database]:
    db = make_database("postgres", tmp_path)
    yield db
    db.cleanup()


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    url: str
    log: Path

    def kill(self) -> None:
        processes.kill(self.proc)


def start(db_url: str, split: bool, logs: Path, n: int = 1) -> list[Server]:
    """``n`` processes of tests/server/serve_subprocess.py on the test games, started together,
    ticking their periodic jobs often (their output in ``logs``)."""
    env = {**os.environ, "SLOTLAB_DATABASE_URL": db_url, "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
           "SLOTLAB_SPLIT_ROUND_COMMITS": "true" if split else "false",
           "SLOTLAB_MAINTENANCE_INTERVAL_S": "0.5", "SLOTLAB_OPEN_ROUND_GRACE_S": "2",
           "SLOTLAB_ARGON2_TIME_COST": str(FAST_HASH["argon2_time_cost"]),
           "SLOTLAB_ARGON2_MEMORY_KIB": str(FAST_HASH["argon2_memory_kib"]), **MANY_PLAYERS_ENV}
    servers = []
    for _ in range(n):
        port = free_port()
        log = logs / f"serve-{port}.log"
        proc = processes.start([sys.executable, str(HERE / "serve_subprocess.py"), str(port)],
                               log, env)
        servers.append(Server(proc, f"http://127.0.0.1:{port}", log))
    try:
        for srv in servers:
            processes.wait_until_answers(srv.proc, f"{srv.url}/api/health", srv.log)
    except BaseException:
        for srv in servers:
            srv.kill()
        raise
    return servers


def players(url: str, n: int) -> list[str]:
    tokens = []
    with httpx.Client(base_url=url, timeout=30) as c:
        for _ in range(n):
            name = f"mp{uuid.uuid4().hex[:12]}"
            assert c.post("/api/players", json={"username": name, "password": PASSWORD}
                          ).status_code == 201
            r = c.post("/api/sessions", json={"username": name, "password": PASSWORD})
            tokens.append(r.json()["token"])
    return tokens


@dataclass
class Load:
    """What the clients sent and were answered, shared by the load threads."""

    urls: list[str]
    answers: dict[str, list[tuple[int, Any]]] = field(default_factory=lambda: defaultdict(list))
    rounds_seen: set[str] = field(default_factory=set)
    started: dict[str, str] = field(default_factory=dict)  # round-start key -> its round
    retried_across: int = 0
    failover_retries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    errors: list[str] = field(default_factory=list)

    def count(self) -> int:
        with self.lock:
            return len(self.rounds_seen)


def _send(load: Load, clients: list[httpx.Client], first: int, path: str, body: dict[str, Any],
          key: str) -> tuple[int, int, Any]:
    """POST with ``key`` to server ``first``; on a transport error (the server died) the same
    request, same key, to the other one. (status, server that answered, body)."""
    for attempt in range(20):
        i = (first + attempt) % 2
        try:
            r = clients[i].post(path, json=body, headers={"Idempotency-Key": key})
        except httpx.TransportError:
            with load.lock:
                load.failover_retries += 1
            time.sleep(0.05)
            continue
        data = r.json()
        with load.lock:
            load.answers[key].append((r.status_code, data))
        return r.status_code, i, data
    raise AssertionError(f"no server answered {path} with key {key}")


def _play(load: Load, token: str, home: int, split: bool) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    clients = [httpx.Client(base_url=u, timeout=30, headers=headers) for u in load.urls]
    try:
        n = 0
        while not load.stop.is_set():
            n += 1
            game = "pick-test" if n % 3 == 0 else "instant-test"
            path, body = f"/api/games/{game}/rounds", {"bet": 1 + n % 2}
            key = uuid.uuid4().hex
            status, served, data = _send(load, clients, home, path, body, key)
            if status == 201:
                with load.lock:
                    load.rounds_seen.add(data["round_id"])
                    load.started[key] = data["round_id"]
            elif status == 409 and data["error"]["code"] == "round_open":
                # The player's other thread has a round waiting: finish it from here.
                rid = data["round"]["round_id"]
                _send(load, clients, home, f"/api/rounds/{rid}/choices",
                      {"choice": "right", "step": data["round"]["step"]}, uuid.uuid4().hex)
                continue
            elif status != 409:
                load.errors.append(f"{status} {data}")
                return
            if status == 201 and data["status"] == "awaiting_choice" and n % 2:
                path = f"/api/rounds/{data['round_id']}/choices"
                body = {"choice": "left", "step": data["step"]}
                key = uuid.uuid4().hex
                status, served, data = _send(load, clients, home, path, body, key)
                if status >= 500:
                    load.errors.append(f"{status} {data}")
                    return
            if n % 3 == 1 and status in (200, 201) and not (split and data["status"] == "open"):
                # The same request again, on the other server: the first answer, no new money.
                try:
                    r = clients[1 - served].post(path, json=body,
                                                 headers={"Idempotency-Key": key})
                except httpx.TransportError:
                    continue  # that server is the one killed
                with load.lock:
                    load.answers[key].append((r.status_code, r.json()))
                    load.retried_across += 1
    finally:
        for c in clients:
            c.close()


def _finish_waiting(url: str, tokens: list[str]) -> int:
    """Each player finishes their waiting round on ``url``: every one can be."""
    finished = 0
    for token in tokens:
        with httpx.Client(base_url=url, timeout=30,
                          headers={"Authorization": f"Bearer {token}"}) as c:
            r = c.get("/api/rounds/open")
            if r.status_code == 200 and r.json()["status"] == "awaiting_choice":
                done = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                              json={"choice": "left", "step": r.json()["step"]},
                              headers={"Idempotency-Key": uuid.uuid4().hex})
                assert done.status_code == 200 and done.json()["status"] == "completed", done.text
                finished += 1
    return finished


def _same_answers(load: Load, split: bool) -> int:
    """Every key's answers are one answer: the same status and body each time."""
    checked = 0
    for key, got in load.answers.items():
        final = [(s, b) for s, b in got if not (split and isinstance(b, dict)
                                                and b.get("status") == "open")]
        if len(final) > 1:
            checked += 1
            assert all(x == final[0] for x in final), f"key {key} answered differently: {final}"
    return checked


def run_and_kill(pg: Database, logs: Path, *, split: bool, n_players: int, kill_after: int,
                 after_kill: int, restart: bool) -> dict[str, Any]:
    t0 = time.monotonic()
    a, b = start(pg.url, split, logs, 2)
    t_started = time.monotonic()
    restarted: Server | None = None
    try:
        tokens = players(a.url, n_players)
        load = Load([a.url, b.url])
        threads = [threading.Thread(target=_play, args=(load, t, home, split))
                   for t in tokens for home in (0, 1)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 300  # polled: a bound for a stuck run, not a timing
        while load.count() < kill_after and time.monotonic() < deadline and not load.errors:
            time.sleep(0.005)
        a.kill()  # mid-load: requests in flight on it are cut off and retried on b
        killed_at = load.count()
        while (load.count() < killed_at + after_kill and time.monotonic() < deadline
               and not load.errors):
            time.sleep(0.005)
        load.stop.set()
        for t in threads:
            t.join()
        assert not load.errors, load.errors[:3]
        assert killed_at >= kill_after and load.count() > killed_at, (killed_at, load.count())

        # Debited rounds the killed server left open: the live server's sweep plays them.
        left_open = list(checked_round_statuses(pg.url).values()).count("open")
        wait_until = time.monotonic() + 120  # polled: the sweep ticks every 0.5 s
        while "open" in checked_round_statuses(pg.url).values():
            assert time.monotonic() < wait_until, "the live server left debited rounds open"
            time.sleep(0.2)
        waiting = _finish_waiting(b.url, tokens)
        t_load = time.monotonic()
        if restart:  # the killed server comes back: its start-up recovery finds nothing to do
            (restarted,) = start(pg.url, split, logs)
        statuses = checked_round_statuses(pg.url)
        assert set(statuses.values()) <= {"completed", "cancelled"}, statuses
        # Every round was answered to the client that asked for it, once per key.
        assert load.rounds_seen <= set(statuses), "a round a client saw is gone"
        unanswered = set(statuses) - load.rounds_seen
        assert not unanswered, f"rounds no client was answered for: {sorted(unanswered)[:3]}"
        assert len(set(load.started.values())) == len(load.started), "two keys made one round"
        same = _same_answers(load, split)
        audit = httpx.get(f"{(restarted or b).url}/api/admin/audit", timeout=30,
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).json()
        assert audit["ok"], audit
        return {"rounds": len(load.rounds_seen), "killed_at": killed_at, "waiting": waiting,
                "left_open": left_open,
                "failover_retries": load.failover_retries, "retried_across": load.retried_across,
                "keys_answered_twice_or_more": same,
                "seconds": {"start": round(t_started - t0, 1), "load": round(t_load - t_started, 1),
                            "total": round(time.monotonic() - t0, 1)}}
    finally:
        for srv in (a, b, restarted):
            if srv is not None:
                srv.kill()


def test_two_processes_and_a_kill_9_lose_nothing(pg, tmp_path):
    out = run_and_kill(pg, tmp_path, split=False, n_players=4, kill_after=40, after_kill=40,
                       restart=False)
    print(out)
    assert out["retried_across"] > 0 and out["keys_answered_twice_or_more"] > 0, out


@pytest.mark.slow
@pytest.mark.parametrize("split", [False, True], ids=["one-commit", "split-commits"])
def test_two_processes_and_a_kill_9_lose_nothing_at_length(pg, split, tmp_path):
    out = run_and_kill(pg, tmp_path, split=split, n_players=8, kill_after=300, after_kill=300,
                       restart=True)
    print(out)
    assert out["retried_across"] > 0 and out["keys_answered_twice_or_more"] > 0, out
