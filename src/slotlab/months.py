"""Calendar-month arithmetic: "24 months" is the same day 24 months on, not 730 days."""

from __future__ import annotations

import calendar
from datetime import datetime


def add_months(when: datetime, months: int) -> datetime:
    """``when`` moved by ``months`` calendar months (negative: back); a day the target month
    lacks becomes its last day (31 January + 1 month = 28 or 29 February)."""
    index = when.year * 12 + when.month - 1 + months
    year, month = divmod(index, 12)
    day = min(when.day, calendar.monthrange(year, month + 1)[1])
    return when.replace(year=year, month=month + 1, day=day)


def months_passed(since: datetime, now: datetime, months: int) -> bool:
    """Whether ``months`` calendar months have passed from ``since`` to ``now``."""
    return add_months(since, months) <= now
