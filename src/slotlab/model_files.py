"""Any game's model file, loaded by what it holds: a math designer edits a copy of a shipped
model and every command takes its path where it takes a game id.

A line model says its format (``"format": "slotlab.lines/1"``); the seed games' models are
recognised by validating them against each family's schema. A file that fits none gets one
error naming the family it comes closest to and what is wrong with it for that family.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from slotlab.games import UnknownGameError, find_game, game_from_source, model_source
from slotlab.model import ModelError, read_json
from slotlab.rounds import Game

FAMILIES = ("lines", "crystal_star_deluxe", "super_12_stars", "superstars")
_BUILD_ERRORS = (ModelError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError)


def game_of_data(data: dict[str, Any], source: str) -> tuple[str, Game]:
    """``(family, game)`` for a model's data, whichever family it belongs to."""
    fmt = data.get("format")
    families = ["lines"] if isinstance(fmt, str) and fmt.startswith("slotlab.lines") else [
        f for f in FAMILIES if f != "lines"]
    problems: list[tuple[int, str, str]] = []
    for family in families:
        try:
            return family, game_from_source(family, data)
        except _BUILD_ERRORS as exc:
            text = str(exc)
            problems.append((text.count("\n"), family, text))
    if not isinstance(fmt, str) and "reels" in data and "pays" in data:
        try:  # a line model without its format line
            return "lines", game_from_source("lines", data)
        except _BUILD_ERRORS as exc:
            problems.append((str(exc).count("\n"), "lines", str(exc)))
    _, family, text = min(problems)
    raise ModelError(f"{source}: not a valid model of any known game; closest is "
                     f"{family.replace('_', ' ')}: {text.removeprefix('<dict>: ')}")


def load_game(ref: str) -> Game:
    """The game with id ``ref``, or the game of any family defined by the model file ``ref``."""
    path = Path(ref)
    if not path.is_file():
        return find_game(ref)
    data = read_json(path)
    fmt = data.get("format")
    if isinstance(fmt, str) and fmt.startswith("slotlab.lines"):
        return find_game(ref)  # the registry's own loader (also what worker processes use)
    return game_of_data(data, str(path))[1]


def load_model(ref: str) -> tuple[str, dict[str, Any], Game]:
    """``(family, model data, game)`` of a game id or a model file."""
    game = load_game(ref)
    family, raw = model_source(game)
    return family, raw, game


__all__ = ["FAMILIES", "UnknownGameError", "game_of_data", "load_game", "load_model"]
