"""Responsible gambling (R19 and reality checks): limits the player sets on losses and deposits
over a day, a week and a month (lowered at once, raised after a cooling-off day, enforced on
every bet and every deposit), and reminders a jurisdiction profile requires, which stop play
until the player acknowledges them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from slotlab.games import find_game
from slotlab.server.services import profiles, rounds
from slotlab.store.models import PlayerLimit, utcnow

from .server_util import LiveServer, ServerClock, key

GAME = "classic-3x3"
BET = 5


@pytest.fixture
def server(serve_games: Callable[..., LiveServer]) -> LiveServer:
    return serve_games(GAME)


@pytest.fixture
def losing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every round loses its bet (a seed found once; the round replays as recorded)."""
    game = find_game(GAME)
    seed = next(s for s in (i.to_bytes(32, "big") for i in range(10_000))
                if game.play(BET, [s]).win == 0)
    monkeypatch.setattr(rounds, "fresh_seed", lambda: seed)


def _spin(c: Any) -> Any:
    return c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key())


def _limit(c: Any, kind: str, period: str) -> dict[str, Any]:
    (found,) = [x for x in c.get("/api/limits").json()["limits"]
                if x["kind"] == kind and x["period"] == period]
    return found


def test_a_loss_limit_refuses_the_bet_that_would_pass_it(server, losing):
    c, _ = server.player()
    assert c.put("/api/limits/loss/day", json={"amount": 12}).status_code == 200
    assert _spin(c).status_code == 201 and _spin(c).status_code == 201  # losses 10
    balance = c.get("/api/wallet").json()["balance"]
    refused = _spin(c)  # 10 + 5 > 12
    assert refused.status_code == 409
    body = refused.json()
    assert body["error"]["code"] == "loss_limit_reached"
    assert body["limit"] == 12 and body["used"] == 10 and body["period"] == "day"
    assert c.get("/api/wallet").json()["balance"] == balance
    assert len(c.get("/api/history").json()["rounds"]) == 2
    assert _limit(c, "loss", "day")["used"] == 10
    # A limit over a longer period binds too, whichever is tighter.
    c2, _ = server.player()
    c2.put("/api/limits/loss/day", json={"amount": 1000})
    c2.put("/api/limits/loss/month", json={"amount": 7})
    assert _spin(c2).status_code == 201 and _spin(c2).status_code == 409


def test_bets_sent_at_once_cannot_pass_a_loss_limit_together(server, losing):
    """The losses are counted with the wallet locked, in the bet's own transaction: counted
    before it, each of several bets sent at once passed on the losses before the others."""
    c, _ = server.player()
    assert c.put("/api/limits/loss/day", json={"amount": 7}).status_code == 200  # one bet of 5

    def spin(_: int) -> int:
        with httpx.Client(base_url=server.url, headers=c.headers, timeout=60) as other:
            return int(_spin(other).status_code)

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(spin, range(8)))
    assert codes.count(201) == 1, codes
    assert _limit(c, "loss", "day")["used"] == 5


def test_lowering_applies_at_once_and_raising_after_a_cooling_off_day(server, losing):
    c, _ = server.player()
    c.put("/api/limits/loss/week", json={"amount": 100})
    c.put("/api/limits/loss/week", json={"amount": 200})
    raised = _limit(c, "loss", "week")
    assert raised["amount"] == 100 and raised["pending_amount"] == 200
    assert raised["pending_from"] is not None
    c.put("/api/limits/loss/week", json={"amount": 6})  # lower: at once, the raise dropped
    lowered = _limit(c, "loss", "week")
    assert lowered["amount"] == 6 and lowered["pending_amount"] is None
    assert _spin(c).status_code == 201 and _spin(c).status_code == 409
    # A removal waits a day as well; once the day has passed, it holds.
    c.put("/api/limits/loss/week", json={"amount": None})
    assert _limit(c, "loss", "week")["amount"] == 6 and _spin(c).status_code == 409
    with server.ctx.db.write() as s:
        s.execute(update(PlayerLimit).values(pending_from=utcnow() - timedelta(seconds=1)))
    assert _limit(c, "loss", "week")["amount"] is None
    assert _spin(c).status_code == 201


@pytest.mark.parametrize("path, body", [
    ("/api/limits/loss/year", {"amount": 5}),
    ("/api/limits/bets/day", {"amount": 5}),
    ("/api/limits/loss/day", {"amount": 0}),
    ("/api/limits/loss/day", {"amount": -5}),
    ("/api/limits/loss/day", {"amount": "5"}),
    ("/api/limits/loss/day", {}),
])
def test_a_bad_limit_is_refused_and_changes_nothing(server, path: str, body: dict[str, Any]):
    c, _ = server.player()
    c.put("/api/limits/loss/day", json={"amount": 50})
    r = c.put(path, json=body)
    assert r.status_code == 422 and "error" in r.json()
    assert _limit(c, "loss", "day")["amount"] == 50


@pytest.mark.parametrize("period", ["day", "week", "month"])
def test_a_deposit_limit_refuses_the_credit_that_would_pass_it(server, period):
    c, username = server.player()
    admin = server.admin()
    assert c.put(f"/api/limits/deposit/{period}", json={"amount": 150}).status_code == 200
    ok = admin.post(f"/api/admin/players/{username}/credit", json={"amount": 100},
                    headers=key())
    assert ok.status_code == 200
    balance = c.get("/api/wallet").json()["balance"]
    refused = admin.post(f"/api/admin/players/{username}/credit", json={"amount": 100},
                         headers=key())
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "deposit_limit_exceeded"
    assert c.get("/api/wallet").json()["balance"] == balance
    assert _limit(c, "deposit", period)["used"] == 100
    assert admin.post(f"/api/admin/players/{username}/credit", json={"amount": 50},
                      headers=key()).status_code == 200  # up to the limit exactly
    assert server.admin().get("/api/admin/audit").json()["ok"]


def test_a_reality_check_stops_play_until_acknowledged(server, monkeypatch, losing):
    interval = 600  # the session clock moves it on (inside the idle timeout of 30 minutes)
    monkeypatch.setitem(profiles.PROFILES, "mt",
                        dataclasses.replace(profiles.PROFILES["mt"], reality_check_s=interval))
    clock = ServerClock(monkeypatch)
    c, _ = server.player()
    assert _spin(c).status_code == 201  # inside the first interval
    status = c.get("/api/session/reality-check").json()
    assert status["interval_s"] == interval and status["net_position"] == -BET
    clock.advance(interval)  # the interval itself: ten minutes of session time
    balance = c.get("/api/wallet").json()["balance"]
    for _ in range(2):  # every round is refused until the reminder is acknowledged
        due = _spin(c)
        assert due.status_code == 409 and due.json()["error"]["code"] == "reality_check_due"
    figures = due.json()["reality_check"]
    assert figures["net_position"] == -BET and figures["elapsed_s"] >= interval
    assert c.get("/api/wallet").json()["balance"] == balance
    ack = c.post("/api/session/reality-check")
    assert ack.status_code == 200 and 0 < ack.json()["due_in_s"] <= interval
    assert _spin(c).status_code == 201
    clock.advance(interval)  # the next interval counts from the acknowledgement
    assert _spin(c).status_code == 409


def test_without_a_required_reminder_play_is_never_stopped(server):
    c, _ = server.player()
    assert c.get("/api/session/reality-check").json()["interval_s"] is None
    assert profiles.PROFILES["gb"].reality_check_s == 3600
