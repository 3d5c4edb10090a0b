"""Malfunction voids of an incident's rounds, completed ones too, on both wallets: every bet
and payment reversed by new movements naming the incident, once, never below zero; the
player sees the void and its reason in the history. And the 24-month discard of unpaid
winnings of incomplete rounds."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import update

from slotlab.server.services.unpaid_winnings import discard_incomplete
from slotlab.store.models import Round
from slotlab.store.operator_wallet import DISCARDED, UNPAID, OperatorWalletOp

from ..operator_wallet.conftest import SECRET, WalletServer
from .server_util import LiveServer, key

START = 100_000


def _play(c: httpx.Client, game: str, bet: int) -> dict[str, Any]:
    r = c.post(f"/api/games/{game}/rounds", json={"bet": bet}, headers=key())
    assert r.status_code == 201, r.text
    return dict(r.json())


def _void(srv: LiveServer, **body: Any) -> httpx.Response:
    with srv.admin() as admin:
        return admin.post("/api/admin/incident-voids", json=body)


def _audit_ok(srv: LiveServer) -> None:
    with srv.admin() as admin:
        audit = admin.get("/api/admin/audit").json()
    assert audit["ok"], audit


def test_completed_rounds_of_an_incident_are_reversed_once(server):
    c, _ = server.player()
    # Rounds that won more than their bet and less: twelve rounds had no losing one about one run
    # in 30 (3/4 ** 12), so play on until both are there (80 rounds miss once in 10^10).
    rounds: list[dict[str, Any]] = []
    while len(rounds) < 12 or not (any(r["win"] > 5 for r in rounds)
                                   and any(r["win"] < 5 for r in rounds)):
        assert len(rounds) < 80
        rounds.append(_play(c, "instant-test", 5))
    jackpot = _play(c, "jackpot-test", 10)  # max bet: wins the top pool too
    assert jackpot["jackpot_win"] > 0
    kept = _play(c, "instant-test", 1)  # not part of the incident
    voided = [*rounds, jackpot]
    balance = c.get("/api/wallet").json()["balance"]
    r = _void(server, incident_id="INC-7", reason="reel strip table corrupted",
              round_ids=[x["round_id"] for x in voided])
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["counts"] == {"voided": len(voided)}
    moved = sum(x["bet"] - x["win"] - x["jackpot_win"] for x in voided)
    assert c.get("/api/wallet").json()["balance"] == balance + moved
    for x in voided:
        rec = c.get(f"/api/rounds/{x['round_id']}").json()
        assert rec["status"] == "cancelled" and rec["outcome"] == "incident_void"
        originals = [e for e in rec["ledger"] if e["kind"] != "void"]
        voids = [e for e in rec["ledger"] if e["kind"] == "void"]
        # Nothing deleted: each movement is still there, with its reversal naming the incident.
        assert len(voids) == len([e for e in originals if e["amount"]])
        assert sorted(e["amount"] for e in voids) == sorted(-e["amount"] for e in originals
                                                            if e["amount"])
        assert all(e["ref"].startswith("void:INC-7:") for e in voids)
        assert rec["void"]["reason"] == "reel strip table corrupted"
    assert {e["kind"] for e in c.get(f"/api/rounds/{jackpot['round_id']}").json()["ledger"]
            } == {"bet", "win", "jackpot", "void"} - ({"win"} if not jackpot["win"] else set())
    # The history (RECALL) shows the void and its reason; the other round is untouched.
    history = {h["round_id"]: h for h in c.get("/api/history?limit=50").json()["rounds"]}
    assert history[voided[0]["round_id"]]["void"]["incident_id"] == "INC-7"
    assert history[kept["round_id"]]["void"] is None
    assert history[kept["round_id"]]["status"] == "completed"
    # Again, by the same or another incident: nothing moves.
    after = c.get("/api/wallet").json()["balance"]
    again = _void(server, incident_id="INC-8", reason="again",
                  round_ids=[x["round_id"] for x in voided]).json()
    assert again["counts"] == {"already_voided": len(voided)}
    assert {x["incident_id"] for x in again["rounds"]} == {"INC-7"}
    assert c.get("/api/wallet").json()["balance"] == after
    with server.admin() as admin:
        listed = admin.get("/api/admin/incident-voids/INC-7").json()["rounds"]
    assert sorted(x["round_id"] for x in listed) == sorted(x["round_id"] for x in voided)
    _audit_ok(server)


def test_a_reversal_never_takes_the_balance_below_zero(server):
    c, username = server.player()
    win = None
    while win is None:  # a round that paid more than its bet
        r = _play(c, "instant-test", 10)
        win = r if r["win"] > 10 else None
    balance = c.get("/api/wallet").json()["balance"]
    with server.admin() as admin:  # the player cashes out all but 5
        assert admin.post(f"/api/admin/players/{username}/debit",
                          json={"amount": balance - 5}).status_code == 200
    out = _void(server, incident_id="INC-9", reason="rng fault",
                round_ids=[win["round_id"]]).json()
    (v,) = out["rounds"]
    # The bet comes back (10); the win is taken back as far as the balance goes (15 of it).
    assert v["result"] == "partial" and v["bet_returned"] == 10 and v["win_reversed"] == 15
    assert v["shortfall"] == win["win"] - 15 and v["note"]
    assert c.get("/api/wallet").json()["balance"] == 0
    _audit_ok(server)


def test_a_window_of_one_game_and_live_rounds(server):
    c, _ = server.player()
    other, _ = server.player()
    before = datetime.now(UTC) - timedelta(seconds=1)
    done = _play(c, "instant-test", 2)
    outside = _play(other, "jackpot-test", 2)  # another game in the window
    waiting = _play(other, "pick-test", 5)
    assert waiting["status"] == "awaiting_choice"
    end = datetime.now(UTC) + timedelta(seconds=1)
    for game, expected in (("instant-test", {done["round_id"]}),
                           ("pick-test", {waiting["round_id"]})):
        out = _void(server, incident_id="INC-10", reason="server clock fault", game=game,
                    start=before.isoformat(), end=end.isoformat()).json()
        assert {x["round_id"] for x in out["rounds"]} == expected
    assert other.get("/api/wallet").json()["balance"] == START - 2 + outside["win"] + outside[
        "jackpot_win"]  # the live round's bet refunded, the other game's round untouched
    assert c.get("/api/wallet").json()["balance"] == START
    _audit_ok(server)


def test_a_completed_free_round_is_voided_and_given_back(server):
    c, username = server.player()
    with server.admin() as admin:
        pkg = admin.post("/api/admin/free-rounds", json={
            "username": username, "game": "instant-test", "bet": 5, "rounds": 20,
            "expires_at": "2099-01-01T00:00:00Z"}).json()
    won = None
    while won is None:
        r = c.post("/api/games/instant-test/rounds", json={"bet": 5, "free_round_id": pkg["id"]},
                   headers=key()).json()
        won = r if r["win"] else None
    balance = c.get("/api/wallet").json()["balance"]
    left = won["free_round"]["rounds_left"]
    v = _void(server, incident_id="INC-11", reason="display fault",
              round_ids=[won["round_id"]]).json()["rounds"][0]
    assert v["result"] == "voided" and v["bet_returned"] == 0 and v["win_reversed"] == won["win"]
    assert c.get("/api/wallet").json()["balance"] == balance - won["win"]
    package = next(p for p in c.get("/api/free-rounds").json()["packages"] if p["id"] == pkg["id"])
    assert package["rounds_left"] == left + 1
    _audit_ok(server)


def test_bad_requests_void_nothing(server):
    c, _ = server.player()
    done = _play(c, "instant-test", 5)
    balance = c.get("/api/wallet").json()["balance"]
    missing = "0" * 32
    r = _void(server, incident_id="INC-1", reason="x", round_ids=[done["round_id"], missing])
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_round"
    r = _void(server, incident_id="INC-1", reason="x", round_ids=[done["round_id"]],
              game="instant-test")
    assert r.status_code == 422
    r = _void(server, incident_id="bad id", reason="x", round_ids=[done["round_id"]])
    assert r.status_code == 422
    now = datetime.now(UTC)
    r = _void(server, incident_id="INC-1", reason="x", game="instant-test",
              start=now.isoformat(), end=(now - timedelta(hours=1)).isoformat())
    assert r.status_code == 422
    assert c.get("/api/wallet").json()["balance"] == balance
    assert c.get(f"/api/rounds/{done['round_id']}").json()["void"] is None


# -- the operator's wallet ------------------------------------------------------------------


def _operator_player(make_server: Callable[..., LiveServer], ws: WalletServer, balance: int
                     ) -> tuple[LiveServer, httpx.Client, str]:
    srv = make_server(wallet_mode="operator", operator_wallet_url=ws.url,
                      operator_wallet_secret=SECRET, operator_wallet_timeout_s=10.0,
                      operator_wallet_attempts=2, operator_wallet_backoff_s=0.0)
    c, username = srv.player()
    r = ws.post("/admin/players", {"player_id": username, "token": f"tok-{username}",
                                   "balance": balance, "currency": "EUR"})
    assert r.status_code == 200, r.text
    return srv, c, username


def test_operator_wallet_voids_credit_the_bet_and_debit_the_win(make_server, wallet_server):
    srv, c, username = _operator_player(make_server, wallet_server, 10_000)
    rounds = [_play(c, "instant-test", 5) for _ in range(8)]
    while not any(r["win"] > 5 for r in rounds) and len(rounds) < 64:  # one round in two wins
        rounds.append(_play(c, "instant-test", 5))                      # more than its bet
    assert any(r["win"] > 5 for r in rounds)
    before = wallet_server.balance(username)
    out = _void(srv, incident_id="INC-20", reason="wallet bridge fault",
                round_ids=[r["round_id"] for r in rounds]).json()
    assert out["counts"] == {"voided": len(rounds)}
    assert wallet_server.balance(username) == before + sum(r["bet"] - r["win"] for r in rounds)
    for r in rounds:
        moves = [(t["kind"], t["amount"], t["transaction_id"]) for t in
                 wallet_server.transactions(r["round_id"]) if t["status_code"] == 200]
        voids = [m for m in moves if ":void:INC-20:" in m[2]]
        assert ("credit", 5, f"{r['round_id']}:void:INC-20:credit") in voids
        assert [m[1] for m in voids if m[0] == "debit"] == ([r["win"]] if r["win"] else [])
    again = _void(srv, incident_id="INC-20", reason="wallet bridge fault",
                  round_ids=[r["round_id"] for r in rounds]).json()
    assert again["counts"] == {"already_voided": len(rounds)}
    assert wallet_server.balance(username) == before + sum(r["bet"] - r["win"] for r in rounds)
    _audit_ok(srv)


def _run_round_awaiting_choice(c: httpx.Client) -> tuple[int, str]:
    """An autoplay run and its first round, waiting for a choice (bet 10): (run id, round id)."""
    run = c.post("/api/autoplay", json={"game": "pick-test", "rounds": 5}).json()["run_id"]
    r = c.post("/api/games/pick-test/rounds", headers=key(),
               json={"bet": 10, "autoplay": {"rounds_left": 5, "run_id": run}})
    assert r.status_code == 201 and r.json()["status"] == "awaiting_choice", r.text
    return int(run), str(r.json()["round_id"])


def test_operator_wallet_void_of_a_live_round_credits_its_bet_and_keeps_its_run_right(
        make_server, wallet_server):
    """A round of an autoplay run waiting for a choice, voided for an incident: its bet is
    credited back, the round completed ``cancelled`` by the operator pipeline's completion,
    its run's figures without its bet; voided again, nothing moves."""
    srv, c, username = _operator_player(make_server, wallet_server, 10_000)
    run, rid = _run_round_awaiting_choice(c)
    v = _void(srv, incident_id="INC-22", reason="display fault", round_ids=[rid]).json()
    assert v["counts"] == {"voided": 1}, v
    rec = c.get(f"/api/rounds/{rid}").json()
    assert (rec["status"], rec["outcome"]) == ("cancelled", "voided")
    assert wallet_server.balance(username) == 10_000
    assert [(t["kind"], t["amount"]) for t in wallet_server.transactions(rid)
            if t["status_code"] == 200] == [("debit", 10), ("credit", 10)]
    figures = c.get(f"/api/autoplay/{run}").json()
    assert (figures["rounds_played"], figures["total_bet"], figures["total_win"]) == (1, 0, 0)
    again = _void(srv, incident_id="INC-22", reason="display fault", round_ids=[rid]).json()
    assert again["counts"] == {"already_voided": 1}
    assert wallet_server.balance(username) == 10_000
    _audit_ok(srv)


