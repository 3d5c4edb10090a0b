"""Hash chains over the money records: each row shows whether it, or a row before it, changed.

Every ledger entry is chained per wallet (chain ``ledger:<wallet id>``) and every round, once it
reaches a final status (completed or cancelled), per player (chain ``rounds:<player id>``). A
chained row carries ``chain_seq`` (1, 2, ... along its chain) and ``chain_digest``:
``sha256(digest of the row before it + canonical content of the row)``, hex; ``chain_heads``
keeps each chain's last ``(seq, head)``. The database computes both in the transaction that
writes the row (triggers of migration 0016: PL/pgSQL on PostgreSQL, the ``slotlab_chain``
function below on SQLite), so no writer can forget it.

This module is the one definition of a row's canonical content and of the digest: the SQLite
function, the migration's backfill and the audit walk (:mod:`slotlab.ledger.chain_audit`) use
it, and the PL/pgSQL trigger computes the same bytes (a test holds them equal).

A round's chained content is what it decided and staked: its identity, model, bet, seeds,
choices, events and win in credits. Its settlement (status, outcome, the win paid in minor
units, jackpots) is left out: a malfunction void rewrites it after the round was chained, and
what was paid is in the round's chained ledger entries, which the audit ties to the round.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime

GENESIS = "0" * 64  # the "digest" before a chain's first row
SQLITE_FUNCTION = "slotlab_chain"
FINAL_STATUSES = ("completed", "cancelled")  # a round is chained when it reaches one

# The chained columns of each table, in the order their content lists them.
LEDGER_COLUMNS = ("id", "wallet_id", "kind", "amount", "balance_after", "round_id", "ref",
                  "created_at")
ROUND_COLUMNS = ("seq", "id", "player_id", "game_id", "model_hash", "variant", "code_version",
                 "currency", "denomination", "bet_credits", "bet", "win_credits", "seeds",
                 "choices", "auto_seeds", "events", "free_round_id", "created_at")
TABLES = {"ledger_entries": ("ledger", "wallet_id", "id", LEDGER_COLUMNS),
          "rounds": ("rounds", "player_id", "seq", ROUND_COLUMNS)}
TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"  # SQLAlchemy's SQLite text; to_char(.. 'HH24:MI:SS.US')

Value = str | int | None


def text_of(value: object) -> str | None:
    """A column's value as the text the content is made of: integers in decimal, times in UTC
    as ``YYYY-MM-DD HH:MM:SS.ffffff``, JSON as its stored text."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):  # no chained column is boolean; refuse rather than guess
        raise TypeError("a boolean in chained content")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime(TIME_FORMAT)
    raise TypeError(f"cannot chain a {type(value).__name__}")


def content(tag: str, values: Sequence[object]) -> str:
    """A row's canonical content: the table's tag, then each value length-prefixed (``-`` for
    NULL), so that no two different rows have the same content."""
    parts = [tag]
    for v in values:
        t = text_of(v)
        parts.append("-" if t is None else f"{len(t)}:{t}")
    return "|".join(parts)


def digest(prev: str, row_content: str) -> str:
    return hashlib.sha256((prev + row_content).encode("utf-8")).hexdigest()


def chain_id(tag: str, owner: int) -> str:
    return f"{tag}:{owner}"


def _sqlite_chain(prev: str, tag: str, *values: Value) -> str:
    return digest(prev, content(tag, values))


def register_sqlite(con: sqlite3.Connection) -> None:
    """Give an SQLite connection the function the chain triggers call; a connection without it
    cannot write a ledger entry or finish a round (the insert fails: fail closed)."""
    con.create_function(SQLITE_FUNCTION, -1, _sqlite_chain, deterministic=True)


def raw_columns(table: str, dialect: str) -> list[str]:
    """SQL for a table's chained columns as the content reads them: on PostgreSQL times as UTC
    text and JSON as its stored text (the trigger's own expressions); SQLite stores both as
    text already."""
    columns = TABLES[table][3]
    if dialect != "postgresql":
        return list(columns)
    out = []
    for c in columns:
        if c == "created_at":
            out.append("to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')")
        elif c in ("seeds", "choices", "auto_seeds", "events"):
            out.append(f"{c}::text")
        else:
            out.append(c)
    return out


def final_rounds_sql() -> str:
    return "status IN (" + ", ".join(f"'{s}'" for s in FINAL_STATUSES) + ")"
