"""A server holds each game to its certified evidence bundle (``SLOTLAB_CERTIFIED_BUNDLES``):
a game whose kernel or model file differs from its bundle is not offered (the lobby says so,
a round start gets 503 ``game_out_of_service``, the log and ``GET /api/admin/integrity`` say
why), at start-up and in the integrity check while it runs; an unchanged one is offered.

The bundle is made by ``slotlab certify`` in its short form from the installed package. The
changed code runs for real: a server process started from a copy of the package (``PYTHONPATH``),
its own kernel cache beside it, the copy's file changed; the installed package is never touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import slotlab
from slotlab import certify
from slotlab.games import find_game
from slotlab.server.settings import Settings

from .. import processes
from .server_util import ADMIN_TOKEN, MANY_PLAYERS_ENV, LiveServer, free_port, key

GAME = "classic-3x3"
OTHER = "fruit-5x3"
KERNEL = Path("games/lines/kernel.py")
MODEL = Path("games/lines/models/classic-3x3.json")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The short form of the game's bundle (few spins, the rule map's tests not run): its
    digests are the full ones."""
    out = tmp_path_factory.mktemp("bundle")
    certify.make(find_game(GAME), GAME, out, 2000, test_marker="none", stop_rounds=100,
                 draws=1000, bonuses=200, server=False, battery=False,
                 seed=b"certified-bundle-test")
    return out


