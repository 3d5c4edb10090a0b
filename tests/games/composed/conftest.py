"""Lucky Coin Link, a composed game shipped as a model file alone, and rounds of it played from
fixed seeds, so that each rule test finds the rounds where its rule applies."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest

from slotlab.games import find_game
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.rng import parse_seed
from slotlab.rounds import RoundResult

GAME_ID = "lucky-coin-link"
BET = 20  # level 1: one pay unit is one credit
CORPUS = 6000  # rounds from seeds 0..CORPUS-1


def shipped_raw() -> dict[str, Any]:
    game = find_game(GAME_ID)
    assert isinstance(game, ComposedGame)
    return copy.deepcopy(game.model.raw)


def variant(**changes: Any) -> ComposedGame:
    """The shipped game with top-level keys of its model replaced."""
    raw = shipped_raw()
    raw.update(json.loads(json.dumps(changes)))
    return ComposedGame(ComposedModel.from_dict(raw))


@cache
def _corpus() -> tuple[RoundResult, ...]:
    game = find_game(GAME_ID)
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(CORPUS))


@pytest.fixture(scope="session")
def game() -> ComposedGame:
    g = find_game(GAME_ID)
    assert isinstance(g, ComposedGame)
    return g


@pytest.fixture(scope="session")
def corpus() -> tuple[RoundResult, ...]:
    return _corpus()
