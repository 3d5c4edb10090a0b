"""The figures of a PAR sheet: a simulation beside the game's exact figures, as tables.

One run of the runner gives the whole-run sums (RTP, hits, bands, max win, parts) and, chunk by
chunk, the convergence curve and the batch means of each part. The first chunks of the same
run are also played round by round (each round's parts are kept), which gives how often each
part pays, its average pay and the distribution of feature wins; a round played alone draws
exactly what it draws inside its chunk, so these rounds are the run's own first rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

import slotlab
from slotlab.games.contract import AnyGame
from slotlab.rng import chunk_stream
from slotlab.simulate.par.intervals import batch_means99, wilson99
from slotlab.simulate.par.sessions import session_figures
from slotlab.simulate.par.tables import Cell, Table, from_records, model_tables, slug
from slotlab.simulate.runner import Chunk, chunk_plan, simulate
from slotlab.simulate.session import SESSIONS
from slotlab.simulate.stats import (
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_SPINS,
    ACC_WIN,
    BAND_EDGES,
    Z99,
    band_labels,
)

SAMPLE_ROUNDS = 500_000  # rounds played one by one for the per-part figures
BONUSES = 200_000  # Bonus Games per exact report where the game's feature is simulated
BET_LEVEL_SPINS = 10_000_000  # most rounds simulated at each bet level (the check is exact)
MAX_CHUNKS = 40  # chunks of a short run: points on the convergence curve, batches of the means
FEATURE_EDGES = np.geomspace(0.01, 100_000, 71)  # log bins of feature wins (x bet) for the plot


@dataclass
class Run:
    """The simulation and what was kept along the way."""

    sim: dict[str, Any]
    names: list[str]
    chunk_spins: int
    chunks: list[np.ndarray]  # each chunk's accumulators, in chunk order
    chunk_sq: list[float]
    sample: np.ndarray  # rounds x (win, feature, parts...) of the run's first chunks


def exact_report(game: AnyGame, bet: int, bonuses: int, seed: int) -> dict[str, Any] | None:
    """The game's exact report at ``bet``, or None; a simulated feature gets ``bonuses``."""
    if game.composed is not None:
        return game.composed(bet, bonuses=bonuses, seed=seed)
    return None if game.exact is None else game.exact(bet)


def default_chunk(spins: int) -> int:
    return max(1, min(1 << 20, math.ceil(spins / MAX_CHUNKS)))


def play_sample(game: AnyGame, bet: int, seed: int, chunk: int, rounds: int,
                spins: int) -> np.ndarray:
    """The run's first whole chunks covering ``rounds`` rounds, round by round."""
    names = game.component_names()
    out: list[np.ndarray] = []
    played = 0
    for index, n in chunk_plan(spins, chunk):
        if played >= rounds:
            break
        stream = chunk_stream(seed, index)
        block = np.zeros((n, 2 + len(names)), dtype=np.int64)
        for r in range(n):
            acc, _ = game.simulate_chunk(bet, 1, stream)
            block[r, 0] = acc[ACC_WIN]
            block[r, 1] = acc[ACC_FEATURES]
            block[r, 2:] = acc[ACC_COMPONENTS : ACC_COMPONENTS + len(names)]
        out.append(block)
        played += n
    return np.concatenate(out) if out else np.zeros((0, 2 + len(names)), dtype=np.int64)


def run(game: AnyGame, game_ref: str, bet: int, spins: int, seed: int, workers: int,
        sample_rounds: int, chunk_spins: int | None = None) -> Run:
    chunk = chunk_spins or default_chunk(spins)
    chunks: list[np.ndarray] = []
    chunk_sq: list[float] = []

    def keep(c: Chunk) -> None:
        chunks.append(c[0].copy())
        chunk_sq.append(float(c[1][0]))

    result = simulate(game, game_ref, bet, spins, seed=seed, workers=workers,
                      chunk_spins=chunk, on_chunk=keep)
    sample = play_sample(game, bet, seed, chunk, min(sample_rounds, spins), spins)
    return Run(result.to_json(), game.component_names(), chunk, chunks, chunk_sq, sample)


# -- helpers ------------------------------------------------------------------------------


def _fraction(text: Any) -> Fraction | None:
    try:
        return Fraction(str(text)) if text is not None else None
    except (ValueError, ZeroDivisionError):
        return None


def _inside(value: float | None, low: float, high: float) -> bool | None:
    if value is None:
        return None
    slack = 1e-12 * max(1.0, abs(value))  # an exact figure on the edge of a zero-width interval
    return low - slack <= value <= high + slack


