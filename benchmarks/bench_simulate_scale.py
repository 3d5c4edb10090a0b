"""Simulation speed of each seed game at 1 and 2 workers, and the time 2,000 million rounds take.

Run: ``.venv/bin/python benchmarks/bench_simulate_scale.py [--rounds N] [--ray]``. For each of
super-12-stars, superstars and crystal-star-deluxe (smallest bet), after a warm-up, it times
``simulate`` on 1 worker (in this process) and on 2 worker processes, and with ``--ray`` on a
local 2-CPU Ray instance too (its workers warmed first); it prints rounds/s (wall clock) and the
projected wall time of ``--spins 2e9`` at that rate, and writes them to
``benchmarks/results/simulate_scale.json`` with the machine's load. Each run also gives rounds
per CPU-second (of this process, or of the pool's workers) and the share of the cores it got.
``--repeat K`` times each configuration K times, alternating them, and keeps each one's fastest
run, so that a change in the machine's load hits all of them alike. The whole 2e9 run itself is
``benchmarks/bench_simulate_2e9.py``: a projection from a short run is no substitute (rates per
CPU-second measured on a loaded machine once projected 95 s for a run that took 204 s).

Targets (issue 11): 2e9 rounds of each seed game under 10 minutes on 2 cores; a Ray run within
15 % of the local run's speed. On a busy machine the wall-clock figures are lower bounds.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import json
import multiprocessing
import os
import platform
import resource
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# slotlab before numba: it points numba's disk cache at the folder keyed on the kernels' source.
import slotlab

import numba

from slotlab.counts import parse_count
from slotlab.games import find_game
from slotlab.simulate.runner import Simulatable, simulate

RESULTS = Path(__file__).parent / "results" / "simulate_scale.json"
GAMES = ("super-12-stars", "superstars", "crystal-star-deluxe")
TARGET_SPINS = 2_000_000_000


def _measure(game: Simulatable, gid: str, bet: int, rounds: int, chunk: int,
             **where: Any) -> dict[str, Any]:
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu_s()
    result = simulate(game, gid, bet, rounds, seed=1, chunk_spins=chunk, **where)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rate = rounds / wall
    figures: dict[str, Any] = {"rounds": rounds, "seconds": wall, "rounds_per_s": rate,
                               "projected_2e9_s": TARGET_SPINS / rate, "rtp": result.rtp}
    if where.get("ray_address"):
        return figures
    if where.get("workers", 1) > 1:
        _reap_workers()
        cpu = _children_cpu_s() - children
    figures["cpu_s"] = cpu
    figures["rounds_per_cpu_s"] = rounds / cpu
    # The share of the cores the run got: under 1 where other work took the rest.
    figures["cpu_share"] = cpu / (wall * where.get("workers", 1))
    return figures


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _reap_workers(timeout_s: float = 30) -> None:
    """Wait for the pool's workers to exit, so that their CPU time is counted."""
    deadline = time.monotonic() + timeout_s
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=parse_count, default=40_000_000,
                        help="rounds per timed run (e.g. 4e7, 200M)")
    parser.add_argument("--chunk", type=parse_count, default=1 << 20, help="rounds per chunk")
    parser.add_argument("--ray", action="store_true", help="also time a local 2-CPU Ray instance")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time each configuration this many times, alternating; keep the best")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    report: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python benchmarks/bench_simulate_scale.py " + " ".join(sys.argv[1:]),
        "code_version": slotlab.CODE_VERSION,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "loadavg_before": list(os.getloadavg()), "python": platform.python_version(),
                    "numba": numba.__version__},
        "rounds": args.rounds, "chunk_spins": args.chunk, "repeat": args.repeat, "games": {},
    }
    if args.ray:
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    for gid in GAMES:
        game = find_game(gid)
        assert isinstance(game, Simulatable)
        bet = game.bets()[0]  # type: ignore[attr-defined]
        simulate(game, gid, bet, 100_000, seed=0)  # warm: kernels compiled or loaded from disk
        row: dict[str, Any] = {"bet": bet, "model_hash": game.model_hash}
        configs: dict[str, dict[str, Any]] = {"workers_1": {"workers": 1},
                                              "workers_2": {"workers": 2}}
        if args.ray:
            configs["ray_2_cpus"] = {"ray_address": "local"}
            # Warm the Ray workers: each loads the game and its kernels once.
            simulate(game, gid, bet, 4 * args.chunk, seed=0, chunk_spins=args.chunk,
                     ray_address="local")
        for _ in range(args.repeat):
            for name, where in configs.items():
                run = _measure(game, gid, bet, args.rounds, args.chunk, **where)
                if name not in row or run["rounds_per_s"] > row[name]["rounds_per_s"]:
                    row[name] = run
        row["speedup_2_over_1"] = (row["workers_2"]["rounds_per_s"]
                                   / row["workers_1"]["rounds_per_s"])
        if args.ray:
            row["ray_over_processes"] = (row["ray_2_cpus"]["rounds_per_s"]
                                         / row["workers_2"]["rounds_per_s"])
        report["games"][gid] = row
        one, two = row["workers_1"], row["workers_2"]
        line = (f"{gid:<20} bet {bet:>3}: 1 worker {one['rounds_per_s'] / 1e6:6.2f} M/s"
                f" ({one['rounds_per_cpu_s'] / 1e6:.2f} M per CPU-s, {one['cpu_share']:.0%} of a "
                f"core), 2 workers {two['rounds_per_s'] / 1e6:6.2f} M/s "
                f"({two['rounds_per_cpu_s'] / 1e6:.2f} M per CPU-s, {two['cpu_share']:.0%} of two "
                f"cores); 2e9 rounds on 2 workers: "
                f"{row['workers_2']['projected_2e9_s']:.0f} s at that rate")
        if args.ray:
            line += (f"; Ray (2 CPUs) {row['ray_2_cpus']['rounds_per_s'] / 1e6:.2f} M/s = "
                     f"{row['ray_over_processes']:.0%} of the process pool")
        print(line, flush=True)
    report["machine"]["loadavg_after"] = list(os.getloadavg())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
