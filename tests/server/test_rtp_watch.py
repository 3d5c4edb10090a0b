"""The live RTP watch: a game whose live rounds pay more than its model says (a test-only model
swap) alerts, in /metrics, the admin API and the log; a correct game over the same number of
rounds does not.

Both games claim the same figures: a prize of 0, 1, 2 or 3 x the bet, uniform, so RTP 1.5 and
SD sqrt(1.25) = 1.118 per unit bet. The swapped one pays 1 x the bet where the model pays
nothing (RTP 1.75). The watch's interval is 99.9 % two-sided (z = 3.29): over 400 rounds
1.5 +/- 0.184. The seeds are fixed (a counter hashed), so every run plays the same rounds; with
fresh seeds a correct game would still be flagged one run in a thousand, and the swapped one
missed with odds far smaller (its RTP is 0.25 above, with an SD of its mean near 0.04).
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import math
import os
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from slotlab.rng import Seed
from slotlab.rounds import RoundResult
from slotlab.server.services import rounds
from slotlab.server.services.model_figures import level_figures

from .server_games import PickGame
from .server_util import LiveServer, key
from .test_metrics import scrape, value

ROUNDS = 400


class ModelGame(PickGame):
    """An instant game whose model states its exact RTP and SD (as Crystal Star Deluxe does)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(game_id, pick=False)

    def sd(self) -> float:
        return math.sqrt(1.25)  # of a uniform 0..3 prize per unit bet


class SwappedGame(ModelGame):
    """The same model figures, but its live rounds pay 1 x the bet instead of nothing."""

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        r = super().play(bet, seeds, choices)
        return r if r.win else RoundResult(r.game_id, r.model_hash, bet, r.events, bet,
                                           None, ())


class PidGame(ModelGame):
    """Writes the id of the process that made its SD to the file the environment names."""

    def sd(self) -> float:
        with open(os.environ["SLOTLAB_TEST_FIGURES_PID_FILE"], "a") as f:
            f.write(f"{os.getpid()}\n")
        return super().sd()


def _play(player: Any, game_id: str, rounds: int, bet: int = 5) -> None:
    """``rounds`` rounds of ``game_id`` at ``bet``, each started."""
    for _ in range(rounds):
        r = player.post(f"/api/games/{game_id}/rounds", json={"bet": bet}, headers=key())
        assert r.status_code == 201, r.text


@pytest.fixture
def fixed_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = itertools.count()
    monkeypatch.setattr(rounds, "fresh_seed",
                        lambda: hashlib.sha256(b"rtp-watch:%d" % next(counter)).digest())


def test_a_game_paying_wrong_alerts_and_a_right_one_does_not(
        make_server: Callable[..., LiveServer], fixed_seeds: None,
        caplog: pytest.LogCaptureFixture) -> None:
    games: dict[str, Any] = {"watch-right": ModelGame("watch-right"),
                             "watch-wrong": SwappedGame("watch-wrong")}
    srv = make_server(games=games, rtp_watch_min_rounds=ROUNDS)
    player, _ = srv.player()
    with player:
        for gid in games:
            _play(player, gid, ROUNDS)
    with caplog.at_level(logging.WARNING, logger="slotlab.server"), srv.admin() as admin:
        watch = admin.get("/api/admin/rtp-watch").json()
    levels = {lv["game"]: lv for lv in watch["levels"]}
    assert watch["confidence"] == 0.999
    right, wrong = levels["watch-right"], levels["watch-wrong"]
    for lv in (right, wrong):
        assert lv["rounds"] == ROUNDS and lv["expected_rtp"] == 1.5
        low, high = lv["interval"]
        half = 3.2905 * math.sqrt(1.25) / math.sqrt(ROUNDS)
        assert (1.5 - low, high - 1.5) == pytest.approx((half, half), rel=1e-4)
    assert not right["alert"] and right["interval"][0] <= right["observed_rtp"] <= \
        right["interval"][1]
    assert wrong["alert"] and wrong["observed_rtp"] > wrong["interval"][1]
    assert [(a["game"], a["bet"]) for a in watch["alerts"]] == [("watch-wrong", 5)]
    logged = [r.getMessage() for r in caplog.records if "RTP alert" in r.getMessage()]
    assert len(logged) == 1 and logged[0].startswith("RTP alert: watch-wrong EUR bet 5")
    samples = scrape(srv)
    assert value(samples, "slotlab_rtp_alert", game="watch-wrong", currency="EUR", bet="5") == 1
    assert value(samples, "slotlab_rtp_alert", game="watch-right", currency="EUR", bet="5") == 0
    assert value(samples, "slotlab_rtp_window_rounds", game="watch-right", currency="EUR",
                 bet="5") == ROUNDS


