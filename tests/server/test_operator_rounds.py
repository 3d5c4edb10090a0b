"""Operator-wallet rounds on the batched path (server/operator_rounds.py): the common round start
is answered there (the /metrics round-start counter per path, as the production-mix benchmark
reads it), and writes what the general path writes for the same seeds: the rounds, the
operations log and the idempotency keys with their answers. Over real HTTP against the
reference operator, on both databases."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text

from slotlab.fairness import derive
from slotlab.ledger.operator_rounds import COMPLETE_SQL, SETTLE_SQL, PostgresOperatorRounds
from slotlab.ledger.postgres import BATCH_SQL
from slotlab.server import fast_rounds, operator_rounds
from slotlab.server.operator_rounds import OperatorRounds
from slotlab.server.services import auth as auth_service
from slotlab.server.services import rounds
from slotlab.store.operator_wallet import debit_txid

from ..async_util import run
from ..operator_wallet.conftest import SECRET, WalletServer
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

SEED = bytes(range(3, 35))
START = 10_000


def _settings(db: Database, ws: WalletServer, **overrides: Any) -> Any:
    return server_settings(db, wallet_mode="operator", operator_wallet_url=ws.url,
                           operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                           operator_wallet_attempts=2, operator_wallet_backoff_s=0.0,
                           **overrides)


def _player(srv: LiveServer, ws: WalletServer, name: str | None = None
            ) -> tuple[httpx.Client, str]:
    c, username = srv.player(name) if name else srv.player()
    r = ws.post("/admin/players", {"player_id": username, "token": f"tok-{username}",
                                   "balance": START, "currency": "EUR"})
    assert r.status_code == 200, r.text
    return c, username


def _starts(srv: LiveServer) -> dict[str, int]:
    """Round starts answered so far, per path, from the server's /metrics."""
    out: dict[str, int] = {}
    for family in text_string_to_metric_families(srv.client().get("/metrics").text):
        if family.name == "slotlab_round_seconds":
            for sample in family.samples:
                if sample.name.endswith("_count"):
                    out[sample.labels["path"]] = int(sample.value)
    return out


def test_operator_rounds_take_the_batched_path(make_server, wallet_server):
    srv = make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                      operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                      operator_wallet_attempts=2, operator_wallet_backoff_s=0.0)
    c, username = _player(srv, wallet_server)
    before = _starts(srv)
    expected = START
    for _ in range(5):
        r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
        assert r.status_code == 201, r.text
        expected += r.json()["win"] - 5
        assert r.json()["status"] == "completed"
    assert wallet_server.balance(username) == expected
    after = _starts(srv)
    assert after.get("fast", 0) - before.get("fast", 0) == 5
    assert after.get("general", 0) == before.get("general", 0)
    assert srv.app.state.fast_rounds.stats["served"] == 5
    # A round with a choice: opened, debited and settled waiting here, remembered; the choice
    # written in a batch and its win credited here.
    started = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    assert started["status"] == "awaiting_choice" and started["balance"] == expected - 10
    assert srv.app.state.fast_rounds.stats["served"] == 6
    done = c.post(f"/api/rounds/{started['round_id']}/choices",
                  json={"choice": "left", "step": started["step"]}, headers=key()).json()
    assert done["status"] == "completed"
    assert done["balance"] == wallet_server.balance(username) == expected - 10 + done["win"]
    stats = srv.app.state.fast_rounds.stats
    assert stats["choice:read"] == 0 and stats["choice:served"] == 1, stats
    # One this process does not remember (another wrote it, or it restarted since): read.
    balance = done["balance"]
    started = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    assert srv.app.state.fast_rounds.waiting.take(started["round_id"]) is not None
    done = c.post(f"/api/rounds/{started['round_id']}/choices",
                  json={"choice": "right", "step": started["step"]}, headers=key()).json()
    assert done["balance"] == wallet_server.balance(username) == balance - 10 + done["win"]
    assert stats["choice:read"] == 1 and stats["choice:served"] == 2, stats
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_an_operator_rounds_opening_checks_its_session_before_the_debit_is_sent(
        make_server, wallet_server, database, monkeypatch):
    """No session cache (every other call reads the session): a process plays a player's
    operator rounds on its copy of the session, since each round's opening checks the session
    before the debit is sent, and sets its last-seen time once it is due. A logout in another
    process refuses the next round with the general path's 401: no debit reaches the
    operator."""
    settings = {"wallet_mode": "operator", "operator_wallet_url": wallet_server.url,
                "operator_wallet_secret": SECRET, "operator_wallet_timeout_s": 10.0,
                "operator_wallet_attempts": 2, "operator_wallet_backoff_s": 0.0,
                "session_cache_s": 0}
    a, b = make_server(**settings), make_server(**settings)
    clock = ServerClock(monkeypatch, (auth_service, fast_rounds, operator_rounds))
    c, username = _player(a, wallet_server)
    other = b.client(c.headers["Authorization"].split()[1])
    for advance in (0, 61, 0):  # the second round's opening sets last-seen (a minute passed)
        clock.advance(advance)
        r = other.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
        assert r.status_code == 201, r.text
    stats = b.app.state.fast_rounds.stats
    # Read at the first round, and at the second: a copy whose last-seen time is due is read
    # again (another process may have seen the session since). SQLite's read is the general
    # path's, which sets last-seen itself.
    reads = 2 if database.backend == "postgres" else 0
    assert stats["served"] == 3 and stats["session:read"] == reads, stats
    assert stored_last_seen(database.url) == clock.now()
    balance = wallet_server.balance(username)
    assert c.delete("/api/sessions/current").status_code == 204
    r = other.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired", r.text
    assert stats["passed:refused"] == 1 and wallet_server.balance(username) == balance


