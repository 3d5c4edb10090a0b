"""wallet_mode=operator over real HTTP: the game server's rounds debit and credit a real
reference operator wallet (a uvicorn server on 127.0.0.1), exactly once each, through 402s,
5xx answers, the maintenance sweep and a restart of the game server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from slotlab.ledger.batch import Written
from slotlab.server.fast_rounds import FastRoundPath
from slotlab.server.operator_rounds import OperatorRounds
from slotlab.server.services import rounds
from slotlab.server.services.round_view import OPERATOR_NET_POSITION
from slotlab.store import normalize_url
from slotlab.store.models import utcnow
from slotlab.store.operator_wallet import DONE, debit_txid

from ..operator_wallet.conftest import SECRET, WalletServer
from .server_games import PickGame, make_test_games
from .server_util import Database, LiveServer, key

START = 10_000


@pytest.fixture
def operator_server(make_server: Callable[..., LiveServer], wallet_server: WalletServer
                    ) -> Callable[..., LiveServer]:
    def start(**overrides: Any) -> LiveServer:
        opts: dict[str, Any] = {
            "wallet_mode": "operator", "operator_wallet_url": wallet_server.url,
            # A call's timeout well above a loaded test machine's stalls: no test here is
            # about a slow operator (test_operator_faults.py is).
            "operator_wallet_secret": SECRET, "operator_wallet_timeout_s": 10.0,
            "operator_wallet_attempts": 2, "operator_wallet_backoff_s": 0.0,  # due at once
            **overrides}
        return make_server(**opts)

    return start


def _player(srv: LiveServer, ws: WalletServer, balance: int = START
            ) -> tuple[httpx.Client, str]:
    """A slotlab player and the same player (their username) at the operator."""
    c, username = srv.player()
    r = ws.post("/admin/players", {"player_id": username, "token": f"tok-{username}",
                                   "balance": balance, "currency": "EUR"})
    assert r.status_code == 200, r.text
    return c, username


def _applied(ws: WalletServer, rid: str) -> list[tuple[str, int]]:
    """The operator's movements of a round that it answered with 200."""
    return [(t["kind"], t["amount"]) for t in ws.transactions(rid) if t["status_code"] == 200]


def test_rounds_debit_and_credit_the_operator_once(operator_server, wallet_server):
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    expected = START
    for _ in range(6):
        headers = key()
        r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["status"] == "completed"
        expected += body["win"] - 5
        assert body["balance"] == expected == wallet_server.balance(username)
        # Zero wins are credited too; each movement exactly once.
        assert _applied(wallet_server, body["round_id"]) == [("debit", 5), ("credit", body["win"])]
        again = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
        assert again.status_code == 201 and again.json()["round_id"] == body["round_id"]
        assert again.json()["status"] == "completed"
        assert wallet_server.balance(username) == expected  # the retry moved nothing
    # A round with a choice: debited at the start, credited once at the end.
    started = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    assert started["status"] == "awaiting_choice" and started["balance"] == expected - 10
    done = c.post(f"/api/rounds/{started['round_id']}/choices",
                  json={"choice": "left", "step": started["step"]},
                  headers=key()).json()
    assert done["status"] == "completed"
    expected += done["win"] - 10
    assert _applied(wallet_server, started["round_id"]) == [("debit", 10), ("credit", done["win"])]
    wallet = c.get("/api/wallet").json()
    assert wallet == {"balance": expected, "currency": "EUR", "decimals": 2, "source": "operator"}
    assert srv.admin().get("/api/admin/audit").json()["ok"]
    # The internal wallet is not where the money is: admin moves are refused.
    r = srv.admin().post(f"/api/admin/players/{username}/credit", json={"amount": 5})
    assert r.status_code == 409 and r.json()["error"]["code"] == "operator_wallet"


