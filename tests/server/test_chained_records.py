"""Records that show their own tampering (slotlab.store.chain): every ledger entry is chained
per wallet and every final round per player, by the database's triggers in the transaction that
writes the row; the audit walks the chains and names the first broken row; replay checks the
round's record against its chain; heads exported and signed catch a consistent rewrite.

Each tampering is what an insider with write access to the database would do, run on the real
database file or PostgreSQL schema under a running server: the audit (``/api/admin/audit``, and
``slotlab audit``, a real subprocess) must name the row.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from slotlab.ledger.chain_audit import walk
from slotlab.store import Database as Store
from slotlab.store import chain, migrate, normalize_url
from slotlab.store.models import utcnow

from .server_util import Database, LiveServer, key

GAME = "classic-3x3"
BET = 5


@pytest.fixture
def serve(serve_games: Callable[..., LiveServer]) -> Callable[..., LiveServer]:
    return functools.partial(serve_games, GAME)


@pytest.fixture
def store(database: Database) -> Iterator[Store]:
    """The test's database as an insider reaches it (the chain function registered on SQLite,
    as anyone with the source can)."""
    s = Store(database.url)
    yield s
    s.dispose()


def _play(srv: LiveServer, rounds: int = 30) -> tuple[Any, list[str]]:
    """A player who played ``rounds`` rounds, some won and some lost (the seeds are fresh: a
    run without both would be a broken game, not bad luck, at 30 rounds of classic-3x3). A win
    offers a gamble, collected by a choice: that round ends on the general path."""
    c, _ = srv.player()
    ids = []
    for _ in range(rounds):
        r = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key())
        assert r.status_code == 201, r.text
        body = r.json()
        while body["status"] == "awaiting_choice":
            r = c.post(f"/api/rounds/{body['round_id']}/choices",
                       json={"choice": "collect", "step": body["step"]}, headers=key())
            assert r.status_code in (200, 201), r.text
            body = r.json()
        assert body["status"] == "completed"
        ids.append(body["round_id"])
    return c, ids


def _one(store: Store, sql: str, **params: Any) -> Any:
    with store.read() as s:
        return s.execute(text(sql), params).one()


def _won_round(store: Store, ids: list[str], jackpots: bool = False) -> tuple[str, int]:
    with store.read() as s:
        rows = s.execute(text("SELECT id, win, jackpot_win FROM rounds WHERE win > 0"
                              " AND status = 'completed'")).all()
    won = [(r[0], int(r[1])) for r in rows if r[0] in ids and (jackpots or not r[2])]
    assert won, "no round won"
    return won[0]


def _lost_round(store: Store, ids: list[str]) -> str:
    with store.read() as s:
        lost = [r[0] for r in s.execute(text(
            "SELECT id FROM rounds WHERE win = 0 AND jackpot_win = 0 AND status = 'completed'"
            " ORDER BY seq")) if r[0] in ids]
    assert lost, "no round lost"
    return lost[0]


def _entry(store: Store, round_id: str, kind: str) -> tuple[int, int, int]:
    """(id, wallet id, chain place) of a round's ledger entry."""
    row = _one(store, "SELECT id, wallet_id, chain_seq FROM ledger_entries WHERE round_id = :r"
                      " AND kind = :k", r=round_id, k=kind)
    return int(row[0]), int(row[1]), int(row[2])


def _audit(srv: LiveServer) -> dict[str, Any]:
    r = srv.admin().get("/api/admin/audit")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _named(audit: dict[str, Any]) -> set[tuple[str, str | None, str | None, int | None]]:
    return {(b["chain"], b["table"], b["row"], b["seq"]) for b in audit["broken_chains"]}


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "slotlab.cli", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


def _rechain(store: Store) -> None:
    """What a careful forger does after the change: every digest and head recomputed, in each
    chain's order, with the project's own definition (the source is public)."""
    with store.write() as s:
        dialect = s.get_bind().dialect.name
        for table, (tag, owner, order, _) in chain.TABLES.items():
            rows = s.execute(text(
                f"SELECT {owner}, {order}, {', '.join(chain.raw_columns(table, dialect))} "
                f"FROM {table} WHERE chain_seq IS NOT NULL ORDER BY {owner}, chain_seq")).all()
            heads: dict[str, tuple[int, str]] = {}
            for row in rows:
                name = chain.chain_id(tag, row[0])
                seq, prev = heads.get(name, (0, chain.GENESIS))
                d = chain.digest(prev, chain.content(tag, row[2:]))
                heads[name] = (seq + 1, d)
                s.execute(text(f"UPDATE {table} SET chain_seq = :q, chain_digest = :d "
                               f"WHERE {order} = :k"), {"q": seq + 1, "d": d, "k": row[1]})
            for name, (seq, head) in heads.items():
                s.execute(text("UPDATE chain_heads SET seq = :q, head = :h WHERE chain = :c"),
                          {"q": seq, "h": head, "c": name})


