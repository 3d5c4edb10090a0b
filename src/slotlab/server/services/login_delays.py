"""Growing delays after failed logins, per client address and per account: they slow a guesser
and never lock the owner out.

Each streak of failed logins is a row of ``login_limits``: ``f:a:<address>`` or ``f:u:<name>``
(the name whether or not an account has it, so that the answers never tell which names exist),
``attempts`` the guesses counted in the streak and ``window_start`` the earliest time the next
guess may be counted (while the streak is too short for a delay: when it began). A guess is
counted before its password is checked and the streak ends when a login succeeds; a streak is
forgotten ``memory_s`` after its ``window_start``.

- The address: after ``free`` guesses each further one must wait ``base_s``, doubled per guess,
  up to ``address_max_s``; a guess sent sooner is refused (429 ``too_many_logins`` with
  ``Retry-After``) before any password work. The guesser is the one slowed.
- The account: the same growing delay, but at most ``account_max_s`` and never a refusal: the
  login waits for it, then is checked. The owner with the right password always gets in,
  ``account_max_s`` later at worst, while each guess at the account costs that wait.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import case, delete, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from slotlab.store.models import LoginLimit, UTCDateTime

PREFIX = "f:"
ADDRESS_PREFIX = PREFIX + "a:"
ACCOUNT_PREFIX = PREFIX + "u:"


@dataclass(frozen=True)
class Delays:
    free: int  # guesses in a row before the delays begin
    base_s: float  # the first delay, doubled per further guess
    address_max_s: float
    account_max_s: float
    memory_s: float  # a streak is forgotten this long after the time it last allowed

    def after(self, guesses: int, most: float) -> float:
        """The delay before the next guess once ``guesses`` were counted in a row."""
        if guesses < self.free:
            return 0.0
        return min(most, self.base_s * 2.0 ** min(guesses - self.free, 60))


def keys(address: str, name_key: str) -> tuple[str, str]:
    return f"{ADDRESS_PREFIX}{address}", f"{ACCOUNT_PREFIX}{name_key}"


def _seconds(until: datetime, now: datetime) -> float:
    return (until - now).total_seconds()


def address_wait(s: Session, address: str, now: datetime, d: Delays) -> int | None:
    """Seconds until the address may guess again (None: now). A read: a refusal writes
    nothing."""
    row = s.execute(select(LoginLimit.window_start)
                    .where(LoginLimit.key == f"{ADDRESS_PREFIX}{address}")).first()
    if row is None or row.window_start <= now:
        return None
    return max(1, math.ceil(_seconds(row.window_start, now)))


def _count(s: Session, key: str, now: datetime, d: Delays) -> tuple[int, datetime]:
    """One more guess in the key's streak (a forgotten streak starts again): the guesses now
    counted and the time the next one was allowed before this one. The row stays locked
    (PostgreSQL; SQLite writes one at a time) until the transaction ends."""
    insert = postgresql.insert if s.get_bind().dialect.name == "postgresql" else sqlite.insert
    forgotten = LoginLimit.window_start <= now - timedelta(seconds=d.memory_s)
    upsert = insert(LoginLimit).values(key=key, window_start=now, attempts=1)
    stmt = upsert.on_conflict_do_update(
        index_elements=[LoginLimit.key],
        set_={"attempts": case((forgotten, 1), else_=LoginLimit.attempts + 1),
              "window_start": case((forgotten, literal(now, UTCDateTime)),
                                   else_=LoginLimit.window_start)},
    ).returning(LoginLimit.attempts, LoginLimit.window_start)
    row = s.execute(stmt).one()
    return int(row.attempts), row.window_start


def _allow_next(s: Session, key: str, at: datetime, now: datetime) -> None:
    if at <= now:  # no delay (the streak is short): the row already allows a guess now
        return
    s.execute(update(LoginLimit).where(LoginLimit.key == key).values(window_start=at)
              .execution_options(synchronize_session=False))


def count_guess(s: Session, address: str, name_key: str, now: datetime, d: Delays
                ) -> tuple[int | None, float]:
    """Count a guess from ``address`` at ``name_key``, atomically: (the seconds the address
    must wait first, or None when the guess is counted; the seconds the login waits for the
    account's delay). A refused guess must roll the transaction back: it is not counted."""
    address_key, account_key = keys(address, name_key)
    guesses, allowed = _count(s, address_key, now, d)
    if allowed > now:
        return max(1, math.ceil(_seconds(allowed, now))), 0.0
    _allow_next(s, address_key, now + timedelta(seconds=d.after(guesses, d.address_max_s)), now)
    guesses, allowed = _count(s, account_key, now, d)
    wait = min(max(0.0, _seconds(allowed, now)), d.account_max_s)
    delay = d.after(guesses, d.account_max_s)
    _allow_next(s, account_key, now + timedelta(seconds=wait + delay), now)
    return None, wait


def end_streaks(s: Session, address: str, name_key: str) -> None:
    """A login succeeded: the address's and the account's streaks end."""
    s.execute(delete(LoginLimit).where(LoginLimit.key.in_(sorted(keys(address, name_key)))))
