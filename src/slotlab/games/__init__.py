"""The games the platform knows, found by id or by model-file path.

Built-in games are registered in ``_BUILTIN`` as ``id -> "module:factory"`` and imported on first
use, so that loading one game never compiles another's kernels. Every model file in
``games/lines/models/`` is a data-only line game whose id is its file name.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import Any

from slotlab.rounds import Game

LINE_MODELS = Path(__file__).parent / "lines" / "models"

_BUILTIN: dict[str, str] = {
    "crystal-star-deluxe": "slotlab.games.crystal_star_deluxe.game:load",
    "superstars": "slotlab.games.superstars.game:load",
    "superstars-96": "slotlab.games.superstars.game:load_96",
    "superstars-92": "slotlab.games.superstars.game:load_92",
    "super-12-stars": "slotlab.games.super_12_stars.game:load",
}


# Other RTP variants of a game: listed by `slotlab games`, loadable by id, but offered by the
# server only as the variant an operator chooses for the game (SLOTLAB_VARIANTS).
_VARIANT_OF: dict[str, str] = {
    "superstars-96": "superstars",
    "superstars-92": "superstars",
}


class UnknownGameError(LookupError):
    """No game has this id and no model file has this path."""


def game_ids() -> list[str]:
    """Every known game id: built-in games first, then the shipped line models."""
    lines = sorted(p.stem for p in LINE_MODELS.glob("*.json"))
    return [*_BUILTIN, *(i for i in lines if i not in _BUILTIN)]


def variant_of(game_id: str) -> str | None:
    """The game whose RTP variant ``game_id`` is, or None for a game in its own right."""
    return _VARIANT_OF.get(game_id)


def offered_ids() -> list[str]:
    """The games a lobby offers by default: every game id but the other games' variants."""
    return [i for i in game_ids() if i not in _VARIANT_OF]


@cache
def find_game(ref: str) -> Game:
    """The game with id ``ref``, or the line game defined by the model file at path ``ref``."""
    if ref in _BUILTIN:
        module, factory = _BUILTIN[ref].split(":")
        return getattr(importlib.import_module(module), factory)()  # type: ignore[no-any-return]
    path = LINE_MODELS / f"{ref}.json"
    if not path.exists():
        path = Path(ref)
    if path.is_file():
        from slotlab.games.lines.game import LineGame

        return LineGame.from_file(path)
    if path.suffix == ".json" or len(path.parts) > 1:
        raise UnknownGameError(f"model file {ref!r} does not exist")
    raise UnknownGameError(f"unknown game {ref!r}; known games: {', '.join(game_ids())}")


# How to build a game of each family from a model's data: ``family -> "module:factory"``. The
# family of a game is the package it comes from (``slotlab.games.<family>``).
_FROM_DATA: dict[str, str] = {
    "lines": "slotlab.games.lines.game:LineGame.from_data",
    "crystal_star_deluxe": "slotlab.games.crystal_star_deluxe.game:CrystalStarDeluxe.from_data",
    "super_12_stars": "slotlab.games.super_12_stars.game:Super12Stars.from_data",
    "superstars": "slotlab.games.superstars.game:Superstars.from_data",
}


def model_source(game: Game) -> tuple[str, dict[str, Any]]:
    """``(family, model data)`` of a game: what :func:`game_from_source` rebuilds it from, so
    that a model version stays playable after its file is edited (the server keeps these)."""
    family = type(game).__module__.split(".")[2]
    return family, game.model.raw  # type: ignore[attr-defined]


def game_from_source(family: str, data: dict[str, Any]) -> Game:
    """The game of ``family`` on the model ``data`` (as :func:`model_source` gave it)."""
    if family not in _FROM_DATA:
        raise UnknownGameError(f"unknown game family {family!r}")
    module, factory = _FROM_DATA[family].split(":")
    target: Any = importlib.import_module(module)
    for name in factory.split("."):
        target = getattr(target, name)
    return target(data)  # type: ignore[no-any-return]


def all_games() -> list[Game]:
    return [find_game(i) for i in game_ids()]
