"""The operator-wallet operations log (issue 5, seamless wallet): one row per debit, credit and
rollback sent to an operator (:mod:`slotlab.store.operator_wallet`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "operator_wallet_ops",
        sa.Column("id", BigId, primary_key=True),
        sa.Column("transaction_id", sa.String(200), nullable=False, unique=True),
        sa.Column("round_id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("reference_transaction_id", sa.String(200), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", TS, nullable=True),
        sa.Column("last_error", sa.String(300), nullable=True),
        sa.Column("balance", sa.BigInteger, nullable=True),
        sa.Column("response", sa.JSON, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("completed_at", TS, nullable=True),
        sa.Column("keep_until", TS, nullable=True),
    )
    op.create_index("ix_operator_wallet_ops_due", "operator_wallet_ops",
                    ["status", "next_attempt_at"])
    op.create_index("ix_operator_wallet_ops_round", "operator_wallet_ops", ["round_id"])


def downgrade() -> None:
    op.drop_index("ix_operator_wallet_ops_round", table_name="operator_wallet_ops")
    op.drop_index("ix_operator_wallet_ops_due", table_name="operator_wallet_ops")
    op.drop_table("operator_wallet_ops")
