"""Model sources by hash: every model version the server offered, so that a round keeps
replaying and resuming on its own model after the model file is edited or removed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "model_sources",
        sa.Column("model_hash", sa.String(64), primary_key=True),
        sa.Column("family", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(255), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("model_sources")
