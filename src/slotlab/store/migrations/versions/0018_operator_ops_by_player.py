"""An index on the operator wallet's operations by the operator's player id and time: the
session's net position in operator-wallet mode (shown with every round under a profile that
asks for it, and in each reality check) sums the player's operations since the session began,
found by it. Before, the sum was found from every operation done since then, of every player,
where the tables' statistics were not there yet to steer the planner away (measured: 17 ms a
round and most of PostgreSQL's time in the operator-wallet production mix).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_operator_wallet_ops_player_time", "operator_wallet_ops",
                    ["player_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_operator_wallet_ops_player_time", table_name="operator_wallet_ops")
