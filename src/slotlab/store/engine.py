"""Engines and transactions for SQLite (embedded default) and PostgreSQL (by URL).

SQLite runs in WAL mode with a busy timeout; every write transaction starts with
``BEGIN IMMEDIATE`` so that two writers never both read and then fail to upgrade their lock, and
in-process writers queue on a lock instead of spinning on the busy handler. Reads use a second
engine whose transactions start with a plain (deferred) ``BEGIN`` and so never block writers.
PostgreSQL uses one pooled engine (psycopg 3); writers lock the rows they change.

Behind a connection pooler in transaction mode (PgBouncer, ``pooler="pgbouncer"``) a client's
statements may reach a different server connection in each transaction, so no state may
outlive a transaction: psycopg prepares no statements (``prepare_threshold=None``), asyncpg
keeps no statement cache (:func:`pooler_connect_args`), and locks are transaction-scoped.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from slotlab.json_text import json_text
from slotlab.store.chain import register_sqlite

MIGRATIONS = Path(__file__).parent / "migrations"
POOLERS = ("none", "pgbouncer")


def pooler_connect_args(pooler: str, driver: str = "psycopg") -> dict[str, Any]:
    """What a PostgreSQL driver's connections need behind ``pooler`` (SLOTLAB_DB_POOLER):
    through PgBouncer in transaction mode, no server-side prepared statements, which would be
    left on a server connection that the next transaction may not get."""
    if pooler not in POOLERS:
        raise ValueError(f"unknown pooler {pooler!r}; known: {', '.join(POOLERS)}")
    if pooler == "none":
        return {}
    needs: dict[str, dict[str, Any]] = {"asyncpg": {"statement_cache_size": 0},
                                        "psycopg": {"prepare_threshold": None}}
    return needs[driver]


def normalize_url(url: str) -> str:
    """Map ``postgresql://`` and ``postgres://`` to the psycopg 3 driver; keep the rest."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _sqlite_engine(url: str, *, begin: str, busy_timeout_ms: int, synchronous: str) -> Engine:
    u = make_url(url)
    if not u.database or u.database == ":memory:":
        raise ValueError("slotlab needs an SQLite file, not an in-memory database")
    Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        json_serializer=json_text,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        pool_size=48,
        max_overflow=16,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cur.execute(f"PRAGMA synchronous={synchronous}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()
        register_sqlite(dbapi_conn)  # the hash-chain triggers call it (slotlab.store.chain)

    if begin:  # reads run without one: each statement is its own snapshot

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Any) -> None:
            conn.exec_driver_sql(begin)

    return engine


def make_engine(
    url: str,
    *,
    write: bool = True,
    busy_timeout_ms: int = 10_000,
    synchronous: str = "FULL",
    pool_size: int = 20,
    pooler: str = "none",
) -> Engine:
    url = normalize_url(url)
    if url.startswith("sqlite"):
        return _sqlite_engine(
            url,
            begin="BEGIN IMMEDIATE" if write else "",
            busy_timeout_ms=busy_timeout_ms,
            synchronous=synchronous,
        )
    return create_engine(url, pool_size=pool_size, max_overflow=pool_size, pool_pre_ping=False,
                         connect_args=pooler_connect_args(pooler), json_serializer=json_text)


MAX_BATCH = 64


class _Batch:
    """Write blocks that share one SQLite transaction and so one fsync."""

    __slots__ = ("done", "error", "size")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.size = 0


class CommitFailed(RuntimeError):
    """The group commit that carried this write failed; nothing of it was kept."""


