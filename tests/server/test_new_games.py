"""What the two new games need of the server beyond their own rules (issues 9 and 10): HELP's
operator details and procedures (server settings), and Superstars' currency cap on top of its
10,000x cap. The variants are in test_variants.py, Super 12 Stars' platform rules in
test_super_12_stars_server.py.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from slotlab.games import find_game
from slotlab.server.services import rounds
from slotlab.server.services.help import duration_text
from slotlab.server.settings import Settings

from .server_util import key


def test_help_states_the_operator_and_its_procedures(make_server):
    srv = make_server(operator_name="Casino Example Ltd",
                      operator_contact="support@casino.example, +356 2000 0000",
                      operator_terms_url="https://casino.example/terms",
                      auto_complete_after_s=7200, session_idle_s=900)
    with srv.client() as c:
        op = c.get("/api/games/pick-test").json()["operator"]
    assert op["name"] == "Casino Example Ltd"
    assert op["contact"] == "support@casino.example, +356 2000 0000"
    assert op["terms_url"] == "https://casino.example/terms"
    # The procedure text states the server's real timeouts.
    assert op["auto_complete_after_s"] == 7200 and "kept for 2 hours" in op["unfinished_rounds"]
    assert "random choice" in op["unfinished_rounds"]
    assert op["inactivity_timeout_s"] == 900 and "15 minutes without activity" in op["inactivity"]


def test_help_without_operator_settings_and_with_the_operators_own_text(make_server):
    srv = make_server()
    with srv.client() as c:
        op = c.get("/api/games/instant-test").json()["operator"]
    assert (op["name"], op["contact"], op["terms_url"]) == (None, None, None)
    assert "kept for 24 hours" in op["unfinished_rounds"]
    assert "30 minutes" in op["inactivity"]
    own = "Unfinished rounds are completed as our terms say."
    srv2 = make_server(unfinished_rounds_text=own)
    with srv2.client() as c:
        assert c.get("/api/games/instant-test").json()["operator"]["unfinished_rounds"] == own


@pytest.mark.parametrize(("seconds", "text"), [
    (86400, "24 hours"), (172800, "2 days"), (3600, "1 hour"), (1800, "30 minutes"),
    (90, "90 seconds"), (0.5, "0.5 seconds"), (1, "1 second"), (60, "1 minute")])
def test_durations_in_words(seconds, text):
    assert duration_text(seconds) == text


def test_operator_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv("SLOTLAB_OPERATOR_CONTACT", "help@op.example")
    monkeypatch.setenv("SLOTLAB_VARIANTS", '{"superstars": "superstars-92"}')
    s = Settings()
    assert s.operator_contact == "help@op.example"
    assert s.variants == {"superstars": "superstars-92"}


# ---------------------------------------------------------------------------------------------
# Superstars: "COP 350,000,000 or 10,000 times the stake, whichever comes first"

SUPERSTARS = "superstars"


def _superstars_with_cap(tmp_path: Path, max_win_x: int) -> Any:
    """The shipped Superstars model with a lower in-round cap, so that seeds reaching it are
    common (the 10,000x value itself is the game's own test)."""
    import slotlab.games.superstars as pkg

    model = json.loads((Path(pkg.__file__).parent / "models" / "superstars.json").read_text())
    model["id"], model["max_win_x"] = f"superstars-cap{max_win_x}", max_win_x
    path = tmp_path / "superstars-cap.json"
    path.write_text(json.dumps(model))
    from slotlab.games.superstars.game import Superstars

    return Superstars.from_file(path)


def _seed(game: Any, bet: int, want: Callable[[Any], bool], tries: int = 200_000) -> bytes:
    for _ in range(tries):
        seed = os.urandom(32)
        if want(game.play(bet, [seed], [])):
            return seed
    raise AssertionError("no seed found")


def _force(monkeypatch: pytest.MonkeyPatch, seed: bytes) -> None:
    queue = [seed]
    fresh = rounds.fresh_seed
    monkeypatch.setattr(rounds, "fresh_seed", lambda: queue.pop(0) if queue else fresh())


def _capped(r: Any) -> bool:
    return any(e["type"] == "win_capped" for e in r.events)


def test_superstars_cash_cap_pays_the_cap(make_server, monkeypatch):
    game = find_game(SUPERSTARS)
    bet = game.bets()[0]
    cap = 3 * bet  # minor units (denomination 1): a win above 3x the stake is cut to it
    seed = _seed(game, bet, lambda r: cap < r.win and not _capped(r))
    _force(monkeypatch, seed)
    srv = make_server(games={SUPERSTARS: game}, cash_caps={"EUR": cap})
    c, _ = srv.player()
    with srv.client() as anon:
        info = anon.get(f"/api/games/{SUPERSTARS}").json()
    assert info["max_win_x"] == 10_000 and info["max_win_cash"] == cap
    body = c.post(f"/api/games/{SUPERSTARS}/rounds", json={"bet": bet}, headers=key()).json()
    assert body["status"] == "completed" and body["win"] == cap
    rec = c.get(f"/api/rounds/{body['round_id']}").json()
    expected = game.play(bet, [seed], [])
    assert rec["uncapped_win"] == expected.win * rec["denomination"] > cap
    assert rec["events"][-1] == {"type": "round_ended", "win": expected.win}
    assert [(e["kind"], e["amount"]) for e in rec["ledger"]] == [("bet", -bet), ("win", cap)]
    assert c.get("/api/wallet").json()["balance"] == 100_000 - bet + cap
    assert c.get(f"/api/rounds/{body['round_id']}/replay").json()["identical"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


@pytest.mark.parametrize(("cash_x", "paid_x"), [(10, 5), (3, 3)],
                         ids=["round-cap-first", "cash-cap-first"])
def test_superstars_whichever_cap_comes_first(make_server, monkeypatch, tmp_path, cash_x,
                                              paid_x):
    game = _superstars_with_cap(tmp_path, 5)  # the round's cap: 5x the stake
    bet = game.bets()[0]
    seed = _seed(game, bet, _capped)
    _force(monkeypatch, seed)
    srv = make_server(games={SUPERSTARS: game}, cash_caps={"EUR": cash_x * bet})
    c, _ = srv.player()
    body = c.post(f"/api/games/{SUPERSTARS}/rounds", json={"bet": bet}, headers=key()).json()
    assert body["win"] == paid_x * bet
    (capped,) = [e for e in body["events"] if e["type"] == "win_capped"]
    assert capped["cap"] == 5 * bet < capped["uncapped"]
    rec = c.get(f"/api/rounds/{body['round_id']}").json()
    assert rec["uncapped_win"] == 5 * bet  # the round's own cap applies inside the round
    assert c.get("/api/wallet").json()["balance"] == 100_000 - bet + paid_x * bet
    assert c.get(f"/api/rounds/{body['round_id']}/replay").json()["identical"]


def test_superstars_offers_the_ladder_from_010_in_a_currency_kept_in_mills(make_server,
                                                                            monkeypatch):
    """A Superstars credit is 0.005 (0.25x of a 0.10 stake is 2.5 cents), so the research's
    0.10-100 ladder needs money kept in thousandths: currency_decimals 3, 5 mills a credit."""
    game = find_game(SUPERSTARS)
    bet = game.bets()[0]  # 20 credits = 0.100
    seed = _seed(game, bet, lambda r: r.win > 0 and (r.win * 5) % 10 != 0)  # a win of x.xx5
    _force(monkeypatch, seed)
    srv = make_server(games={SUPERSTARS: game}, currency_decimals=3,
                      denominations={SUPERSTARS: 5})
    c, _ = srv.player()
    with srv.client() as anon:
        info = anon.get(f"/api/games/{SUPERSTARS}").json()
    assert info["decimals"] == 3
    assert info["bets"][0] == 100 and info["bets"][-1] == 100_000  # 0.100 .. 100.000
    body = c.post(f"/api/games/{SUPERSTARS}/rounds", json={"bet": 100}, headers=key()).json()
    expected = game.play(bet, [seed], [])
    assert body["win"] == expected.win * 5 and body["win"] % 10 == 5  # half a cent, paid exactly
    assert c.get("/api/wallet").json()["balance"] == 100_000 - 100 + body["win"]
    assert c.get(f"/api/rounds/{body['round_id']}/replay").json()["identical"]
