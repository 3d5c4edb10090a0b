"""Start the server: ``slotlab serve`` calls :func:`run`.

``--workers N`` runs N server processes on one port with uvicorn's own supervisor: it binds the
socket once and hands it to each worker, starts a worker again when one dies (kill -9 included),
replaces them one by one on SIGHUP, and stops them all on SIGINT or SIGTERM. Nothing a process
holds is needed by another (docs/scale.md): every worker reads the same settings from the
environment and works on the same database.
"""

from __future__ import annotations

import errno
import gc
import logging
import os
import shutil
import socket
import tempfile
from typing import Any

import uvicorn
from fastapi import FastAPI
from sqlalchemy.exc import SQLAlchemyError

from slotlab.server import tracing
from slotlab.server.settings import Settings
from slotlab.server.timeouts import TimedHttpToolsProtocol
from slotlab.store import Database, normalize_url
from slotlab.store.unreachable import explain

# Seconds a worker may leave the supervisor's ping unanswered before it is killed and started
# again (uvicorn's default is 5): a worker compiling kernels on a cold cache is slow to answer.
WORKER_HEALTHCHECK_S = 60


class ServeError(Exception):
    """The server cannot start; the message says why in one line."""


class WorkersError(ServeError, ValueError):
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


def _logging(log_format: str = "text") -> None:
    if log_format == "json":
        from slotlab.server.request_log import JsonLines

        handler = logging.StreamHandler()
        handler.setFormatter(JsonLines())
        logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    else:
        logging.basicConfig(level=logging.INFO,
                            format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # At INFO an operator reads what the server is (version, database, games) and where it
    # listens; the migration tool's and uvicorn's start-up chatter goes to WARNING. A line per
    # request and per round settled is for JSON logs, which a log system collects.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    quiet = logging.INFO if log_format == "json" else logging.WARNING
    for name in ("slotlab.requests", "slotlab.rounds"):
        logging.getLogger(name).setLevel(quiet)


def _tune_gc() -> None:
    # Long-lived start-up objects (models, compiled kernels, the app) leave the collector's
    # view, and young collections run less often: fewer pauses in the latency tail.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


def worker_app() -> FastAPI:
    """The app of one worker process (uvicorn's factory), its settings from ``SLOTLAB_*``."""
    from slotlab.server.app import create_app

    settings = Settings()
    _logging(settings.log_format)
    app = create_app(settings)
    _tune_gc()
    return app


def listen_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound before anything is loaded: a port another program holds is
    said at once, not after minutes of compiling. It listens only once the games are loaded, so
    until then a client is refused rather than kept waiting."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(f"port {port} on {host} is in use by another program: stop it, or "
                             "choose another port (--port, or make serve PORT=...)") from None
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.set_inheritable(True)  # the workers' supervisor hands it to each worker
    return sock


def _migrate(settings: Settings) -> None:
    """Create or migrate the database; a database that cannot be used is one line."""
    try:
        db = Database(settings.database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms,
                      pooler=settings.db_pooler)
        try:
            db.migrate()
        finally:
            db.dispose()
    except SQLAlchemyError as exc:
        raise ServeError(explain(settings.database_url, exc)) from None


METRICS_FOLDER_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_metrics_folder(workers: int) -> str | None:
    """The folder prometheus_client's multiprocess mode keeps every worker's figures in, made
    empty (an earlier run's figures would be added to this one's): ``PROMETHEUS_MULTIPROC_DIR``
    when set, else, for several workers, a new temporary folder named in that variable for
    them. None: one process keeping its figures in memory. Runs before the metrics module is
    imported, as the library reads the variable then."""
    folder = os.environ.get(METRICS_FOLDER_ENV)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
    elif workers > 1:
        folder = tempfile.mkdtemp(prefix="slotlab-metrics-")
        os.environ[METRICS_FOLDER_ENV] = folder
    return folder


class _AnnouncingServer(uvicorn.Server):
    """uvicorn's server, saying where it listens once it does (the games loaded)."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.should_exit:
            logging.getLogger("slotlab.server").info(
                "listening on http://%s:%d", self.config.host, self.config.port)


def run(host: str, port: int, db_url: str | None, workers: int = 1) -> None:
    """Create or migrate the database, then serve the API and the browser client with uvicorn
    in ``workers`` processes (more than one: PostgreSQL only, :func:`check_workers`).

    ``db_url`` overrides ``SLOTLAB_DATABASE_URL``; ``postgresql://...`` uses psycopg 3. Raises
    :class:`ServeError` (a busy port, a database that cannot be used) before serving.
    """
    from uvicorn.supervisors import Multiprocess

    overrides = {"database_url": db_url} if db_url else {}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    check_workers(workers, settings.database_url)
    try:
        tracing.require(settings.tracing)
    except tracing.TracingUnavailable as exc:
        raise ServeError(str(exc)) from None
    _logging(settings.log_format)
    sock = listen_socket(host, port)
    try:
        _migrate(settings)
        log = logging.getLogger("slotlab.server")
        folder = prepare_metrics_folder(workers)
        if folder:
            log.info("metrics of every worker are summed in %s", folder)
        # proxy_headers off: SLOTLAB_TRUSTED_PROXIES alone decides whose X-Forwarded-For counts.
        common: dict[str, Any] = {
            "host": host, "port": port, "log_level": "warning", "proxy_headers": False,
            "access_log": settings.access_log, "timeout_graceful_shutdown": 5,
            "timeout_keep_alive": settings.keep_alive_s,
            "http": TimedHttpToolsProtocol}  # slow clients dropped (server/timeouts.py)
        if workers > 1:
            # The workers are new processes (spawned): they read the settings from the
            # environment, and each listens on the shared socket once its games are loaded.
            if db_url:
                os.environ["SLOTLAB_DATABASE_URL"] = db_url
            log.info("starting %d workers for http://%s:%d (the port answers once the first "
                     "has loaded the games)", workers, host, port)
            config = uvicorn.Config("slotlab.server.main:worker_app", factory=True,
                                    workers=workers,
                                    timeout_worker_healthcheck=WORKER_HEALTHCHECK_S, **common)
            Multiprocess(config, sockets=[sock]).run()
            return
        from slotlab.server.app import create_app  # after the metrics folder is prepared

        app = create_app(settings)
        _tune_gc()
        _AnnouncingServer(uvicorn.Config(app, **common)).run(sockets=[sock])
    except KeyboardInterrupt:  # Ctrl-C: uvicorn has already stopped serving
        pass
    finally:
        sock.close()


if __name__ == "__main__":  # python -m slotlab.server.main [host] [port] [db] [workers]
    import sys

    a = sys.argv[1:]
    run(a[0] if a else "127.0.0.1", int(a[1]) if len(a) > 1 else 8000, a[2] if len(a) > 2 else None,
        int(a[3]) if len(a) > 3 else 1)
