"""The general path's writes (``services/rounds._write_round`` and ``_write_choice``): on the
internal wallet a round start or a choice the FastAPI routes answer is written by the batched
path's writer. These tests run a process with the fast path's answering off, so that every
request reaches the routes, and make the writer meet what a race or a failure makes it meet:
the state changed under the write, a write that fails before its commit, and one that fails
after it. Money moves once in each, and the answer is the one a player can act on."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from slotlab.ledger.batch import Outcome
from slotlab.server.services import rounds

from .server_games import PickGame, make_test_games
from .server_util import LiveServer, key


def games() -> dict[str, Any]:
    return {**make_test_games(), "lose-test": PickGame("lose-test", pick=False, prize_x=0)}


def _draws(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every fresh seed the server draws, in order."""
    draws: list[bytes] = []

    def seed() -> bytes:
        draws.append(uuid.uuid4().bytes * 2)
        return draws[-1]

    monkeypatch.setattr(rounds, "fresh_seed", seed)
    return draws


def _changed_once(real: Callable[..., Awaitable[tuple[Any, Outcome]]],
                  calls: list[tuple[Any, ...]]) -> Callable[..., Awaitable[tuple[Any, Outcome]]]:
    """``real``, but its first call writes nothing, as when the state changed under it; each
    call's arguments go to ``calls``."""
    async def changed_once(*args: Any) -> tuple[Any, Outcome]:
        calls.append(args)
        if len(calls) == 1:
            return None, None  # what the statement answers when it wrote nothing
        return await real(*args)

    return changed_once


def _general(make_server: Any) -> tuple[LiveServer, Any, Any]:
    """A process whose every round start and choice reaches the routes; its writer."""
    srv = make_server(games=games(), fast_rounds=False)
    path = srv.app.state.fast_rounds
    assert path is not None and not path.serves
    c, _ = srv.player()
    return srv, c, path


def test_a_start_the_write_leaves_out_is_read_again_and_written_on_its_seed(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first write finds the state changed (as a concurrent request elsewhere would leave
    it) and writes nothing: the general path reads again and writes the round, once, on the
    one seed drawn for it."""
    draws = _draws(monkeypatch)
    srv, c, path = _general(make_server)
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(path, "write", _changed_once(path.write, calls))
    r = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 201, r.text
    assert len(calls) == 2 and len(draws) == 1
    assert calls[0][6] == calls[1][6]  # the same seed both times
    assert c.get(f"/api/rounds/{r.json()['round_id']}").json()["seeds"] == [draws[0].hex()]
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10
    assert len(c.get("/api/history").json()["rounds"]) == 1
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_start_whose_state_keeps_changing_is_refused_409_with_nothing_moved(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _, c, path = _general(make_server)

    async def always_changed(*args: Any) -> tuple[Any, Outcome]:
        return None, None

    monkeypatch.setattr(path, "write", always_changed)
    r = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "concurrent_request", r.text
    assert c.get("/api/wallet").json()["balance"] == 100_000
    assert c.get("/api/history").json()["rounds"] == []


def test_a_failed_write_is_answered_503_and_its_retry_is_written_once(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    srv, c, path = _general(make_server)
    real = path.write

    async def fails(*args: Any) -> tuple[Any, Outcome]:
        raise ConnectionError("the database is gone")

    monkeypatch.setattr(path, "write", fails)
    once = key()
    r = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=once)
    assert r.status_code == 503 and r.json()["error"]["code"] == "database_unavailable", r.text
    assert c.get("/api/wallet").json()["balance"] == 100_000
    monkeypatch.setattr(path, "write", real)
    again = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=once)
    assert again.status_code == 201, again.text
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_write_that_fails_after_its_commit_is_answered_from_its_key(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The connection is lost after the commit: the key shows the round written, so the
    player gets its answer, not a 503 that would have them bet again."""
    srv, c, path = _general(make_server)
    real = path.write

    async def lost_after_commit(*args: Any) -> tuple[Any, Outcome]:
        await real(*args)
        raise ConnectionError("the connection was lost after the commit")

    monkeypatch.setattr(path, "write", lost_after_commit)
    once = key()
    r = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=once)
    assert r.status_code == 201 and r.json()["status"] == "completed", r.text
    monkeypatch.setattr(path, "write", real)
    again = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=once)
    assert again.status_code == 201 and again.json()["round_id"] == r.json()["round_id"]
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_choice_the_write_leaves_out_is_checked_again_and_written_once(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A choice whose first write finds the round changed is checked again on the round as
    stored and written on the seed drawn for it; a choice on a round another request has
    settled meanwhile is refused by the checks, nothing paid twice."""
    draws = _draws(monkeypatch)
    srv, c, path = _general(make_server)
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(path, "write_choice", _changed_once(path.write_choice, calls))
    start = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    assert start["status"] == "awaiting_choice"
    r = c.post(f"/api/rounds/{start['round_id']}/choices",
               json={"choice": "left", "step": start["step"]}, headers=key())
    assert r.status_code == 200 and r.json()["status"] == "completed", r.text
    assert len(calls) == 2 and calls[0][3] == calls[1][3]  # one seed, both times
    assert len(draws) == 2  # the start's and the choice's
    assert c.get(f"/api/rounds/{start['round_id']}").json()["seeds"] == [d.hex() for d in draws]
    late = c.post(f"/api/rounds/{start['round_id']}/choices",
                  json={"choice": "left", "step": start["step"]}, headers=key())
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "round_not_awaiting_choice"
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + r.json()["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]
