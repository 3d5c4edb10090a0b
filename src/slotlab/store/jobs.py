"""Periodic jobs that exactly one server process runs per interval, under a database lock.

Every server process (on any host) ticks; at a tick it tries :func:`claim` on each job, and only
the process that claims a due job runs it. The job's row in ``periodic_jobs`` says when it is
next due; the claim and the run are guarded by a lock that a crashed holder cannot keep:

- ``advisory`` (PostgreSQL): one transaction on a connection of its own, held for the whole run,
  takes ``pg_try_advisory_xact_lock`` (never waits: a busy job is skipped at this tick), reads
  the row, and at the end writes the next due time and the result and commits. A process that
  dies mid-run loses its connection, so PostgreSQL ends the transaction and frees the lock; the
  job is still due and the next process to tick runs it. The lock is transaction-scoped, so it
  works through PgBouncer in transaction mode (session locks would not).
- ``lease`` (SQLite, or any database without advisory locks): the claim is one conditional
  UPDATE that takes a lease (``running_until``) on a due row, serialised by the write lock
  (``BEGIN IMMEDIATE`` on SQLite, the row lock elsewhere); the run's end clears it. A holder that
  dies keeps the job until its lease ends (``lease_s``).

A job that raises is due again at the next tick (its next due time is not moved).
"""

from __future__ import annotations

import contextlib
import os
import platform
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import or_, select, text, update
from sqlalchemy.dialects import postgresql, sqlite

from slotlab.store.engine import Database, schema_lock
from slotlab.store.models import PeriodicJob, utcnow

LockKind = Literal["advisory", "lease"]
LEASE_S = 300.0  # a lease outlives any run of the jobs slotlab has (seconds)


def holder_name() -> str:
    """Who runs a job: host and process id."""
    return f"{platform.node() or 'localhost'}:{os.getpid()}"


def lock_kind(db: Database, preferred: str = "auto") -> LockKind:
    if preferred in ("advisory", "lease"):
        return preferred  # type: ignore[return-value]
    return "advisory" if db.dialect == "postgresql" else "lease"


@dataclass
class Claim:
    """A claimed run: set ``result`` (JSON) to keep what the run found with the job's row."""

    name: str
    holder: str
    result: dict[str, Any] | None = None
    previous: dict[str, Any] | None = field(default=None)  # the last run's result


def ensure(db: Database, name: str, first_due: datetime) -> None:
    """The job's row, created due at ``first_due`` if it does not exist yet."""
    insert = postgresql.insert if db.dialect == "postgresql" else sqlite.insert
    with db.write() as s:
        s.execute(insert(PeriodicJob).values(name=name, next_due_at=first_due)
                  .on_conflict_do_nothing(index_elements=[PeriodicJob.name]))


def last_run(db: Database, name: str) -> tuple[datetime | None, dict[str, Any] | None]:
    """When the job last ran (anywhere) and what it found."""
    with db.read() as s:
        row = s.execute(select(PeriodicJob.last_run_at, PeriodicJob.result)
                        .where(PeriodicJob.name == name)).first()
    return (row.last_run_at, row.result) if row is not None else (None, None)


@contextlib.contextmanager
def claim(db: Database, name: str, interval_s: float, *, lock: str = "auto",
          lease_s: float = LEASE_S, holder: str | None = None) -> Iterator[Claim | None]:
    """``with claim(db, name, interval) as run:``: ``run`` is a :class:`Claim` when this process
    is to run the job now (it was due and nobody else holds it), else None. When the block ends
    without an error the job is next due ``interval_s`` later, with ``run.result`` recorded."""
    holder = holder or holder_name()
    if lock_kind(db, lock) == "advisory":
        with _advisory(db, name, interval_s, holder) as run:
            yield run
    else:
        with _leased(db, name, interval_s, lease_s, holder) as run:
            yield run


def _finish(name: str, run: Claim, interval_s: float) -> Any:
    now = utcnow()
    return (update(PeriodicJob).where(PeriodicJob.name == name)
            .values(next_due_at=now + timedelta(seconds=interval_s), running_until=None,
                    holder=run.holder, last_run_at=now, result=run.result))


_TRY_LOCK = text(schema_lock("pg_try_advisory_xact_lock"))  # never waits: a busy job is skipped


@contextlib.contextmanager
def _advisory(db: Database, name: str, interval_s: float, holder: str
              ) -> Iterator[Claim | None]:
    with db.engine.connect() as conn, conn.begin():
        got = conn.execute(_TRY_LOCK, {"lock": f"slotlab-job:{name}"}).scalar()
        row = None
        if got:
            row = conn.execute(select(PeriodicJob.next_due_at, PeriodicJob.result)
                               .where(PeriodicJob.name == name)).first()
        if row is None or row.next_due_at > utcnow():
            yield None
            return
        run = Claim(name, holder, previous=row.result)
        yield run  # an error here rolls the transaction back: the job stays due
        conn.execute(_finish(name, run, interval_s))


@contextlib.contextmanager
def _leased(db: Database, name: str, interval_s: float, lease_s: float, holder: str
            ) -> Iterator[Claim | None]:
    now = utcnow()
    free = or_(PeriodicJob.running_until.is_(None), PeriodicJob.running_until <= now)
    with db.write() as s:
        row = s.execute(update(PeriodicJob)
                        .where(PeriodicJob.name == name, PeriodicJob.next_due_at <= now, free)
                        .values(running_until=now + timedelta(seconds=lease_s), holder=holder)
                        .returning(PeriodicJob.result)
                        .execution_options(synchronize_session=False)).first()
    if row is None:
        yield None
        return
    run = Claim(name, holder, previous=row.result)
    try:
        yield run
    except BaseException:
        with db.write() as s:  # due again at the next tick
            s.execute(update(PeriodicJob).where(PeriodicJob.name == name,
                                                PeriodicJob.holder == holder)
                      .values(running_until=None))
        raise
    with db.write() as s:
        s.execute(_finish(name, run, interval_s).where(PeriodicJob.holder == holder))
