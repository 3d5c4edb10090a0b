"""Exact RTP speed of the data-only line games: how long `exact` takes, after compilation.

(Crystal Star Deluxe's full-cycle calculation is measured in bench_crystal_star_deluxe.py.)

Prints the figures and writes them to benchmarks/results/exact.json.
Run: .venv/bin/python benchmarks/bench_exact.py
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from slotlab.games import find_game, game_ids
from slotlab.rounds import ReportCache

RESULTS = Path(__file__).parent / "results" / "exact.json"


def time_exact(game_id: str, repeats: int = 5) -> dict[str, object]:
    game = find_game(game_id)
    exact = game.exact
    bets = game.bets()
    first_started = time.perf_counter()
    exact(bets[-1])  # compiles the kernels (or loads them from the cache)
    first = time.perf_counter() - first_started
    times = []
    for _ in range(repeats):
        game._exact = ReportCache()  # measure the calculation, not the cache
        started = time.perf_counter()
        report = exact(bets[-1])
        times.append(time.perf_counter() - started)
    return {"game": game_id, "bet": bets[-1], "rtp": report["rtp"],
            "first_call_seconds": first, "median_seconds": statistics.median(times),
            "min_seconds": min(times)}


def main() -> None:
    rows = [time_exact(g) for g in game_ids() if getattr(find_game(g), "kind", "") == "lines"]
    for row in rows:
        print(f"{row['game']:<22} exact RTP {row['rtp']:.6%} in {row['median_seconds']:.3f} s "
              f"(median of 5; first call {row['first_call_seconds']:.2f} s)")
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=2) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
