"""The store: migrations match the models on both back-ends; URLs; engine settings."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import MetaData, inspect, text

from slotlab.store import Database, normalize_url
from slotlab.store.models import Base
from slotlab.store.operator_wallet import OpsBase


def _all_models() -> MetaData:
    """The server's tables and the operator-wallet operations log (its own metadata)."""
    combined = MetaData()
    for md in (Base.metadata, OpsBase.metadata):
        for table in md.tables.values():
            table.to_metadata(combined)
    return combined


def test_migrations_create_exactly_the_models(database):
    db = Database(database.url)
    try:
        db.migrate()
        db.migrate()  # idempotent
        with db.engine.connect() as c:
            diff = compare_metadata(MigrationContext.configure(c, opts={"compare_type": True}),
                                    _all_models())
            assert diff == []
            assert "ledger_entries" in inspect(c).get_table_names()
            assert "operator_wallet_ops" in inspect(c).get_table_names()
    finally:
        db.dispose()


def test_sqlite_runs_wal_with_busy_timeout(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'x.db'}", busy_timeout_ms=1234)
    try:
        with db.write() as s:
            assert s.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert s.execute(text("PRAGMA busy_timeout")).scalar() == 1234
            assert s.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    finally:
        db.dispose()


def test_normalize_url():
    assert normalize_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("sqlite:///x.db") == "sqlite:///x.db"


def test_group_commit_keeps_each_block_atomic(tmp_path):
    """Concurrent write blocks share commits, but a block that raises leaves no trace."""
    import threading

    from slotlab.store.models import AdminAction, utcnow

    db = Database(f"sqlite:///{tmp_path / 'g.db'}")
    db.migrate()
    errors = []

    def work(i: int) -> None:
        try:
            with db.write() as s:
                s.add(AdminAction(action="t", target=str(i), detail="", created_at=utcnow()))
                s.flush()
                if i % 3 == 0:
                    raise ValueError(i)
        except ValueError as e:
            errors.append(e.args[0])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(60)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with db.read() as s:
        kept = sorted(int(x) for x in s.scalars(text("SELECT target FROM admin_actions")))
    db.dispose()
    assert sorted(errors) == [i for i in range(60) if i % 3 == 0]
    assert kept == [i for i in range(60) if i % 3]


def test_the_store_never_imports_the_web_layer():
    """Persistence stays below the server: the store's modules and the migrations' sources
    import nothing from ``slotlab.server`` (the operator wallet's table lives in the store)."""
    import subprocess
    import sys
    from pathlib import Path

    import slotlab.store

    root = Path(slotlab.store.__file__).parent
    code = ("import sys, slotlab.store, slotlab.store.models, slotlab.store.operator_wallet, "
            "slotlab.store.model_sources; "
            "print(sorted(m for m in sys.modules if m.startswith('slotlab.server')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]", f"the store imports the server: {out}"
    sources = [root / "migrations" / "env.py", *(root / "migrations" / "versions").glob("*.py")]
    importing = [p.name for p in sources if "from slotlab.server" in p.read_text()
                 or "import slotlab.server" in p.read_text()]
    assert not importing, f"migrations import the server: {importing}"

