"""Jurisdiction profiles (issue 5): told to the client in the session, enforced by the server."""

from __future__ import annotations

from typing import Any

from slotlab.rounds import RoundResult
from slotlab.server import fast_rounds
from slotlab.server.services import auth, rounds

from .server_games import PickGame, make_test_games
from .server_util import ServerClock, key

STOPS = ["rounds", "any_win", "single_win_above", "balance_up_by", "balance_down_by"]


class FixedWin(PickGame):
    """Every round wins ``times`` x the bet: 1 = a win equal to the stake (not above it)."""

    def __init__(self, game_id: str, times: int) -> None:
        super().__init__(game_id, pick=False)
        self.times = times
        self.model_hash = f"fixed-{times}-" + self.model_hash[:40]

    def play(self, bet: int, seeds: Any, choices: Any = ()) -> RoundResult:
        win = self.times * bet
        return RoundResult(self.id, self.model_hash, bet,
                           ({"type": "round_ended", "win": win},), win, None)


def _games() -> dict[str, Any]:
    games = make_test_games()
    games["even-test"] = FixedWin("even-test", 1)
    games["double-test"] = FixedWin("double-test", 2)
    return games


def test_gb_profile(make_server, monkeypatch):
    srv = make_server(games=_games(), jurisdiction="gb")
    clock = ServerClock(monkeypatch, (auth, rounds, fast_rounds))  # the pace: the test's time
    c, _ = srv.player()
    j = c.get("/api/session").json()["jurisdiction"]
    assert j["id"] == "gb"
    assert (j["autoplay"], j["quick_stop"], j["turbo"]) == (False, False, False)
    assert j["min_cycle_ms"] == 2500 and j["celebrate_small_wins"] is False
    assert j["session_with_rounds"] is True and j["autoplay_stop_conditions"] == []
    r = c.post("/api/games/even-test/rounds", json={"bet": 5}, headers=key())
    body = r.json()
    assert r.status_code == 201 and body["win"] == 5
    assert body["celebrate"] is False  # a win equal to the stake is no celebration
    assert body["session"]["net_position"] == 0 and body["session"]["elapsed_s"] >= 0
    # A round started less than 2.5 s after the previous one started: 429, nothing moves.
    r = c.post("/api/games/double-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_fast"
    assert c.get("/api/wallet").json()["balance"] == 100_000
    clock.advance(2.5)
    r = c.post("/api/games/double-test/rounds", json={"bet": 5}, headers=key())
    body = r.json()
    assert r.status_code == 201 and body["celebrate"] is True  # 2 x the stake
    assert body["session"]["net_position"] == 5


def test_mt_profile_is_the_default(make_server):
    srv = make_server(games=_games())
    c, _ = srv.player()
    j = c.get("/api/session").json()["jurisdiction"]
    assert j["id"] == "mt" and j["autoplay"] is True and j["quick_stop"] is True
    assert j["autoplay_stop_conditions"] == STOPS and j["min_cycle_ms"] == 0
    for game in ("even-test", "even-test", "double-test"):  # no minimum cycle
        r = c.post(f"/api/games/{game}/rounds", json={"bet": 5}, headers=key())
        assert r.status_code == 201
        assert r.json()["celebrate"] is True and "session" not in r.json()
    r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key()).json()
    assert r["celebrate"] is (r["win"] > 0)


def test_per_player_override(make_server):
    srv = make_server(games=_games())
    c, username = srv.player()
    admin = srv.admin()
    r = admin.put(f"/api/admin/players/{username}/jurisdiction", json={"jurisdiction": "gb"})
    assert r.status_code == 200 and r.json()["profile"]["id"] == "gb"
    assert c.get("/api/session").json()["jurisdiction"]["id"] == "gb"
    other, _ = srv.player()
    assert other.get("/api/session").json()["jurisdiction"]["id"] == "mt"
    body = c.post("/api/games/even-test/rounds", json={"bet": 5}, headers=key()).json()
    assert body["celebrate"] is False and "net_position" in body["session"]
    r = c.post("/api/games/even-test/rounds", json={"bet": 5}, headers=key())
    assert r.status_code == 429
    r = admin.put(f"/api/admin/players/{username}/jurisdiction", json={"jurisdiction": None})
    assert r.status_code == 200 and r.json()["profile"]["id"] == "mt"
    assert c.get("/api/session").json()["jurisdiction"]["id"] == "mt"
    assert c.post("/api/games/even-test/rounds", json={"bet": 5}, headers=key()
                  ).status_code == 201
    r = admin.put(f"/api/admin/players/{username}/jurisdiction", json={"jurisdiction": "xx"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "unknown_jurisdiction"
    r = admin.put("/api/admin/players/ghost-user/jurisdiction", json={"jurisdiction": "gb"})
    assert r.status_code == 404
