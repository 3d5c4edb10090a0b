"""Walking the hash chains (:mod:`slotlab.store.chain`), and their heads exported and signed.

The walk recomputes every chained row's digest from its content and the stored digest of the
row before it, and checks that each chain's places run 1, 2, 3 ... up to its head in
``chain_heads``. Per chain it names the first row that breaks it (table, row, chain, place):

- a row whose content changed (or whose digest was rewritten) no longer matches its digest;
- a row deleted leaves a place missing (named at the row after it, or at the head);
- a row inserted, or rows reordered, carry places or digests that do not follow on;
- a ledger entry, or a final round, that the triggers never chained has no place.

A consistent rewrite (every digest recomputed after the change, the head too) passes the walk:
that is what the exported heads are for. :func:`export_heads` signs every chain's ``(seq,
head)`` with an HMAC key kept outside the database; :func:`check_heads` flags a chain whose
exported link is no longer in the stored chain.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from slotlab.store import chain

HEADS_FORMAT = "slotlab-chain-heads/1"


@dataclass(frozen=True)
class Break:
    """The first row of a chain that does not hold."""

    chain: str
    table: str | None  # None: the chain's head (rows missing at its end)
    row: str | None  # the row's id (ledger entry id, round id)
    seq: int | None
    problem: str


class _Chain:
    """One chain as the walk goes along it."""

    __slots__ = ("name", "prev", "seq", "wanted")

    def __init__(self, name: str, wanted: dict[int, str]) -> None:
        self.name = name
        self.seq = 0
        self.prev = chain.GENESIS
        self.wanted = wanted  # exported (seq -> head) to find on the way


def _select(table: str, dialect: str) -> str:
    owner = chain.TABLES[table][1]
    final = "" if table == "ledger_entries" else f"({chain.final_rounds_sql()}) AS final, "
    return (f"SELECT {owner} AS owner, id AS row_id, chain_seq, chain_digest, {final}"
            f"{', '.join(chain.raw_columns(table, dialect))} FROM {table} "
            f"ORDER BY {owner}, chain_seq")


def walk(s: Session, exported: dict[str, tuple[int, str]] | None = None) -> dict[str, Any]:
    """Walk every chain; with ``exported`` heads (chain -> (seq, head)), also check that each
    exported link is still in its chain."""
    dialect = s.get_bind().dialect.name
    heads = {r[0]: (int(r[1]), r[2]) for r in s.execute(
        text("SELECT chain, seq, head FROM chain_heads"))}
    exported = exported or {}
    breaks: dict[str, Break] = {}
    chains: dict[str, _Chain] = {}
    rows = 0
    for table, (tag, _, _, _) in chain.TABLES.items():
        for row in s.execute(text(_select(table, dialect))):
            rows += 1
            name = chain.chain_id(tag, row[0])
            c = chains.get(name)
            if c is None:
                c = chains[name] = _Chain(name, _wanted(exported, name))
            if name in breaks:
                continue
            problem = _link(c, table, row)
            if problem is not None:
                breaks[name] = Break(name, table, str(row[1]), row[2], problem)
    for name in sorted(set(heads) | set(chains) | set(exported)):
        if name in breaks:
            continue
        c = chains.get(name) or _Chain(name, _wanted(exported, name))
        head = heads.get(name, (0, chain.GENESIS))  # none yet: rounds still being played
        if name not in heads and name not in chains:
            breaks[name] = Break(name, None, None, exported[name][0],
                                 "an exported chain is gone from the database")
        elif head != (c.seq, c.prev):
            at = head[0]
            breaks[name] = Break(name, None, None, at,
                                 f"the chain's head is at place {at} but its rows end at "
                                 f"place {c.seq}" if at != c.seq
                                 else "the chain's head is not its last row's digest")
        elif c.wanted:
            seq = min(c.wanted)
            breaks[name] = Break(name, None, None, seq,
                                 f"the exported place {seq} is beyond the stored chain's end "
                                 f"({c.seq}): rows deleted and the chain rewritten")
    found = [asdict(b) for b in sorted(breaks.values(), key=lambda b: b.chain)]
    return {"ok": not found, "chains": len(set(heads) | set(chains)), "chained_rows": rows,
            "exported_chains_checked": len(exported), "broken_chains": found}


def _wanted(exported: dict[str, tuple[int, str]], name: str) -> dict[int, str]:
    if name not in exported:
        return {}
    seq, head = exported[name]
    return {seq: head}


def _link(c: _Chain, table: str, row: Any) -> str | None:
    """What is wrong with the next row of chain ``c`` (None: it holds); advances ``c``."""
    tag = chain.TABLES[table][0]
    seq, stored = row[2], row[3]
    values = row[5:] if table == "rounds" else row[4:]
    if seq is None:
        if table == "rounds" and not row[4]:
            return None  # a round still being played is chained when it ends
        return "the row is not chained (written without the chain triggers)"
    if seq != c.seq + 1:
        return (f"place {c.seq + 1} is missing before this row (deleted, or rows reordered)"
                if seq > c.seq + 1 else f"place {seq} appears twice (a row inserted)")
    if chain.digest(c.prev, chain.content(tag, values)) != stored:
        return ("the row's content does not match its digest: the row, or the digest of the "
                "row before it, was changed")
    if table == "rounds" and not row[4]:
        return "a chained round is no longer in a final status"
    c.seq, c.prev = seq, stored
    if seq in c.wanted and c.wanted.pop(seq) != stored:
        return ("this row differs from the head exported at its place: the chain was rewritten "
                "at or before this row")
    return None


def stored_heads(s: Session, include_demo: bool = False) -> dict[str, tuple[int, str]]:
    """Every chain's head (a demo player's chains, deleted with the player, left out)."""
    heads = {r[0]: (int(r[1]), r[2]) for r in s.execute(
        text("SELECT chain, seq, head FROM chain_heads"))}
    if include_demo:
        return heads
    demo_players = {str(r[0]) for r in s.execute(text("SELECT id FROM players WHERE demo"))}
    demo_wallets = {str(r[0]) for r in s.execute(text(
        "SELECT w.id FROM wallets w JOIN players p ON p.id = w.player_id WHERE p.demo"))}
    return {name: head for name, head in heads.items()
            if not ((name.startswith("rounds:") and name[7:] in demo_players)
                    or (name.startswith("ledger:") and name[7:] in demo_wallets))}


def _signed_text(body: dict[str, Any]) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def export_heads(s: Session, key: bytes, now: datetime | None = None) -> dict[str, Any]:
    """Every chain's head, signed (HMAC-SHA256 with ``key``): a file an operator keeps away
    from the database."""
    body = {"format": HEADS_FORMAT,
            "exported_at": (now or datetime.now(UTC)).isoformat(),
            "chains": {name: [seq, head] for name, (seq, head) in sorted(stored_heads(s).items())}}
    return {**body, "hmac_sha256": hmac.new(key, _signed_text(body), hashlib.sha256).hexdigest()}


class HeadsFileError(ValueError):
    """An exported heads file that cannot be trusted: unreadable, or its signature wrong."""


def read_heads(data: dict[str, Any], key: bytes) -> dict[str, tuple[int, str]]:
    """The chains of a heads file whose signature ``key`` verifies."""
    if not isinstance(data, dict) or data.get("format") != HEADS_FORMAT:
        raise HeadsFileError(f"not a {HEADS_FORMAT} file")
    body = {k: v for k, v in data.items() if k != "hmac_sha256"}
    want = hmac.new(key, _signed_text(body), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, str(data.get("hmac_sha256", ""))):
        raise HeadsFileError("the heads file's signature does not verify with this key")
    return {name: (int(seq), str(head)) for name, (seq, head) in data["chains"].items()}


def round_record_problems(s: Session, round_id: str) -> list[str]:
    """Whether one round's record holds in its chains: the round's row and each of its ledger
    entries match their digests, each chained on the stored digest of the row before it."""
    dialect = s.get_bind().dialect.name
    problems = []
    for table, match in (("rounds", "id"), ("ledger_entries", "round_id")):
        tag, owner, _, _ = chain.TABLES[table]
        query = _select(table, dialect).replace(" ORDER BY ", f" WHERE {match} = :rid ORDER BY ")
        for row in s.execute(text(query), {"rid": round_id}):
            seq = row[2]
            if seq is None:
                if table == "rounds" and not row[4]:
                    continue
                problems.append(f"{table} {row[1]}: not chained")
                continue
            prev = chain.GENESIS if seq == 1 else s.scalar(text(
                f"SELECT chain_digest FROM {table} WHERE {owner} = :o AND chain_seq = :q"),
                {"o": row[0], "q": seq - 1})
            values = row[5:] if table == "rounds" else row[4:]
            if prev is None:
                problems.append(f"{table} {row[1]}: the row before it in its chain is missing")
            elif chain.digest(prev, chain.content(tag, values)) != row[3]:
                problems.append(f"{table} {row[1]}: its content does not match its digest")
    return problems
