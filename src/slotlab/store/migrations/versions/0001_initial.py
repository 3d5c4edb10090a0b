"""Initial schema: players, wallets, ledger, sessions, rounds, idempotency keys, jackpot pools.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)
LIVE = sa.text("status IN ('open', 'awaiting_choice', 'crediting')")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("username", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("failed_logins", sa.Integer, nullable=False),
        sa.Column("locked_until", TS, nullable=True),
        sa.Column("jurisdiction", sa.String(16), nullable=True),
        sa.Column("last_round_at", TS, nullable=True),
    )
    op.create_table(
        "wallets",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False,
                  unique=True),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.CheckConstraint("balance >= 0", name="ck_wallets_balance_nonneg"),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("wallet_id", sa.BigInteger, sa.ForeignKey("wallets.id"), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("round_id", sa.String(32), nullable=True),
        sa.Column("ref", sa.String(300), nullable=False, unique=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_ledger_wallet", "ledger_entries", ["wallet_id", "id"])
    op.create_index("ix_ledger_entries_round_id", "ledger_entries", ["round_id"])
    op.create_table(
        "sessions",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("last_seen", TS, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
    )
    op.create_index("ix_sessions_player_id", "sessions", ["player_id"])
    op.create_table(
        "rounds",
        sa.Column("seq", BigId, primary_key=True),
        sa.Column("id", sa.String(32), nullable=False, unique=True),
        sa.Column("player_id", sa.BigInteger, sa.ForeignKey("players.id"), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("model_hash", sa.String(128), nullable=False),
        sa.Column("code_version", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("denomination", sa.BigInteger, nullable=False),
        sa.Column("bet_credits", sa.BigInteger, nullable=False),
        sa.Column("bet", sa.BigInteger, nullable=False),
        sa.Column("win_credits", sa.BigInteger, nullable=False),
        sa.Column("win", sa.BigInteger, nullable=False),
        sa.Column("uncapped_win", sa.BigInteger, nullable=False),
        sa.Column("jackpot_win", sa.BigInteger, nullable=False),
        sa.Column("jackpots", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seeds", sa.JSON, nullable=False),
        sa.Column("choices", sa.JSON, nullable=False),
        sa.Column("auto_seeds", sa.JSON, nullable=False),
        sa.Column("events", sa.JSON, nullable=True),
        sa.Column("awaiting", sa.JSON, nullable=True),
        sa.Column("step", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(24), nullable=True),
        sa.Column("notice_pending", sa.Boolean, nullable=False),
        sa.Column("free_round_id", sa.BigInteger, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("completed_at", TS, nullable=True),
    )
    op.create_index("uq_rounds_one_live", "rounds", ["player_id"], unique=True,
                    sqlite_where=LIVE, postgresql_where=LIVE)
    op.create_index("ix_rounds_player_seq", "rounds", ["player_id", "seq"])
    op.create_index("ix_rounds_status", "rounds", ["status"])
    op.create_table(
        "idempotency_keys",
        sa.Column("owner", sa.String(40), primary_key=True),
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("round_id", sa.String(32), nullable=True),
        sa.Column("status_code", sa.Integer, nullable=True),
        sa.Column("response", sa.JSON, nullable=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_idempotency_keys_created_at", "idempotency_keys", ["created_at"])
    op.create_table(
        "jackpot_pools",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("denomination", sa.BigInteger, nullable=False),
        sa.Column("tier", sa.String(32), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("reset_micro", sa.BigInteger, nullable=False),
        sa.Column("rate", sa.String(32), nullable=False),
        sa.Column("value_micro", sa.BigInteger, nullable=False),
        sa.UniqueConstraint("game_id", "denomination", "tier"),
    )
    op.create_table(
        "jackpot_entries",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("pool_id", sa.BigInteger, sa.ForeignKey("jackpot_pools.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount_micro", sa.BigInteger, nullable=False),
        sa.Column("value_after_micro", sa.BigInteger, nullable=False),
        sa.Column("round_id", sa.String(32), nullable=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_jackpot_entries_pool", "jackpot_entries", ["pool_id", "id"])
    op.create_table(
        "admin_actions",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(64), nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )


def downgrade() -> None:
    for table in ("admin_actions", "jackpot_entries", "jackpot_pools", "idempotency_keys",
                  "rounds", "sessions", "ledger_entries", "wallets", "players"):
        op.drop_table(table)
