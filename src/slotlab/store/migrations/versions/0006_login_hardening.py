"""Login hardening (issue 13): one account per username whatever its case, and login attempt
limits shared by every server process on the database.

``players.username_key`` is the lower-cased username under a unique index; the display form
stays in ``username``. Should an existing database already hold names that differ only by case,
the oldest account keeps the name and each later one gets the key ``<name>#<id>`` (it can no
longer log in; the admin calls find it under that key).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_limits",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
    )
    with op.batch_alter_table("players", recreate="never") as batch:
        batch.add_column(sa.Column("username_key", sa.String(64), nullable=True))
    op.execute("UPDATE players SET username_key = lower(username)")
    op.execute(
        "UPDATE players SET username_key = username_key || '#' || CAST(id AS VARCHAR(20)) "
        "WHERE EXISTS (SELECT 1 FROM players older WHERE older.username_key = players.username_key"
        " AND older.id < players.id)"
    )
    op.create_index("uq_players_username_key", "players", ["username_key"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_players_username_key", table_name="players")
    with op.batch_alter_table("players", recreate="never") as batch:
        batch.drop_column("username_key")
    op.drop_table("login_limits")
