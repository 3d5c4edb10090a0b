"""Start the server: ``slotlab serve`` calls :func:`run`."""

from __future__ import annotations

import gc
import logging

from slotlab.server.settings import Settings
from slotlab.store import Database


def run(host: str, port: int, db_url: str | None) -> None:
    """Create or migrate the database, then serve the API and the browser client with uvicorn.

    ``db_url`` overrides ``SLOTLAB_DATABASE_URL``; ``postgresql://...`` uses psycopg 3.
    """
    import uvicorn

    from slotlab.server.app import create_app

    overrides = {"database_url": db_url} if db_url else {}
    settings = Settings(**overrides)  # type: ignore[arg-type]
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # At INFO an operator reads what the server is (version, database, games) and where it
    # listens; the migration tool's and uvicorn's start-up chatter goes to WARNING.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    db = Database(settings.database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms)
    db.migrate()
    db.dispose()
    app = create_app(settings)
    # Long-lived start-up objects (models, compiled kernels, the app) leave the collector's
    # view, and young collections run less often: fewer pauses in the latency tail.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    logging.getLogger("slotlab.server").info("starting on http://%s:%d", host, port)
    # proxy_headers off: SLOTLAB_TRUSTED_PROXIES alone decides whose X-Forwarded-For is believed.
    uvicorn.run(app, host=host, port=port, log_level="warning", proxy_headers=False,
                access_log=settings.access_log, timeout_graceful_shutdown=5)


if __name__ == "__main__":  # python -m slotlab.server.main [host] [port] [db]
    import sys

    a = sys.argv[1:]
    run(a[0] if a else "127.0.0.1", int(a[1]) if len(a) > 1 else 8000, a[2] if len(a) > 2 else None)
