"""Progressive pools per currency (issue 15): a game's pools are keyed by game, currency,
denomination and tier, so COP and EUR players of one game at one denomination feed and win
their own pools. Existing pools keep their currency (the server's, set when they were made).

SQLite cannot drop the old (unnamed) unique constraint: the table is made again. With foreign
keys on, a pools table that ``jackpot_entries`` refers to cannot be dropped, so the entries are
set aside in a plain copy, both tables are made again and the entries put back (same ids).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TS = sa.DateTime(timezone=True)
NEW = "uq_jackpot_pools_game_currency_denom_tier"
NEW_COLUMNS = ["game_id", "currency", "denomination", "tier"]
OLD_COLUMNS = ["game_id", "denomination", "tier"]
POOL_COLUMNS = "id, game_id, denomination, tier, currency, reset_micro, rate, value_micro"
ENTRY_COLUMNS = "id, pool_id, kind, amount_micro, value_after_micro, round_id, created_at"


def _pools_table(name: str, unique: sa.UniqueConstraint) -> None:
    op.create_table(
        name,
        sa.Column("id", BigId, primary_key=True),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("denomination", sa.BigInteger, nullable=False),
        sa.Column("tier", sa.String(32), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("reset_micro", sa.BigInteger, nullable=False),
        sa.Column("rate", sa.String(32), nullable=False),
        sa.Column("value_micro", sa.BigInteger, nullable=False),
        unique,
    )


def _sqlite_remake(unique: sa.UniqueConstraint) -> None:
    _pools_table("_jackpot_pools_new", unique)
    op.execute(f"INSERT INTO _jackpot_pools_new ({POOL_COLUMNS}) "
               f"SELECT {POOL_COLUMNS} FROM jackpot_pools")
    op.execute("CREATE TABLE _jackpot_entries_copy AS SELECT * FROM jackpot_entries")
    op.drop_index("ix_jackpot_entries_pool", table_name="jackpot_entries")
    op.drop_table("jackpot_entries")
    op.drop_table("jackpot_pools")
    op.rename_table("_jackpot_pools_new", "jackpot_pools")
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
    op.execute(f"INSERT INTO jackpot_entries ({ENTRY_COLUMNS}) "
               f"SELECT {ENTRY_COLUMNS} FROM _jackpot_entries_copy")
    op.drop_table("_jackpot_entries_copy")
    op.create_index("ix_jackpot_entries_pool", "jackpot_entries", ["pool_id", "id"])


def _swap(drop_columns: list[str], create_columns: list[str], create_name: str) -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_remake(sa.UniqueConstraint(*create_columns, name=create_name))
        return
    found = [u["name"] for u in sa.inspect(op.get_bind()).get_unique_constraints("jackpot_pools")
             if list(u["column_names"]) == drop_columns and u["name"]]
    for name in found:
        op.drop_constraint(name, "jackpot_pools", type_="unique")
    op.create_unique_constraint(create_name, "jackpot_pools", create_columns)


def upgrade() -> None:
    _swap(OLD_COLUMNS, NEW_COLUMNS, NEW)


def downgrade() -> None:
    # Back to one set per game and denomination: fails (unique violation) while two currencies
    # hold pools of one game at one denomination; remove one currency's pools first.
    _swap(NEW_COLUMNS, OLD_COLUMNS, "jackpot_pools_game_id_denomination_tier_key")
