"""A session reconstructed from the records (R8): an auditor reads back every round and money
movement of one login, in order, from the database alone, with the checks that they agree;
another session's records are not in it. SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from slotlab.store.models import LedgerEntry

from .server_games import OPTIONS, PickGame
from .server_util import LiveServer, key

PICK = "pick-test"  # a round waits for the player's pick


@pytest.fixture
def srv(make_server: Any) -> LiveServer:
    return make_server(games={PICK: PickGame(PICK, pick=True)})  # type: ignore[no-any-return]


def _play(c: Any, bet: int) -> dict[str, Any]:
    r = c.post(f"/api/games/{PICK}/rounds", json={"bet": bet}, headers=key())
    assert r.status_code == 201, r.text
    done = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                  json={"choice": OPTIONS[1], "step": r.json()["step"]}, headers=key())
    assert done.status_code == 200, done.text
    return dict(done.json())


def _login(srv: LiveServer, username: str) -> Any:
    with srv.client() as c:
        r = c.post("/api/sessions", json={"username": username, "password": "correct horse 1"})
        assert r.status_code == 201, r.text
        return srv.client(r.json()["token"])


def test_a_session_is_reconstructed_from_the_records_alone(srv):
    c, username = srv.player()
    played = [_play(c, bet) for bet in (1, 5, 10)]
    admin = srv.admin()
    credit = admin.post(f"/api/admin/players/{username}/credit", json={"amount": 700},
                        headers=key())
    assert credit.status_code == 200, credit.text
    played.append(_play(c, 2))
    closing = c.get("/api/wallet").json()["balance"]
    later = _login(srv, username)  # a second session: its round is not the first's
    other = _play(later, 5)

    sessions = admin.get(f"/api/admin/players/{username}/sessions").json()["sessions"]
    assert len(sessions) == 2 and sessions[0]["session_id"] > sessions[1]["session_id"]
    first = admin.get(f"/api/admin/sessions/{sessions[1]['session_id']}").json()
    assert first["username"] == username and first["window"]["ends_by"] == "the next login"
    assert [r["round_id"] for r in first["rounds"]] == [p["round_id"] for p in played]
    assert other["round_id"] not in {r["round_id"] for r in first["rounds"]}
    assert [r["win"] for r in first["rounds"]] == [p["win"] for p in played]
    assert first["opening_balance"] == 100_000 and first["closing_balance"] == closing
    kinds = [e["kind"] for e in first["ledger"]]
    assert kinds.count("bet") == 4 and kinds.count("admin_credit") == 1
    assert first["net_position"] == sum(p["win"] - p["bet"] for p in played)
    assert first["checks"] == {"ok": True, "balance_chain_broken_at": [],
                               "rounds_not_matching_their_money": []}

    second = admin.get(f"/api/admin/sessions/{sessions[0]['session_id']}").json()
    assert [r["round_id"] for r in second["rounds"]] == [other["round_id"]]
    assert second["opening_balance"] == closing and second["window"]["ends_by"].startswith("now")


def test_a_tampered_balance_breaks_the_chain_it_is_read_from(srv):
    """A ledger entry whose balance does not follow from the one before is named."""
    c, username = srv.player()
    for bet in (1, 2):
        _play(c, bet)
    admin = srv.admin()
    sid = admin.get(f"/api/admin/players/{username}/sessions").json()["sessions"][0]["session_id"]
    entries = admin.get(f"/api/admin/sessions/{sid}").json()["ledger"]
    with srv.ctx.db.write() as s:
        s.execute(update(LedgerEntry).where(LedgerEntry.id == entries[1]["entry_id"])
                  .values(balance_after=entries[1]["balance_after"] + 500))
    checks = admin.get(f"/api/admin/sessions/{sid}").json()["checks"]
    assert checks["ok"] is False
    assert checks["balance_chain_broken_at"][0] == entries[1]["entry_id"]


def test_an_unknown_session_or_player_is_a_clear_404(srv):
    admin = srv.admin()
    r = admin.get("/api/admin/sessions/999999")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_session"
    r = admin.get("/api/admin/players/nobody-here/sessions")
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_player"
    assert srv.client().get("/api/admin/sessions/1").status_code == 401  # admins only


def test_a_session_id_past_the_keys_range_is_a_clear_error(srv):
    """Found by the fuzzer: an id past a BIGINT reached the database and answered 500."""
    admin = srv.admin()
    for bad in ("57409209707046338560", "0", "-3"):
        r = admin.get(f"/api/admin/sessions/{bad}")
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request", r.text
    assert admin.get(f"/api/admin/sessions/{2**63 - 1}").status_code == 404  # none so far
