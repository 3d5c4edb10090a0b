"""Players of several currencies on one server (issue 15): a COP player and a EUR player play the
same games side by side; ladders, cash caps, pools, history and reports stay apart and exact.
On SQLite and PostgreSQL (the ``make_server`` fixtures)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from slotlab.server.services import rounds
from slotlab.server.services.catalog import MICRO, load_catalog
from slotlab.server.settings import Settings

from .server_games import PickGame
from .server_util import LiveServer, key

# COP with its ISO 4217 two decimals: 1 peso = 100 minor units. A credit of "big-test" is worth
# 5,000 pesos; the high bet (10 credits) is COP 50,000, where 10,000x is COP 500,000,000 and the
# cash cap of COP 350,000,000 binds first.
COP_CAP = 350_000_000 * 100
COP_DENOM = 500_000
COP_LADDER = [2 * COP_DENOM, 10 * COP_DENOM]  # COP 10,000 and COP 50,000: not EUR's x anything
CURRENCIES: dict[str, Any] = {
    "COP": {"decimals": 2, "default_denomination": 100_000, "cash_cap": COP_CAP,
            "play_money_balance": 10**12,  # COP 10,000,000,000 to play the high bet
            "games": {"big-test": {"denomination": COP_DENOM, "bets": COP_LADDER}}},
    "JPY": {"decimals": 0, "default_denomination": 1},  # JPY pools share EUR's denomination
}
EUR_CAP = 25_000_000  # EUR 250,000


def _games() -> dict[str, Any]:
    big = PickGame("big-test", pick=False, prize_x=10_000)  # up to 10,000x, like Superstars
    jackpot = PickGame("jackpot-test", pick=False, jackpot="top")
    return {g.id: g for g in (big, jackpot)}


@pytest.fixture
def srv(make_server: Any) -> LiveServer:
    return make_server(games=_games(), currencies=CURRENCIES, cash_caps={"EUR": EUR_CAP})  # type: ignore[no-any-return]


def _player(srv: LiveServer, currency: str | None) -> httpx.Client:
    name = f"p{uuid.uuid4().hex[:10]}"
    body = {"username": name, "password": "correct horse 1"}
    if currency is not None:
        body["currency"] = currency
    with srv.client() as c:
        r = c.post("/api/players", json=body)
        assert r.status_code == 201, r.text
        token = c.post("/api/sessions", json={"username": name, "password": "correct horse 1"}
                       ).json()["token"]
    return srv.client(token)


def _round(c: httpx.Client, game: str, bet: int) -> dict[str, Any]:
    r = c.post(f"/api/games/{game}/rounds", json={"bet": bet}, headers=key())
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def test_registration_takes_an_offered_currency_only(srv: LiveServer) -> None:
    eur, cop, jpy = _player(srv, None), _player(srv, "COP"), _player(srv, "JPY")
    assert eur.get("/api/wallet").json() == {"balance": 100_000, "currency": "EUR",
                                             "decimals": 2, "source": "internal"}
    assert cop.get("/api/wallet").json() == {"balance": 10**12, "currency": "COP",
                                             "decimals": 2, "source": "internal"}
    assert jpy.get("/api/wallet").json()["decimals"] == 0
    with srv.client() as c:
        r = c.post("/api/players", json={"username": "usd-player", "password": "correct horse 1",
                                         "currency": "USD"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "currency_not_offered"
        assert "COP" in r.json()["error"]["message"]
        r = c.post("/api/players", json={"username": "low-player", "password": "correct horse 1",
                                         "currency": "cop"})
        assert r.status_code == 422
        # Nothing was kept of the refused registrations: the names are free.
        assert c.post("/api/players", json={"username": "usd-player",
                                            "password": "correct horse 1"}).status_code == 201


def test_games_list_bets_in_the_players_currency(srv: LiveServer) -> None:
    eur, cop = _player(srv, "EUR"), _player(srv, "COP")
    mine = {g["id"]: g for g in cop.get("/api/games").json()}
    assert mine["big-test"]["bets"] == COP_LADDER and mine["big-test"]["bets_credits"] == [2, 10]
    assert mine["big-test"]["currency"] == "COP" and mine["big-test"]["decimals"] == 2
    assert mine["big-test"]["max_win_cash"] == COP_CAP
    assert mine["jackpot-test"]["bets"] == [100_000, 200_000, 500_000, 1_000_000]
    theirs = {g["id"]: g for g in eur.get("/api/games").json()}
    assert theirs["big-test"]["bets"] == [1, 2, 5, 10] and theirs["big-test"]["currency"] == "EUR"
    assert theirs["big-test"]["max_win_cash"] == EUR_CAP
    with srv.client() as anon:
        assert {g["currency"] for g in anon.get("/api/games").json()} == {"EUR"}
        jpy = anon.get("/api/games?currency=JPY").json()
        assert {(g["currency"], g["decimals"]) for g in jpy} == {("JPY", 0)}
        r = anon.get("/api/games?currency=USD")
        assert r.status_code == 422 and r.json()["error"]["code"] == "currency_not_offered"
        assert anon.get("/api/games/big-test?currency=COP").json()["bets"] == COP_LADDER
    # Each player's bets are their currency's ladder, and only those.
    r = eur.post("/api/games/big-test/rounds", json={"bet": COP_LADDER[0]}, headers=key())
    assert r.status_code == 422 and r.json()["error"]["code"] == "bet_not_allowed"
    r = cop.post("/api/games/big-test/rounds", json={"bet": 10}, headers=key())
    assert r.status_code == 422 and str(COP_LADDER) in r.json()["error"]["message"]
    r = cop.post("/api/games/big-test/rounds", json={"bet": 5 * COP_DENOM}, headers=key())
    assert r.status_code == 422  # 5 credits is a bet of the game, not of the COP ladder


def _big_seed(game: Any, credits: int, at_least_x: int) -> bytes:
    """The first seed (0, 1, 2, ...) whose round at ``credits`` pays at least ``at_least_x``."""
    for i in range(10_000):
        seed = i.to_bytes(32, "big")
        if game.play(credits, [seed], []).win >= at_least_x * credits:
            return seed
    raise AssertionError("no seed found")


def test_the_cop_cap_binds_before_10000x_at_a_high_cop_bet(srv: LiveServer,
                                                            monkeypatch: Any) -> None:
    eur, cop = _player(srv, "EUR"), _player(srv, "COP")
    game = srv.ctx.catalog.get("big-test").game
    seed = _big_seed(game, 10, 7_001)  # 7,001x of COP 50,000 is over COP 350,000,000
    prize_x = game.play(10, [seed], []).win // 10
    assert prize_x <= game.max_win_x() == 10_000
    queue = [seed, seed, seed]
    fresh = rounds.fresh_seed
    monkeypatch.setattr(rounds, "fresh_seed", lambda: queue.pop(0) if queue else fresh())

    high = _round(cop, "big-test", COP_LADDER[1])  # COP 50,000
    assert 10_000 * COP_LADDER[1] > COP_CAP  # at this bet the cash cap is the lower limit
    assert high["currency"] == "COP" and high["decimals"] == 2
    assert high["win"] == COP_CAP  # COP 350,000,000.00 exactly
    rec = cop.get(f"/api/rounds/{high['round_id']}").json()
    assert rec["uncapped_win"] == prize_x * COP_LADDER[1] > COP_CAP
    assert cop.get("/api/wallet").json()["balance"] == 10**12 - COP_LADDER[1] + COP_CAP

    low = _round(cop, "big-test", COP_LADDER[0])  # COP 10,000: the same multiple is below cap
    assert low["win"] == prize_x * COP_LADDER[0] < COP_CAP

    # The same round for the EUR player at EUR 0.10: 10,000x binds, EUR's cap is far above.
    same = _round(eur, "big-test", 10)
    assert same["currency"] == "EUR" and same["win"] == prize_x * 10 < EUR_CAP
    assert cop.get(f"/api/rounds/{high['round_id']}/replay").json()["identical"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_a_games_own_cash_cap_applies_without_an_operator_setting(make_server: Any,
                                                                  monkeypatch: Any) -> None:
    """A game that ships its cap (whole units per currency, as Superstars' COP 350,000,000)
    caps its rounds with no operator setting; with both, the lower applies."""
    capped = PickGame("capped-test", pick=False, prize_x=10_000, cash_caps={"JPY": 20_000})
    games = {"capped-test": capped, "big-test": PickGame("big-test", pick=False,
                                                          prize_x=10_000)}
    srv = make_server(games=games, currencies={
        "JPY": {"decimals": 0, "default_denomination": 1, "play_money_balance": 10**6}})
    jpy = _player(srv, "JPY")
    listed = {g["id"]: g["max_win_cash"] for g in jpy.get("/api/games").json()}
    assert listed == {"capped-test": 20_000, "big-test": None}  # JPY has 0 decimals
    seed = _big_seed(capped, 10, 5_000)  # 5,000x of JPY 10 is over JPY 20,000
    prize_x = capped.play(10, [seed], []).win // 10
    queue = [seed, seed]
    fresh = rounds.fresh_seed
    monkeypatch.setattr(rounds, "fresh_seed", lambda: queue.pop(0) if queue else fresh())
    won = _round(jpy, "capped-test", 10)
    assert won["win"] == 20_000 < prize_x * 10
    other = _round(jpy, "big-test", 10)  # the same outcome on a game without a cap
    assert other["win"] == prize_x * 10
    assert jpy.get(f"/api/rounds/{won['round_id']}/replay").json()["identical"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


@pytest.mark.parametrize(("operator_cap", "expected"), [(None, 350_000_000 * 100),
                                                         (10**9, 10**9),
                                                         (10**12, 350_000_000 * 100)])
def test_superstars_ships_its_cop_cap(operator_cap: int | None, expected: int) -> None:
    cop: dict[str, Any] = {"decimals": 2, "default_denomination": 1000}
    if operator_cap is not None:
        cop["cash_cap"] = operator_cap
    catalog = load_catalog(Settings(games=["superstars"], currencies={"COP": cop}))
    assert catalog.find("superstars", "COP").max_win_cash == expected  # the lower of the two
    assert catalog.find("superstars", "EUR").max_win_cash is None  # no EUR amount in the rules
    whole = load_catalog(Settings(games=["superstars"], currencies={"COP": {"decimals": 0}}))
    assert whole.find("superstars", "COP").max_win_cash == 350_000_000  # whole pesos


def _pools(c: httpx.Client, game: str) -> dict[tuple[str, str], int]:
    return {(j["currency"], j["tier"]): j["value_micro"]
            for j in c.get("/api/jackpots").json()["jackpots"] if j["game"] == game}


def test_pools_per_currency_history_and_reports_stay_apart(srv: LiveServer) -> None:
    eur, cop, jpy = _player(srv, "EUR"), _player(srv, "COP"), _player(srv, "JPY")
    before = _pools(eur, "jackpot-test")
    # One set per currency; JPY's pools share EUR's denomination (1) and are still their own.
    assert set(before) == {(c, t) for c in ("EUR", "COP", "JPY") for t in ("bottom", "top")}
    assert before[("EUR", "top")] == before[("JPY", "top")] == 1000 * MICRO
    assert before[("COP", "top")] == 1000 * 100_000 * MICRO
    entry = srv.ctx.catalog.get("jackpot-test", "COP")
    rate = {p.tier: p.rate for p in entry.progressives}

    def expected_award(currency: str, bet: int) -> int:
        value = before[(currency, "top")] + bet * MICRO * rate["top"].numerator // \
            rate["top"].denominator
        return value // MICRO

    won_cop = _round(cop, "jackpot-test", 1_000_000)  # max bet in COP: COP 10,000.00
    assert won_cop["jackpots"] == [{"tier": "top", "amount": expected_award("COP", 1_000_000)}]
    after_cop = _pools(eur, "jackpot-test")
    assert after_cop[("EUR", "top")] == before[("EUR", "top")]  # untouched by the COP round
    assert after_cop[("JPY", "bottom")] == before[("JPY", "bottom")]
    won_eur = _round(eur, "jackpot-test", 10)
    assert won_eur["jackpots"] == [{"tier": "top", "amount": expected_award("EUR", 10)}]
    won_jpy = _round(jpy, "jackpot-test", 10)
    assert won_jpy["jackpots"] == [{"tier": "top", "amount": expected_award("JPY", 10)}]
    cop_only = eur.get("/api/jackpots?currency=COP").json()["jackpots"]
    assert {(j["currency"], j["decimals"]) for j in cop_only} == {("COP", 2)}
    detail = cop.get("/api/games/jackpot-test").json()
    assert {j["currency"] for j in detail["jackpots"]} == {"COP"} and detail["decimals"] == 2

    # More play, then history and reports: each in its own currency, exact.
    played = {"COP": [won_cop], "EUR": [won_eur], "JPY": [won_jpy]}
    for c, cur, bet in ((cop, "COP", COP_LADDER[0]), (eur, "EUR", 2), (cop, "COP", COP_LADDER[1]),
                        (eur, "EUR", 5)):
        played[cur].append(_round(c, "big-test", bet))
    for c, cur in ((cop, "COP"), (eur, "EUR"), (jpy, "JPY")):
        hist = c.get("/api/history").json()["rounds"]
        assert {(h["currency"], h["decimals"]) for h in hist} == {
            (cur, 0 if cur == "JPY" else 2)}
        assert sorted(h["round_id"] for h in hist) == sorted(r["round_id"] for r in played[cur])
    report = srv.admin().get("/api/admin/reports/games").json()["games"]
    rows = {(g["game"], g["currency"]): g for g in report}
    for cur, rs in played.items():
        for gid in ("big-test", "jackpot-test"):
            mine = [r for r in rs if r["game"] == gid]
            row = rows[(gid, cur)]
            assert row["rounds"] == len(mine)
            assert row["total_bet"] == sum(r["bet"] for r in mine)
            assert row["total_win"] == sum(r["win"] + r["jackpot_win"] for r in mine)
    today = srv.admin().get("/api/admin/reports/daily?days=1").json()["days"][0]
    totals = {t["currency"]: t for t in today["currencies"]}
    assert set(totals) == {"COP", "EUR", "JPY"} and totals["JPY"]["decimals"] == 0
    for cur, rs in played.items():
        assert totals[cur]["total_bet"] == sum(r["bet"] for r in rs)
        assert totals[cur]["total_win"] == sum(r["win"] + r["jackpot_win"] for r in rs)
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_free_rounds_are_granted_on_the_players_ladder(srv: LiveServer) -> None:
    cop = _player(srv, "COP")
    name = cop.get("/api/session").json()["player"]["username"]
    grant = {"username": name, "game": "big-test", "rounds": 1,
             "expires_at": "2099-01-01T00:00:00Z"}
    r = srv.admin().post("/api/admin/free-rounds", json={**grant, "bet": 10}, headers=key())
    assert r.status_code == 422 and r.json()["error"]["code"] == "bet_not_allowed"
    r = srv.admin().post("/api/admin/free-rounds", json={**grant, "bet": COP_LADDER[0]},
                         headers=key())
    assert r.status_code == 201, r.text
    listed = cop.get("/api/free-rounds").json()
    assert listed["currency"] == "COP" and listed["decimals"] == 2


def test_currency_settings_are_checked_at_start_up() -> None:
    games = _games()
    with pytest.raises(ValueError, match="not an ISO 4217 code"):
        Settings(currencies={"cop": {"decimals": 2}})
    with pytest.raises(ValueError, match="decimals"):
        Settings(currencies={"COP": {}})
    with pytest.raises(ValueError, match="not multiples of the denomination 7"):
        Settings(currencies={"COP": {"decimals": 2, "default_denomination": 7,
                                     "games": {"big-test": {"bets": [14, 15]}}}})
    with pytest.raises(ValueError, match="SLOTLAB_CASH_CAPS names currencies"):
        Settings(cash_caps={"GBP": 100})
    bad = Settings(currencies={"COP": {"decimals": 2, "games": {"big-test": {"bets": [3]}}}})
    with pytest.raises(ValueError, match=r"big-test\.bets: \[3\] are not the denomination 1"):
        load_catalog(bad, games)
    typo = Settings(currencies={"COP": {"decimals": 2, "games": {"bigtest": {"bets": [1]}}}})
    with pytest.raises(ValueError, match="names games that are not offered"):
        load_catalog(typo, games)
    # The single-currency settings still make the default currency's terms.
    old = Settings(currency="GBP", currency_decimals=2, denominations={"big-test": 5},
                   cash_caps={"GBP": 1000})
    entry = load_catalog(old, games).get("big-test")
    assert (entry.currency, entry.denomination, entry.cash_cap) == ("GBP", 5, 1000)
    assert entry.bets_minor() == [5, 10, 25, 50]


def test_migration_0011_keeps_pools_and_entries_and_keys_them_by_currency(database: Any
                                                                          ) -> None:
    from sqlalchemy import text

    from slotlab.store import Database
    from slotlab.store.engine import migrate

    db = Database(database.url)
    try:
        migrate(db.engine, "0010")
        pool = ("INSERT INTO jackpot_pools (id, game_id, denomination, tier, currency, "
                "reset_micro, rate, value_micro) VALUES (:id, 'jackpot-test', 1, 'top', :cur, "
                "1000, '1/250', 1500)")
        with db.engine.begin() as c:
            c.execute(text(pool), {"id": 1, "cur": "EUR"})
            c.execute(text("INSERT INTO jackpot_entries (id, pool_id, kind, amount_micro, "
                           "value_after_micro, round_id, created_at) VALUES (7, 1, 'seed', "
                           "1500, 1500, NULL, CURRENT_TIMESTAMP)"))
        migrate(db.engine)
        with db.engine.begin() as c:
            c.execute(text(pool), {"id": 2, "cur": "JPY"})  # same game, denomination and tier
            rows = c.execute(text("SELECT id, currency, value_micro FROM jackpot_pools "
                                  "ORDER BY id")).all()
            entries = c.execute(text("SELECT id, pool_id FROM jackpot_entries")).all()
        assert [tuple(r) for r in rows] == [(1, "EUR", 1500), (2, "JPY", 1500)]
        assert [tuple(e) for e in entries] == [(7, 1)]
        with pytest.raises(Exception, match=r"(?i)unique"), db.engine.begin() as c:
            c.execute(text(pool), {"id": 3, "cur": "JPY"})  # one set per currency still
    finally:
        db.dispose()


def test_with_the_operators_wallet_the_player_gets_the_operators_currency(
        make_server: Any, wallet_server: Any) -> None:
    from ..operator_wallet.conftest import SECRET

    srv = make_server(games=_games(), currencies=CURRENCIES, wallet_mode="operator",
                      operator_wallet_url=wallet_server.url, operator_wallet_secret=SECRET,
                      operator_wallet_timeout_s=10.0)
    for name, currency in (("cop-at-op", "COP"), ("jpy-at-op", "JPY")):
        r = wallet_server.post("/admin/players", {"player_id": name, "token": f"tok-{name}",
                                                  "balance": 10**10, "currency": currency})
        assert r.status_code == 200, r.text
    with srv.client() as c:
        r = c.post("/api/players", json={"username": "jpy-at-op", "password": "correct horse 1",
                                         "currency": "EUR"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "currency_mismatch"
        assert c.post("/api/players", json={"username": "cop-at-op",
                                            "password": "correct horse 1"}).status_code == 201
        token = c.post("/api/sessions", json={"username": "cop-at-op",
                                              "password": "correct horse 1"}).json()["token"]
    cop = srv.client(token)
    assert cop.get("/api/wallet").json()["currency"] == "COP"
    # The bet is on the COP ladder and the operator is asked for COP (it refuses another).
    r = cop.post("/api/games/big-test/rounds", json={"bet": COP_LADDER[0]}, headers=key())
    assert r.status_code == 201, r.text
    assert r.json()["currency"] == "COP"
    assert wallet_server.balance("cop-at-op") == 10**10 - COP_LADDER[0] + r.json()["win"]
