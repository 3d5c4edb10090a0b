"""A model's figures per bet level, as the reports judge rounds by them: its RTP and its SD (with
where the SD came from), made once per server process, in a process of their own.

An exact report is Python arithmetic on fractions (Crystal Star Deluxe's: 0.16 s a bet level)
and an SD may be a 200,000-round simulation: made in the serving process they hold the
interpreter for seconds, and every round the process serves meanwhile waits (measured: a
32-client level of the production mix fell from about 1,400 to 900 rounds/s, p99 200 ms, at the
live RTP watch's first check). So the server's :class:`ModelFigures` makes them in one spawned
worker process, started at the first need and stopped with the server, for the live RTP watch
(:mod:`.rtp_watch`) and the games report (:func:`.reports.games_report`) alike. A model that
cannot be sent there (an embedder's own class, say) is measured in the serving process.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import threading
from collections.abc import Iterable
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from typing import Any

from slotlab.server.services.catalog import GameEntry

log = logging.getLogger("slotlab.server")
Key = tuple[str, str, int]  # figures_key: the game, its model and the bet
Figures = tuple[float | None, tuple[float | None, str | None]]  # RTP; SD and its source


SIM_ROUNDS = 200_000  # a simulated SD's rounds (seed 0)


def figures_key(entry: GameEntry, bet_credits: int) -> Key:
    """What a model's figures are kept by: the game, its model and the bet."""
    return entry.id, entry.game.model_hash, bet_credits


def level_figures(entry: GameEntry, credits: int) -> Figures:
    """A level's model figures, as the figures process makes them: its RTP and its SD."""
    return theoretical_rtp(entry, credits), made_sd(entry, credits)


def theoretical_rtp(entry: GameEntry, bet_credits: int) -> float | None:
    """The model's RTP at this bet: its exact report's where the game has exact math; for a
    game whose report simulates a feature (``composed``: a million Bonus Games, tens of seconds
    of a core) the figure the catalogue offers, which that simulation proves in the game's
    tests. A scrape or a report is never the place for a long simulation."""
    exact = entry.game.exact
    if exact is not None and entry.game.composed is None:
        try:
            v = float_or_none(exact(bet_credits)["rtp"])
            if v is not None:
                return v
        except Exception:
            pass
    return entry.rtp


def made_sd(entry: GameEntry, bet_credits: int) -> tuple[float | None, str | None]:
    """SD of one round's return per unit bet, and where it came from (``model``/``simulation``):
    the model's, else a simulation's."""
    game = entry.game
    if game.sd is not None:
        try:
            sd = float_or_none(game.sd())
        except Exception:
            log.exception("sd() of %s failed", entry.id)
            sd = None
        if sd is not None:
            return sd, "model"
    simulation = game.simulation
    if simulation is None:
        return None, None
    from slotlab.simulate.runner import simulate

    try:
        res = simulate(simulation, game.id, bet_credits, SIM_ROUNDS, seed=0)
    except Exception:
        log.exception("simulating %s at %s for its SD failed", entry.id, bet_credits)
        return None, None
    sd = float_or_none(res.sd)
    return sd, None if sd is None else "simulation"


def float_or_none(x: Any) -> float | None:
    """A finite, non-negative figure, else None."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v >= 0 else None


class ModelFigures:
    """The figures of the levels a server process has needed. ``separate=False``: made in the
    calling process (a report run outside a server)."""

    def __init__(self, separate: bool = True) -> None:
        self._separate = separate
        self._made: dict[Key, Figures] = {}
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None  # started when first needed
        self._closed = False

    def known(self, entry: GameEntry, credits: int) -> Figures | None:
        """The level's figures if made already (a scrape never waits for them)."""
        return self._made.get(figures_key(entry, credits))

    def of(self, levels: Iterable[tuple[GameEntry, int]]) -> dict[Key, Figures]:
        """The figures of these levels (model, bet in credits), those not made yet made now,
        and waited for. A level left unmade (the server stopping) is left out."""
        needed = {figures_key(entry, credits): (entry, credits)
                  for entry, credits in levels}
        todo = {k: level for k, level in needed.items() if k not in self._made}
        futures = self._submit(todo) if todo else {}
        for k, (entry, credits) in todo.items():
            future = futures.get(k)
            try:
                figures = (future.result() if future is not None
                           else level_figures(entry, credits))
            except CancelledError:  # the server is stopping
                continue
            except Exception:
                log.info("%s: its figures are made in the serving process", entry.id,
                         exc_info=True)
                figures = level_figures(entry, credits)
            self._made[k] = figures
        return {k: self._made[k] for k in needed if k in self._made}

    def _submit(self, todo: dict[Key, tuple[GameEntry, int]]) -> dict[Key, Future[Figures]]:
        if not self._separate:
            return {}
        with self._lock:
            if self._pool is None and not self._closed:
                self._pool = ProcessPoolExecutor(
                    1, mp_context=multiprocessing.get_context("spawn"))
            pool = self._pool
        if pool is None:  # the server is stopping: nothing is made
            return {k: _cancelled() for k in todo}
        return {k: pool.submit(level_figures, entry, credits)
                for k, (entry, credits) in todo.items()}

    def close(self) -> None:
        """Stop the figures process, if started."""
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _cancelled() -> Future[Figures]:
    future: Future[Figures] = Future()
    future.cancel()
    return future