def test_insufficient_funds_at_the_operator_is_402_and_no_round(operator_server, wallet_server):
    srv = operator_server()
    c, username = _player(srv, wallet_server, balance=3)
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 402 and r.json()["error"]["code"] == "insufficient_funds"
    assert c.get("/api/history").json() in ([], {"rounds": []})
    assert srv.admin().get("/api/admin/rounds/open").json()["rounds"] == []
    assert wallet_server.balance(username) == 3
    # A bet the player can afford goes ahead.
    r = c.post("/api/games/instant-test/rounds", json={"bet": 2}, headers=key())
    assert r.status_code == 201 and r.json()["status"] == "completed"


def test_operator_5xx_on_debit_is_503_and_rolled_back(operator_server, wallet_server):
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    wallet_server.faults("debit", fail=1)
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 503 and r.json()["error"]["code"] == "operator_unavailable"
    assert srv.admin().get("/api/admin/rounds/open").json()["rounds"] == []
    assert wallet_server.balance(username) == START
    assert wallet_server.calls("rollback") >= 1


def test_credit_5xx_leaves_the_round_crediting_until_the_sweep(operator_server, wallet_server):
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    wallet_server.faults("credit", fail=1000)
    body = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key()).json()
    rid = body["round_id"]
    assert body["status"] == "crediting"
    assert wallet_server.balance(username) == START - 5
    live = srv.admin().get("/api/admin/rounds/open").json()["rounds"]
    assert [(r["round_id"], r["status"]) for r in live] == [(rid, "crediting")]
    # The player cannot start another round meanwhile, and is not debited for trying.
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_open"
    assert wallet_server.balance(username) == START - 5
    assert wallet_server.calls("debit") == 1
    # Still down: the sweep retries, the round stays crediting.
    srv.admin().post("/api/admin/maintenance")
    assert c.get(f"/api/rounds/{rid}").json()["status"] == "crediting"

    wallet_server.faults("credit")  # the operator recovers
    out = srv.admin().post("/api/admin/maintenance").json()
    assert out["operator_credited"] == 1
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["completed_at"] is not None
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", rec["win"])]
    assert wallet_server.balance(username) == START - 5 + rec["win"]
    assert srv.admin().post("/api/admin/maintenance").json()["operator_credited"] == 0
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", rec["win"])]
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 201 and r.json()["status"] == "completed"


def test_restart_resumes_the_pending_credit(operator_server, wallet_server):
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    token = c.headers["Authorization"].split()[1]
    wallet_server.faults("credit", fail=1000)
    headers = key()
    body = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers).json()
    rid = body["round_id"]
    assert body["status"] == "crediting"
    srv.__exit__()  # the game server stops with the win unpaid

    wallet_server.faults("credit")  # the operator is back
    srv2 = operator_server()  # a new app on the same database: start-up resumes the credit
    c2 = srv2.client(token)
    rec = c2.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed"
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", rec["win"])]
    assert wallet_server.balance(username) == START - 5 + rec["win"]
    # The request retried with its key gets the completed round, and nothing moves again.
    again = c2.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == rid
    assert again.json()["status"] == "completed"
    assert wallet_server.balance(username) == START - 5 + rec["win"]
    assert srv2.admin().get("/api/admin/audit").json()["ok"]


def test_operator_mode_needs_url_and_secret():
    from pydantic import ValidationError

    from slotlab.server.settings import Settings

    with pytest.raises(ValidationError):
        Settings(wallet_mode="operator")
    with pytest.raises(ValidationError):
        Settings(wallet_mode="operator", operator_wallet_url="http://127.0.0.1:1")


def test_credit_never_sent_is_sent_by_the_sweep(operator_server, wallet_server, monkeypatch):
    """A crash between the settling commit and the credit call: the sweep sends it."""
    from slotlab.server.operator_rounds import OperatorRounds
    from slotlab.server.services import round_operator

    srv = operator_server()
    c, username = _player(srv, wallet_server)
    # The call never happens, on either path: the general one and the batched one.
    monkeypatch.setattr(round_operator, "pay_operator", lambda ctx, rid: None)

    async def never_paid(self: Any, *args: Any) -> dict[str, Any]:
        return args[-1]  # the round's answer as the settling write left it: crediting

    monkeypatch.setattr(OperatorRounds, "pay", never_paid)
    body = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key()).json()
    rid = body["round_id"]
    assert body["status"] == "crediting"
    assert _applied(wallet_server, rid) == [("debit", 5)]
    monkeypatch.undo()
    assert srv.admin().post("/api/admin/maintenance").json()["operator_credited"] == 1
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed"
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", rec["win"])]
    assert wallet_server.balance(username) == START - 5 + rec["win"]


