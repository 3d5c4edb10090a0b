"""Ledger entries on the ORM session: how a service transaction moves money.

Callers hold a write transaction and have locked the wallet with :func:`lock_wallet` (a row lock
on PostgreSQL; SQLite write transactions are serialised). :func:`post` appends one entry and
updates the cached balance in the same transaction; it refuses to go below zero. Each entry's
``ref`` is unique, so a movement that was already made cannot be made again.
"""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Table, func, insert, select
from sqlalchemy.orm import Session

from slotlab.server.errors import insufficient_funds, not_found
from slotlab.store.models import JackpotEntry, JackpotPool, LedgerEntry, Wallet, utcnow


def lock_wallet(s: Session, player_id: int) -> Wallet:
    wallet = s.scalar(select(Wallet).where(Wallet.player_id == player_id).with_for_update()
                      .execution_options(populate_existing=True))
    if wallet is None:
        raise not_found("unknown_player", "no wallet for this player")
    return wallet


_INSERT_ENTRY = insert(cast(Table, LedgerEntry.__table__))


def post(
    s: Session,
    wallet: Wallet,
    amount: int,
    kind: str,
    ref: str,
    *,
    round_id: str | None = None,
    now: datetime | None = None,
    want_id: bool = False,
) -> int | None:
    """Append one entry (``amount`` signed, minor units) and move the balance with it.

    ``wallet`` is loaded in the session (its balance is flushed with the transaction).
    """
    new_balance = wallet.balance + amount
    if new_balance < 0:
        raise insufficient_funds(wallet.balance, -amount)
    wallet.balance = new_balance
    values = {"wallet_id": wallet.id, "kind": kind, "amount": amount,
              "balance_after": new_balance, "round_id": round_id, "ref": ref,
              "created_at": now or utcnow()}
    if want_id:
        return int(s.execute(insert(LedgerEntry).values(**values).returning(LedgerEntry.id)
                             ).scalar_one())
    s.execute(_INSERT_ENTRY, values)
    return None


def audit(s: Session) -> dict[str, object]:
    """Check the money invariants over the whole database."""
    sums = dict(
        s.execute(
            select(LedgerEntry.wallet_id, func.coalesce(func.sum(LedgerEntry.amount), 0)).group_by(
                LedgerEntry.wallet_id
            )
        ).all()
    )
    bad_wallets = []
    negative = []
    wallets = s.execute(select(Wallet.id, Wallet.balance)).all()
    for wid, balance in wallets:
        if balance != sums.get(wid, 0):
            bad_wallets.append({"wallet_id": wid, "balance": balance, "ledger": sums.get(wid, 0)})
        if balance < 0:
            negative.append(wid)
    pool_sums = dict(
        s.execute(
            select(JackpotEntry.pool_id, func.sum(JackpotEntry.amount_micro)).group_by(
                JackpotEntry.pool_id
            )
        ).all()
    )
    bad_pools = []
    for pid, value, reset in s.execute(
        select(JackpotPool.id, JackpotPool.value_micro, JackpotPool.reset_micro)
    ).all():
        if value != pool_sums.get(pid, 0) or value < reset:
            bad_pools.append({"pool_id": pid, "value_micro": value, "entries": pool_sums.get(pid)})
    return {
        "ok": not bad_wallets and not negative and not bad_pools,
        "wallets": len(wallets),
        "bad_wallets": bad_wallets,
        "negative_wallets": negative,
        "bad_pools": bad_pools,
    }