def test_a_voided_round_waiting_for_its_credit_is_already_not_charged_to_its_run(
        make_server, wallet_server):
    """The same void while the operator refuses credits: the round stays ``crediting`` with
    its bet's credit to send, and in that window its run's figures (bet off) and its rounds'
    count of them agree, so the audit holds; the sweep's credit then completes it
    ``cancelled`` and nothing is counted again."""
    srv, c, username = _operator_player(make_server, wallet_server, 10_000)
    run, rid = _run_round_awaiting_choice(c)
    wallet_server.faults("credit", fail=1000)
    v = _void(srv, incident_id="INC-23", reason="display fault", round_ids=[rid]).json()
    assert v["counts"] == {"voided": 1}, v
    rec = c.get(f"/api/rounds/{rid}").json()
    assert (rec["status"], rec["outcome"]) == ("crediting", "voided")
    figures = c.get(f"/api/autoplay/{run}").json()
    assert (figures["rounds_played"], figures["total_bet"], figures["total_win"]) == (1, 0, 0)
    with srv.admin() as admin:
        assert admin.get("/api/admin/audit").json()["bad_autoplay_runs"] == []
    wallet_server.faults("credit")  # the operator recovers
    with srv.admin() as admin:
        assert admin.post("/api/admin/maintenance").json()["operator_credited"] == 1
    assert c.get(f"/api/rounds/{rid}").json()["status"] == "cancelled"
    assert wallet_server.balance(username) == 10_000
    figures = c.get(f"/api/autoplay/{run}").json()
    assert (figures["rounds_played"], figures["total_bet"], figures["total_win"]) == (1, 0, 0)
    _audit_ok(srv)


