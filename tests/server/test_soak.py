"""The soak (``benchmarks/soak.py``) in a short version: real server processes killed with
SIGKILL every few seconds under 16 clients, every cut request retried with its key, and the
money reconciled to the cent after every restart; on SQLite and PostgreSQL. The full run is 30
minutes per database (docs/server.md gives its figures).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from .server_util import PG_URL

SOAK = Path(__file__).parents[2] / "benchmarks" / "soak.py"
SECONDS = 25


def _soak_module() -> Any:
    spec = importlib.util.spec_from_file_location("soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("db", ["sqlite", "postgres"])
def test_kill_9_every_few_seconds_loses_no_cent(db: str, tmp_path: Path):
    if db == "postgres" and not PG_URL:
        pytest.skip("no PostgreSQL URL")
    out = tmp_path / "soak.json"
    args = [sys.executable, str(SOAK), "--seconds", str(SECONDS), "--min-kills", "2", "--db", db,
            "--out", str(out)]
    if db == "postgres":
        args += ["--pg", PG_URL]
    run = subprocess.run(args, capture_output=True, text=True, timeout=600)
    result = json.loads(out.read_text())[db]
    assert run.returncode == 0 and result["ok"], (run.stdout, run.stderr[-3000:], result)
    assert result["kills"] >= 2 and result["audits_ok"] == result["kills"]
    assert result["rounds_seen"] > 0 and result["problems"] == []
    assert result["retries_answered_once"] == result["retried_requests"]


def test_the_reconciliation_finds_a_round_paid_more_than_its_ledger(tmp_path: Path):
    """The soak's own check is not blind: a win raised in the record (and nowhere else) fails."""
    soak = _soak_module()
    url = f"sqlite:///{tmp_path / 'r.db'}"
    from slotlab.store import Database, make_engine

    db = Database(url)
    db.migrate()
    db.dispose()
    engine = make_engine(url)  # with the hash-chain function the triggers call
    with engine.begin() as c:
        c.execute(text(
            "INSERT INTO players (id, username, password_hash, created_at, failed_logins) "
            "VALUES (1, 'p', 'x', '2026-01-01 00:00:00', 0)"))
        c.execute(text("INSERT INTO wallets (id, player_id, currency, balance) "
                       "VALUES (1, 1, 'EUR', 95)"))
        c.execute(text(
            "INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, round_id, ref, "
            "created_at) VALUES (1, 'demo_grant', 100, 100, NULL, 'g', '2026-01-01 00:00:00'), "
            "(1, 'bet', -5, 95, 'r1', 'round:r1:bet', '2026-01-01 00:00:00')"))
        c.execute(text(
            "INSERT INTO rounds (id, player_id, game_id, model_hash, code_version, currency, "
            "denomination, bet_credits, bet, win_credits, win, uncapped_win, jackpot_win, "
            "jackpots, status, seeds, choices, auto_seeds, step, notice_pending, created_at, "
            "updated_at) VALUES ('r1', 1, 'g', 'h', 'v', 'EUR', 1, 5, 5, 0, 0, 0, 0, '[]', "
            "'completed', '[]', '[]', '[]', 0, 0, '2026-01-01 00:00:00', "
            "'2026-01-01 00:00:00')"))
    book = soak.Ledger(seen={"r1"})
    soak._reconcile(url, book)
    assert book.errors == []
    with engine.begin() as c:
        c.execute(text("UPDATE rounds SET win = 50 WHERE id = 'r1'"))
    soak._reconcile(url, book)
    assert any("not tied to their ledger" in e for e in book.errors)
    engine.dispose()
