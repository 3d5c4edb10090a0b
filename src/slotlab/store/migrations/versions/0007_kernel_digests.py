"""Kernel digests: each compiled-kernel cache file's SHA-256 as its host first loaded it, so that
a cache file changed afterwards takes its games out of play (software integrity, R21).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "kernel_digests",
        sa.Column("host", sa.String(255), primary_key=True),
        sa.Column("path", sa.String(500), primary_key=True),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("kernel_digests")