def _key_file(tmp_path: Path) -> Path:
    path = tmp_path / "heads.key"
    path.write_bytes(os.urandom(32).hex().encode())
    return path


def test_every_row_is_chained_in_its_own_transaction_and_the_audit_is_clean(serve, store):
    """Rounds played on the fast path and the general path: every ledger entry and every final
    round carries its place and a digest the audit recomputes (in Python) and finds equal, so
    the trigger (PL/pgSQL on PostgreSQL) and the Python definition agree byte for byte."""
    srv = serve()
    _play(srv, 20)
    c, _ = srv.player()
    assert c.post(f"/api/games/{GAME}/rounds", json={"bet": 10**9}, headers=key()
                  ).status_code != 201  # refused: nothing written, nothing chained
    audit = _audit(srv)
    assert audit["ok"], audit
    with store.read() as s:
        unchained = s.execute(text("SELECT count(*) FROM ledger_entries WHERE chain_seq IS NULL"
                                   " OR chain_digest IS NULL")).scalar()
        entries = s.execute(text("SELECT count(*) FROM ledger_entries")).scalar()
        final = s.execute(text("SELECT count(*) FROM rounds WHERE chain_seq IS NOT NULL AND "
                               + chain.final_rounds_sql())).scalar()
        heads = dict(s.execute(text("SELECT chain, seq FROM chain_heads")).all())
        wallets = dict(s.execute(text("SELECT wallet_id, count(*) FROM ledger_entries GROUP BY "
                                      "wallet_id")).all())
    assert unchained == 0 and entries and final == 20
    for wallet, n in wallets.items():
        assert heads[f"ledger:{wallet}"] == n


def test_a_raised_win_with_its_ledger_entry_and_balance_is_named(serve, store):
    """Tampering 1: the round's win, its win entry, the balances after it and the wallet all
    raised together (the money adds up; replay alone caught it before). The audit names the
    win entry in the wallet's chain and the round in the player's."""
    srv = serve()
    c, ids = _play(srv)
    rid, _ = _won_round(store, ids)
    entry, wallet, seq = _entry(store, rid, "win")
    denom = _one(store, "SELECT denomination FROM rounds WHERE id = :r", r=rid)[0]
    raise_by = 1000 * denom
    with store.write() as s:
        s.execute(text("UPDATE rounds SET win = win + :x, uncapped_win = uncapped_win + :x, "
                       "win_credits = win_credits + 1000 WHERE id = :r"),
                  {"x": raise_by, "r": rid})
        s.execute(text("UPDATE ledger_entries SET amount = amount + :x WHERE id = :e"),
                  {"x": raise_by, "e": entry})
        s.execute(text("UPDATE ledger_entries SET balance_after = balance_after + :x "
                       "WHERE wallet_id = :w AND id >= :e"),
                  {"x": raise_by, "w": wallet, "e": entry})
        s.execute(text("UPDATE wallets SET balance = balance + :x WHERE id = :w"),
                  {"x": raise_by, "w": wallet})
    audit = _audit(srv)
    assert audit["bad_wallets"] == [] and audit["bad_rounds"] == []  # the money adds up
    assert not audit["ok"]
    player = _one(store, "SELECT player_id, chain_seq FROM rounds WHERE id = :r", r=rid)
    assert _named(audit) == {(f"ledger:{wallet}", "ledger_entries", str(entry), seq),
                             (f"rounds:{player[0]}", "rounds", rid, player[1])}
    replay = c.get(f"/api/rounds/{rid}/replay").json()
    assert replay["identical"] is False and replay["record_intact"] is False


