"""Alembic environment: run by :func:`slotlab.store.engine.migrate` with an open connection."""

from __future__ import annotations

from typing import cast

from alembic import context
from sqlalchemy import create_engine

from slotlab.store.engine import normalize_url
from slotlab.store.models import Base
from slotlab.store.operator_wallet import OpsBase

config = context.config
# The operator-wallet operations log has its own metadata (migration 0003 creates it).
target_metadata = [Base.metadata, OpsBase.metadata]


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:  # the alembic command line: `alembic -x url=... upgrade head`
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    engine = create_engine(normalize_url(cast(str, url)))
    with engine.begin() as conn:
        _run(conn)
