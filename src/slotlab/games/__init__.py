"""The games the platform knows: every game family, registered once, and its games found by id
or by model-file path.

A family (:class:`~slotlab.games.contract.GameFamily`) is registered in :data:`FAMILIES`; that is
all a new family needs. Its game class is imported on first use, so that loading one game never
compiles another's kernels. A model file says its family in a ``family`` field; a file without
one is a line model if its ``format`` says so, else it is tried against every family's schema
(files written before the field existed).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from slotlab.games.contract import AnyGame, FamilyGame, GameFamily, UnknownGameError
from slotlab.model import ModelError, read_json

GAMES = Path(__file__).parent
LINE_MODELS = GAMES / "lines" / "models"

FAMILIES: dict[str, GameFamily] = {f.name: f for f in [
    GameFamily("crystal_star_deluxe", "slotlab.games.crystal_star_deluxe.game:CrystalStarDeluxe",
               shipped={"crystal-star-deluxe":
                        GAMES / "crystal_star_deluxe" / "models" / "crystal-star-deluxe.v1.json"}),
    GameFamily("superstars", "slotlab.games.superstars.game:Superstars",
               shipped={i: GAMES / "superstars" / "models" / f"{i}.json"
                        for i in ("superstars", "superstars-96", "superstars-92")},
               variants={"superstars-96": "superstars", "superstars-92": "superstars"}),
    GameFamily("super_12_stars", "slotlab.games.super_12_stars.game:Super12Stars",
               shipped={"super-12-stars":
                        GAMES / "super_12_stars" / "models" / "super-12-stars.v2.json"}),
    GameFamily("lines", "slotlab.games.lines.game:LineGame", models=LINE_MODELS,
               formats=("slotlab.lines",)),
    GameFamily("composed", "slotlab.games.composed.game:ComposedGame",
               models=GAMES / "composed" / "models", formats=("slotlab.composed",)),
]}

# What a family's loader raises on a model that is not one of its own.
_BUILD_ERRORS = (ModelError, ValueError, KeyError, IndexError, TypeError, ZeroDivisionError)


def family(name: str) -> GameFamily:
    """The registered family ``name`` (:class:`UnknownGameError` for any other)."""
    if name not in FAMILIES:
        raise UnknownGameError(f"unknown game family {name!r}; known families: "
                               f"{', '.join(FAMILIES)}")
    return FAMILIES[name]


@contextmanager
def registered(new: GameFamily) -> Iterator[GameFamily]:
    """``new`` registered for the time of a ``with`` block (tests and embedding)."""
    if new.name in FAMILIES:
        raise ValueError(f"a game family {new.name!r} is registered already")
    FAMILIES[new.name] = new
    find_game.cache_clear()
    try:
        yield new
    finally:
        del FAMILIES[new.name]
        find_game.cache_clear()


def game_ids() -> list[str]:
    """Every shipped game id, family by family in the order they are registered."""
    return [i for f in FAMILIES.values() for i in f.ids()]


def variant_of(game_id: str) -> str | None:
    """The game whose RTP variant ``game_id`` is, or None for a game in its own right."""
    return next((f.variants[game_id] for f in FAMILIES.values() if game_id in f.variants), None)


def offered_ids() -> list[str]:
    """The games a lobby offers by default: every game id but the other games' variants."""
    return [i for i in game_ids() if variant_of(i) is None]


@cache
def find_game(ref: str) -> AnyGame:
    """The game with id ``ref``, or the game of any family defined by the model file ``ref``
    (each loaded once per process)."""
    for fam in FAMILIES.values():
        shipped = fam.shipped_file(ref)
        if shipped is not None:
            return fam.from_file(shipped)
    path = Path(ref)
    if path.is_file():
        return game_of_data(read_json(path), str(path))
    if path.suffix == ".json" or len(path.parts) > 1:
        raise UnknownGameError(f"model file {ref!r} does not exist")
    raise UnknownGameError(f"unknown game {ref!r}; known games: {', '.join(game_ids())}")


def game_of_data(data: dict[str, Any], source: str = "<dict>") -> AnyGame:
    """The game on a model's data, of the family it declares (or, undeclared, fits)."""
    declared = [f for f in FAMILIES.values() if f.declared_by(data)]
    if "family" in data and not declared:
        raise ModelError(f"{source}: family: unknown game family {data['family']!r}; known "
                         f"families: {', '.join(FAMILIES)}")
    if declared:
        return _built(declared[0], data, source)
    problems: list[tuple[int, str, str]] = []
    for fam in FAMILIES.values():
        try:
            return _built(fam, data, source)
        except _BUILD_ERRORS as exc:
            text = str(exc)
            problems.append((text.count("\n"), fam.name, text))
    _, name, text = min(problems)
    raise ModelError(f"{source}: not a valid model of any known game; closest is "
                     f"{name.replace('_', ' ')}: {text.removeprefix(f'{source}: ')}")


def _built(fam: GameFamily, data: dict[str, Any], source: str) -> AnyGame:
    """The family's game on ``data``; a model error names the file, not the parsed dict."""
    try:
        return fam.from_data(data)
    except ModelError as exc:
        raise ModelError(str(exc).replace("<dict>", source, 1)) from exc


def model_source(game: FamilyGame[Any]) -> tuple[str, dict[str, Any]]:
    """``(family, model data)`` of a game: what :func:`game_from_source` rebuilds it from, so
    that a model version stays playable after its file is edited (the server keeps these)."""
    return game.model_source()


def game_from_source(family_name: str, data: dict[str, Any]) -> AnyGame:
    """The game of ``family_name`` on the model ``data`` (as :func:`model_source` gave it)."""
    return family(family_name).from_data(data)


def all_games() -> list[AnyGame]:
    return [find_game(i) for i in game_ids()]


__all__ = ["FAMILIES", "LINE_MODELS", "AnyGame", "FamilyGame", "GameFamily", "UnknownGameError",
           "all_games", "family", "find_game", "game_from_source", "game_ids", "game_of_data",
           "model_source", "offered_ids", "registered", "variant_of"]