def test_a_raised_ledger_win_alone_is_named_and_replay_sees_it(serve, store):
    """Tampering 2: only the win entry raised. Replay used to call the round identical."""
    srv = serve()
    c, ids = _play(srv)
    rid, _ = _won_round(store, ids)
    entry, wallet, seq = _entry(store, rid, "win")
    with store.write() as s:
        s.execute(text("UPDATE ledger_entries SET amount = amount + 500 WHERE id = :e"),
                  {"e": entry})
    audit = _audit(srv)
    assert (f"ledger:{wallet}", "ledger_entries", str(entry), seq) in _named(audit)
    assert len(audit["broken_chains"]) == 1
    replay = c.get(f"/api/rounds/{rid}/replay").json()
    assert replay["identical"] is False
    assert replay["payments_identical"] is False and replay["record_intact"] is False
    assert replay["record_problems"] == [f"ledger_entries {entry}: its content does not match "
                                         "its digest"]


def test_a_round_forged_consistently_is_caught_against_the_exported_heads(
        serve, store, database, tmp_path):
    """Tampering 3: a lost round rewritten as a won one (another round's seeds, events and win),
    its win entry added, the balance raised, and then every chain recomputed. The audit and
    replay cannot tell (shown first); the heads exported before the forgery can."""
    srv = serve()
    c, ids = _play(srv)
    key_file, heads = _key_file(tmp_path), tmp_path / "heads.json"
    out = _cli("chain-heads", "export", "--db", database.url, "--key-file", str(key_file),
               "--out", str(heads))
    assert out.returncode == 0, out.stderr
    clean = _cli("audit", "--db", database.url, "--heads", str(heads), "--key-file",
                 str(key_file))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert json.loads(clean.stdout)["exported_chains_checked"] >= 2
    won, win = _won_round(store, ids)
    lost = _lost_round(store, ids)
    _, wallet, _ = _entry(store, lost, "bet")
    with store.write() as s:
        s.execute(text(
            "UPDATE rounds SET (seeds, choices, auto_seeds, events, win_credits, win, "
            "uncapped_win) = (SELECT seeds, choices, auto_seeds, events, win_credits, win, "
            "uncapped_win FROM rounds WHERE id = :won) WHERE id = :lost"),
            {"won": won, "lost": lost})
        balance = s.execute(text("SELECT balance FROM wallets WHERE id = :w"),
                            {"w": wallet}).scalar_one()
        s.execute(text("INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, "
                       "round_id, ref, created_at) VALUES (:w, 'win', :a, :b, :r, :ref, :t)"),
                  {"w": wallet, "a": win, "b": balance + win, "r": lost,
                   "ref": f"round:{lost}:win", "t": utcnow()})
        s.execute(text("UPDATE wallets SET balance = :b WHERE id = :w"),
                  {"b": balance + win, "w": wallet})
    _rechain(store)
    assert _audit(srv)["ok"]  # consistent: without the exported heads nothing shows
    assert c.get(f"/api/rounds/{lost}/replay").json()["identical"] is True
    caught = _cli("audit", "--db", database.url, "--heads", str(heads), "--key-file",
                  str(key_file))
    assert caught.returncode == 1, caught.stdout + caught.stderr
    # The head exported was the player's last round then: the chain differs there, so a row at
    # or before it was rewritten.
    player = _one(store, "SELECT player_id FROM rounds WHERE id = :r", r=lost)[0]
    broken = json.loads(caught.stdout)["broken_chains"]
    assert [(b["chain"], b["table"], b["row"], b["seq"]) for b in broken] == [
        (f"rounds:{player}", "rounds", ids[-1], len(ids))]
    assert "rewritten" in broken[0]["problem"]


def test_a_deleted_ledger_entry_is_named_where_its_place_is_missing(serve, store):
    """Tampering 4: a round's bet entry deleted and the balance put to the sum of what is left
    (the wallet reconciles). The next entry of the wallet is named: a place is missing."""
    srv = serve()
    _, ids = _play(srv)
    rid = ids[3]
    entry, wallet, seq = _entry(store, rid, "bet")
    with store.write() as s:
        s.execute(text("DELETE FROM ledger_entries WHERE id = :e"), {"e": entry})
        s.execute(text("UPDATE wallets SET balance = (SELECT sum(amount) FROM ledger_entries "
                       "WHERE wallet_id = :w) WHERE id = :w"), {"w": wallet})
        after = s.execute(text("SELECT id FROM ledger_entries WHERE wallet_id = :w AND "
                               "chain_seq = :q"), {"w": wallet, "q": seq + 1}).scalar_one()
    audit = _audit(srv)
    assert audit["bad_wallets"] == []
    named = [b for b in audit["broken_chains"] if b["chain"] == f"ledger:{wallet}"]
    assert [(b["table"], b["row"], b["seq"]) for b in named] == [
        ("ledger_entries", str(after), seq + 1)]
    assert f"place {seq} is missing" in named[0]["problem"]


