"""Split commits (``SLOTLAB_SPLIT_ROUND_COMMITS``) on the round writer: a round start is two
writes of the writer, its opening (the round ``open`` with its seed, the bet debited, the key
reserved with no answer) and its settling (played on that seed, the win credited, the key
answered), and start-up recovery settles a round left open with the same write. These tests
hold the rows equal to those of the same rounds written at once (one write each), show
the opening durable on its own (a retry meanwhile is answered the open round), a
round changed between its two writes answered as it then is, and recovery by the writer."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from slotlab.ledger.batch import Outcome, Written
from slotlab.server.fast_rounds import FastRoundPath
from slotlab.server.services import rounds

from .server_util import (
    Database,
    LiveServer,
    key,
    round_left_open,
    server_settings,
    spied_write,
)
from .test_fast_rounds import SEED, games, rows

_SKIPPED = ("round_id", "created_at", "completed_at")


def _play(srv: LiveServer) -> tuple[str, list[dict[str, Any]]]:
    """A player's rounds: max bets that feed the pools, a lower bet, two free rounds, two
    rounds of an autoplay run (the second stops it), a round that waits for a choice and its
    choice; the player's name and every answer (ids and times taken out)."""
    c, name = srv.player("split")
    package = srv.admin().post("/api/admin/free-rounds", json={
        "username": name, "game": "pool-test", "bet": 10, "rounds": 2,
        "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
    run = c.post("/api/autoplay", json={"game": "pool-test", "rounds": 2}).json()["run_id"]
    extra: dict[str, dict[str, Any]] = {
        "": {}, "free": {"free_round_id": package},
        "auto": {"autoplay": {"rounds_left": 2, "run_id": run}}}
    plays = [("pool-test", 10, ""), ("pool-test", 5, ""), ("instant-test", 2, ""),
             ("pool-test", 10, "free"), ("pool-test", 10, "free"),
             ("pool-test", 5, "auto"), ("pool-test", 5, "auto"), ("pick-test", 5, "")]
    answers = []
    for game, bet, kind in plays:
        r = c.post(f"/api/games/{game}/rounds", json={"bet": bet, **extra[kind]}, headers=key())
        assert r.status_code == 201, r.text
        answers.append(r.json())
    start = answers[-1]
    assert start["status"] == "awaiting_choice"
    r = c.post(f"/api/rounds/{start['round_id']}/choices",
               json={"choice": "left", "step": start["step"]}, headers=key())
    assert r.status_code == 200 and r.json()["status"] == "completed", r.text
    answers.append(r.json())
    assert srv.admin().get("/api/admin/audit").json()["ok"]
    return name, [{k: v for k, v in a.items() if k not in _SKIPPED} for a in answers]


def test_split_rounds_are_written_as_rounds_written_at_once_are(
        database: Database, second_database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seeds, same requests, with split commits and without: the same answers, rounds,
    ledger entries, keys (answers included), pool entries, package and run figures and
    balances; with split commits each round start is two writes of the writer and the choice
    one."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    with LiveServer(server_settings(database, split_round_commits=True), games()) as srv:
        path = srv.app.state.fast_rounds
        assert path is not None and not path.serves  # answered by the app, written here
        name, split = _play(srv)
        assert path.writer.rounds == 2 * 8 + 1
    with LiveServer(server_settings(second_database, fast_rounds=False), games()) as once:
        path = once.app.state.fast_rounds
        name2, at_once = _play(once)
        assert path.writer.rounds == 8 + 1
    assert split == at_once
    found, found_at_once = rows(database.url, name), rows(second_database.url, name2)
    assert found == found_at_once
    assert found["pools"], "the max-bet round fed the pools"
    assert found["runs"][0][:4] == ("stopped", "rounds", 2, 10)
    assert [k for k, *_ in found["ledger"]].count("bet") == 6  # none for the free rounds


def test_the_opening_is_durable_and_a_retry_meanwhile_is_told_it_is_in_progress(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the two writes the round is open and the bet taken, the key reserved with no
    answer: the request retried then is answered with the round as it stands (open), moving
    nothing; once settled, the retry gets the round's answer."""
    srv = make_server(split_round_commits=True)
    path = srv.app.state.fast_rounds
    c, _ = srv.player()
    headers = key()
    seen: dict[str, Any] = {}

    async def between() -> None:  # off the loop: the server answers these meanwhile
        seen["open"] = (await asyncio.to_thread(
            srv.admin().get, "/api/admin/rounds/open")).json()["rounds"]
        seen["balance"] = (await asyncio.to_thread(c.get, "/api/wallet")).json()["balance"]
        seen["retry"] = await asyncio.to_thread(
            c.post, "/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)

    calls: list[Outcome] = []
    monkeypatch.setattr(path, "settle_open", spied_write(path.settle_open, calls, between))
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert r.status_code == 201 and r.json()["status"] == "completed", r.text
    assert len(calls) == 1 and isinstance(calls[0], Written)
    assert [o["status"] for o in seen["open"]] == ["open"]
    assert seen["open"][0]["round_id"] == r.json()["round_id"]
    assert seen["balance"] == 100_000 - 5
    retry = seen["retry"].json()
    assert seen["retry"].status_code == 201, retry
    assert (retry["round_id"], retry["status"], retry["balance"]) == (
        r.json()["round_id"], "open", 100_000 - 5)
    again = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json() == r.json()
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + r.json()["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_round_voided_between_its_two_writes_is_answered_as_voided(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The admin voids the open round after its opening: the settling's write finds it
    changed and writes nothing; the request is answered with the round as voided, the bet
    refunded once, the key answered so."""
    srv = make_server(split_round_commits=True)
    path = srv.app.state.fast_rounds
    c, _ = srv.player()
    headers = key()

    async def void() -> None:
        rid = (await asyncio.to_thread(srv.admin().get, "/api/admin/rounds/open")
               ).json()["rounds"][0]["round_id"]
        v = await asyncio.to_thread(srv.admin().post, f"/api/admin/rounds/{rid}/void")
        assert v.status_code == 200, v.text

    calls: list[Outcome] = []
    monkeypatch.setattr(path, "settle_open", spied_write(path.settle_open, calls, void))
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert calls == [None]  # the write found the round changed
    assert r.status_code == 201 and r.json()["status"] == "cancelled", r.text
    assert c.get("/api/wallet").json()["balance"] == 100_000
    again = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["status"] == "cancelled"
    assert c.get("/api/wallet").json()["balance"] == 100_000
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_settling_whose_write_fails_leaves_the_round_to_the_sweep(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The settling's write fails: the request is answered the round as it stands, open with
    its bet taken (so is a retry, moving nothing); the sweep then settles it with the writer,
    once, and the retry gets its answer."""
    srv = make_server(split_round_commits=True, open_round_grace_s=0)
    path = srv.app.state.fast_rounds
    c, _ = srv.player()
    headers = key()
    calls: list[Outcome] = []
    with monkeypatch.context() as mp:
        mp.setattr(path, "settle_open", spied_write(path.settle_open, calls, fail=True))
        r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert r.status_code == 201 and r.json()["status"] == "open", r.text
    assert calls == []  # the write raised
    retry = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert retry.status_code == 201 and retry.json() == r.json()
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5
    assert srv.admin().post("/api/admin/maintenance").json()["open_recovered"] == 1
    again = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["outcome"] == "recovered", again.text
    assert again.json()["round_id"] == retry.json()["round_id"]
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + again.json()["win"]
    assert srv.admin().post("/api/admin/maintenance").json()["open_recovered"] == 0
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_start_up_recovery_settles_an_open_round_with_the_writer(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A round left open by a process that died between its writes is settled at the next
    start-up by the writer (``settle_open``, outcome ``recovered``): its key answered, the
    player told at their next login."""
    srv = make_server(split_round_commits=True)
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    headers = round_left_open(srv, token)
    srv.__exit__()
    settled: list[tuple[str, Outcome]] = []
    real = FastRoundPath.settle_open

    async def spied(self: FastRoundPath, *args: Any) -> tuple[Any, Outcome]:
        write, outcome = await real(self, *args)
        settled.append((write.round_values["outcome"], outcome))
        return write, outcome

    monkeypatch.setattr(FastRoundPath, "settle_open", spied)
    srv2 = make_server(split_round_commits=True)
    assert [(o, isinstance(w, Written)) for o, w in settled] == [("recovered", True)]
    c2 = srv2.client(token)
    again = c2.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["outcome"] == "recovered", again.text
    rid = again.json()["round_id"]
    assert [u["round_id"] for u in c2.get("/api/session").json()["unseen_results"]] == [rid]
    assert c2.get("/api/wallet").json()["balance"] == 100_000 - 5 + again.json()["win"]
    assert srv2.admin().get("/api/admin/audit").json()["ok"]
