"""The shared line evaluator against a plain C evaluator of the same game, and fruit-5x3's rate.

    .venv/bin/python benchmarks/bench_line_evaluator.py [--spins N] [--repeats N]

The game: 5 reels x 3 rows, fruit-5x3's 30 lines, pays, wild (substitutes for everything but the
scatter, x2 on a line whose run holds a wild) and scatter pays, on 64-stop strips (fruit-5x3's
base strips, each repeated to 64 stops) with uniform stops. Per spin: five stops (the top 6 bits
of one xoshiro256** draw per reel), the window, the 30 line pays and the scatter pay.

* ``c``: ``benchmarks/c/line_evaluator.c``, built here with the system gcc into a temporary
  folder (``-O3 -march=native``, and ``-O2`` for reference) and called once through ctypes for
  all the spins. It pays each line the plain way (the run from the left, wild run against the
  substituted run), no lookup tables.
* ``slotlab``: a numba loop drawing the same stops from :mod:`slotlab.rng`'s xoshiro256**
  stream (same seed words, so the same sequence) and paying them with
  :func:`slotlab.mechanics.lines.masked_line_pays`, inlined into the loop as the line kernel's
  simulation does (over views without reference counts, as there); ``slotlab_line_pays`` does the
  same through the public :func:`~slotlab.mechanics.lines.line_pays` (a call per spin, paying
  lines in line order).

Rates are spins per CPU-second of this process (one core; the machine is shared, and CPU time
is less disturbed by other load than wall time), best of ``--repeats`` rounds in which every
entry runs once on the same stream (entries interleaved, so that load falls on all alike); the
wall-clock rate and the median of the rounds' ratios are written too. Every run's sums must be
identical across entries. ``fruit-5x3`` times ``kernel.simulate_rounds`` as ``bench_lines.py``
does. Everything goes to ``benchmarks/results/line_evaluator.json``.
"""

from __future__ import annotations  # noqa: I001 (slotlab is imported before numba)

import argparse
import ctypes
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# slotlab before numba: importing slotlab points numba's disk cache at a folder keyed on the
# package's source (see slotlab/__init__.py), which numba reads when it is first imported.
# Otherwise the cached kernels (which inline the line evaluator) would outlive a change to it.
import slotlab  # noqa: F401

import numba
import numpy as np
from numba import njit

from slotlab.games import find_game
from slotlab.games.lines import kernel
from slotlab.mechanics.lines import line_pays, masked_line_pays
from slotlab.mechanics.unmanaged import unmanaged
from slotlab.rng import next_u64, xoshiro_stream

HERE = Path(__file__).parent
C_SOURCE = HERE / "c" / "line_evaluator.c"
RESULTS = HERE / "results" / "line_evaluator.json"
REELS, ROWS, STOPS = 5, 3, 64  # fixed in the C source too
FLAGS = {"O3_native": ["-O3", "-march=native"], "O2": ["-O2"]}  # the C builds timed
_SHIFT = np.uint64(58)  # top 6 bits: a uniform stop of 64


class Tables:
    """The benchmark game as arrays (int64), taken from fruit-5x3."""

    def __init__(self) -> None:
        m = find_game("fruit-5x3")._packed
        lines, base, base_len, paytab, subs, scatter_pays = m[0], m[1], m[2], m[5], m[6], m[7]
        sc = m[9]
        assert lines.shape == (30, REELS) and base.shape[0] == REELS
        assert sc[kernel.S_WILD_EACH] == 0  # the C evaluator multiplies once per line
        self.strips = np.ascontiguousarray(
            [base[r, np.arange(STOPS) % base_len[r]] for r in range(REELS)], dtype=np.int64)
        # The numba side reads window cells without a modulo, as the line kernel does.
        self.padded = np.ascontiguousarray(
            np.concatenate([self.strips, self.strips[:, : ROWS - 1]], axis=1))
        self.lines = np.ascontiguousarray(lines)
        self.paytab = np.ascontiguousarray(paytab)
        self.substitutes = np.ascontiguousarray(subs)
        self.scatter_pays = np.ascontiguousarray(scatter_pays[: REELS * ROWS + 1])
        self.wild, self.wild_mult, self.scatter = (int(sc[kernel.S_WILD]),
                                                   int(sc[kernel.S_WILD_MULT]),
                                                   int(sc[kernel.S_SCATTER]))
        self.masks, self.min_count = m[10], m[11]
        assert self.paytab.shape[1] == REELS + 1


def gcc_available() -> bool:
    return shutil.which("gcc") is not None