def test_reordered_ledger_entries_are_named(serve, store):
    """Tampering 5: two entries of a wallet swapped in their chain (each takes the other's place
    and digest): the first row out of order is named."""
    srv = serve()
    _, ids = _play(srv, 10)
    first, wallet, seq = _entry(store, ids[2], "bet")
    with store.write() as s:
        second, digest_2 = s.execute(text(
            "SELECT id, chain_digest FROM ledger_entries WHERE wallet_id = :w AND chain_seq = :q"),
            {"w": wallet, "q": seq + 1}).one()
        digest_1 = s.execute(text("SELECT chain_digest FROM ledger_entries WHERE id = :e"),
                             {"e": first}).scalar_one()
        s.execute(text("UPDATE ledger_entries SET chain_seq = NULL WHERE id IN (:a, :b)"),
                  {"a": first, "b": second})
        s.execute(text("UPDATE ledger_entries SET chain_seq = :q, chain_digest = :d "
                       "WHERE id = :e"), {"q": seq + 1, "d": digest_2, "e": first})
        s.execute(text("UPDATE ledger_entries SET chain_seq = :q, chain_digest = :d "
                       "WHERE id = :e"), {"q": seq, "d": digest_1, "e": second})
    assert _named(_audit(srv)) == {(f"ledger:{wallet}", "ledger_entries", str(second), seq)}


def test_a_changed_round_a_deleted_last_entry_and_an_unchained_row_are_named(serve, store):
    """A round's events rewritten; a wallet's last entry deleted (its head shows it); an entry
    written with the triggers out of the way. Each chain names its own."""
    srv = serve()
    _, ids = _play(srv, 10)
    _, other = _play(srv, 10)
    player, rseq = _one(store, "SELECT player_id, chain_seq FROM rounds WHERE id = :r",
                        r=ids[4])
    _, wallet_2, _ = _entry(store, other[-1], "bet")
    with store.write() as s:
        s.execute(text("UPDATE rounds SET events = :e WHERE id = :r"),
                  {"e": "[]", "r": ids[4]})
        last, last_seq = s.execute(text(
            "SELECT id, chain_seq FROM ledger_entries WHERE wallet_id = :w "
            "ORDER BY chain_seq DESC LIMIT 1"), {"w": wallet_2}).one()
        s.execute(text("DELETE FROM ledger_entries WHERE id = :e"), {"e": last})
    named = _named(_audit(srv))
    assert (f"rounds:{player}", "rounds", ids[4], rseq) in named
    assert (f"ledger:{wallet_2}", None, None, last_seq) in named
    assert len(named) == 2


def test_a_connection_without_the_chain_function_cannot_write_money(serve, store, database):
    """SQLite: the triggers call the application's function; a writer without it (a plain
    sqlite3 connection) cannot add a ledger entry: fail closed."""
    if not database.url.startswith("sqlite"):
        pytest.skip("SQLite's triggers call an application function; PostgreSQL's are PL/pgSQL")
    srv = serve()
    _play(srv, 2)
    wallet = _one(store, "SELECT id FROM wallets")[0]
    con = sqlite3.connect(database.url.removeprefix("sqlite:///"))
    try:
        with pytest.raises(sqlite3.OperationalError, match="slotlab_chain"):
            con.execute("INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, ref,"
                        " created_at) VALUES (?, 'admin_credit', 1, 1, 'x', '2026-01-01')",
                        (wallet,))
    finally:
        con.close()
    assert _audit(srv)["ok"]


def test_a_signed_heads_file_changed_is_refused(serve, database, tmp_path):
    srv = serve()
    _play(srv, 3)
    key_file, heads = _key_file(tmp_path), tmp_path / "heads.json"
    assert _cli("chain-heads", "export", "--db", database.url, "--key-file", str(key_file),
                "--out", str(heads)).returncode == 0
    data = json.loads(heads.read_text())
    name = sorted(data["chains"])[0]
    data["chains"][name][1] = "0" * 64
    heads.write_text(json.dumps(data))
    out = _cli("audit", "--db", database.url, "--heads", str(heads), "--key-file",
               str(key_file))
    assert out.returncode == 2 and "signature does not verify" in out.stdout + out.stderr


