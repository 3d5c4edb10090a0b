"""Software integrity (R21): the code digest and every model checked against the operator's
certified list, and the compiled kernels against the digests this install recorded, at start-up
and periodically; a game that fails is out of play (503 ``game_out_of_service``), with an alert
in the log and in ``GET /api/admin/integrity``; its open rounds wait for it.

The kernel-cache tests work on a copy of the cache (``NUMBA_CACHE_DIR`` points the check at it):
the real cache is shared by every process on this machine and is never written to here.
"""

from __future__ import annotations

import functools
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from slotlab.games import find_game
from slotlab.integrity import CertifiedList, certified_list, kernel_cache_dir, kernel_cache_files
from slotlab.server.services import rounds

from .server_util import LiveServer, key

GAME = "classic-3x3"
OTHER = "fruit-5x3"
BET = 5


@pytest.fixture
def serve(serve_games: Callable[..., LiveServer]) -> Callable[..., LiveServer]:
    return functools.partial(serve_games, GAME, OTHER)


@pytest.fixture
def cache_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the compiled-kernel cache that the integrity check reads instead of the real."""
    find_game(GAME).play(BET, [b"\0" * 32])  # compiled (and so cached) before the copy
    copy = tmp_path / "numba"
    shutil.copytree(kernel_cache_dir(), copy)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(copy))
    return copy


def _write_list(path: Path, **change: Any) -> str:
    data = certified_list(find_game(g) for g in (GAME, OTHER))
    data.update(change)
    path.write_text(json.dumps(data))
    return str(path)


def _by_game(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {g["game"]: g for g in report["games"]}


def _spin(c: Any) -> Any:
    return c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key())


def test_an_install_matching_its_certified_list_is_in_play(serve, tmp_path: Path):
    srv = serve(certified_list=_write_list(tmp_path / "certified.json"))
    report = srv.admin().get("/api/admin/integrity").json()
    assert report["ok"] and report["certified_list"] and report["checked_at"]
    games = _by_game(report)
    assert games[GAME]["certified"] is True and games[GAME]["in_service"]
    assert games[GAME]["kernel_files"] > 0  # its compiled kernels are covered too
    c, _ = srv.player()
    assert _spin(c).status_code == 201
    with srv.client() as anon:
        assert all(g["in_service"] for g in anon.get("/api/games").json())


def test_without_a_certified_list_the_report_says_so(serve):
    report = serve().admin().get("/api/admin/integrity").json()
    assert report["ok"] and report["certified_list"] is None
    assert {g["certified"] for g in report["games"]} == {None}


def test_an_uncertified_model_is_out_of_play_and_takes_no_bet(serve, tmp_path: Path):
    other_only = {find_game(OTHER).model_hash: OTHER}
    srv = serve(certified_list=_write_list(tmp_path / "c.json", models=other_only))
    c, _ = srv.player()
    before = c.get("/api/wallet").json()["balance"]
    r = _spin(c)
    assert r.status_code == 503 and r.json()["error"]["code"] == "game_out_of_service"
    assert c.get("/api/wallet").json()["balance"] == before
    assert c.get("/api/history").json()["rounds"] == []
    assert c.post(f"/api/games/{OTHER}/rounds", json={"bet": 30}, headers=key()
                  ).status_code == 201  # the certified game still plays
    report = srv.admin().get("/api/admin/integrity").json()
    assert not report["ok"]
    assert "is not certified" in _by_game(report)[GAME]["reason"]
    assert [a["game"] for a in report["alerts"]] == [GAME]
    with srv.client() as anon:
        listed = {g["id"]: g["in_service"] for g in anon.get("/api/games").json()}
    assert listed == {GAME: False, OTHER: True}


def test_a_changed_code_digest_takes_every_game_out(serve, tmp_path: Path):
    srv = serve(certified_list=_write_list(tmp_path / "c.json", code="0" * 64))
    report = srv.admin().get("/api/admin/integrity").json()
    assert not any(g["in_service"] for g in report["games"])
    assert "code digest" in _by_game(report)[OTHER]["reason"]


@pytest.mark.parametrize("content", ["{not json", json.dumps({"format": "other"})])
def test_an_unusable_certified_list_fails_closed(serve, tmp_path: Path, content: str):
    path = tmp_path / "c.json"
    path.write_text(content)
    srv = serve(certified_list=str(path))
    c, _ = srv.player()
    assert _spin(c).status_code == 503
    report = srv.admin().get("/api/admin/integrity").json()
    assert "certified list unusable" in _by_game(report)[GAME]["reason"]


def test_a_changed_kernel_cache_file_takes_its_game_out_until_restored(serve, cache_copy: Path):
    srv = serve()
    assert srv.admin().get("/api/admin/integrity").json()["ok"]  # digests recorded at start-up
    lines_file = next(p for p in kernel_cache_files(find_game(GAME)) if "lines_" in str(p))
    original = lines_file.read_bytes()
    lines_file.write_bytes(original + b"\0")
    report = srv.admin().post("/api/admin/integrity").json()
    games = _by_game(report)
    assert not games[GAME]["in_service"] and "compiled kernel file" in games[GAME]["reason"]
    c, _ = srv.player()
    assert _spin(c).status_code == 503
    lines_file.write_bytes(original)
    assert srv.admin().post("/api/admin/integrity").json()["ok"]
    assert _spin(c).status_code == 201


def test_the_periodic_check_finds_a_change_by_itself(serve, cache_copy: Path):
    srv = serve(maintenance_interval_s=0.05, integrity_interval_s=0.1)
    shared = next(p for p in kernel_cache_files(find_game(GAME)) if "slotlab_" in p.parent.name)
    shared.write_bytes(shared.read_bytes() + b"\0")  # the random streams: every game uses them
    deadline = time.monotonic() + 30
    while srv.ctx.integrity.report()["ok"] and time.monotonic() < deadline:
        time.sleep(0.05)
    report = srv.admin().get("/api/admin/integrity").json()
    assert not any(g["in_service"] for g in report["games"])


def test_an_open_round_waits_while_its_game_is_out_of_play(serve, cache_copy: Path,
                                                           monkeypatch: pytest.MonkeyPatch):
    game = find_game(GAME)
    seed = next(s for s in (i.to_bytes(32, "big") for i in range(10_000))
                if game.play(BET, [s]).awaiting is not None)
    monkeypatch.setattr(rounds, "fresh_seed", lambda: seed)
    srv = serve()
    c, _ = srv.player()
    waiting = _spin(c).json()
    assert waiting["status"] == "awaiting_choice"
    lines_file = next(p for p in kernel_cache_files(game) if "lines_" in str(p))
    original = lines_file.read_bytes()
    lines_file.write_bytes(b"changed")
    srv.admin().post("/api/admin/integrity")
    choose = c.post(f"/api/rounds/{waiting['round_id']}/choices",
                    json={"choice": "collect", "step": waiting["step"]},
                    headers=key())
    assert choose.status_code == 503
    assert c.get("/api/rounds/open").json()["status"] == "awaiting_choice"
    lines_file.write_bytes(original)
    srv.admin().post("/api/admin/integrity")
    done = c.post(f"/api/rounds/{waiting['round_id']}/choices",
                  json={"choice": "collect", "step": waiting["step"]},
                  headers=key())
    assert done.status_code == 200 and done.json()["status"] == "completed"


def test_the_cli_prints_a_list_the_server_reads(tmp_path: Path):
    from typer.testing import CliRunner

    from slotlab.cli import app

    out = CliRunner().invoke(app, ["integrity", GAME])
    assert out.exit_code == 0, out.output
    path = tmp_path / "certified.json"
    path.write_text(out.output)
    listed = CertifiedList.read(path)
    assert listed.models == {find_game(GAME).model_hash: GAME} and len(listed.code) == 64


def test_a_kernel_file_changed_while_down_is_removed_before_the_kernels_load(serve,
                                                                            cache_copy: Path):
    """A file changed between two runs (tampered with, or torn by a crash while numba wrote it)
    is removed at start-up, before any kernel loads, so numba compiles it again from the
    source; the games stay in play and the alert says what was removed."""
    first = serve()
    assert first.admin().get("/api/admin/integrity").json()["ok"]
    first.__exit__()
    lines_file = next(p for p in kernel_cache_files(find_game(GAME)) if "lines_" in str(p))
    lines_file.write_bytes(lines_file.read_bytes() + b"\0")
    again = serve()
    report = again.admin().get("/api/admin/integrity").json()
    assert report["ok"] and not lines_file.exists()
    key = str(lines_file.relative_to(cache_copy))
    assert any(key in a["message"] for a in report["alerts"])
    c, _ = again.player()
    assert _spin(c).status_code == 201