def test_provably_fair_operator_rounds_take_the_batched_path_and_verify(make_server,
                                                                        wallet_server):
    """Under a provably fair profile the operator pipeline draws each seed from the player's
    pair (start and choice alike): once revealed, each is the pair's derived seed. (The test
    games are not public models, so ``slotlab verify`` cannot replay them; test_fairness.py
    verifies whole rounds of a public one.)"""
    srv = make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                      operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                      operator_wallet_attempts=2, operator_wallet_backoff_s=0.0,
                      provably_fair=True)
    c, _ = _player(srv, wallet_server)
    commitment = c.get("/api/fairness").json()["active"]["commitment"]
    rounds = [c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key()).json()
              for _ in range(3)]
    started = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    done = c.post(f"/api/rounds/{started['round_id']}/choices",
                  json={"choice": "left", "step": started["step"]}, headers=key()).json()
    assert done["status"] == "completed"
    stats = srv.app.state.fast_rounds.stats
    assert stats["served"] == 4 and stats["choice:served"] == 1, stats
    c.put("/api/fairness", json={})  # reveals the server seed
    counters = []
    for r in [*rounds, done]:
        export = c.get(f"/api/fairness/rounds/{r['round_id']}").json()
        f = export["fairness"]
        assert f["commitment"] == commitment
        assert export["round"]["seeds"] == [
            derive(bytes.fromhex(f["server_seed"]), f["client_seed"], k).hex()
            for k in f["counters"]]
        counters += f["counters"]
    assert counters == [0, 1, 2, 3, 4]  # one per seed, none twice


