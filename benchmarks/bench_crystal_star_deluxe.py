"""Speed of Crystal Star Deluxe: full-cycle exact calculation, simulation per core, live rounds.

Run: ``.venv/bin/python benchmarks/bench_crystal_star_deluxe.py [--spins N]``. Prints the figures
and writes them to ``benchmarks/results/crystal_star_deluxe.json``. Targets (issue 3): the exact
calculation under 5 seconds, at least 5 million simulated plays per second per core.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

# slotlab before numba: importing slotlab points numba's disk cache at a folder keyed on the
# package's source (see slotlab/__init__.py), which numba reads when it is first imported.
import slotlab  # noqa: F401

import numba

RESULTS = Path(__file__).parent / "results" / "crystal_star_deluxe.json"


def _cold_exact_seconds(cache_dir: str | None = None) -> float:
    """The exact report in a fresh interpreter: import, model load, compiled-code load, cycle.

    With ``cache_dir`` (an empty folder) numba finds no cached machine code and compiles the
    kernels first, as on the very first run after an install.
    """
    code = (
        "import time; t = time.perf_counter();"
        "from slotlab.games import find_game;"
        "find_game('crystal-star-deluxe').exact(45); print(time.perf_counter() - t)"
    )
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spins", type=int, default=20_000_000, help="simulated plays per bet")
    parser.add_argument("--rounds", type=int, default=20_000, help="live rounds (with events)")
    args = parser.parse_args()

    from slotlab.games import find_game
    from slotlab.games.crystal_star_deluxe.exact import exact_report
    from slotlab.rng import chunk_stream, parse_seed

    game = find_game("crystal-star-deluxe")
    figures: dict[str, object] = {
        "game": game.id,
        "model_hash": game.model_hash,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numba": numba.__version__,
        },
    }

    with tempfile.TemporaryDirectory() as empty:
        compile_and_run = _cold_exact_seconds(empty)
    cold = _cold_exact_seconds()
    exact: dict[str, dict[str, float]] = {}
    for bet in (45, 9):
        exact_report(game.model, bet)  # compiled code loaded
        best = min(_timed(lambda b=bet: exact_report(game.model, b)) for _ in range(3))
        exact[str(bet)] = {"seconds": best, "plays": 76**3}
    figures["exact_full_cycle"] = {
        "first_run_with_compilation_seconds": compile_and_run,
        "fresh_process_seconds": cold,
        "warm": exact,
    }
    print(
        f"exact full cycle: {compile_and_run:.2f} s on a first run (numba compiles), "
        f"{cold:.2f} s in a fresh process (import + load + cycle), warm "
        + ", ".join(f"bet {b}: {v['seconds']:.3f} s" for b, v in exact.items())
    )

    sim: dict[str, dict[str, float]] = {}
    for bet in (45, 9):
        game.simulate_chunk(bet, 1000, chunk_stream(0, 0))  # compiled code loaded
        seconds = _timed(lambda b=bet: game.simulate_chunk(b, args.spins, chunk_stream(1, 0)))
        sim[str(bet)] = {"spins": args.spins, "seconds": seconds,
                         "spins_per_second": args.spins / seconds}
        rate = args.spins / seconds / 1e6
        print(f"simulation, bet {bet}: {rate:.1f} million plays/s on one core")
    figures["simulation_one_core"] = sim

    seeds = [parse_seed(i) for i in range(args.rounds)]
    game.play(45, [seeds[0]])
    seconds = _timed(lambda: [game.play(45, [s]) for s in seeds])
    figures["live_rounds"] = {"rounds": args.rounds, "seconds": seconds,
                              "rounds_per_second": args.rounds / seconds}
    print(f"live rounds (ChaCha20 draw + events): {args.rounds / seconds:,.0f} rounds/s")

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"written to {RESULTS}")


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
