"""Prometheus metrics (``GET /metrics``), from the ``prometheus_client`` library.

What the server does is counted where it happens, through the small functions below (the money
paths call :func:`round_settled` and :func:`round_latency`; the
login and error paths :func:`login_failed`, :func:`rate_limited` and :func:`error`). What the
database holds (live and interrupted rounds, jackpot pools, free-round packages, the live RTP
watch) is read at scrape time by :class:`DatabaseCollector`, so every process reports the same
figures for it.

With ``--workers N`` the counters and histograms of every worker are summed by the library's
multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR`` names a folder the workers write their figures
to (``slotlab serve`` makes one when it is unset and empties it at start,
:func:`slotlab.server.main.prepare_metrics_folder`), and whichever worker answers a scrape reads
them all. The library reads the variable when this module is first imported: before that, in
the process that starts the workers, it must be set.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.registry import Collector
from sqlalchemy import func, select

from slotlab.server import tracing

if TYPE_CHECKING:

    from slotlab.server.services.context import Services

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
rounds_log = logging.getLogger("slotlab.rounds")  # a line per round settled (JSON logs)

# Round latency: a fast-path round takes about a millisecond, a general-path one a few, a
# jackpot or a choice on a busy database tens.
_LATENCY_BUCKETS = (.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5)
_BATCH_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000)

ROUNDS = Counter("slotlab_rounds", "Rounds settled, by game, currency, bet level (minor units) "
                 "and kind (paid, free, demo)", ["game", "currency", "bet", "kind"])
BETS = Counter("slotlab_bet_minor_units", "Stakes of the rounds settled, minor units",
               ["game", "currency", "bet", "kind"])
WINS = Counter("slotlab_win_minor_units", "Wins (jackpots included) of the rounds settled, "
               "minor units", ["game", "currency", "bet", "kind"])
LATENCY = Histogram("slotlab_round_seconds", "Time to answer a round start, by path (fast: "
                    "server/fast_rounds.py; general: services/rounds.py)", ["path"],
                    buckets=_LATENCY_BUCKETS)
CHOICE_LATENCY = Histogram("slotlab_choice_seconds", "Time to answer a player's choice, by "
                           "path (fast: server/fast_choices.py; general: services/rounds.py)",
                           ["path"], buckets=_LATENCY_BUCKETS)
ERRORS = Counter("slotlab_errors", "Error answers, by HTTP status and error code",
                 ["status", "code"])
LOGIN_FAILURES = Counter("slotlab_login_failures", "Failed logins, by reason", ["reason"])
RATE_LIMITED = Counter("slotlab_rate_limited", "Requests refused by a rate limit, by limit",
                       ["limit"])
BATCH_ROUNDS = Histogram("slotlab_db_batch_rounds", "Rounds per fast-path database batch "
                         "(one statement, one commit)", buckets=_BATCH_SIZES)
BATCH_SECONDS = Histogram("slotlab_db_batch_seconds", "Time to write and commit one fast-path "
                          "database batch", buckets=_LATENCY_BUCKETS)


OPERATOR_CALLS = Histogram("slotlab_operator_call_seconds", "Time of one signed call to the "
                           "operator's wallet on the batched path, answer or not, by endpoint",
                           ["endpoint"], buckets=_LATENCY_BUCKETS)


def operator_call(endpoint: str, seconds: float) -> None:
    OPERATOR_CALLS.labels(endpoint).observe(seconds)


def clock() -> float:
    return time.perf_counter()


def _kind(free: bool, demo: bool) -> str:
    return "free" if free else "demo" if demo else "paid"


_levels: dict[tuple[str, str, int, str], tuple[Any, Any, Any]] = {}


def _level(game: str, currency: str, bet: int, kind: str) -> tuple[Any, Any, Any]:
    """The level's round, bet and win counters (``labels()`` looked up once per level: it
    costs more than the increment)."""
    k = (game, currency, bet, kind)
    found = _levels.get(k)
    if found is None:
        labels = (game, currency, str(bet), kind)
        found = _levels[k] = (ROUNDS.labels(*labels), BETS.labels(*labels),
                              WINS.labels(*labels))
    return found


def round_settled(game: str, currency: str, bet: int, win: int, *, round_id: str,
                  player_id: int, free: bool = False, demo: bool = False) -> None:
    """A round settled and durable: its stake (none for a free round) and its whole win,
    counted, and logged with the request's id (request_log.py)."""
    kind = _kind(free, demo)
    level = _level(game, currency, bet, kind)
    level[0].inc()
    if not free:
        level[1].inc(bet)
    if win:
        level[2].inc(win)
    if rounds_log.isEnabledFor(logging.INFO):
        rounds_log.info("round %s settled", round_id, extra={"fields": {
            "event": "round_settled", "round_id": round_id, "player_id": player_id,
            "game": game, "currency": currency, "bet": bet, "win": win, "kind": kind}})
    tracing.round_settled(game, currency, bet, win, round_id=round_id, player_id=player_id,
                          kind=kind)


