"""``round_view.json_text`` (orjson) writes what the standard library's compact encoder writes
(without its ASCII escapes), whatever a game puts in its events."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from slotlab.server.services import round_view

VALUES: list[Any] = [
    {"type": "reels_stopped", "stops": (3, 1, 4), "window": [["A", "B"], ["C", "D"]]},
    {"win": np.int64(250), "ratio": np.float64(0.125), "flag": np.bool_(True)},
    {1: "one", 2: ["two"]},  # keys that are not text become text, as json.dumps does
    {"name": "Estrella dorada ñ €", "quote": 'say "hi"\n', "none": None},
    [frozenset({7}), {"nested": [(1, 2), ()]}],
    {"big": 2**62, "negative": -(2**62), "zero": 0},
]


@pytest.mark.parametrize("value", VALUES)
def test_json_text_is_the_standard_compact_encoding(value: Any) -> None:
    standard = json.dumps(round_view.to_jsonable(value), separators=(",", ":"),
                          ensure_ascii=False)
    assert round_view.json_text(value) == standard


def test_json_text_refuses_what_is_not_json() -> None:
    with pytest.raises(TypeError):
        round_view.json_text({"x": object()})


def test_json_object_with_adds_members_as_given() -> None:
    head = round_view.json_text({"round_id": "r1", "bet": 10})
    full = round_view.json_object_with(head, events='[{"type":"x"}]', balance="90")
    assert json.loads(full) == {"round_id": "r1", "bet": 10, "events": [{"type": "x"}],
                                "balance": 90}
    assert round_view.json_object_with("{}", balance="1") == '{"balance":1}'