def test_rows_stored_before_the_migration_are_chained_by_it(database, tmp_path):
    """A database at 0014 with money in it: the migration chains its rows in the order they
    were written, so it audits clean, and a change made after shows."""
    engine = create_engine(normalize_url(database.url))
    try:
        migrate(engine, "0014")
        now = utcnow()
        with engine.begin() as c:
            for n in range(2):
                c.execute(text("INSERT INTO players (username, username_key, password_hash, "
                               "created_at, failed_logins) VALUES (:u, :u, 'x', :t, 0)"),
                          {"u": f"old{n}", "t": now})
            players = [r[0] for r in c.execute(text("SELECT id FROM players ORDER BY id"))]
            for pid in players:
                c.execute(text("INSERT INTO wallets (player_id, currency, balance) "
                               "VALUES (:p, 'EUR', 7)"), {"p": pid})
                wid = c.execute(text("SELECT id FROM wallets WHERE player_id = :p"),
                                {"p": pid}).scalar_one()
                for i, amount in enumerate((10, -5, 2)):
                    c.execute(text("INSERT INTO ledger_entries (wallet_id, kind, amount, "
                                   "balance_after, ref, created_at) VALUES (:w, 'admin_credit',"
                                   " :a, 0, :r, :t)"),
                              {"w": wid, "a": amount, "r": f"old:{pid}:{i}", "t": now})
                c.execute(text(
                    "INSERT INTO rounds (id, player_id, game_id, model_hash, code_version, "
                    "currency, denomination, bet_credits, bet, win_credits, win, uncapped_win,"
                    " jackpot_win, jackpots, status, seeds, choices, auto_seeds, events, step,"
                    " notice_pending, created_at, updated_at) VALUES (:i, :p, 'g', 'h', 'v', "
                    "'EUR', 1, 1, 1, 0, 0, 0, 0, '[]', 'completed', '[\"00\"]', '[]', '[]', "
                    "'[{\"e\": 1}]', 0, false, :t, :t)"), {"i": f"old{pid}", "p": pid, "t": now})
    finally:
        engine.dispose()
    store = Store(database.url)
    try:
        store.migrate()
        with store.read() as s:
            report = walk(s)
            assert report["ok"], report
            assert report["chains"] == 4 and report["chained_rows"] == 8
        with store.write() as s:
            s.execute(text("UPDATE ledger_entries SET amount = 11 WHERE amount = 10 AND "
                           "wallet_id = (SELECT min(id) FROM wallets)"))
        with store.read() as s:
            broken = walk(s)["broken_chains"]
        assert [(b["table"], b["seq"]) for b in broken] == [("ledger_entries", 1)]
    finally:
        store.dispose()


def test_the_trigger_and_the_python_definition_agree_on_unusual_content(store):
    """Text beyond ASCII (lengths count characters on both sides), NULLs, negative amounts and
    a time with no fraction of a second: the digests the trigger stored are the ones the audit
    recomputes."""
    store.migrate()
    when = utcnow().replace(microsecond=0)
    with store.write() as s:
        s.execute(text("INSERT INTO players (username, username_key, password_hash, created_at,"
                       " failed_logins) VALUES ('zoë', 'zoë', 'x', :t, 0)"), {"t": when})
        pid = s.execute(text("SELECT id FROM players")).scalar_one()
        s.execute(text("INSERT INTO wallets (player_id, currency, balance) VALUES (:p, 'EUR', 0)"),
                  {"p": pid})
        wid = s.execute(text("SELECT id FROM wallets")).scalar_one()
        for ref, amount, rid in (("€ ünïcødé 🎰", 10, None), ("a|b:c-", -3, "r:1|2"),
                                 ("", 0, "")):
            s.execute(text("INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, "
                           "round_id, ref, created_at) VALUES (:w, 'admin_credit', :a, 0, :r, "
                           ":ref, :t)"), {"w": wid, "a": amount, "r": rid, "ref": ref, "t": when})
    with store.read() as s:
        report = walk(s)
        digests = [r[0] for r in s.execute(text(
            "SELECT chain_digest FROM ledger_entries ORDER BY chain_seq"))]
    assert report["ok"] and report["chained_rows"] == 3, report
    assert len(set(digests)) == 3 and all(len(d) == 64 for d in digests)
