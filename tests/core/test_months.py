"""Calendar months: "24 months" is the same day 24 months on, clamped to a short month's end."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from slotlab.months import add_months, months_passed


def test_add_months_keeps_the_day_and_clamps_to_the_month_end():
    t = datetime(2024, 1, 15, 12, 0, tzinfo=UTC)
    assert add_months(t, 24) == datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
    assert add_months(t, 24) - t == timedelta(days=731)  # across the leap day: not 730
    assert add_months(datetime(2024, 2, 29, tzinfo=UTC), 24) == datetime(2026, 2, 28, tzinfo=UTC)
    assert add_months(datetime(2025, 1, 31, tzinfo=UTC), 1) == datetime(2025, 2, 28, tzinfo=UTC)
    assert add_months(datetime(2025, 12, 31, tzinfo=UTC), 2) == datetime(2026, 2, 28, tzinfo=UTC)
    assert add_months(datetime(2026, 3, 31, tzinfo=UTC), -1) == datetime(2026, 2, 28, tzinfo=UTC)
    assert add_months(datetime(2026, 1, 10, tzinfo=UTC), -13) == datetime(2024, 12, 10, tzinfo=UTC)


def test_months_passed_is_exact_to_the_second():
    t = datetime(2024, 1, 15, 12, 0, tzinfo=UTC)
    assert not months_passed(t, t + timedelta(days=730), 24)
    assert not months_passed(t, datetime(2026, 1, 15, 11, 59, 59, tzinfo=UTC), 24)
    assert months_passed(t, datetime(2026, 1, 15, 12, 0, tzinfo=UTC), 24)