def _c_array(name: str, ctype: str, a: np.ndarray) -> str:
    """``a`` (1 or 2 dimensions) as a C constant array."""
    def row(x: np.ndarray) -> str:
        return "{" + ", ".join(str(int(v)) for v in x) + "}"

    body = row(a) if a.ndim == 1 else "{\n    " + ",\n    ".join(row(x) for x in a) + "}"
    dims = "".join(f"[{d}]" for d in a.shape)
    return f"static const {ctype} {name}{dims} = {body};\n"


def model_header(t: Tables) -> str:
    """The game's tables as C constants (``line_evaluator_model.h``)."""
    defs = {"REELS": REELS, "ROWS": ROWS, "LINES": t.lines.shape[0], "STOPS": STOPS,
            "N_SYMBOLS": t.paytab.shape[0], "WILD": t.wild, "WILD_MULT": t.wild_mult,
            "SCATTER": t.scatter}
    return ("".join(f"#define {k} {v}\n" for k, v in defs.items())
            + _c_array("STRIPS", "uint8_t", t.strips)
            + _c_array("LINE_ROWS", "uint8_t", t.lines)
            + _c_array("PAYTAB", "int64_t", t.paytab)
            + _c_array("SUBSTITUTES", "uint8_t", t.substitutes)
            + _c_array("SCATTER_PAYS", "int64_t", t.scatter_pays))


class CEvaluator:
    """The plain C evaluator of the game ``t``, compiled with ``flags`` into ``folder``."""

    def __init__(self, t: Tables, folder: Path, flags: list[str]) -> None:
        build = Path(tempfile.mkdtemp(dir=folder))
        (build / "line_evaluator_model.h").write_text(model_header(t))
        lib_path = build / "line_evaluator.so"
        subprocess.run(["gcc", *flags, "-shared", "-fPIC", "-I", str(build), "-o",
                        str(lib_path), str(C_SOURCE)], check=True, capture_output=True,
                       text=True)
        self.lib = ctypes.CDLL(str(lib_path))
        p = ctypes.c_void_p
        self.lib.run_xoshiro.argtypes = [p, ctypes.c_int64, p]
        self.lib.run_stops.argtypes = [p, ctypes.c_int64, p, p]

    def run_xoshiro(self, words: np.ndarray, spins: int) -> tuple[int, int]:
        """(line pays, scatter pays) of ``spins`` spins from xoshiro256** seeded with ``words``."""
        s = np.array(words, dtype=np.uint64)
        out = np.zeros(2, dtype=np.int64)
        self.lib.run_xoshiro(s.ctypes.data, spins, out.ctypes.data)
        return int(out[0]), int(out[1])

    def runner(self, spins: int) -> Callable[[np.ndarray], tuple[int, int]]:
        return lambda words: self.run_xoshiro(words, spins)

    def run_stops(self, stops: np.ndarray) -> tuple[int, int, np.ndarray]:
        """(line pays, scatter pays, line pays per spin) of the spins ``stops[i, reel]``."""
        stops = np.ascontiguousarray(stops, dtype=np.int64)
        out = np.zeros(2, dtype=np.int64)
        per_spin = np.zeros(stops.shape[0], dtype=np.int64)
        self.lib.run_stops(stops.ctypes.data, stops.shape[0], out.ctypes.data,
                           per_spin.ctypes.data)
        return int(out[0]), int(out[1]), per_spin


@njit(cache=True, inline="always")
def _fill_window(padded, stops, window, scatter):
    """Window of ``stops``; returns the number of scatters in it."""
    count = 0
    for r in range(window.shape[0]):
        for row in range(window.shape[1]):
            s = padded[r, stops[r] + row]
            window[r, row] = s
            count += s == scatter
    return count


@njit(cache=True)
def slotlab_xoshiro(stream, spins, padded, lines, paytab, substitutes, wild, wild_mult, scatter,
                    scatter_pays, masks, min_count, out):
    """The slotlab side: ``spins`` spins paid by the inlined ``masked_line_pays``."""
    u = unmanaged  # as the line kernel's loop: the caller keeps these alive
    stream, padded, lines, paytab = u(stream), u(padded), u(lines), u(paytab)
    substitutes, scatter_pays, masks, min_count = (u(substitutes), u(scatter_pays), u(masks),
                                                   u(min_count))
    stops = np.empty(padded.shape[0], dtype=np.int64)
    window = np.empty((padded.shape[0], padded.shape[1] - STOPS + 1), dtype=np.int64)
    wins = np.empty((lines.shape[0], 5), dtype=np.int64)
    stops, window, wins = u(stops), u(window), u(wins)
    line_total, scatter_total = 0, 0
    for _ in range(spins):
        for r in range(stops.shape[0]):
            stops[r] = np.int64(next_u64(stream) >> _SHIFT)
        count = _fill_window(padded, stops, window, scatter)
        units, _n = masked_line_pays(window, lines, paytab, substitutes, wild, wild_mult, False,
                                     masks, min_count, wins)
        line_total += units
        scatter_total += scatter_pays[count]
    out[0] = line_total
    out[1] = scatter_total


