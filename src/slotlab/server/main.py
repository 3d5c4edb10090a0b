"""Start the server: ``slotlab serve`` calls :func:`run`.

``--workers N`` runs N server processes on one port with uvicorn's own supervisor: it binds the
socket once and hands it to each worker, starts a worker again when one dies (kill -9 included),
replaces them one by one on SIGHUP, and stops them all on SIGINT or SIGTERM. Nothing a process
holds is needed by another (docs/scale.md): every worker reads the same settings from the
environment and works on the same database.
"""

from __future__ import annotations

import gc
import logging
import os

from fastapi import FastAPI

from slotlab.server.settings import Settings
from slotlab.server.timeouts import TimedHttpToolsProtocol
from slotlab.store import Database, normalize_url

# Seconds a worker may leave the supervisor's ping unanswered before it is killed and started
# again (uvicorn's default is 5): a worker compiling kernels on a cold cache is slow to answer.
WORKER_HEALTHCHECK_S = 60


class WorkersError(ValueError):
    """``--workers`` asked for what the database cannot serve."""


def check_workers(workers: int, database_url: str) -> None:
    """Several processes need PostgreSQL. On SQLite one process writes at a time, and slotlab's
    SQLite group commit (:class:`slotlab.store.engine.Database`: concurrent rounds share one
    transaction and one fsync) batches only the writes of its own process; N processes would
    take turns on the file's write lock, each with batches of its own, and serve fewer rounds
    than one process, not more."""
    if workers < 1:
        raise WorkersError(f"--workers must be at least 1, not {workers}")
    if workers > 1 and normalize_url(database_url).startswith("sqlite"):
        raise WorkersError(
            f"--workers {workers} needs PostgreSQL (--db postgresql+psycopg://...): on SQLite "
            "one process writes at a time and slotlab's group commit batches the writes of one "
            "process only, so several processes would queue on the file's lock and be slower "
            "than one; run one process on SQLite")


def _logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # At INFO an operator reads what the server is (version, database, games) and where it
    # listens; the migration tool's and uvicorn's start-up chatter goes to WARNING.
    logging.getLogger("alembic").setLevel(logging.WARNING)


def _tune_gc() -> None:
    # Long-lived start-up objects (models, compiled kernels, the app) leave the collector's
    # view, and young collections run less often: fewer pauses in the latency tail.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def worker_app() -> FastAPI:
    """The app of one worker process (uvicorn's factory), its settings from ``SLOTLAB_*``."""
    from slotlab.server.app import create_app

    _logging()
    app = create_app(Settings())
    _tune_gc()
    return app


def run(host: str, port: int, db_url: str | None, workers: int = 1) -> None:
    """Create or migrate the database, then serve the API and the browser client with uvicorn
    in ``workers`` processes (more than one: PostgreSQL only, :func:`check_workers`).

    ``db_url`` overrides ``SLOTLAB_DATABASE_URL``; ``postgresql://...`` uses psycopg 3.
    """
    import uvicorn

    from slotlab.server.app import create_app

    overrides = {"database_url": db_url} if db_url else {}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    check_workers(workers, settings.database_url)
    _logging()
    db = Database(settings.database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms,
                  pooler=settings.db_pooler)
    db.migrate()
    db.dispose()
    log = logging.getLogger("slotlab.server")
    # proxy_headers off: SLOTLAB_TRUSTED_PROXIES alone decides whose X-Forwarded-For is believed.
    if workers > 1:
        # The workers are new processes (spawned): they read the settings from the environment.
        if db_url:
            os.environ["SLOTLAB_DATABASE_URL"] = db_url
        log.info("starting %d workers on http://%s:%d", workers, host, port)
        uvicorn.run("slotlab.server.main:worker_app", factory=True, workers=workers,
                    http=TimedHttpToolsProtocol,
                    timeout_worker_healthcheck=WORKER_HEALTHCHECK_S, host=host, port=port,
                    log_level="warning", proxy_headers=False, access_log=settings.access_log,
                    timeout_graceful_shutdown=5)
        return
    app = create_app(settings)
    _tune_gc()
    log.info("starting on http://%s:%d", host, port)
    uvicorn.run(app, host=host, port=port, log_level="warning", proxy_headers=False,
                access_log=settings.access_log, timeout_graceful_shutdown=5,
                http=TimedHttpToolsProtocol)


if __name__ == "__main__":  # python -m slotlab.server.main [host] [port] [db] [workers]
    import sys

    a = sys.argv[1:]
    run(a[0] if a else "127.0.0.1", int(a[1]) if len(a) > 1 else 8000, a[2] if len(a) > 2 else None,
        int(a[3]) if len(a) > 3 else 1)
