"""``json_text`` (orjson) writes what the standard library's compact encoder writes (without
its ASCII escapes), whatever a game puts in its events, and times as ``isoformat`` does."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from slotlab.json_text import json_object_with, json_text, plain, to_jsonable

VALUES: list[Any] = [
    {"type": "reels_stopped", "stops": (3, 1, 4), "window": [["A", "B"], ["C", "D"]]},
    {"win": np.int64(250), "ratio": np.float64(0.125), "flag": np.bool_(True)},
    {1: "one", 2: ["two"]},  # keys that are not text become text, as json.dumps does
    {"name": "Estrella dorada ñ €", "quote": 'say "hi"\n', "none": None},
    [frozenset({7}), {"nested": [(1, 2), ()]}],
    {"big": 2**62, "negative": -(2**62), "zero": 0},
    {"beyond_64_bits": 2**70, "nested": [-(2**80)]},  # orjson refuses: the standard library
]


def standard_values(value: Any) -> Any:
    """The standard library's round trip: the plain values JSON text decodes to."""
    return json.loads(json.dumps(value, default=plain))


@pytest.mark.parametrize("value", VALUES)
def test_json_text_is_the_standard_compact_encoding(value: Any) -> None:
    standard = json.dumps(standard_values(value), separators=(",", ":"), ensure_ascii=False)
    assert json_text(value) == standard


@pytest.mark.parametrize("value", VALUES)
def test_to_jsonable_gives_the_standard_round_trip_s_values_exactly(value: Any) -> None:
    """orjson's values, and the standard library's beyond 64 bits (orjson reads floats)."""
    got = to_jsonable(value)
    assert got == standard_values(value)
    assert json_text(got) == json_text(value)  # types too: 2**70 stays an int, not a float


def test_json_text_refuses_what_is_not_json() -> None:
    with pytest.raises(TypeError):
        json_text({"x": object()})


def test_json_object_with_adds_members_as_given() -> None:
    head = json_text({"round_id": "r1", "bet": 10})
    full = json_object_with(head, events='[{"type":"x"}]', balance="90")
    assert json.loads(full) == {"round_id": "r1", "bet": 10, "events": [{"type": "x"}],
                                "balance": 90}
    assert json_object_with("{}", balance="1") == '{"balance":1}'


@pytest.mark.parametrize("at", [datetime(2026, 12, 2, 3, 9, 12, 205698, tzinfo=UTC),
                                datetime(2026, 12, 2, 3, 9, 12, tzinfo=UTC),
                                datetime(2026, 12, 2, 4, 9, 12, 1, tzinfo=timezone(
                                    timedelta(hours=1)))])
def test_times_are_written_as_isoformat_writes_them(at: datetime) -> None:
    """The store sends the rounds' times to PostgreSQL in this text: it must be the time."""
    assert json_text({"at": at}) == f'{{"at":"{at.isoformat()}"}}'
