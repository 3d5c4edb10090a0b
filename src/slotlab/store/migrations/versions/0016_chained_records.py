"""Hash chains over ledger entries (per wallet) and final rounds (per player): each row carries
its place in its chain and a digest of its content and of the row before it, computed by
triggers in the transaction that writes it; ``chain_heads`` keeps each chain's last link.
Rows already stored are chained here, in the order they were written (slotlab.store.chain).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from collections import defaultdict

import sqlalchemy as sa
from alembic import op

from slotlab.store import chain

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

_FINAL = chain.final_rounds_sql()


def upgrade() -> None:
    for table in chain.TABLES:
        op.add_column(table, sa.Column("chain_seq", sa.BigInteger, nullable=True))
        op.add_column(table, sa.Column("chain_digest", sa.String(64), nullable=True))
    op.create_table(
        "chain_heads",
        sa.Column("chain", sa.String(64), primary_key=True),
        sa.Column("seq", sa.BigInteger, nullable=False),
        sa.Column("head", sa.String(64), nullable=False),
    )
    conn = op.get_bind()
    dialect = conn.dialect.name
    for table in chain.TABLES:
        _backfill(conn, table, dialect)
    for statement in (_postgres() if dialect == "postgresql" else _sqlite()):
        op.execute(statement)


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS chain_ledger ON ledger_entries")
        op.execute("DROP TRIGGER IF EXISTS chain_round ON rounds")
        op.execute("DROP TRIGGER IF EXISTS chain_wallet_gone ON wallets")
        op.execute("DROP TRIGGER IF EXISTS chain_player_gone ON players")
        for fn in ("slotlab_chain_ledger", "slotlab_chain_round", "slotlab_chain_wallet_gone",
                   "slotlab_chain_player_gone"):
            op.execute(f"DROP FUNCTION IF EXISTS {fn}()")
    else:
        for trigger in ("chain_ledger", "chain_round_insert", "chain_round_final",
                        "chain_wallet_gone", "chain_player_gone"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    op.drop_table("chain_heads")
    for table in chain.TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("chain_digest")
            batch.drop_column("chain_seq")


def _backfill(conn: sa.Connection, table: str, dialect: str) -> None:
    """Chain the stored rows, per owner in the order they were written."""
    tag, owner, order, _ = chain.TABLES[table]
    where = f"WHERE {_FINAL}" if table == "rounds" else ""
    rows = conn.execute(sa.text(
        f"SELECT {owner}, {order}, {', '.join(chain.raw_columns(table, dialect))} "
        f"FROM {table} {where} ORDER BY {owner}, {order}"))
    heads: dict[str, tuple[int, str]] = defaultdict(lambda: (0, chain.GENESIS))
    links = []
    for row in rows:
        name = chain.chain_id(tag, row[0])
        seq, prev = heads[name]
        d = chain.digest(prev, chain.content(tag, row[2:]))
        heads[name] = (seq + 1, d)
        links.append({"k": row[1], "s": seq + 1, "d": d})
    if links:
        conn.execute(sa.text(f"UPDATE {table} SET chain_seq = :s, chain_digest = :d "
                             f"WHERE {order} = :k"), links)
    if heads:
        conn.execute(sa.text("INSERT INTO chain_heads (chain, seq, head) VALUES (:c, :s, :h)"),
                     [{"c": c, "s": s, "h": h} for c, (s, h) in heads.items()])


def _pg_content(table: str) -> str:
    """The PL/pgSQL expression of a row's canonical content (chain.content on NEW)."""
    tag, _, _, columns = chain.TABLES[table]
    parts = [f"'{tag}'"]
    for c in columns:
        # Times as UTC text, JSON as its stored text, numbers in decimal.
        v = ("to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')"
             if c == "created_at" else f"NEW.{c}::text")
        parts.append(f"coalesce(length({v})::text || ':' || {v}, '-')")  # chain.content
    return " || '|' || ".join(parts)


def _pg_link(table: str) -> str:
    """Advance the row's chain and put its place and digest on the row. The head is updated in
    place (one index probe, one digest); only a chain's first row inserts it."""
    tag, owner, _, _ = chain.TABLES[table]
    step = "encode(sha256(convert_to({prev} || c, 'UTF8')), 'hex')"
    return f"""
  c := {_pg_content(table)};
  UPDATE chain_heads SET seq = seq + 1, head = {step.format(prev="head")}
  WHERE chain = '{tag}:' || NEW.{owner}
  RETURNING seq, head INTO NEW.chain_seq, NEW.chain_digest;
  IF NOT FOUND THEN
    INSERT INTO chain_heads AS h (chain, seq, head)
    VALUES ('{tag}:' || NEW.{owner}, 1, {step.format(prev=repr(chain.GENESIS))})
    ON CONFLICT (chain) DO UPDATE SET seq = h.seq + 1, head = {step.format(prev="h.head")}
    RETURNING h.seq, h.head INTO NEW.chain_seq, NEW.chain_digest;
  END IF;
  RETURN NEW;"""


