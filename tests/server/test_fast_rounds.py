"""The fast round path (server/fast_rounds.py) writes what the general path writes, moves money
once per key, hands every case it does not serve to the general path, and reconciles under load.

Each test checks that the fast path really served (its counters), so that a path that always
handed over could not pass them by accident.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import create_engine, text, update

from slotlab.ledger.batch import GroupWriter, RoundWrite
from slotlab.ledger.postgres import BATCH_SQL, PARAMETERS, PostgresRoundWriter
from slotlab.server import fast_choices, fast_rounds
from slotlab.server.services import auth as auth_service
from slotlab.server.services import profiles, round_view, rounds
from slotlab.server.services import reality as reality_service
from slotlab.store import normalize_url
from slotlab.store.models import Round

from ..async_util import run
from .server_games import PickGame, PoolGame, make_test_games
from .server_util import (
    Database,
    LiveServer,
    ServerClock,
    autoplay_figures,
    generic_plan,
    key,
    player_rows,
    server_settings,
    stored_last_seen,
)

SEED = bytes(range(7, 39))


def games() -> dict[str, Any]:
    return {**make_test_games(), "pool-test": PoolGame(),
            "lose-test": PickGame("lose-test", pick=False, prize_x=0)}


def served(srv: LiveServer) -> Counter[str]:
    return srv.app.state.fast_rounds.stats  # type: ignore[no-any-return]


def rows(db_url: str, player: str) -> dict[str, Any]:
    """Everything the player's rounds wrote, with ids, times and round ids taken out."""
    with player_rows(db_url, player) as (c, pid, clean):
        # The chain digest covers the round's ids and times (its place, chain_seq, stays).
        skip = {"seq", "id", "player_id", "created_at", "updated_at", "completed_at",
                "chain_digest"}
        round_rows = [{k: v for k, v in r._mapping.items() if k not in skip}
                      for r in c.execute(text(
                          "SELECT * FROM rounds WHERE player_id = :p ORDER BY seq"),
                          {"p": pid})]
        raw = c.execute(text(
            "SELECT awaiting::text FROM rounds WHERE player_id = :p" if "postgres" in db_url
            else "SELECT awaiting FROM rounds WHERE player_id = :p"), {"p": pid}).all()
        ledger = [(k, a, b, clean(ref)) for k, a, b, ref in c.execute(text(
            "SELECT e.kind, e.amount, e.balance_after, e.ref FROM ledger_entries e "
            "JOIN wallets w ON w.id = e.wallet_id WHERE w.player_id = :p ORDER BY e.id"),
            {"p": pid})]
        keys = []
        for req_hash, rid, status, response in c.execute(text(
                "SELECT request_hash, round_id, status_code, response FROM idempotency_keys "
                "WHERE owner = :o"), {"o": f"p:{pid}"}):
            body = response if isinstance(response, dict) else json.loads(response)
            body = {k: v for k, v in body.items() if k not in ("created_at", "completed_at")}
            # A choice's request names its round in its path: its hash differs per database.
            keys.append((req_hash if status == 201 else "a choice", clean(rid), status,
                         clean(sorted(body.items()))))
        pools = [(clean(r), k, a, v) for r, k, a, v in c.execute(text(
            "SELECT e.round_id, e.kind, e.amount_micro, e.value_after_micro "
            "FROM jackpot_entries e WHERE e.round_id IS NOT NULL ORDER BY e.id"))]
        balance = c.execute(text("SELECT balance FROM wallets WHERE player_id = :p"),
                            {"p": pid}).scalar_one()
        runs = autoplay_figures(c, pid)
    return {"rounds": round_rows, "awaiting_raw": raw, "ledger": ledger, "keys": sorted(keys),
            "pools": pools, "balance": balance, "runs": runs}


