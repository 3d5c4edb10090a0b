"""Model versions that shipped with earlier releases and have since been replaced.

Each is a file ``games/archive/<model hash>.json`` holding ``{"family", "game_id", "model"}``. A
server that played rounds on such a version before it kept model sources by hash
(:mod:`slotlab.store.model_sources`) still finds the model here, so those rounds keep replaying
as identical and open ones stay resumable. When a shipped model file changes, its previous
version is added here (``slotlab.model_archive.archive``); nothing is ever removed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from slotlab.games import AnyGame, game_from_source
from slotlab.model import content_hash

ARCHIVE = Path(__file__).parent / "games" / "archive"


def archived(model_hash: str) -> AnyGame | None:
    """The game on the archived model version with this hash, or None."""
    if not model_hash.isalnum():  # a hash names a file: nothing else may reach the path
        return None
    path = ARCHIVE / f"{model_hash}.json"
    if not path.is_file():
        return None
    entry: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    game = game_from_source(entry["family"], entry["model"])
    if game.model_hash != model_hash:
        raise ValueError(f"{path}: the archived model does not have the hash it is filed under")
    return game


def archive(game: AnyGame, folder: Path = ARCHIVE) -> Path:
    """File the model version ``game`` plays on, before its model file is changed."""
    family, data = game.model_source()
    model_hash = content_hash(data)
    path = folder / f"{model_hash}.json"
    entry = {"family": family, "game_id": game.id, "model": data}
    path.write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
