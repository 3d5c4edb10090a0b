"""Demo mode (issue 15, R23): anonymous play money with the same math as real play, nothing
kept after the demo session ends, never in a report of real money, off per jurisdiction, and
its creation limited per client address. Over real HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, update

from slotlab.server.services import rounds
from slotlab.store import models
from slotlab.store.models import JackpotEntry, LoginLimit, Player, Session, utcnow

from .server_games import PickGame, make_test_games
from .server_util import LiveServer, key

SEED_GAMES = ("super-12-stars", "superstars", "crystal-star-deluxe", "fruit-5x3", "classic-3x3")
# Every table that holds a player's data (login_limits holds counters per address, no player).
PLAYER_TABLES = (models.Player, models.Wallet, models.LedgerEntry, models.Session,
                 models.Round, models.IdempotencyKey, models.PlayerLimit, models.RealityCheck,
                 models.AutoplayRun, models.FreeRoundPackage, models.AdminAction,
                 models.JackpotEntry)


def _demo(srv: LiveServer, headers: dict[str, str] | None = None) -> httpx.Client:
    with srv.client() as anon:
        r = anon.post("/api/demo", headers=headers or {})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["demo"] is True
    return srv.client(body["token"])


def _counts(srv: LiveServer) -> dict[str, int]:
    with srv.ctx.db.read() as s:
        return {m.__tablename__: int(s.scalar(select(func.count()).select_from(m)) or 0)
                for m in PLAYER_TABLES}


def _round(c: httpx.Client, game: str, bet: int, **extra: Any) -> dict[str, Any]:
    r = c.post(f"/api/games/{game}/rounds", json={"bet": bet, **extra}, headers=key())
    assert r.status_code == 201, r.text
    return dict(r.json())


def _finish(c: httpx.Client, r: dict[str, Any]) -> None:
    """Answer a waiting round (collect a gamble, else the first option) until it completes."""
    for _ in range(500):
        if r["status"] != "awaiting_choice":
            return
        options = r["awaiting"]["options"]
        choice = "collect" if "collect" in options else options[0]
        res = c.post(f"/api/rounds/{r['round_id']}/choices",
                     json={"choice": choice, "step": r["step"]}, headers=key())
        assert res.status_code == 200, res.text
        r = res.json()
    raise AssertionError("the round did not complete")


def test_a_demo_round_of_each_seed_game_is_the_real_round_of_its_seed(serve_games, monkeypatch):
    """R23: the same seed gives a demo player exactly the round a real player gets."""
    srv = serve_games(*SEED_GAMES)
    fresh = rounds.fresh_seed
    real, _ = srv.player()
    demo = _demo(srv)
    listing = {g["id"]: g for g in real.get("/api/games").json()}
    for game in SEED_GAMES:
        seed = hashlib.sha256(f"demo-same-math:{game}".encode()).digest()
        queue = [seed, seed]  # the next two rounds drawn: the real one, then the demo one
        monkeypatch.setattr(rounds, "fresh_seed", lambda q=queue: q.pop(0) if q else fresh())
        bet = listing[game]["bets"][0]
        a, b = _round(real, game, bet), _round(demo, game, bet)
        assert queue == []
        for k in ("events", "win", "jackpots", "status", "awaiting", "model_hash", "variant"):
            assert a[k] == b[k], (game, k)
        _finish(real, a)
        _finish(demo, b)
        assert demo.get(f"/api/rounds/{b['round_id']}/replay").json()["identical"]
    history = demo.get("/api/history?limit=10").json()["rounds"]
    assert [h["game"] for h in reversed(history)] == list(SEED_GAMES)


def test_a_demo_session_is_a_play_money_player_nobody_can_find(make_server):
    srv = make_server(demo_balance=777)
    demo = _demo(srv)
    session = demo.get("/api/session").json()
    assert session["demo"] is True
    assert session["wallet"]["balance"] == 777
    name = session["player"]["username"]
    real, _ = srv.player()
    assert real.get("/api/session").json()["demo"] is False
    # No username finds it: nothing can be deposited, withdrawn, granted or logged in.
    admin = srv.admin()
    for path, body in ((f"/api/admin/players/{name}/credit", {"amount": 100}),
                       (f"/api/admin/players/{name}/debit", {"amount": 100})):
        r = admin.post(path, json=body)
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_player", r.text
    assert admin.put(f"/api/admin/players/{name}/jurisdiction",
                     json={"jurisdiction": "gb"}).status_code == 404
    with srv.client() as anon:
        r = anon.post("/api/sessions", json={"username": name, "password": "!"})
        assert r.status_code in (401, 422), r.text
    assert demo.get("/api/wallet").json()["balance"] == 777  # unchanged by any of it
    # It plays through the same endpoints: a round, a choice, history, replay.
    r = _round(demo, "pick-test", 5)
    assert r["status"] == "awaiting_choice"
    assert demo.post(f"/api/rounds/{r['round_id']}/choices",
                     json={"choice": "left", "step": r["step"]},
                     headers=key()).status_code == 200
    assert len(demo.get("/api/history").json()["rounds"]) == 1
    assert demo.get(f"/api/rounds/{r['round_id']}/replay").json()["identical"]
    assert admin.get("/api/admin/audit").json()["ok"]


def _end_by(srv: LiveServer, demo: httpx.Client, how: str) -> None:
    if how == "logout":
        assert demo.delete("/api/sessions/current").status_code == 204
        return
    past = utcnow() - timedelta(seconds=1)
    column = {"expiry": {"expires_at": past},
              "idle": {"last_seen": past - timedelta(seconds=srv.settings.session_idle_s)}}[how]
    with srv.ctx.db.write() as s:  # the clock moved on: the session's end has passed
        s.execute(update(Session).where(Session.player_id.in_(
            select(Player.id).where(Player.demo))).values(**column))
    srv.ctx.auth_cache.clear()
    code = demo.get("/api/session").json()["error"]["code"]
    assert code == {"expiry": "session_expired", "idle": "session_idle"}[how]


@pytest.mark.parametrize("how", ["logout", "expiry", "idle"])
def test_nothing_of_a_demo_is_left_after_it_ends_and_the_sweep_runs(make_server, how):
    srv = make_server()
    real, _ = srv.player()
    _round(real, "instant-test", 5)
    _round(real, "jackpot-test", 10)
    before = _counts(srv)
    demo = _demo(srv)
    for game, bet in (("instant-test", 5), ("jackpot-test", 10), ("instant-test", 1)):
        _round(demo, game, bet)
    assert demo.put("/api/limits/loss/day", json={"amount": 5000}).status_code == 200
    run = demo.post("/api/autoplay", json={"game": "instant-test", "rounds": 5})
    assert run.status_code == 201, run.text
    _round(demo, "instant-test", 5, autoplay={"run_id": run.json()["run_id"]})
    _round(demo, "pick-test", 5)  # left waiting for its choice
    during = _counts(srv)
    assert during["players"] == before["players"] + 1 and during["rounds"] == before["rounds"] + 5
    # A live demo session is kept by the sweep.
    assert srv.admin().post("/api/admin/maintenance").json()["demo_players_deleted"] == 0
    assert _counts(srv) == during
    _end_by(srv, demo, how)
    assert srv.admin().post("/api/admin/maintenance").json()["demo_players_deleted"] == 1
    assert _counts(srv) == before
    with srv.ctx.db.read() as s:
        assert s.scalar(select(func.count()).select_from(Player).where(Player.demo)) == 0
    assert real.get("/api/history").json()["rounds"][0]["game"] == "jackpot-test"
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_demo_rounds_are_absent_from_the_reports(make_server):
    srv = make_server()
    real, _ = srv.player()
    demo = _demo(srv)
    real_bets = [_round(real, "instant-test", b)["bet"] for b in (1, 2, 5)]
    for b in (10, 10, 5, 5, 1):
        _round(demo, "instant-test", b)
    admin = srv.admin()
    (game,) = [g for g in admin.get("/api/admin/reports/games").json()["games"]
               if g["game"] == "instant-test"]
    real_rounds = real.get("/api/history").json()["rounds"]
    assert game["rounds"] == 3 and game["total_bet"] == sum(real_bets)
    assert game["total_win"] == sum(r["win"] for r in real_rounds)
    assert sorted(lv["bet"] for lv in game["bets"]) == [1, 2, 5]
    today = admin.get("/api/admin/reports/daily?days=1").json()["days"][0]
    assert today["rounds"] == 3
    assert [(g["game"], g["rounds"], g["total_bet"]) for g in today["games"]] == [
        ("instant-test", 3, sum(real_bets))]


def test_demo_play_never_moves_a_progressive_pool(make_server):
    srv = make_server()
    demo = _demo(srv)
    pools = demo.get("/api/jackpots").json()["jackpots"]
    with srv.ctx.db.read() as s:
        entries = s.scalar(select(func.count()).select_from(JackpotEntry))
    before = demo.get("/api/wallet").json()["balance"]
    r = _round(demo, "jackpot-test", 10)  # max bet: every round wins the top tier
    top = next(p for p in pools if p["tier"] == "top")
    # No contribution; the tier pays its reset value in play money; the pool stays as it was.
    assert r["jackpots"] == [{"tier": "top", "amount": top["reset"], "demo": True}]
    assert r["jackpot_win"] == top["reset"]
    assert demo.get("/api/wallet").json()["balance"] == before - 10 + r["win"] + top["reset"]
    assert demo.get("/api/jackpots").json()["jackpots"] == pools
    with srv.ctx.db.read() as s:
        assert s.scalar(select(func.count()).select_from(JackpotEntry)) == entries
    assert srv.admin().get("/api/admin/audit").json()["ok"]
    # A real player's max-bet round contributes as always.
    real, _ = srv.player()
    _round(real, "jackpot-test", 10)
    assert real.get("/api/jackpots").json()["jackpots"] != pools


@pytest.mark.parametrize(("jurisdiction", "enabled", "code"), [
    ("gb", True, "demo_not_allowed"),  # age verification before free play
    ("nj", True, "demo_not_allowed"),  # slotlab's cautious default
    ("mt", False, "demo_disabled"),  # switched off by the operator's setting
])
def test_demo_off_answers_403_and_says_so(make_server, jurisdiction, enabled, code):
    srv = make_server(jurisdiction=jurisdiction, demo_enabled=enabled,
                      min_round_interval_ms=2500 if jurisdiction == "gb" else 0)
    with srv.client() as anon:
        offer = anon.get("/api/demo").json()
        assert offer["enabled"] is False and offer["code"] == code
        r = anon.post("/api/demo")
    assert r.status_code == 403 and r.json()["error"]["code"] == code, r.text
    if jurisdiction == "gb":
        assert "age verification" in r.json()["error"]["message"]
    with srv.ctx.db.read() as s:
        assert s.scalar(select(func.count()).select_from(Player)) == 0


@pytest.mark.parametrize("jurisdiction", ["mt", "on"])
def test_demo_is_offered_in_mt_and_on(make_server, jurisdiction):
    srv = make_server(jurisdiction=jurisdiction)
    with srv.client() as anon:
        offer = anon.get("/api/demo").json()
    assert offer["enabled"] is True and offer["code"] is None
    assert offer["balance"] == srv.settings.demo_balance
    _demo(srv)


@pytest.fixture
def start(make_server: Callable[..., LiveServer]) -> Callable[..., LiveServer]:
    """Servers on the test's games as ``slotlab serve`` runs them: the app alone decides which
    X-Forwarded-For to believe."""
    return functools.partial(make_server, proxy_headers=False)


def test_demo_sessions_are_limited_per_client_address(start):
    srv = start(demo_limit_per_address=3, trusted_proxies=["127.0.0.1"])
    first = {"X-Forwarded-For": "203.0.113.7"}
    for _ in range(3):
        _demo(srv, first)
    with srv.client() as anon:
        r = anon.post("/api/demo", headers=first)
        assert r.status_code == 429, r.text
        assert r.json()["error"]["code"] == "too_many_demo_sessions"
        assert int(r.headers["Retry-After"]) >= 1
        # Another address (as the trusted proxy says) still gets one.
        assert anon.post("/api/demo", headers={"X-Forwarded-For": "203.0.113.8"}
                         ).status_code == 201
    with srv.ctx.db.read() as s:  # the refused one created nothing
        assert s.scalar(select(func.count()).select_from(Player).where(Player.demo)) == 4


def test_forwarded_for_is_ignored_without_a_trusted_proxy(start):
    srv = start(demo_limit_per_address=2)
    with srv.client() as anon:
        codes = [anon.post("/api/demo", headers={"X-Forwarded-For": f"198.51.100.{i}"}
                           ).status_code for i in range(3)]
    assert codes == [201, 201, 429]  # all from 127.0.0.1, whatever they claim


def test_server_processes_share_the_demo_session(make_server):
    """The demo session lives in the database: a second server process on it serves it."""
    one = make_server()
    two = make_server(games=make_test_games())
    with one.client() as anon:
        token = anon.post("/api/demo").json()["token"]
    with two.client(token) as c:
        assert c.get("/api/session").json()["demo"] is True
        r = c.post("/api/games/instant-test/rounds", json={"bet": 5}, headers=key())
        assert r.status_code == 201, r.text
    with one.client(token) as c:
        assert c.get("/api/history").json()["rounds"][0]["round_id"] == r.json()["round_id"]


def test_a_max_bet_without_progressives_is_unaffected(make_server):
    """The demo check sits on the progressive path only; other games play as before."""
    srv = make_server(games={"plain": PickGame("plain", pick=False)})
    demo = _demo(srv)
    assert _round(demo, "plain", 10)["jackpots"] == []


def test_the_sweep_keeps_demo_counters_for_their_own_window(make_server):
    """Demo-session counters share the login counters' table; the sweep drops each kind only
    once its own window has passed."""
    srv = make_server(demo_limit_per_address=1, login_limit_window_s=60,
                      login_delay_memory_s=60, demo_limit_window_s=3600)
    _demo(srv)
    with srv.client() as anon:
        assert anon.post("/api/sessions", json={"username": "nobody", "password": "x"}
                         ).status_code == 401  # counted per address and in two streaks

    def age(seconds: int) -> dict[str, int]:
        with srv.ctx.db.write() as s:
            s.execute(update(LoginLimit).values(
                window_start=utcnow() - timedelta(seconds=seconds)))
        srv.admin().post("/api/admin/maintenance")
        with srv.ctx.db.read() as s:
            return {k[:2]: n for k, n in s.execute(select(LoginLimit.key, LoginLimit.attempts))}

    assert age(120) == {"d:": 1}  # the login window (60 s) has passed, the demo one has not
    with srv.client() as anon:
        assert anon.post("/api/demo").status_code == 429
    assert age(3601) == {}
    _demo(srv)
