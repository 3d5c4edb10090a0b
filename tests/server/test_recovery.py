"""Start-up recovery: a round debited but never played (a crash between the two commits of
``split_round_commits``) is played from its recorded seed and settled when the server starts."""

from __future__ import annotations

import pytest

from .server_util import key, round_left_open


def test_open_round_is_completed_at_start_up(make_server):
    srv = make_server(split_round_commits=True)
    c, _ = srv.player()
    token = c.headers["Authorization"].split()[1]
    headers = round_left_open(srv, token)
    admin = srv.admin()
    live = admin.get("/api/admin/rounds/open").json()["rounds"]
    assert [r["status"] for r in live] == ["open"]
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 5  # debited, not yet played
    rid = live[0]["round_id"]
    srv.__exit__()

    srv2 = make_server(split_round_commits=True)
    c2 = srv2.client(token)
    rec = c2.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "recovered"
    assert c2.get(f"/api/rounds/{rid}/replay").json()["identical"]
    assert c2.get("/api/wallet").json()["balance"] == 100_000 - 5 + rec["win"]
    # The request that was cut off, retried with its key, gets the settled round, no new debit.
    again = c2.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == rid
    assert c2.get("/api/wallet").json()["balance"] == 100_000 - 5 + rec["win"]
    assert srv2.admin().get("/api/admin/audit").json()["ok"]


@pytest.mark.parametrize("split", [False, True], ids=["one-commit", "split-commits"])
def test_choice_round_in_both_commit_modes(make_server, split):
    srv = make_server(split_round_commits=split)
    c, _ = srv.player()
    body = c.post("/api/games/pick-test/rounds", json={"bet": 10}, headers=key()).json()
    assert body["status"] == "awaiting_choice" and body["balance"] == 100_000 - 10
    done = c.post(f"/api/rounds/{body['round_id']}/choices",
                  json={"choice": "left", "step": body["step"]},
                  headers=key()).json()
    assert done["status"] == "completed"
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 10 + done["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]
