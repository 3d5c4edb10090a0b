"""The run Super 12 Stars' text names: 2,000 million rounds of each seed game on 2 workers.

Run: ``.venv/bin/python benchmarks/bench_simulate_2e9.py [--spins N] [--games G ...]``. For
each game it runs, as a user would, ``slotlab simulate GAME --spins 2e9 --workers 2 --seed 2026
--json`` in a subprocess (kernels warmed first by a short run, so that compiling is not timed),
and writes the commands, their JSON results, their wall and CPU seconds and the machine's load to
``benchmarks/results/simulate_2e9.json``. Target (issue 11): each under 10 minutes on this
2-core machine. The whole benchmark takes about 12 minutes here; `make bench` runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results" / "simulate_2e9.json"
GAMES = ("crystal-star-deluxe", "super-12-stars", "superstars")
SLOTLAB = [sys.executable, "-m", "slotlab.cli"]
TARGET_S = 600


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(game: str, spins: str) -> dict[str, Any]:
    subprocess.run([*SLOTLAB, "simulate", game, "--spins", "100k"], check=True,
                   stdout=subprocess.DEVNULL)  # warm: compile or load the kernels
    command = ["simulate", game, "--spins", spins, "--workers", "2", "--seed", "2026", "--json"]
    load, cpu, wall = os.getloadavg(), _children_cpu_s(), time.perf_counter()
    done = subprocess.run([*SLOTLAB, *command], check=True, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, _children_cpu_s() - cpu
    result = json.loads(done.stdout)
    return {"command": "slotlab " + " ".join(command), "wall_s": wall, "cpu_s": cpu,
            "under_target": wall < TARGET_S, "loadavg_before": list(load),
            "loadavg_after": list(os.getloadavg()), "result": result}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spins", default="2e9", help="rounds per game (2e9, 200M, ...)")
    parser.add_argument("--games", nargs="+", default=list(GAMES))
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    report: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python benchmarks/bench_simulate_2e9.py " + " ".join(sys.argv[1:]),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "python": platform.python_version()},
        "target_s": TARGET_S, "games": {},
    }
    for game in args.games:
        row = run_one(game, args.spins)
        report["games"][game] = row
        r = row["result"]
        reference = ("composed (estimated)", r["composed_rtp"]) if "composed_rtp" in r \
            else ("exact", r.get("exact_rtp", float("nan")))
        print(f"{game:<20} {r['spins']:,} rounds in {row['wall_s']:.0f} s "
              f"({r['spins_per_second'] / 1e6:.2f} M rounds/s, {row['cpu_s']:.0f} CPU-s, load "
              f"{row['loadavg_before'][0]:.1f}); RTP {r['rtp']:.5%}, {reference[0]} "
              f"{reference[1]:.5%}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