def _rows(db_url: str, player: str) -> dict[str, Any]:
    """The player's rounds, operations and keys, with ids, times and round ids taken out."""
    with player_rows(db_url, player) as (c, pid, clean_ids):
        def clean(value: Any) -> str:
            return clean_ids(value).replace(player, "P")

        times = {"created_at", "updated_at", "completed_at", "next_attempt_at",
                 "keep_until", "timestamp"}
        # A round's chain digest covers its id and times: the chain's own tests check it.
        round_rows = [clean(sorted((k, v) for k, v in r._mapping.items()
                                   if k not in {"seq", "id", "player_id", "chain_digest",
                                                *times}))
                      for r in c.execute(text(
                          "SELECT * FROM rounds WHERE player_id = :p ORDER BY seq"),
                          {"p": pid})]
        ops = []
        for r in c.execute(text("SELECT * FROM operator_wallet_ops WHERE player_id = :u "
                                "ORDER BY transaction_id"), {"u": player}):
            m = dict(r._mapping)
            response = m.pop("response")
            body = response if isinstance(response, dict) or response is None \
                else json.loads(response)
            m["response"] = None if body is None else sorted(  # the operator's own id
                (k, v) for k, v in body.items()                 # is its counter's
                if k not in times and k != "operator_transaction_id")
            m["keep_until"] = m["keep_until"] is not None
            m["next_attempt_at"] = m["next_attempt_at"] is not None
            ops.append(clean(sorted((k, v) for k, v in m.items()
                                    if k not in {"id", "created_at", "updated_at",
                                                 "completed_at"})))
        keys = []
        for req_hash, rid, status, response in c.execute(text(
                "SELECT request_hash, round_id, status_code, response FROM idempotency_keys "
                "WHERE owner = :o"), {"o": f"p:{pid}"}):
            body = response if isinstance(response, dict) else json.loads(response)
            # A choice's request names its round in its path: its hash differs per database.
            # JSON objects are unordered (PostgreSQL's jsonb orders a merged answer's keys).
            keys.append((req_hash if status == 201 else "a choice", clean(rid), status,
                         clean(json.dumps({k: v for k, v in body.items() if k not in times},
                                          sort_keys=True))))
        runs = autoplay_figures(c, pid)
        pools = [(p.game_id, p.tier, p.kind, p.amount_micro, p.value_after_micro,
                  clean(p.round_id)) for p in c.execute(text(
            "SELECT p.game_id, p.tier, e.kind, e.amount_micro, e.value_after_micro, "
            "e.round_id FROM jackpot_entries e JOIN jackpot_pools p ON p.id = e.pool_id "
            "WHERE e.round_id IS NOT NULL ORDER BY e.id"))]
    return {"rounds": round_rows, "ops": sorted(ops), "keys": sorted(keys), "runs": runs,
            "pools": pools}


BATCHED, HANDED = "batched", "handed"


