"""Provably fair seed pairs: a player's secret server seed, its commitment, the client seed and
the counter of derived round seeds (slotlab/fairness.py).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "fairness_pairs",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("player_id", sa.BigInteger(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("client_seed", sa.String(64), nullable=False),
        sa.Column("counter", sa.BigInteger(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("revealed_at", TS, nullable=True),
    )
    op.create_index("ix_fairness_pairs_player", "fairness_pairs", ["player_id", "revealed_at"])
    op.create_index("uq_fairness_pairs_active", "fairness_pairs", ["player_id"], unique=True,
                    sqlite_where=sa.text("revealed_at IS NULL"),
                    postgresql_where=sa.text("revealed_at IS NULL"))


def downgrade() -> None:
    op.drop_index("uq_fairness_pairs_active", "fairness_pairs")
    op.drop_index("ix_fairness_pairs_player", "fairness_pairs")
    op.drop_table("fairness_pairs")
