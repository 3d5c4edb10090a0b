"""Fixtures: the shipped game, and games whose strips show chosen windows at stop 0."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from slotlab.games.super_12_stars.game import Super12Stars
from slotlab.games.super_12_stars.model import load_model, model_path

BET = 30  # the smallest bet: 1 credit per line, so credits = pay units (line bets)
PAD = ["LE", "OR", "PL"]  # stops 3..5 of a test strip: a paying symbol allowed everywhere


@pytest.fixture(scope="session")
def v1_raw() -> dict[str, Any]:
    return json.loads(model_path(1).read_text())


@pytest.fixture(scope="session")
def game() -> Super12Stars:
    return Super12Stars.from_file(model_path(1))


def strips_showing(columns: list[list[str]]) -> list[list[str]]:
    """Strips whose stop 0 shows ``columns`` (reel by reel, top row first): a column of three
    symbols becomes that column followed by :data:`PAD`; a longer list is a whole strip."""
    return [list(col) + PAD if len(col) == 3 else list(col) for col in columns]


def rows_to_columns(rows: list[str]) -> list[list[str]]:
    """A window written as players see it, three rows of five symbols separated by spaces."""
    cells = [row.split() for row in rows]
    assert len(cells) == 3 and all(len(r) == 5 for r in cells), rows
    return [[cells[k][r] for k in range(3)] for r in range(5)]


@pytest.fixture(scope="session")
def make_game(v1_raw: dict[str, Any]) -> Callable[..., Super12Stars]:
    """``make_game(base=rows, free=rows, super10_free=rows, **changes)``: the game on a copy of
    v1 whose reel set strips show those windows (three strings of five symbols, or a list of
    five columns/strips) at stop 0; other sets are v1's; ``changes`` replace top-level keys."""

    def make(**kw: Any) -> Super12Stars:
        raw = copy.deepcopy(v1_raw)
        for name in ("base", "free", "super10_free"):
            if name in kw:
                w = kw.pop(name)
                cols = rows_to_columns(w) if isinstance(w[0], str) else w
                raw["reel_strips"][name] = strips_showing(cols)
        for key, value in kw.items():
            if isinstance(value, dict) and isinstance(raw.get(key), dict):
                raw[key] = {**raw[key], **value}
            else:
                raw[key] = value
        return Super12Stars(load_model(raw))

    return make


def of_type(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in result.events if e["type"] == kind]


def types(result: Any) -> list[str]:
    return [e["type"] for e in result.events]


ZERO = [0, 0, 0, 0, 0]
