"""Compile the games' kernels into numba's on-disk cache before they are needed.

numba compiles a kernel on its first call and keeps it beside the source (``__pycache__``, or
``NUMBA_CACHE_DIR``), keyed on the source file's modification time: a new checkout compiles every
kernel again, a minute or more per game. Done here once, one process per game family in
parallel, every later process (a server start, a simulation's workers, each test worker) loads
them instead of compiling them again, each on its own.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from slotlab.rounds import Game

log = logging.getLogger("slotlab.kernels")


def retried(call: Callable[[], Any], what: str, tries: int = 3) -> None:
    """Run ``call``, again on failure: numba's cache can be caught half-written by another
    process compiling the same kernels."""
    for attempt in range(tries):
        try:
            call()
            return
        except Exception:
            if attempt == tries - 1:
                raise
            log.warning("%s failed; retrying", what, exc_info=True)


def play_once(game: Game, bet: int) -> None:
    """Compile the kernels of a round (the server's path) with one round on a fixed seed."""
    retried(lambda: game.play(bet, [bytes(32)], []), f"warm-up of {game.id}")


def compile_game(game: Game) -> None:
    """Compile every kernel of ``game``: a round, a simulation chunk and the exact RTP."""
    from slotlab.rng import chunk_stream

    bet = game.bets()[0]
    play_once(game, bet)
    simulate_chunk = getattr(game, "simulate_chunk", None)
    if simulate_chunk is not None:
        retried(lambda: simulate_chunk(bet, 16, chunk_stream(0, 0)), f"simulation of {game.id}")
    exact = getattr(game, "exact", None)
    if exact is not None:
        retried(lambda: exact(bet), f"exact RTP of {game.id}")


def _compile_family(ids: Sequence[str]) -> float:
    from slotlab.games import find_game

    start = time.perf_counter()
    for gid in ids:
        compile_game(find_game(gid))
    return time.perf_counter() - start


def families(ids: Sequence[str]) -> list[list[str]]:
    """``ids`` grouped by game class: a family shares its kernels, so one process compiles them
    and its other games load them. Largest families first."""
    from slotlab.games import find_game

    groups: dict[type, list[str]] = {}
    for gid in ids:
        groups.setdefault(type(find_game(gid)), []).append(gid)
    return sorted(groups.values(), key=len, reverse=True)


def compile_games(ids: Sequence[str], jobs: int | None = None
                  ) -> Iterator[tuple[list[str], float]]:
    """Compile the kernels of the games ``ids``, a process per family, ``jobs`` at once (default:
    one per core); yields each family and its seconds as it finishes."""
    groups = families(ids)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(groups)))
    # Spawned, not forked: each child starts with no numba state of the parent's.
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(_compile_family, group): group for group in groups}
        for done in as_completed(running):
            yield running[done], done.result()
