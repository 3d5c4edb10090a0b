"""Superstars fixtures: the shipped models and, until ``bonus.py`` lands, a stand-in Bonus Game."""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import slotlab.games.superstars as package

# SUPERSTARS_STAND_IN=1 forces the stand-in (to test the base game while bonus.py is broken).
STAND_IN = (not (Path(package.__file__).parent / "bonus.py").exists()
            or os.environ.get("SUPERSTARS_STAND_IN") == "1")
if STAND_IN:  # the interface's stand-in, in the tests only (see stand_in_bonus.py)
    from . import stand_in_bonus

    sys.modules["slotlab.games.superstars.bonus"] = stand_in_bonus
    package.bonus = stand_in_bonus  # type: ignore[attr-defined]

from slotlab.games.superstars.game import Superstars  # noqa: E402
from slotlab.games.superstars.model import load_model, model_path  # noqa: E402


@pytest.fixture(scope="session")
def game() -> Superstars:
    return Superstars.from_file(model_path())


@pytest.fixture(scope="session")
def raw() -> dict[str, Any]:
    return json.loads(model_path().read_text())


# Filler below a forced window: no Scatter, Dice or Wild, and no line through it reaches stop 0.
PAD = ["TE", "JA", "QU", "KI", "AC"]


def window_model(raw: dict[str, Any], rows: list[str]) -> dict[str, Any]:
    """A copy of model ``raw`` whose stops (0, 0, 0, 0, 0) show ``rows``: five strings of five
    symbol ids, written row by row as a player sees them (``"SB SB SB SB SB"``)."""
    grid = [r.split() for r in rows]
    assert len(grid) == 5 and all(len(r) == 5 for r in grid), rows
    out = copy.deepcopy(raw)
    out["reel_strips"] = [[grid[row][reel] for row in range(5)] + PAD for reel in range(5)]
    return out


@pytest.fixture(scope="session")
def window_game(raw: dict[str, Any]) -> Callable[..., Superstars]:
    """``window_game(rows, **changes)``: the game on a model whose stops 0 show ``rows``."""

    def make(rows: list[str], **changes: Any) -> Superstars:
        m = window_model(raw, rows)
        m.update(changes)
        return Superstars(load_model(m))

    return make


def of_type(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e for e in result.events if e["type"] == kind]
