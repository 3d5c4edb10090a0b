"""Malfunction voids of rounds (completed ones too): one row per voided round, naming the
incident and what was reversed.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "round_voids",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("round_id", sa.String(32), nullable=False, unique=True),
        sa.Column("incident_id", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("round_status", sa.String(16), nullable=False),
        sa.Column("bet", sa.BigInteger, nullable=False),
        sa.Column("paid", sa.BigInteger, nullable=False),
        sa.Column("bet_returned", sa.BigInteger, nullable=False),
        sa.Column("win_reversed", sa.BigInteger, nullable=False),
        sa.Column("shortfall", sa.BigInteger, nullable=False),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("completed_at", TS, nullable=True),
    )
    op.create_index("ix_round_voids_incident", "round_voids", ["incident_id"])


def downgrade() -> None:
    op.drop_index("ix_round_voids_incident", table_name="round_voids")
    op.drop_table("round_voids")