def test_the_audit_ties_each_round_to_what_the_operator_confirmed(operator_server, wallet_server):
    """A round with no confirmed debit, a second credit, or a rolled-back debit is named."""
    from sqlalchemy import create_engine, delete, update

    from slotlab.store import normalize_url
    from slotlab.store.operator_wallet import DONE, ROLLED_BACK, OperatorWalletOp

    srv = operator_server()
    c, _ = _player(srv, wallet_server)
    rids = [c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key()
                   ).json()["round_id"] for _ in range(3)]
    audit = srv.admin().get("/api/admin/audit").json()
    assert audit["ok"] and audit["bad_rounds"] == []
    engine = create_engine(normalize_url(srv.settings.database_url))
    op = OperatorWalletOp
    with engine.begin() as db:
        # Played with no debit at the operator (what a replayed answer once did).
        db.execute(delete(op).where(op.transaction_id == f"{rids[0]}:debit"))
        # The debit rolled back although the round was credited.
        db.execute(update(op).where(op.transaction_id == f"{rids[1]}:debit")
                   .values(status=ROLLED_BACK))
        db.execute(update(op).where(op.transaction_id == f"{rids[2]}:credit:0")
                   .values(amount=op.amount + 100, status=DONE))
    engine.dispose()
    audit = srv.admin().get("/api/admin/audit").json()
    assert not audit["ok"]
    named = {b["round_id"]: b["problems"] for b in audit["bad_rounds"]}
    assert set(named) == set(rids)
    assert named[rids[0]] == ["operator debits: 0 of 0, expected 1 of 5"]
    assert named[rids[1]] == ["operator debits: 0 of 0, expected 1 of 5"]
    assert named[rids[2]][0].startswith("operator credits: 1 of ")


def test_the_session_net_position_is_what_the_operator_moved(operator_server, wallet_server):
    """The money is the operator's, so the internal ledger holds none of it: the session's net
    position (shown with every round under gb, and by GET /api/session everywhere) is the
    credits less the debits the operator confirmed for the player's rounds."""
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    for _ in range(5):
        assert c.post("/api/games/instant-test/rounds", json={"bet": 5},
                      headers=key()).status_code == 201
    moved = wallet_server.balance(username) - START
    assert c.get("/api/session").json()["net_position"] == moved
    # A gb player's first round answers with the session's figures, that round included.
    g, name = _player(srv, wallet_server)
    r = srv.admin().put(f"/api/admin/players/{name}/jurisdiction", json={"jurisdiction": "gb"})
    assert r.status_code == 200, r.text
    body = g.post("/api/games/instant-test/rounds", json={"bet": 10}, headers=key()).json()
    net = wallet_server.balance(name) - START
    assert body["session"]["net_position"] == body["win"] - 10 == net


def test_the_net_position_is_found_by_the_players_operations(operator_server, wallet_server,
                                                            database: Database):
    """PostgreSQL, on tables never analysed (a new deployment's, or this suite's): the net
    position's plan takes the player's operations by the index on (operator player id, time),
    never every operation done since the session began by the status's index (which took
    17 ms a round, most of PostgreSQL's time, in the operator-wallet production mix)."""
    if database.backend != "postgres":
        pytest.skip("the plan is PostgreSQL's")
    srv = operator_server()
    for _ in range(2):
        c, _name = _player(srv, wallet_server)
        for _ in range(3):
            assert c.post("/api/games/instant-test/rounds", json={"bet": 5},
                          headers=key()).status_code == 201
    engine = create_engine(normalize_url(database.url))
    statement = OPERATOR_NET_POSITION.params(player_id=1, since=utcnow()).compile(engine)
    with engine.connect() as conn:
        conn.exec_driver_sql("SET enable_seqscan = off")  # which index, whatever the size
        plan = "\n".join(r[0] for r in conn.exec_driver_sql(
            "EXPLAIN " + str(statement), statement.params))
    engine.dispose()
    assert "ix_operator_wallet_ops_player_time" in plan, plan
    assert "ix_operator_wallet_ops_due" not in plan, plan


