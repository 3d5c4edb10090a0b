"""Super 12 Stars on the server: the platform rules of its text (issue 9), on SQLite and
PostgreSQL, with the real game.

- The Frenzy Wheel colour is a real choice: the round waits, and a player who comes back before
  the auto-completion timeout is offered the colour again (at login, in the session and in
  ``GET /api/rounds/open``).
- "If the game gets interrupted ... the game shall randomly complete the round and store the
  winnings. Upon the next connection ... credited ... a complete replay ... shall be available":
  past the timeout the round is completed with a random colour, credited, listed in
  ``unseen_results`` and replays identically; a free-spins round whose server is killed with
  SIGKILL between the debit and the settlement is settled at start-up (``recovered``).
- "If you have FRBs you will be notified when the game loads ... when the FRBs run out ... The
  value of the bet cannot be changed": free round packages on this game.

Rounds are steered to a feature by the seed the server draws (a seed searched with os.urandom
until the real game reaches the feature), never by a scripted outcome: the recorded seed is the
round's own, so its replay is a genuine check.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from slotlab.games import find_game
from slotlab.rounds import RoundResult
from slotlab.server.services import rounds

from .. import processes
from .server_util import ADMIN_TOKEN, FAST_HASH, free_port, key

GAME = "super-12-stars"
HERE = Path(__file__).parent
FAR = "2099-01-01T00:00:00Z"


@pytest.fixture(scope="module")
def game() -> Any:
    return find_game(GAME)


def find_seed(game: Any, bet: int, want: Callable[[RoundResult], bool],
              tries: int = 300_000) -> bytes:
    """A fresh random seed whose round at ``bet`` has what ``want`` asks for."""
    for _ in range(tries):
        seed = os.urandom(32)
        if want(game.play(bet, [seed], [])):
            return seed
    raise AssertionError("no seed reaches the wanted feature")


def frenzy(r: RoundResult) -> bool:
    return r.awaiting is not None and r.awaiting.kind == "frenzy_colour"


def free_spins(r: RoundResult) -> bool:
    """A Bonus free-spins round (not the Super 10 mini game's free spins) that pays."""
    bonus_spins = any(e["type"] == "reels_stopped" and e.get("stage") == "free" for e in r.events)
    return r.awaiting is None and bonus_spins and r.win > 0


def force_seeds(monkeypatch: pytest.MonkeyPatch, *seeds: bytes) -> None:
    """The server's next fresh seeds (round seeds, choice seeds, auto-choice seeds)."""
    queue = list(seeds)
    fresh = rounds.fresh_seed
    monkeypatch.setattr(rounds, "fresh_seed", lambda: queue.pop(0) if queue else fresh())


def login(srv: Any, username: str) -> dict[str, Any]:
    with srv.client() as c:
        r = c.post("/api/sessions", json={"username": username, "password": "correct horse 1"})
    assert r.status_code == 201, r.text
    return dict(r.json())


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_frenzy_colour_offered_again_before_the_timeout(make_server, game, monkeypatch):
    bet = game.bets()[0]
    force_seeds(monkeypatch, find_seed(game, bet, frenzy))
    srv = make_server(games={GAME: game}, auto_complete_after_s=3600)
    c, username = srv.player()
    start = c.post(f"/api/games/{GAME}/rounds", json={"bet": bet}, headers=key()).json()
    assert start["status"] == "awaiting_choice", start
    assert start["awaiting"]["kind"] == "frenzy_colour"
    assert start["awaiting"]["options"] == ["red", "green"]
    assert types(start["events"])[-1] == "frenzy_offered"
    # The player leaves and logs in again: the same round, the same colours, nothing settled.
    again = login(srv, username)
    assert again["unseen_results"] == []
    offered = again["open_round"]
    assert offered["round_id"] == start["round_id"] and offered["status"] == "awaiting_choice"
    assert offered["awaiting"] == start["awaiting"] and offered["events"] == start["events"]
    c2 = srv.client(again["token"])
    assert c2.get("/api/session").json()["open_round"]["awaiting"]["options"] == ["red", "green"]
    assert c2.get("/api/rounds/open").json()["awaiting"] == start["awaiting"]
    # Another round cannot start while the colour is awaited.
    r = c2.post(f"/api/games/{GAME}/rounds", json={"bet": bet}, headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_open"
    done = c2.post(f"/api/rounds/{start['round_id']}/choices",
                   json={"choice": "green", "step": start["step"]},
                   headers=key()).json()
    assert done["status"] == "completed" and done["outcome"] == "played"
    assert done["events"][:len(start["events"])] == start["events"]  # the log only grows
    ended = [e for e in done["events"] if e["type"] == "frenzy_ended"]
    assert len(ended) == 1
    assert done["win"] > 0 and c2.get("/api/wallet").json()["balance"] == 100_000 - bet + done[
        "win"]
    replay = c2.get(f"/api/rounds/{start['round_id']}/replay").json()
    assert replay["identical"] and replay["events"] == done["events"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_frenzy_completed_at_random_after_the_timeout(make_server, game, monkeypatch):
    bet = game.bets()[1]
    force_seeds(monkeypatch, find_seed(game, bet, frenzy))
    srv = make_server(games={GAME: game}, auto_complete_after_s=0.5)
    c, username = srv.player()
    start = c.post(f"/api/games/{GAME}/rounds", json={"bet": bet}, headers=key()).json()
    assert start["status"] == "awaiting_choice"
    time.sleep(0.6)  # the auto-completion timeout of this test
    back = login(srv, username)
    assert back["open_round"] is None
    (notice,) = back["unseen_results"]
    assert notice["round_id"] == start["round_id"] and notice["outcome"] == "auto_completed"
    assert notice["status"] == "completed"
    c2 = srv.client(back["token"])
    rec = c2.get(f"/api/rounds/{start['round_id']}").json()
    assert len(rec["choices"]) == 1 and rec["choices"][0] in ("red", "green")
    assert len(rec["auto_seeds"]) == 1 and len(rec["seeds"]) == 2
    assert rec["events"][:len(start["events"])] == start["events"]
    (ended,) = [e for e in rec["events"] if e["type"] == "frenzy_ended"]
    assert "frenzy_spun" in types(rec["events"]) and ended["win"] <= rec["win"]
    assert rec["win"] == notice["win"] and rec["win"] > 0
    assert [(e["kind"], e["amount"]) for e in rec["ledger"]] == [("bet", -bet),
                                                                  ("win", rec["win"])]
    assert c2.get("/api/wallet").json()["balance"] == 100_000 - bet + rec["win"]
    # RECALL: the replay from the recorded seeds and the random colour gives every step again.
    replay = c2.get(f"/api/rounds/{start['round_id']}/replay").json()
    assert replay["identical"] and replay["events"] == rec["events"]
    again = game.play(bet, [bytes.fromhex(x) for x in rec["seeds"]], rec["choices"])
    assert again.win * rec["denomination"] == rec["win"]
    assert srv.admin().get("/api/admin/audit").json()["ok"]
    assert c2.delete("/api/session/unseen").status_code == 204
    assert c2.get("/api/session").json()["unseen_results"] == []


# ---------------------------------------------------------------------------------------------
# kill -9 between the debit and the settlement of a free-spins round


def _start(db_url: str, log: Path, **env: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    environ = {**os.environ, "SLOTLAB_DATABASE_URL": db_url, "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
               "SLOTLAB_SPLIT_ROUND_COMMITS": "true",
               "SLOTLAB_ARGON2_TIME_COST": str(FAST_HASH["argon2_time_cost"]),
               "SLOTLAB_ARGON2_MEMORY_KIB": str(FAST_HASH["argon2_memory_kib"]), **env}
    proc = processes.start([sys.executable, str(HERE / "serve_forced.py"), str(port)], log,
                           environ)
    url = f"http://127.0.0.1:{port}"
    processes.wait_until_answers(proc, f"{url}/api/health", log)
    return proc, url


@pytest.fixture
def stop_all() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        processes.kill(p)


def test_free_spins_round_killed_between_debit_and_settlement(database, game, stop_all,
                                                              tmp_path):
    bet = game.bets()[0]
    seed = find_seed(game, bet, free_spins)
    proc, url = _start(database.url, tmp_path / "killed.log", SLOTLAB_TEST_SEED=seed.hex(),
                       SLOTLAB_TEST_KILL_ON_PLAY="1")
    stop_all.append(proc)
    name, password = f"fs{time.monotonic_ns() % 10**9}", "pass word 1"
    with httpx.Client(base_url=url, timeout=30) as c:
        assert c.post("/api/players", json={"username": name, "password": password}
                      ).status_code == 201
        token = c.post("/api/sessions", json={"username": name, "password": password}
                       ).json()["token"]
        c.headers["Authorization"] = f"Bearer {token}"
        headers = key()
        with pytest.raises(httpx.TransportError):  # the process dies inside the round
            c.post(f"/api/games/{GAME}/rounds", json={"bet": bet}, headers=headers)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    # Restart (no hooks): the start-up recovery plays the round from its recorded seed.
    proc, url = _start(database.url, tmp_path / "restarted.log")
    stop_all.append(proc)
    with httpx.Client(base_url=url, timeout=30) as c:
        back = c.post("/api/sessions", json={"username": name, "password": password}).json()
        (notice,) = back["unseen_results"]
        assert notice["status"] == "completed" and notice["outcome"] == "recovered"
        assert back["open_round"] is None
        c.headers["Authorization"] = f"Bearer {back['token']}"
        rid = notice["round_id"]
        rec = c.get(f"/api/rounds/{rid}").json()
        assert rec["seeds"] == [seed.hex()] and rec["win"] == notice["win"] > 0
        assert [(e["kind"], e["amount"]) for e in rec["ledger"]] == [("bet", -bet),
                                                                      ("win", rec["win"])]
        assert c.get("/api/wallet").json()["balance"] == 100_000 - bet + rec["win"]
        assert "free_spins_awarded" in types(rec["events"])
        assert any(e["type"] == "reels_stopped" and e.get("stage") == "free"
                   for e in rec["events"])
        replay = c.get(f"/api/rounds/{rid}/replay").json()
        assert replay["identical"] and replay["events"] == rec["events"]
        expected = game.play(bet, [seed], [])
        assert replay["win_credits"] == expected.win and rec["events"][-1]["type"] == "round_ended"
        # The request the kill cut off, retried with its key: the same round, no second debit.
        again = c.post(f"/api/games/{GAME}/rounds", json={"bet": bet}, headers=headers)
        assert again.status_code == 201 and again.json()["round_id"] == rid
        assert c.get("/api/wallet").json()["balance"] == 100_000 - bet + rec["win"]
        audit = c.get("/api/admin/audit", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert audit.json()["ok"]


# ---------------------------------------------------------------------------------------------
# Free round packages (FRBs)


def grant(srv: Any, username: str, bet: int, rounds: int) -> dict[str, Any]:
    with srv.admin() as admin:
        r = admin.post("/api/admin/free-rounds", json={
            "username": username, "game": GAME, "bet": bet, "rounds": rounds,
            "expires_at": FAR})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_free_round_packages(make_server, game, monkeypatch):
    bet, other_bet = game.bets()[2], game.bets()[0]
    # The package's second round reaches the Frenzy Wheel: a free round may wait for a choice.
    srv = make_server(games={GAME: game})
    c, username = srv.player()
    pkg = grant(srv, username, bet, 2)
    # Notified when the game loads: the session lists the package, its game, bet and rounds.
    (listed,) = c.get("/api/session").json()["free_rounds"]["packages"]
    assert (listed["id"], listed["game"], listed["bet"], listed["rounds_left"]) == (
        pkg["id"], GAME, bet, 2)
    # The value of the bet cannot be changed.
    r = c.post(f"/api/games/{GAME}/rounds", json={"bet": other_bet, "free_round_id": pkg["id"]},
               headers=key())
    assert r.status_code == 422 and r.json()["error"]["code"] == "free_round_wrong_bet"
    force_seeds(monkeypatch, find_seed(game, bet, lambda r: r.awaiting is None),
                find_seed(game, bet, frenzy))
    first = c.post(f"/api/games/{GAME}/rounds", json={"bet": bet, "free_round_id": pkg["id"]},
                   headers=key()).json()
    assert first["status"] == "completed" and first["balance"] == 100_000 + first["win"]
    assert first["free_round"]["rounds_left"] == 1 and first["free_round"]["status"] == "active"
    second = c.post(f"/api/games/{GAME}/rounds", json={"bet": bet, "free_round_id": pkg["id"]},
                    headers=key()).json()
    assert second["status"] == "awaiting_choice" and second["awaiting"]["kind"] == "frenzy_colour"
    done = c.post(f"/api/rounds/{second['round_id']}/choices",
                  json={"choice": "red", "step": second["step"]},
                  headers=key()).json()
    won = first["win"] + done["win"]
    assert done["status"] == "completed" and done["balance"] == 100_000 + won  # never debited
    # The end notice: the package is used, with its total, and no longer offered.
    assert done["free_round"] == {"id": pkg["id"], "rounds_left": 0, "total_won": won,
                                  "status": "used"}
    assert c.get("/api/session").json()["free_rounds"]["packages"] == []
    rec = c.get(f"/api/rounds/{second['round_id']}").json()
    assert [e["kind"] for e in rec["ledger"]] == ["free_round_win"]
    assert c.get(f"/api/rounds/{second['round_id']}/replay").json()["identical"]
    r = c.post(f"/api/games/{GAME}/rounds", json={"bet": bet, "free_round_id": pkg["id"]},
               headers=key())
    assert r.status_code == 409 and r.json()["error"]["code"] == "free_round_used_up"
    assert srv.admin().get("/api/admin/audit").json()["ok"]


def test_help_shows_rtp_and_the_operator(make_server, game):
    srv = make_server(games={GAME: game}, operator_contact="support@casino.example",
                      operator_name="Casino Example Ltd")
    with srv.client() as c:
        info = c.get(f"/api/games/{GAME}").json()
    assert info["rtp"] == pytest.approx(game.theoretical_rtp(), abs=0)
    assert info["variant"] == GAME and info["model_hash"] == game.model_hash
    assert info["operator"]["contact"] == "support@casino.example"
    assert info["operator"]["name"] == "Casino Example Ltd"


def test_the_max_win_is_said_to_be_an_upper_bound_beside_the_recorded_one(make_server, game):
    """Uncapped, the game's max win is a rigorous bound that simulated rounds stay far below:
    the game list and the game's own page say so, the help says 'no round pays more than'; both
    also carry the largest win of the shipped 2,000-million-game run with its odds (R: 'The
    maximum potential prize achieved during a simulation of 2,000 million games ...')."""
    from slotlab.simulate.record import record_for

    srv = make_server(games={GAME: game})
    c, _ = srv.player()
    listed = {g["id"]: g for g in c.get("/api/games").json()}[GAME]
    info = c.get(f"/api/games/{GAME}").json()
    assert game.model.cap_x is None
    assert listed["max_win_bound"] is True and info["max_win_bound"] is True
    assert listed["max_win"] == info["max_win_x"] == game.max_win_x()
    assert f"No round pays more than {game.max_win_x():,} times the total bet" in " ".join(
        info["rules"])
    record = record_for(game)
    assert record is not None
    assert listed["max_win_simulated"] == info["max_win_simulated"] == record.shown()
    assert info["max_win_simulated"]["text"].endswith("x (1 in 2,000,000,000)")
    assert f"was {record.max_win_x:,.1f} times the total bet" in " ".join(info["rules"])
