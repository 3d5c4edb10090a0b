"""A real Prometheus (Debian's ``prometheus`` package) scrapes a real ``slotlab serve`` under
load, with the scrape configuration and alert rules the project ships (deploy/), and a PromQL
query over its HTTP API returns the rounds played. On PostgreSQL the server runs two workers,
so the figure is every worker's rounds summed (the library's multiprocess mode), whichever
worker answers a scrape."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import yaml

from .. import processes
from .server_util import ADMIN_TOKEN, PG_URL, free_port, make_database

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
pytestmark = pytest.mark.skipif(PROMETHEUS is None, reason="prometheus is not installed: "
                                "apt-get install prometheus (Debian's; make install-test)")
ROUNDS = 120
CLIENTS = 4


def _wait(what: str, check: object, seconds: float = 240) -> None:
    """Wait until ``check()`` is true (a start-up or a scrape, never a figure asserted)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.5)
    pytest.fail(f"{what} did not happen within {seconds} s")


@pytest.fixture
def slotlab_server(tmp_path: Path) -> Iterator[str]:
    """``slotlab serve`` on a free port: two workers on PostgreSQL, one on SQLite."""
    db = make_database("postgres" if PG_URL else "sqlite", tmp_path)
    port = free_port()
    workers = "2" if PG_URL else "1"
    env = {**os.environ, "SLOTLAB_GAMES": '["classic-3x3"]', "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
           "SLOTLAB_ARGON2_TIME_COST": "1", "SLOTLAB_ARGON2_MEMORY_KIB": "64",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}
    log = tmp_path / "serve.log"
    proc = processes.start([str(Path(sys.executable).parent / "slotlab"), "serve", "--port",
                            str(port), "--workers", workers, "--db", db.url], log, env)
    url = f"http://127.0.0.1:{port}"
    try:
        processes.wait_until_answers(proc, f"{url}/health/ready", log)
        yield url
    finally:
        processes.stop(proc)
        db.cleanup()


@pytest.fixture
def prometheus(tmp_path: Path, slotlab_server: str) -> Iterator[str]:
    """Prometheus on loopback with deploy/prometheus.yml, its target and interval set for the
    test (a scrape a second), and the shipped alert rules."""
    assert PROMETHEUS
    config = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    config["global"]["scrape_interval"] = config["global"]["evaluation_interval"] = "1s"
    config["scrape_configs"][0]["static_configs"][0]["targets"] = [
        slotlab_server.removeprefix("http://")]
    folder = tmp_path / "prometheus"
    folder.mkdir()
    shutil.copy(ROOT / "deploy" / "slotlab-alerts.yml", folder / "slotlab-alerts.yml")
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config))
    port = free_port()
    log = folder / "prometheus.log"
    proc = processes.start([PROMETHEUS, f"--config.file={folder / 'prometheus.yml'}",
                            f"--storage.tsdb.path={folder / 'data'}",
                            f"--web.listen-address=127.0.0.1:{port}"], log)
    url = f"http://127.0.0.1:{port}"
    try:
        processes.wait_until_answers(proc, f"{url}/-/ready", log, within_s=60)
        yield url
    finally:
        processes.stop(proc)


def _player(url: str) -> dict[str, str]:
    """A registered, logged-in player's headers (made one at a time: the registration queue
    and login delays are not what this test is about)."""
    name, password = f"p{uuid.uuid4().hex[:10]}", "correct horse 1"
    with httpx.Client(base_url=url, timeout=60) as c:
        made = c.post("/api/players", json={"username": name, "password": password})
        assert made.status_code == 201, made.text
        login = c.post("/api/sessions", json={"username": name, "password": password})
        assert login.status_code == 201, login.text
        return {"Authorization": f"Bearer {login.json()['token']}"}


def _post(c: httpx.Client, path: str, body: dict[str, object],
          auth: dict[str, str]) -> httpx.Response:
    """A call as the browser client makes it: a connection lost before the answer is tried
    again with the same Idempotency-Key (twice at most), which moves money once."""
    headers = {**auth, "Idempotency-Key": uuid.uuid4().hex}
    for _ in range(2):
        try:
            return c.post(path, json=body, headers=headers)
        except httpx.TransportError:
            pass
    return c.post(path, json=body, headers=headers)


def _play(url: str, auth: dict[str, str], rounds: int, errors: list[str]) -> None:
    try:
        with httpx.Client(base_url=url, timeout=60) as c:
            for _ in range(rounds):
                r = _post(c, "/api/games/classic-3x3/rounds", {"bet": 5}, auth)
                if r.status_code == 201 and r.json()["status"] == "awaiting_choice":  # a gamble
                    r = _post(c, f"/api/rounds/{r.json()['round_id']}/choices",
                              {"choice": "collect", "step": r.json()["step"]}, auth)
                if r.status_code not in (200, 201) or r.json()["status"] != "completed":
                    errors.append(r.text)
    except Exception as e:  # a thread's failure must fail the test, not only warn
        errors.append(repr(e))


def _query(prometheus: str, promql: str) -> list[dict[str, object]]:
    r = httpx.get(f"{prometheus}/api/v1/query", params={"query": promql}, timeout=10)
    assert r.status_code == 200, r.text
    return list(r.json()["data"]["result"])


def test_prometheus_scrapes_the_rounds_played(slotlab_server: str, prometheus: str) -> None:
    errors: list[str] = []
    players = [_player(slotlab_server) for _ in range(CLIENTS)]
    clients = [threading.Thread(target=_play,
                                args=(slotlab_server, auth, ROUNDS // CLIENTS, errors))
               for auth in players]
    for t in clients:
        t.start()
    for t in clients:
        t.join()
    assert not errors, errors[:3]
    promql = 'sum(slotlab_rounds_total{game="classic-3x3",kind="paid"})'

    seen: list[object] = []

    def counted() -> bool:
        result = _query(prometheus, promql)
        seen[:] = [result]
        return bool(result) and float(result[0]["value"][1]) == ROUNDS  # type: ignore[index]

    # Bounded, not a timing assertion: on a loaded machine the scrapes come late.
    try:
        _wait(f"{promql} == {ROUNDS}", counted, 180)
    except pytest.fail.Exception:
        pytest.fail(f"{promql} never reached {ROUNDS} within 180 s; last answer: {seen}")
    assert _query(prometheus, 'up{job="slotlab"}')[0]["value"][1] == "1"  # type: ignore[index]
    bets = _query(prometheus, 'sum(slotlab_bet_minor_units_total{game="classic-3x3"})')
    assert float(bets[0]["value"][1]) == ROUNDS * 5  # type: ignore[index]
    rules = httpx.get(f"{prometheus}/api/v1/rules", timeout=10).json()["data"]["groups"]
    assert {r["name"] for g in rules for r in g["rules"]} >= {
        "SlotlabDown", "SlotlabInterruptedRounds", "SlotlabRtpOutsideInterval"}


@pytest.mark.skipif(PROMTOOL is None, reason="promtool comes with Debian's prometheus")
def test_the_shipped_configuration_and_rules_are_valid() -> None:
    assert PROMTOOL
    done = subprocess.run([PROMTOOL, "check", "config", "prometheus.yml"],
                          cwd=ROOT / "deploy", capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
