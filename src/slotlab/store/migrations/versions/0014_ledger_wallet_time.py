"""An index on a wallet's ledger entries by time: the session's net position, shown with every
round where the profile asks for it, sums a wallet's entries since the session began.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_ledger_wallet_time", "ledger_entries", ["wallet_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_ledger_wallet_time", table_name="ledger_entries")
