"""Auto-completion on the internal wallet is written by the server's round writer, as a choice
is (``FastRoundPath.write_auto``): these tests show what it writes, jackpot won included;
show
that a player's choice that lands between the sweep's read and its write wins (the write
requires the round unchanged, so nothing is paid twice); and that a write that fails leaves the
round waiting for the next sweep, with nothing moved."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import threading
import time
from typing import Any

import pytest

from slotlab.json_text import to_jsonable
from slotlab.ledger.batch import Outcome
from slotlab.server.services import round_recovery, rounds

from .server_games import PickGame, make_test_games
from .server_util import LiveServer, key, spied_write

GAME = "pick-jackpot"
MAX_BET = 10  # PickGame's top bet: the round wins the "top" tier


def games() -> dict[str, Any]:
    return {**make_test_games(), GAME: PickGame(GAME, pick=True, jackpot="top")}


def _counted_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's fresh seeds, the same sequence in every server of the test: the round's
    seed, then the policy's and the step's."""
    n = itertools.count()

    def seed() -> bytes:
        return hashlib.sha256(f"seed {next(n)}".encode()).digest()

    monkeypatch.setattr(rounds, "fresh_seed", seed)
    monkeypatch.setattr(round_recovery, "fresh_seed", seed)


def _abandon_and_sweep(srv: LiveServer) -> tuple[dict[str, Any], int, list[str]]:
    """A max-bet round left waiting, the sweep run: the round's record, the wallet's balance,
    the rounds the player is told of."""
    c, _ = srv.player()
    r = c.post(f"/api/games/{GAME}/rounds", json={"bet": MAX_BET}, headers=key())
    assert r.status_code == 201 and r.json()["status"] == "awaiting_choice", r.text
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 1
    rec = c.get(f"/api/rounds/{r.json()['round_id']}").json()
    unseen = [u["round_id"] for u in c.get("/api/session").json()["unseen_results"]]
    return rec, c.get("/api/wallet").json()["balance"], unseen


def test_the_writer_finishes_an_abandoned_round_by_the_games_policy(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An abandoned max-bet round, auto-completed by one write of the writer: the choice the
    game's policy makes on the recorded policy seed, the round as its seeds and choices
    re-play (jackpot won), its win and jackpot credited once, the player told."""
    _counted_seeds(monkeypatch)
    srv = make_server(games=games(), fast_rounds=False, auto_complete_after_s=0)
    path = srv.app.state.fast_rounds
    calls: list[Outcome] = []
    monkeypatch.setattr(path, "write_auto", spied_write(path.write_auto, calls))
    rec, balance, unseen = _abandon_and_sweep(srv)
    assert len(calls) == 1 and calls[0] is not None  # written by the writer, once
    assert rec["outcome"] == "auto_completed" and rec["status"] == "completed"
    assert len(rec["auto_seeds"]) == 1 and len(rec["choices"]) == 1
    entry = srv.ctx.catalog.get(GAME)
    credits = entry.credits_of(MAX_BET)
    assert credits is not None
    seeds = [bytes.fromhex(x) for x in rec["seeds"]]
    first = entry.game.play(credits, seeds[:1], [])
    assert rec["choices"] == [entry.game.auto_choice(first, bytes.fromhex(rec["auto_seeds"][0]))]
    again = entry.game.play(credits, seeds, rec["choices"])
    assert rec["events"] == to_jsonable(list(again.events))
    assert rec["win"] == again.win * entry.denomination
    assert list(again.jackpots) == ["top"] and rec["jackpots"][0]["tier"] == "top"
    assert rec["jackpot_win"] > 0
    assert balance == 100_000 - MAX_BET + rec["win"] + rec["jackpot_win"]
    assert unseen == [rec["round_id"]]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_choice_made_between_the_sweeps_read_and_its_write_wins(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's choice lands after the sweep read the round and before its write: the
    write finds the round changed and writes nothing; the round is the player's, paid once."""
    srv = make_server(games=games(), auto_complete_after_s=0)
    path = srv.app.state.fast_rounds
    c, _ = srv.player()
    start = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    rid = start["round_id"]

    async def player_chooses() -> None:  # off the loop: the server answers it meanwhile
        r = await asyncio.to_thread(c.post, f"/api/rounds/{rid}/choices",
                                    json={"choice": "left", "step": 0}, headers=key())
        assert r.status_code == 200, r.text

    calls: list[Outcome] = []
    monkeypatch.setattr(path, "write_auto", spied_write(path.write_auto, calls, player_chooses))
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 0
    assert calls == [None]  # the write found the round changed
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["outcome"] == "played" and rec["choices"] == ["left"] and rec["auto_seeds"] == []
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + rec["win"]
    assert c.get("/api/session").json()["unseen_results"] == []
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_the_sweeper_thread_hands_its_writes_to_the_writer(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The periodic sweep runs on a thread of its own, no worker of the event loop's: its
    auto-completion reaches the writer all the same (``FastRoundPath.call``)."""
    srv = make_server(games=games(), auto_complete_after_s=0, maintenance_interval_s=0.05)
    path = srv.app.state.fast_rounds
    callers: list[str] = []
    real = round_recovery.auto_complete

    def watched(ctx: Any, round_id: str) -> dict[str, Any] | None:
        callers.append(threading.current_thread().name)
        return real(ctx, round_id)

    monkeypatch.setattr(round_recovery, "auto_complete", watched)
    calls: list[Outcome] = []
    monkeypatch.setattr(path, "write_auto", spied_write(path.write_auto, calls))
    c, _ = srv.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()[
        "round_id"]
    deadline = time.monotonic() + 60  # the sweep comes every 0.05 s; a loaded machine is slow
    while not calls and time.monotonic() < deadline:
        time.sleep(0.05)
    assert calls and calls[0] is not None and callers[0] == "slotlab-sweeper"
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "auto_completed"
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + rec["win"]


def test_a_failed_write_leaves_the_round_waiting_for_the_next_sweep(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    srv = make_server(games=games(), auto_complete_after_s=0)
    path = srv.app.state.fast_rounds
    c, _ = srv.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()[
        "round_id"]
    real = path.write_auto
    monkeypatch.setattr(path, "write_auto", spied_write(real, [], fail=True))
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 0
    assert c.get(f"/api/rounds/{rid}").json()["status"] == "awaiting_choice"
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5
    monkeypatch.setattr(path, "write_auto", real)
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 1
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["outcome"] == "auto_completed"
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + rec["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]