class CopyServer:
    """``slotlab serve`` run from a copy of the installed package, on an SQLite file."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.package = root / "slotlab"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = root / "server.log"
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> CopyServer:
        self.proc = processes.start(
            [sys.executable, "-m", "slotlab.cli", "serve", "--port", str(self.port),
             "--db", f"sqlite:///{self.root / 'slotlab.db'}"], self.log, self.env)
        # its own kernel cache is cold: it compiles the game first
        processes.wait_until_answers(self.proc, f"{self.url}/health/ready", self.log)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            processes.stop(self.proc)

    def client(self, token: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=60,
                            headers={"Authorization": f"Bearer {token}"} if token else {})

    def player(self) -> httpx.Client:
        creds = {"username": f"p{os.urandom(5).hex()}", "password": "correct horse 1"}
        with self.client() as c:
            assert c.post("/api/players", json=creds).status_code == 201
            token = c.post("/api/sessions", json=creds).json()["token"]
        return self.client(token)


@pytest.fixture
def copy_server(tmp_path: Path, bundle: Path) -> Iterator[Callable[..., CopyServer]]:
    """A copy of the package (modification times kept) and a server started from it, offering
    the game under ``mt`` with the bundle configured; ``change`` edits the copy first."""
    shutil.copytree(Path(slotlab.__file__).parent, tmp_path / "slotlab",
                    ignore=shutil.ignore_patterns("__pycache__"))
    started: list[CopyServer] = []

    def start(change: Callable[[Path], None] | None = None) -> CopyServer:
        if change is not None:
            change(tmp_path / "slotlab")
        env = {**os.environ, **MANY_PLAYERS_ENV,
               "PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
               "SLOTLAB_GAMES": json.dumps([GAME]), "SLOTLAB_JURISDICTION": "mt",
               "SLOTLAB_CERTIFIED_BUNDLES": str(bundle), "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
               "SLOTLAB_ARGON2_TIME_COST": "1", "SLOTLAB_ARGON2_MEMORY_KIB": "64"}
        srv = CopyServer(tmp_path, env).start()
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


def _offered(srv: CopyServer | LiveServer) -> dict[str, bool]:
    with srv.client() as c:
        return {g["id"]: g["in_service"] for g in c.get("/api/games").json()}


def _report(srv: CopyServer | LiveServer, run: bool = False) -> dict[str, Any]:
    with srv.client(ADMIN_TOKEN) as c:
        r = c.post("/api/admin/integrity") if run else c.get("/api/admin/integrity")
        assert r.status_code == 200, r.text
        return dict(r.json())


def _game(report: dict[str, Any], gid: str = GAME) -> dict[str, Any]:
    return dict(next(g for g in report["games"] if g["game"] == gid))


def _spin(c: httpx.Client, gid: str = GAME, bet: int = 5) -> httpx.Response:
    return c.post(f"/api/games/{gid}/rounds", json={"bet": bet}, headers=key())


def test_the_certified_code_is_offered_and_a_kernel_changed_while_running_is_not(
        copy_server: Callable[..., CopyServer], bundle: Path) -> None:
    srv = copy_server()
    with srv.player() as c:
        assert _spin(c).status_code == 201
    report = _report(srv)
    assert report["ok"] and _game(report)["bundle"] == str(bundle)
    assert report["certified_bundles"] == {"folders": [str(bundle)], "required_by_profile": True,
                                           "enforced": True, "note": None}
    kernel = srv.package / KERNEL
    original = kernel.read_bytes()
    kernel.write_bytes(original + b"# a line the lab did not certify\n")
    game = _game(_report(srv, run=True))  # the integrity check the server runs every 24 h
    assert not game["in_service"]
    assert f"changed kernel {KERNEL.as_posix()}" in game["reason"] and str(bundle) in \
        game["reason"]
    assert _offered(srv) == {GAME: False}
    with srv.player() as c:
        before = c.get("/api/wallet").json()["balance"]
        refused = _spin(c)
        assert refused.status_code == 503
        assert refused.json()["error"]["code"] == "game_out_of_service"
        assert c.get("/api/wallet").json()["balance"] == before
    assert f"integrity: game {GAME} taken out of play" in srv.log.read_text()
    kernel.write_bytes(original)
    assert _report(srv, run=True)["ok"] and _offered(srv) == {GAME: True}


def _reindented(package: Path) -> None:
    """The model file rewritten with other indentation: the same model (content hash), another
    file (SHA-256)."""
    path = package / MODEL
    path.write_text(json.dumps(json.loads(path.read_text()), indent=2))


def _paying_more(package: Path) -> None:
    path = package / MODEL
    data = json.loads(path.read_text())
    data["name"] = data["name"] + " (changed)"  # any change of the model: another hash
    path.write_text(json.dumps(data, indent=1))


@pytest.mark.parametrize(("change", "says"), [
    (_reindented, f"changed model {MODEL.as_posix()}"),
    (_paying_more, "its certified bundle"),
])
def test_a_model_file_changed_before_start_up_is_refused_from_the_start(
        copy_server: Callable[..., CopyServer], change: Callable[[Path], None],
        says: str) -> None:
    srv = copy_server(change)
    game = _game(_report(srv))
    assert not game["in_service"] and says in game["reason"]
    assert _offered(srv) == {GAME: False}
    with srv.player() as c:
        r = _spin(c)
    assert r.status_code == 503 and r.json()["error"]["code"] == "game_out_of_service"


@pytest.mark.parametrize(("jurisdiction", "other_in_play"), [("mt", False), ("on", True)])
def test_a_profile_requiring_bundles_refuses_a_game_none_covers(
        serve_games: Callable[..., LiveServer], bundle: Path, jurisdiction: str,
        other_in_play: bool) -> None:
    """Only the first game has a bundle: under mt (which requires one per game) the other is
    out of play; under Ontario (which does not) it plays, and the certified one is checked
    in both."""
    srv = serve_games(GAME, OTHER, certified_bundles=[str(bundle)], jurisdiction=jurisdiction)
    assert _offered(srv) == {GAME: True, OTHER: other_in_play}
    report = _report(srv)
    assert _game(report)["bundle"] == str(bundle) and _game(report, OTHER)["bundle"] is None
    for gid, bet, code in ((GAME, 5, 201), (OTHER, 30, 201 if other_in_play else 503)):
        c, _ = srv.player()  # one each: a win of the first may wait on its gamble
        with c:
            assert _spin(c, gid, bet).status_code == code
    if not other_in_play:
        assert "no certified bundle covers" in _game(report, OTHER)["reason"]


def test_an_unreadable_bundle_takes_every_game_out(serve_games: Callable[..., LiveServer],
                                                  tmp_path: Path) -> None:
    srv = serve_games(GAME, certified_bundles=[str(tmp_path / "no-bundle-here")],
                      jurisdiction="on")
    assert _offered(srv) == {GAME: False}
    assert "certified bundle unusable" in _game(_report(srv))["reason"]


def test_a_requiring_profile_without_bundles_says_they_are_not_enforced(
        serve_games: Callable[..., LiveServer]) -> None:
    srv = serve_games(GAME, jurisdiction="gb")
    status = _report(srv)["certified_bundles"]
    assert status["required_by_profile"] and not status["enforced"]
    assert "SLOTLAB_CERTIFIED_BUNDLES" in status["note"]


@pytest.mark.parametrize("value", ["/srv/a:/srv/b", '["/srv/a", "/srv/b"]'])
def test_the_setting_takes_folders_as_a_path_list_or_json(
        monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SLOTLAB_CERTIFIED_BUNDLES", value)
    assert Settings().certified_bundles == ["/srv/a", "/srv/b"]
