"""The reference wallet's group commit, on a real SQLite file: calls in flight together share one
transaction, each is answered only once durable, and one call's failure undoes only its own."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from slotlab.operator.reference_wallet import (
    BalanceReq,
    DebitReq,
    ReferenceWallet,
    WalletError,
)

from ..async_util import run


def _debit(n: int, amount: int = 10) -> DebitReq:
    return DebitReq(transaction_id=f"r{n}:debit", round_id=f"r{n}", player_id="p",
                    amount=amount, currency="EUR")


def _persisted(db: Path) -> tuple[int, int]:
    """(balance, applied debits) as another connection reads them from the file."""
    with sqlite3.connect(db) as c:
        balance = c.execute("SELECT balance FROM players WHERE player_id = 'p'").fetchone()[0]
        applied = c.execute("SELECT COUNT(*) FROM transactions WHERE kind = 'debit' "
                            "AND applied = 1").fetchone()[0]
    return int(balance), int(applied)


def test_concurrent_calls_share_commits_and_each_is_durable_when_answered(tmp_path: Path
                                                                           ) -> None:
    db = tmp_path / "w.db"
    wallet = ReferenceWallet(db)
    try:
        wallet.set_player("p", balance=10_000)
        groups_before = wallet.groups

        async def main() -> None:
            async def one(n: int) -> None:
                answer = await wallet.apply("debit", _debit(n))
                assert answer.status == 200
                # Answered: its debit is on disk, seen by a connection of its own.
                _, applied = _persisted(db)
                assert applied >= 1
                assert await wallet.apply("debit", _debit(n)) == answer  # replayed, once

            await asyncio.gather(*(one(n) for n in range(200)))

        run(main())
        assert _persisted(db) == (10_000 - 200 * 10, 200)
        # 400 calls in flight together took fewer commits than calls.
        assert wallet.groups - groups_before < 400
    finally:
        wallet.close()


def test_a_failing_call_undoes_only_its_own_writes(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    wallet = ReferenceWallet(db)
    try:
        wallet.set_player("p", balance=1_000)

        async def main() -> list[object]:
            return await asyncio.gather(
                wallet.apply("debit", _debit(1)),
                wallet.apply("balance", BalanceReq(player_id="nobody")),  # raises 404
                wallet.apply("debit", _debit(2)),
                return_exceptions=True)

        first, missing, second = run(main())
        assert isinstance(missing, WalletError) and missing.status == 404
        assert getattr(first, "status", None) == 200 and getattr(second, "status", None) == 200
        assert _persisted(db) == (980, 2)
    finally:
        wallet.close()


def test_closing_stops_the_writer(tmp_path: Path) -> None:
    wallet = ReferenceWallet(tmp_path / "w.db")
    wallet.set_player("p", balance=5)
    wallet.close()
    with pytest.raises(sqlite3.ProgrammingError):
        wallet.player("p")
