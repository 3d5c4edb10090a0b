"""Live RTP monitoring and daily reports (issue 5) over real HTTP, SQLite and PostgreSQL."""

from __future__ import annotations

import math

from sqlalchemy import func, select

from slotlab.games import find_game
from slotlab.store.models import LedgerEntry

from .server_games import PickGame
from .server_util import key

Z99 = 2.5758293035489004


class ExactGame(PickGame):
    """A test game that knows its standard deviation: prizes 0..x x bet, equally likely."""

    def sd(self) -> float:
        x = self.prize_x
        return math.sqrt(((x + 1) ** 2 - 1) / 12)


class RiggedGame(ExactGame):
    """Claims the fair game's RTP (1.5) and SD but never pays: the alert case."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id, pick=False, prize_x=0)
        self.model_hash = "rigged-" + self.model_hash[7:]

    def theoretical_rtp(self) -> float:
        return 1.5

    def sd(self) -> float:
        return math.sqrt(15 / 12)


def _ledger_sum(srv, *kinds: str) -> int:
    with srv.ctx.db.read() as s:
        return int(s.scalar(select(func.coalesce(func.sum(LedgerEntry.amount), 0))
                            .where(LedgerEntry.kind.in_(kinds))) or 0)


def test_games_report_matches_the_ledger_and_flags_an_rtp_far_off(make_server):
    games = {"fair-test": ExactGame("fair-test", pick=False), "rigged-test": RiggedGame(
        "rigged-test")}
    srv = make_server(games=games)
    c, username = srv.player()
    bets = {1: 0, 5: 0}
    for i in range(60):
        bet = 1 if i % 3 else 5
        r = c.post("/api/games/fair-test/rounds", json={"bet": bet}, headers=key())
        assert r.status_code == 201
        bets[bet] += 1
    for _ in range(30):
        assert c.post("/api/games/rigged-test/rounds", json={"bet": 2}, headers=key()
                      ).status_code == 201
    # A free round is not a paid round: counted apart, outside the money figures.
    pkg = srv.admin().post("/api/admin/free-rounds", json={
        "username": username, "game": "fair-test", "bet": 10, "rounds": 1,
        "expires_at": "2099-01-01T00:00:00Z"}).json()["id"]
    free = c.post("/api/games/fair-test/rounds", json={"bet": 10, "free_round_id": pkg},
                  headers=key()).json()
    rep = srv.admin().get("/api/admin/reports/games")
    assert rep.status_code == 200
    by = {g["game"]: g for g in rep.json()["games"]}
    fair, rigged = by["fair-test"], by["rigged-test"]
    # Figures equal the ledger.
    assert fair["total_bet"] + rigged["total_bet"] == -_ledger_sum(srv, "bet")
    assert fair["total_win"] + rigged["total_win"] == _ledger_sum(srv, "win", "jackpot")
    assert fair["free_rounds"] == 1 and fair["free_round_win"] == free["win"]
    assert fair["free_round_win"] == _ledger_sum(srv, "free_round_win")
    assert fair["rounds"] == 60 and fair["total_bet"] == bets[1] + 5 * bets[5]
    assert [(lv["bet"], lv["rounds"]) for lv in fair["bets"]] == [(1, bets[1]), (5, bets[5])]
    for lv in fair["bets"]:
        assert lv["theoretical_rtp"] == 1.5 and lv["sd_source"] == "model"
        half = Z99 * math.sqrt(15 / 12) / math.sqrt(lv["rounds"])
        low, high = lv["interval_99"]
        assert math.isclose(low, 1.5 - half) and math.isclose(high, 1.5 + half)
        assert lv["observed_rtp"] == lv["total_win"] / lv["total_bet"]
        assert lv["alert"] == (not low <= lv["observed_rtp"] <= high)
    # The whole game: levels weighted by their bets.
    var = sum(lv["rounds"] * lv["bet"] ** 2 * 15 / 12 for lv in fair["bets"])
    half = Z99 * math.sqrt(var) / fair["total_bet"]
    assert math.isclose(fair["interval_99"][0], 1.5 - half)
    assert fair["alert"] == (not fair["interval_99"][0] <= fair["observed_rtp"]
                             <= fair["interval_99"][1])
    # The rigged game: 0 observed against 1.5 +/- 0.53: outside, alert.
    assert rigged["observed_rtp"] == 0 and rigged["theoretical_rtp"] == 1.5
    assert rigged["alert"] is True and rigged["bets"][0]["alert"] is True
    assert {"game": "rigged-test", "currency": "EUR", "bet": 2} in rep.json()["alerts"]
    # Daily totals: today has everything.
    daily = srv.admin().get("/api/admin/reports/daily?days=3").json()["days"]
    assert len(daily) == 3 and daily[1]["rounds"] == daily[2]["rounds"] == 0
    today = {g["game"]: g for g in daily[0]["games"]}
    assert today["fair-test"]["total_bet"] == fair["total_bet"]
    assert today["fair-test"]["total_win"] == fair["total_win"]
    assert today["rigged-test"]["rounds"] == 30 and today["rigged-test"]["total_win"] == 0
    (eur,) = daily[0]["currencies"]  # one currency played: one total
    assert eur["currency"] == "EUR" and eur["total_bet"] == -_ledger_sum(srv, "bet")
    assert srv.admin().get("/api/admin/reports/daily?days=0").status_code == 422
    with srv.client() as anon:
        assert anon.get("/api/admin/reports/games").status_code == 401


def test_line_game_sd_comes_from_a_cached_simulation(make_server):
    game = find_game("classic-3x3")
    srv = make_server(games={"classic-3x3": game})
    c, _ = srv.player()
    bet = game.bets()[0]
    for _ in range(5):
        r = c.post("/api/games/classic-3x3/rounds", json={"bet": bet}, headers=key())
        assert r.status_code == 201
        if r.json()["status"] == "awaiting_choice":  # a win offers the gamble: take the win
            r = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                       json={"choice": "collect", "step": r.json()["step"]}, headers=key())
            assert r.status_code == 200 and r.json()["status"] == "completed"
    rep = srv.admin().get("/api/admin/reports/games").json()
    (g,) = rep["games"]
    (lv,) = g["bets"]
    assert lv["sd_source"] == "simulation" and 3 < lv["sd"] < 7
    assert math.isclose(lv["theoretical_rtp"], game.theoretical_rtp())
    half = Z99 * lv["sd"] / math.sqrt(5)
    assert math.isclose(lv["interval_99"][1], lv["theoretical_rtp"] + half)
    again = srv.admin().get("/api/admin/reports/games").json()["games"][0]["bets"][0]
    assert again["sd"] == lv["sd"]  # the same cached figure