def test_a_choice_the_routes_answer_is_written_by_the_writer_and_paid_once(
        operator_server, wallet_server, monkeypatch):
    """A choice the batched path leaves to the routes (here: a round it does not remember and
    cannot read) is written by the same writer as the batched path's, its round left
    ``crediting`` with its credit's row, and the credit sent by the operator pipeline: one
    debit, one credit; a retry of the choice moves nothing."""
    from slotlab.server import fast_choices

    srv = operator_server()
    path = srv.app.state.fast_rounds
    c, username = _player(srv, wallet_server)
    started = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    rid = started["round_id"]
    assert started["status"] == "awaiting_choice"
    path.waiting = fast_choices.WaitingRounds()  # forgotten, and not read: the routes answer
    monkeypatch.setattr(fast_choices, "stored", lambda *args: None)
    paid: list[str | None] = []
    real = path.write_choice

    async def spied(who, waiting, req, seed, result, username, seen, ids):
        paid.append(username)
        return await real(who, waiting, req, seed, result, username, seen, ids)

    monkeypatch.setattr(path, "write_choice", spied)
    headers = key()
    done = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0},
                  headers=headers)
    assert done.status_code == 200, done.text
    body = done.json()
    assert paid == [username]  # written by the writer, as the operator's to pay
    assert body["status"] == "completed" and body["balance"] == START - 10 + body["win"]
    assert _applied(wallet_server, rid) == [("debit", 10), ("credit", body["win"])]
    again = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0},
                   headers=headers)
    assert again.status_code == 200 and again.json()["round_id"] == rid
    assert _applied(wallet_server, rid) == [("debit", 10), ("credit", body["win"])]
    assert wallet_server.balance(username) == START - 10 + body["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_an_abandoned_round_is_finished_by_the_writer_and_paid_once(
        operator_server, wallet_server, monkeypatch):
    """Auto-completion in operator-wallet mode: written by the round writer with its credit's
    row (the round ``crediting``), the credit sent by the operator pipeline; the round's start
    answers as completed once paid; a second sweep moves nothing."""
    srv = operator_server(auto_complete_after_s=0)
    path = srv.app.state.fast_rounds
    c, username = _player(srv, wallet_server)
    headers = key()
    started = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=headers).json()
    rid = started["round_id"]
    assert started["status"] == "awaiting_choice"
    credited: list[bool] = []
    real = path.write_auto

    async def spied(*args):
        write, outcome = await real(*args)
        credited.append(write.credit is not None)
        return write, outcome

    monkeypatch.setattr(path, "write_auto", spied)
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 1
    assert credited == [True]  # the writer's, with the credit's row
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "auto_completed"
    assert _applied(wallet_server, rid) == [("debit", 10), ("credit", rec["win"])]
    assert wallet_server.balance(username) == START - 10 + rec["win"]
    again = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == rid
    assert again.json()["status"] == "completed"
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 0
    assert _applied(wallet_server, rid) == [("debit", 10), ("credit", rec["win"])]
    assert [u["round_id"] for u in c.get("/api/session").json()["unseen_results"]] == [rid]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_an_open_round_is_settled_at_start_up_by_the_writer_and_paid_once(
        operator_server, wallet_server, monkeypatch):
    """A round whose debit the operator confirmed and the operations log records done, left
    ``open`` by a process that died before settling it: the next start-up settles it with the
    round writer (``settle_open``, outcome ``recovered``, its credit's row) and the pipeline
    sends the credit; the request retried with its key answers the completed round, and
    nothing moves twice."""
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    token = c.headers["Authorization"].split()[1]
    headers = key()

    def dies(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the process dies here")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rounds, "play", dies)  # the pipeline's play, after the debit
        mp.setattr(OperatorRounds, "_refund_unplayable", dies)  # and its refund then
        r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    # Answered as its key's round now is: open, with no balance (the operator's is unknown).
    assert r.status_code == 201 and r.json()["status"] == "open", r.text
    assert r.json()["balance"] is None
    [rid] = [o["round_id"] for o in srv.admin().get("/api/admin/rounds/open").json()["rounds"]]
    assert _applied(wallet_server, rid) == [("debit", 5)]
    store = srv.ctx.operator.store
    store.update(debit_txid(rid), status=DONE, attempts=1, completed_at=utcnow(),
                 next_attempt_at=None)  # recorded done before the process died
    srv.__exit__()

    settled: list[tuple[str, bool, bool]] = []
    real = FastRoundPath.settle_open

    async def spied(self: FastRoundPath, *args: Any) -> tuple[Any, Any]:
        write, outcome = await real(self, *args)
        settled.append((write.round_values["outcome"], write.credit is not None,
                        isinstance(outcome, Written)))
        return write, outcome

    monkeypatch.setattr(FastRoundPath, "settle_open", spied)
    srv2 = operator_server()
    assert settled == [("recovered", True, True)]
    c2 = srv2.client(token)
    rec = c2.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "recovered", rec
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", rec["win"])]
    assert wallet_server.balance(username) == START - 5 + rec["win"]
    again = c2.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == rid, again.text
    assert again.json()["status"] == "completed"
    assert [u["round_id"] for u in c2.get("/api/session").json()["unseen_results"]] == [rid]
    assert srv2.admin().post("/api/admin/maintenance").status_code == 200
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", rec["win"])]
    assert srv2.admin().get("/api/admin/audit").json()["ok"]


def test_a_tier_with_no_pool_is_settled_by_the_pipeline_and_paid_nothing(
        operator_server, wallet_server, monkeypatch, caplog):
    """A paid round and a free round that win a tier their game has no pool for: logged, paid
    nothing for it, written by the pipeline's batches (never refunded as unplayable), the win
    credited once."""
    srv = operator_server(games={**make_test_games(), "no-pool-test": PickGame(
        "no-pool-test", pick=False, jackpot="middle")})
    refunded: list[str] = []

    async def refund(self: OperatorRounds, who: Any, entry: Any, rid: str, *args: Any) -> None:
        refunded.append(rid)

    monkeypatch.setattr(OperatorRounds, "_refund_unplayable", refund)
    c, username = _player(srv, wallet_server)
    paid = c.post("/api/games/no-pool-test/rounds", json={"bet": 10}, headers=key())
    assert paid.status_code == 201 and paid.json()["status"] == "completed", paid.text
    assert paid.json()["jackpots"] == [] and paid.json()["jackpot_win"] == 0
    package = srv.admin().post("/api/admin/free-rounds", json={
        "username": username, "game": "no-pool-test", "bet": 10, "rounds": 1,
        "expires_at": "2099-01-01T00:00:00+00:00"}).json()["id"]
    free = c.post("/api/games/no-pool-test/rounds", json={"bet": 10, "free_round_id": package},
                  headers=key())
    assert free.status_code == 201 and free.json()["status"] == "completed", free.text
    assert free.json()["jackpots"] == []
    assert refunded == []
    assert any("middle" in m for m in caplog.messages), caplog.messages
    assert _applied(wallet_server, paid.json()["round_id"]) == [
        ("debit", 10), ("credit", paid.json()["win"])]
    assert _applied(wallet_server, free.json()["round_id"]) == [("credit", free.json()["win"])]
    assert wallet_server.balance(username) == START - 10 + paid.json()["win"] + free.json()["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_round_that_cannot_be_played_is_refunded_by_the_pipeline_and_credited_once(
        operator_server, wallet_server, monkeypatch):
    """A round whose play raises after the operator confirmed its debit (a defect): the
    better-of rule refunds it in the pipeline's settling write (the round ``crediting`` with
    the bet's credit row, its run's figures without its bet, the player told at their next
    login), the pipeline credits the bet back, the round ``cancelled``; the request's retry
    answers the same."""
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    settled: list[Any] = []
    pipeline = srv.app.state.fast_rounds.operator
    submit = pipeline.settles.submit

    async def spied(w: Any) -> Any:
        done = await submit(w)
        settled.append((w.settled["outcome"], w.gives_back, done))
        return done

    monkeypatch.setattr(pipeline.settles, "submit", spied)
    run = c.post("/api/autoplay", json={"game": "instant-test", "rounds": 3}).json()["run_id"]

    def defect(*args: Any) -> Any:
        raise RuntimeError("a defect in the game's code")

    monkeypatch.setattr(rounds, "play", defect)
    headers = key()
    body = {"bet": 5, "autoplay": {"rounds_left": 3, "run_id": run}}
    r = c.post("/api/games/instant-test/rounds", json=body, headers=headers)
    assert r.status_code == 201, r.text
    assert (r.json()["status"], r.json()["outcome"]) == ("cancelled", "better_of_refund")
    assert settled == [("better_of_refund", True, True)]
    rid = r.json()["round_id"]
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", 5)]
    assert wallet_server.balance(username) == START
    figures = c.get(f"/api/autoplay/{run}").json()
    assert (figures["rounds_played"], figures["total_bet"]) == (1, 0)
    assert [u["round_id"] for u in c.get("/api/session").json()["unseen_results"]] == [rid]
    again = c.post("/api/games/instant-test/rounds", json=body, headers=headers)
    assert again.status_code == 201 and again.json() == r.json(), again.text
    assert _applied(wallet_server, rid) == [("debit", 5), ("credit", 5)]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_refund_waiting_for_its_credit_is_already_not_charged_to_its_run(
        operator_server, wallet_server, monkeypatch):
    """The same refund while the operator refuses credits: the round answered ``crediting``,
    its run's figures without its bet and its rounds' count of them agree (the audit holds)
    until the sweep's credit completes it ``cancelled``."""
    srv = operator_server()
    c, username = _player(srv, wallet_server)
    run = c.post("/api/autoplay", json={"game": "instant-test", "rounds": 3}).json()["run_id"]

    def defect(*args: Any) -> Any:
        raise RuntimeError("a defect in the game's code")

    monkeypatch.setattr(rounds, "play", defect)
    wallet_server.faults("credit", fail=1000)
    body = {"bet": 5, "autoplay": {"rounds_left": 3, "run_id": run}}
    r = c.post("/api/games/instant-test/rounds", json=body, headers=key())
    assert r.status_code == 201, r.text
    assert (r.json()["status"], r.json()["outcome"]) == ("crediting", "better_of_refund")
    figures = c.get(f"/api/autoplay/{run}").json()
    assert (figures["rounds_played"], figures["total_bet"]) == (1, 0)
    assert srv.admin().get("/api/admin/audit").json()["bad_autoplay_runs"] == []
    wallet_server.faults("credit")  # the operator recovers
    assert srv.admin().post("/api/admin/maintenance").json()["operator_credited"] == 1
    assert c.get(f"/api/rounds/{r.json()['round_id']}").json()["status"] == "cancelled"
    assert wallet_server.balance(username) == START
    assert c.get(f"/api/autoplay/{run}").json()["total_bet"] == 0
    assert srv.admin().get("/api/admin/audit").json()["ok"]


# uvicorn ends its thread with SystemExit when the app's start-up fails.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_server_whose_operator_pipeline_cannot_start_does_not_start(
        operator_server, monkeypatch, capfd):
    """Every operator-wallet round goes through the operator pipeline: a server that cannot
    start it does not start, and says why."""
    async def unavailable(cls: type, ctx: Any) -> None:
        raise OSError("connection refused")

    monkeypatch.setattr(OperatorRounds, "start", classmethod(unavailable))
    with pytest.raises(RuntimeError, match="server failed to start"):
        operator_server()
    said = capfd.readouterr().err  # uvicorn's log of the failed start-up
    assert "the operator round pipeline cannot start" in said, said
