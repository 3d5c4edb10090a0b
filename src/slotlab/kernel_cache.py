"""Compile the games' kernels into numba's on-disk cache before they are needed.

numba compiles a kernel on its first call and keeps the machine code on disk (slotlab's folder
under ``~/.cache/slotlab/numba``, or ``NUMBA_CACHE_DIR``), valid while the source file keeps its
modification time: a new checkout, or a new machine, compiles every kernel again, a minute or
more for the largest games. Done here once, in parallel, every later process (a server start, a
simulation's workers, each test worker) loads them instead of compiling them on its own.
"""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any

from slotlab.rounds import Game

if TYPE_CHECKING:
    from slotlab.games.contract import AnyGame

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


def _round(game: Game) -> None:
    game.play(game.bets()[0], [bytes(32)], [])  # a fixed seed at the smallest bet


def play_once(game: Game) -> None:
    """Compile the kernels of a round (the server's path) with one round."""
    retried(functools.partial(_round, game), f"warm-up of {game.id}")


def _simulate(game: AnyGame) -> None:
    from slotlab.rng import chunk_stream

    game.simulate_chunk(game.bets()[0], 16, chunk_stream(0, 0))
    game.round_wins(game.bets()[0], 16, chunk_stream(0, 0))  # a player's session


def _exact(game: AnyGame) -> None:
    if game.exact is not None:
        game.exact(game.bets()[0])


def _has_exact(cls: type[AnyGame]) -> bool:
    return cls.exact is not None


# Each compiles its own top-level kernels, so the parts of one game compile in parallel too:
# part -> (whether a game class has it, how to compile it).
PARTS: dict[str, tuple[Callable[[type[AnyGame]], bool], Callable[[AnyGame], None]]] = {
    "round": (lambda cls: True, _round),
    "simulation": (lambda cls: True, _simulate),
    "exact": (_has_exact, _exact),
}


def _compile(ids: Sequence[str], part: str) -> float:
    from slotlab.games import find_game

    start = time.perf_counter()
    for gid in ids:  # the first compiles, the others of its family load
        retried(functools.partial(PARTS[part][1], find_game(gid)), f"compiling {gid}'s {part}")
    return time.perf_counter() - start


def _by_class(ids: Sequence[str]) -> dict[type[AnyGame], list[str]]:
    from slotlab.games import find_game

    groups: dict[type[AnyGame], list[str]] = {}
    for gid in ids:
        groups.setdefault(type(find_game(gid)), []).append(gid)
    return groups


def families(ids: Sequence[str]) -> list[list[str]]:
    """``ids`` grouped by game class: a family shares its kernels, so one process compiles them
    and its other games load them."""
    return list(_by_class(ids).values())


def compile_games(ids: Sequence[str], jobs: int | None = None
                  ) -> Iterator[tuple[list[str], str, float]]:
    """Compile the kernels of the games ``ids``: each part (round, simulation, exact RTP) of each
    family in a process of its own, ``jobs`` at once (default: one per core). Yields each
    family, part and its seconds as it finishes."""
    tasks = [(group, part) for cls, group in _by_class(ids).items()
             for part, (has, _) in PARTS.items() if has(cls)]
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks)))
    # Spawned, not forked: each child starts with no numba state of the parent's.
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        running = {pool.submit(_compile, group, part): (group, part) for group, part in tasks}
        for done in as_completed(running):
            group, part = running[done]
            yield group, part, done.result()
