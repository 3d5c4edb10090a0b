"""Rounds under attack (issue 13): each test replays an attack on a real server over HTTP, on
SQLite and PostgreSQL, and checks the server now refuses it or catches it.

Records are damaged directly in the database, as an insider or a broken disk would.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import httpx
from sqlalchemy import text

from slotlab.rng import Seed, chacha_stream, fresh_seed, randbelow
from slotlab.rounds import Awaiting, IllegalChoiceError, RoundResult, check_inputs

from .server_games import PickGame, make_test_games
from .server_util import LiveServer, key, set_round

START = 100_000


class GambleGame(PickGame):
    """A win of the bet, then any number of gambles: ``double`` doubles it or loses it (drawn
    from the seed that came with the choice), ``collect`` ends the round."""

    def __init__(self) -> None:
        super().__init__("gamble-test", pick=True)

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        check_inputs(self, bet, seeds, choices)
        coin = randbelow(chacha_stream(seeds[0]), 2)
        events: list[dict[str, Any]] = [{"type": "reels_stopped", "stage": "base",
                                         "stops": [coin], "window": [[coin]]}]
        win = bet
        for i, choice in enumerate(choices):
            if choice == "collect":
                break
            if choice != "double":
                raise IllegalChoiceError(f"choice {choice!r} is not one of collect, double")
            won = randbelow(chacha_stream(seeds[i + 1]), 2) == 1
            win = win * 2 if won else 0
            events.append({"type": "gamble_resolved", "won": won, "win": win})
            if not won:
                break
        else:
            if len(choices) < 20:
                return RoundResult(self.id, self.model_hash, bet, tuple(events), win,
                                   Awaiting("gamble", ("collect", "double"), {"win": win}))
        events.append({"type": "round_ended", "win": win})
        return RoundResult(self.id, self.model_hash, bet, tuple(events), win, None)

    def max_win_x(self) -> int:
        return 2 ** 20


def _games() -> dict[str, Any]:
    return {**make_test_games(), "gamble-test": GambleGame()}


def _won_round(c: httpx.Client) -> dict[str, Any]:
    for _ in range(100):  # P(no win) = 1/4 per round
        body = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key()).json()
        if body["win"] > 0:
            return body
    raise AssertionError("no winning round in 100")


def _sql(srv: LiveServer, statement: str, **params: Any) -> None:
    with srv.ctx.db.write() as s:
        s.execute(text(statement), params)


# --- 2: replay and audit check the money ------------------------------------------------------


def test_raised_win_fails_replay_and_audit(make_server):
    srv = make_server()
    c, _ = srv.player()
    rid = _won_round(c)["round_id"]
    admin = srv.admin()
    assert c.get(f"/api/rounds/{rid}/replay").json()["identical"]
    assert admin.get("/api/admin/audit").json()["ok"]
    # The round's win, its ledger entry and the wallet raised together: the wallet still
    # equals its ledger.
    _sql(srv, "UPDATE rounds SET win = win + 7 WHERE id = :rid", rid=rid)
    _sql(srv, "UPDATE ledger_entries SET amount = amount + 7, balance_after = balance_after + 7"
              " WHERE round_id = :rid AND kind = 'win'", rid=rid)
    _sql(srv, "UPDATE wallets SET balance = balance + 7 WHERE player_id ="
              " (SELECT player_id FROM rounds WHERE id = :rid)", rid=rid)
    replay = c.get(f"/api/rounds/{rid}/replay").json()
    assert replay["events_identical"]  # the events were left alone ...
    assert not replay["identical"] and not replay["win_identical"]  # ... the money was not
    audit = admin.get("/api/admin/audit").json()
    assert not audit["ok"] and audit["bad_wallets"] == []
    assert [b["round_id"] for b in audit["bad_rounds"]] == [rid]


def test_ledger_entry_not_matching_its_round_fails_audit(make_server):
    srv = make_server()
    c, _ = srv.player()
    rid = _won_round(c)["round_id"]
    replay = c.get(f"/api/rounds/{rid}/replay").json()
    assert replay["identical"] and replay["payments_identical"]
    paid = replay["payments"]
    # The ledger and wallet raised, the round left alone: its events and win replay as
    # recorded, but the money it paid is not what they call for, and the audit says so too.
    _sql(srv, "UPDATE ledger_entries SET amount = amount + 3 WHERE round_id = :rid"
              " AND kind = 'win'", rid=rid)
    _sql(srv, "UPDATE wallets SET balance = balance + 3 WHERE player_id ="
              " (SELECT player_id FROM rounds WHERE id = :rid)", rid=rid)
    replay = c.get(f"/api/rounds/{rid}/replay").json()
    assert replay["events_identical"] and replay["win_identical"]
    assert not replay["identical"] and not replay["payments_identical"]
    assert replay["payments"] == [p if p[0] != "win" else ["win", p[1] + 3] for p in paid]
    audit = srv.admin().get("/api/admin/audit").json()
    assert not audit["ok"] and [b["round_id"] for b in audit["bad_rounds"]] == [rid]
    # A second win entry for the round (a double payment) is caught by the count.
    _sql(srv, "UPDATE ledger_entries SET amount = amount - 3 WHERE round_id = :rid"
              " AND kind = 'win'", rid=rid)
    _sql(srv, "UPDATE wallets SET balance = balance - 3 WHERE player_id ="
              " (SELECT player_id FROM rounds WHERE id = :rid)", rid=rid)
    assert srv.admin().get("/api/admin/audit").json()["ok"]
    _sql(srv, "INSERT INTO ledger_entries (wallet_id, kind, amount, balance_after, round_id, ref,"
              " created_at) SELECT wallet_id, kind, 0, balance_after, round_id, ref || '-again',"
              " created_at FROM ledger_entries WHERE round_id = :rid AND kind = 'win'", rid=rid)
    audit = srv.admin().get("/api/admin/audit").json()
    assert not audit["ok"] and [b["round_id"] for b in audit["bad_rounds"]] == [rid]


def test_jackpot_and_choice_rounds_audit_clean(make_server):
    srv = make_server(games=_games())
    c, _ = srv.player()
    c.post("/api/games/jackpot-test/rounds", json={"bet": 10}, headers=key())
    body = c.post("/api/games/pick-test/rounds", json={"bet": 2}, headers=key()).json()
    c.post(f"/api/rounds/{body['round_id']}/choices",
           json={"choice": "left", "step": body["step"]}, headers=key())
    body = c.post("/api/games/pick-test/rounds", json={"bet": 2}, headers=key()).json()
    srv.admin().post(f"/api/admin/rounds/{body['round_id']}/void")
    audit = srv.admin().get("/api/admin/audit").json()
    assert audit["ok"], audit
    assert audit["rounds"] == 3


# --- 4: a choice does not trust the stored round ----------------------------------------------


def _other_seed(game: PickGame, bet: int, events: list[Any]) -> str:
    while True:
        seed = fresh_seed()
        if list(game.play(bet, [seed]).events) != events:
            return seed.hex()


def test_choice_on_changed_seed_is_refused_and_settled_better_of(make_server):
    srv = make_server(games=_games())
    c, _ = srv.player()
    body = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    rid = body["round_id"]
    game = srv.ctx.catalog.get("pick-test").game
    set_round(srv, rid, seeds=[_other_seed(game, 10, body["events"])])
    r = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0}, headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_cannot_continue"
    settled = r.json()["round"]
    assert settled["outcome"] == "better_of_refund" and settled["status"] == "cancelled"
    assert settled["events"] == body["events"]  # what was shown stays the record
    assert c.get("/api/wallet").json()["balance"] == START
    notes = srv.admin().get(f"/api/admin/rounds/{rid}").json()["notes"]
    assert [n["action"] for n in notes] == ["round_refused"]
    assert "differ" in notes[0]["detail"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_choice_after_a_new_code_version_continues(make_server):
    srv = make_server(games=_games())
    c, _ = srv.player()
    rid = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()[
        "round_id"]
    set_round(srv, rid, code_version="0.0.1-older")
    r = c.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0}, headers=key())
    assert r.status_code == 200 and r.json()["status"] == "completed"


# --- 6: a choice names the step it answers ----------------------------------------------------


def test_concurrent_choices_gamble_one_step(make_server):
    srv = make_server(games=_games(), play_money_balance=START)
    c, _ = srv.player()
    body = c.post("/api/games/gamble-test/rounds", json={"bet": 10}, headers=key()).json()
    rid = body["round_id"]
    assert body["status"] == "awaiting_choice" and body["step"] == 0
    answers: list[httpx.Response] = []
    barrier = threading.Barrier(16)

    def choose() -> None:
        with srv.client(c.headers["Authorization"].split()[1]) as mine:
            barrier.wait()
            answers.append(mine.post(f"/api/rounds/{rid}/choices",
                                     json={"choice": "double", "step": 0}, headers=key()))

    threads = [threading.Thread(target=choose) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = [a for a in answers if a.status_code == 200]
    assert len(ok) == 1, [a.text for a in answers]
    refused = {a.json()["error"]["code"] for a in answers if a.status_code != 200}
    assert {a.status_code for a in answers if a.status_code != 200} == {409}
    assert refused <= {"round_changed", "round_not_awaiting_choice"}
    record = c.get(f"/api/rounds/{rid}").json()
    assert record["choices"] == ["double"]
    # A choice for a step already answered is refused; the current step goes on.
    if record["status"] == "awaiting_choice":
        assert record["step"] == 1
        stale = c.post(f"/api/rounds/{rid}/choices", json={"choice": "collect", "step": 0},
                       headers=key())
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "round_changed"
        assert stale.json()["round"]["step"] == 1
        done = c.post(f"/api/rounds/{rid}/choices", json={"choice": "collect", "step": 1},
                      headers=key())
        assert done.status_code == 200 and done.json()["status"] == "completed"


def test_concurrent_choices_without_a_step_are_all_refused(make_server):
    """Without ``step`` several copies of one choice could each apply: the step is required,
    and a choice without it is refused before it touches the round."""
    srv = make_server(games=_games(), play_money_balance=START)
    c, _ = srv.player()
    body = c.post("/api/games/gamble-test/rounds", json={"bet": 10}, headers=key()).json()
    rid = body["round_id"]
    answers: list[httpx.Response] = []
    barrier = threading.Barrier(16)

    def choose() -> None:
        with srv.client(c.headers["Authorization"].split()[1]) as mine:
            barrier.wait()
            answers.append(mine.post(f"/api/rounds/{rid}/choices", json={"choice": "double"},
                                     headers=key()))

    threads = [threading.Thread(target=choose) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {(a.status_code, a.json()["error"]["code"]) for a in answers} == \
        {(422, "step_required")}
    assert "step" in answers[0].json()["error"]["message"]
    record = c.get(f"/api/rounds/{rid}").json()
    assert record["choices"] == [] and record["status"] == "awaiting_choice"
    assert c.get("/api/wallet").json()["balance"] == body["balance"]


# --- 9: what an admin or a damaged record can reach is a 4xx, never a 500 ---------------------


def test_far_future_expiry_with_an_offset_is_refused(make_server):
    srv = make_server()
    _, username = srv.player()
    admin = srv.admin()
    r = admin.post("/api/admin/free-rounds", json={
        "username": username, "game": "instant-test", "bet": 5, "rounds": 3,
        "expires_at": "9999-12-31T23:00:00-05:00"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text
    ok = admin.post("/api/admin/free-rounds", json={
        "username": username, "game": "instant-test", "bet": 5, "rounds": 3,
        "expires_at": "2099-12-31T23:00:00-05:00"})
    assert ok.status_code == 201


def test_stored_seed_that_is_not_hex(make_server):
    srv = make_server(games=_games())
    c, _ = srv.player()
    done = _won_round(c)["round_id"]
    set_round(srv, done, seeds=["not hex!"])
    r = c.get(f"/api/rounds/{done}/replay")
    assert r.status_code == 200 and not r.json()["identical"], r.text
    waiting = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    set_round(srv, waiting["round_id"], seeds=["zz" * 32])
    r = c.post(f"/api/rounds/{waiting['round_id']}/choices",
               json={"choice": "left", "step": waiting["step"]},
               headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_cannot_continue", r.text
    audit = srv.admin().get("/api/admin/audit").json()
    # The money is whole; the completed round's damaged record shows in its hash chain (the
    # waiting round is chained only once it ends).
    assert audit["bad_wallets"] == [] and audit["bad_rounds"] == []
    assert [b["row"] for b in audit["broken_chains"]] == [done]


def test_nul_byte_in_a_path(make_server):
    srv = make_server(db_pool_size=2)
    c, username = srv.player()
    admin = srv.admin()
    for path in ("/api/admin/players/a%00b/credit", "/api/admin/players/a%00b/debit"):
        r = admin.post(path, json={"amount": 5}, headers=key())
        assert 400 <= r.status_code < 500, r.text
    r = admin.put("/api/admin/players/a%00b/jurisdiction", json={"jurisdiction": None})
    assert 400 <= r.status_code < 500, r.text
    for path in ("/api/rounds/%00", "/api/admin/rounds/%00", "/api/games/a%00b",
                 "/api/rounds/%00/replay"):
        getter = admin if "admin" in path else c
        r = getter.get(path)
        assert 400 <= r.status_code < 500, (path, r.text)
    # Every connection of the pool is still good.
    for _ in range(6):
        r = admin.post(f"/api/admin/players/{username}/credit", json={"amount": 1},
                       headers=key())
        assert r.status_code == 200, r.text
        assert c.get("/api/wallet").status_code == 200
