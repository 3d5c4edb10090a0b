"""The live RTP watch (R22): per game, currency and bet level, the observed RTP of the rounds in a
rolling window against the interval the game's exact figures give for that many rounds.

The window is the last ``SLOTLAB_RTP_WATCH_ROUNDS`` rounds the server recorded (by their
sequence number, the primary key, so reading it costs a range of the index however large the
table grows); of those, each bet level's settled, paid, real-money rounds are judged (free
rounds move no stake and demo rounds no money). For ``n`` rounds at one level the observed RTP
(total win / total bet) is the mean of ``n`` returns per unit bet, so it lies within
``rtp +/- z * sd / sqrt(n)`` with the watch's confidence (``SLOTLAB_RTP_WATCH_CONFIDENCE``, 99.9 %
two-sided by default: a level watched all day should not cry wolf). ``rtp`` and ``sd`` are the
model's (services/reports.py: exact where the game has them, else a simulation; made in a
process of their own, :mod:`.model_figures`, as a scrape only reads them); a level with
fewer than ``SLOTLAB_RTP_WATCH_MIN_ROUNDS`` rounds, or whose game has no SD, is shown unjudged.
Rounds are held to the model they were played on (by model hash), as in the games report.

Outside the interval is an alert: ``slotlab_rtp_alert`` = 1 in /metrics (and the rule
``SlotlabRtpOutsideInterval`` in deploy/slotlab-alerts.yml), an entry in
``GET /api/admin/rtp-watch``, and a log line when a level enters or leaves the alert.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select

from slotlab.server.services import reports
from slotlab.server.services.context import Services
from slotlab.server.services.model_figures import ModelFigures
from slotlab.store.models import COMPLETED, Round

log = logging.getLogger("slotlab.server")
Level = tuple[str, str, int]  # game, currency, bet (minor units)


@dataclass(frozen=True)
class LevelWatch:
    game: str
    currency: str
    bet: int
    rounds: int
    total_bet: int
    total_win: int
    observed_rtp: float | None
    expected_rtp: float | None
    interval: tuple[float, float] | None  # None: not judged (too few rounds, no SD)
    alert: bool

    def public(self) -> dict[str, Any]:
        return {"game": self.game, "currency": self.currency, "bet": self.bet,
                "rounds": self.rounds, "total_bet": self.total_bet, "total_win": self.total_win,
                "observed_rtp": self.observed_rtp, "expected_rtp": self.expected_rtp,
                "interval": None if self.interval is None else list(self.interval),
                "alert": self.alert}


class RtpWatch:
    """The watch of one server process; :meth:`check` reads the window and logs changes."""

    def __init__(self, ctx: Services) -> None:
        self.ctx = ctx
        st = ctx.settings
        self.window = st.rtp_watch_rounds
        self.min_rounds = st.rtp_watch_min_rounds
        self.confidence = st.rtp_watch_confidence
        self.z = NormalDist().inv_cdf((1 + self.confidence) / 2)
        self._alerting: set[Level] = set()
        self._lock = threading.Lock()
        # The models' figures: the server's (made in a process of their own), else made here.
        self.figures = ctx.model_figures or ModelFigures(separate=False)

    def levels(self, compute: bool = True) -> list[LevelWatch]:
        """Every level in the window, judged. ``compute=False`` (a scrape): only by figures
        already known; a level whose figures the periodic check has not made yet is shown
        unjudged, as an exact report or a simulation holds the process for seconds."""
        with self.ctx.db.read() as s:
            last = s.scalar(select(func.max(Round.seq))) or 0
            rows = s.execute(
                select(Round.game_id, Round.currency, Round.bet, Round.bet_credits,
                       Round.variant, Round.model_hash, func.count(), func.sum(Round.bet),
                       func.sum(Round.win + Round.jackpot_win))
                .where(Round.seq > last - self.window, Round.status == COMPLETED,
                       Round.free_round_id.is_(None), reports._REAL_MONEY)
                .group_by(Round.game_id, Round.currency, Round.bet, Round.bet_credits,
                          Round.variant, Round.model_hash)).all()
        models = [reports._model_entry(self.ctx, gid, variant or gid, model_hash)
                  for gid, _, _, _, variant, model_hash, *_ in rows]
        if compute:
            self.figures.of((model, int(row[3])) for model, row in zip(models, rows, strict=True)
                            if model is not None)
        acc: dict[Level, dict[str, Any]] = {}
        for (gid, currency, bet, credits, _, _, n, tb, tw), model in zip(rows, models,
                                                                           strict=True):
            lv = acc.setdefault((gid, currency, int(bet)),
                                {"n": 0, "tb": 0, "tw": 0, "exp": 0.0, "var": 0.0})
            lv["n"] += int(n)
            lv["tb"] += int(tb)
            lv["tw"] += int(tw)
            rtp = sd = None
            figures = None if model is None else self.figures.known(model, int(credits))
            if figures is not None:
                rtp, sd = figures[0], figures[1][0]
            lv["exp"] = None if lv["exp"] is None or rtp is None else lv["exp"] + rtp * int(tb)
            lv["var"] = None if lv["var"] is None or sd is None else (
                lv["var"] + int(n) * (int(bet) * sd) ** 2)
        out = []
        for (gid, currency, bet), lv in sorted(acc.items()):
            n, tb, tw = lv["n"], lv["tb"], lv["tw"]
            observed = tw / tb if tb else None
            expected = lv["exp"] / tb if lv["exp"] is not None and tb else None
            interval = None
            if expected is not None and lv["var"] is not None and tb and n >= self.min_rounds:
                half = self.z * math.sqrt(lv["var"]) / tb
                interval = (expected - half, expected + half)
            alert = (observed is not None and interval is not None
                     and not interval[0] <= observed <= interval[1])
            out.append(LevelWatch(gid, currency, bet, n, tb, tw, observed, expected, interval,
                                  alert))
        return out

    def check(self) -> list[LevelWatch]:
        """The levels; a level entering or leaving the alert is logged (once per process)."""
        levels = self.levels()
        with self._lock:
            now = {(lv.game, lv.currency, lv.bet) for lv in levels if lv.alert}
            for lv in levels:
                k = (lv.game, lv.currency, lv.bet)
                if k in now and k not in self._alerting:
                    assert lv.interval is not None and lv.observed_rtp is not None
                    log.warning("RTP alert: %s %s bet %d: observed %.4f%% over %d rounds, "
                                "outside %.4f%%..%.4f%% (%g%% interval)", lv.game, lv.currency,
                                lv.bet, lv.observed_rtp * 100, lv.rounds, lv.interval[0] * 100,
                                lv.interval[1] * 100, self.confidence * 100)
            for game, currency, bet in sorted(self._alerting - now):
                log.info("RTP alert over: %s %s bet %d is inside its interval again", game,
                         currency, bet)
            self._alerting = now
        return levels

    def report(self) -> dict[str, Any]:
        levels = self.check()
        return {"window_rounds": self.window, "min_rounds": self.min_rounds,
                "confidence": self.confidence, "z": self.z,
                "levels": [lv.public() for lv in levels],
                "alerts": [lv.public() for lv in levels if lv.alert]}


class RtpWatchCollector(Collector):
    """The watch's figures at each scrape."""

    def __init__(self, watch: RtpWatch) -> None:
        self.watch = watch

    def collect(self) -> Iterator[GaugeMetricFamily]:
        labels = ["game", "currency", "bet"]
        fams = {name: GaugeMetricFamily(f"slotlab_rtp_{name}", text, labels=labels) for
                name, text in (
                    ("observed", "Observed RTP of the level's rounds in the rolling window"),
                    ("expected", "The model's RTP for those rounds"),
                    ("interval_low", "Low end of the watch's interval for that many rounds"),
                    ("interval_high", "High end of the watch's interval for that many rounds"),
                    ("window_rounds", "The level's rounds in the rolling window"),
                    ("alert", "1: the observed RTP is outside the interval"))}
        for lv in self.watch.levels(compute=False):  # logging is the periodic check's
            key = [lv.game, lv.currency, str(lv.bet)]
            fams["window_rounds"].add_metric(key, lv.rounds)
            fams["alert"].add_metric(key, 1 if lv.alert else 0)
            if lv.observed_rtp is not None:
                fams["observed"].add_metric(key, lv.observed_rtp)
            if lv.expected_rtp is not None:
                fams["expected"].add_metric(key, lv.expected_rtp)
            if lv.interval is not None:
                fams["interval_low"].add_metric(key, lv.interval[0])
                fams["interval_high"].add_metric(key, lv.interval[1])
        yield from fams.values()
