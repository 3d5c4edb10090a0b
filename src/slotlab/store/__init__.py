"""Persistence: SQLAlchemy 2 tables, engine set-up (SQLite or PostgreSQL) and Alembic migrations.

The server is the only user of this package; the game core never imports it.
"""

from slotlab.store.engine import Database, make_engine, migrate, normalize_url

__all__ = ["Database", "make_engine", "migrate", "normalize_url"]
