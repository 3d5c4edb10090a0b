"""``slotlab serve --workers N``: N processes on one port (uvicorn's supervisor), a killed worker
replaced, all of them stopped by SIGINT to the parent; refused on SQLite with the reason."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from slotlab.server.main import WorkersError, check_workers

from .. import processes
from .server_util import MANY_PLAYERS_ENV, PG_URL, free_port, make_database


def test_workers_need_postgresql():
    check_workers(1, "sqlite:///var/x.db")
    check_workers(4, "postgresql://u@h/db")
    with pytest.raises(WorkersError, match=r"needs PostgreSQL.*group commit batches the writes "
                                           r"of one process"):
        check_workers(2, "sqlite:///var/x.db")
    with pytest.raises(WorkersError, match="at least 1"):
        check_workers(0, "postgresql://u@h/db")


def test_serve_refuses_workers_on_sqlite_with_the_reason(tmp_path: Path):
    done = subprocess.run([sys.executable, "-m", "slotlab.cli", "serve", "--workers", "2",
                           "--port", str(free_port()), "--db", f"sqlite:///{tmp_path}/s.db"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "300"})
    assert done.returncode == 2, done.stdout + done.stderr
    out = " ".join((done.stdout + done.stderr).split())
    assert "error:" in out and "needs PostgreSQL" in out and "run one process on SQLite" in out
    assert not (tmp_path / "s.db").exists(), "refused before anything was created"


def _workers(parent: int) -> set[int]:
    """The supervisor's worker processes (multiprocessing's spawned children)."""
    found = set()
    for task in Path(f"/proc/{parent}/task").glob("*/children"):
        try:
            children = [int(c) for c in task.read_text().split()]
        except OSError:
            continue
        for pid in children:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if b"spawn_main" in cmd and b"resource_tracker" not in cmd:
                found.add(pid)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(")")[-1].split()[0] != "Z"


@pytest.mark.slow  # two processes loading a real game; docs/scale.md's serve --workers runs always
@pytest.mark.postgres
@pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (SLOTLAB_TEST_DATABASE_URL)")
def test_two_workers_serve_one_port_and_a_killed_one_is_replaced(tmp_path: Path):
    db = make_database("postgres", tmp_path)
    port = free_port()
    env = {**os.environ, "SLOTLAB_GAMES": '["classic-3x3"]', "SLOTLAB_ARGON2_TIME_COST": "1",
           "SLOTLAB_ARGON2_MEMORY_KIB": "64", **MANY_PLAYERS_ENV}
    log = tmp_path / "serve.log"
    proc = processes.start([sys.executable, "-m", "slotlab.cli", "serve", "--workers", "2",
                            "--port", str(port), "--db", db.url], log, env)
    url = f"http://127.0.0.1:{port}"
    started: set[int] = set()
    try:
        processes.wait_until_answers(proc, f"{url}/api/health", log)
        deadline = time.monotonic() + processes.START_S
        while len(_workers(proc.pid)) < 2:  # one answers: the other may still be loading
            assert proc.poll() is None, processes.output(log)
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)
        first = _workers(proc.pid)
        started |= first
        with httpx.Client(base_url=url, timeout=30) as c:
            creds = {"username": "workers1", "password": "pass word 1"}
            assert c.post("/api/players", json=creds).status_code == 201
            token = c.post("/api/sessions", json=creds).json()["token"]
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        while True:  # the other worker serves meanwhile; the supervisor starts a new one
            now = _workers(proc.pid)
            started |= now
            if len(now) == 2 and victim not in now:
                break
            assert time.monotonic() < deadline, "the killed worker was not replaced"
            time.sleep(0.1)
        while not _answers(url):
            assert time.monotonic() < deadline
            time.sleep(0.1)
        with httpx.Client(base_url=url, timeout=30,
                          headers={"Authorization": f"Bearer {token}"}) as c:
            for _ in range(6):  # sessions and wallets are the database's: any worker answers
                r = c.post("/api/games/classic-3x3/rounds", json={"bet": 5},
                           headers={"Idempotency-Key": os.urandom(8).hex()})
                assert r.status_code == 201, r.text
                if r.json()["status"] == "awaiting_choice":  # a win offers the gamble
                    done = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                                  json={"choice": "collect", "step": r.json()["step"]},
                                  headers={"Idempotency-Key": os.urandom(8).hex()})
                    assert done.status_code == 200, done.text
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(60) == 0
        assert not [p for p in started if _alive(p)], "a worker outlived the supervisor"
    finally:
        processes.kill(proc)
        for pid in started:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        db.cleanup()


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/health", timeout=2).status_code == 200
    except httpx.TransportError:
        return False
