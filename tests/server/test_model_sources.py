"""Every model version that played a round stays loadable by its hash (issues 10 and 14).

The server keeps the source of every model it offers in ``model_sources`` before a round is
played on it. A model file edited in place (a pay tuned, a display text corrected) then still
leaves its old rounds replaying as identical and its open rounds resuming on their own model;
model versions shipped by earlier releases are found in the package's model archive.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from slotlab.games import LINE_MODELS, find_game, game_from_source, model_source
from slotlab.model_archive import ARCHIVE, archive, archived
from slotlab.server.services import catalog, rounds
from slotlab.server.settings import Settings
from slotlab.store import Database
from slotlab.store.model_sources import ModelSources
from slotlab.store.models import ModelSource

from .server_util import LiveServer, key, server_settings

GAME = "classic-3x3"
BET = 5


def _model() -> dict[str, Any]:
    model: dict[str, Any] = json.loads((LINE_MODELS / f"{GAME}.json").read_text())
    model["id"] = f"{GAME}-edited"
    return model


def _more_for_sevens(m: dict[str, Any]) -> None:
    m["pays"]["SEVEN"]["3"] = 130


def _renamed(m: dict[str, Any]) -> None:
    m["name"] = m["name"] + " Deluxe"


@pytest.fixture
def serve(serve_games: Callable[..., LiveServer]) -> Callable[..., LiveServer]:
    return functools.partial(serve_games, GAME)


def _seed_where(want: Callable[[bytes], bool], tries: int = 200_000) -> bytes:
    for _ in range(tries):
        seed = os.urandom(32)
        if want(seed):
            return seed
    raise AssertionError("no seed found")


@pytest.mark.parametrize("edit", [_more_for_sevens, _renamed], ids=["pays", "display-text"])
def test_rounds_replay_and_resume_on_their_model_after_its_file_is_edited(
        serve, tmp_path: Path, monkeypatch, edit):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(_model()))
    before = find_game(str(path))
    seed1, seed2 = (_seed_where(lambda s: before.play(BET, [s]).awaiting is not None)
                    for _ in range(2))
    if edit is _more_for_sevens:  # the second round pays differently on the edited model
        after_model = _model()
        edit(after_model)
        after_game = game_from_source("lines", after_model)
        seed2 = _seed_where(lambda s: before.play(BET, [s]).awaiting is not None
                            and before.play(BET, [s]).win != after_game.play(BET, [s]).win)
    queue = [seed1, os.urandom(32), seed2]  # the second seed comes with the first choice
    fresh = rounds.fresh_seed
    monkeypatch.setattr(rounds, "fresh_seed", lambda: queue.pop(0) if queue else fresh())

    srv = serve(variants={GAME: str(path)})
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    first = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key()).json()
    done = c.post(f"/api/rounds/{first['round_id']}/choices",
                  json={"choice": "collect", "step": first["step"]},
                  headers=key()).json()
    assert done["status"] == "completed"
    waiting = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key()).json()
    assert waiting["status"] == "awaiting_choice"
    srv.__exit__()

    # The model file is edited in place, and the server restarts on it.
    model = _model()
    edit(model)
    path.write_text(json.dumps(model))
    find_game.cache_clear()  # what a restart does: the file is read anew
    now = find_game(str(path))
    assert now.model_hash != before.model_hash
    srv2 = serve(variants={GAME: str(path)})
    c2 = srv2.client(token)
    replay = c2.get(f"/api/rounds/{first['round_id']}/replay").json()
    assert replay["identical"]
    assert replay["replayed_model_hash"] == replay["recorded_model_hash"] == before.model_hash
    assert replay["current_model_hash"] == now.model_hash
    # The open round resumes, and completes, on the model it was started on.
    assert c2.get("/api/rounds/open").json()["round_id"] == waiting["round_id"]
    end = c2.post(f"/api/rounds/{waiting['round_id']}/choices",
                  json={"choice": "collect", "step": waiting["step"]},
                  headers=key()).json()
    assert end["status"] == "completed" and end["model_hash"] == before.model_hash
    assert end["win"] == before.play(BET, [seed2]).win
    assert c2.get(f"/api/rounds/{waiting['round_id']}/replay").json()["identical"]
    new = c2.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key()).json()
    assert new["model_hash"] == now.model_hash
    assert srv2.admin().get("/api/admin/audit").json()["ok"]


def test_without_the_kept_source_an_edited_model_cannot_be_replayed(serve, tmp_path: Path,
                                                                    monkeypatch):
    """The control: with the table emptied, the edited file alone cannot replay the round."""
    path = tmp_path / "model.json"
    path.write_text(json.dumps(_model()))
    srv = serve(variants={GAME: str(path)})
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    played = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key()).json()
    if played["status"] == "awaiting_choice":
        c.post(f"/api/rounds/{played['round_id']}/choices",
               json={"choice": "collect", "step": played["step"]},
               headers=key())
    srv.__exit__()
    model = _model()
    _renamed(model)
    path.write_text(json.dumps(model))
    find_game.cache_clear()
    srv2 = serve(variants={GAME: str(path)})
    with srv2.ctx.db.write() as s:
        s.execute(update(ModelSource).values(source="{}"))  # damaged: no longer the model
    replay = srv2.client(token).get(f"/api/rounds/{played['round_id']}/replay").json()
    assert not replay["identical"] and not replay["model_hash_matches"]


def test_sources_are_kept_once_and_load_back_by_hash(database: Any) -> None:
    db = Database(database.url)
    db.migrate()
    try:
        sources = ModelSources(db)
        game = find_game("crystal-star-deluxe")
        assert sources.keep(game) and sources.keep(game)  # a second process: no error
        loaded = sources.load(game.model_hash)
        assert loaded is not None and loaded.model_hash == game.model_hash
        assert type(loaded) is type(game) and loaded is not game
        assert sources.load("0" * 64) is None
        with db.write() as s:  # a damaged row is refused, never played in the model's place
            s.execute(update(ModelSource).values(source=json.dumps({"id": "x"})))
        with pytest.raises(ValueError):  # the model is invalid, or not of its hash
            sources.load(game.model_hash)
    finally:
        db.dispose()


def test_every_archived_model_version_loads_under_its_hash() -> None:
    files = sorted(ARCHIVE.glob("*.json"))
    for path in files:
        game = archived(path.stem)
        assert game is not None and game.model_hash == path.stem
    assert archived("../../etc/passwd") is None and archived("0" * 64) is None


def test_archive_files_a_version_that_the_catalogue_then_finds(tmp_path: Path,
                                                               monkeypatch) -> None:
    game = find_game(GAME)
    path = archive(game, tmp_path)
    assert path.name == f"{game.model_hash}.json"
    monkeypatch.setattr("slotlab.model_archive.ARCHIVE", tmp_path)
    cat = catalog.Catalog({}, None, None)
    found = cat.model("some-game", "gone.json", game.model_hash)
    assert found is not None and found.model_hash == game.model_hash
    family, data = model_source(found)
    assert family == "lines" and data == game.model.raw  # type: ignore[attr-defined]


def test_the_catalogue_keeps_every_offered_model(database: Any) -> None:
    db = Database(database.url)
    db.migrate()
    try:
        cat = catalog.load_catalog(Settings(games=[GAME, "super-12-stars"]), None,
                                   ModelSources(db))
        with db.read() as s:
            kept = {r.model_hash: r.game_id for r in s.query(ModelSource)}
        assert {e.game.model_hash: e.id for e in cat} == kept
    finally:
        db.dispose()


def test_a_round_on_a_shipped_version_since_replaced_replays_from_the_archive(database: Any):
    """A round played on Crystal Star Deluxe's model before its display texts changed (a server
    that predates the kept sources: the table is emptied) replays as identical after it."""
    from sqlalchemy import delete

    gid = "crystal-star-deluxe"
    old = archived("a314bcec743132e9b39ab6413e176d9b42cc43463bf971a15ca36c4181705eec")
    assert old is not None and old.model_hash != find_game(gid).model_hash
    srv = LiveServer(server_settings(database, games=[gid]), {gid: old})
    srv.__enter__()
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    played = c.post(f"/api/games/{gid}/rounds", json={"bet": 9}, headers=key()).json()
    assert played["status"] == "completed" and played["model_hash"] == old.model_hash
    with srv.ctx.db.write() as s:
        s.execute(delete(ModelSource))
    srv.__exit__()
    srv2 = LiveServer(server_settings(database, games=[gid]), None)
    srv2.__enter__()
    try:
        replay = srv2.client(token).get(f"/api/rounds/{played['round_id']}/replay").json()
        assert replay["identical"] and replay["replayed_model_hash"] == old.model_hash
        assert replay["current_model_hash"] == find_game(gid).model_hash
    finally:
        srv2.__exit__()
