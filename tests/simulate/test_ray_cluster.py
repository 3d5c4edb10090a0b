"""A simulation on a real multi-node Ray cluster that loses a worker node midway: only the chunk the
node was running is run again, on the other node, and the result is the local run's for the seed.
The model is an edited copy held in memory only, so the nodes build it from the data sent along.

The cluster is three Ray nodes on this machine (``ray.cluster_utils.Cluster``): a head without
CPUs, so that every chunk runs on a worker node, and two worker nodes of one CPU each. Its head
listens on a free port (6379 is taken here) and it keeps its files in its own temporary folder,
so that no other Ray instance on the machine finds it. Cost: about 30 s on two busy cores (the
nodes' start is most of it); it is stopped after ``DEADLINE_S``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slotlab.games import find_game, game_from_source, model_source
from slotlab.simulate.runner import RunProgress, Simulatable, simulate

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

GAME, BET, SEED = "fruit-5x3", 30, 9
CHUNK = 1 << 21  # 0.25 s of a core each: a node is lost inside a chunk, not between two
CHUNKS = 16
DEADLINE_S = 240
# How the run went, not what it computed.
RUN_ONLY = {"seconds", "spins_per_second", "backend", "workers", "chunks_rerun"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _figures(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in RUN_ONLY}


@pytest.fixture
def deadline() -> Iterator[None]:
    """Fail the test, rather than hang the suite, if the cluster stalls."""
    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"the Ray cluster test ran past {DEADLINE_S} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(DEADLINE_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def cluster(monkeypatch: pytest.MonkeyPatch, deadline: None) -> Iterator[Any]:
    root = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's sockets live here
    monkeypatch.setenv("RAY_TMPDIR", str(root))  # where Ray notes the cluster for ray.init()
    temp_dir = str(root / "ray")
    os.mkdir(temp_dir)
    made = cluster_utils.Cluster(initialize_head=True, head_node_args={
        "gcs_server_port": _free_port(), "num_cpus": 0, "include_dashboard": False,
        "temp_dir": temp_dir})
    try:
        for _ in range(2):
            made.add_node(num_cpus=1, temp_dir=temp_dir)
        made.wait_for_nodes()
        yield made
    finally:
        ray.shutdown()
        made.shutdown()
        shutil.rmtree(root, ignore_errors=True)


def test_a_lost_worker_node_costs_only_its_chunk_and_the_result_is_the_local_one(cluster):
    # An edited model that is no file and no id: its data travels with the tasks.
    family, data = model_source(find_game(GAME))
    game = game_from_source(family, {**data, "id": "fruit-edited"})
    assert isinstance(game, Simulatable)
    local = simulate(game, "", BET, CHUNKS * CHUNK, seed=SEED, chunk_spins=CHUNK).to_json()
    lost_node = sorted(cluster.worker_nodes, key=lambda node: node.unique_id)[0]
    removed_at: list[int] = []
    # Half a chunk after a chunk ended, both nodes are well inside their next one, whichever
    # node ended it: long enough for its next task to start, on a busy machine too (a fixed
    # 50 ms once found the node between two tasks), too short for that task to end.
    pause_s = max(0.05, local["seconds"] / CHUNKS / 2)

    def lose_a_node(state: RunProgress) -> None:
        if state.chunks_done >= 4 and not removed_at:
            time.sleep(pause_s)
            cluster.remove_node(lost_node, allow_graceful=False)
            removed_at.append(state.chunks_done)

    on_ray = simulate(game, "", BET, CHUNKS * CHUNK, seed=SEED, chunk_spins=CHUNK,
                      ray_address=cluster.address, on_progress=lose_a_node).to_json()
    assert removed_at and removed_at[0] < CHUNKS - 2  # the node went in the middle of the run
    assert len(cluster.worker_nodes) == 1
    assert on_ray["backend"] == "ray" and on_ray["workers"] == 2
    # One CPU on the lost node: the one chunk it was running is the one run again.
    assert on_ray["chunks_rerun"] == 1, on_ray
    assert _figures(on_ray) == _figures(local)
