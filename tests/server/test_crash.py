"""kill -9 of a real server process in the middle of play; the restart loses nothing.

After each kill every round is completed (or cancelled) with its ledger entries, or absent with
no money moved, or open and resumable; every balance equals its ledger; every round a client saw
created is still there; and the start-up recovery leaves no debited round unplayed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from .. import processes
from .server_util import (
    ADMIN_TOKEN,
    FAST_HASH,
    MANY_PLAYERS_ENV,
    checked_round_statuses,
    free_port,
    key,
)

HERE = Path(__file__).parent


def _start(db_url: str, split: bool, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "SLOTLAB_DATABASE_URL": db_url, "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
           "SLOTLAB_SPLIT_ROUND_COMMITS": "true" if split else "false",
           "SLOTLAB_ARGON2_TIME_COST": str(FAST_HASH["argon2_time_cost"]),
           "SLOTLAB_ARGON2_MEMORY_KIB": str(FAST_HASH["argon2_memory_kib"]), **MANY_PLAYERS_ENV}
    proc = processes.start([sys.executable, str(HERE / "serve_subprocess.py"), str(port)], log,
                           env)
    url = f"http://127.0.0.1:{port}"
    processes.wait_until_answers(proc, f"{url}/api/health", log)
    return proc, url


def _players(url: str, n: int) -> list[str]:
    tokens = []
    with httpx.Client(base_url=url, timeout=30) as c:
        for i in range(n):
            name = f"crash{i}-{os.getpid()}-{time.monotonic_ns() % 10**8}"
            assert c.post("/api/players", json={"username": name, "password": "pass word 1"}
                          ).status_code == 201
            tokens.append(c.post("/api/sessions", json={"username": name,
                                                        "password": "pass word 1"}
                                 ).json()["token"])
    return tokens


def _load(url: str, tokens: list[str], seen: list[str], stop: threading.Event) -> None:
    """Play until the server dies: instant rounds, pick rounds and their choices."""
    def worker(token: str) -> None:
        with httpx.Client(base_url=url, timeout=30,
                          headers={"Authorization": f"Bearer {token}"}) as c:
            i = 0
            while not stop.is_set():
                i += 1
                game = "pick-test" if i % 3 == 0 else "instant-test"
                try:
                    r = c.post(f"/api/games/{game}/rounds", json={"bet": 1}, headers=key())
                    if r.status_code == 201:
                        seen.append(r.json()["round_id"])
                        if r.json()["status"] == "awaiting_choice" and i % 2:
                            c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                                   json={"choice": "left", "step": r.json()["step"]}, headers=key())
                    elif r.status_code == 409:  # an open pick round: finish it
                        rid = r.json()["round"]["round_id"]
                        c.post(f"/api/rounds/{rid}/choices",
                               json={"choice": "right", "step": r.json()["round"]["step"]},
                               headers=key())
                    else:
                        assert r.status_code < 500, r.text
                except httpx.TransportError:
                    return  # the server was killed

    threads = [threading.Thread(target=worker, args=(t,)) for t in tokens]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _check(db_url: str, seen: list[str]) -> dict[str, int]:
    statuses = checked_round_statuses(db_url)
    assert "open" not in statuses.values(), "start-up left a debited round unplayed"
    assert set(statuses.values()) <= {"completed", "cancelled", "awaiting_choice"}
    missing = [rid for rid in seen if rid not in statuses]
    assert not missing, f"rounds a client saw created are gone: {missing[:3]}"
    return {s: list(statuses.values()).count(s) for s in set(statuses.values())}


@pytest.mark.parametrize("split", [False, True], ids=["one-commit", "split-commits"])
def test_kill_9_loses_nothing(database, split, tmp_path):
    seen: list[str] = []
    tokens: list[str] = []
    for cycle, kill_after in enumerate((40, 150)):
        proc, url = _start(database.url, split, tmp_path / f"serve-{cycle}.log")
        try:
            if not tokens:
                tokens = _players(url, 6)
            stop = threading.Event()
            loader = threading.Thread(target=_load, args=(url, tokens, seen, stop))
            loader.start()
            target = len(seen) + kill_after
            while len(seen) < target and loader.is_alive():  # kill after N rounds, not a delay
                time.sleep(0.001)
            processes.kill(proc)
            stop.set()
            loader.join()
        finally:
            processes.kill(proc)
        # Restart: start-up recovery runs; then the invariants must hold.
        proc, url = _start(database.url, split, tmp_path / f"restart-{cycle}.log")
        try:
            counts = _check(database.url, seen)
            assert counts.get("completed", 0) > 0, counts
            # Every open round is resumable: its player can finish it now.
            for token in tokens:
                with httpx.Client(base_url=url, timeout=30,
                                  headers={"Authorization": f"Bearer {token}"}) as c:
                    r = c.get("/api/rounds/open")
                    if r.status_code == 200:
                        done = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                                      json={"choice": "left", "step": r.json()["step"]},
                                      headers=key())
                        assert done.status_code == 200 and done.json()["status"] == "completed"
            audit = httpx.get(f"{url}/api/admin/audit", timeout=30,
                              headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).json()
            assert audit["ok"], (cycle, audit)
        finally:
            processes.kill(proc)
