"""The operator-wallet operations log: every debit, credit and rollback sent to an operator.

One row per wallet transaction (``transaction_id`` unique), written BEFORE the call is made, so
that a crash at any point leaves a record to finish from: a credit that is not ``done`` is
retried (never rolled back) and a debit whose answer never came is rolled back.
:func:`slotlab.server.operator_wallet.resume_pending` does that at start-up and periodically.

The table has its own ``DeclarativeBase`` (``OpsBase.metadata``) so it can be created on its own
(:meth:`OperatorWalletStore.create_all`); the server's migrations can adopt it as it is.

Statuses:

- ``pending``: not yet confirmed; due again at ``next_attempt_at``.
- ``done``: the operator confirmed it (``balance`` and ``response`` hold its answer).
- ``refused``: the operator refused a debit (e.g. ``insufficient_funds``), or a rollback.
- ``rolling_back`` / ``rolled_back``: a debit whose outcome was unknown; its rollback (the row
  ``<transaction_id>:rollback``) is pending / confirmed.
- ``unpaid``: a credit still not confirmed after the retry window (24 hours by default). It is
  kept on record, still retried (daily by default), and discarded only after ``keep_until``
  (24 calendar months after the win).
- ``discarded``: an unpaid credit past ``keep_until``: never sent again, kept on record.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Engine, Index, Integer, String, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from slotlab.months import add_months
from slotlab.store.engine import Database
from slotlab.store.models import BigId, UTCDateTime, utcnow

# Kinds.
DEBIT = "debit"
CREDIT = "credit"
ROLLBACK = "rollback"

# Statuses.
PENDING = "pending"
DONE = "done"
REFUSED = "refused"
ROLLING_BACK = "rolling_back"
ROLLED_BACK = "rolled_back"
UNPAID = "unpaid"
DISCARDED = "discarded"
OPEN_STATUSES = (PENDING, ROLLING_BACK, UNPAID)  # still work to do

KEEP_UNPAID_MONTHS = 24  # calendar months (not 730 days: a leap day falls in most)


def debit_txid(round_id: str) -> str:
    return f"{round_id}:debit"


def credit_txid(round_id: str, n: int = 0) -> str:
    return f"{round_id}:credit:{n}"


def rollback_txid(debit_transaction_id: str) -> str:
    return f"{debit_transaction_id}:rollback"


class OpsBase(DeclarativeBase):
    pass


class OperatorWalletOp(OpsBase):
    __tablename__ = "operator_wallet_ops"
    __table_args__ = (
        Index("ix_operator_wallet_ops_due", "status", "next_attempt_at"),
        Index("ix_operator_wallet_ops_round", "round_id"),
        # A player's operations since a time: the session's net position (migration 0018).
        Index("ix_operator_wallet_ops_player_time", "player_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    transaction_id: Mapped[str] = mapped_column(String(200), unique=True)
    round_id: Mapped[str] = mapped_column(String(64))
    player_id: Mapped[str] = mapped_column(String(64))  # the operator's player id
    kind: Mapped[str] = mapped_column(String(16))  # debit, credit, rollback
    amount: Mapped[int] = mapped_column(BigInteger)  # minor units (0 for a rollback)
    currency: Mapped[str] = mapped_column(String(8))
    reference_transaction_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    balance: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # operator's, after
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Credits only: unpaid winnings are kept on record until then (24 months after the win).
    keep_until: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    def as_dict(self) -> dict[str, Any]:
        return {c.key: getattr(self, c.key) for c in OperatorWalletOp.__table__.columns}


class OperatorWalletStore:
    """Transactions on the ops table, over the server's :class:`Database` (or a URL/engine)."""

    def __init__(self, db: Database | Engine | str) -> None:
        self._own: Database | None = None
        if isinstance(db, str):
            db = self._own = Database(db)
        self.db = db

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        if isinstance(self.db, Database):
            with self.db.write() as s:
                yield s
        else:
            with Session(self.db, expire_on_commit=False) as s, s.begin():
                yield s

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        if isinstance(self.db, Database):
            with self.db.read() as s:
                yield s
        else:
            with Session(self.db, expire_on_commit=False) as s, s.begin():
                yield s

    def create_all(self) -> None:
        engine = self.db.engine if isinstance(self.db, Database) else self.db
        OpsBase.metadata.create_all(engine)

    def dispose(self) -> None:
        if self._own is not None:
            self._own.dispose()

    # -- rows --------------------------------------------------------------------------------

    def get(self, transaction_id: str) -> OperatorWalletOp | None:
        with self.read() as s:
            return s.scalar(select(OperatorWalletOp)
                            .where(OperatorWalletOp.transaction_id == transaction_id))

    def ensure(self, *, transaction_id: str, kind: str, round_id: str, player_id: str,
               amount: int, currency: str, reference_transaction_id: str | None = None,
               status: str = PENDING) -> tuple[OperatorWalletOp, bool]:
        """The row for ``transaction_id``, created if new: (row, created)."""
        existing = self.get(transaction_id)
        if existing is not None:
            return existing, False
        now = utcnow()
        op = OperatorWalletOp(
            transaction_id=transaction_id, kind=kind, round_id=round_id, player_id=player_id,
            amount=amount, currency=currency, reference_transaction_id=reference_transaction_id,
            status=status, attempts=0, next_attempt_at=now, last_error=None, balance=None,
            response=None, created_at=now, updated_at=now, completed_at=None,
            keep_until=add_months(now, KEEP_UNPAID_MONTHS) if kind == CREDIT else None)
        try:
            with self.write() as s:
                s.add(op)
        except IntegrityError:  # a concurrent caller created it first
            row = self.get(transaction_id)
            assert row is not None
            return row, False
        return op, True

    def update(self, transaction_id: str, **values: Any) -> None:
        values.setdefault("updated_at", utcnow())
        if isinstance(values.get("last_error"), str):
            values["last_error"] = values["last_error"][:300]
        with self.write() as s:
            s.execute(update(OperatorWalletOp)
                      .where(OperatorWalletOp.transaction_id == transaction_id).values(**values))

    def due(self, now: datetime | None = None, limit: int = 100) -> list[OperatorWalletOp]:
        """Open operations whose next attempt is due, oldest first."""
        now = now or utcnow()
        with self.read() as s:
            return list(s.scalars(
                select(OperatorWalletOp)
                .where(OperatorWalletOp.status.in_(OPEN_STATUSES),
                       OperatorWalletOp.next_attempt_at <= now)
                .order_by(OperatorWalletOp.next_attempt_at, OperatorWalletOp.id).limit(limit)))

    def for_round(self, round_id: str) -> list[OperatorWalletOp]:
        with self.read() as s:
            return list(s.scalars(select(OperatorWalletOp)
                                  .where(OperatorWalletOp.round_id == round_id)
                                  .order_by(OperatorWalletOp.id)))

    def round_open(self, round_id: str) -> bool:
        """Whether a wallet operation of the round still waits for the operator."""
        with self.read() as s:
            return s.scalar(select(OperatorWalletOp.id).where(
                OperatorWalletOp.round_id == round_id,
                OperatorWalletOp.status.in_(OPEN_STATUSES)).limit(1)) is not None

    def unpaid(self) -> list[OperatorWalletOp]:
        with self.read() as s:
            return list(s.scalars(select(OperatorWalletOp)
                                  .where(OperatorWalletOp.status == UNPAID)
                                  .order_by(OperatorWalletOp.id)))

    def retry_now(self, transaction_id: str) -> bool:
        """Make an open operation due at once (an admin's "retry now"); False if none."""
        with self.write() as s:
            res = s.execute(update(OperatorWalletOp).where(
                OperatorWalletOp.transaction_id == transaction_id,
                OperatorWalletOp.status.in_(OPEN_STATUSES)).values(next_attempt_at=utcnow()))
        return bool(res.rowcount)  # type: ignore[attr-defined]

    def discard_expired(self, now: datetime | None = None) -> list[dict[str, Any]]:
        """Discard unpaid credits past ``keep_until`` (24 calendar months): they become
        ``discarded`` (never sent again, kept on record); returns what was discarded."""
        now = now or utcnow()
        with self.write() as s:
            rows = list(s.scalars(select(OperatorWalletOp).where(
                OperatorWalletOp.status == UNPAID, OperatorWalletOp.keep_until <= now)))
            for r in rows:
                r.status = DISCARDED
                r.next_attempt_at = None
                r.completed_at = now
                r.updated_at = now
            gone = [r.as_dict() for r in rows]
        return gone
