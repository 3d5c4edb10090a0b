"""Two servers on one database (as two processes or hosts): what one process learns, the other
learns from the database. Sessions ended in one are refused in the other within
``session_cache_s``; the sweep runs in one of them per interval; a host's integrity outcome
reaches its other processes; a round a dead process left debited is finished by the sweep of
one that lives. (tests/server/test_multi_process.py does it with real processes and kill -9.)"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from sqlalchemy import update

from slotlab.integrity import certified_list
from slotlab.server.services import maintenance
from slotlab.store.models import PeriodicJob, utcnow

from .server_util import key, round_left_open


def _due(srv, name: str) -> None:
    """Make a periodic job due now (as if its interval had passed)."""
    with srv.ctx.db.write() as s:
        s.execute(update(PeriodicJob).where(PeriodicJob.name == name)
                  .values(next_due_at=utcnow()))


def _two(make_server, **settings):
    return make_server(**settings), make_server(**settings)


def test_a_logout_in_one_process_is_refused_at_once_without_a_cache(make_server):
    a, b = _two(make_server, session_cache_s=0)
    c, _ = a.player()
    other = b.client(c.headers["Authorization"].split()[1])
    assert other.get("/api/wallet").status_code == 200
    assert c.delete("/api/sessions/current").status_code == 204
    r = other.get("/api/wallet")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"


@pytest.mark.parametrize("how", ["logout", "session_cap"])
def test_a_session_ended_in_one_process_ends_in_the_other_within_the_cache_time(make_server,
                                                                               how):
    cache_s = 0.5
    a, b = _two(make_server, session_cache_s=cache_s, max_sessions_per_player=1)
    c, name = a.player()
    token = c.headers["Authorization"].split()[1]
    other = b.client(token)
    assert other.get("/api/wallet").status_code == 200  # b caches the session now
    if how == "logout":
        assert c.delete("/api/sessions/current").status_code == 204
    else:  # a newer login (at a) revokes the older session: one session per player here
        with a.client() as anon:
            assert anon.post("/api/sessions", json={"username": name,
                                                    "password": "correct horse 1"}
                             ).status_code == 201
    time.sleep(cache_s + 0.05)  # the documented staleness: b's copy is now older than that
    r = other.get("/api/wallet")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"


def test_the_sweep_runs_in_one_process_per_interval(make_server):
    a, b = _two(make_server)
    _due(a, maintenance.SWEEP_JOB)
    ran = [maintenance.tick(srv.ctx) for srv in (a, b, a, b)]
    assert sum("sweep" in r for r in ran) == 1, ran


def test_a_hosts_integrity_outcome_reaches_its_other_processes(make_server, tmp_path: Path):
    listed = tmp_path / "certified.json"
    servers = _two(make_server, certified_list=str(listed))
    games = [e.game for e in servers[0].ctx.catalog]
    listed.write_text(json.dumps(certified_list(games)))
    for srv in servers:
        srv.ctx.integrity.check()
        assert srv.ctx.catalog.out_of_service == {}
    listed.write_text("not json")  # the certified list broke: every game out (fail closed)
    a, b = servers
    _due(a, maintenance.integrity_job(a.ctx.integrity.host))
    ran = [maintenance.tick(srv.ctx).get("integrity") for srv in (a, b)]
    assert ran == ["checked", "adopted"]
    assert set(b.ctx.catalog.out_of_service) == {e.id for e in b.ctx.catalog}
    assert b.ctx.catalog.out_of_service == a.ctx.catalog.out_of_service
    c, _ = b.player()
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 503 and r.json()["error"]["code"] == "game_out_of_service"
    assert maintenance.tick(b.ctx).get("integrity") is None  # nothing newer to adopt


def test_a_round_a_dead_process_left_debited_is_finished_by_a_live_ones_sweep(make_server):
    a, b = _two(make_server, split_round_commits=True, open_round_grace_s=0)
    c, _ = a.player()
    token = c.headers["Authorization"].split()[1]
    headers = round_left_open(a, token, "process a died here, between its two commits")
    rid = a.admin().get("/api/admin/rounds/open").json()["rounds"][0]["round_id"]
    _due(b, maintenance.SWEEP_JOB)
    assert maintenance.tick(b.ctx)["sweep"]["open_recovered"] == 1
    other = b.client(token)
    rec = other.get(f"/api/rounds/{rid}").json()
    assert rec["status"] == "completed" and rec["outcome"] == "recovered"
    again = other.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == rid  # one debit, one round
    assert b.admin().get("/api/admin/audit").json()["ok"]


def test_a_fresh_open_round_is_left_to_the_process_playing_it(make_server):
    """Within open_round_grace_s the sweep leaves an open round alone: the process that
    debited it is (as far as anyone knows) about to play it."""
    a, b = _two(make_server, split_round_commits=True, open_round_grace_s=3600)
    c, _ = a.player()
    token = c.headers["Authorization"].split()[1]
    round_left_open(a, token, "still playing")
    _due(b, maintenance.SWEEP_JOB)
    assert maintenance.tick(b.ctx)["sweep"]["open_recovered"] == 0


def test_every_per_address_limit_reads_the_address_through_the_trusted_proxies():
    """Behind a load balancer each limit per client address must read the address from
    SLOTLAB_TRUSTED_PROXIES (ratelimit.request_address); reading the peer directly would count
    the balancer as one client."""
    root = Path(maintenance.__file__).resolve().parents[1]  # slotlab/server
    reads = ("request.client", 'scope["client"]', "scope.get(\"client\")", "x-forwarded-for")
    direct = [f"{p.relative_to(root)}:{i}" for p in root.rglob("*.py") if p.name != "ratelimit.py"
              for i, line in enumerate(p.read_text().splitlines(), 1)
              if any(r in line.split("#")[0].lower() for r in reads)]
    assert not direct, f"client address read around the trusted-proxy rule: {direct}"