def test_the_fast_path_writes_exactly_what_the_general_path_writes(
        database: Database, second_database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seeds, same requests, one server with the fast path and one without (the app
    answers every request; its round starts go through the same writer, its choices through
    the ORM): the same rounds, ledger entries, idempotency keys (answers included), pool
    entries and balances.
    The last rounds wait for the player's choice (the fast path takes their starts and their
    choices): a paid round, a free round and a round of an autoplay run; the last two are
    forgotten by the process before their choice, as if another process had written them, so
    their choices are taken from the rounds as stored."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    # Then two free rounds of a package (no debit, no pool fed, the win its own kind), and two
    # rounds of an autoplay run of two rounds (stamped with the run, which the second stops).
    plays = [("pool-test", 10, ""), ("pool-test", 5, ""), ("instant-test", 2, ""),
             ("pool-test", 10, ""), ("pool-test", 10, "free"), ("pool-test", 10, "free"),
             ("pool-test", 5, "auto"), ("pool-test", 5, "auto"), ("pick-test", 5, "")]
    found, answers = [], []
    for db, fast in ((database, True), (second_database, False)):
        with LiveServer(server_settings(db, fast_rounds=fast), games()) as srv:
            c, name = srv.player("samerows")
            package = srv.admin().post("/api/admin/free-rounds", json={
                "username": name, "game": "pool-test", "bet": 10, "rounds": 2,
                "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
            run = c.post("/api/autoplay", json={"game": "pool-test", "rounds": 2}).json()
            extra = {"": {}, "free": {"free_round_id": package},
                     "auto": {"autoplay": {"rounds_left": 2, "run_id": run["run_id"]}}}
            got = []
            for game, bet, kind in plays:
                body = {"bet": bet, **extra[kind]}
                r = c.post(f"/api/games/{game}/rounds", json=body, headers=key())
                assert r.status_code == 201, r.text
                got.append({k: v for k, v in r.json().items()
                            if k not in ("round_id", "created_at", "completed_at")})
            assert got[-1]["status"] == "awaiting_choice"
            if fast:
                assert served(srv)["served"] == len(plays), served(srv)
            else:  # the general path wrote them with the writer, through start_anew
                path = srv.app.state.fast_rounds
                assert not path.serves and path.stats["served"] == 0, path.stats
                assert path.writer.rounds == len(plays)
            r = c.post(f"/api/rounds/{c.get('/api/history').json()['rounds'][0]['round_id']}"
                       "/choices", json={"choice": "left", "step": got[-1]["step"]},
                       headers=key())
            assert r.status_code == 200 and r.json()["status"] == "completed", r.text
            got.append({k: v for k, v in r.json().items()
                        if k not in ("round_id", "created_at", "completed_at")})
            # A free round and a run's round that wait for a choice, and their choices.
            picks = srv.admin().post("/api/admin/free-rounds", json={
                "username": name, "game": "pick-test", "bet": 5, "rounds": 1,
                "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
            run = c.post("/api/autoplay", json={"game": "pick-test", "rounds": 1}).json()
            for body in ({"bet": 5, "free_round_id": picks},
                         {"bet": 5, "autoplay": {"rounds_left": 1, "run_id": run["run_id"]}}):
                start = c.post("/api/games/pick-test/rounds", json=body, headers=key())
                assert start.status_code == 201, start.text
                if fast:
                    srv.app.state.fast_rounds.waiting = fast_choices.WaitingRounds()
                r = c.post(f"/api/rounds/{start.json()['round_id']}/choices",
                           json={"choice": "right", "step": start.json()["step"]},
                           headers=key())
                assert r.status_code == 200 and r.json()["status"] == "completed", r.text
                got += [{k: v for k, v in a.json().items()
                         if k not in ("round_id", "created_at", "completed_at")}
                        for a in (start, r)]
            if fast:
                assert served(srv)["choice:served"] == 3, served(srv)
                assert served(srv)["choice:read"] == 2, served(srv)
            assert srv.admin().get("/api/admin/audit").json()["ok"]
        found.append(rows(db.url, name))
        answers.append(got)
    assert answers[0] == answers[1]
    assert found[0] == found[1]
    assert found[0]["pools"], "the max-bet rounds fed the pools"
    assert answers[0][5]["free_round"]["rounds_left"] == 0
    assert found[0]["runs"][0] == ("stopped", "rounds", 2, 10, found[0]["runs"][0][4],
                                   found[0]["runs"][0][5])
    assert [k for k, *_ in found[0]["ledger"]].count("bet") == 8  # none for the free rounds
    # The choices paid: the free round's into its package, the run's into its figures.
    free_choice, run_choice = answers[0][-3], answers[0][-1]
    assert free_choice["free_round"]["total_won"] == free_choice["win"] > 0
    assert found[0]["runs"][1] == ("stopped", "rounds", 1, 5, run_choice["win"],
                                   run_choice["win"])


def test_crystal_star_deluxe_rounds_take_the_fast_path(serve_games: Any) -> None:
    srv = serve_games("crystal-star-deluxe")
    c, _ = srv.player()
    bet = max(c.get("/api/games/crystal-star-deluxe").json()["bets"])
    for _ in range(20):
        r = c.post("/api/games/crystal-star-deluxe/rounds", json={"bet": bet}, headers=key())
        assert r.status_code == 201 and r.json()["status"] == "completed", r.text
    assert served(srv)["served"] == 20
    assert len(c.get("/api/history", params={"limit": 50}).json()["rounds"]) == 20
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_fast_round_is_stored_at_the_time_and_with_the_events_it_answered(
        make_server: Any) -> None:
    """The batch's JSON carries the round's times and events: read back, they are the 201
    answer's to the microsecond (and the time zone), and its events unchanged."""
    srv = make_server(games=games())
    c, _ = srv.player()
    answer = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert answer.status_code == 201 and served(srv)["served"] == 1, served(srv)
    stored = c.get(f"/api/rounds/{answer.json()['round_id']}")
    assert stored.status_code == 200, stored.text
    assert datetime.fromisoformat(answer.json()["created_at"]).utcoffset() is not None
    for field in ("created_at", "completed_at", "events", "bet", "win", "model_hash"):
        assert stored.json()[field] == answer.json()[field], field


def test_a_retried_key_is_answered_once_and_moves_money_once(make_server: Any) -> None:
    """A retry gets the first answer and a key used with another body 409, both answered on
    the fast path (the write finds the key: batch.Stored) as a process with the fast path off
    answers them."""
    srv = make_server(games=games())
    there = make_server(games=games(), fast_rounds=False)  # another process on the database
    c, _ = srv.player()
    headers = key()
    first = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=headers)
    again = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert {k: v for k, v in first.json().items()} == again.json()
    assert served(srv)["served"] == 1 and served(srv)["replayed"] == 1, served(srv)
    other = c.post("/api/games/pool-test/rounds", json={"bet": 5}, headers=headers)
    assert other.status_code == 409 and other.json()["error"]["code"] == "idempotency_key_reused"
    assert served(srv)["refused:key"] == 1 and served(srv)["passed:refused"] == 0, served(srv)
    with there.client(c.headers["Authorization"].split()[1]) as general:
        for body, answer in (({"bet": 10}, again), ({"bet": 5}, other)):
            same = general.post("/api/games/pool-test/rounds", json=body, headers=headers)
            assert (same.status_code, same.json()) == (answer.status_code, answer.json())
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10 + first.json()["win"]
    assert len(c.get("/api/history").json()["rounds"]) == 1


def test_concurrent_retries_of_one_key_on_the_fast_path(make_server: Any) -> None:
    srv = make_server(games=games())
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    headers = key()

    def spin(_: int) -> tuple[int, dict[str, Any]]:
        with srv.client(token) as cl:
            r = cl.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=headers)
            return r.status_code, r.json()

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(spin, range(16)))
    assert {code for code, _ in results} == {201}
    assert len({body["round_id"] for _, body in results}) == 1
    assert served(srv)["served"] == 1
    hist = c.get("/api/history").json()["rounds"]
    assert len(hist) == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10 + hist[0]["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_short_funds_are_refused_here_with_the_general_paths_answer(make_server: Any) -> None:
    """A bet above the balance: the write refuses it for the funds (batch.Refused) and this
    path answers, nothing moved; a process with the fast path off answers the same request in
    the same state with the same body."""
    srv = make_server(games=games(), play_money_balance=15)
    there = make_server(games=games(), fast_rounds=False)  # another process on the database
    c, _ = srv.player()
    assert c.post("/api/games/lose-test/rounds", json={"bet": 10},
                  headers=key()).json()["balance"] == 5
    assert served(srv)["served"] == 1
    short = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert short.status_code == 402, short.text
    assert short.json()["error"] == {"code": "insufficient_funds",
                                     "message": "balance 5 is below 10"}
    assert served(srv)["refused:funds"] == 1 and served(srv)["passed:refused"] == 0, served(srv)
    with there.client(c.headers["Authorization"].split()[1]) as other:
        same = other.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert (same.status_code, same.json()) == (402, short.json())
    assert c.get("/api/wallet").json()["balance"] == 5
    assert len(c.get("/api/history").json()["rounds"]) == 1
    audit = srv.admin().get("/api/admin/audit").json()
    assert audit["ok"], json.dumps(audit)


def test_a_live_round_is_answered_by_the_general_path(make_server: Any) -> None:
    """A live round: the fast path's statement sees it and hands the request over (the answer
    carries the live round, which the general path reads)."""
    srv = make_server(games=games())
    c, _ = srv.player()
    pick = c.post("/api/games/pick-test/rounds", json={"bet": 1}, headers=key())
    assert pick.json()["status"] == "awaiting_choice"
    assert served(srv)["served"] == 1  # a round waiting for a choice starts here too
    live = c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key())
    assert live.status_code == 409 and live.json()["error"]["code"] == "round_open"
    assert live.json()["round"]["round_id"] == pick.json()["round_id"]
    assert served(srv)["passed:refused"] == 1
    audit = srv.admin().get("/api/admin/audit").json()
    assert audit["ok"], json.dumps(audit)


def with_pick_jackpot() -> dict[str, Any]:
    """The test games and one whose max-bet choice wins the top tier."""
    return {**games(), "pick-jackpot-test": PickGame("pick-jackpot-test", pick=True,
                                                     jackpot="top")}


def test_a_jackpot_won_is_written_here_as_the_general_path_writes_it(
        database: Database, second_database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seeds, same requests, with and without the fast path: max bets that win the top
    pool (after feeding both pools), a bet that feeds none, a free round and a run's round
    that win it too, and a choice that wins it. The same rounds, answers (the amounts paid),
    ledger entries (a jackpot entry after the win), pool entries (contribution, award, reset)
    and balances."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    found, answers = [], []
    with_pick = with_pick_jackpot()
    for db, fast in ((database, True), (second_database, False)):
        with LiveServer(server_settings(db, fast_rounds=fast), with_pick) as srv:
            c, name = srv.player("jackpotrows")
            package = srv.admin().post("/api/admin/free-rounds", json={
                "username": name, "game": "jackpot-test", "bet": 10, "rounds": 1,
                "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
            run = c.post("/api/autoplay", json={"game": "jackpot-test", "rounds": 2}).json()
            got = []
            for body in ({"bet": 10}, {"bet": 5}, {"bet": 10},
                         {"bet": 10, "free_round_id": package},
                         {"bet": 10, "autoplay": {"rounds_left": 2, "run_id": run["run_id"]}}):
                r = c.post("/api/games/jackpot-test/rounds", json=body, headers=key())
                assert r.status_code == 201, r.text
                got.append({k: v for k, v in r.json().items()
                            if k not in ("round_id", "created_at", "completed_at")})
            # A choice that wins it (its round read back, as if another process wrote it).
            start = c.post("/api/games/pick-jackpot-test/rounds", json={"bet": 10},
                           headers=key())
            assert start.status_code == 201, start.text
            if fast:
                srv.app.state.fast_rounds.waiting = fast_choices.WaitingRounds()
            r = c.post(f"/api/rounds/{start.json()['round_id']}/choices",
                       json={"choice": "left", "step": start.json()["step"]}, headers=key())
            assert r.status_code == 200 and r.json()["status"] == "completed", r.text
            got += [{k: v for k, v in a.json().items()
                     if k not in ("round_id", "created_at", "completed_at")} for a in (start, r)]
            if fast:
                assert served(srv)["served"] == 6, served(srv)
                assert served(srv)["choice:served"] == 1, served(srv)
            assert srv.admin().get("/api/admin/audit").json()["ok"]
        found.append(rows(db.url, name))
        answers.append(got)
    assert answers[0] == answers[1]
    assert found[0] == found[1]
    won = [a["jackpot_win"] for a in answers[0]]
    assert won[0] > 0 and won[1] == 0 and all(w > 0 for w in won[2:5]), won
    assert won[5] == 0 and won[6] > 0  # the choice's start, then the choice
    assert answers[0][3]["free_round"]["total_won"] == answers[0][3]["win"] + won[3]
    kinds = [k for _, k, _, _ in found[0]["pools"]]
    assert kinds.count("award") == kinds.count("seed") == 5, kinds
    assert [k for k, *_ in found[0]["ledger"]].count("jackpot") == 5


def test_a_demo_players_jackpot_is_written_here_as_the_general_path_writes_it(
        database: Database, second_database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seeds, same requests, with and without the fast path: a demo player's max bet and
    choice that win the top tier are paid its reset value in play money (services/demo.py), no
    pool moved. The same rounds, answers, ledger entries and balances; no pool entry."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    found, answers = [], []
    with_pick = with_pick_jackpot()
    for db, fast in ((database, True), (second_database, False)):
        with LiveServer(server_settings(db, fast_rounds=fast), with_pick) as srv:
            with srv.client() as anon:
                session = anon.post("/api/demo").json()
            c = srv.client(session["token"])
            won = c.post("/api/games/jackpot-test/rounds", json={"bet": 10}, headers=key())
            start = c.post("/api/games/pick-jackpot-test/rounds", json={"bet": 10},
                           headers=key())
            got = [won, start,
                   c.post(f"/api/rounds/{start.json()['round_id']}/choices",
                          json={"choice": "left", "step": start.json()["step"]},
                          headers=key())]
            assert [r.status_code for r in got] == [201, 201, 200], [r.text for r in got]
            answers.append([{k: v for k, v in r.json().items()
                             if k not in ("round_id", "created_at", "completed_at")}
                            for r in got])
            if fast:
                assert served(srv)["served"] == 2 and served(srv)["choice:served"] == 1
            assert srv.admin().get("/api/admin/audit").json()["ok"]
        engine = create_engine(normalize_url(db.url))
        with engine.connect() as conn:
            name = conn.execute(text("SELECT username FROM players WHERE id = :p"),
                                {"p": session["player_id"]}).scalar_one()
        engine.dispose()
        found.append(rows(db.url, name))
    assert answers[0] == answers[1]
    assert found[0] == found[1]
    paid = [a["jackpots"] for a in answers[0]]
    assert paid[0] == paid[2] == [{"tier": "top", "amount": 1000, "demo": True}], paid
    assert found[0]["pools"] == []  # play money never moves a pool
    assert [k for k, *_ in found[0]["ledger"]].count("jackpot") == 2


def test_a_tier_with_no_pool_is_logged_and_paid_nothing_on_the_one_seed_drawn(
        make_server: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
        ) -> None:
    """A jackpot of a tier the game has no pool for is logged and pays nothing; the round is
    written on the one seed drawn."""
    draws: list[bytes] = []

    def seed() -> bytes:
        draws.append(uuid.uuid4().bytes * 2)
        return draws[-1]

    monkeypatch.setattr(rounds, "fresh_seed", seed)
    srv = make_server(games={**games(), "no-pool-test": PickGame("no-pool-test", pick=False,
                                                                  jackpot="middle")})
    c, _ = srv.player()
    r = c.post("/api/games/no-pool-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 201 and r.json()["jackpots"] == [], r.text
    assert served(srv)["served"] == 1
    assert any("middle" in m for m in caplog.messages), caplog.messages
    assert len(draws) == 1  # one seed drawn, and the round stored on it
    record = c.get(f"/api/rounds/{r.json()['round_id']}").json()
    assert record["seeds"] == [draws[0].hex()]


def test_requests_the_fast_path_does_not_serve_get_the_apps_answers(make_server: Any) -> None:
    srv = make_server(games=games())
    c, _ = srv.player()
    assert c.post("/api/games/pool-test/rounds", json={"bet": 10}).status_code == 400
    bad = c.post("/api/games/pool-test/rounds", content=b"{", headers={
        **key(), "Content-Type": "application/json"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "malformed_json"
    assert c.post("/api/games/pool-test/rounds", json={"bet": 10, "x": 1},
                  headers=key()).status_code == 422
    assert c.post("/api/games/nope/rounds", json={"bet": 10}, headers=key()).status_code == 404
    anon = srv.client().post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert anon.status_code == 401
    big = c.post("/api/games/pool-test/rounds", content=b" " * 70_000,
                 headers={**key(), "Content-Type": "application/json"})
    assert big.status_code == 413
    assert served(srv)["served"] == 0
    ok = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert ok.status_code == 201
    assert ok.headers["x-content-type-options"] == "nosniff"  # the app's headers, here too
    assert served(srv)["served"] == 1


def test_many_players_at_once_reconcile(make_server: Any) -> None:
    """Twelve players at once, a fifth of their rounds winning the one top pool of
    jackpot-test (the batched path writes each alone, its pools locked): every wallet and
    pool equals its entries, and the jackpots paid are what the pools gave out."""
    srv = make_server(games=games())
    players = [srv.player()[0] for _ in range(12)]

    def play(c: Any) -> Counter[int]:
        codes: Counter[int] = Counter()
        for i in range(15):
            game = ("pick-test" if i % 5 == 4 else "jackpot-test" if i % 5 == 2
                    else "pool-test")
            r = c.post(f"/api/games/{game}/rounds", json={"bet": 10}, headers=key())
            codes[r.status_code] += 1
            if r.status_code == 201 and r.json()["status"] == "awaiting_choice":
                c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                       json={"choice": "left", "step": r.json()["step"]},
                       headers=key())
        return codes

    with ThreadPoolExecutor(12) as pool:
        codes = sum(pool.map(play, players), Counter())
    assert codes == Counter({201: 12 * 15}), codes
    assert served(srv)["served"] >= 12 * 12
    audit = srv.admin().get("/api/admin/audit").json()
    assert audit["ok"], json.dumps(audit)
    jackpots_paid = 0
    for c in players:
        hist = c.get("/api/history", params={"limit": 100}).json()["rounds"]
        assert len(hist) == 15
        paid = sum(h["win"] + h["jackpot_win"] - h["bet"] for h in hist)
        assert c.get("/api/wallet").json()["balance"] == 100_000 + paid
        jackpots_paid += sum(h["jackpot_win"] for h in hist)
    with srv.ctx.db.read() as s:
        awards = s.execute(text("SELECT count(*), -sum(amount_micro) FROM jackpot_entries "
                                "WHERE kind = 'award'")).one()
    assert awards[0] == 12 * 3 and awards[1] == jackpots_paid * 1_000_000 > 0


def test_a_paced_profile_with_session_figures_and_reality_checks_takes_the_fast_path(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """gb (a round every 2.5 s, the session's figures in every answer, an hourly reminder): the
    fast path serves its rounds, refuses one too soon with the general path's 429 (the same body
    as a process with the fast path off answers) with nothing moved, returns the same net
    position the general path reads, and hands a round over once a reminder is due; both paths
    stamp the same clock."""
    # The reminder every ten minutes (gb's hour would pass the session's idle timeout first).
    monkeypatch.setitem(profiles.PROFILES, "gb",
                        dataclasses.replace(profiles.PROFILES["gb"], reality_check_s=600))
    srv = make_server(games=games(), jurisdiction="gb")
    there = make_server(games=games(), jurisdiction="gb", fast_rounds=False)
    clock = ServerClock(monkeypatch, (auth_service, reality_service, rounds, fast_rounds,
                                      round_view))
    c, _ = srv.player()
    net = 0
    for _ in range(4):
        first_key = key()
        r = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=first_key)
        assert r.status_code == 201, r.text
        net += r.json()["win"] - 10
        assert r.json()["session"]["net_position"] == net
        balance = r.json()["balance"]
        # A retry is answered before the pace is looked at, with the session's figures now.
        again = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=first_key)
        assert (again.status_code, again.json()) == (201, r.json())
        soon = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
        assert soon.status_code == 429 and soon.json()["error"]["code"] == "too_fast"
        with there.client(c.headers["Authorization"].split()[1]) as other:
            same = other.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
            replay = other.post("/api/games/pool-test/rounds", json={"bet": 10},
                                headers=first_key)
        assert (same.status_code, same.json()) == (429, soon.json())
        assert (replay.status_code, replay.json()) == (201, again.json())
        assert c.get("/api/wallet").json()["balance"] == balance
        clock.advance(2.5)
    assert served(srv)["served"] == 4 and served(srv)["passed:round"] == 0, served(srv)
    assert served(srv)["refused:pace"] == 4 and served(srv)["replayed"] == 4
    assert served(srv)["passed:refused"] == 0, served(srv)
    assert c.get("/api/session/reality-check").json()["net_position"] == net
    clock.advance(600)
    due = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert due.status_code == 409 and due.json()["error"]["code"] == "reality_check_due"
    assert served(srv)["passed:round"] == 1
    assert c.post("/api/session/reality-check").status_code == 200
    assert c.post("/api/games/pool-test/rounds", json={"bet": 10},
                  headers=key()).status_code == 201
    assert served(srv)["served"] == 5
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_free_rounds_take_the_fast_path_and_its_refusals_are_the_general_paths(
        make_server: Any) -> None:
    srv = make_server(games=games())
    c, name = srv.player()

    def grant(rounds: int, game: str = "pool-test") -> int:
        r = srv.admin().post("/api/admin/free-rounds", json={
            "username": name, "game": game, "bet": 10, "rounds": rounds,
            "expires_at": "2099-01-01T00:00:00+00:00"})
        assert r.status_code == 201, r.text
        return int(r.json()["id"])

    first, second = grant(2), grant(1)
    spin = {"bet": 10, "free_round_id": first}
    early = c.post("/api/games/pool-test/rounds", json={**spin, "free_round_id": second},
                   headers=key())
    assert early.status_code == 409 and early.json()["error"]["code"] == "free_round_out_of_order"
    assert served(srv)["passed:free_round"] == 1
    won = 0
    for left in (1, 0):
        r = c.post("/api/games/pool-test/rounds", json=spin, headers=key())
        assert r.status_code == 201, r.text
        won += r.json()["win"]
        assert r.json()["free_round"] == {"id": first, "rounds_left": left, "total_won": won,
                                          "status": "active" if left else "used"}
    used = c.post("/api/games/pool-test/rounds", json=spin, headers=key())
    assert used.status_code == 409 and used.json()["error"]["code"] == "free_round_used_up"
    wrong = c.post("/api/games/pool-test/rounds", json={"bet": 5, "free_round_id": second},
                   headers=key())
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "free_round_wrong_bet"
    assert served(srv)["served"] == 2 and served(srv)["passed:free_round"] == 3, served(srv)
    assert c.get("/api/wallet").json()["balance"] == 100_000 + won  # nothing was debited
    packages = {p["id"]: p for p in c.get("/api/free-rounds").json()["packages"]}
    assert packages[first]["total_won"] == won and packages[second]["rounds_left"] == 1
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_package_is_read_once_and_its_write_checks_it_and_the_older_packages(
        make_server: Any, database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package's rounds after its first are played on the copy the last write left (no
    read), and the write checks what the read checked: an older package of the game that
    became playable again (a void gives a round back) refuses the round with the general
    path's 409, nothing moved."""
    srv = make_server(games=games())
    c, name = srv.player()
    ids = []
    for count in (1, 5):
        r = srv.admin().post("/api/admin/free-rounds", json={
            "username": name, "game": "pool-test", "bet": 10, "rounds": count,
            "expires_at": "2099-01-01T00:00:00+00:00"})
        assert r.status_code == 201, r.text
        ids.append(int(r.json()["id"]))
    older, newer = ids
    reads: Counter[int] = Counter()
    usable = fast_rounds.free_rounds.usable

    def counted(ctx: Any, player_id: int, package_id: int, *rest: Any) -> Any:
        reads[package_id] += 1
        return usable(ctx, player_id, package_id, *rest)

    monkeypatch.setattr(fast_rounds.free_rounds, "usable", counted)
    spin = {"bet": 10, "free_round_id": older}
    assert c.post("/api/games/pool-test/rounds", json=spin, headers=key()).status_code == 201
    won = 0
    for left in (4, 3, 2):
        r = c.post("/api/games/pool-test/rounds", json={**spin, "free_round_id": newer},
                   headers=key())
        assert r.status_code == 201, r.text
        won += r.json()["win"]
        assert r.json()["free_round"]["rounds_left"] == left
        assert r.json()["free_round"]["total_won"] == won
    assert reads == {older: 1, newer: 1} and served(srv)["served"] == 4, (reads, served(srv))
    engine = create_engine(normalize_url(database.url))
    try:
        with engine.begin() as conn:  # as a void of the older package's round leaves it
            conn.execute(text("UPDATE free_round_packages SET rounds_left = 1 WHERE id = :i"),
                         {"i": older})
    finally:
        engine.dispose()
    before = rows(database.url, name)
    r = c.post("/api/games/pool-test/rounds", json={**spin, "free_round_id": newer},
               headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "free_round_out_of_order"
    assert served(srv)["passed:refused"] == 1 and rows(database.url, name) == before


def test_autoplay_rounds_take_the_fast_path_and_the_write_stops_the_run(
        make_server: Any) -> None:
    srv = make_server(games=games())
    c, _ = srv.player()
    run = c.post("/api/autoplay", json={"game": "lose-test", "rounds": 5,
                                        "balance_down_by": 25}).json()["run_id"]

    def spin() -> Any:
        return c.post("/api/games/lose-test/rounds", json={"bet": 10, "autoplay": {
            "rounds_left": 5, "balance_down_by": 25, "run_id": run}}, headers=key())

    assert [spin().status_code for _ in range(3)] == [201, 201, 201]
    assert served(srv)["served"] == 3, served(srv)
    got = c.get(f"/api/autoplay/{run}").json()  # the third round's write stopped the run: 30 lost
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("stopped", "loss_limit", 3)
    stopped = spin()
    assert stopped.status_code == 409 and stopped.json()["error"]["code"] == "autoplay_stopped"
    assert served(srv)["passed:autoplay"] == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 30
    other = c.post("/api/games/pool-test/rounds", json={"bet": 10, "autoplay": {
        "rounds_left": 3, "run_id": run}}, headers=key())
    assert other.status_code == 409 and other.json()["error"]["code"] == "autoplay_run_other_game"
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_run_remembered_by_one_process_and_played_in_another_is_never_trusted(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process remembers a run's figures after each round it writes; a round of the run
    written by another process makes them stale, and the write refuses them: the round goes to
    the general path, which reads the run anew and writes the round, on the seed the fast
    path drew (never a second one: a re-draw would let the outcome decide which counts)."""
    draws: list[bytes] = []

    def seed() -> bytes:
        draws.append(uuid.uuid4().bytes * 2)
        return draws[-1]

    monkeypatch.setattr(rounds, "fresh_seed", seed)
    here = make_server(games=games())
    there = make_server(games=games(), fast_rounds=False)  # another process on the database
    c, _ = here.player()
    token = c.headers["Authorization"].split()[1]
    run = c.post("/api/autoplay", json={"game": "lose-test", "rounds": 3}).json()["run_id"]
    body = {"bet": 10, "autoplay": {"rounds_left": 3, "run_id": run}}

    def spin(srv: LiveServer) -> Any:
        with srv.client(token) as cl:
            return cl.post("/api/games/lose-test/rounds", json=body, headers=key())

    assert spin(here).status_code == 201 and served(here)["served"] == 1
    assert spin(there).status_code == 201
    third = spin(here)  # remembered figures: one round; stored: two
    assert third.status_code == 201, third.text
    assert served(here)["served"] == 1 and served(here)["passed:refused"] == 1, served(here)
    assert len(draws) == 3, "the handed-over round was written on the seed drawn for it"
    assert c.get(f"/api/rounds/{third.json()['round_id']}").json()["seeds"] == [draws[2].hex()]
    got = c.get(f"/api/autoplay/{run}").json()
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("stopped", "rounds", 3)
    stopped = spin(here)
    assert stopped.status_code == 409 and stopped.json()["error"]["code"] == "autoplay_stopped"
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 30
    assert here.admin().get("/api/admin/audit").json()["ok"]


def choose(srv: LiveServer, token: str, start: dict[str, Any], choice: str = "left",
           step: int | None = None, idem: dict[str, str] | None = None) -> Any:
    with srv.client(token) as cl:
        return cl.post(f"/api/rounds/{start['round_id']}/choices",
                       json={"choice": choice, "step": start["step"] if step is None else step},
                       headers=idem or key())


def test_a_choice_is_answered_once_and_a_wrong_one_is_the_general_paths(
        make_server: Any) -> None:
    srv = make_server(games=games())
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    start = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    wrong_step = choose(srv, token, start, step=start["step"] + 1)
    assert wrong_step.status_code == 409 and wrong_step.json()["error"]["code"] == "round_changed"
    illegal = choose(srv, token, start, choice="middle")
    assert illegal.status_code == 422 and illegal.json()["error"]["code"] == "illegal_choice"
    assert served(srv)["choice:passed:request"] == 2
    once = key()
    first = choose(srv, token, start, idem=once)
    assert first.status_code == 200 and served(srv)["choice:served"] == 1, served(srv)
    again = choose(srv, token, start, idem=once)  # a retry: the stored answer, money moved once
    assert again.status_code == 200 and again.json() == first.json()
    assert served(srv)["choice:served"] == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + first.json()["win"]
    kinds = [e["kind"] for e in c.get(f"/api/rounds/{start['round_id']}").json()["ledger"]]
    assert kinds == ["bet", "win"] if first.json()["win"] else ["bet"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_choice_for_a_round_changed_since_it_was_written_goes_to_the_general_path(
        make_server: Any) -> None:
    """The process remembers the round as it wrote it; a void or a choice taken by another
    process changes the stored round, and the write refuses the remembered one. (A void this
    process writes makes it forget the round.)"""
    here = make_server(games=games())
    there = make_server(games=games(), fast_rounds=False)  # another process on the database
    c, _ = here.player()
    token = c.headers["Authorization"].split()[1]
    voided = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    assert there.admin().post(f"/api/admin/rounds/{voided['round_id']}/void").status_code == 200
    late = choose(here, token, voided)
    assert late.status_code == 409
    assert late.json()["error"]["code"] == "round_not_awaiting_choice"
    assert served(here)["choice:passed:refused"] == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000  # the bet refunded, nothing paid
    elsewhere = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    paid = choose(there, token, elsewhere)
    assert paid.status_code == 200
    twice = choose(here, token, elsewhere)  # remembered here as waiting: it is not any more
    assert twice.status_code == 409
    assert twice.json()["error"]["code"] == "round_not_awaiting_choice"
    assert served(here)["choice:passed:refused"] == 2 and served(here)["choice:served"] == 0
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + paid.json()["win"]
    assert here.admin().get("/api/admin/audit").json()["ok"]


def test_a_choice_for_a_round_another_process_wrote_is_read_and_served_here(
        make_server: Any) -> None:
    """A round waiting for a choice that this process did not write is read as stored and its
    choice written here, once; a stored round that does not re-play as recorded is not
    trusted: the general path refuses it and settles it by the better-of rule."""
    here = make_server(games=games())
    there = make_server(games=games())  # another process on the database (or before a restart)
    c, _ = here.player()
    token = c.headers["Authorization"].split()[1]
    with there.client(token) as cl:
        start = cl.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    assert start["status"] == "awaiting_choice" and served(there)["served"] == 1
    once = key()
    paid = choose(here, token, start, idem=once)
    assert paid.status_code == 200 and paid.json()["status"] == "completed", paid.text
    assert served(here)["choice:read"] == 1 and served(here)["choice:served"] == 1, served(here)
    again = choose(here, token, start, idem=once)  # a retry: the stored answer
    assert again.status_code == 200 and again.json() == paid.json()
    assert served(here)["choice:read"] == 2 and served(here)["choice:served"] == 1  # not waiting
    late = choose(there, token, start)  # remembered there as waiting: it is not any more
    assert late.json()["error"]["code"] == "round_not_awaiting_choice"
    assert served(there)["choice:passed:refused"] == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + paid.json()["win"]

    with there.client(token) as cl:
        changed = cl.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()
    with here.ctx.db.write() as s:  # its record altered: it re-plays to other events
        s.execute(update(Round).where(Round.id == changed["round_id"])
                  .values(events=[*changed["events"], {"type": "noise"}]))
    refused = choose(here, token, changed)
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"]["code"] == "round_cannot_continue"
    assert served(here)["choice:read"] == 3 and served(here)["choice:served"] == 1
    assert served(here)["choice:passed:round"] == 2
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5 + paid.json()["win"]
    assert here.admin().get("/api/admin/audit").json()["ok"]


def test_a_tier_with_no_pool_won_by_a_choice_is_logged_and_paid_nothing(
        make_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A choice whose outcome wins a tier the game has no pool for pays nothing for it, written
    on the seed drawn."""
    draws: list[bytes] = []

    def seed() -> bytes:
        draws.append(uuid.uuid4().bytes * 2)
        return draws[-1]

    monkeypatch.setattr(rounds, "fresh_seed", seed)
    srv = make_server(games={**games(), "pick-middle-test": PickGame(
        "pick-middle-test", pick=True, jackpot="middle")})
    c, _ = srv.player()
    token = c.headers["Authorization"].removeprefix("Bearer ")
    start = c.post("/api/games/pick-middle-test/rounds", json={"bet": 10}, headers=key())
    assert start.status_code == 201 and start.json()["status"] == "awaiting_choice"
    won = choose(srv, token, start.json())
    assert won.status_code == 200 and won.json()["jackpots"] == [], won.text
    assert served(srv)["choice:served"] == 1
    assert len(draws) == 2  # the start's seed and the choice's, and the round stored on them
    assert c.get(f"/api/rounds/{start.json()['round_id']}").json()["seeds"] == [
        d.hex() for d in draws]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_loss_limited_players_rounds_take_the_fast_path_up_to_the_limit(
        make_server: Any) -> None:
    """The statement counts the player's losses in the limit's window with the wallet locked
    (ledger/loss_limits.py, the general path's own count): bets within every limit are written
    there, the bet that would pass one is refused there with the general path's 409 (the same
    body as a process with the fast path off answers), and a free round is not a bet."""
    srv = make_server(games=games())
    there = make_server(games=games(), fast_rounds=False)  # another process on the database
    c, name = srv.player()
    assert c.put("/api/limits/loss/day", json={"amount": 1000}).status_code == 200
    assert c.put("/api/limits/loss/week", json={"amount": 25}).status_code == 200

    def lose(**extra: Any) -> Any:
        return c.post("/api/games/lose-test/rounds", json={"bet": 10, **extra}, headers=key())

    assert lose().status_code == 201 and lose().status_code == 201  # losses 20
    assert served(srv)["served"] == 2
    refused = lose()  # 20 + 10 > 25
    assert refused.status_code == 409, refused.text
    assert refused.json() == {
        "error": {"code": "loss_limit_reached", "message": "this bet would pass your loss limit "
                  "of 25 over the week (losses so far 20)"},
        "limit": 25, "period": "week", "used": 20}
    assert served(srv)["refused:loss_limit"] == 1 and served(srv)["passed:refused"] == 0
    with there.client(c.headers["Authorization"].split()[1]) as general:
        same = general.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
    assert (same.status_code, same.json()) == (409, refused.json())
    package = srv.admin().post("/api/admin/free-rounds", json={
        "username": name, "game": "lose-test", "bet": 10, "rounds": 1,
        "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
    assert lose(free_round_id=package).status_code == 201
    assert served(srv)["served"] == 3
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 20
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_bet_past_two_loss_limits_is_told_of_the_shortest(make_server: Any) -> None:
    """Both paths tell the player of the first limit a bet would pass, the shortest period
    first, whatever order the limits were set in (the general path once told of whichever row
    the database gave first)."""
    srv = make_server(games=games())
    there = make_server(games=games(), fast_rounds=False)
    c, _ = srv.player()
    for period in ("month", "week", "day"):
        assert c.put(f"/api/limits/loss/{period}", json={"amount": 15}).status_code == 200
    assert c.post("/api/games/lose-test/rounds", json={"bet": 10},
                  headers=key()).status_code == 201
    answers = []
    for server in (srv, there):
        with server.client(c.headers["Authorization"].split()[1]) as cl:
            answers.append(cl.post("/api/games/lose-test/rounds", json={"bet": 10},
                                   headers=key()))
    assert [(a.status_code, a.json()["period"]) for a in answers] == [(409, "day")] * 2
    assert served(srv)["refused:loss_limit"] == 1


def test_off_means_the_app_answers_and_the_writer_still_writes(make_server: Any) -> None:
    """SLOTLAB_FAST_ROUNDS=false: no request is answered at the ASGI level; the round starts
    the app answers are written by the one writer all the same (one money path)."""
    srv = make_server(games=games(), fast_rounds=False)
    c, _ = srv.player()
    assert c.post("/api/games/pool-test/rounds", json={"bet": 10},
                  headers=key()).status_code == 201
    path = srv.app.state.fast_rounds
    assert not path.serves and path.stats["served"] == 0 and path.writer.rounds == 1


# --- the group commit, without a database ---

def _write(pid: int) -> RoundWrite:
    return RoundWrite(player_id=pid, currency="EUR", bet=1, win=0, round_id=uuid.uuid4().hex,
                      owner=f"p:{pid}", key=uuid.uuid4().hex, request_hash="h",
                      at=datetime.now(UTC), round_values={}, ledger=(),
                      contributions=(), response={}, response_json="{}", events_json="[]")


def test_a_batch_never_holds_two_rounds_of_one_player() -> None:
    batches: list[list[int]] = []

    async def write(batch: Any) -> list[int | None]:
        batches.append([w.player_id for w in batch])
        await asyncio.sleep(0)
        return [7] * len(batch)

    async def main() -> list[int | None]:
        gw = GroupWriter(write, depth=1, max_batch=64)
        return list(await asyncio.gather(*(gw.submit(_write(p)) for p in [1, 2, 1, 3, 1, 2])))

    assert run(main()) == [7] * 6
    assert all(len(b) == len(set(b)) for b in batches), batches
    assert sorted(p for b in batches for p in b) == [1, 1, 1, 2, 2, 3]


def test_a_refused_batch_is_written_again_round_by_round() -> None:
    calls: list[int] = []

    async def write(batch: Any) -> list[int | None]:
        calls.append(len(batch))
        if any(w.player_id == 2 for w in batch):
            raise RuntimeError("duplicate key")
        return [w.player_id * 10 for w in batch]

    async def main() -> list[Any]:
        gw = GroupWriter(write, depth=1, max_batch=64)
        return list(await asyncio.gather(*(gw.submit(_write(p)) for p in [1, 2, 3]),
                                         return_exceptions=True))

    out = run(main())
    assert out[0] == 10 and out[2] == 30 and isinstance(out[1], RuntimeError)
    assert calls[0] >= 1 and sum(calls) >= 3


def test_a_wallet_changed_while_the_statement_waited_goes_to_the_general_path(
        make_server: Any, database: Database) -> None:
    """PostgreSQL: a transaction elsewhere holds the player's wallet; the batch statement waits
    for it and, seeing the wallet changed since it began, leaves the round to the general path
    (which plays it on the same seed): one round, its money moved once."""
    if database.backend != "postgres":
        pytest.skip("the wait on a row lock is PostgreSQL's")
    srv = make_server(games=games())
    c, name = srv.player()
    engine = create_engine(normalize_url(database.url))
    try:
        with engine.connect() as holder:
            tx = holder.begin()
            holder.execute(text("UPDATE wallets SET balance = balance WHERE player_id = "
                                "(SELECT id FROM players WHERE username = :u)"), {"u": name})
            with ThreadPoolExecutor(1) as pool:
                answer = pool.submit(c.post, "/api/games/pool-test/rounds", json={"bet": 10},
                                     headers=key())
                # Autocommit: a transaction would see pg_stat_activity as it first read it.
                with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as probe:
                    while not probe.execute(text(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                            "'Lock' AND query LIKE '%slotlab fast round batch%'")).scalar_one():
                        assert not answer.done(), answer.result().text
                tx.commit()
                r = answer.result()
    finally:
        engine.dispose()
    assert r.status_code == 201, r.text
    assert served(srv)["passed:refused"] == 1 and served(srv)["served"] == 0
    assert len(c.get("/api/history").json()["rounds"]) == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10 + r.json()["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_the_batch_statement_reads_by_index_on_a_new_database(make_server: Any,
                                                              database: Database) -> None:
    """PostgreSQL: the plan the writer's connections keep for the batch statement (the generic
    one) reads rounds, idempotency keys, wallets and limits by index even while the tables are
    nearly empty, when a sequential scan looks cheapest (and stays in the plan as they grow)."""
    if database.backend != "postgres":
        pytest.skip("the plan cache is PostgreSQL's")
    srv = make_server(games=games())
    c, _ = srv.player()
    assert c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key()
                  ).status_code == 201
    assert served(srv)["served"] == 1

    async def batch_plan() -> str:
        writer = await PostgresRoundWriter.connect(database.url, 1)
        try:
            async with writer.pool.acquire() as conn:
                return await generic_plan(conn, BATCH_SQL, PARAMETERS)
        finally:
            await writer.close()

    plan = run(batch_plan())
    for table in ("rounds", "idempotency_keys", "wallets", "player_limits"):
        assert f"Seq Scan on {table}" not in plan, plan
    # The key is looked up on its primary key (an index-only scan on PostgreSQL 15).
    assert re.search(r"Index (Only )?Scan using idempotency_keys_pkey", plan), plan


def test_a_rounds_write_checks_its_session_so_an_ended_one_is_refused_at_once(
        make_server: Any, database: Database) -> None:
    """No session cache (every other call reads the session): the batched path reads a
    session once (on PostgreSQL with its own query: no worker thread, no ORM), then plays on
    its copy, because each write checks the session in its own statement. A session logged
    out in another server process is refused at its next round with the general path's 401,
    nothing moved."""
    a = make_server(games=games(), session_cache_s=0)
    b = make_server(games=games(), session_cache_s=0)
    c, name = a.player()
    other = b.client(c.headers["Authorization"].split()[1])
    for _ in range(3):
        r = other.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
        assert r.status_code == 201, r.text
    reads = 1 if database.backend == "postgres" else 0  # SQLite's read is the general path's
    assert served(b)["served"] == 3 and served(b)["session:read"] == reads, served(b)
    before = rows(database.url, name)
    assert c.delete("/api/sessions/current").status_code == 204
    r = other.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired", r.text
    assert served(b)["passed:refused"] == 1 and served(b)["served"] == 3, served(b)
    assert rows(database.url, name) == before


def test_a_rounds_write_sets_the_sessions_last_seen_time_when_it_is_due(
        make_server: Any, database: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """The inactivity timeout counts from the session's last-seen time, written at most once a
    minute. A player who only plays keeps it: the round's write sets it once it is due (no
    session call of its own), and the process's copy follows, so the next round needs none."""
    srv = make_server(games=games())
    clock = ServerClock(monkeypatch, (auth_service, rounds, fast_rounds))
    c, _ = srv.player()
    assert c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key()
                  ).status_code == 201
    calls: Counter[str] = Counter()
    authenticate = auth_service.authenticate

    def counted(ctx: Any, token: str) -> Any:
        calls["authenticate"] += 1
        return authenticate(ctx, token)

    monkeypatch.setattr(auth_service, "authenticate", counted)
    clock.advance(61)
    for _ in range(2):
        r = c.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
        assert r.status_code == 201, r.text
    assert calls["authenticate"] == 0 and served(srv)["served"] == 3, served(srv)
    assert stored_last_seen(database.url) == clock.now()


def test_a_player_moved_to_another_jurisdiction_plays_the_next_round_under_it(
        make_server: Any, database: Database) -> None:
    """The jurisdiction is set in one server process; another holds the player's session with
    the old one. Its next round's write is refused (the statement checks the jurisdiction the
    round was played under), and the round is settled under the new profile: gb's session
    figures are in its answer."""
    a = make_server(games=games())
    b = make_server(games=games())
    c, name = a.player()
    other = b.client(c.headers["Authorization"].split()[1])
    r = other.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 201 and "session" not in r.json(), r.text
    assert a.admin().put(f"/api/admin/players/{name}/jurisdiction",
                         json={"jurisdiction": "gb"}).status_code == 200
    r = other.post("/api/games/pool-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 201 and "session" in r.json(), r.text
    assert served(b)["passed:refused"] == 1 and served(b)["served"] == 1, served(b)


# uvicorn ends its thread with SystemExit when the app's start-up fails.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_server_whose_round_writer_cannot_start_does_not_start(
        make_server: Any, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
        ) -> None:
    """The round writer is every round's money path: a server that cannot start it (here its
    database connection refused) does not start, and says why, rather than run its rounds on
    a second, slower path."""
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OSError("connection refused")

    async def refused_async(*args: Any, **kwargs: Any) -> Any:
        refused()

    monkeypatch.setattr(fast_rounds, "SqliteRoundWriter", refused)
    monkeypatch.setattr(PostgresRoundWriter, "connect", refused_async)
    with pytest.raises(RuntimeError, match="server failed to start"):
        make_server()
    said = capfd.readouterr().err  # uvicorn's log of the failed start-up
    assert "the round writer cannot start" in said and "connection refused" in said, said