def _one_in(p: float | None) -> float | None:
    return 1 / p if p else None


def exact_feature_rate(exact: dict[str, Any]) -> float | None:
    """The exact probability of the round flag the kernels count as a feature trigger."""
    for key in ("feature_rate", "free_spins_rate", "bonus_frequency"):
        if isinstance(exact.get(key), int | float):
            return float(exact[key])
    return None  # e.g. Crystal Star Deluxe: its report counts three-Star events, not rounds


def exact_trigger_rates(exact: dict[str, Any]) -> dict[str, float]:
    """Exact probabilities that a part pays in a round, under the exact report's names."""
    rates = {k: float(f) for k, v in exact.get("frequencies", {}).items()
             if (f := _fraction(v)) is not None}
    if isinstance(exact.get("free_spins_rate"), int | float) and exact["free_spins_rate"] > 0:
        rates.setdefault("free_spins", float(exact["free_spins_rate"]))
    if isinstance(exact.get("bonus_frequency"), int | float):
        rates.setdefault("bonus_reels", float(exact["bonus_frequency"]))
    if isinstance(exact.get("final_game_frequency"), int | float):
        rates.setdefault("bonus_final_game", float(exact["final_game_frequency"]))
    return rates


def _match(name: str, candidates: dict[str, Any]) -> str | None:
    """The exact report's name for kernel part ``name``: equal, else the one prefix match."""
    if name in candidates:
        return name
    hits = [c for c in candidates if name.startswith(c + "_") or c.startswith(name + "_")]
    return hits[0] if len(hits) == 1 else None


def part_groups(names: list[str], exact: dict[str, Any] | None) -> dict[str, list[str]]:
    """Kernel parts grouped under the exact report's RTP components (a component the kernel
    splits, such as Lucky Stars into star values, Minor, Major and Grand, gets all its parts)."""
    if exact is None:
        return {n: [n] for n in names}
    components = exact.get("components", {})
    groups: dict[str, list[str]] = {c: [] for c in components}
    for n in names:
        owner = n if n in components else next(
            (c for c in components if n.startswith(c + "_")
             or n in exact.get(f"{c}_parts", {})), None)
        groups.setdefault(owner or n, []).append(n)
    return groups


def is_cap(name: str) -> bool:
    return name.startswith("cap")


# -- the tables ---------------------------------------------------------------------------


def identity_table(game: AnyGame, run_: Run, bet: int, exact: dict[str, Any] | None,
                   bonuses: int) -> Table:
    sim = run_.sim
    rows: list[list[Cell]] = [
        ["game", game.id], ["name", game.name],
        ["model hash", game.model_hash], ["code version", slotlab.CODE_VERSION],
        ["seed", sim["seed"]], ["spins", sim["spins"]], ["total bet (credits)", bet],
        ["chunk spins", run_.chunk_spins], ["chunks", len(run_.chunks)],
        ["rounds played one by one", int(run_.sample.shape[0])],
        ["simulation seconds", sim["seconds"]],
        ["exact figures", "none (simulated only)" if exact is None else (
            f"composed: exact base game, {bonuses:,} simulated Bonus Games"
            if "bonus_ci99" in exact else "exact")],
    ]
    return Table("identity", "Identity", ["item", "value"], rows, section="identity",
                 note="rerun with the same game, model hash, code version, seed and spins "
                      "for the same figures")


