"""Monte Carlo runner: splits a simulation into fixed chunks and merges their sums.

Chunk ``i`` always covers the same spins and draws from ``chunk_stream(seed, i)``, so the result
for a seed is identical whatever the number of workers, processes or machines. Chunks run in
this process (``workers=1``), in a process pool, or on a Ray cluster (``ray_address``).
"""

from __future__ import annotations

import multiprocessing
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol, runtime_checkable

import numpy as np

from slotlab.rng import chunk_stream
from slotlab.simulate.stats import (
    ACC_BANDS,
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_HITS,
    ACC_MAX,
    ACC_MAX_COUNT,
    ACC_SPINS,
    ACC_WIN,
    N_BANDS,
    SimulationResult,
    merge,
)

CHUNK_SPINS = 1 << 20

Chunk = tuple[np.ndarray, np.ndarray]


@runtime_checkable
class Simulatable(Protocol):
    id: str
    model_hash: str

    def simulate_chunk(self, bet: int, spins: int, stream: np.ndarray) -> Chunk:
        """Play ``spins`` rounds (collecting at every choice) and return their running sums."""
        ...

    def component_names(self) -> list[str]:
        """Names of the win components the kernel accumulates, in slot order."""
        ...


def chunk_plan(spins: int, chunk_spins: int = CHUNK_SPINS) -> list[tuple[int, int]]:
    """``(chunk index, spins in it)`` for every chunk of a run."""
    if spins <= 0:
        raise ValueError("the number of spins must be positive")
    full, rest = divmod(spins, chunk_spins)
    plan = [(i, chunk_spins) for i in range(full)]
    if rest:
        plan.append((full, rest))
    return plan


def _run_chunk(game_ref: str, bet: int, seed: int, index: int, spins: int) -> Chunk:
    from slotlab.games import find_game  # imported here so workers load the game themselves

    game = find_game(game_ref)
    return game.simulate_chunk(bet, spins, chunk_stream(seed, index))


def _local_chunks(
    game: Simulatable, game_ref: str, bet: int, seed: int, plan: list[tuple[int, int]],
    workers: int,
) -> Iterator[Chunk]:
    if workers <= 1:
        for index, n in plan:
            yield game.simulate_chunk(bet, n, chunk_stream(seed, index))
        return
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_run_chunk, game_ref, bet, seed, i, n) for i, n in plan]
        for future in futures:
            yield future.result()


class RayConnectError(RuntimeError):
    """The Ray cluster cannot be reached or used; the message says why in one line."""


def _reachable(host: str, port: int, timeout_s: float = 3.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def connect_ray(address: str) -> int:
    """Join the Ray cluster at ``address`` (``local`` starts one in this process, ``auto`` finds
    the one this machine belongs to); returns the cluster's CPUs, its workers.

    An explicit ``host:port`` or ``ray://host:port`` is checked with a plain TCP connect first, so
    a wrong address fails in seconds with one line instead of Ray's long retry and traceback.
    """
    try:
        import ray
    except ImportError as exc:
        raise RayConnectError("Ray is not installed: pip install 'slotlab[ray]'") from exc
    if not ray.is_initialized():
        target: str | None = None if address == "local" else address
        if address not in ("local", "auto"):
            hostport = address.removeprefix("ray://")
            host, _, port = hostport.rpartition(":")
            if not host or not port.isdigit():
                raise RayConnectError(f"Ray address {address!r} is not host:port, "
                                      "ray://host:port, 'auto' or 'local'")
            if address.startswith("ray://"):
                try:
                    import grpc  # noqa: F401
                    import ray.util.client
                except ImportError as exc:
                    raise RayConnectError("ray:// addresses need Ray Client: "
                                          "pip install 'ray[client]'") from exc
            if not _reachable(host, int(port)):
                raise RayConnectError(f"no Ray cluster answers at {hostport}")
        try:
            ray.init(address=target, include_dashboard=False, log_to_driver=False)
        except Exception as exc:  # Ray raises many kinds; the operator needs one line
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RayConnectError(f"cannot join the Ray cluster at {address}: {first}") from exc
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _ray_chunks(
    game_ref: str, bet: int, seed: int, plan: list[tuple[int, int]]
) -> Iterator[Chunk]:
    import ray

    remote = ray.remote(_run_chunk)
    refs = [remote.remote(game_ref, bet, seed, i, n) for i, n in plan]
    for ref in refs:
        yield ray.get(ref)


def simulate(
    game: Simulatable,
    game_ref: str,
    bet: int,
    spins: int,
    seed: int = 0,
    workers: int = 1,
    ray_address: str | None = None,
    chunk_spins: int = CHUNK_SPINS,
    on_chunk: Callable[[Chunk], None] | None = None,
) -> SimulationResult:
    """Simulate ``spins`` rounds of ``game`` at total bet ``bet`` (credits).

    ``game_ref`` is what other processes pass to ``find_game`` (a game id or a model path);
    with one local worker the chunks run here on ``game`` itself. ``on_chunk`` sees each
    chunk's sums, in chunk order, as it is merged (for progress bars and convergence plots).
    """
    plan = chunk_plan(spins, chunk_spins)
    started = time.perf_counter()
    if ray_address:
        workers = connect_ray(ray_address)
        chunks = _ray_chunks(game_ref, bet, seed, plan)
    else:
        chunks = _local_chunks(game, game_ref, bet, seed, plan, workers)
    total: Chunk | None = None
    for chunk in chunks:
        if total is None:
            total = (chunk[0].copy(), chunk[1].copy())
        else:
            merge(total, chunk)
        if on_chunk is not None:
            on_chunk(chunk)
    assert total is not None
    seconds = time.perf_counter() - started
    acc, sq = total
    names = game.component_names()
    return SimulationResult(
        model_hash=game.model_hash,
        game=game.id,
        bet=bet,
        seed=seed,
        spins=int(acc[ACC_SPINS]),
        seconds=seconds,
        total_win=int(acc[ACC_WIN]),
        sum_sq=float(sq[0]),
        hits=int(acc[ACC_HITS]),
        max_win=int(acc[ACC_MAX]),
        max_win_count=int(acc[ACC_MAX_COUNT]),
        features=int(acc[ACC_FEATURES]),
        components={name: int(acc[ACC_COMPONENTS + i]) for i, name in enumerate(names)},
        bands=[int(x) for x in acc[ACC_BANDS : ACC_BANDS + N_BANDS]],
        workers=workers,
    )
