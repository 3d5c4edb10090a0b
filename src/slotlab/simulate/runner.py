"""Monte Carlo runner: splits a simulation into fixed chunks and merges their sums.

Chunk ``i`` always covers the same spins and draws from ``chunk_stream(seed, i)``, and chunks are
merged in index order whatever order they finish in, so the result for a seed is identical
whatever the number of workers, processes or machines, and whether the run was resumed from a
checkpoint. Chunks run in this process (``workers=1``), in a process pool, or on a Ray cluster
(``ray_address``), where a chunk lost with its node is submitted again.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import slotlab
from slotlab.rng import chunk_stream
from slotlab.rounds import Simulatable
from slotlab.simulate.checkpoint import Checkpoint, JobIdentity
from slotlab.simulate.stats import (
    ACC_BANDS,
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_HITS,
    ACC_MAX,
    ACC_MAX_COUNT,
    ACC_SPINS,
    ACC_TOP,
    ACC_WIN,
    N_BANDS,
    Z99,
    SimulationResult,
    merge,
)

CHUNK_SPINS = 1 << 20
RAY_ATTEMPTS = 4  # runs of one chunk on a Ray cluster before its loss fails the simulation
RAY_WINDOW = 4  # Ray tasks in flight per cluster CPU

Chunk = tuple[np.ndarray, np.ndarray]

# The code whose edit can change a simulation's figures (a checkpoint's ``simulation_code``).
_SIMULATION_SOURCES = ("rng.py", "mechanics", "games", "simulate/runner.py", "simulate/stats.py")


@dataclass(frozen=True)
class RunProgress:
    """Where a running simulation stands, after each finished chunk (in any order)."""

    bet: int
    spins_total: int
    spins_done: int
    spins_resumed: int  # taken from the checkpoint, not run now
    chunks_total: int
    chunks_done: int
    chunks_rerun: int
    total_win: int
    sum_sq: float

    @property
    def rtp(self) -> float:
        return self.total_win / (self.spins_done * self.bet) if self.spins_done else math.nan

    @property
    def ci99(self) -> tuple[float, float]:
        if not self.spins_done:
            return math.nan, math.nan
        mean = self.rtp
        sd = math.sqrt(max(self.sum_sq / self.spins_done - mean * mean, 0.0))
        half = Z99 * sd / math.sqrt(self.spins_done)
        return mean - half, mean + half


def chunk_plan(spins: int, chunk_spins: int = CHUNK_SPINS) -> list[tuple[int, int]]:
    """``(chunk index, spins in it)`` for every chunk of a run."""
    if spins <= 0:
        raise ValueError("the number of spins must be positive")
    if chunk_spins <= 0:
        raise ValueError("the spins per chunk must be positive")
    full, rest = divmod(spins, chunk_spins)
    plan = [(i, chunk_spins) for i in range(full)]
    if rest:
        plan.append((full, rest))
    return plan


@cache
def simulation_code() -> str:
    """Digest of the code that computes a simulation's figures (as this process loaded it)."""
    return slotlab._source_digest(_SIMULATION_SOURCES)[:16]


# --- where chunks run -------------------------------------------------------------------------

def _in_process(game: Simulatable, bet: int, seed: int,
                todo: list[tuple[int, int]]) -> Iterator[tuple[int, Chunk]]:
    for index, n in todo:
        yield index, game.simulate_chunk(bet, n, chunk_stream(seed, index))


_POOL_GAME: Simulatable | None = None  # set before the pool forks; its workers inherit it


def _pool_worker_init(parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent handles it and stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform == "linux":
        # Die with the parent: a kill -9 of the run must not leave workers computing on.
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)


def _pool_chunk(bet: int, seed: int, index: int, spins: int) -> tuple[int, Chunk]:
    assert _POOL_GAME is not None
    return index, _POOL_GAME.simulate_chunk(bet, spins, chunk_stream(seed, index))


