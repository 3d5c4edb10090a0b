"""Speed of Super 12 Stars: simulation per core beside fruit-5x3, and the exact RTP.

Run: ``.venv/bin/python benchmarks/bench_super_12_stars.py [--rounds N] [--repeats R]``. Prints
the figures and writes them to ``benchmarks/results/super_12_stars.json``:

* ``simulation_one_core``: ``simulate_chunk`` of Super 12 Stars (every feature, bet 30) and of
  fruit-5x3 (bet 30) in the same run, alternating, best of ``--repeats``; rounds per wall-clock
  second and per CPU-second of this process (the latter less disturbed by other load on a
  shared machine), and the ratio Super 12 Stars / fruit-5x3 of each;
* ``exact_rtp``: ``exact_report`` warm (best of 3 in this process, model loaded) and cold (a
  fresh interpreter: imports, model load, report).

Targets (issue 9): at least 3 M rounds/s on one core (aim: 70 % of fruit-5x3's rate), the
exact RTP under 2 s warm.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

# slotlab before numba: importing slotlab points numba's disk cache at a folder keyed on the
# package's source (see slotlab/__init__.py), which numba reads when it is first imported.
import slotlab  # noqa: F401

import numba

RESULTS = Path(__file__).parent / "results" / "super_12_stars.json"
BET = 30

COLD = """
import time
t = time.perf_counter()
from slotlab.games.super_12_stars.exact import exact_report
from slotlab.games.super_12_stars.model import load_model
exact_report(load_model(), 30)
print(time.perf_counter() - t)
"""


def _timed(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000_000, help="rounds per timed run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    from slotlab.games import find_game
    from slotlab.games.super_12_stars.exact import exact_report
    from slotlab.rng import chunk_stream

    games = {"super-12-stars": find_game("super-12-stars"), "fruit-5x3": find_game("fruit-5x3")}
    for game in games.values():
        game.simulate_chunk(BET, 1000, chunk_stream(0, 0))  # compiled code loaded
    best = {gid: {"rounds_per_s": 0.0, "rounds_per_cpu_s": 0.0} for gid in games}
    for rep in range(args.repeats):
        for gid, game in games.items():  # alternating, so both see the same load
            wall, cpu = _timed(lambda g=game, r=rep: g.simulate_chunk(
                BET, args.rounds, chunk_stream(r + 1, 0)))
            best[gid]["rounds_per_s"] = max(best[gid]["rounds_per_s"], args.rounds / wall)
            best[gid]["rounds_per_cpu_s"] = max(best[gid]["rounds_per_cpu_s"],
                                                args.rounds / max(cpu, 1e-9))
    s12, fruit = best["super-12-stars"], best["fruit-5x3"]
    ratio = {k: s12[k] / fruit[k] for k in s12}
    print(f"simulation, one core: super-12-stars {s12['rounds_per_s'] / 1e6:.2f} M rounds/s "
          f"({s12['rounds_per_cpu_s'] / 1e6:.2f} M per CPU-s), fruit-5x3 "
          f"{fruit['rounds_per_s'] / 1e6:.2f} M rounds/s ({fruit['rounds_per_cpu_s'] / 1e6:.2f} "
          f"M per CPU-s), ratio {ratio['rounds_per_s']:.2f} ({ratio['rounds_per_cpu_s']:.2f} "
          "per CPU-s)")

    model = games["super-12-stars"].model  # type: ignore[attr-defined]
    exact_report(model, BET)
    runs = [_timed(lambda: exact_report(model, BET)) for _ in range(3)]
    warm, warm_cpu = min(w for w, _ in runs), min(c for _, c in runs)
    out = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True,
                         check=True)
    cold = float(out.stdout.strip())
    print(f"exact RTP: {warm:.3f} s warm ({warm_cpu:.3f} CPU-s), {cold:.2f} s cold (fresh "
          "interpreter: imports, model, report)")

    figures = {
        "game": "super-12-stars",
        "model_hash": model.hash,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python benchmarks/bench_super_12_stars.py " + " ".join(sys.argv[1:]),
        "machine": {"platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(), "loadavg": list(os.getloadavg()),
                    "python": platform.python_version(), "numba": numba.__version__},
        "simulation_one_core": {"rounds": args.rounds, "repeats": args.repeats, "bet": BET,
                                "super-12-stars": s12, "fruit-5x3": fruit,
                                "ratio_super12_to_fruit": ratio},
        "exact_rtp": {"warm_seconds": warm, "warm_cpu_seconds": warm_cpu,
                      "cold_seconds": cold},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
