"""The generator's evidence (R1-R3): which generators run, how their output is scaled, a
chi-square test at 99% of the scaled draws the game makes, the serial correlation of its reel
stops, and a dieharder summary where dieharder is installed.

Base-game reel stops come from real rounds (``game.play`` on fresh live seeds, the first
``reels_stopped`` event of each): the draws exactly as the game makes them, whatever its scaling
(Crystal Star Deluxe draws one index over the full cycle and splits it). Every other strip set
and every weighted table of the model file is drawn through the same compiled scaling functions
the kernels call (``rng.fill_randbelow``, ``rng.weighted_pick``) on the live generator.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from typing import Any

import numpy as np

from slotlab import rng
from slotlab.rounds import Game

Z99 = 2.5758293035489004  # two-sided 99% normal quantile
Z99_UPPER = 2.3263478740408408  # one-sided 99% normal quantile


def chi2_critical_99(df: int) -> float:
    """The 99% point of chi-square with ``df`` degrees of freedom (Wilson-Hilferty; within 0.5%
    of the exact quantile from df 2 on, and conservative at df 1, where it is used exactly)."""
    if df == 1:
        return 6.634896601021214
    h = 2 / (9 * df)
    return float(df * (1 - h + Z99_UPPER * math.sqrt(h)) ** 3)


def chi_square(counts: np.ndarray, probs: np.ndarray) -> dict[str, Any]:
    n = int(counts.sum())
    expected = probs * n
    stat = float(((counts - expected) ** 2 / expected).sum())
    df = len(counts) - 1
    critical = chi2_critical_99(df)
    return {"bins": len(counts), "draws": n, "chi2": round(stat, 3), "df": df,
            "critical_99": round(critical, 3), "pass": stat <= critical,
            "min_expected": round(float(expected.min()), 1)}


def allowed_failures(k: int, level: float = 0.01) -> int:
    """The most of ``k`` independent tests at ``level`` that a fair generator fails in 99% of
    runs (the binomial 99% point): a family of tests passes when no more than this fail."""
    m, tail = 0, 1.0 - (1 - level) ** k  # P(more than m failures)
    while tail > 0.01 + 1e-12:  # (1 test: exactly 1%)
        m += 1
        tail -= math.comb(k, m) * level**m * (1 - level) ** (k - m)
    return m


def family(tests: list[dict[str, Any]]) -> dict[str, Any]:
    failed = sum(not t["pass"] for t in tests)
    allowed = allowed_failures(len(tests))
    return {"tests": len(tests), "failed": failed, "allowed": allowed, "pass": failed <= allowed}


def lag1(x: np.ndarray) -> dict[str, Any]:
    """Lag-1 serial correlation with its 99% bound under independence (z / sqrt(n))."""
    a, b = x[:-1].astype(float), x[1:].astype(float)
    r = float(np.corrcoef(a, b)[0, 1]) if a.std() > 0 and b.std() > 0 else 0.0
    bound = Z99 / math.sqrt(len(a))
    return {"n": len(x), "r": round(r, 6), "bound_99": round(bound, 6), "pass": abs(r) <= bound}


def strip_sets(raw: dict[str, Any]) -> dict[str, list[int]]:
    """Every strip set of a model file, by path: the lengths of its reels."""
    out: dict[str, list[int]] = {}

    def walk(x: Any, path: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{path}.{k}" if path else k)
        elif (isinstance(x, list) and x and "strip" in path
              and all(isinstance(s, list) and s and all(isinstance(c, str) for c in s)
                      for s in x)):
            out[path] = [len(s) for s in x]
    walk(raw, "")
    return out


def weighted_tables(raw: dict[str, Any]) -> dict[str, list[int]]:
    """Every weighted table of a model file, by path: ``[[value..., weight], ...]`` lists and
    ``weights`` lists."""
    out: dict[str, list[int]] = {}

    def walk(x: Any, path: str) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{path}.{k}" if path else k)
        elif isinstance(x, list) and len(x) >= 2:
            if path.endswith("weights") and all(type(w) is int and w > 0 for w in x):
                out[path] = list(x)
            elif all(isinstance(e, list) and len(e) >= 2 and type(e[-1]) is int and e[-1] > 0
                     for e in x):
                out[path] = [e[-1] for e in x]
    walk(raw, "")
    return out


def _base_set(sets: dict[str, list[int]], reels: int) -> str | None:
    named = [p for p, ls in sets.items() if len(ls) == reels and p.split(".")[-1] == "base"]
    only = [p for p, ls in sets.items() if len(ls) == reels]
    return (named or only)[0] if named or only else None


def live_stops(game: Game, rounds: int, seed: bytes | None = None) -> np.ndarray:
    """The base-game stops of ``rounds`` live rounds, rounds x reels: on fresh OS seeds as live
    play draws them, or on seeds derived from ``seed`` (a reproducible run)."""
    bet = game.bets()[0]
    rows = []
    for k in range(rounds):
        round_seed = rng.fresh_seed() if seed is None else rng.derived_seed(seed, k)
        result = game.play(bet, [round_seed])
        first = next(e for e in result.events if e["type"] == "reels_stopped")
        rows.append(first["stops"])
    return np.asarray(rows, dtype=np.int64)


def _uniform_draws(n_values: int, draws: int, seed: bytes) -> np.ndarray:
    stream = rng.chacha_stream(seed)
    out = np.empty(draws, dtype=np.int64)
    rng.fill_randbelow(stream, np.full(draws, n_values, dtype=np.int64), out)
    return np.bincount(out, minlength=n_values)


def _weighted_draws(weights: list[int], draws: int, seed: bytes) -> np.ndarray:
    stream = rng.chacha_stream(seed)
    cum = rng.cumulative_weights(weights)
    picks = [rng.weighted_pick(stream, cum) for _ in range(draws)]
    return np.bincount(np.asarray(picks), minlength=len(weights))


def evidence(game: Game, rounds: int, draws: int, seed: bytes | None = None,
             battery: bool = True) -> dict[str, Any]:
    """The generator's section; ``seed`` makes every draw reproducible (tests), else each run
    draws fresh seeds from the OS, as live play does; ``battery`` runs dieharder's tests where
    it is installed."""
    raw: dict[str, Any] = game.model.raw  # type: ignore[attr-defined]
    sets = strip_sets(raw)
    stops = live_stops(game, rounds, seed)
    reels = stops.shape[1]
    base = _base_set(sets, reels)
    tests: list[dict[str, Any]] = []
    serial: list[dict[str, Any]] = []
    if base is not None:
        for r, length in enumerate(sets[base]):
            counts = np.bincount(stops[:, r], minlength=length)
            tests.append({"draw": f"{base}[{r}] (reel {r + 1}) stops, from {rounds:,} live rounds",
                          "source": "live rounds", **chi_square(counts, np.full(length,
                                                                                1 / length))})
            serial.append({"sequence": f"reel {r + 1} stop, round after round",
                           **lag1(stops[:, r])})
        normalised = (stops / np.asarray(sets[base], dtype=float)).ravel()
        serial.append({"sequence": "every stop in draw order (stop / strip length)",
                       **lag1(normalised)})
    seed = rng.fresh_seed() if seed is None else rng.derived_seed(seed, 1 << 40)
    for k, (path, lengths) in enumerate(sorted(sets.items())):
        if path == base:
            continue
        for r, length in enumerate(lengths):
            n = max(draws, 100 * length)
            counts = _uniform_draws(length, n, rng.derived_seed(seed, 100 * k + r))
            tests.append({"draw": f"{path}[{r}] stops (randbelow({length}))",
                          "source": "rng.fill_randbelow on ChaCha20",
                          **chi_square(counts, np.full(length, 1 / length))})
    for k, (path, weights) in enumerate(sorted(weighted_tables(raw).items())):
        n = max(draws, 200 * sum(weights) // min(weights))  # at least ~200 of the rarest entry
        n = min(n, 20 * draws)
        counts = _weighted_draws(weights, n, rng.derived_seed(seed, 10_000 + k))
        total = sum(weights)
        tests.append({"draw": f"{path} (weights {weights})",
                      "source": "rng.weighted_pick on ChaCha20",
                      **chi_square(counts, np.asarray(weights) / total)})
    return {
        "live": "ChaCha20 (RFC 8439 block function, 20 rounds), keyed by SHA-256 of a 256-bit "
                "round seed from the operating system's CSPRNG (os.urandom), one fresh seed "
                "per round and per player choice; a failing source refuses the round "
                "(server/services/live_seeds.py, fail closed)",
        "simulation": "xoshiro256**, one stream per chunk seeded by numpy SeedSequence(root, "
                      "spawn_key=(chunk,)); never used for live rounds",
        "scaling": "rng.randbelow: Lemire's multiply-and-reject on the top 32 bits of each "
                   "64-bit output, so every value of range(n) has probability exactly 1/n (no "
                   "modulo bias); rng.weighted_pick: randbelow(total weight) then the first "
                   "cumulative weight above it, so entry i has probability exactly w_i / total",
        "confidence": "99%: a chi-square test passes when its statistic is at most the 99% "
                      "point of chi-square with bins - 1 degrees of freedom; a serial "
                      "correlation passes when |r| <= 2.576 / sqrt(n - 1). Each family (the "
                      "chi-square tests, the serial correlations) passes when no more of its "
                      "tests fail than a fair generator's do in 99% of runs (the binomial 99% "
                      "point of k tests at 1%): all k at 99% each would fail a fair generator "
                      "in 1 - 0.99^k of runs",
        "chi_square": tests,
        "serial_correlation": serial,
        "families": {"chi_square": family(tests), "serial_correlation": family(serial)},
        "all_pass": family(tests)["pass"] and family(serial)["pass"],
        "seeds": "fresh from the OS" if seed is None else "derived from a fixed seed",
        "dieharder": dieharder_summary(run=battery),
    }


BATTERY_BYTES = 1 << 28  # per dieharder test: enough for its default 100 p-values


def dieharder_summary(n_tests: tuple[int, ...] = (100, 101, 102), run: bool = True,
                      data_bytes: int = BATTERY_BYTES) -> dict[str, Any]:
    """A few of dieharder's tests on the live generator's raw output, where dieharder is
    installed (the whole battery: ``slotlab rng dump --bytes 1e9 | dieharder -a -g 200``).
    A test that gives no verdict (its input ran out: dieharder says "EOF") is an error, never
    a pass."""
    exe = shutil.which("dieharder")
    if exe is None:
        return {"installed": False, "ran": False,
                "note": "dieharder is not installed on this machine: no battery was run (run "
                        "it with `slotlab rng dump --bytes 1000000000 | dieharder -a -g 200`)"}
    if not run:
        return {"installed": True, "ran": False,
                "note": "the raw battery was not run in this run (the short form)"}
    results = []
    for d in n_tests:
        data = _raw_bytes(data_bytes)
        proc = subprocess.run([exe, "-g", "200", "-d", str(d)], input=data,
                              capture_output=True, check=False)
        del data
        text = proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")
        verdicts = [w for w in ("PASSED", "WEAK", "FAILED") for _ in range(text.count(w))]
        row: dict[str, Any] = {"test": d, "bytes": data_bytes,
                               "passed": verdicts.count("PASSED"),
                               "weak": verdicts.count("WEAK"),
                               "failed": verdicts.count("FAILED")}
        if not verdicts:
            row["error"] = (text.strip().splitlines() or ["no output"])[-1][:200]
        results.append(row)
    return {"installed": True, "ran": True, "generator": "ChaCha20", "tests": results}


def _raw_bytes(n: int) -> bytes:
    stream = rng.chacha_stream(rng.fresh_seed())
    block = np.empty(n // 8, dtype=np.uint64)
    rng.fill_u64(stream, block)
    return block.astype("<u8").tobytes()