def _in_pool(game: Simulatable, bet: int, seed: int, todo: list[tuple[int, int]],
             workers: int) -> Iterator[tuple[int, Chunk]]:
    global _POOL_GAME
    _POOL_GAME = game
    # Load (or compile) the game's kernel here, once, on a throwaway stream: the forked workers
    # inherit it instead of each loading it from numba's cache (0.3-0.4 s of CPU a worker).
    game.simulate_chunk(bet, 1, chunk_stream(seed, 0))
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork"),
                               initializer=_pool_worker_init, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(_pool_chunk, bet, seed, i, n) for i, n in todo]
        for future in as_completed(futures):
            yield future.result()
    finally:
        # On Ctrl-C or an error: drop the chunks not started; a running one ends within a chunk.
        pool.shutdown(wait=False, cancel_futures=True)
        _POOL_GAME = None


_SOURCE_GAMES: dict[str, Simulatable] = {}  # per Ray worker process, by model hash


def _source_chunk(source: tuple[str, str, Any], bet: int, seed: int, index: int,
                  spins: int) -> Chunk:
    """A chunk on a Ray worker, its game built from the model's data sent with the task (so the
    workers need no copy of a model file) or found by id."""
    from slotlab.games import find_game, game_from_source

    model_hash, kind, data = source
    game = _SOURCE_GAMES.get(model_hash)
    if game is None:
        game = _SOURCE_GAMES[model_hash] = (find_game(data) if kind == "ref"
                                            else game_from_source(kind, data))
    return game.simulate_chunk(bet, spins, chunk_stream(seed, index))


def _game_source(game: Simulatable, game_ref: str) -> tuple[str, str, Any]:
    """What a Ray task sends: a family game's model data, or else the reference to load."""
    from slotlab.games.contract import FamilyGame

    if not isinstance(game, FamilyGame):
        return game.model_hash, "ref", game_ref
    family, data = game.model_source()
    return game.model_hash, family, data


class RayConnectError(RuntimeError):
    """The Ray cluster cannot be reached or used; the message says why in one line."""


class ChunkLostError(RuntimeError):
    """A chunk was lost on the Ray cluster more often than it may be run again."""


def _reachable(host: str, port: int, timeout_s: float = 3.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def _token_hint(address: str) -> str:
    """Ray (2.5x and later) starts clusters with token authentication, and sends the token only
    to a cluster it finds by itself (``auto``): an explicit address needs RAY_AUTH_MODE=token."""
    if address in ("local", "auto") or os.environ.get("RAY_AUTH_MODE"):
        return ""
    return ("; if the cluster uses token authentication (Ray's default), set RAY_AUTH_MODE=token "
            "and its token in RAY_AUTH_TOKEN or ~/.ray/auth_token (`ray get-auth-token` on the "
            "head prints it)")


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
            raise RayConnectError(f"cannot join the Ray cluster at {address}: {first}"
                                  + _token_hint(address)) from exc
    return max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]


def _on_ray(game: Simulatable, game_ref: str, bet: int, seed: int,
            todo: list[tuple[int, int]], rerun: set[int], workers: int
            ) -> Iterator[tuple[int, Chunk]]:
    """Chunks as Ray tasks. A task lost with its worker or node (a system failure, not an error
    in the chunk) is run again, up to ``RAY_ATTEMPTS`` times; ``rerun`` collects those chunks.

    At most ``RAY_WINDOW`` tasks per CPU are in flight: enough that no worker waits for the
    driver, few enough that the driver's waits stay cheap (waiting on all 1,908 chunks of a 2e9
    run at once cost the driver a share of the CPUs the workers need on a small machine)."""
    import ray
    from ray.exceptions import RayError, RayTaskError

    # Retried here rather than by Ray, so that the reruns are counted and reported.
    remote = ray.remote(max_retries=0)(_source_chunk)
    source = ray.put(_game_source(game, game_ref))
    pending: dict[Any, tuple[int, int, int]] = {}

    def submit(index: int, spins: int, attempt: int) -> None:
        pending[remote.remote(source, bet, seed, index, spins)] = (index, spins, attempt)

    queue = iter(todo)
    window = RAY_WINDOW * workers

    def top_up() -> None:
        for index, spins in itertools.islice(queue, max(0, window - len(pending))):
            submit(index, spins, 1)

    top_up()
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            index, spins, attempt = pending.pop(done[0])
            try:
                chunk = ray.get(done[0])
            except RayTaskError:
                raise  # the chunk itself failed: running it again would fail again
            except RayError as exc:
                if attempt >= RAY_ATTEMPTS:
                    raise ChunkLostError(f"chunk {index} was lost {attempt} times on the Ray "
                                         f"cluster: {type(exc).__name__}") from exc
                rerun.add(index)
                submit(index, spins, attempt + 1)
                continue
            top_up()
            yield index, chunk
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


