"""The server through PgBouncer in transaction mode (Debian's pgbouncer; ``.ci/run`` installs
it): two server processes on one database behind one PgBouncer, players on both, rounds and
choices played, the money adding up. With ``SLOTLAB_DB_POOLER=pgbouncer`` no statement is
prepared on the server, so a transaction may land on any server connection."""

from __future__ import annotations

import importlib.util
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from sqlalchemy import text

from slotlab.store import Database

from .server_util import ADMIN_TOKEN, PG_URL, checked_round_statuses
from .test_multi_process import Server, players
from .test_multi_process import start as start_server

ROOT = Path(__file__).resolve().parents[2]


def _pgbouncer_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgbouncer", ROOT / "benchmarks" /
                                                  "pgbouncer.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("pgbouncer", module)
    spec.loader.exec_module(module)
    return module


PGB = _pgbouncer_module()
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="needs PostgreSQL (SLOTLAB_TEST_DATABASE_URL)"),
    pytest.mark.skipif(not PGB.installed(), reason="pgbouncer is not installed: apt-get install "
                       "pgbouncer (Debian's; .ci/run installs it)"),
]


@pytest.fixture
def bouncer_url() -> Iterator[str]:
    """A fresh database behind a PgBouncer in transaction mode with a small server pool (so
    that consecutive transactions of one client do land on different server connections)."""
    assert PG_URL
    with PGB.fresh_database(PG_URL) as name, PGB.running(PG_URL, pool_size=3) as bouncer:
        yield bouncer.url(name)


def test_the_pooler_setting_turns_prepared_statements_off(bouncer_url):
    db = Database(bouncer_url, pooler="pgbouncer")
    try:
        raw = db.engine.raw_connection()
        try:
            assert raw.driver_connection.prepare_threshold is None  # type: ignore[union-attr]
        finally:
            raw.close()
        db.migrate()
        with db.read() as s:  # many times the same statement: psycopg would prepare it
            for _ in range(20):
                assert s.scalar(text("SELECT count(*) FROM rounds")) == 0
    finally:
        db.dispose()
    plain = Database(PG_URL or "")
    try:
        raw = plain.engine.raw_connection()
        try:
            assert raw.driver_connection.prepare_threshold == 5  # type: ignore[union-attr]
        finally:
            raw.close()
    finally:
        plain.dispose()


def _play(urls: list[str], token: str, rounds: int, errors: list[str]) -> None:
    """Rounds one after the other, each on the next server: the same player on both."""
    clients = [httpx.Client(base_url=u, timeout=30, headers={"Authorization": f"Bearer {token}"})
               for u in urls]
    try:
        for i in range(rounds):
            c = clients[i % len(clients)]
            game = "pick-test" if i % 4 == 0 else "instant-test"
            r = c.post(f"/api/games/{game}/rounds", json={"bet": 2},
                       headers={"Idempotency-Key": uuid.uuid4().hex})
            if r.status_code != 201:
                errors.append(r.text)
                return
            if r.json()["status"] == "awaiting_choice":
                d = clients[(i + 1) % len(clients)].post(
                    f"/api/rounds/{r.json()['round_id']}/choices",
                    json={"choice": "left", "step": r.json()["step"]},
                    headers={"Idempotency-Key": uuid.uuid4().hex})
                if d.status_code != 200:
                    errors.append(d.text)
                    return
    finally:
        for c in clients:
            c.close()


def test_two_servers_play_through_pgbouncer(bouncer_url, monkeypatch, tmp_path):
    monkeypatch.setenv("SLOTLAB_DB_POOLER", "pgbouncer")
    servers: list[Server] = []
    try:
        servers = [*start_server(bouncer_url, False, tmp_path),
                   *start_server(bouncer_url, True, tmp_path)]
        tokens = players(servers[0].url, 4)
        errors: list[str] = []
        urls = [srv.url for srv in servers]
        threads = [threading.Thread(target=_play, args=(urls, t, 25, errors)) for t in tokens]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors[:3]
        statuses = checked_round_statuses(bouncer_url)
        assert len(statuses) == 4 * 25 and set(statuses.values()) == {"completed"}
        audit = httpx.get(f"{servers[1].url}/api/admin/audit", timeout=30,
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).json()
        assert audit["ok"], audit
    finally:
        for srv in servers:
            srv.kill()
