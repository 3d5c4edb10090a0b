"""Player limits (R19: losses and deposits over a day, a week, a month, raised only after a
cooling-off day) and reality-check acknowledgements per session.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "player_limits",
        sa.Column("player_id", sa.BigInteger(), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("period", sa.String(16), primary_key=True),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("pending_amount", sa.BigInteger(), nullable=True),
        sa.Column("pending_from", TS, nullable=True),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "reality_checks",
        sa.Column("session_id", sa.BigInteger(), primary_key=True),
        sa.Column("acknowledged_at", TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reality_checks")
    op.drop_table("player_limits")
