"""A data-only line game simulated from outside: the whole ``slotlab simulate`` command against a
plain C program playing the same game, both as whole commands.

    .venv/bin/python benchmarks/bench_simulate_vs_c.py [--model fruit-5x3] [--spins 1e8]
        [--workers 1 2] [--runs 3]

* ``c``: ``benchmarks/c/line_game.c``, built here with the system gcc (``-O3 -march=native
  -ffp-contract=off -pthread``) with the model's tables as compile-time constants
  (``line_game_model.h``, written here from the model). It plays the whole game (base spin, free
  spins with retriggers and their cap, the max win, every running sum the simulator keeps) with
  the simulator's draws (per-chunk xoshiro256** seeded by numpy's SeedSequence, Lemire's bounded
  draw), on ``--workers`` threads.
* ``slotlab``: ``slotlab simulate MODEL --spins N --workers W --json`` as a user runs it: process
  start, imports, the kernel's cache load, the model, the worker processes, the chunks, the
  exact RTP and the report.

The two run in turn (slotlab, C, slotlab, C, ...) ``--runs`` times for each spin count and worker
count, each timed from outside: wall time, and CPU time (user + system) of the command and every
process it started, from ``getrusage(RUSAGE_CHILDREN)``. Rates are rounds per wall second and per
CPU-second, medians of the runs; ``ratio`` is the median of the runs' C-time / slotlab-time
(above 1: slotlab is faster). Every run's figures (total win, sum of squares, hits, max win,
features, components, bands, largest wins) must be identical between the two. Written to
``benchmarks/results/simulate_vs_c.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
ROOT = HERE.parent
C_SOURCE = HERE / "c" / "line_game.c"
RESULTS = HERE / "results" / "simulate_vs_c.json"
C_FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-pthread"]


# Where the whole command's time goes: its steps timed in one process (wall and CPU seconds),
# in the order `slotlab simulate` takes them. What the whole command takes beyond their sum is
# the interpreter's start and exit.
PHASES = """
import json, sys, time
marks = [("start", time.perf_counter(), time.process_time())]
def mark(name):
    marks.append((name, time.perf_counter(), time.process_time()))
model, spins, workers, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
import slotlab.cli, slotlab.simulate.runner, slotlab.simulate.progress
mark("imports (numba, numpy, pydantic, typer, rich, slotlab)")
from slotlab.games import find_game
game = find_game(model)
bet = game.bets()[0]
mark("model: read, validate, pack")
if workers == 1:  # a pool loads it in the parent before forking, within the run
    from slotlab.rng import chunk_stream
    game.simulate_chunk(bet, 1, chunk_stream(seed, 0))
    mark("kernel: numba's cache load")
result = slotlab.simulate.runner.simulate(game, model, bet, spins, seed=seed, workers=workers)
mark("run: chunks (workers' start, streams, kernel, merges)")
import gc
gc.freeze()
data = result.to_json()
mark("report: figures, tail level")
data["exact_rtp"] = game.exact(bet)["rtp"]
mark("exact RTP")
from slotlab.rng import chunk_stream
from slotlab.simulate.runner import chunk_plan
from slotlab.simulate.stats import merge
total = game.simulate_chunk(bet, 0, chunk_stream(seed, 0))
for i, _ in chunk_plan(spins):  # each chunk's work but its rounds: stream, sums, call, merge
    merge(total, game.simulate_chunk(bet, 0, chunk_stream(seed, i)))