def test_the_batched_path_writes_what_the_app_hands_to_the_pipeline(
        database, second_database, wallet_server, monkeypatch):
    """Same seed, same requests: one server on the batched path; one whose app answers every
    request (``fast_rounds=false``) and hands its round starts to the same pipeline: the same
    rows and the same answers."""
    monkeypatch.setattr(rounds, "fresh_seed", lambda: SEED)
    # The rounds the pipeline refunds by the better-of rule, unplayable (here none).
    refunded: list[str] = []
    refund_unplayable = OperatorRounds._refund_unplayable

    async def counted(self: OperatorRounds, who: Any, entry: Any, rid: str, *args: Any) -> Any:
        refunded.append(rid)
        return await refund_unplayable(self, who, entry, rid, *args)

    monkeypatch.setattr(OperatorRounds, "_refund_unplayable", counted)
    # Max bets that feed the pools (settled in the batch; the jackpot won settled alone, the
    # pools locked, once its own contributions are in); then two rounds of an autoplay run of
    # two rounds (stamped with the run, which the second stops).
    plays = [("instant-test", 5, False), ("instant-test", 2, False), ("lose-test", 5, False),
             ("pool-test", 10, False), ("jackpot-test", 10, False), ("pool-test", 10, False),
             ("instant-test", 5, False), ("instant-test", 5, True), ("instant-test", 5, True)]
    found, answers = [], []
    for i, (db, way) in enumerate(((database, BATCHED), (second_database, HANDED))):
        with LiveServer(_settings(db, wallet_server, fast_rounds=way == BATCHED),
                        _games()) as srv:
            c, name = _player(srv, wallet_server, f"samerows{i}")
            run = c.post("/api/autoplay", json={"game": "instant-test", "rounds": 2}).json()
            got = []
            for game, bet, auto in plays:
                headers = key()
                body = {"bet": bet, **({"autoplay": {"rounds_left": 2, "run_id": run["run_id"]}}
                                       if auto else {})}
                r = c.post(f"/api/games/{game}/rounds", json=body, headers=headers)
                assert r.status_code == 201, r.text
                again = c.post(f"/api/games/{game}/rounds", json=body, headers=headers)
                assert again.json() == r.json()  # the key's stored answer
                got.append({k: v for k, v in r.json().items()
                            if k not in ("round_id", "created_at", "completed_at", "balance")})
            # Two free rounds of a package: nothing debited, each win the operator's credit;
            # the second in an autoplay run (stamped with it, its win in the run's figures).
            package = srv.admin().post("/api/admin/free-rounds", json={
                "username": name, "game": "instant-test", "bet": 5, "rounds": 2,
                "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
            free_run = c.post("/api/autoplay", json={"game": "instant-test", "rounds": 5}).json()
            for auto in (False, True):
                headers = key()
                body = {"bet": 5, "free_round_id": package, **(
                    {"autoplay": {"rounds_left": 5, "run_id": free_run["run_id"]}} if auto
                    else {})}
                r = c.post("/api/games/instant-test/rounds", json=body, headers=headers)
                assert r.status_code == 201 and r.json()["status"] == "completed", r.text
                again = c.post("/api/games/instant-test/rounds", json=body, headers=headers)
                assert again.json() == r.json()  # the key's stored answer
                got.append({k: v for k, v in r.json().items()
                            if k not in ("round_id", "created_at", "completed_at", "balance")})
            # Rounds that wait for a choice, and the choices (the operator credits the win);
            # the second a max bet whose choice wins a jackpot (the credit carries it).
            for game in ("pick-test", "pick-jackpot-test"):
                start_key = key()
                start = c.post(f"/api/games/{game}/rounds", json={"bet": 10}, headers=start_key)
                assert start.status_code == 201 and start.json()["status"] == "awaiting_choice"
                again = c.post(f"/api/games/{game}/rounds", json={"bet": 10}, headers=start_key)
                assert again.json() == start.json()  # the key's stored answer, its balance too
                headers = key()
                choice = {"choice": "right", "step": start.json()["step"]}
                r = c.post(f"/api/rounds/{start.json()['round_id']}/choices", json=choice,
                           headers=headers)
                assert r.status_code == 200 and r.json()["status"] == "completed", r.text
                again = c.post(f"/api/rounds/{start.json()['round_id']}/choices", json=choice,
                               headers=headers)
                assert again.json() == r.json()  # the key's stored answer
                got += [{k: v for k, v in a.json().items()
                         if k not in ("round_id", "created_at", "completed_at", "balance")}
                        for a in (start, r)]
            # Free rounds: one that waits for a choice (the choice completes it, its credit
            # then sent), one at the max bet that wins a jackpot (the credit carries it).
            for game, bet, choose in (("pick-test", 5, True), ("jackpot-test", 10, False)):
                package = srv.admin().post("/api/admin/free-rounds", json={
                    "username": name, "game": game, "bet": bet, "rounds": 1,
                    "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
                start = c.post(f"/api/games/{game}/rounds",
                               json={"bet": bet, "free_round_id": package}, headers=key())
                assert start.status_code == 201, start.text
                answered = [start]
                if choose:
                    assert start.json()["status"] == "awaiting_choice"
                    answered.append(c.post(
                        f"/api/rounds/{start.json()['round_id']}/choices",
                        json={"choice": "left", "step": start.json()["step"]}, headers=key()))
                assert answered[-1].json()["status"] == "completed", answered[-1].text
                got += [{k: v for k, v in a.json().items()
                         if k not in ("round_id", "created_at", "completed_at", "balance")}
                        for a in answered]
            path = srv.app.state.fast_rounds
            # Every round start answered by the pipeline, the choices by the writer.
            assert path.stats["served"] == len(plays) + 6, path.stats
            assert refunded == []
            if way == BATCHED:
                assert path.stats["choice:served"] == 3
            assert srv.admin().get("/api/admin/audit").json()["ok"]
            stopped = c.get(f"/api/autoplay/{run['run_id']}").json()
            assert (stopped["status"], stopped["stop_reason"]) == ("stopped", "rounds")
        found.append(_rows(db.url, name))
        answers.append(got)
    assert answers[0] == answers[1]
    assert found[0] == found[1]
    assert any(a["win"] for a in answers[0]) and any(not a["win"] for a in answers[0])
    kinds = [kind for _, _, kind, *_ in found[0]["pools"]]
    assert kinds.count("contribution") == 8 and kinds.count("award") == 3, found[0]["pools"]
    assert answers[0][4]["jackpot_win"] > 0
    free = answers[0][-9:-7]
    assert [a["free_round"]["rounds_left"] for a in free] == [1, 0]
    assert free[1]["free_round"]["total_won"] == sum(a["win"] for a in free) > 0
    assert answers[0][-6]["win"] > 0  # the first choice's
    assert answers[0][-4]["jackpot_win"] > 0  # the second's
    assert answers[0][-3]["status"] == "awaiting_choice" and answers[0][-2]["free_round"]
    assert answers[0][-1]["jackpot_win"] > 0 and answers[0][-1]["free_round"]
    credits = [op for op in found[0]["ops"] if "'credit'" in op]
    assert len(credits) == len(plays) + 6  # every round's win credited, the free ones too


def test_a_refused_debit_leaves_no_round_and_its_key_free(make_server, wallet_server):
    """Opened before the debit, withdrawn when the operator refuses it: the answer is the
    general path's 402, nothing stays, and the same key may be used again."""
    srv = make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                      operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                      operator_wallet_attempts=2, operator_wallet_backoff_s=0.0)
    c, username = srv.player()
    assert wallet_server.post("/admin/players", {"player_id": username, "balance": 3,
                                                 "currency": "EUR"}).status_code == 200
    headers = key()
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert r.status_code == 402 and r.json()["error"]["code"] == "insufficient_funds"
    assert "balance 3" in r.json()["error"]["message"]
    assert srv.app.state.fast_rounds.stats["served"] == 1  # refused here, not handed over
    assert c.get("/api/history").json() in ([], {"rounds": []})
    r = c.post("/api/games/instant-test/rounds", json={"bet": 2}, headers=headers)
    assert r.status_code == 201 and r.json()["status"] == "completed"
    assert wallet_server.balance(username) == 3 - 2 + r.json()["win"]


def test_a_refused_debit_on_a_runs_last_round_leaves_the_run_going(make_server, wallet_server):
    """The opening write stops a run at the round that meets its condition (here, its last
    round); a debit then refused withdraws that round, and the run goes on as if it had never
    been opened: its figures without it, still active, its last round still to play."""
    srv = make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                      operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                      operator_wallet_attempts=2, operator_wallet_backoff_s=0.0)
    c, username = srv.player()
    assert wallet_server.post("/admin/players", {"player_id": username, "balance": 4,
                                                 "currency": "EUR"}).status_code == 200
    run = c.post("/api/autoplay", json={"game": "instant-test", "rounds": 1}).json()["run_id"]
    auto = {"rounds_left": 1, "run_id": run}
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5, "autoplay": auto},
               headers=key())
    assert r.status_code == 402 and r.json()["error"]["code"] == "insufficient_funds"
    assert srv.app.state.fast_rounds.stats["served"] == 1  # refused on the batched path
    got = c.get(f"/api/autoplay/{run}").json()
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("active", None, 0)
    r = c.post("/api/games/instant-test/rounds", json={"bet": 2, "autoplay": auto},
               headers=key())
    assert r.status_code == 201, r.text
    got = c.get(f"/api/autoplay/{run}").json()
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("stopped", "rounds", 1)
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def _operator(make_server: Any, ws: WalletServer, **extra: Any) -> LiveServer:
    """A server in operator-wallet mode against ``ws``, with the test games."""
    return make_server(games=_games(), wallet_mode="operator", operator_wallet_url=ws.url,
                       operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                       operator_wallet_attempts=2, operator_wallet_backoff_s=0.0, **extra)


