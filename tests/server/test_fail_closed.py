"""Fail closed (R5): when the random source or the database fails, a round is refused with a
clear error and no bet is taken; a choice leaves its round waiting; the server carries on once
the failure is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from slotlab import rng
from slotlab.games import find_game
from slotlab.server.services import rounds

from .server_util import LiveServer, key

GAME = "classic-3x3"
BET = 5


@pytest.fixture
def server(serve_games: Callable[..., LiveServer]) -> LiveServer:
    return serve_games(GAME)


def _spin(c: Any) -> Any:
    return c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key())


def _play(c: Any) -> Any:
    """A round played to its end (a win's gamble collected)."""
    r = _spin(c)
    if r.status_code == 201 and r.json()["status"] == "awaiting_choice":
        c.post(f"/api/rounds/{r.json()['round_id']}/choices",
               json={"choice": "collect", "step": r.json()["step"]},
               headers=key())
    return r


def _state(c: Any) -> tuple[int, int]:
    return c.get("/api/wallet").json()["balance"], len(c.get("/api/history").json()["rounds"])


def _broken_source() -> bytes:
    raise OSError("getrandom: the entropy source failed")


@pytest.mark.parametrize("source", [_broken_source, lambda: b"\0" * 32, lambda: b""],
                         ids=["raises", "stuck", "empty"])
def test_a_failed_random_source_refuses_the_round_and_takes_no_bet(server, monkeypatch,
                                                                  source: Callable[[], bytes]):
    c, _ = server.player()
    before = _state(c)
    monkeypatch.setattr(rng, "fresh_seed", source)
    r = _spin(c)
    assert r.status_code == 503 and r.json()["error"]["code"] == "rng_unavailable"
    assert "no bet was taken" in r.json()["error"]["message"]
    monkeypatch.undo()
    assert _state(c) == before
    assert _spin(c).status_code == 201  # back once the source works
    assert server.admin().get("/api/admin/audit").json()["ok"]


def test_a_failed_random_source_leaves_a_choice_waiting(server, monkeypatch):
    game = find_game(GAME)
    seed = next(s for s in (i.to_bytes(32, "big") for i in range(10_000))
                if game.play(BET, [s]).awaiting is not None)
    monkeypatch.setattr(rounds, "fresh_seed", lambda: seed)
    c, _ = server.player()
    waiting = _spin(c).json()
    assert waiting["status"] == "awaiting_choice"
    monkeypatch.undo()
    monkeypatch.setattr(rng, "fresh_seed", _broken_source)
    before = _state(c)
    r = c.post(f"/api/rounds/{waiting['round_id']}/choices",
               json={"choice": "red", "step": waiting["step"]},
               headers=key())
    assert r.status_code == 503 and r.json()["error"]["code"] == "rng_unavailable"
    monkeypatch.undo()
    assert _state(c) == before
    opened = c.get("/api/rounds/open").json()
    assert opened["round_id"] == waiting["round_id"] and opened["status"] == "awaiting_choice"
    assert opened["events"] == waiting["events"]
    done = c.post(f"/api/rounds/{waiting['round_id']}/choices",
                  json={"choice": "collect", "step": waiting["step"]},
                  headers=key())
    assert done.status_code == 200 and done.json()["status"] == "completed"


def _fail_fast_writes(server: LiveServer) -> Callable[[], None]:
    """The fast round path (server/fast_rounds.py) writes on connections of its own: make its
    writes fail as well, so that the failure meets every write a round can take (it then hands
    the round to the general path, which meets the failed database). Returns the undo."""
    fast = server.app.state.fast_rounds
    if fast is None:
        return lambda: None
    real = fast.writer._write

    async def broken(batch: Any) -> list[int | None]:
        raise ConnectionError("the database is gone")

    fast.writer._write = broken

    def undo() -> None:
        fast.writer._write = real

    return undo


def test_a_failed_database_refuses_the_round_and_takes_no_bet(server, database):
    c, _ = server.player()
    before = _state(c)
    restore_fast_writes = _fail_fast_writes(server)
    engine = server.ctx.db.engine
    if database.backend == "postgres":
        # A real failure: the database server cuts every pooled connection of this server
        # (found by holding them all at once; other tests' connections are left alone).
        held = [engine.connect() for _ in range(8)]
        pids = [conn.execute(text("SELECT pg_backend_pid()")).scalar_one() for conn in held]
        for conn in held:
            conn.rollback()
            conn.close()
        cutter = create_engine(engine.url, poolclass=NullPool)
        with cutter.connect() as admin:
            for pid in pids:
                admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        cutter.dispose()
        failures = [_play(c) for _ in range(3)]
        refused = [r for r in failures if r.status_code != 201]
        assert refused, "no request met the cut connections"
        assert all(r.status_code == 503 for r in refused)
        assert refused[0].json()["error"]["code"] == "database_unavailable"
        played = len(failures) - len(refused)
    else:
        def fail(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            if statement.lstrip().upper().startswith("INSERT INTO LEDGER_ENTRIES"):
                raise OperationalError(statement, {}, Exception("disk I/O error"))

        event.listen(engine, "before_cursor_execute", fail)
        try:
            r = _spin(c)
        finally:
            event.remove(engine, "before_cursor_execute", fail)
        assert r.status_code == 503 and r.json()["error"]["code"] == "database_unavailable"
        played = 0
    restore_fast_writes()
    balance, count = _state(c)
    assert count == before[1] + played
    if not played:
        assert balance == before[0]
    assert _spin(c).status_code == 201  # the server carries on
    assert server.admin().get("/api/admin/audit").json()["ok"]
