"""``/metrics`` (Prometheus' text format, from prometheus_client) and the health endpoints:
what each round, error and login adds, and what the database holds, read at scrape time.

The counters live in this test process's registry, shared by every server a test starts here:
each test reads them before and after and checks the difference.
"""

from __future__ import annotations

import uuid

from prometheus_client.parser import text_string_to_metric_families

from .server_util import LiveServer, key


def scrape(srv: LiveServer) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    with srv.client() as c:
        r = c.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples}


def value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str,
          **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_rounds_bets_wins_latency_errors_and_logins_are_counted(server: LiveServer) -> None:
    before = scrape(server)
    player, username = server.player()
    wins = 0
    with player:
        for _ in range(6):  # the fast path
            r = player.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
            assert r.status_code == 201, r.text
            wins += r.json()["win"]
        r = player.post("/api/games/pick-test/rounds", json={"bet": 2}, headers=key())
        assert r.status_code == 201 and r.json()["status"] == "awaiting_choice"
        rid = r.json()["round_id"]
        live = scrape(server)  # a round waiting for its choice is live, not settled
        assert value(live, "slotlab_rounds_live", status="awaiting_choice") >= 1
        r = player.post(f"/api/rounds/{rid}/choices", json={"choice": "left", "step": 0},
                        headers=key())
        assert r.status_code == 200, r.text
        pick_win = r.json()["win"]
        assert player.post("/api/games/no-such-game/rounds", json={"bet": 5},
                           headers=key()).status_code == 404
    with server.client() as c:
        assert c.post("/api/sessions", json={"username": username, "password": "wrong one 1"}
                      ).status_code == 401
        assert c.post("/api/sessions", json={"username": "nobody-" + uuid.uuid4().hex[:6],
                                             "password": "wrong one 1"}).status_code == 401
    after = scrape(server)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    instant = {"game": "instant-test", "currency": "EUR", "bet": "5", "kind": "paid"}
    assert delta("slotlab_rounds_total", **instant) == 6
    assert delta("slotlab_bet_minor_units_total", **instant) == 30
    assert delta("slotlab_win_minor_units_total", **instant) == wins
    pick = {"game": "pick-test", "currency": "EUR", "bet": "2", "kind": "paid"}
    assert delta("slotlab_rounds_total", **pick) == 1  # settled by its choice
    assert delta("slotlab_win_minor_units_total", **pick) == pick_win
    # Every start, the pick round's waiting one too, is the batched path's, and so is its
    # choice (not a round start: a write of the batch all the same).
    assert delta("slotlab_round_seconds_count", path="fast") == 7
    assert delta("slotlab_round_seconds_count", path="general") == 0
    assert delta("slotlab_choice_seconds_count", path="fast") == 1
    assert delta("slotlab_choice_seconds_count", path="general") == 0
    assert delta("slotlab_db_batch_rounds_sum") == 8
    assert delta("slotlab_db_batch_seconds_count") >= 1
    assert delta("slotlab_errors_total", status="404", code="unknown_game") == 1
    assert delta("slotlab_login_failures_total", reason="wrong_password") == 1
    assert delta("slotlab_login_failures_total", reason="unknown_username") == 1


def test_database_figures_pools_packages_and_interrupted_rounds(server: LiveServer) -> None:
    player, username = server.player()
    with player:
        r = player.post("/api/games/jackpot-test/rounds", json={"bet": 1}, headers=key())
        assert r.status_code == 201, r.text
    with server.admin() as admin:
        r = admin.post("/api/admin/free-rounds", json={
            "username": username, "game": "instant-test", "bet": 5, "rounds": 3,
            "expires_at": "2100-01-01T00:00:00Z"})
        assert r.status_code == 201, r.text
        pools = {p["tier"]: p for p in admin.get("/api/jackpots").json()["jackpots"]
                 if p["game"] == "jackpot-test"}
    samples = scrape(server)
    for tier, pool in pools.items():
        assert value(samples, "slotlab_jackpot_pool_minor_units", game="jackpot-test",
                     currency="EUR", denomination=str(pool["denomination"]), tier=tier
                     ) == pool["value_micro"] / 1_000_000
    assert value(samples, "slotlab_free_round_packages", state="active") == 1
    assert value(samples, "slotlab_free_rounds_left") == 3
    assert value(samples, "slotlab_rounds_interrupted") == 0


def test_health_live_and_ready(server: LiveServer) -> None:
    with server.client() as c:
        assert c.get("/health/live").json() == {"live": True}
        r = c.get("/health/ready")
        assert r.status_code == 200 and r.json()["ready"] is True
    server.app.state.ready = False  # as during start-up: games not loaded yet
    try:
        with server.client() as c:
            r = c.get("/health/ready")
        assert r.status_code == 503 and r.json() == {"ready": False, "reason": "starting"}
    finally:
        server.app.state.ready = True


def test_ready_says_no_when_the_database_does_not_answer(server: LiveServer,
                                                         monkeypatch) -> None:
    def down() -> None:
        raise ConnectionError("the database is gone")

    monkeypatch.setattr(server.ctx.db, "read", down)
    with server.client() as c:
        r = c.get("/health/ready")
    assert r.status_code == 503 and r.json() == {"ready": False, "reason": "database"}