def summary_table(run_: Run, exact: dict[str, Any] | None) -> Table:
    sim, ex = run_.sim, exact or {}
    n = sim["spins"]
    low, high = sim["ci99"]
    rows: list[list[Cell]] = []
    ex_rtp = ex.get("rtp")
    if isinstance(ex_rtp, int | float):
        spread = math.hypot((high - low) / 2, float(ex.get("ci99_half_width", 0.0)))
        ok: bool | None = abs(sim["rtp"] - ex_rtp) <= spread + 1e-12
    else:
        ok = None
    rows.append(["RTP", ex_rtp, sim["rtp"], low, high, ok])
    hits = round(sim["hit_rate"] * n)
    h_lo, h_hi = wilson99(hits, n)
    rows.append(["hit frequency", ex.get("hit_rate"), sim["hit_rate"], h_lo, h_hi,
                 _inside(ex.get("hit_rate"), h_lo, h_hi)])
    rows.append(["hit frequency, 1 in", _one_in(ex.get("hit_rate")), _one_in(sim["hit_rate"]),
                 _one_in(h_hi), _one_in(h_lo), _inside(ex.get("hit_rate"), h_lo, h_hi)])
    rate = exact_feature_rate(ex)
    f_lo, f_hi = wilson99(round(sim["feature_rate"] * n), n)
    rows.append(["feature trigger frequency", rate, sim["feature_rate"], f_lo, f_hi,
                 _inside(rate, f_lo, f_hi)])
    rows.append(["feature trigger, 1 in", _one_in(rate), sim["feature_one_in"], _one_in(f_hi),
                 _one_in(f_lo), _inside(rate, f_lo, f_hi)])
    rows.append(["standard deviation (x bet)", ex.get("sd"), sim["sd"], None, None, None])
    rows.append(["volatility index (90%)", ex.get("volatility_index_90"),
                 sim["volatility_index_90"], None, None, None])
    ex_max = ex.get("max_win_x")
    rows.append(["max win (x bet)", ex_max, sim["max_win_x"], None, None,
                 None if not isinstance(ex_max, int | float) else sim["max_win_x"] <= ex_max])
    return Table("summary", "Exact and simulated figures",
                 ["figure", "exact", "simulated", "99% low", "99% high", "pass"], rows,
                 section="summary",
                 note="pass: the exact figure lies inside the simulation's 99% interval (RTP: "
                      "both intervals combined where the exact report is itself partly "
                      "simulated); max win: the simulated maximum does not exceed the exact one")


def rtp_split_table(run_: Run, bet: int, exact: dict[str, Any] | None) -> Table:
    names, sim = run_.names, run_.sim
    spins = [int(c[ACC_SPINS]) for c in run_.chunks]
    components = (exact or {}).get("components", {})
    rows: list[list[Cell]] = []
    for part, members in part_groups(names, exact).items():
        idx = [names.index(m) for m in members]
        totals = [int(sum(c[ACC_COMPONENTS + i] for i in idx)) for c in run_.chunks]
        value = sum(totals) / (bet * sum(spins))
        ex = components.get(part, {}).get("rtp")
        ex_is_exact = components.get(part, {}).get("exact", True)
        if ex is None and value == 0:
            continue
        low, high = batch_means99(totals, spins, bet)
        share = value / sim["rtp"] if sim["rtp"] else None
        ex_share = ex / exact["rtp"] if ex is not None and exact and exact.get("rtp") else None
        rows.append([part, " + ".join(members) or "-", ex, value, low, high, ex_share, share,
                     _inside(ex, low, high) if ex_is_exact else None])
    return Table("rtp-split", "RTP split by feature",
                 ["part", "kernel parts", "exact RTP", "simulated RTP", "99% low", "99% high",
                  "exact share", "simulated share", "pass"], rows, section="split",
                 note="99% interval by batch means over the run's chunks (Student's t); no "
                      "pass mark where the report's part is itself simulated")


def win_band_table(run_: Run, exact: dict[str, Any] | None) -> Table:
    sim = run_.sim
    n = sim["spins"]
    ex_bands = (exact or {}).get("win_bands", {})
    lows: list[float] = [0, 0, *BAND_EDGES]
    rows: list[list[Cell]] = []
    for label, lower in zip(band_labels(), lows, strict=True):
        count = sim["win_bands"][label]
        low, high = wilson99(count, n)
        ex = ex_bands.get(label)
        rows.append([label, lower, count, count / n, _one_in(count / n), low, high, ex,
                     _inside(ex, low, high)])
    return Table("win-bands", "Win distribution by band (win / total bet)",
                 ["band", "from x bet", "rounds", "frequency", "1 in", "99% low", "99% high",
                  "exact probability", "pass"], rows, section="bands",
                 note="99% Wilson intervals")


def max_win_table(game: AnyGame, run_: Run, exact: dict[str, Any] | None) -> Table:
    sim, ex = run_.sim, exact or {}
    count = sim["max_win_count"]
    rows: list[list[Cell]] = [
        ["simulated max win (credits)", sim["max_win"]],
        ["simulated max win (x bet)", sim["max_win_x"]],
        ["times it occurred", count],
        ["frequency, 1 in", sim["spins"] / count if count else None],
        ["exact max win (credits)", ex.get("max_win")],
        ["exact max win (x bet)", ex.get("max_win_x")],
        ["exact max win is", None if "max_win" not in ex else (
            "an upper bound" if ex.get("max_win_exact") is False else "exact")],
        ["exact odds of the max win", ex.get("max_win_odds")],
        ["game cap (x bet)", game.max_win_x()],
    ]
    return Table("max-win", "Max win and how often", ["figure", "value"], rows,
                 section="maxwin")