def test_a_loss_limited_players_rounds_take_the_batched_path_up_to_the_limit(
        make_server, wallet_server):
    """The opening write counts the player's losses in each limit's window as the general path
    counts them (ledger/loss_limits.py): bets within the limits are opened and debited there;
    the bet that would pass one is refused there with the general path's answer, with nothing
    sent to the operator."""
    srv = _operator(make_server, wallet_server)
    c, username = _player(srv, wallet_server)
    assert c.put("/api/limits/loss/day", json={"amount": 1000}).status_code == 200
    assert c.put("/api/limits/loss/week", json={"amount": 25}).status_code == 200

    def lose() -> Any:
        return c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())

    for _ in range(2):
        r = lose()
        assert r.status_code == 201 and r.json()["win"] == 0, r.text  # losses 10, then 20
    assert srv.app.state.fast_rounds.stats["served"] == 2
    refused = lose()  # 20 + 10 > 25
    assert refused.status_code == 409, refused.text
    assert refused.json() == {
        "error": {"code": "loss_limit_reached", "message": "this bet would pass your loss limit "
                  "of 25 over the week (losses so far 20)"},
        "limit": 25, "period": "week", "used": 20}
    stats = srv.app.state.fast_rounds.stats
    assert stats["refused:loss_limit"] == 1 and stats["passed:refused"] == 0, stats
    assert wallet_server.balance(username) == START - 20  # the refused bet never sent
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_retry_of_the_round_that_reached_a_loss_limit_gets_its_first_answer(
        make_server, wallet_server):
    """Operator-wallet mode: the key is looked up before the loss limits (as with the internal
    wallet), so a retry of the bet that took the losses up to the limit is answered with that
    round, not refused for the limit it reached, by the opening's checks (batch.Stored) as by
    the general path; nothing is sent to the operator again."""
    srv = _operator(make_server, wallet_server)
    c, username = _player(srv, wallet_server)
    assert c.put("/api/limits/loss/week", json={"amount": 20}).status_code == 200
    assert c.post("/api/games/lose-test/rounds", json={"bet": 10},
                  headers=key()).status_code == 201
    headers = key()
    first = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=headers)
    assert first.status_code == 201, first.text  # losses 20: at the limit, not past it
    again = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=headers)
    assert (again.status_code, again.json()) == (201, first.json())
    assert srv.app.state.fast_rounds.stats["replayed"] == 1
    there = _operator(make_server, wallet_server, fast_rounds=False)
    with there.client(c.headers["Authorization"].split()[1]) as general:
        same = general.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=headers)
    assert (same.status_code, same.json()) == (201, first.json())
    assert wallet_server.balance(username) == START - 20
    past = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
    assert past.status_code == 409 and past.json()["error"]["code"] == "loss_limit_reached"