class Database:
    """The server's handle on its database: ``write()`` and ``read()`` transactions.

    On SQLite, ``group_commit`` lets concurrent writers share a transaction: each write block
    runs alone (under a lock) inside its own SAVEPOINT of one open transaction, and the block
    that finds nobody waiting behind it commits for all (at most ``MAX_BATCH`` blocks). Every
    caller returns only after the commit that made its block durable, so the durability of each
    call is unchanged while one fsync serves many rounds. A block that raises is rolled back to
    its savepoint alone.
    """

    def __init__(
        self,
        url: str,
        *,
        busy_timeout_ms: int = 10_000,
        synchronous: str = "FULL",
        pool_size: int = 20,
        group_commit: bool = True,
        pooler: str = "none",
    ) -> None:
        self.url = normalize_url(url)
        self.is_sqlite = self.url.startswith("sqlite")
        self.pooler = pooler  # e.g. "pgbouncer": see pooler_connect_args
        self.engine = make_engine(
            self.url, busy_timeout_ms=busy_timeout_ms, synchronous=synchronous,
            pool_size=pool_size, pooler=pooler
        )
        if self.is_sqlite:
            self.read_engine = make_engine(
                self.url,
                write=False,
                busy_timeout_ms=busy_timeout_ms,
                synchronous=synchronous,
            )
        else:
            # Reads skip BEGIN/COMMIT round trips; each statement sees committed data.
            self.read_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._write_lock: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if self.is_sqlite else contextlib.nullcontext()
        )
        self._group = self.is_sqlite and group_commit
        self._lock = threading.Lock()
        self._meta = threading.Lock()
        self._waiting = 0
        self._shared: Session | None = None
        self._batch: _Batch | None = None

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction: durable when the block ends, rolled back if it raises.

        Objects loaded in the block must not be used after it (the session may be shared).
        """
        if self._group:
            with self._group_write() as s:
                yield s
            return
        with self._write_lock, Session(self.engine, expire_on_commit=False) as s, s.begin():
            yield s

    @contextlib.contextmanager
    def _group_write(self) -> Iterator[Session]:
        with self._meta:
            self._waiting += 1
        self._lock.acquire()
        with self._meta:
            self._waiting -= 1
        locked = True
        try:
            if self._shared is None:
                self._shared = Session(self.engine, expire_on_commit=False)
                self._shared.begin()
                self._batch = _Batch()
            s, batch = self._shared, self._batch
            assert batch is not None
            batch.size += 1
            failed: BaseException | None = None
            try:
                with s.begin_nested():
                    yield s
            except BaseException as e:
                failed = e
            finally:
                # Each block starts with an empty identity map, as if it had its own session:
                # an object loaded by an earlier block may be stale after a Core UPDATE.
                s.expunge_all()
            # A database error other than a constraint may have broken the whole transaction.
            fatal = isinstance(failed, DBAPIError) and not isinstance(failed, IntegrityError)
            with self._meta:
                last = self._waiting == 0
            if last or fatal or batch.size >= MAX_BATCH:
                self._shared = self._batch = None
                try:
                    if fatal:
                        raise CommitFailed("a write failed inside a group transaction")
                    s.commit()
                except BaseException as e:
                    batch.error = e
                    s.rollback()
                finally:
                    s.close()
                    batch.done.set()
            self._lock.release()
            locked = False
            if failed is not None:
                raise failed
            batch.done.wait()
            if batch.error is not None:
                raise CommitFailed("the group commit failed; retry") from batch.error
        finally:
            if locked:
                self._lock.release()

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        with Session(self.read_engine, expire_on_commit=False) as s, s.begin():
            yield s

    def migrate(self) -> None:
        migrate(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()
        if self.is_sqlite:
            self.read_engine.dispose()


def schema_lock(function: str) -> str:
    """SQL calling PostgreSQL's advisory-lock ``function`` on the key named ``:lock`` in this
    schema. Advisory locks are the whole database's; the schema in the key keeps a deployment in
    another schema of it (staging beside production, the suite's parallel workers) apart."""
    return f"SELECT {function}(hashtextextended(:lock || ':' || current_schema(), 0))"


def migrate(engine: Engine, revision: str = "heads") -> None:
    """Bring the schema to ``revision`` (every head: migrations written side by side apply in
    any order) with the migrations shipped in this package."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # concurrent start-ups migrate one at a time
            conn.execute(text(schema_lock("pg_advisory_xact_lock")), {"lock": "slotlab-migrate"})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