@njit(cache=True)
def slotlab_line_pays_xoshiro(stream, spins, padded, lines, paytab, substitutes, wild, wild_mult,
                              scatter, scatter_pays, masks, min_count, out):
    """The same through the public ``line_pays`` (a call per spin, wins in line order)."""
    u = unmanaged
    stream, padded, lines, paytab = u(stream), u(padded), u(lines), u(paytab)
    substitutes, scatter_pays, masks, min_count = (u(substitutes), u(scatter_pays), u(masks),
                                                   u(min_count))
    stops = np.empty(padded.shape[0], dtype=np.int64)
    window = np.empty((padded.shape[0], padded.shape[1] - STOPS + 1), dtype=np.int64)
    wins = np.empty((lines.shape[0], 5), dtype=np.int64)
    stops, window, wins = u(stops), u(window), u(wins)
    line_total, scatter_total = 0, 0
    for _ in range(spins):
        for r in range(stops.shape[0]):
            stops[r] = np.int64(next_u64(stream) >> _SHIFT)
        count = _fill_window(padded, stops, window, scatter)
        units, _n = line_pays(window, lines, paytab, substitutes, wild, wild_mult, False, masks,
                              min_count, wins)
        line_total += units
        scatter_total += scatter_pays[count]
    out[0] = line_total
    out[1] = scatter_total


@njit(cache=True)
def slotlab_stops(all_stops, padded, lines, paytab, substitutes, wild, wild_mult, scatter,
                  scatter_pays, masks, min_count, out, per_spin):
    """Given stops ``all_stops[i, reel]``: totals in ``out``, line pays per spin in
    ``per_spin``."""
    window = np.empty((padded.shape[0], padded.shape[1] - STOPS + 1), dtype=np.int64)
    wins = np.empty((lines.shape[0], 5), dtype=np.int64)
    line_total, scatter_total = 0, 0
    for i in range(all_stops.shape[0]):
        count = _fill_window(padded, all_stops[i], window, scatter)
        units, _n = masked_line_pays(window, lines, paytab, substitutes, wild, wild_mult, False,
                                     masks, min_count, wins)
        per_spin[i] = units
        line_total += units
        scatter_total += scatter_pays[count]
    out[0] = line_total
    out[1] = scatter_total


def _args(t: Tables) -> tuple[object, ...]:
    return (t.padded, t.lines, t.paytab, t.substitutes, t.wild, t.wild_mult, t.scatter,
            t.scatter_pays, t.masks, t.min_count)


def run_slotlab(t: Tables, words: np.ndarray, spins: int, public: bool = False) -> tuple[int, int]:
    """(line pays, scatter pays) of the slotlab side, stops from xoshiro256** ``words``."""
    out = np.zeros(2, dtype=np.int64)
    fn = slotlab_line_pays_xoshiro if public else slotlab_xoshiro
    fn(xoshiro_stream(np.asarray(words, dtype=np.uint64)), spins, *_args(t), out)
    return int(out[0]), int(out[1])


def run_slotlab_stops(t: Tables, stops: np.ndarray) -> tuple[int, int, np.ndarray]:
    out = np.zeros(2, dtype=np.int64)
    per_spin = np.zeros(stops.shape[0], dtype=np.int64)
    slotlab_stops(np.ascontiguousarray(stops, dtype=np.int64), *_args(t), out, per_spin)
    return int(out[0]), int(out[1]), per_spin


def seed_words(rep: int) -> np.ndarray:
    return np.random.SeedSequence(rep).generate_state(4, dtype=np.uint64)


