"""Small line-game models built in code, so each test can reach any feature directly."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from slotlab.games.lines.game import LineGame
from slotlab.games.lines.model import LineModel

# 5 reels x 3 rows, 4 lines, wild x2 once per line that pays on its own, scatter, free spins.
TOY: dict[str, Any] = {
    "format": "slotlab.lines/1",
    "id": "toy",
    "name": "Toy",
    "reels": 5,
    "rows": 3,
    "symbols": [{"id": s} for s in ("W", "S", "A", "B", "C", "X")],
    "bet": {"divisor": 4, "levels": [1, 2, 5]},
    "lines": [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0]],
    "pays": {
        "W": {"3": 50, "4": 200, "5": 1000},
        "A": {"2": 2, "3": 20, "4": 60, "5": 300},
        "B": {"3": 10, "4": 30, "5": 100},
        "C": {"3": 5, "4": 15, "5": 50},
    },
    "wild": {"symbol": "W", "substitutes": "all", "multiplier": 2, "multiplier_mode": "line"},
    "scatter": {"symbol": "S", "pays": {"2": 4, "3": 20, "4": 100, "5": 400}},
    "strips": {
        "base": [["W", "A", "X", "B", "S", "C", "X", "A", "B", "C"]] * 5,
        "free": [["W", "A", "B", "S", "C", "X", "A", "C"]] * 5,
    },
    "free_spins": {"awards": {"3": 5, "4": 8, "5": 10}, "multiplier": 3, "retrigger": True,
                   "max_spins": 20, "strips": "free"},
    "max_win_x": 1000,
    "gamble": {"max_steps": 3},
}


def toy_model(**changes: Any) -> dict[str, Any]:
    """A deep copy of TOY with top-level keys replaced (``None`` removes a key); strips given
    without a free-spin set use the base strips for free spins too."""
    data = copy.deepcopy(TOY)
    if "strips" in changes and "free" not in changes["strips"]:
        changes["strips"] = {**changes["strips"], "free": changes["strips"]["base"]}
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def toy_game(**changes: Any) -> LineGame:
    return LineGame(LineModel.from_dict(toy_model(**changes)))


@pytest.fixture
def toy() -> LineGame:
    return toy_game()