mark("apart: the run's per-chunk work without its rounds")
print(json.dumps([[b[0], b[1] - a[1], b[2] - a[2]] for a, b in zip(marks, marks[1:])]))
"""


def _c_array(name: str, ctype: str, a: np.ndarray) -> str:
    """``a`` (1 or 2 dimensions) as a C constant array."""
    def row(x: np.ndarray) -> str:
        return "{" + ", ".join(str(int(v)) for v in x) + "}"

    body = row(a) if a.ndim == 1 else "{\n    " + ",\n    ".join(row(x) for x in a) + "}"
    dims = "".join(f"[{d}]" for d in a.shape)
    return f"static const {ctype} {name}{dims} = {body};\n"


def model_header(model: str) -> str:
    """The line game ``model``'s tables as C constants (``line_game_model.h``)."""
    from slotlab.games import find_game
    from slotlab.games.lines import kernel

    game = find_game(model)
    m = game._packed  # type: ignore[union-attr]
    lines, base, base_len, free, free_len, paytab, subs, scatter_pays, fs_awards, sc = m[:10]
    if sc[kernel.S_WILD_EACH]:
        raise SystemExit("the C program multiplies a wild's line once (multiplier_mode line)")
    width = max(base.shape[1], free.shape[1])

    def padded(strips: np.ndarray) -> np.ndarray:  # one width for both sets
        return np.pad(strips, ((0, 0), (0, width - strips.shape[1])))

    defs = {"REELS": sc[kernel.S_REELS], "ROWS": sc[kernel.S_ROWS], "LINES": lines.shape[0],
            "WILD": sc[kernel.S_WILD], "WILD_MULT": sc[kernel.S_WILD_MULT],
            "SCATTER": sc[kernel.S_SCATTER], "FS_MULT": sc[kernel.S_FS_MULT],
            "FS_RETRIGGER": sc[kernel.S_FS_RETRIGGER], "FS_MAX": sc[kernel.S_FS_MAX],
            "CAP": f"{int(sc[kernel.S_CAP])}LL", "DIVISOR": game.model.divisor,  # type: ignore[union-attr]
            "STRIP_W": width}
    return ("".join(f"#define {k} {v}\n" for k, v in defs.items())
            + _c_array("BASE", "uint8_t", padded(base))
            + _c_array("BASE_LEN", "int64_t", base_len)
            + _c_array("FREE", "uint8_t", padded(free))
            + _c_array("FREE_LEN", "int64_t", free_len)
            + _c_array("LINE_ROWS", "uint8_t", lines)
            + _c_array("PAYTAB", "int64_t", paytab)
            + _c_array("SUBSTITUTES", "uint8_t", subs)
            + _c_array("SCATTER_PAYS", "int64_t", scatter_pays)
            + _c_array("FS_AWARDS", "int64_t", fs_awards))


def build_c(model: str, folder: Path) -> Path:
    """The C program of ``model``, compiled into ``folder``."""
    (folder / "line_game_model.h").write_text(model_header(model))
    exe = folder / "line_game"
    subprocess.run(["gcc", *C_FLAGS, "-I", str(folder), "-o", str(exe), str(C_SOURCE)],
                   check=True, capture_output=True, text=True)
    return exe


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the command and its children, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def breakdown(model: str, spins: int, workers: int, seed: int, env: dict[str, str]
              ) -> dict[str, Any]:
    """The steps of one ``slotlab simulate`` in one process, and the rest of its whole time."""
    wall, cpu, out = timed([sys.executable, "-c", PHASES, model, str(spins), str(workers),
                            str(seed)], env)
    marks = json.loads(out)
    steps = {name: {"wall_s": w, "cpu_s": c} for name, w, c in marks}
    apart = {k: steps.pop(k) for k in list(steps) if k.startswith("apart: ")}
    # CPU: the in-process steps count this process only, so with workers their CPU (their
    # rounds) falls in this rest
    rest = "interpreter start and exit" + (", and the workers' CPU" if workers > 1 else "")
    steps[rest] = {
        "wall_s": wall - sum(x["wall_s"] for x in [*steps.values(), *apart.values()]),
        "cpu_s": cpu - sum(x["cpu_s"] for x in [*steps.values(), *apart.values()])}
    return {"spins": spins, "workers": workers, "wall_s": wall, "cpu_s": cpu, "steps": steps,
            "timed_apart": apart}


def figures_slotlab(out: str) -> dict[str, Any]:
    """What the C program prints, from ``slotlab simulate --json``: every figure is derived from
    the same sums, so equal figures mean equal sums."""
    d = json.loads(out)
    return {"spins": d["spins"], "rtp": d["rtp"], "sd": d["sd"], "hit_rate": d["hit_rate"],
            "max_win": d["max_win"], "max_win_count": d["max_win_count"],
            "feature_rate": d["feature_rate"], "components": list(d["rtp_components"].values()),
            "bands": list(d["win_bands"].values()), "top_wins_x": d["top_wins_x"]}


