"""A live round ended before its play did, by the round writer (``FastRoundPath.write_ended``):
an admin's void and the better-of rule (a round whose record no longer re-plays), a paid
round, a free round and a round of an autoplay run among them. These tests show what the
writer writes (rounds, ledger entries, packages, run figures, the rounds' notes, balances, the
operator's credits), and a void that meets a choice written meanwhile refused, the choice's
outcome standing."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from slotlab.ledger.batch import Outcome, Written
from slotlab.server.services import rounds
from slotlab.store import normalize_url

from ..operator_wallet.conftest import WalletServer
from .server_util import (
    Database,
    LiveServer,
    key,
    server_settings,
    set_round,
    spied_write,
)
from .test_fast_rounds import SEED, games, rows
from .test_operator_rounds import START as START_AT_OPERATOR
from .test_operator_rounds import _player as operator_player
from .test_operator_rounds import _rows as operator_rows
from .test_operator_rounds import _settings as operator_settings

START = 100_000


def _other_seed(srv: LiveServer, events: list[Any]) -> str:
    """A seed on which pick-test's round starts otherwise than ``events`` (the same in every
    server of a test: drawn from a counter)."""
    game = srv.ctx.catalog.get("pick-test").game
    for i in range(100):
        seed = hashlib.sha256(f"other {i}".encode()).digest()
        if list(game.play(5, [seed]).events) != events:
            return seed.hex()
    raise AssertionError("no other seed found")


def _notes_and_packages(db_url: str, rids: list[str]) -> tuple[list[Any], list[Any]]:
    engine = create_engine(normalize_url(db_url))
    try:
        with engine.connect() as c:
            notes = [(a, rids.index(t), d.replace(t, "R")) for a, t, d in c.execute(text(
                "SELECT action, target, detail FROM admin_actions "
                "WHERE action IN ('void_round', 'round_refused') ORDER BY id"))]
            packages = [tuple(p) for p in c.execute(text(
                "SELECT rounds_left, total_won FROM free_round_packages ORDER BY id"))]
    finally:
        engine.dispose()
    return notes, packages


def _play(srv: LiveServer, player: Callable[[], tuple[httpx.Client, str]] | None = None
          ) -> tuple[str, list[dict[str, Any]], list[str]]:
    """A player's rounds that wait for a choice, each ended before it: voided (a round of an
    autoplay run, then a free round), settled by the better-of rule on a record changed under
    it (refunded; paid its win so far, a paid round and a free one). The player's name, every
    answer (ids and times out) and the rounds' ids. ``player``: makes the player (default: the
    server's own, ``endings``)."""
    c, name = player() if player is not None else srv.player("endings")
    admin = srv.admin()
    package = admin.post("/api/admin/free-rounds", json={
        "username": name, "game": "pick-test", "bet": 5, "rounds": 3,
        "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
    run = c.post("/api/autoplay", json={"game": "pick-test", "rounds": 3}).json()["run_id"]
    answers, rids = [], []

    def start(body: dict[str, Any]) -> dict[str, Any]:
        r = c.post("/api/games/pick-test/rounds", json=body, headers=key())
        assert r.status_code == 201 and r.json()["status"] == "awaiting_choice", r.text
        rids.append(r.json()["round_id"])
        return dict(r.json())

    for body in ({"bet": 10, "autoplay": {"rounds_left": 3, "run_id": run}},
                 {"bet": 5, "free_round_id": package}):
        rid = start(body)["round_id"]
        v = admin.post(f"/api/admin/rounds/{rid}/void")
        assert v.status_code == 200 and v.json()["status"] == "cancelled", v.text
        answers.append(v.json())
    for body, win_credits, outcome in (({"bet": 10}, 0, "better_of_refund"),
                                       ({"bet": 5}, 20, "better_of_win"),
                                       ({"bet": 5, "free_round_id": package}, 7,
                                        "better_of_win")):
        s = start(body)
        set_round(srv, s["round_id"], seeds=[_other_seed(srv, s["events"])],
                win_credits=win_credits)
        r = c.post(f"/api/rounds/{s['round_id']}/choices",
                   json={"choice": "left", "step": s["step"]}, headers=key())
        assert r.status_code == 409 and r.json()["error"]["code"] == "round_cannot_continue"
        assert r.json()["round"]["outcome"] == outcome, r.text
        answers.append(r.json()["round"])
    audit = admin.get("/api/admin/audit").json()
    assert audit["ok"], {k: v for k, v in audit.items() if v}
    return name, [{k: v for k, v in a.items() if k not in ("round_id", "created_at",
                                                          "completed_at")}
                  for a in answers], rids


# (status, outcome, win) of each ending in _play's order: two voids, then the better-of rule.
ENDINGS = [("cancelled", "voided", 0), ("cancelled", "voided", 0),
           ("cancelled", "better_of_refund", 0), ("completed", "better_of_win", 20),
           ("completed", "better_of_win", 7)]


def test_the_writer_ends_rounds_before_their_play(
        database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every end is one write of the writer: the rounds cancelled or completed as the rule
    says, the bets refunded and the wins so far paid once in the ledger, the voided free round
    given back to its package, the voided round's bet off its run's figures, the rounds'
    notes kept."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    with LiveServer(server_settings(database), games()) as srv:
        path = srv.app.state.fast_rounds
        ends: list[Outcome] = []
        monkeypatch.setattr(path, "write_ended", spied_write(path.write_ended, ends))
        name, answers, rids = _play(srv)
        assert len(ends) == 5 and all(isinstance(o, Written) for o in ends), ends
    assert [(a["status"], a["outcome"], a["win"]) for a in answers] == ENDINGS
    found = rows(database.url, name)
    notes, packages = _notes_and_packages(database.url, rids)
    assert [(a, i) for a, i, _ in notes] == [("void_round", 0), ("void_round", 1),
                                             ("round_refused", 2), ("round_refused", 3),
                                             ("round_refused", 4)]
    assert packages == [(2, 7)]  # the voided free round given back; the last paid 7
    kinds = [(k, amount) for k, amount, *_ in found["ledger"]]
    assert kinds == [("demo_grant", START), ("bet", -10), ("refund", 10), ("bet", -10),
                     ("refund", 10), ("bet", -5), ("win", 20), ("free_round_win", 7)]
    assert found["runs"][0][2:5] == (1, 0, 0)  # the voided round's bet off the run's figures
    assert found["balance"] == START - 5 + 20 + 7


def test_the_writer_ends_operator_rounds_before_their_play(
        database: Database, wallet_server: WalletServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Operator-wallet mode, the same rounds ended: every end is one write of the writer, the
    round left ``crediting`` with its credit's row (the bet back, the win so far; a free round
    refunded: a credit of 0, which closes it at the operator) and the credit then sent by the
    pipeline: every round closed, the operator's balance moved by exactly the bets and
    credits."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    with LiveServer(operator_settings(database, wallet_server), games()) as srv:
        path = srv.app.state.fast_rounds
        ends: list[Outcome] = []
        monkeypatch.setattr(path, "write_ended", spied_write(path.write_ended, ends))
        name, answers, rids = _play(srv, lambda: operator_player(srv, wallet_server, "end1"))
        assert len(ends) == 5 and all(isinstance(o, Written) for o in ends), ends
    assert [(a["status"], a["outcome"], a["win"]) for a in answers] == ENDINGS
    found = operator_rows(database.url, name)
    notes, packages = _notes_and_packages(database.url, rids)
    assert [a for a, _, _ in notes] == ["void_round", "void_round", "round_refused",
                                        "round_refused", "round_refused"]
    assert packages == [(2, 7)]
    assert len(found["rounds"]) == 5  # every credit confirmed: none left crediting
    assert not any("'crediting'" in r for r in found["rounds"]), found["rounds"]
    # Debited 10, 10, 5; credited the voided round's bet and the refunded one's (10, 10), and
    # the two wins so far (20; 7 of a free round); the free round voided moved nothing.
    assert wallet_server.balance(name) == START_AT_OPERATOR + 22


def test_a_void_that_meets_a_choice_written_meanwhile_changes_nothing(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's choice lands between the void's read and its write: the write finds the
    round changed and writes nothing; the void is then refused (the round is over), the
    choice's outcome stands, paid once."""
    srv = make_server()
    path = srv.app.state.fast_rounds
    c, _ = srv.player()
    s = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()

    async def player_chooses() -> None:  # off the loop: the server answers it meanwhile
        r = await asyncio.to_thread(c.post, f"/api/rounds/{s['round_id']}/choices",
                                    json={"choice": "left", "step": 0}, headers=key())
        assert r.status_code == 200, r.text

    calls: list[Outcome] = []
    monkeypatch.setattr(path, "write_ended",
                        spied_write(path.write_ended, calls, player_chooses))
    v = srv.admin().post(f"/api/admin/rounds/{s['round_id']}/void")
    assert calls == [None]
    assert v.status_code == 409 and v.json()["error"]["code"] == "round_not_voidable", v.text
    rec = c.get(f"/api/rounds/{s['round_id']}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "played"
    assert c.get("/api/wallet").json()["balance"] == START - 5 + rec["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_round_whose_game_is_no_longer_offered_is_voided_by_the_writer(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game a waiting round was played in is taken out of the catalogue: an admin's void
    still ends it in one write of the writer (its cash cap the operator's), the bet refunded
    once; voided again, it is refused."""
    srv = make_server(games=games())
    c, _ = srv.player()
    s = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    assert s["status"] == "awaiting_choice"
    srv.__exit__()
    without = {k: v for k, v in games().items() if k != "pick-test"}
    srv2 = make_server(games=without)
    assert srv2.ctx.catalog.find("pick-test") is None
    path = srv2.app.state.fast_rounds
    ends: list[Outcome] = []
    monkeypatch.setattr(path, "write_ended", spied_write(path.write_ended, ends))
    v = srv2.admin().post(f"/api/admin/rounds/{s['round_id']}/void")
    assert v.status_code == 200, v.text
    assert (v.json()["status"], v.json()["outcome"]) == ("cancelled", "voided")
    assert len(ends) == 1 and isinstance(ends[0], Written)
    c2 = srv2.client(c.headers["Authorization"].split()[1])
    assert c2.get("/api/wallet").json()["balance"] == START
    again = srv2.admin().post(f"/api/admin/rounds/{s['round_id']}/void")
    assert again.status_code == 409 and again.json()["error"]["code"] == "round_not_voidable"
    assert len(ends) == 1