_PATHS = {"fast": LATENCY.labels("fast"), "general": LATENCY.labels("general")}


_CHOICE_PATHS = {"fast": CHOICE_LATENCY.labels("fast"), "general": CHOICE_LATENCY.labels("general")}


def round_latency(path: str, started: float | None) -> None:
    """A round start answered by ``path`` (None: timed by its caller, as a round the general
    path hands to the operator pipeline is)."""
    if started is not None:
        _PATHS[path].observe(time.perf_counter() - started)


def choice_latency(path: str, started: float) -> None:
    _CHOICE_PATHS[path].observe(time.perf_counter() - started)


def error(status: int, code: str) -> None:
    ERRORS.labels(str(status), code).inc()


def login_failed(reason: str) -> None:
    LOGIN_FAILURES.labels(reason).inc()


def rate_limited(limit: str) -> None:
    RATE_LIMITED.labels(limit).inc()


W = TypeVar("W")  # a round write
R = TypeVar("R")  # what the write of a round gives back


def timed_batches(write: Callable[[Sequence[W]], Awaitable[Sequence[R]]]
                  ) -> Callable[[Sequence[W]], Awaitable[Sequence[R]]]:
    """``write`` (a fast-path backend's batch writer), its batch sizes and times recorded."""
    async def timed(batch: Sequence[W]) -> Sequence[R]:
        started = time.perf_counter()
        try:
            return await write(batch)
        finally:
            BATCH_SECONDS.observe(time.perf_counter() - started)
            BATCH_ROUNDS.observe(len(batch))

    return timed


class DatabaseCollector(Collector):
    """Figures read from the database at each scrape."""

    def __init__(self, ctx: Services) -> None:
        self.ctx = ctx

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from datetime import timedelta

        from slotlab.store.models import (
            LIVE_STATUSES,
            OPEN,
            FreeRoundPackage,
            JackpotPool,
            Round,
            utcnow,
        )

        now = utcnow()
        grace = timedelta(seconds=self.ctx.settings.open_round_grace_s)
        live = GaugeMetricFamily("slotlab_rounds_live", "Rounds not settled yet, by status",
                                 labels=["status"])
        stuck = GaugeMetricFamily(
            "slotlab_rounds_interrupted", "Debited rounds still open after the grace "
            "period (a process died while playing them; the sweep settles them)")
        pools = GaugeMetricFamily("slotlab_jackpot_pool_minor_units", "Progressive pool values",
                                  labels=["game", "currency", "denomination", "tier"])
        packages = GaugeMetricFamily("slotlab_free_round_packages", "Free-round packages, by "
                                     "state", labels=["state"])
        left = GaugeMetricFamily("slotlab_free_rounds_left", "Free rounds granted and not "
                                 "played yet, in packages that have not expired")
        with self.ctx.db.read() as s:
            counts = dict(s.execute(select(Round.status, func.count())
                                    .where(Round.status.in_(LIVE_STATUSES))
                                    .group_by(Round.status)).all())
            for status in LIVE_STATUSES:
                live.add_metric([status], int(counts.get(status, 0)))
            stuck.add_metric([], int(s.scalar(
                select(func.count()).where(Round.status == OPEN,
                                           Round.updated_at < now - grace)) or 0))
            for game, currency, denom, tier, micro in s.execute(
                    select(JackpotPool.game_id, JackpotPool.currency, JackpotPool.denomination,
                           JackpotPool.tier, JackpotPool.value_micro)):
                pools.add_metric([game, currency, str(denom), tier], micro / 1_000_000)
            active = FreeRoundPackage.expires_at > now
            for state, where in (("active", active & (FreeRoundPackage.rounds_left > 0)),
                                 ("used_up", FreeRoundPackage.rounds_left == 0),
                                 ("expired", ~active & (FreeRoundPackage.rounds_left > 0))):
                packages.add_metric([state], int(s.scalar(
                    select(func.count()).select_from(FreeRoundPackage).where(where)) or 0))
            left.add_metric([], int(s.scalar(
                select(func.coalesce(func.sum(FreeRoundPackage.rounds_left), 0))
                .where(active)) or 0))
        yield from (live, stuck, pools, packages, left)


def exposition(ctx: Services | None, extra: Sequence[Collector] = ()) -> tuple[bytes, str]:
    """The ``/metrics`` body and its content type: this process's figures (every worker's in
    multiprocess mode) and the database's."""
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        body = generate_latest(registry)
    else:
        body = generate_latest(REGISTRY)
    db = CollectorRegistry()
    if ctx is not None:
        db.register(DatabaseCollector(ctx))
    for collector in extra:
        db.register(collector)
    # The classic text format's type: every Prometheus reads it (Debian 12's 2.42 included).
    return body + generate_latest(db), CONTENT_TYPE_PLAIN_0_0_4