def interleaved(runs: dict[str, Callable[[np.ndarray], tuple[int, int]]], spins: int,
                repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]],
                                       dict[str, list[tuple[int, int]]]]:
    """Round ``i`` runs every entry once on the stream ``seed_words(i)``, starting with a
    different entry each round, so that load on the shared machine falls on every side alike.

    Returns, per entry and round, the rate per CPU-second, the wall-clock rate and the sums.
    """
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    wall: dict[str, list[float]] = {name: [] for name in runs}
    sums: dict[str, list[tuple[int, int]]] = {name: [] for name in runs}
    names = list(runs)
    for rep in range(repeats):
        words = seed_words(rep)
        for name in names[rep % len(names):] + names[: rep % len(names)]:
            w0, c0 = time.perf_counter(), time.process_time()
            sums[name].append(runs[name](words))
            w1, c1 = time.perf_counter(), time.process_time()
            cpu[name].append(spins / max(c1 - c0, 1e-9))
            wall[name].append(spins / (w1 - w0))
    return cpu, wall, sums


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spins", type=int, default=1_000_000, help="spins per timed run")
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=5_000_000, help="fruit-5x3 rounds per run")
    ap.add_argument("--fruit-repeats", type=int, default=5)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()
    if not gcc_available():
        sys.exit("gcc is needed to build the C evaluator")
    sys.path.insert(0, str(HERE))
    from bench_lines import bench_kernel  # fruit-5x3, timed exactly as bench_lines.py does

    t = Tables()
    spins, repeats = args.spins, args.repeats
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout
    report: dict[str, object] = {
        "machine": {"cpu": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                    "loadavg_at_start": list(os.getloadavg()), "python": platform.python_version(),
                    "numba": numba.__version__, "numpy": np.__version__,
                    "gcc": gcc.splitlines()[0]},
        "command": "python benchmarks/bench_line_evaluator.py " + " ".join(sys.argv[1:]),
        "game": "5x3, fruit-5x3's 30 lines, pays, wild (x2) and scatter; 64-stop strips "
                "(fruit-5x3's base strips repeated), uniform stops from xoshiro256**",
        "spins": spins, "repeats": repeats,
    }
    run_slotlab(t, seed_words(0), 1000)  # compile (or load from the cache)
    run_slotlab(t, seed_words(0), 1000, public=True)
    with tempfile.TemporaryDirectory() as folder:
        runs: dict[str, Callable[[np.ndarray], tuple[int, int]]] = {
            f"c_{name}": CEvaluator(t, Path(folder), flags).runner(spins)
            for name, flags in FLAGS.items()}
        runs["slotlab"] = lambda w: run_slotlab(t, w, spins)
        runs["slotlab_line_pays"] = lambda w: run_slotlab(t, w, spins, public=True)
        cpu, wall, sums = interleaved(runs, spins, repeats)
    identical = all(s == sums["slotlab"] for s in sums.values())
    results = {name: {"spins_per_cpu_s": max(cpu[name]), "spins_per_s": max(wall[name]),
                      "median_spins_per_cpu_s": statistics.median(cpu[name])} for name in runs}
    c_names = [f"c_{name}" for name in FLAGS]
    fastest_c = max(c_names, key=lambda n: results[n]["spins_per_cpu_s"])
    report["rates"] = results
    report["sums"] = {k: [list(x) for x in v] for k, v in sums.items()}
    report["sums_identical"] = identical
    report["fastest_c"] = fastest_c
    # slotlab's best rate over each C build's best, and the median of the rounds' ratios;
    # "ratio" is the best over the fastest C build's best.
    report["ratios"] = {
        f"{s_name}/{c_name}": {
            "best": results[s_name]["spins_per_cpu_s"] / results[c_name]["spins_per_cpu_s"],
            "median": statistics.median(x / y for x, y in zip(cpu[s_name], cpu[c_name],
                                                              strict=True))}
        for s_name in ("slotlab", "slotlab_line_pays") for c_name in c_names}
    report["ratio"] = results["slotlab"]["spins_per_cpu_s"] / results[fastest_c]["spins_per_cpu_s"]
    report["fruit_5x3_kernel"] = bench_kernel("fruit-5x3", 30, args.rounds, args.fruit_repeats)
    report["machine"]["loadavg_at_end"] = list(os.getloadavg())  # type: ignore[index]
    for name, r in results.items():
        print(f"{name:24s} {r['spins_per_cpu_s'] / 1e6:6.2f} M spins per CPU-s "
              f"({r['spins_per_s'] / 1e6:.2f} M/s wall)")
    print(f"ratio slotlab / fastest C ({fastest_c}): {report['ratio']:.3f}; "
          f"sums identical: {identical}")
    for name, ratio in report["ratios"].items():  # type: ignore[attr-defined]
        print(f"  {name:36s} best {ratio['best']:.3f}, median of rounds {ratio['median']:.3f}")
    f = report["fruit_5x3_kernel"]
    print(f"fruit-5x3 kernel.simulate_rounds {f['rounds_per_cpu_s'] / 1e6:.2f} M rounds per "
          f"CPU-s ({f['rounds_per_s'] / 1e6:.2f} M/s wall)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written to {args.out}")
    if not identical:
        sys.exit("the C and slotlab evaluators paid different sums")


if __name__ == "__main__":
    main()
