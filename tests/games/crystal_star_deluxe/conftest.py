"""Fixtures: the shipped game, and games whose strips show any chosen window at stops 0, 0, 0."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from slotlab.games.crystal_star_deluxe.game import CrystalStarDeluxe
from slotlab.games.crystal_star_deluxe.model import load_model, model_path

MAX_BET = 45


@pytest.fixture(scope="session")
def v1_raw() -> dict[str, Any]:
    return json.loads(model_path(1).read_text())


@pytest.fixture(scope="session")
def game() -> CrystalStarDeluxe:
    return CrystalStarDeluxe.from_file(model_path(1))


def window_model(raw: dict[str, Any], window: list[list[str]], pad: int = 5) -> dict[str, Any]:
    """A copy of model ``raw`` whose reel ``r`` strip is ``window[r]`` (top row first) followed by
    ``pad`` blanks: top-row stops (0, 0, 0) show exactly ``window``, and a nudge brings blanks in.
    """
    out = copy.deepcopy(raw)
    out["reel_strips"] = [list(col) + ["-"] * pad for col in window]
    return out


@pytest.fixture(scope="session")
def window_game(v1_raw: dict[str, Any]) -> Callable[..., CrystalStarDeluxe]:
    """``window_game(window)``: the game on a model whose stops (0, 0, 0) show ``window``."""

    def make(window: list[list[str]], **changes: Any) -> CrystalStarDeluxe:
        raw = window_model(v1_raw, window)
        raw.update(changes)
        return CrystalStarDeluxe(load_model(raw))

    return make


def rows_to_window(rows: list[list[str]]) -> list[list[str]]:
    """Turn a window written row by row (as a player sees it) into reel columns."""
    return [[rows[k][r] for k in range(3)] for r in range(3)]


def of_type(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in result.events if e["type"] == kind]