@dataclass
class _Tally:
    """Running totals of the finished chunks, in the order they finish (for progress only)."""

    chunks: int = 0
    spins: int = 0
    win: int = 0
    sum_sq: float = 0.0

    def add(self, chunk: Chunk) -> None:
        self.chunks += 1
        self.spins += int(chunk[0][ACC_SPINS])
        self.win += int(chunk[0][ACC_WIN])
        self.sum_sq += float(chunk[1][0])


# --- the run ----------------------------------------------------------------------------------

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
    on_progress: Callable[[RunProgress], None] | None = None,
    checkpoint: Path | str | None = None,
) -> SimulationResult:
    """Simulate ``spins`` rounds of ``game`` at total bet ``bet`` (credits).

    ``game_ref`` names the game for other machines where its model's data cannot be sent (a game
    id or a model path). ``on_chunk`` sees each chunk's sums in chunk order as it is merged (for
    convergence plots); ``on_progress`` sees the run's state once at the start and after every
    chunk that finishes, in any order (for progress bars). With ``checkpoint``, every finished
    chunk is on disk in that file before it is reported, and the chunks already there are not run
    again (:class:`~slotlab.simulate.checkpoint.CheckpointError` if the file is another job's).
    """
    plan = chunk_plan(spins, chunk_spins)
    started = time.perf_counter()
    sim_code = simulation_code()
    store: Checkpoint | None = None
    if checkpoint is not None:
        job = JobIdentity(model_hash=game.model_hash, simulation_code=sim_code, bet=bet,
                          seed=seed, spins=spins, chunk_spins=chunk_spins)
        store = Checkpoint(Path(checkpoint), job, {"game": game.id,
                                                  "code_version": slotlab.CODE_VERSION})
    try:
        finished: dict[int, Chunk] = dict(store.chunks) if store else {}
        resumed = len(finished)
        todo = [(i, n) for i, n in plan if i not in finished]
        rerun: set[int] = set()  # chunks run again after their Ray node or worker was lost
        if ray_address:
            workers = connect_ray(ray_address)
            backend = "ray"
            chunks = _on_ray(game, game_ref, bet, seed, todo, rerun, workers)
        elif workers > 1 and len(todo) > 1:
            backend = "processes"
            chunks = _in_pool(game, bet, seed, todo, min(workers, len(todo)))
        else:
            workers, backend = 1, "in-process"
            chunks = _in_process(game, bet, seed, todo)

        tally = _Tally()
        for chunk in finished.values():
            tally.add(chunk)
        resumed_spins = tally.spins

        def report() -> None:
            if on_progress is not None:
                on_progress(RunProgress(
                    bet=bet, spins_total=spins, spins_done=tally.spins,
                    spins_resumed=resumed_spins, chunks_total=len(plan),
                    chunks_done=tally.chunks, chunks_rerun=len(rerun),
                    total_win=tally.win, sum_sq=tally.sum_sq))

        report()
        total: Chunk | None = None
        next_index = 0  # chunks are merged in index order, whatever order they finish in

        def merge_ready() -> None:
            nonlocal total, next_index
            while next_index in finished:
                chunk = finished.pop(next_index)
                if total is None:
                    total = (chunk[0].copy(), chunk[1].copy())
                else:
                    merge(total, chunk)
                if on_chunk is not None:
                    on_chunk(chunk)
                next_index += 1

        merge_ready()
        for index, chunk in chunks:
            if store is not None:
                store.add(index, chunk)  # on disk before it counts as done
            finished[index] = chunk
            tally.add(chunk)
            merge_ready()
            report()
        assert total is not None and next_index == len(plan)
    finally:
        if store is not None:
            store.close()
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
        top_wins=[int(x) for x in acc[ACC_TOP:] if x > 0],
        workers=workers,
        code_version=slotlab.CODE_VERSION,
        simulation_code=sim_code,
        backend=backend,
        chunk_spins=chunk_spins,
        chunks=len(plan),
        resumed_chunks=resumed,
        resumed_spins=resumed_spins,
        chunks_rerun=len(rerun),
    )
