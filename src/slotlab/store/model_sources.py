"""Model versions kept by hash, so that a round always finds the model it was played on.

A model file can be edited in place (a display text corrected, a pay tuned) or removed; its hash
then names a model no file holds. The server keeps the source of every model it offers (at
start-up, before any round is played on it), and a round's model is rebuilt from it by hash.
Model versions shipped by earlier releases, from before this table, are in the package's model
archive (:mod:`slotlab.model_archive`).
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from slotlab.games import FamilyGame, game_from_source
from slotlab.model import canonical_json, content_hash
from slotlab.rounds import Game
from slotlab.store.engine import Database
from slotlab.store.models import ModelSource, utcnow

log = logging.getLogger("slotlab.server")


class ModelSources:
    """The ``model_sources`` table: ``keep`` a game's model, ``load`` one back by its hash."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def keep(self, game: Game) -> bool:
        """Store the model of ``game`` unless its hash is stored already; False when the game
        cannot say its model (a game embedded for tests, say)."""
        if not isinstance(game, FamilyGame):
            log.debug("game %s is not one of the engine's games; its model is not kept", game.id)
            return False
        family, data = game.model_source()
        if content_hash(data) != game.model_hash:
            raise ValueError(f"game {game.id}: its model data does not have its model hash")
        with self.db.read() as s:
            if s.get(ModelSource, game.model_hash) is not None:
                return True
        row = ModelSource(model_hash=game.model_hash, family=family, game_id=game.id,
                          source=canonical_json(data).decode(), stored_at=utcnow())
        try:
            with self.db.write() as s:
                s.add(row)
        except IntegrityError:  # another server process stored it first
            pass
        return True

    def source(self, model_hash: str) -> tuple[str, str, dict[str, Any]] | None:
        """``(family, game id, model data)`` of a stored model, or None."""
        with self.db.read() as s:
            row = s.execute(select(ModelSource.family, ModelSource.game_id, ModelSource.source)
                            .where(ModelSource.model_hash == model_hash)).one_or_none()
        if row is None:
            return None
        return row.family, row.game_id, json.loads(row.source)

    def load(self, model_hash: str) -> Game | None:
        """The game on the stored model with this hash, or None when none is stored."""
        found = self.source(model_hash)
        if found is None:
            return None
        family, _, data = found
        game = game_from_source(family, data)
        if game.model_hash != model_hash:  # a damaged row must not stand in for the model
            raise ValueError(f"stored model {model_hash[:12]} does not have its hash")
        return game