def features_table(run_: Run, bet: int, exact: dict[str, Any] | None) -> Table:
    names, sample = run_.names, run_.sample
    rounds = int(sample.shape[0])
    ex = exact or {}
    rates = exact_trigger_rates(ex)
    components = ex.get("components", {})
    groups = part_groups(names, exact)
    rows: list[list[Cell]] = []
    flagged = sample[:, 1] > 0
    k = int(flagged.sum())
    low, high = wilson99(k, rounds) if rounds else (0.0, 0.0)
    rate = exact_feature_rate(ex)
    rows.append(["feature trigger (any)", k, k / rounds if rounds else None, low, high, rate,
                 _inside(rate, low, high), float(sample[flagged, 0].mean()) / bet if k else None,
                 None])
    for i, name in enumerate(names):
        if is_cap(name):
            continue
        paid = sample[:, 2 + i] > 0
        k = int(paid.sum())
        key = _match(name, rates)
        ex_rate = rates.get(key) if key else None
        if k == 0 and ex_rate is None:
            continue
        low, high = wilson99(k, rounds) if rounds else (0.0, 0.0)
        comp = _match(name, components)
        if comp is not None and len(groups.get(comp, [])) > 1:
            comp = None  # the kernel splits this component: no exact pay for one piece
        ex_rtp = components.get(comp, {}).get("rtp") if comp else None
        rows.append([name, k, k / rounds if rounds else None, low, high, ex_rate,
                     None,  # a triggered part may pay nothing: paying and trigger rates differ
                     float(sample[paid, 2 + i].mean()) / bet if k else None,
                     ex_rtp / ex_rate if ex_rtp is not None and ex_rate else None])
    return Table("features", "Feature trigger frequencies and average pays",
                 ["part", "rounds paying", "frequency", "99% low", "99% high",
                  "exact trigger frequency", "pass", "average pay per paying round (x bet)",
                  "exact average pay per trigger (x bet)"],
                 rows, section="features",
                 note=f"from the run's first {rounds:,} rounds, played one by one; a part "
                      "pays in a round where it wins anything (a triggered feature may pay "
                      "nothing, so only the first row, the kernels' trigger flag itself, is "
                      "marked); the exact average pay is the part's RTP over its trigger rate")


