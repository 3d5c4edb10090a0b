"""Speed of the Superstars Bonus Game: bonuses simulated directly from a trigger class, per core.

Run: ``.venv/bin/python benchmarks/bench_superstars_bonus.py [--bonuses N]``. Prints the figures
and writes them to ``benchmarks/results/superstars_bonus.json``. Target (issue 10): at least
100,000 bonuses per second on one core (aim 300,000). Besides wall time it reports the process's
CPU time, which stays close to one idle core's figure when other work shares the machine.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import json
import os
import platform
import time
from datetime import UTC, datetime
from pathlib import Path

# slotlab before numba: importing slotlab points numba's disk cache at a folder keyed on the
# package's source (see slotlab/__init__.py), which numba reads when it is first imported.
import slotlab  # noqa: F401

import numba

RESULTS = Path(__file__).parent / "results" / "superstars_bonus.json"
CLASSES = ((3, False), (3, True), (4, False), (4, True), (5, False), (5, True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bonuses", type=int, default=500_000, help="bonuses per trigger class")
    parser.add_argument("--rounds", type=int, default=5_000, help="traced live bonuses")
    args = parser.parse_args()

    import numpy as np

    from slotlab.games.superstars.bonus import class_stats, pack_bonus, trace_bonus
    from slotlab.games.superstars.bonus_spec import BonusSpec
    from slotlab.rng import chacha_stream, chunk_stream, parse_seed

    model = Path(__file__).parent.parent / "src/slotlab/games/superstars/models/superstars.json"
    spec = BonusSpec.model_validate(json.loads(model.read_text())["bonus"])
    bp = pack_bonus(spec)
    class_stats(bp, 3, False, 100, chunk_stream(0, 0))  # compiled code loaded

    figures: dict[str, object] = {
        "model": str(model.name),
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "load_average": os.getloadavg(), "python": platform.python_version(),
                    "numba": numba.__version__},
    }
    per_class = {}
    for symbols, dice in CLASSES:
        wall, cpu = time.perf_counter(), time.process_time()
        stats = class_stats(bp, symbols, dice, args.bonuses, chunk_stream(1, symbols + 10 * dice))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        name = f"{symbols}{'+dice' if dice else ''}"
        per_class[name] = {"bonuses": args.bonuses, "wall_seconds": wall, "cpu_seconds": cpu,
                           "bonuses_per_wall_second": args.bonuses / wall,
                           "bonuses_per_cpu_second": args.bonuses / cpu,
                           "mean_x_bet": stats["mean_x_bet"], "ci99": stats["ci99"],
                           "final_game_rate": stats["final_game_rate"],
                           "final_mean_x_bet": stats["final_mean"], "max_x_bet": stats["max_x_bet"]}
        lo, hi = stats["ci99"]
        print(f"{name:7s} {args.bonuses / cpu:10,.0f} bonuses per CPU second "
              f"({args.bonuses / wall:,.0f} per wall second); mean {stats['mean_x_bet']:.3f}x "
              f"(99%: {lo:.3f} .. {hi:.3f}), Final Game {stats['final_game_rate']:.4%}, "
              f"max {stats['max_x_bet']}x")
    figures["simulation_one_core"] = per_class

    cells = np.zeros(25, np.int64)
    cells[[0, 5, 10]] = 1
    seeds = [parse_seed(i) for i in range(args.rounds)]
    trace_bonus(bp, chacha_stream(seeds[0]), cells, -1)
    wall = time.perf_counter()
    for s in seeds:
        trace_bonus(bp, chacha_stream(s), cells, -1)
    wall = time.perf_counter() - wall
    figures["traced_live_bonuses"] = {"bonuses": args.rounds, "seconds": wall,
                                      "per_second": args.rounds / wall}
    print(f"traced live bonuses (ChaCha20 + event rows): {args.rounds / wall:,.0f} per second")

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
