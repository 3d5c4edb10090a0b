"""An index on the idempotency keys by round: when an operator-wallet round's credit is
confirmed, every stored answer of the round (its start's and its choices') is brought to the
round's final state, found by the round's id (and recovery, voids and the sweep look keys up the
same way). Without it each completion scanned every key.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_idempotency_keys_round_id", "idempotency_keys", ["round_id"])


def downgrade() -> None:
    op.drop_index("ix_idempotency_keys_round_id", table_name="idempotency_keys")