def bet_level_table(game: AnyGame, game_ref: str, spins: int, seed: int, workers: int,
                    bonuses: int) -> tuple[Table, bool]:
    """RTP at every bet level (exact where there is one, simulated on common random numbers
    otherwise), and whether it never falls as the bet rises."""
    bets = game.bets()
    n = min(spins, max(10_000, spins // 10), BET_LEVEL_SPINS)
    rows: list[list[Cell]] = []
    ok = True
    previous: tuple[Fraction | float, float] | None = None
    for b in bets:
        ex = exact_report(game, b, bonuses, seed)
        r = simulate(game, game_ref, b, n, seed=seed, workers=workers,
                     chunk_spins=default_chunk(n))
        low, high = r.ci99
        ex_rtp = ex.get("rtp") if ex else None
        exact_value = _fraction(ex.get("rtp_fraction")) if ex else None
        value: Fraction | float = exact_value if exact_value is not None else (
            ex_rtp if isinstance(ex_rtp, float) else r.rtp)
        half = (high - low) / 2 if ex_rtp is None else 1e-9  # simulated: a fall beyond noise
        falls = previous is not None and value < previous[0] - half - previous[1]
        ok = ok and not falls
        rows.append([b, ex_rtp, r.rtp, low, high,
                     None if previous is None else float(value - previous[0]), not falls])
        previous = (value, half if ex_rtp is None else 0.0)
    table = Table("bet-levels", "RTP per bet level",
                  ["total bet (credits)", "exact RTP", "simulated RTP", "99% low", "99% high",
                   "change from the bet below", "does not fall"], rows, section="bets",
                  note=f"simulated with {n:,} rounds per bet on the same seed; the check is "
                       "on the exact RTP where there is one"
                       + ("" if ok else ". FLAG: the RTP falls at a higher bet"))
    return table, ok


def feature_win_table(run_: Run, bet: int) -> tuple[Table, dict[str, list[int]]]:
    """Feature wins (every part but the first, the base game's line wins, and the cap) by
    band, and on fine log bins for the plot."""
    names, sample = run_.names, run_.sample
    parts = [(i, n) for i, n in enumerate(names) if i > 0 and not is_cap(n)
             and (sample[:, 2 + i] > 0).any()]
    edges = np.array([0.0, 1e-12, *BAND_EDGES, np.inf])
    rows: list[list[Cell]] = []
    for label, lo, hi in zip(band_labels()[1:], edges[1:-1], edges[2:], strict=True):
        row: list[Cell] = [label]
        for i, _ in parts:
            x = sample[:, 2 + i] / bet
            row.append(int(((x >= lo) & (x < hi) & (x > 0)).sum()))
        rows.append(row)
    fine = {n: np.histogram(sample[sample[:, 2 + i] > 0, 2 + i] / bet,
                            bins=FEATURE_EDGES)[0].astype(int).tolist() for i, n in parts}
    table = Table("feature-wins", "Distribution of feature wins (rounds by band, x bet)",
                  ["band", *(n for _, n in parts)], rows, section="featurewins",
                  note=f"the win of each part in the rounds where it pays, from the run's "
                       f"first {sample.shape[0]:,} rounds")
    return table, fine


def convergence_table(run_: Run, bet: int, exact: dict[str, Any] | None) -> Table:
    spins = win = 0
    sq = 0.0
    rows: list[list[Cell]] = []
    for chunk, chunk_sq in zip(run_.chunks, run_.chunk_sq, strict=True):
        spins += int(chunk[ACC_SPINS])
        win += int(chunk[ACC_WIN])
        sq += chunk_sq
        rtp = win / (spins * bet)
        half = Z99 * math.sqrt(max(sq / spins - rtp * rtp, 0.0) / spins)
        rows.append([spins, rtp, rtp - half, rtp + half])
    return Table("convergence", "RTP convergence", ["rounds", "RTP", "99% low", "99% high"],
                 rows, section="convergence",
                 note="" if exact is None else f"exact RTP {exact.get('rtp')}")


def exact_tables(exact: dict[str, Any] | None) -> list[Table]:
    if exact is None:
        return []
    fractions: list[list[Cell]] = [[k, v] for k, v in exact.items()
                                   if k.endswith("fraction") and isinstance(v, str)]
    fractions += [[f"{name} RTP", c["fraction"]] for name, c in exact.get("components", {}).items()
                  if isinstance(c.get("fraction"), str)]
    tables = [Table("exact-fractions", "Exact figures as fractions", ["figure", "fraction"],
                    fractions, section="exact")] if fractions else []
    notes = exact.get("notes", [])
    if notes:
        tables.append(Table("exact-notes", "How the exact figures are computed", ["note"],
                            [[n] for n in notes], section="exact"))
    for title, records in exact.get("tables", {}).items():
        if records:
            tables.append(from_records(slug(f"exact-{title}"), title, records, section="exact"))
    return tables


def compute(game: AnyGame, game_ref: str, bet: int, spins: int, seed: int = 0,
            workers: int = 1, sample_rounds: int = SAMPLE_ROUNDS, bonuses: int = BONUSES,
            chunk_spins: int | None = None, sessions: int = SESSIONS) -> dict[str, Any]:
    """Every figure of the PAR sheet of ``game`` at ``bet``: tables, checks and plot data."""
    exact = exact_report(game, bet, bonuses, seed)
    run_ = run(game, game_ref, bet, spins, seed, workers, sample_rounds, chunk_spins)
    bets, bets_ok = bet_level_table(game, game_ref, spins, seed, workers, bonuses)
    feature_wins, fine = feature_win_table(run_, bet)
    session_table, session_plot = session_figures(game, bet, sessions, seed)
    tables = [identity_table(game, run_, bet, exact, bonuses), summary_table(run_, exact),
              rtp_split_table(run_, bet, exact), win_band_table(run_, exact),
              max_win_table(game, run_, exact), features_table(run_, bet, exact), bets,
              feature_wins, session_table, convergence_table(run_, bet, exact),
              *exact_tables(exact),
              *model_tables(game.model.raw)]
    passes = [r[-1] for t in tables[1:4] for r in t.rows if isinstance(r[-1], bool)]
    return {
        "game": game.id,
        "model_hash": game.model_hash,
        "code_version": slotlab.CODE_VERSION,
        "seed": seed,
        "spins": run_.sim["spins"],
        "bet": bet,
        "checks": {"all_pass": all(passes), "failures": passes.count(False),
                   "marks": len(passes), "bet_levels_do_not_fall": bets_ok},
        "tables": [t.to_json() for t in tables],
        "plots": {"exact_rtp": (exact or {}).get("rtp"),
                  "rtp_estimated": game.composed is not None,
                  "feature_win_edges": FEATURE_EDGES.tolist(), "feature_wins": fine,
                  "sessions": session_plot},
        "simulation": run_.sim,
    }
