"""The whole HTTP API over real HTTP, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from .server_games import PickGame, make_test_games
from .server_util import ADMIN_TOKEN, key

# -- players, sessions, wallet -------------------------------------------------------------------


def test_register_login_session_wallet(server):
    c, username = server.player()
    wallet = c.get("/api/wallet").json()
    assert wallet == {"balance": 100_000, "currency": "EUR", "decimals": 2,
                      "source": "internal"}
    info = c.get("/api/session").json()
    assert info["player"]["username"] == username
    assert info["jurisdiction"]["id"] == "mt"
    assert info["net_position"] == 0 and info["unseen_results"] == []
    assert c.delete("/api/sessions/current").status_code == 204
    r = c.get("/api/wallet")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"


def test_register_duplicate_username_conflict(server):
    _, username = server.player()
    with server.client() as c:
        r = c.post("/api/players", json={"username": username, "password": "another pass"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "username_taken"


def test_funded_by_operator_starts_at_zero(make_server):
    srv = make_server(play_money_balance=0)
    c, username = srv.player()
    assert c.get("/api/wallet").json()["balance"] == 0
    r = c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key())
    assert r.status_code == 402 and r.json()["error"]["code"] == "insufficient_funds"
    r = srv.admin().post(f"/api/admin/players/{username}/credit", json={"amount": 500})
    assert r.status_code == 200 and r.json()["balance"] == 500
    assert c.get("/api/wallet").json()["balance"] == 500


def test_failed_logins_slow_the_address_and_never_lock_the_account(server):
    _, username = server.player(password="right password")
    with server.client() as anon:
        for _ in range(3):
            r = anon.post("/api/sessions", json={"username": username, "password": "wrong"})
            assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_credentials"
        # The address that guessed three times waits before its next guess is even read...
        r = anon.post("/api/sessions", json={"username": username, "password": "right password"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_logins"
        wait = int(r.headers["Retry-After"])
        assert 1 <= wait <= 2
        # ...and no longer: then the right password gets in; nothing was locked.
        threading.Event().wait(wait + 0.1)
        r = anon.post("/api/sessions", json={"username": username, "password": "right password"})
        assert r.status_code == 201, r.text


def test_unknown_user_login_is_refused(server):
    with server.client() as c:
        r = c.post("/api/sessions", json={"username": "nobody-here", "password": "whatever1"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_credentials"


def test_tokens_missing_bad_and_admin_token_is_not_a_player_token(server):
    with server.client() as anon:
        assert anon.get("/api/wallet").json()["error"]["code"] == "unauthorized"
    with server.client("not-a-token") as bad:
        assert bad.get("/api/wallet").status_code == 401
    with server.admin() as admin:
        assert admin.get("/api/wallet").status_code == 401
    c, _ = server.player()
    token = c.headers["Authorization"].split()[1]
    with server.client(token) as player_as_admin:
        r = player_as_admin.get("/api/admin/rounds/open")
    assert r.status_code == 401 and r.json()["error"]["code"] == "not_admin"


def test_admin_endpoints_off_without_token(make_server):
    srv = make_server(admin_token=None)
    with srv.client(ADMIN_TOKEN) as c:
        r = c.get("/api/admin/rounds/open")
    assert r.status_code == 403 and r.json()["error"]["code"] == "admin_disabled"


def test_weak_admin_token_refused():
    from slotlab.server.settings import Settings

    with pytest.raises(ValueError, match="SLOTLAB_ADMIN_TOKEN"):
        Settings(admin_token="changethis")


# -- games ---------------------------------------------------------------------------------------


def test_games_list_and_detail(server):
    with server.client() as c:
        games = {g["id"]: g for g in c.get("/api/games").json()}
        assert set(games) == {"instant-test", "pick-test", "jackpot-test"}
        assert games["pick-test"]["bets"] == [1, 2, 5, 10]
        detail = c.get("/api/games/jackpot-test").json()
        assert detail["bets"] == [1, 2, 5, 10] and detail["rules"]
        assert {j["tier"] for j in detail["jackpots"]} == {"top", "bottom"}
        r = c.get("/api/games/no-such-game")
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"


def test_denomination_scales_bets(make_server):
    srv = make_server(denominations={"instant-test": 5})
    c, _ = srv.player()
    assert srv.client().get("/api/games/instant-test").json()["bets"] == [5, 10, 25, 50]
    r = c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key())
    assert r.status_code == 422 and r.json()["error"]["code"] == "bet_not_allowed"
    r = c.post("/api/games/instant-test/rounds", json={"bet": 25}, headers=key()).json()
    assert r["bet_credits"] == 5 and r["denomination"] == 5
    assert r["win"] == r["events"][-1]["win"] * 5
    assert r["balance"] == 100_000 - 25 + r["win"]


def test_real_games_are_served(make_server):
    srv = make_server(real_games=True)
    with srv.client() as c:
        ids = {g["id"] for g in c.get("/api/games").json()}
    assert {"crystal-star-deluxe", "fruit-5x3", "classic-3x3"} <= ids
    c, _ = srv.player()
    for gid in ("crystal-star-deluxe", "fruit-5x3", "classic-3x3"):
        bet = c.get(f"/api/games/{gid}").json()["bets"][0]
        r = c.post(f"/api/games/{gid}/rounds", json={"bet": bet}, headers=key())
        assert r.status_code == 201, r.text
        body = r.json()
        while body["status"] == "awaiting_choice":  # a gamble: collect
            r = c.post(f"/api/rounds/{body['round_id']}/choices",
                       json={"choice": "collect", "step": body["step"]},
                       headers=key())
            body = r.json()
        assert body["status"] == "completed"
        assert c.get(f"/api/rounds/{body['round_id']}/replay").json()["identical"] is True
    # Crystal Star Deluxe's pools: a max-bet round adds 1/250 and 3/1000 of its bet.
    before = {j["tier"]: j for j in c.get("/api/jackpots").json()["jackpots"]}
    assert before["top"]["value"] == before["top"]["reset"] == 20000
    body = c.post("/api/games/crystal-star-deluxe/rounds", json={"bet": 45}, headers=key()).json()
    after = {j["tier"]: j["value_micro"] for j in c.get("/api/jackpots").json()["jackpots"]}
    if not body["jackpots"]:
        assert after == {"top": 20000 * 10**6 + 180_000, "bottom": 1500 * 10**6 + 135_000}
    assert srv.admin().get("/api/admin/audit").json()["ok"]


# -- rounds --------------------------------------------------------------------------------------


def test_instant_round_moves_money_once(server):
    c, _ = server.player()
    r = c.post("/api/games/instant-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 201
    body = r.json()
    assert body["status"] == "completed" and body["awaiting"] is None
    assert body["balance"] == 100_000 - 10 + body["win"]
    assert body["events"][-1] == {"type": "round_ended", "win": body["win"]}
    rec = c.get(f"/api/rounds/{body['round_id']}").json()
    kinds = [(e["kind"], e["amount"]) for e in rec["ledger"]]
    assert kinds[0] == ("bet", -10)
    assert sum(a for _, a in kinds) == body["win"] - 10
    assert len(rec["seeds"]) == 1 and rec["code_version"].startswith("slotlab")


def test_choice_round_flow_and_one_open_round(server):
    c, _ = server.player()
    r = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key())
    body = r.json()
    assert r.status_code == 201 and body["status"] == "awaiting_choice"
    assert body["awaiting"]["options"] == ["left", "right"]
    assert body["balance"] == 100_000 - 5
    rid = body["round_id"]
    # While it waits, new rounds are refused and the open round is handed back.
    r = c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_open"
    assert r.json()["round"]["round_id"] == rid
    opened = c.get("/api/rounds/open").json()
    assert opened["round_id"] == rid and opened["awaiting"]["kind"] == "pick"
    # Seeds stay secret until the round is over.
    assert c.get(f"/api/rounds/{rid}").json()["seeds"] is None
    assert c.get(f"/api/rounds/{rid}/replay").status_code == 409
    r = c.post(f"/api/rounds/{rid}/choices", json={"choice": "up", "step": 0}, headers=key())
    assert r.status_code == 422 and r.json()["error"]["code"] == "illegal_choice"
    r = c.post(f"/api/rounds/{rid}/choices", json={"choice": "right", "step": 0},
               headers=key())
    done = r.json()
    assert r.status_code == 200 and done["status"] == "completed"
    assert done["balance"] == 100_000 - 5 + done["win"]
    assert c.get("/api/rounds/open").status_code == 204
    r = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0}, headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_not_awaiting_choice"
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["choices"] == ["right"] and len(rec["seeds"]) == 2
    replay = c.get(f"/api/rounds/{rid}/replay").json()
    assert replay["identical"] and replay["events"] == rec["events"]


def test_idempotent_round_retry_and_reused_key(server):
    c, _ = server.player()
    headers = key()
    first = c.post("/api/games/instant-test/rounds", json={"bet": 2}, headers=headers)
    again = c.post("/api/games/instant-test/rounds", json={"bet": 2}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert c.get("/api/wallet").json()["balance"] == first.json()["balance"]
    assert len(c.get("/api/history").json()["rounds"]) == 1
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert r.status_code == 409 and r.json()["error"]["code"] == "idempotency_key_reused"


def test_idempotent_choice_retry(server):
    c, _ = server.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 1}, headers=key()).json()["round_id"]
    headers = key()
    a = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0}, headers=headers)
    b = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0}, headers=headers)
    assert a.status_code == b.status_code == 200 and a.json() == b.json()
    r = c.post(f"/api/rounds/{rid}/choices", json={"choice": "right", "step": 0}, headers=headers)
    assert r.status_code == 409 and r.json()["error"]["code"] == "idempotency_key_reused"


def test_history_newest_first(server):
    c, _ = server.player()
    ids = [c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key()).json()[
        "round_id"] for _ in range(12)]
    hist = c.get("/api/history", params={"limit": 50}).json()["rounds"]
    assert [h["round_id"] for h in hist] == ids[::-1]
    assert c.get("/api/history").json()["rounds"][0]["round_id"] == ids[-1]
    assert len(c.get("/api/history").json()["rounds"]) == 10
    h = hist[0]
    assert {"round_id", "game", "model_hash", "bet", "win", "status", "created_at",
            "completed_at"} <= set(h)


def test_players_cannot_read_each_others_rounds(server):
    alice, _ = server.player()
    bob, _ = server.player()
    rid = alice.post("/api/games/pick-test/rounds", json={"bet": 1}, headers=key()).json()[
        "round_id"]
    for path in (f"/api/rounds/{rid}", f"/api/rounds/{rid}/replay"):
        r = bob.get(path)
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_round"
    r = bob.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0},
                 headers=key())
    assert r.status_code == 403
    assert bob.get(f"/api/rounds/{uuid.uuid4().hex}").status_code == 404
    assert bob.get("/api/rounds/..%2F..%2Fetc").status_code == 404


def test_insufficient_funds_never_negative(make_server):
    srv = make_server(games={"instant-test": PickGame("instant-test", pick=False, prize_x=0)},
                      play_money_balance=15)
    c, _ = srv.player()
    statuses = [c.post("/api/games/instant-test/rounds", json={"bet": 10}, headers=key())
                .status_code for _ in range(3)]
    assert statuses == [201, 402, 402]
    assert c.get("/api/wallet").json()["balance"] == 5
    assert c.get("/api/wallet").json()["balance"] >= 0
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_rate_limit_429(make_server):
    srv = make_server(min_round_interval_ms=60_000)
    c, _ = srv.player()
    assert c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key()
                  ).status_code == 201
    r = c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key())
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_fast"


def test_gb_profile_enforces_min_cycle(make_server):
    srv = make_server(jurisdiction="gb")
    c, _ = srv.player()
    flags = c.get("/api/session").json()["jurisdiction"]
    assert flags["autoplay"] is False and flags["min_cycle_ms"] == 2500
    assert c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key()
                  ).status_code == 201
    assert c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key()
                  ).status_code == 429


def test_cash_cap_limits_the_win(make_server):
    game = PickGame("instant-test", pick=False, prize_x=1000)
    srv = make_server(games={"instant-test": game}, cash_caps={"EUR": 3000})
    c, _ = srv.player()
    capped = 0
    for _ in range(30):
        b = c.post("/api/games/instant-test/rounds", json={"bet": 10}, headers=key()).json()
        assert b["win"] <= 3000
        rec = c.get(f"/api/rounds/{b['round_id']}").json()
        assert rec["uncapped_win"] == rec["events"][-1]["win"] * 1
        capped += rec["uncapped_win"] > 3000
    assert capped > 0  # 1000x10 credits drawn uniformly from 0..1000: most rounds hit the cap
    assert srv.admin().get("/api/admin/audit").json()["ok"]


# -- abandoned and broken rounds -----------------------------------------------------------------


def test_abandoned_round_auto_completed_and_reported(make_server):
    srv = make_server(auto_complete_after_s=0)
    c, _ = srv.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 2}, headers=key()).json()["round_id"]
    assert srv.admin().post("/api/admin/maintenance").json()["auto_completed"] == 1
    rec = c.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "auto_completed"
    assert rec["choices"][0] in ("left", "right") and len(rec["auto_seeds"]) == 1
    assert c.get(f"/api/rounds/{rid}/replay").json()["identical"]
    unseen = c.get("/api/session").json()["unseen_results"]
    assert [u["round_id"] for u in unseen] == [rid]
    assert c.delete("/api/session/unseen").status_code == 204
    assert c.get("/api/session").json()["unseen_results"] == []
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 2 + rec["win"]


def test_round_that_cannot_continue_pays_better_of(make_server, tmp_path: Path):
    srv = make_server()
    c, _ = srv.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()[
        "round_id"]
    srv.__exit__()
    # The game's model changes while the round waits: it cannot be continued faithfully.
    games = make_test_games()
    games["pick-test"] = PickGame("pick-test", pick=True, prize_x=7)
    srv2 = make_server(games=games, auto_complete_after_s=0)
    c2 = srv2.client(c.headers["Authorization"].split()[1])
    assert c2.get("/api/rounds/open").status_code == 204
    rec = c2.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "cancelled" and rec["outcome"] == "better_of_refund"
    assert c2.get("/api/wallet").json()["balance"] == 100_000
    assert srv2.admin().get("/api/admin/audit").json()["ok"]


def test_replay_detects_a_changed_model(make_server):
    srv = make_server()
    c, _ = srv.player()
    rid = c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers=key()).json()[
        "round_id"]
    assert c.get(f"/api/rounds/{rid}/replay").json()["identical"] is True
    srv.__exit__()
    games = make_test_games()
    games["instant-test"] = PickGame("instant-test", pick=False, prize_x=7)
    srv2 = make_server(games=games)
    c2 = srv2.client(c.headers["Authorization"].split()[1])
    replay = c2.get(f"/api/rounds/{rid}/replay").json()
    assert replay["model_hash_matches"] is False and replay["identical"] is False
    assert replay["recorded_model_hash"] != replay["current_model_hash"]


def test_admin_void_refunds(server):
    c, _ = server.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 5}, headers=key()).json()["round_id"]
    with server.admin() as admin:
        listed = admin.get("/api/admin/rounds/open").json()["rounds"]
        assert rid in [x["round_id"] for x in listed]
        assert admin.get(f"/api/admin/rounds/{rid}").json()["status"] == "awaiting_choice"
        r = admin.post(f"/api/admin/rounds/{rid}/void")
        assert r.status_code == 200 and r.json()["status"] == "cancelled"
        assert admin.post(f"/api/admin/rounds/{rid}/void").status_code == 409
    assert c.get("/api/wallet").json()["balance"] == 100_000
    kinds = [e["kind"] for e in c.get(f"/api/rounds/{rid}").json()["ledger"]]
    assert kinds == ["bet", "refund"]


def test_admin_credit_debit_idempotent(server):
    _, username = server.player()
    with server.admin() as admin:
        h = key()
        a = admin.post(f"/api/admin/players/{username}/credit", json={"amount": 700}, headers=h)
        b = admin.post(f"/api/admin/players/{username}/credit", json={"amount": 700}, headers=h)
        assert a.json() == b.json() and a.json()["balance"] == 100_700
        r = admin.post(f"/api/admin/players/{username}/debit", json={"amount": 10**9})
        assert r.status_code == 402
        r = admin.post(f"/api/admin/players/{username}/debit", json={"amount": 700})
        assert r.json()["balance"] == 100_000
        assert admin.post("/api/admin/players/ghost/credit", json={"amount": 1}
                          ).status_code == 404
        assert admin.get("/api/admin/audit").json()["ok"]


# -- jackpots ------------------------------------------------------------------------------------


def test_jackpot_contribution_award_and_reset(server):
    c, _ = server.player()
    pools = {j["tier"]: j for j in c.get("/api/jackpots").json()["jackpots"]}
    assert pools["top"]["value_micro"] == 1000 * 1_000_000  # seeded at reset
    # Non-max bets neither contribute nor win.
    c.post("/api/games/jackpot-test/rounds", json={"bet": 5}, headers=key())
    assert {j["tier"]: j["value_micro"] for j in c.get("/api/jackpots").json()["jackpots"]} == {
        "top": 1000 * 10**6, "bottom": 100 * 10**6}
    b = c.post("/api/games/jackpot-test/rounds", json={"bet": 10}, headers=key()).json()
    # 10 * 1/250 = 0.04 to top, 10 * 3/1000 = 0.03 to bottom; top is then won: 1000.04 -> 1000.
    assert b["jackpots"] == [{"tier": "top", "amount": 1000}]
    assert b["balance"] == 100_000 - 5 - 10 + b["win"] + 1000 + c.get(
        "/api/history").json()["rounds"][1]["win"]
    after = {j["tier"]: j["value_micro"] for j in c.get("/api/jackpots").json()["jackpots"]}
    assert after == {"top": 1000 * 10**6 + 40_000, "bottom": 100 * 10**6 + 30_000}
    kinds = [e["kind"] for e in c.get(f"/api/rounds/{b['round_id']}").json()["ledger"]]
    assert "jackpot" in kinds
    assert server.admin().get("/api/admin/audit").json()["ok"]


# -- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"{not json", 400, "malformed_json"),
        (b'{"bet": "10"}', 422, "invalid_request"),
        (b'{"bet": 10.0}', 422, "invalid_request"),
        (b'{"bet": true}', 422, "invalid_request"),
        (b'{"bet": 0}', 422, "invalid_request"),
        (b'{"bet": -10}', 422, "invalid_request"),
        (b'{"bet": 100000000000000000000000}', 422, "invalid_request"),
        (b'{"bet": 3}', 422, "bet_not_allowed"),
        (b'{"bet": 10, "extra": 1}', 422, "invalid_request"),
        (b"[]", 422, "invalid_request"),
        (b"", 422, "invalid_request"),
    ],
)
def test_bad_round_input_is_4xx(server, body, status, code):
    c, _ = server.player()
    r = c.post("/api/games/instant-test/rounds", content=body,
               headers={**key(), "Content-Type": "application/json"})
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    assert c.get("/api/wallet").json()["balance"] == 100_000


def test_missing_idempotency_key_and_unknown_game(server):
    c, _ = server.player()
    r = c.post("/api/games/instant-test/rounds", json={"bet": 1})
    assert r.status_code == 400 and r.json()["error"]["code"] == "missing_idempotency_key"
    r = c.post("/api/games/../../etc/rounds", json={"bet": 1}, headers=key())
    assert r.status_code in (404, 405)  # the client normalises the path to /etc/rounds
    r = c.post("/api/games/nope/rounds", json={"bet": 1}, headers=key())
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
    r = c.get("/api/nothing-here")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("body", [
    {"username": "ab", "password": "long enough"},
    {"username": "bad name!", "password": "long enough"},
    {"username": "fine_name", "password": "short"},
    {"username": "fine_name", "password": 12345678},
    {"username": "fine_name"},
])
def test_bad_registration_is_422(server, body):
    with server.client() as c:
        r = c.post("/api/players", json=body)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


# -- the browser client --------------------------------------------------------------------------


def test_static_client_served_at_root(make_server, tmp_path: Path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text("<!doctype html><title>slotlab</title>")
    srv = make_server(web_dir=str(web))
    with srv.client() as c:
        assert "slotlab" in c.get("/").text
        assert c.get("/api/games").status_code == 200
        assert c.get("/api/missing").json()["error"]["code"] == "not_found"


def test_empty_static_dir_does_not_fail(make_server, tmp_path: Path):
    (tmp_path / "empty").mkdir()
    srv = make_server(web_dir=str(tmp_path / "empty"))
    with srv.client() as c:
        assert c.get("/").status_code == 404
        assert c.get("/api/health").json()["ok"]
