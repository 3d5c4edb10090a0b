"""Server test helpers: a real uvicorn server on 127.0.0.1 over SQLite files and PostgreSQL.

PostgreSQL tests run when ``SLOTLAB_TEST_DATABASE_URL`` is set (e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); every server gets a fresh schema,
dropped when the test ends, so a run leaves nothing behind.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import create_engine, text

from slotlab.server.app import create_app
from slotlab.server.settings import Settings
from slotlab.store import normalize_url

PG_URL = os.environ.get("SLOTLAB_TEST_DATABASE_URL")
ADMIN_TOKEN = "test-admin-" + uuid.uuid4().hex
FAST_HASH = {"argon2_time_cost": 1, "argon2_memory_kib": 64}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_url_with_schema(schema: str) -> str:
    assert PG_URL
    sep = "&" if "?" in PG_URL else "?"
    return f"{normalize_url(PG_URL)}{sep}options=-csearch_path%3D{schema}"


@dataclass
class Database:
    """A fresh, empty database: an SQLite file or a PostgreSQL schema."""

    backend: str
    url: str
    cleanup: Callable[[], None] = field(default=lambda: None)


def make_database(backend: str, tmp_path: Path) -> Database:
    if backend == "sqlite":
        return Database("sqlite", f"sqlite:///{tmp_path / f'slotlab-{uuid.uuid4().hex[:8]}.db'}")
    if not PG_URL:
        pytest.skip("SLOTLAB_TEST_DATABASE_URL is not set")
    schema = f"slotlab_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(normalize_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))

    def drop() -> None:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()

    return Database("postgres", _pg_url_with_schema(schema), drop)


class LiveServer:
    """uvicorn running ``create_app`` in a thread of this process."""

    def __init__(self, settings: Settings, games: dict[str, Any] | None) -> None:
        self.settings = settings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(settings, games_override=games)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        while not self.server.started:  # start-up, not a timing assumption: we wait for it
            if not self.thread.is_alive():
                raise RuntimeError("server failed to start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join()

    @property
    def ctx(self) -> Any:
        return self.app.state.services

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def admin(self) -> httpx.Client:
        return self.client(ADMIN_TOKEN)

    def player(self, username: str | None = None, password: str = "correct horse 1"
               ) -> tuple[httpx.Client, str]:
        """Register and log in a new player; returns a client that sends their token."""
        username = username or f"p{uuid.uuid4().hex[:10]}"
        with self.client() as c:
            r = c.post("/api/players", json={"username": username, "password": password})
            assert r.status_code == 201, r.text
            r = c.post("/api/sessions", json={"username": username, "password": password})
            assert r.status_code == 201, r.text
            token = r.json()["token"]
        return self.client(token), username


def server_settings(db: Database, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"database_url": db.url, "admin_token": ADMIN_TOKEN,
                              "maintenance_interval_s": 3600, **FAST_HASH}
    values.update(overrides)
    return Settings(**values)




def key() -> dict[str, str]:
    return {"Idempotency-Key": uuid.uuid4().hex}