def _postgres() -> list[str]:
    return [
        f"""CREATE OR REPLACE FUNCTION slotlab_chain_ledger() RETURNS trigger
           LANGUAGE plpgsql AS $$
DECLARE c text;
BEGIN{_pg_link("ledger_entries")}
END $$""",
        f"""CREATE OR REPLACE FUNCTION slotlab_chain_round() RETURNS trigger
           LANGUAGE plpgsql AS $$
DECLARE c text;
BEGIN
  IF NOT NEW.{_FINAL} OR (TG_OP = 'UPDATE' AND OLD.chain_seq IS NOT NULL) THEN
    RETURN NEW;
  END IF;{_pg_link("rounds")}
END $$""",
        # A demo player's chains go with the player (services/demo.py deletes everything it
        # played); anyone else's head stays, so rows deleted under it show.
        """CREATE OR REPLACE FUNCTION slotlab_chain_wallet_gone() RETURNS trigger
           LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM chain_heads WHERE chain = 'ledger:' || OLD.id
    AND EXISTS (SELECT 1 FROM players p WHERE p.id = OLD.player_id AND p.demo);
  RETURN OLD;
END $$""",
        """CREATE OR REPLACE FUNCTION slotlab_chain_player_gone() RETURNS trigger
           LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.demo THEN
    DELETE FROM chain_heads WHERE chain = 'rounds:' || OLD.id;
  END IF;
  RETURN OLD;
END $$""",
        """CREATE TRIGGER chain_ledger BEFORE INSERT ON ledger_entries
           FOR EACH ROW EXECUTE FUNCTION slotlab_chain_ledger()""",
        """CREATE TRIGGER chain_round BEFORE INSERT OR UPDATE OF status ON rounds
           FOR EACH ROW EXECUTE FUNCTION slotlab_chain_round()""",
        """CREATE TRIGGER chain_wallet_gone AFTER DELETE ON wallets
           FOR EACH ROW EXECUTE FUNCTION slotlab_chain_wallet_gone()""",
        """CREATE TRIGGER chain_player_gone AFTER DELETE ON players
           FOR EACH ROW EXECUTE FUNCTION slotlab_chain_player_gone()""",
    ]


def _sqlite_link(table: str) -> str:
    """Trigger body: advance the chain with the application's function, then stamp the row."""
    tag, owner, order, columns = chain.TABLES[table]
    name = f"'{tag}:' || NEW.{owner}"
    values = ", ".join(f"NEW.{c}" for c in columns)
    return f"""
  INSERT OR IGNORE INTO chain_heads (chain, seq, head) VALUES ({name}, 0, '{chain.GENESIS}');
  UPDATE chain_heads SET seq = seq + 1,
    head = {chain.SQLITE_FUNCTION}(head, '{tag}', {values}) WHERE chain = {name};
  UPDATE {table} SET (chain_seq, chain_digest) =
    (SELECT seq, head FROM chain_heads WHERE chain = {name}) WHERE {order} = NEW.{order};"""


def _sqlite() -> list[str]:
    final = "NEW." + _FINAL
    return [
        f"""CREATE TRIGGER chain_ledger AFTER INSERT ON ledger_entries
BEGIN{_sqlite_link("ledger_entries")}
END""",
        f"""CREATE TRIGGER chain_round_insert AFTER INSERT ON rounds WHEN {final}
BEGIN{_sqlite_link("rounds")}
END""",
        f"""CREATE TRIGGER chain_round_final AFTER UPDATE OF status ON rounds
WHEN {final} AND OLD.chain_seq IS NULL
BEGIN{_sqlite_link("rounds")}
END""",
        """CREATE TRIGGER chain_wallet_gone AFTER DELETE ON wallets
WHEN (SELECT p.demo FROM players p WHERE p.id = OLD.player_id)
BEGIN
  DELETE FROM chain_heads WHERE chain = 'ledger:' || OLD.id;
END""",
        """CREATE TRIGGER chain_player_gone AFTER DELETE ON players WHEN OLD.demo
BEGIN
  DELETE FROM chain_heads WHERE chain = 'rounds:' || OLD.id;
END""",
    ]
