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
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import Connection, create_engine, select, text

from slotlab.server.app import create_app
from slotlab.server.services import auth as auth_service
from slotlab.server.services import reality as reality_service
from slotlab.server.services import rounds
from slotlab.server.settings import Settings
from slotlab.server.timeouts import TimedHttpToolsProtocol
from slotlab.store import normalize_url
from slotlab.store.models import Round, utcnow

PG_URL = os.environ.get("SLOTLAB_TEST_DATABASE_URL")
ADMIN_TOKEN = "test-admin-" + uuid.uuid4().hex
# A request the schema tests send waits this long for its answer: schemathesis' own 10 s was
# passed on a loaded machine (a ReadTimeout, which hypothesis then reports as a flaky test).
CALL_TIMEOUT_S = 120
FAST_HASH = {"argon2_time_cost": 1, "argon2_memory_kib": 64}
# Tests register their players from one address (loopback): far more than a real one may.
MANY_PLAYERS = {"registration_limit_per_address": 1_000_000}
MANY_PLAYERS_ENV = {"SLOTLAB_REGISTRATION_LIMIT_PER_ADDRESS": "1000000"}


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


async def generic_plan(conn: Any, sql: str, parameters: int = 1) -> str:
    """PostgreSQL's EXPLAIN of the generic plan of ``sql`` (the plan a connection keeps for a
    prepared statement once it stops planning per call), on an asyncpg connection."""
    await conn.execute("SET plan_cache_mode = force_generic_plan")
    await conn.execute(f"PREPARE planned AS {sql}")
    nulls = ", ".join(["NULL"] * parameters)
    return "\n".join(r[0] for r in await conn.fetch(f"EXPLAIN EXECUTE planned({nulls})"))


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

    def __init__(self, settings: Settings, games: dict[str, Any] | None,
                 proxy_headers: bool = True, tracer_provider: Any = None) -> None:
        """``proxy_headers=False``: uvicorn's own forwarded-address rewriting off, as in
        ``slotlab serve``, so that the app alone decides which X-Forwarded-For to believe;
        ``tracer_provider``: an OpenTelemetry provider the app traces to."""
        self.settings = settings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(settings, games_override=games, tracer_provider=tracer_provider)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_graceful_shutdown=2, proxy_headers=proxy_headers,
                                timeout_keep_alive=settings.keep_alive_s,
                                http=TimedHttpToolsProtocol)  # as slotlab serve runs it
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
                              "maintenance_interval_s": 3600, **FAST_HASH, **MANY_PLAYERS}
    values.update(overrides)
    return Settings(**values)


def key() -> dict[str, str]:
    return {"Idempotency-Key": uuid.uuid4().hex}


def set_round(srv: LiveServer, rid: str, **values: Any) -> None:
    """The round's record changed under the server (columns by name)."""
    with srv.ctx.db.write() as s:
        r = s.scalar(select(Round).where(Round.id == rid))
        assert r is not None
        for k, v in values.items():
            setattr(r, k, v)


@contextmanager
def player_rows(db_url: str, player: str
                ) -> Iterator[tuple[Connection, int, Callable[[Any], str]]]:
    """A connection to read what the player's rounds wrote, the player's id, and ``clean``: a
    value as text with the player's round ids written R0, R1, ... in the order played, so that
    two runs of the same rounds (two paths, two databases) compare equal."""
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as c:
            pid = c.execute(text("SELECT id FROM players WHERE username = :u"), {"u": player}
                            ).scalar_one()
            rids = [r for (r,) in c.execute(text(
                "SELECT id FROM rounds WHERE player_id = :p ORDER BY seq"), {"p": pid})]

            def clean(value: Any) -> str:
                out = str(value)
                for i, rid in enumerate(rids):
                    out = out.replace(rid, f"R{i}")
                return out

            yield c, pid, clean
    finally:
        engine.dispose()


def autoplay_figures(c: Connection, player_id: int) -> list[tuple[Any, ...]]:
    """The player's autoplay runs as their rounds left them."""
    return [tuple(r) for r in c.execute(text(
        "SELECT status, stop_reason, rounds_played, total_bet, total_win, best_win "
        "FROM autoplay_runs WHERE player_id = :p"), {"p": player_id})]


