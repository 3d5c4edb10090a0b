"""JSON text on the money path: each value encoded once (orjson), and an object's text extended
with members already encoded, so that a round's events are never encoded or decoded twice.

Shared by the web layer (a round's answer), the store's fast round writers (the batch written
with it) and the database engines (every JSON column), so that every path stores the same text."""

from __future__ import annotations

import json
from typing import Any

import orjson


def plain(o: Any) -> Any:
    """What orjson leaves to a default: numpy scalars as numbers, sets and tuples as lists."""
    if hasattr(o, "item"):  # numpy scalars
        return o.item()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    raise TypeError(f"not JSON: {type(o).__name__}")


def json_text(x: Any) -> str:
    """``x`` as compact JSON text: the standard library's compact encoding without its ASCII
    escapes (tuples as lists, numpy scalars as numbers, keys as text, times as ISO 8601)."""
    try:
        return orjson.dumps(x, default=plain, option=orjson.OPT_NON_STR_KEYS).decode()
    except orjson.JSONEncodeError:  # an integer beyond 64 bits (what is not JSON fails again)
        return json.dumps(x, default=plain, separators=(",", ":"), ensure_ascii=False)


def to_jsonable(x: Any) -> Any:
    """Plain JSON values (tuples become lists, numpy scalars numbers, keys text), as the
    database gives them back from :func:`json_text`'s text. orjson both ways: a fifth of the
    standard library's round trip's time on a seed game's round's events (5-9 against 28-45
    us: benchmarks/bench_json_text.py), which took 3 % of the server's time on the
    operator-wallet production mix."""
    try:
        return orjson.loads(orjson.dumps(x, default=plain, option=orjson.OPT_NON_STR_KEYS))
    except orjson.JSONEncodeError:  # an integer beyond 64 bits: kept exact (orjson reads floats)
        return json.loads(json.dumps(x, default=plain))


def json_object_with(obj: str, **raw: str) -> str:
    """The JSON object text ``obj`` with more members, each value already JSON text. The
    members' names are identifiers (no escaping)."""
    extra = ",".join(f'"{k}":{v}' for k, v in raw.items())
    if not extra:
        return obj
    return f"{obj[:-1]}{',' if obj.strip() != '{}' else ''}{extra}}}"
