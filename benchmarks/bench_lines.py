"""Throughput of the line-game kernel: rounds per second per core, and the cold compile time.

    .venv/bin/python benchmarks/bench_lines.py [--rounds N] [--runner-rounds N]

For fruit-5x3 (bet 30) and classic-3x3 (bet 5) it prints and writes to
``benchmarks/results/lines.json``:

* ``kernel``: ``kernel.simulate_rounds`` called directly on one core (best of ``--repeats``),
  as wall-clock rounds/s and as rounds per CPU-second of this process (the latter is less
  disturbed by other load on a shared machine);
* ``runner_w1`` / ``runner_w2``: ``slotlab.simulate.runner.simulate`` with 1 and 2 workers
  (chunks of ``CHUNK_SPINS``; 2 workers include starting the process pool), best wall-clock
  rounds/s and rounds per CPU-second of this process and its workers (per core), and whether
  both gave the same sums;
* ``cold_compile_s``: in a fresh interpreter with an empty ``NUMBA_CACHE_DIR``, the seconds of the
  first ``simulate_chunk`` (compiling the simulation kernel) and of the first ``play`` (compiling
  the traced round), after imports.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# slotlab before numba: importing slotlab points numba's disk cache at a folder keyed on the
# package's source (see slotlab/__init__.py), which numba reads when it is first imported.
import slotlab  # noqa: F401

import numba
import numpy as np

from slotlab.games import find_game
from slotlab.games.lines import kernel
from slotlab.rng import chunk_stream
from slotlab.simulate.runner import simulate
from slotlab.simulate.stats import new_accumulators

MODELS = (("fruit-5x3", 30), ("classic-3x3", 5))
RESULTS = Path(__file__).parent / "results" / "lines.json"

COLD = """
import time, sys
t0 = time.perf_counter()
from slotlab.games import find_game
from slotlab.rng import chunk_stream
game = find_game(sys.argv[1]); bet = int(sys.argv[2])
t1 = time.perf_counter()
game.simulate_chunk(bet, 10, chunk_stream(1, 0))
t2 = time.perf_counter()
game.play(bet, [bytes(32)])
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2)
"""


def bench_kernel(gid: str, bet: int, rounds: int, repeats: int) -> dict[str, float]:
    game = find_game(gid)
    m = game._packed
    level = bet // game.model.divisor
    acc, sq = new_accumulators()
    kernel.simulate_rounds(m, chunk_stream(0, 0), 1000, level, bet, acc, sq, *kernel.scratch(m))
    best_wall, best_cpu = 0.0, 0.0
    for rep in range(repeats):
        acc, sq = new_accumulators()
        scratch = kernel.scratch(m)
        stream = chunk_stream(rep + 1, 0)
        w0, c0 = time.perf_counter(), time.process_time()
        kernel.simulate_rounds(m, stream, rounds, level, bet, acc, sq, *scratch)
        w1, c1 = time.perf_counter(), time.process_time()
        best_wall = max(best_wall, rounds / (w1 - w0))
        best_cpu = max(best_cpu, rounds / max(c1 - c0, 1e-9))
    return {"rounds": rounds, "rounds_per_s": best_wall, "rounds_per_cpu_s": best_cpu}


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def bench_runner(gid: str, bet: int, rounds: int, workers: int, repeats: int) -> dict[str, object]:
    game = find_game(gid)
    simulate(game, gid, bet, 10_000, seed=0, workers=1)  # warm (compiled or cached)
    best_wall, best_cpu, result = 0.0, 0.0, None
    for _ in range(repeats):
        c0 = _cpu_seconds()
        result = simulate(game, gid, bet, rounds, seed=1, workers=workers)
        cpu = _cpu_seconds() - c0
        best_wall = max(best_wall, rounds / result.seconds)
        best_cpu = max(best_cpu, rounds / cpu)
    assert result is not None
    return {"rounds": rounds, "workers": workers, "rounds_per_s": best_wall,
            "rounds_per_cpu_s": best_cpu, "rtp": result.rtp, "total_win": result.total_win,
            "sum_sq": result.sum_sq}


def cold_compile(gid: str, bet: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", COLD, gid, str(bet)], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
    imports, sim, play = (float(x) for x in out)
    return {"imports_s": imports, "simulate_compile_s": sim, "play_compile_s": play}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5_000_000, help="rounds per kernel run")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runner-rounds", type=int, default=8 << 20)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    report: dict[str, object] = {
        "machine": {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "loadavg_at_start": list(os.getloadavg()), "python": platform.python_version(),
                    "numba": numba.__version__, "numpy": np.__version__},
        "command": "python benchmarks/bench_lines.py " + " ".join(sys.argv[1:]),
        "models": {},
    }
    for gid, bet in MODELS:
        row: dict[str, object] = {"bet": bet}
        row["kernel"] = bench_kernel(gid, bet, args.rounds, args.repeats)
        row["runner_w1"] = bench_runner(gid, bet, args.runner_rounds, 1, args.repeats)
        row["runner_w2"] = bench_runner(gid, bet, args.runner_rounds, 2, args.repeats)
        w1, w2 = row["runner_w1"], row["runner_w2"]
        row["runner_w1_equals_w2"] = (w1["total_win"], w1["sum_sq"]) == (  # type: ignore[index]
            w2["total_win"], w2["sum_sq"])  # type: ignore[index]
        row["cold_compile_s"] = cold_compile(gid, bet)
        report["models"][gid] = row  # type: ignore[index]
        k, c = row["kernel"], row["cold_compile_s"]
        print(f"{gid:12s} kernel {k['rounds_per_s'] / 1e6:6.2f} M rounds/s "  # type: ignore[index]
              f"({k['rounds_per_cpu_s'] / 1e6:.2f} M per CPU-s)  "  # type: ignore[index]
              f"runner w1 {row['runner_w1']['rounds_per_s'] / 1e6:6.2f} M/s "  # type: ignore[index]
              f"({row['runner_w1']['rounds_per_cpu_s'] / 1e6:.2f} per CPU-s)  "  # type: ignore[index]
              f"w2 {row['runner_w2']['rounds_per_s'] / 1e6:6.2f} M/s "  # type: ignore[index]
              f"({row['runner_w2']['rounds_per_cpu_s'] / 1e6:.2f} per CPU-s)  "  # type: ignore[index]
              f"cold compile: simulate {c['simulate_compile_s']:.1f} s, "  # type: ignore[index]
              f"play {c['play_compile_s']:.1f} s")  # type: ignore[index]
    report["machine"]["loadavg_at_end"] = list(os.getloadavg())  # type: ignore[index]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
