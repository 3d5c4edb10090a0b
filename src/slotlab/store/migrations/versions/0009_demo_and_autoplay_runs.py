"""Demo players (anonymous play money, issue 15) and autoplay runs (the server's record of each
autoplay run: its stop conditions, its rounds, why it stopped).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("players", recreate="never") as t:
        t.add_column(sa.Column("demo", sa.Boolean(), nullable=False,
                               server_default=sa.false()))
    op.create_index("ix_players_demo", "players", ["demo"],
                    sqlite_where=sa.text("demo"), postgresql_where=sa.text("demo"))
    op.create_table(
        "autoplay_runs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True,
                  autoincrement=True),
        sa.Column("player_id", sa.BigInteger(), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("session_id", sa.BigInteger(), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("jurisdiction", sa.String(16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("any_win", sa.Boolean(), nullable=False),
        sa.Column("single_win_above", sa.BigInteger(), nullable=True),
        sa.Column("balance_up_by", sa.BigInteger(), nullable=True),
        sa.Column("balance_down_by", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("stop_reason", sa.String(32), nullable=True),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("stopped_at", TS, nullable=True),
    )
    op.create_index("ix_autoplay_runs_player", "autoplay_runs", ["player_id", "id"])
    with op.batch_alter_table("rounds", recreate="never") as t:
        t.add_column(sa.Column("autoplay_run_id", sa.BigInteger(), nullable=True))
    op.create_index("ix_rounds_autoplay_run_id", "rounds", ["autoplay_run_id"])


def downgrade() -> None:
    op.drop_index("ix_rounds_autoplay_run_id", "rounds")
    with op.batch_alter_table("rounds", recreate="never") as t:
        t.drop_column("autoplay_run_id")
    op.drop_index("ix_autoplay_runs_player", "autoplay_runs")
    op.drop_table("autoplay_runs")
    op.drop_index("ix_players_demo", "players")
    with op.batch_alter_table("players", recreate="never") as t:
        t.drop_column("demo")