def test_operator_wallet_void_takes_no_more_than_the_balance(make_server, wallet_server):
    srv, c, username = _operator_player(make_server, wallet_server, 10_000)
    win = None
    while win is None:
        r = _play(c, "instant-test", 10)
        win = r if r["win"] > 10 else None
    # The player spends all but 3 at the operator.
    wallet_server.post("/admin/players", {"player_id": username, "token": f"tok-{username}",
                                          "balance": 3, "currency": "EUR"})
    v = _void(srv, incident_id="INC-21", reason="rng fault",
              round_ids=[win["round_id"]]).json()["rounds"][0]
    assert v["result"] == "partial" and v["bet_returned"] == 10 and v["win_reversed"] == 13
    assert v["shortfall"] == win["win"] - 13
    assert wallet_server.balance(username) == 0


# -- the 24-month discard ------------------------------------------------------------------


def _started_at(srv: LiveServer, rid: str, when: datetime) -> None:
    with srv.ctx.db.write() as s:
        s.execute(update(Round).where(Round.id == rid).values(created_at=when))


def test_incomplete_rounds_are_discarded_after_24_calendar_months(server):
    c, _ = server.player()
    r = _play(c, "pick-test", 5)  # waits for a choice: incomplete
    started = datetime(2024, 1, 15, 12, 0, tzinfo=UTC)
    _started_at(server, r["round_id"], started)
    # 730 days is not 24 months here (the leap day): kept.
    assert discard_incomplete(server.ctx, now=started + timedelta(days=730)) == 0
    assert c.get(f"/api/rounds/{r['round_id']}").json()["status"] == "awaiting_choice"
    with server.admin() as admin:  # the sweep (now is years later) discards it
        assert admin.post("/api/admin/maintenance").json()["unpaid_discarded"] == 1
    rec = c.get(f"/api/rounds/{r['round_id']}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "unpaid_discarded"
    assert [(e["kind"], e["amount"]) for e in rec["ledger"]] == [("bet", -5),
                                                                 ("unpaid_discarded", 0)]
    assert [n["action"] for n in rec["notes"]] == ["discard_unpaid"]
    with server.admin() as admin:
        assert admin.post("/api/admin/maintenance").json()["unpaid_discarded"] == 0
    _audit_ok(server)


def test_operator_unpaid_credit_is_discarded_and_its_round_closed(make_server, wallet_server):
    srv, c, username = _operator_player(make_server, wallet_server, 10_000)
    wallet_server.faults("credit", fail=1000)
    r = _play(c, "instant-test", 5)
    assert r["status"] == "crediting"
    txid = f"{r['round_id']}:credit:0"
    with srv.ctx.db.write() as s:  # 24 months on, still unpaid
        s.execute(update(OperatorWalletOp).where(OperatorWalletOp.transaction_id == txid)
                  .values(status=UNPAID, keep_until=datetime.now(UTC) - timedelta(seconds=1),
                          next_attempt_at=datetime.now(UTC) + timedelta(days=1)))
    with srv.admin() as admin:
        assert admin.post("/api/admin/maintenance").json()["operator_unpaid_discarded"] == 1
    op = srv.ctx.operator.store.get(txid)
    assert op is not None and op.status == DISCARDED  # kept on record
    rec = c.get(f"/api/rounds/{r['round_id']}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "unpaid_discarded"
    assert [n["action"] for n in rec["notes"]] == ["discard_unpaid"]
    wallet_server.faults("credit")
    with srv.admin() as admin:  # never sent again
        admin.post("/api/admin/maintenance")
    assert wallet_server.balance(username) == 10_000 - 5