def spied_write(real: Callable[..., Awaitable[tuple[Any, Any]]], calls: list[Any],
                before: Callable[[], Awaitable[None]] | None = None, fail: bool = False
                ) -> Callable[..., Awaitable[tuple[Any, Any]]]:
    """A round writer's method (``real``, returning (write, outcome)) with each outcome
    recorded in ``calls``; ``before`` awaited first (what lands between a read and its write);
    ``fail``: raises instead of writing."""
    async def spied(*args: Any) -> tuple[Any, Any]:
        if before is not None:
            await before()
        if fail:
            raise ConnectionError("the database went away")
        write, outcome = await real(*args)
        calls.append(outcome)
        return write, outcome

    return spied


def round_left_open(srv: LiveServer, token: str, why: str = "the process died here",
                    game: str = "instant-test", body: dict[str, Any] | None = None
                    ) -> dict[str, str]:
    """A round (default: instant-test, bet 5) whose process dies between the two commits of
    ``split_round_commits``: debited (a free round: taken from its package), never played,
    left open (the request answered 500). Its Idempotency-Key header, for the request's
    retry."""
    headers = key()

    def dies(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError(why)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rounds, "_settle_opened", dies)  # the round writer's settling
        r = srv.client(token).post(f"/api/games/{game}/rounds", json=body or {"bet": 5},
                                   headers=headers)
    assert r.status_code == 500, r.text
    return headers


# The money checks straight on the database: each query lists what must not exist.
MONEY_CHECKS = {
    "balances differ from their ledger (or are negative)":
        "SELECT w.id FROM wallets w LEFT JOIN (SELECT wallet_id, SUM(amount) s FROM "
        "ledger_entries GROUP BY wallet_id) l ON l.wallet_id = w.id "
        "WHERE w.balance <> COALESCE(l.s, 0) OR w.balance < 0",
    "ledger entries name a round that does not exist":
        "SELECT e.id FROM ledger_entries e WHERE e.round_id IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM rounds r WHERE r.id = e.round_id)",
    "rounds without their bet":
        "SELECT r.id FROM rounds r WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e "
        "WHERE e.round_id = r.id AND e.kind = 'bet')",
    "completed rounds whose win was not paid":
        "SELECT r.id FROM rounds r WHERE r.status = 'completed' AND r.win > 0 AND NOT EXISTS "
        "(SELECT 1 FROM ledger_entries e WHERE e.round_id = r.id AND e.kind = 'win')",
    "rounds whose bet or win was written twice":
        "SELECT round_id FROM ledger_entries WHERE round_id IS NOT NULL AND kind IN "
        "('bet', 'win') GROUP BY round_id, kind HAVING COUNT(*) > 1",
}


def stored_last_seen(db_url: str) -> datetime:
    """The one session's last-seen time as stored (UTC; SQLite keeps it as naive text)."""
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as c:
            seen = c.execute(text("SELECT last_seen FROM sessions")).scalar_one()
    finally:
        engine.dispose()
    seen = seen if isinstance(seen, datetime) else datetime.fromisoformat(seen)
    return seen if seen.tzinfo else seen.replace(tzinfo=UTC)


def checked_round_statuses(db_url: str) -> dict[str, str]:
    """Round id -> status, after asserting every one of :data:`MONEY_CHECKS`."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            found = {why: c.execute(text(sql)).scalars().all()
                     for why, sql in MONEY_CHECKS.items()}
            statuses = dict(c.execute(text("SELECT id, status FROM rounds")).all())
    finally:
        engine.dispose()
    broken = {why: ids[:3] for why, ids in found.items() if ids}
    assert not broken, broken
    return statuses


class ServerClock:
    """The clock (``utcnow``) of some server services in this process, standing still until the
    test moves it: an inactivity timeout, a reminder interval or a minimum time between rounds
    passes at :meth:`advance`, never while a slow machine runs the test, so no timing decides
    it. By default the session services' (auth, reality checks)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch,
                 modules: tuple[ModuleType, ...] = (auth_service, reality_service)) -> None:
        self.time = utcnow()
        for module in modules:
            monkeypatch.setattr(module, "utcnow", self.now)

    def now(self) -> datetime:
        return self.time

    def advance(self, seconds: float) -> None:
        self.time += timedelta(seconds=seconds)
