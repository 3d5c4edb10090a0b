"""What the metrics add to a fast-path round: the calls the path makes per round
(``round_settled``, ``round_latency``) and per batch (``timed_batches``), timed in one process,
in memory and in the library's multiprocess mode (files under PROMETHEUS_MULTIPROC_DIR, as with
``--workers``). Each mode runs in a process of its own (the library reads the variable once).

Prints the figures and writes them to benchmarks/results/metrics.json.
Run: .venv/bin/python benchmarks/bench_metrics.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "metrics.json"


def measure(rounds: int) -> dict[str, float]:
    from slotlab.server import metrics

    games = [f"game-{i}" for i in range(4)]
    started = time.perf_counter()
    for i in range(rounds):
        t = metrics.clock()
        metrics.round_settled(games[i % 4], "EUR", 100, (i % 7) * 50, round_id="r",
                              player_id=i)
        metrics.round_latency("fast", t)
    per_round = (time.perf_counter() - started) / rounds

    async def write(batch: object) -> list[int | None]:
        return []

    timed = metrics.timed_batches(write)

    async def batches() -> float:
        t0 = time.perf_counter()
        for _ in range(rounds // 10):
            await timed([])
        return (time.perf_counter() - t0) / (rounds // 10)

    per_batch = asyncio.run(batches())
    return {"us_per_round": per_round * 1e6, "us_per_batch": per_batch * 1e6}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200_000)
    ap.add_argument("--child", choices=["memory", "multiprocess"])
    args = ap.parse_args()
    if args.child:
        print(json.dumps(measure(args.rounds)))
        return
    out: dict[str, object] = {"rounds": args.rounds}
    for mode in ("memory", "multiprocess"):
        env = dict(os.environ)
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        with tempfile.TemporaryDirectory() as folder:
            if mode == "multiprocess":
                env["PROMETHEUS_MULTIPROC_DIR"] = folder
            done = subprocess.run([sys.executable, __file__, "--child", mode, "--rounds",
                                   str(args.rounds)], env=env, capture_output=True, text=True,
                                  check=True)
        out[mode] = json.loads(done.stdout)
        print(f"{mode}: {out[mode]['us_per_round']:.2f} us per round, "  # type: ignore[index]
              f"{out[mode]['us_per_batch']:.2f} us per batch")  # type: ignore[index]
    out["load_average"] = os.getloadavg()
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
