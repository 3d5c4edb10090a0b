"""Periodic jobs: each runs in exactly one server process per interval (the maintenance sweep,
the integrity check of each host), claimed under a database lock.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "periodic_jobs",
        sa.Column("name", sa.String(300), primary_key=True),
        sa.Column("next_due_at", TS, nullable=False),
        sa.Column("running_until", TS, nullable=True),
        sa.Column("holder", sa.String(300), nullable=True),
        sa.Column("last_run_at", TS, nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("periodic_jobs")
