"""Free Round Bonus (issue 5) over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from slotlab.store.models import FreeRoundPackage

from .server_games import PickGame, make_test_games
from .server_util import key, round_left_open

FAR = "2099-01-01T00:00:00Z"


def grant(srv, username, game="instant-test", bet=5, rounds=3, expires_at=FAR, headers=None):
    with srv.admin() as admin:
        return admin.post("/api/admin/free-rounds", headers=headers or {}, json={
            "username": username, "game": game, "bet": bet, "rounds": rounds,
            "expires_at": expires_at})


def free_spin(c, pkg, bet=5, game="instant-test"):
    return c.post(f"/api/games/{game}/rounds", json={"bet": bet, "free_round_id": pkg},
                  headers=key())


def test_grant_list_and_session_summary(server):
    c, username = server.player()
    r = grant(server, username, rounds=4)
    assert r.status_code == 201, r.text
    pkg = r.json()
    assert pkg["username"] == username and pkg["game"] == "instant-test"
    assert (pkg["bet"], pkg["rounds_total"], pkg["rounds_left"], pkg["total_won"]) == (5, 4, 4, 0)
    assert pkg["status"] == "active"
    listed = c.get("/api/free-rounds").json()["packages"]
    assert [p["id"] for p in listed] == [pkg["id"]]
    assert listed[0]["expires_at"].startswith("2099-01-01")
    info = c.get("/api/session").json()["free_rounds"]
    assert info["rounds_left"] == 4 and [p["id"] for p in info["packages"]] == [pkg["id"]]
    other, _ = server.player()
    assert other.get("/api/free-rounds").json()["packages"] == []


def test_grant_is_idempotent_and_validated(server):
    _, username = server.player()
    h = key()
    a = grant(server, username, headers=h)
    b = grant(server, username, headers=h)
    assert a.status_code == b.status_code == 201 and a.json() == b.json()
    r = grant(server, username, rounds=9, headers=h)  # same key, another body
    assert r.status_code == 409 and r.json()["error"]["code"] == "idempotency_key_reused"
    assert grant(server, username, bet=3).json()["error"]["code"] == "bet_not_allowed"
    assert grant(server, username, game="nope").json()["error"]["code"] == "unknown_game"
    assert grant(server, "ghost-user").json()["error"]["code"] == "unknown_player"
    assert grant(server, username, rounds=0).status_code == 422
    r = grant(server, username, expires_at="2000-01-01T00:00:00Z")
    assert r.status_code == 422
    assert grant(server, username, expires_at="2099-01-01T00:00:00").status_code == 422  # naive
    with server.client() as anon:
        r = anon.post("/api/admin/free-rounds", json={
            "username": username, "game": "instant-test", "bet": 5, "rounds": 1,
            "expires_at": FAR})
    assert r.status_code == 401
    c, _ = server.player()
    assert len(server.client(c.headers["Authorization"].split()[1]).get(
        "/api/free-rounds").json()["packages"]) == 0


def test_play_all_rounds_no_debit_wins_credited_naming_the_package(server):
    c, username = server.player()
    pkg = grant(server, username, rounds=6).json()["id"]
    balance = c.get("/api/wallet").json()["balance"]
    won = 0
    for i in range(6):
        r = free_spin(c, pkg)
        assert r.status_code == 201, r.text
        body = r.json()
        assert body["bet"] == 5 and body["free_round_id"] == pkg
        won += body["win"]
        assert body["balance"] == balance + won  # nothing debited
        assert body["free_round"]["id"] == pkg
        assert body["free_round"]["rounds_left"] == 5 - i
        assert body["free_round"]["total_won"] == won
        assert body["free_round"]["status"] == ("used" if i == 5 else "active")
        rec = c.get(f"/api/rounds/{body['round_id']}").json()
        if body["win"]:
            assert [(e["kind"], e["amount"]) for e in rec["ledger"]] == [
                ("free_round_win", body["win"])]
            assert rec["ledger"][0]["ref"] == f"free_round:{pkg}:round:{body['round_id']}:win"
        else:
            assert rec["ledger"] == []
    assert c.get("/api/wallet").json()["balance"] == balance + won
    p = c.get("/api/free-rounds").json()["packages"][0]
    assert (p["rounds_left"], p["total_won"], p["status"]) == (0, won, "used")
    r = free_spin(c, pkg)
    assert r.status_code == 409 and r.json()["error"]["code"] == "free_round_used_up"
    assert c.get("/api/session").json()["free_rounds"]["packages"] == []
    assert c.get("/api/session").json()["net_position"] == won
    assert server.admin().get("/api/admin/audit").json()["ok"]


def test_wins_are_credited(make_server):
    games = make_test_games()
    games["instant-test"] = PickGame("instant-test", pick=False, prize_x=0)  # never wins ...
    games["win-test"] = _AlwaysWins()
    srv = make_server(games=games)
    c, username = srv.player()
    pkg = grant(srv, username, game="win-test", bet=10, rounds=2).json()["id"]
    before = c.get("/api/wallet").json()["balance"]
    body = free_spin(c, pkg, bet=10, game="win-test").json()
    assert body["win"] == 20 and body["balance"] == before + 20
    assert body["free_round"] == {"id": pkg, "rounds_left": 1, "total_won": 20,
                                  "status": "active"}


class _AlwaysWins(PickGame):
    def __init__(self) -> None:
        super().__init__("win-test", pick=False)

    def play(self, bet, seeds, choices=()):  # type: ignore[no-untyped-def]
        from slotlab.rounds import RoundResult

        return RoundResult(self.id, self.model_hash, bet,
                           ({"type": "round_ended", "win": 2 * bet},), 2 * bet, None)


def test_wrong_bet_game_owner_and_unknown_package(server):
    c, username = server.player()
    pkg = grant(server, username).json()["id"]
    r = free_spin(c, pkg, bet=10)
    assert r.status_code == 422 and r.json()["error"]["code"] == "free_round_wrong_bet"
    r = free_spin(c, pkg, bet=5, game="jackpot-test")
    assert r.status_code == 422 and r.json()["error"]["code"] == "free_round_wrong_game"
    other, _ = server.player()
    r = free_spin(other, pkg)
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_free_round"
    r = free_spin(c, pkg + 1000)
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_free_round"
    # Nothing was used by the refused requests.
    assert c.get("/api/free-rounds").json()["packages"][0]["rounds_left"] == 3
    assert other.get("/api/wallet").json()["balance"] == 100_000


def test_packages_are_used_in_creation_order(server):
    c, username = server.player()
    first = grant(server, username, rounds=1).json()["id"]
    second = grant(server, username, bet=10, rounds=1).json()["id"]
    elsewhere = grant(server, username, game="jackpot-test", rounds=1).json()["id"]
    assert [p["id"] for p in c.get("/api/free-rounds").json()["packages"]] == [
        first, second, elsewhere]
    r = free_spin(c, second, bet=10)
    assert r.status_code == 409 and r.json()["error"]["code"] == "free_round_out_of_order"
    assert str(first) in r.json()["error"]["message"]
    assert free_spin(c, elsewhere, game="jackpot-test").status_code == 201  # another game
    assert free_spin(c, first).status_code == 201
    assert free_spin(c, second, bet=10).status_code == 201


def test_expired_package_cannot_be_played(server):
    c, username = server.player()
    old = grant(server, username, rounds=2).json()["id"]
    new = grant(server, username, rounds=1).json()["id"]
    with server.ctx.db.write() as s:
        s.execute(update(FreeRoundPackage).where(FreeRoundPackage.id == old)
                  .values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
    r = free_spin(c, old)
    assert r.status_code == 409 and r.json()["error"]["code"] == "free_round_expired"
    statuses = {p["id"]: p["status"] for p in c.get("/api/free-rounds").json()["packages"]}
    assert statuses == {old: "expired", new: "active"}
    assert [p["id"] for p in c.get("/api/session").json()["free_rounds"]["packages"]] == [new]
    assert free_spin(c, new).status_code == 201  # an expired older package does not block


def test_free_round_with_a_choice_and_void(server):
    c, username = server.player()
    pkg = grant(server, username, game="pick-test", rounds=2).json()["id"]
    body = free_spin(c, pkg, game="pick-test").json()
    assert body["status"] == "awaiting_choice" and body["balance"] == 100_000
    assert body["free_round"]["rounds_left"] == 1
    done = c.post(f"/api/rounds/{body['round_id']}/choices",
                  json={"choice": "left", "step": body["step"]},
                  headers=key()).json()
    assert done["status"] == "completed" and done["balance"] == 100_000 + done["win"]
    assert done["free_round"]["total_won"] == done["win"]
    # A voided free round gives its round back (nothing was debited, nothing is refunded).
    rid = free_spin(c, pkg, game="pick-test").json()["round_id"]
    r = server.admin().post(f"/api/admin/rounds/{rid}/void")
    assert r.status_code == 200 and r.json()["balance"] == 100_000 + done["win"]
    assert c.get("/api/free-rounds").json()["packages"][0]["rounds_left"] == 1
    assert server.admin().get("/api/admin/audit").json()["ok"]


def test_idempotent_free_round_retry(server):
    c, username = server.player()
    pkg = grant(server, username, rounds=2).json()["id"]
    h = key()
    body = {"bet": 5, "free_round_id": pkg}
    a = c.post("/api/games/instant-test/rounds", json=body, headers=h)
    b = c.post("/api/games/instant-test/rounds", json=body, headers=h)
    assert a.status_code == b.status_code == 201 and a.json() == b.json()
    assert c.get("/api/free-rounds").json()["packages"][0]["rounds_left"] == 1
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=h)
    assert r.status_code == 409 and r.json()["error"]["code"] == "idempotency_key_reused"


@pytest.mark.parametrize("split", [False, True], ids=["one-commit", "split-commits"])
def test_concurrent_requests_for_the_last_round(make_server, split):
    """Requests racing for a package's last round: exactly one gets it, the rest a clear 409."""
    srv = make_server(split_round_commits=split)
    c, username = srv.player()
    token = c.headers["Authorization"].split()[1]
    pkg = grant(srv, username, rounds=1).json()["id"]
    n = 8
    barrier = threading.Barrier(n)
    answers: list[tuple[int, str]] = []

    def go() -> None:
        with srv.client(token) as cl:
            barrier.wait()
            r = free_spin(cl, pkg)
            answers.append((r.status_code, r.json().get("error", {}).get("code", "")))

    threads = [threading.Thread(target=go) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers)[0] == (201, ""), answers
    assert {a for a in sorted(answers)[1:]} <= {(409, "free_round_used_up"), (409, "round_open"),
                                               (409, "concurrent_request")}, answers
    if not split:  # rounds complete in one call: the others found the package used up
        assert {a for a in sorted(answers)[1:]} == {(409, "free_round_used_up")}, answers
    assert free_spin(c, pkg).json()["error"]["code"] == "free_round_used_up"
    p = c.get("/api/free-rounds").json()["packages"][0]
    assert p["rounds_left"] == 0
    assert len(c.get("/api/history?limit=20").json()["rounds"]) == 1
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_free_round_cut_between_split_commits_is_recovered(make_server):
    """A crash after the free round was taken but before it was played: the start-up recovery
    plays it from its seed and credits the win naming the package, once."""
    srv = make_server(split_round_commits=True)
    c, username = srv.player()
    token = c.headers["Authorization"].split()[1]
    pkg = grant(srv, username, rounds=2).json()["id"]
    headers = round_left_open(srv, token, body={"bet": 5, "free_round_id": pkg})
    assert c.get("/api/free-rounds").json()["packages"][0]["rounds_left"] == 1
    assert c.get("/api/wallet").json()["balance"] == 100_000  # nothing debited
    srv.__exit__()

    srv2 = make_server(split_round_commits=True)
    c2 = srv2.client(token)
    (r,) = c2.get("/api/history").json()["rounds"]
    rec = c2.get(f"/api/rounds/{r['round_id']}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "recovered"
    assert rec["free_round_id"] == pkg
    assert [e["kind"] for e in rec["ledger"]] == (["free_round_win"] if rec["win"] else [])
    p = c2.get("/api/free-rounds").json()["packages"][0]
    assert (p["rounds_left"], p["total_won"]) == (1, rec["win"])
    again = c2.post("/api/games/instant-test/rounds", json={"bet": 5, "free_round_id": pkg},
                    headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == r["round_id"]
    assert c2.get("/api/wallet").json()["balance"] == 100_000 + rec["win"]
    assert c2.get("/api/free-rounds").json()["packages"][0]["rounds_left"] == 1
    assert srv2.admin().get("/api/admin/audit").json()["ok"]