def _games() -> dict[str, Any]:
    from .server_games import PickGame, PoolGame, make_test_games

    return {**make_test_games(), "lose-test": PickGame("lose-test", pick=False, prize_x=0),
            "pool-test": PoolGame(),
            "pick-jackpot-test": PickGame("pick-jackpot-test", pick=True, jackpot="top")}


def _cut_off_after_debits(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process stops between each debit's answer and the settling write: the call raises
    once the operator has applied the debit."""
    from slotlab.server.operator_wallet import OperatorWallet

    sent = OperatorWallet.call_async

    async def cut_off(self: OperatorWallet, endpoint: str, payload: dict[str, Any]) -> Any:
        out = await sent(self, endpoint, payload)
        if endpoint == "debit":
            raise RuntimeError("the process stops here")
        return out

    monkeypatch.setattr(OperatorWallet, "call_async", cut_off)


def test_a_round_cut_off_after_its_debit_is_rolled_back_and_withdrawn(
        make_server, wallet_server, monkeypatch):
    """The process stops between the debit's answer and the settling write (here: the call
    raises once the operator has applied it): the round stays ``open`` with its debit
    ``pending``; recovery never plays it, rolls the debit back and withdraws the round."""
    srv = make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                      operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                      operator_wallet_attempts=2, operator_wallet_backoff_s=0.0,
                      operator_wallet_stale_after_s=0.01, open_round_grace_s=0)
    c, username = _player(srv, wallet_server)
    _cut_off_after_debits(monkeypatch)
    headers = key()
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    rid = r.json()["round_id"]
    assert r.status_code == 201 and r.json()["status"] == "open"  # the key's state, as stored
    assert wallet_server.balance(username) == START - 5  # applied at the operator
    monkeypatch.undo()
    srv.admin().post("/api/admin/maintenance")
    assert srv.admin().get("/api/admin/rounds/open").json()["rounds"] == []
    assert c.get("/api/history").json() in ([], {"rounds": []})
    assert wallet_server.balance(username) == START  # rolled back, never credited
    assert [t["kind"] for t in wallet_server.transactions(rid)
            if t["status_code"] == 200] == ["debit", "rollback"]
    again = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] != rid
    assert again.json()["status"] == "completed"
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_runs_last_round_cut_off_and_withdrawn_by_the_sweep_leaves_the_run_going(
        make_server, wallet_server, monkeypatch):
    """A run's last round (its opening stopped the run) cut off after its debit: the sweep
    rolls the debit back and withdraws the round by the pipeline's write, and the run goes on
    as if that round had never been opened: its figures without it, active again."""
    srv = _operator(make_server, wallet_server, operator_wallet_stale_after_s=0.01,
                    open_round_grace_s=0)
    c, username = _player(srv, wallet_server)
    run = c.post("/api/autoplay", json={"game": "instant-test", "rounds": 1}).json()["run_id"]
    auto = {"rounds_left": 1, "run_id": run}
    _cut_off_after_debits(monkeypatch)
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5, "autoplay": auto},
               headers=key())
    assert r.status_code == 201 and r.json()["status"] == "open", r.text
    got = c.get(f"/api/autoplay/{run}").json()
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("stopped", "rounds", 1)
    monkeypatch.undo()
    srv.admin().post("/api/admin/maintenance")
    assert srv.admin().get("/api/admin/rounds/open").json()["rounds"] == []
    assert wallet_server.balance(username) == START  # rolled back
    got = c.get(f"/api/autoplay/{run}").json()
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("active", None, 0)
    assert got["total_bet"] == 0
    again = c.post("/api/games/instant-test/rounds", json={"bet": 5, "autoplay": auto},
                   headers=key())
    assert again.status_code == 201 and again.json()["status"] == "completed", again.text
    got = c.get(f"/api/autoplay/{run}").json()
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("stopped", "rounds", 1)
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_the_completion_finds_a_rounds_answers_by_index(make_server, wallet_server, database):
    """PostgreSQL: the plan the pipeline's connections keep for the completion (the generic one)
    finds the round's stored answers by the round id's index, not by reading every key (which
    cut the operator mix from 33 to under 4 rounds/s before migration 0017), and each credit's
    operation by its transaction id, not by hash-joining the batch to the whole operations log
    read in index order (1.2 ms of PostgreSQL CPU a round in the operator-wallet mix)."""
    if database.backend != "postgres":
        pytest.skip("the plan cache is PostgreSQL's")
    make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                operator_wallet_secret=SECRET)  # the schema, migrated

    async def completion_plan() -> str:
        backend = await PostgresOperatorRounds.connect(database.url, 1)
        try:
            async with backend.pool.acquire() as conn:
                return await generic_plan(conn, COMPLETE_SQL)
        finally:
            await backend.close()

    plan = run(completion_plan())
    assert "Seq Scan on idempotency_keys" not in plan, plan
    assert "ix_idempotency_keys_round_id" in plan, plan
    assert "Hash Join" not in plan and "Merge Join" not in plan, plan


def test_a_batch_finds_its_rounds_and_operations_by_key_not_by_status(
        make_server, wallet_server, database):
    """PostgreSQL: the plans the batch connections keep for settling and completing operator
    rounds, and for the fast path's writes (a choice continues a waiting round), find each
    round and operation of the batch by its id, never by reading every row in a status
    through the status's index: open and crediting rounds and pending operations pile up while
    the operator is down, and rounds waiting for a choice whenever players leave one (the
    generic plans made on tables never analysed took the status's index)."""
    if database.backend != "postgres":
        pytest.skip("the plan cache is PostgreSQL's")
    make_server(wallet_mode="operator", operator_wallet_url=wallet_server.url,
                operator_wallet_secret=SECRET)  # the schema, migrated

    async def plans() -> dict[str, str]:
        backend = await PostgresOperatorRounds.connect(database.url, 1)
        found = {}
        try:
            async with backend.pool.acquire() as conn:
                for name, sql in (("settle", SETTLE_SQL), ("complete", COMPLETE_SQL),
                                  ("batch", BATCH_SQL)):
                    found[name] = await generic_plan(conn, sql)
                    await conn.execute("DEALLOCATE planned")
        finally:
            await backend.close()
        return found

    for name, plan in run(plans()).items():
        assert "ix_rounds_status" not in plan, (name, plan)
        assert "ix_operator_wallet_ops_due" not in plan, (name, plan)
        assert "Seq Scan on rounds" not in plan, (name, plan)


def test_each_gb_answer_shows_the_net_position_the_operator_moved(
        make_server, wallet_server, monkeypatch):
    """gb shows the session's net position with every round: in operator-wallet mode the
    credits less the debits the operator confirmed, the round's own included, read once it is
    completed (by the pipeline's read connection on PostgreSQL, in a worker thread on SQLite):
    each answer's figure is what the operator's balance moved since the session began."""
    srv = _operator(make_server, wallet_server, jurisdiction="gb")
    clock = ServerClock(monkeypatch, (auth_service, fast_rounds, operator_rounds, rounds))
    c, username = _player(srv, wallet_server)
    for _ in range(6):
        r = c.post("/api/games/instant-test/rounds", json={"bet": 10}, headers=key())
        assert r.status_code == 201 and r.json()["status"] == "completed", r.text
        assert r.json()["session"]["net_position"] == wallet_server.balance(username) - START
        clock.advance(2.5)  # gb's pace
    assert srv.app.state.fast_rounds.stats["passed:refused"] == 0


def test_a_round_too_soon_for_the_pace_is_refused_by_the_opening(
        make_server, wallet_server, monkeypatch):
    """gb (a round every 2.5 s): a round too soon is refused by the opening's checks
    (batch.Refused) with the general path's 429, the same body a process with the batched path
    off answers on the same clock; nothing is sent to the operator."""
    srv = _operator(make_server, wallet_server, jurisdiction="gb")
    there = _operator(make_server, wallet_server, jurisdiction="gb", fast_rounds=False)
    clock = ServerClock(monkeypatch, (auth_service, fast_rounds, operator_rounds, rounds))
    c, username = _player(srv, wallet_server)
    assert c.post("/api/games/lose-test/rounds", json={"bet": 10},
                  headers=key()).status_code == 201
    soon = c.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
    assert soon.status_code == 429 and soon.json()["error"]["code"] == "too_fast", soon.text
    stats = srv.app.state.fast_rounds.stats
    assert stats["refused:pace"] == 1 and stats["passed:refused"] == 0, stats
    with there.client(c.headers["Authorization"].split()[1]) as general:
        same = general.post("/api/games/lose-test/rounds", json={"bet": 10}, headers=key())
    assert (same.status_code, same.json()) == (429, soon.json())
    assert wallet_server.balance(username) == START - 10  # only the first bet was sent
    clock.advance(2.5)
    assert c.post("/api/games/lose-test/rounds", json={"bet": 10},
                  headers=key()).status_code == 201


def test_an_opening_whose_wallet_changed_while_it_waited_is_left_out(
        make_server, wallet_server, database, monkeypatch):
    """PostgreSQL: the opening is one statement whose snapshot is taken before it locks the
    wallets. Two openings of one player in two transactions, both waiting on the wallet's
    lock: the first is opened, and the second, whose snapshot does not see that round, finds
    the wallet's row changed and is left out (the caller takes the general path), its
    batch-mate of another player opened. Without the opening writing the wallet's row, the
    second would be checked on its stale snapshot and its whole batch would fail on the
    one-live-round index."""
    if database.backend != "postgres":
        pytest.skip("the snapshot and the row versions are PostgreSQL's")
    srv = _operator(make_server, wallet_server)
    op = srv.app.state.fast_rounds.operator
    seen: list[Any] = []

    async def recorded(batch: Any) -> Any:
        seen.extend(batch)
        return await real(batch)

    real = op.opens._write
    monkeypatch.setattr(op.opens, "_write", recorded)
    for _ in range(2):
        c, _name = _player(srv, wallet_server)
        assert c.post("/api/games/instant-test/rounds", json={"bet": 5},
                      headers=key()).json()["status"] == "completed"
    first, other = seen

    def again(o: Any) -> Any:  # the same player's opening of a new round
        rid = uuid.uuid4().hex
        return dataclasses.replace(
            o, key=uuid.uuid4().hex, round_values={**o.round_values, "id": rid},
            debit={**o.debit, "round_id": rid, "transaction_id": debit_txid(rid)})

    async def race() -> tuple[list[Any], list[Any], list[str]]:
        backend = await PostgresOperatorRounds.connect(database.url, 3)
        try:
            async with backend.pool.acquire() as holder:
                lock = holder.transaction()
                await lock.start()
                await holder.execute("SELECT 1 FROM wallets WHERE player_id = $1 FOR UPDATE",
                                     first.player_id)
                one = asyncio.create_task(backend.open([again(first)]))
                await _lock_waits(holder, 1)
                two = asyncio.create_task(backend.open([again(first), again(other)]))
                await _lock_waits(holder, 2)
                await lock.rollback()
                opened = await one, await two
                live = await holder.fetch(
                    "SELECT id FROM rounds WHERE player_id = $1 AND status = 'open'",
                    first.player_id)
            return opened[0], opened[1], [r["id"] for r in live]
        finally:
            await backend.close()

    one, two, live = run(race())
    # the first to take the lock is opened (the queue's order), the other left out
    assert sorted([one[0], two[0]]) == [False, True] and two[1] is True, (one, two)
    assert len(live) == 1


async def _lock_waits(conn: Any, count: int) -> None:
    """Until ``count`` backends wait for a lock (the openings queued on the wallet's)."""
    for _ in range(200):
        waiting = await conn.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()")
        if waiting >= count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{count} openings never waited for the wallet's lock")