def figures_c(out: str) -> dict[str, Any]:
    """The same figures from the C program's sums, computed as ``SimulationResult`` does."""
    d = json.loads(out)
    n, bet = d["spins"], d["bet"]
    rtp = d["total_win"] / (n * bet)
    return {"spins": n, "rtp": rtp, "sd": math.sqrt(max(d["sum_sq"] / n - rtp * rtp, 0.0)),
            "hit_rate": d["hits"] / n, "max_win": d["max_win"],
            "max_win_count": d["max_win_count"], "feature_rate": d["features"] / n,
            "components": [c / (n * bet) for c in d["components"]], "bands": d["bands"],
            "top_wins_x": [w / bet for w in d["top_wins"] if w > 0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="fruit-5x3", help="a line game id or model file")
    ap.add_argument("--spins", nargs="+", default=["1e8"])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--runs", type=int, default=3, help="runs of each command per setting")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if shutil.which("gcc") is None:
        sys.exit("gcc is needed to build the C program")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"),
                                                      env.get("PYTHONPATH")]))
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    report: dict[str, Any] = {
        "machine": {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "loadavg_at_start": list(os.getloadavg()),
                    "python": platform.python_version(), "gcc": gcc.splitlines()[0]},
        "command": "python benchmarks/bench_simulate_vs_c.py " + " ".join(sys.argv[1:]),
        "model": args.model, "c_flags": C_FLAGS, "runs": []}
    with tempfile.TemporaryDirectory() as folder:
        exe = build_c(args.model, Path(folder))
        slotlab_cmd = [sys.executable, "-c", "from slotlab.cli import app; app()", "simulate",
                       args.model, "--seed", str(args.seed), "--json"]
        # warm: numba's on-disk cache filled, files in the page cache
        timed([*slotlab_cmd, "--spins", "1e5"], env)
        for spins_text in args.spins:
            spins = int(float(spins_text))
            for workers in args.workers:
                py = [*slotlab_cmd, "--spins", str(spins), "--workers", str(workers)]
                c = [str(exe), str(spins), str(args.seed), str(workers)]
                rows: dict[str, list[tuple[float, float]]] = {"slotlab": [], "c": []}
                identical = True
                for _ in range(args.runs):
                    w, cpu, out = timed(py, env)
                    rows["slotlab"].append((w, cpu))
                    fig_py = figures_slotlab(out)
                    w, cpu, out = timed(c, env)
                    rows["c"].append((w, cpu))
                    identical &= figures_c(out) == fig_py
                entry: dict[str, Any] = {"spins": spins, "workers": workers,
                                         "figures_identical": identical,
                                         "commands": {"slotlab": " ".join(py[3:]),
                                                      "c": " ".join(["line_game", *c[1:]])}}
                for name, rs in rows.items():
                    entry[name] = {
                        "wall_s": [w for w, _ in rs], "cpu_s": [c for _, c in rs],
                        "rounds_per_s": spins / statistics.median(w for w, _ in rs),
                        "rounds_per_cpu_s": spins / statistics.median(c for _, c in rs)}
                entry["ratio_wall"] = statistics.median(
                    c[0] / p[0] for p, c in zip(rows["slotlab"], rows["c"], strict=True))
                entry["ratio_cpu"] = statistics.median(
                    c[1] / p[1] for p, c in zip(rows["slotlab"], rows["c"], strict=True))
                report["runs"].append(entry)
                s, cc = entry["slotlab"], entry["c"]
                print(f"{spins:.0e} rounds, {workers} worker(s): slotlab "
                      f"{s['rounds_per_s'] / 1e6:.2f} M/s wall, "
                      f"{s['rounds_per_cpu_s'] / 1e6:.2f} M per CPU-s; C "
                      f"{cc['rounds_per_s'] / 1e6:.2f} M/s wall, "
                      f"{cc['rounds_per_cpu_s'] / 1e6:.2f} M per CPU-s; slotlab/C "
                      f"{entry['ratio_wall']:.3f}x wall, {entry['ratio_cpu']:.3f}x CPU; "
                      f"figures identical: {identical}", flush=True)
        for workers in args.workers:  # where the time goes, at the first spin count
            spins = int(float(args.spins[0]))
            b = breakdown(args.model, spins, workers, args.seed, env)
            report.setdefault("breakdown", []).append(b)
            print(f"{spins:.0e} rounds, {workers} worker(s), in one process: {b['wall_s']:.2f} s "
                  f"wall, {b['cpu_s']:.2f} s CPU")
            for name, x in [*b["steps"].items(), *b["timed_apart"].items()]:
                print(f"  {name:55s} {x['wall_s']:7.3f} s wall {x['cpu_s']:7.3f} s CPU")
    report["machine"]["loadavg_at_end"] = list(os.getloadavg())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {args.out}")
    if not all(r["figures_identical"] for r in report["runs"]):
        sys.exit("slotlab and the C program gave different figures")


if __name__ == "__main__":
    main()
