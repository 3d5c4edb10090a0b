"""Free Round Bonus packages (issue 5).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "free_round_packages",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("bet", sa.BigInteger, nullable=False),
        sa.Column("bet_credits", sa.BigInteger, nullable=False),
        sa.Column("denomination", sa.BigInteger, nullable=False),
        sa.Column("rounds_total", sa.Integer, nullable=False),
        sa.Column("rounds_left", sa.Integer, nullable=False),
        sa.Column("total_won", sa.BigInteger, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.CheckConstraint("rounds_left >= 0 AND rounds_left <= rounds_total",
                           name="ck_free_round_packages_rounds"),
    )
    op.create_index("ix_free_round_packages_player", "free_round_packages", ["player_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_free_round_packages_player", table_name="free_round_packages")
    op.drop_table("free_round_packages")
