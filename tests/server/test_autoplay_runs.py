"""Autoplay runs (issue 15, mandatory settings per market): the server records each run, counts
its rounds and money itself, and refuses the next round once a stop condition of the run is met,
whatever the client keeps asking; an auditor reads the runs. SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
import pytest

from slotlab.rng import Seed
from slotlab.rounds import RoundResult, check_inputs

from .server_games import OPTIONS, PickGame
from .server_util import LiveServer, key

LOSE = "lose-test"  # every round loses its bet
WIN = "win-test"  # every round pays 3x the bet


class FixedGame(PickGame):
    """Every round pays ``times`` x the bet (0: it loses the bet)."""

    def __init__(self, game_id: str, times: int) -> None:
        super().__init__(game_id, pick=False, prize_x=times)
        self.times = times

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        check_inputs(self, bet, seeds, choices)
        win = self.times * bet
        events = ({"type": "reels_stopped", "stage": "base", "stops": [0], "window": [[0]]},
                  {"type": "round_ended", "win": win})
        return RoundResult(self.id, self.model_hash, bet, events, win, None, ())

    def theoretical_rtp(self) -> float:
        return 0.95  # what it claims: above every profile's minimum, so it is offered


PICK = "pick-test"  # a round waits for the player's pick, then pays 0-3x the bet
GAMES = {LOSE: FixedGame(LOSE, 0), WIN: FixedGame(WIN, 3), PICK: PickGame(PICK, pick=True)}


def _player(srv: LiveServer, jurisdiction: str = "nj") -> httpx.Client:
    c, username = srv.player()
    r = srv.admin().put(f"/api/admin/players/{username}/jurisdiction",
                        json={"jurisdiction": jurisdiction})
    assert r.status_code == 200, r.text
    return c


def _start(c: httpx.Client, game: str = LOSE, **stops: Any) -> dict[str, Any]:
    r = c.post("/api/autoplay", json={"game": game, **stops})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _round(c: httpx.Client, run_id: int | None, game: str = LOSE, bet: int = 5,
           headers: dict[str, str] | None = None, **declared: Any) -> httpx.Response:
    autoplay = {"rounds_left": 10, "balance_down_by": 10**6, **declared}
    if run_id is not None:
        autoplay["run_id"] = run_id
    return c.post(f"/api/games/{game}/rounds", json={"bet": bet, "autoplay": autoplay},
                  headers=headers or key())


def _stopped(r: httpx.Response, reason: str) -> None:
    assert r.status_code == 409, r.text
    assert r.json()["error"]["code"] == "autoplay_stopped"
    assert r.json()["stop_reason"] == reason


def _balance(c: httpx.Client) -> int:
    return int(c.get("/api/wallet").json()["balance"])


@pytest.fixture
def srv(make_server: Any) -> Iterator[LiveServer]:
    server = make_server(games=GAMES)
    yield server
    # Whatever the test did, each run's row holds its rounds' figures (the admin audit counts
    # them again from the rounds).
    with server.admin() as admin:
        audit = admin.get("/api/admin/audit").json()
    assert audit["bad_autoplay_runs"] == [] and audit["ok"], audit


def test_the_server_stops_a_run_at_its_round_count(srv):
    c = _player(srv)
    run = _start(c, rounds=3, balance_down_by=10**6)
    assert run["status"] == "active" and run["rounds_played"] == 0
    for _ in range(3):
        assert _round(c, run["run_id"]).status_code == 201
    before = _balance(c)
    # The client keeps asking, declaring rounds left: the server has counted three.
    for _ in range(2):
        _stopped(_round(c, run["run_id"], rounds_left=7), "rounds")
    assert _balance(c) == before  # nothing taken
    got = c.get(f"/api/autoplay/{run['run_id']}").json()
    assert got["status"] == "stopped" and got["stop_reason"] == "rounds"
    assert got["rounds_played"] == 3 and got["total_bet"] == 15 and got["net_loss"] == 15
    # A round the player starts is not autoplay: played.
    assert c.post(f"/api/games/{LOSE}/rounds", json={"bet": 5}, headers=key()).status_code == 201


def test_the_server_stops_a_run_at_its_loss_limit(srv):
    c = _player(srv)
    run = _start(c, rounds=100, balance_down_by=12)
    assert _round(c, run["run_id"]).status_code == 201  # lost 5
    assert _round(c, run["run_id"]).status_code == 201  # lost 10: under 12
    assert _round(c, run["run_id"]).status_code == 201  # lost 15: the limit is reached here
    assert c.get(f"/api/autoplay/{run['run_id']}").json()["stop_reason"] == "loss_limit"
    before = _balance(c)
    _stopped(_round(c, run["run_id"], balance_down_by=10**9), "loss_limit")
    assert _balance(c) == before


@pytest.mark.parametrize(("stops", "reason"), [
    ({"balance_up_by": 20}, "balance_up"),  # +10 a round: stopped after the second
    ({"single_win_above": 15}, "single_win"),
    ({"any_win": True}, "any_win"),
])
def test_the_other_stop_conditions_stop_the_run_on_the_server(srv, stops, reason):
    c = _player(srv, "mt")  # mt makes none mandatory: the run names them itself
    run = _start(c, WIN, **stops)
    played = 0
    while True:
        r = _round(c, run["run_id"], WIN)
        if r.status_code != 201:
            _stopped(r, reason)
            break
        played += 1
        assert played < 5
    assert played == (2 if reason == "balance_up" else 1)


def test_mandatory_stops_need_a_run_named_by_each_round(srv):
    c = _player(srv, "nj")
    r = _round(c, None)
    assert r.status_code == 422 and r.json()["error"]["code"] == "autoplay_run_required", r.text
    # mt makes no stop mandatory: a declaration without a run is still accepted there.
    m = _player(srv, "mt")
    assert _round(m, None).status_code == 201


@pytest.mark.parametrize(("jurisdiction", "body", "status", "code"), [
    ("gb", {"rounds": 10}, 403, "autoplay_not_allowed"),
    ("nj", {"rounds": 10}, 422, "autoplay_stop_required"),  # no loss limit
    ("nj", {"rounds": 251, "balance_down_by": 100}, 422, "autoplay_stop_required"),
    ("on", {"balance_down_by": 100}, 422, "autoplay_stop_required"),  # no number of rounds
    ("mt", {"rounds": 0}, 422, "invalid_request"),
])
def test_a_run_the_profile_forbids_is_not_started(srv, jurisdiction, body, status, code):
    c = _player(srv, jurisdiction)
    r = c.post("/api/autoplay", json={"game": LOSE, **body})
    assert r.status_code == status and r.json()["error"]["code"] == code, r.text
    assert srv.admin().get("/api/admin/autoplay-runs").json()["runs"] == []


def test_a_run_the_client_stopped_refuses_further_rounds(srv):
    c = _player(srv)
    run = _start(c, rounds=10, balance_down_by=100)
    assert _round(c, run["run_id"]).status_code == 201
    r = c.post(f"/api/autoplay/{run['run_id']}/stop", json={"reason": "feature"})
    assert r.status_code == 200 and r.json()["stop_reason"] == "feature"
    _stopped(_round(c, run["run_id"]), "feature")
    # Stopping again keeps the first reason; a new run replaces an active one.
    assert c.post(f"/api/autoplay/{run['run_id']}/stop", json={}).json()["stop_reason"] == \
        "feature"
    second = _start(c, rounds=10, balance_down_by=100)
    third = _start(c, rounds=10, balance_down_by=100)
    assert c.get(f"/api/autoplay/{second['run_id']}").json()["stop_reason"] == "replaced"
    assert _round(c, third["run_id"]).status_code == 201
    bad = c.post(f"/api/autoplay/{third['run_id']}/stop", json={"reason": "bored"})
    assert bad.status_code == 422


def test_a_run_is_its_players_and_its_games(srv):
    c, other = _player(srv), _player(srv)
    run = _start(c, rounds=10, balance_down_by=100)
    r = _round(other, run["run_id"])
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_autoplay_run"
    assert other.get(f"/api/autoplay/{run['run_id']}").status_code == 404
    r = _round(c, run["run_id"], WIN)
    assert r.status_code == 409 and r.json()["error"]["code"] == "autoplay_run_other_game"
    assert c.get(f"/api/autoplay/{run['run_id']}").json()["rounds_played"] == 0


def test_a_retry_of_the_round_that_stopped_the_run_gets_its_first_answer(srv):
    c = _player(srv)
    run = _start(c, rounds=1, balance_down_by=100)
    headers = key()
    first = _round(c, run["run_id"], headers=headers)
    assert first.status_code == 201
    again = _round(c, run["run_id"], headers=headers)
    assert again.status_code == 201 and again.json()["round_id"] == first.json()["round_id"]
    _stopped(_round(c, run["run_id"]), "rounds")


def test_two_rounds_at_once_cannot_both_take_the_last_round(srv):
    c = _player(srv)
    run = _start(c, rounds=1, balance_down_by=100)
    token = c.headers["Authorization"]
    codes: list[int] = []
    gate = threading.Barrier(4)

    def send() -> None:
        with httpx.Client(base_url=srv.url, headers={"Authorization": token}, timeout=60) as x:
            gate.wait()
            codes.append(_round(x, run["run_id"]).status_code)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes.count(201) == 1 and len(codes) == 4, codes
    assert set(codes) <= {201, 409}
    assert c.get(f"/api/autoplay/{run['run_id']}").json()["rounds_played"] == 1


def test_an_auditor_sees_every_run_with_its_rounds_and_reason(srv):
    c = _player(srv)
    username = c.get("/api/session").json()["player"]["username"]
    run = _start(c, rounds=2, balance_down_by=100)
    for _ in range(3):
        _round(c, run["run_id"])
    admin = srv.admin()
    (got,) = admin.get(f"/api/admin/autoplay-runs?username={username}").json()["runs"]
    assert got["username"] == username and got["jurisdiction"] == "nj"
    assert (got["rounds"], got["balance_down_by"]) == (2, 100)
    assert (got["status"], got["stop_reason"], got["rounds_played"]) == ("stopped", "rounds", 2)
    # Each round of the run is marked with it in its record.
    rounds = c.get("/api/history").json()["rounds"]
    assert len(rounds) == 2
    for r in rounds:
        record = c.get(f"/api/rounds/{r['round_id']}").json()
        assert record["autoplay_run_id"] == run["run_id"]
    with srv.client() as anon:
        assert anon.get("/api/admin/autoplay-runs").status_code == 401


def test_the_sweep_stops_the_runs_of_ended_sessions(srv):
    gone, live = _player(srv), _player(srv)
    left = _start(gone, rounds=10, balance_down_by=100)
    kept = _start(live, rounds=10, balance_down_by=100)
    assert gone.delete("/api/sessions/current").status_code == 204  # the client went away
    assert srv.admin().post("/api/admin/maintenance").json()["autoplay_runs_ended"] == 1
    runs = {r["run_id"]: r for r in srv.admin().get("/api/admin/autoplay-runs").json()["runs"]}
    assert (runs[left["run_id"]]["status"], runs[left["run_id"]]["stop_reason"]) == (
        "stopped", "session_ended")
    assert runs[kept["run_id"]]["status"] == "active"
    assert _round(live, kept["run_id"]).status_code == 201


def test_a_runs_figures_follow_its_rounds_changed_after_their_start(srv):
    """A round of a run that waits for a choice is counted at its start and again when the
    choice pays; a voided one no longer charges its bet. The run's row follows each change
    (the fixture's audit counts them again from the rounds)."""
    c = _player(srv, "mt")
    run = _start(c, PICK, rounds=10)
    paid = 0
    for _ in range(3):  # each waits for its pick, which pays 0-3x the bet of 5
        r = _round(c, run["run_id"], PICK)
        assert r.status_code == 201 and r.json()["status"] == "awaiting_choice", r.text
        done = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                      json={"choice": OPTIONS[0], "step": r.json()["step"]}, headers=key())
        assert done.status_code == 200, done.text
        paid += int(done.json()["win"])
    got = c.get(f"/api/autoplay/{run['run_id']}").json()
    assert (got["rounds_played"], got["total_bet"], got["total_win"]) == (3, 15, paid)
    waiting = _round(c, run["run_id"], PICK).json()["round_id"]
    with srv.admin() as admin:
        v = admin.post("/api/admin/incident-voids", json={
            "incident_id": "INC-RUN", "reason": "a test void", "round_ids": [waiting]})
    assert v.status_code == 200, v.text
    got = c.get(f"/api/autoplay/{run['run_id']}").json()
    assert (got["rounds_played"], got["total_bet"], got["total_win"]) == (4, 15, paid)
