"""Time to Superstars' composed RTP at a 99 % half-width of 0.01 pp (issue 25, point 4).

Run: ``.venv/bin/python benchmarks/bench_superstars_precise.py [--precision 0.0001] [--workers 2]
[--seed 0]``. Prints the figure (estimated, with its interval), the wall time to reach the
half-width on the given workers, and writes them to ``benchmarks/results/superstars_precise.json``
with the plain estimator's half-width on the same Bonus Games and each class's sigma. Target:
under 120 s on 2 cores. Its kernels are compiled (and cached) before the clock starts.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import json
import os
import platform
from datetime import UTC, datetime
from pathlib import Path

# slotlab before numba: importing slotlab points numba's disk cache at a folder keyed on the
# package's source (see slotlab/__init__.py), which numba reads when it is first imported.
import slotlab  # noqa: F401

import numba

RESULTS = Path(__file__).parent / "results" / "superstars_precise.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--precision", type=float, default=1e-4,
                        help="99%% half-width in RTP (0.0001 = 0.01 pp)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    from slotlab.games import find_game
    from slotlab.games.superstars.game import Superstars
    from slotlab.games.superstars.precise import precise_rtp

    game = find_game("superstars")
    assert isinstance(game, Superstars)
    precise_rtp(game, 0.01, seed=1, workers=1)  # compiled code loaded (or compiled) here
    load_before = os.getloadavg()
    report = precise_rtp(game, args.precision, seed=args.seed, workers=args.workers,
                         on_progress=lambda s: print(f"  {s['bonuses']:,} Bonus Games, 99% "
                                                     f"half-width {s['half_width']:.6f} "
                                                     f"(estimated), {s['seconds']:.1f} s"))
    low, high = report["ci99"]
    print(f"composed RTP (estimated) {report['rtp']:.5%}, 99% CI {low:.5%} .. {high:.5%} "
          f"(half-width {report['ci99_half_width']:.5%}); lines (exact) "
          f"{report['base_rtp']:.6%}")
    print(f"time to the half-width {args.precision:.4%}: {report['seconds']:.1f} s wall on "
          f"{args.workers} worker(s) ({report['cpu_seconds']:.1f} CPU s in all: "
          f"{report['cpu_seconds'] / 2:.1f} s on 2 idle cores, estimated), "
          f"{report['bonuses_simulated']:,} Bonus Games "
          f"(+ {report['pilot_bonuses']:,} pilot); the plain estimate on the same Bonus Games "
          f"has half-width {report['plain_ci99_half_width']:.5%}")
    for name, c in report["trigger_classes"].items():
        print(f"  {name:26s} sigma {c['sd_x_bet']:7.2f}x (plain {c['plain_sd_x_bet']:7.2f}x), "
              f"variance / {c['variance_reduction']:.2f}, {c['bonuses']:,} Bonus Games")
    figures = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python benchmarks/bench_superstars_precise.py "
                   f"--precision {args.precision} --workers {args.workers} --seed {args.seed}",
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                    "load_average_before": load_before, "load_average_after": os.getloadavg(),
                    "python": platform.python_version(), "numba": numba.__version__},
        "seconds_to_precision": report["seconds"],
        "cpu_seconds": report["cpu_seconds"],
        "wall_seconds_on_2_idle_cores_estimated": report["cpu_seconds"] / 2,
        "figures_estimated": "rtp, ci99, half-widths, sigmas and means are estimated; "
                             "base_rtp and class probabilities exact",
        **{k: v for k, v in report.items() if k != "notes"},
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=1) + "\n")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