def test_the_figures_are_made_outside_the_serving_process(
        make_server: Callable[..., LiveServer], fixed_seeds: None, tmp_path: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An exact report or a simulation would hold the serving process's interpreter for
    seconds: the games report and the watch have a level's figures made in a process of their
    own, once for both."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("SLOTLAB_TEST_FIGURES_PID_FILE", str(pids))
    srv = make_server(games={"watch-pid": PidGame("watch-pid")}, rtp_watch_min_rounds=10,
                      rtp_watch_interval_s=3600)
    player, _ = srv.player()
    with player:
        _play(player, "watch-pid", 10)
    with srv.admin() as admin:
        for _ in range(2):  # made once, then remembered
            (game,) = [g for g in admin.get("/api/admin/reports/games").json()["games"]
                       if g["game"] == "watch-pid"]
            assert game["theoretical_rtp"] == 1.5 and game["bets"][0]["sd_source"] == "model"
            assert game["interval_99"] is not None
            (level,) = admin.get("/api/admin/rtp-watch").json()["levels"]
            assert level["expected_rtp"] == 1.5 and level["interval"] is not None
    made_by = pids.read_text().split()
    assert len(made_by) == 1 and int(made_by[0]) != os.getpid(), made_by


def test_a_level_with_too_few_rounds_is_not_judged(make_server: Callable[..., LiveServer],
                                                   fixed_seeds: None) -> None:
    srv = make_server(games={"watch-wrong": SwappedGame("watch-wrong")},
                      rtp_watch_min_rounds=ROUNDS)
    player, _ = srv.player()
    with player:
        _play(player, "watch-wrong", 20)
    with srv.admin() as admin:
        watch = admin.get("/api/admin/rtp-watch").json()
    (level,) = watch["levels"]
    assert level["rounds"] == 20 and level["interval"] is None and not level["alert"]


def test_a_game_whose_rtp_report_simulates_a_feature_is_watched_against_its_offered_rtp(
        serve_games: Callable[..., LiveServer], monkeypatch: pytest.MonkeyPatch) -> None:
    """Superstars' report simulates a million Bonus Games (tens of seconds of a core, the GIL
    held): the watch, a scrape and the games report never run it; they use the RTP the
    catalogue offers, which that simulation proves in the game's tests."""
    from slotlab.games.superstars.game import Superstars

    ran: list[object] = []

    def recorded(*args: Any, **kwargs: Any) -> dict[str, Any]:
        ran.append(args)  # (a failure raised here would be taken for a game without a report)
        raise RuntimeError("the composed RTP report was run on a request")

    monkeypatch.setattr(Superstars, "exact", recorded)
    srv = serve_games("superstars")
    player, _ = srv.player()
    with player:
        bet = player.get("/api/games/superstars").json()["bets"][0]
        _play(player, "superstars", 3, bet)
        offered = player.get("/api/games").json()
    with srv.admin() as admin:
        watch = admin.get("/api/admin/rtp-watch").json()
        assert admin.get("/metrics").status_code == 200
    (level,) = watch["levels"]
    rtp = {g["id"]: g["rtp"] for g in offered}["superstars"]
    assert level["expected_rtp"] == pytest.approx(rtp)
    # The watch makes its figures in a process of its own, where this patch does not reach:
    # what that process runs, run here.
    entry = srv.ctx.catalog.find("superstars")
    assert level_figures(entry, entry.credits_of(bet))[0] == pytest.approx(rtp)
    assert ran == []


def test_the_periodic_tick_logs_an_alert_with_no_one_asking(
        make_server: Callable[..., LiveServer], fixed_seeds: None,
        caplog: pytest.LogCaptureFixture) -> None:
    """The watch checks by itself every ``rtp_watch_interval_s`` (60 s by default; short here):
    the alert reaches the log with no scrape of /metrics and no call of the admin API."""
    games: dict[str, Any] = {"watch-wrong": SwappedGame("watch-wrong")}
    caplog.set_level(logging.INFO, logger="slotlab.server")
    srv = make_server(games=games, rtp_watch_min_rounds=ROUNDS, rtp_watch_interval_s=0.2)
    player, _ = srv.player()
    with player:
        _play(player, "watch-wrong", ROUNDS)

    def alerts() -> list[str]:
        return [r.getMessage() for r in caplog.records if "RTP alert" in r.getMessage()]

    deadline = time.monotonic() + 30
    while not alerts() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alerts() and alerts()[0].startswith("RTP alert: watch-wrong EUR bet 5")
    # Logged when the level enters the alert, not at every tick after.
    time.sleep(1.0)
    assert len(alerts()) == 1


def test_without_the_tick_nothing_is_logged_by_itself(
        make_server: Callable[..., LiveServer], fixed_seeds: None,
        caplog: pytest.LogCaptureFixture) -> None:
    """The counter-check of the test above: with the tick at an hour, the same rounds log no
    alert within the same wait, so the line above came from the tick."""
    caplog.set_level(logging.INFO, logger="slotlab.server")
    srv = make_server(games={"watch-wrong": SwappedGame("watch-wrong")},
                      rtp_watch_min_rounds=ROUNDS, rtp_watch_interval_s=3600)
    player, _ = srv.player()
    with player:
        _play(player, "watch-wrong", ROUNDS)
    time.sleep(1.0)
    assert not [r for r in caplog.records if "RTP alert" in r.getMessage()]


def test_a_scrape_judges_by_figures_already_made_and_never_makes_them(
        make_server: Callable[..., LiveServer], fixed_seeds: None) -> None:
    """A level's exact report or SD simulation can hold the process for seconds: a scrape shows
    the level unjudged until the periodic check (or the admin API) has made its figures."""
    made: list[int] = []

    class Counted(ModelGame):
        def sd(self) -> float:
            made.append(1)
            return super().sd()

    gid = f"watch-{uuid.uuid4().hex[:8]}"  # figures are kept per game for the process's life
    srv = make_server(games={gid: Counted(gid)},
                      rtp_watch_min_rounds=10, rtp_watch_interval_s=3600)
    player, _ = srv.player()
    with player:
        _play(player, gid, 20)
    labels = {"game": gid, "currency": "EUR", "bet": "5"}
    first = scrape(srv)
    assert value(first, "slotlab_rtp_window_rounds", **labels) == 20
    assert ("slotlab_rtp_expected", frozenset(labels.items())) not in first
    assert made == []
    with srv.admin() as admin:
        assert admin.get("/api/admin/rtp-watch").json()["levels"][0]["interval"] is not None
    assert made
    assert value(scrape(srv), "slotlab_rtp_expected", **labels) == 1.5
