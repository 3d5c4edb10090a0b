"""Exact figures by full-cycle enumeration: every stop combination, every nudge stage.

:func:`.kernel.full_cycle` runs the rules (:func:`.kernel.play_stops`, traced) on all
``L1 x L2 x L3`` stop combinations and tallies its event rows into PAR tables; :func:`exact_report`
turns the tallies into exact fractions (RTP, hit rate, variance) and JSON-able tables. A win is
valued with the progressives at their reset values; the long-run RTP adds the contributions.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from slotlab.mechanics.accumulators import N_BANDS, Z90, band_labels, band_of

from .kernel import (
    T_BOTTOM,
    T_FLAT,
    T_LINES,
    T_SIZE,
    T_STAR_LINES,
    T_STAR_TOP,
    T_TOP,
    full_cycle,
)
from .model import Model

# Three-Star event categories of the PAR table.
STAR_EVENTS = (
    "top progressive (line {top})",
    "bottom progressive (lines 1-{other})",
    "flat prize, line {top}, below max bet",
    "flat prize, lines 1-{other}, below max bet",
    "flat prize, line {top} after the top progressive",
    "flat prize, lines 1-{other} after the bottom progressive",
)
STAGE_NAMES = ("initial stop", "nudge 1", "nudge 2")


def fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _one_in(count: int, total: int) -> str:
    return f"1 in {total / count:,.1f}" if count else "never"


def run_full_cycle(model: Model, line_bet: int) -> dict[str, np.ndarray]:
    """The raw tallies of :func:`full_cycle` at ``line_bet`` credits per line."""
    n = int(np.prod(model.lengths))
    out = {
        "totals": np.zeros((n, T_SIZE), np.int64),
        "line_par": np.zeros((3, len(model.combo_ids), 2), np.int64),
        "star_par": np.zeros((3, len(STAR_EVENTS), 2), np.int64),
        "stage_plays": np.zeros(3, np.int64),
        "mult_par": np.zeros((model.spec.multiplier_cap + 1, 2), np.int64),
    }
    full_cycle(
        line_bet, line_bet == model.max_line_bet, model.strips, model.lengths, model.nonblank,
        model.line_table, model.base, model.mult, model.arrow, model.lines, model.combo_mask,
        model.combo_pay, model.params, out["totals"], out["line_par"], out["star_par"],
        out["stage_plays"], out["mult_par"],
    )
    return out


def exact_report(model: Model, bet: int) -> dict[str, Any]:
    """Exact RTP, hit rate, SD, max win, progressive odds, win bands and PAR tables at ``bet``."""
    started = time.perf_counter()
    if bet not in model.bets():
        raise ValueError(f"bet {bet} is not allowed; allowed total bets: {model.bets()}")
    line_bet = bet // model.n_lines
    is_max = line_bet == model.max_line_bet
    raw = run_full_cycle(model, line_bet)
    totals = raw["totals"]
    n = totals.shape[0]
    cycle_in = n * bet  # credits wagered over the full cycle
    top_reset = model.progressives["top"].reset
    bottom_reset = model.progressives["bottom"].reset
    prog = totals[:, T_TOP] * top_reset + totals[:, T_BOTTOM] * bottom_reset
    wins = totals[:, T_LINES] + totals[:, T_FLAT] + prog
    values, counts = np.unique(wins, return_counts=True)
    vals = [int(v) for v in values]
    cnts = [int(c) for c in counts]
    total_win = sum(v * c for v, c in zip(vals, cnts, strict=True))
    sum_sq = sum(v * v * c for v, c in zip(vals, cnts, strict=True))
    rtp = Fraction(total_win, cycle_in)
    var = Fraction(sum_sq, n * bet * bet) - rtp * rtp
    sd = math.sqrt(var)
    hits = sum(c for v, c in zip(vals, cnts, strict=True) if v > 0)
    rates = sum((p.rate for p in model.progressives.values()), Fraction(0))
    rtp_long = rtp + rates if is_max else rtp
    parts = {
        "lines": int(totals[:, T_LINES].sum()),
        "progressives": int(prog.sum()),
        "flat_prizes": int(totals[:, T_FLAT].sum()),
    }
    components = {
        k: {"rtp": float(Fraction(v, cycle_in)), "fraction": fraction_text(Fraction(v, cycle_in))}
        for k, v in parts.items()
    }
    bands = [0] * N_BANDS
    for v, c in zip(vals, cnts, strict=True):
        bands[band_of(v, bet)] += c
    labels = band_labels()
    top_plays = int((totals[:, T_STAR_TOP] > 0).sum())
    bottom_plays = int(((totals[:, T_STAR_LINES] - totals[:, T_STAR_TOP]) > 0).sum())
    max_win = vals[-1]
    tables = _tables(model, raw, n, cycle_in, labels, bands)
    top_no = model.top_line
    notes = [
        f"Full cycle: {' x '.join(str(int(x)) for x in model.lengths)} = {n:,} stop "
        "combinations, each played through every nudge stage (exact, no sampling).",
        f"Bet {bet} credits = {model.n_lines} lines x {line_bet} credits"
        + (" (max bet: progressives live)." if is_max else " (below max bet: flat prizes)."),
        f"Progressives valued at reset: top {top_reset:,} credits, bottom {bottom_reset:,} "
        "credits; RTP long-run adds the contributions ("
        + ", ".join(f"{p.tier} {p.rate}" for p in model.progressives.values())
        + " of max-bet coin-in)"
        + ("." if is_max else "; below max bet no contribution is taken, so it equals the RTP."),
        "SD and volatility index are per play, in units of the total bet; VI = 1.645 x SD.",
        f"Progressive odds are plays with three Stars on line {top_no} (top) and on lines "
        f"1-{model.n_lines - 1} (bottom)"
        + ("." if is_max else "; below max bet these plays win the flat prizes instead."),
    ]
    return {
        "game": model.id,
        "model_hash": model.hash,
        "model_version": model.version,
        "bet": bet,
        "line_bet": line_bet,
        "max_bet": is_max,
        "cycle": n,
        "rtp": float(rtp),
        "rtp_fraction": fraction_text(rtp),
        "rtp_long_run": float(rtp_long),
        "rtp_long_run_fraction": fraction_text(rtp_long),
        "components": components,
        "hit_rate": hits / n,
        "hit_rate_fraction": fraction_text(Fraction(hits, n)),
        "hit_rate_exact": True,
        "sd": sd,
        "variance_fraction": fraction_text(var),
        "volatility_index_90": Z90 * sd,
        "max_win": max_win,
        "max_win_x": max_win / bet,
        "max_win_odds": _one_in(cnts[-1], n),
        "progressive_odds": {"top": _one_in(top_plays, n), "bottom": _one_in(bottom_plays, n)},
        "progressive_plays": {"top": top_plays, "bottom": bottom_plays},
        "win_bands": {lab: c / n for lab, c in zip(labels, bands, strict=True)},
        "tables": tables,
        "notes": notes,
        "seconds": time.perf_counter() - started,
    }


def _tables(
    model: Model, raw: dict[str, np.ndarray], n: int, cycle_in: int, labels: list[str],
    bands: list[int],
) -> dict[str, list[dict[str, Any]]]:
    line_par, star_par = raw["line_par"], raw["star_par"]
    stage_plays, mult_par = raw["stage_plays"], raw["mult_par"]

    def rtp(credits: int) -> float:
        return float(Fraction(int(credits), cycle_in))

    # One row per combination and stage, then the combination over all stages; hits are line
    # wins over the full cycle (a play can hold several).
    combos = []
    for c, cid in enumerate(model.combo_ids):
        per_stage = [(name, line_par[s, c]) for s, name in enumerate(STAGE_NAMES)]
        for stage, (hits, credits) in [*per_stage, ("all stages", line_par[:, c].sum(axis=0))]:
            combos.append({
                "combination": model.spec.combo_legend[cid], "code": cid,
                "pays": int(model.combo_pay[c]), "stage": stage, "hits": int(hits),
                "odds": _one_in(int(hits), n), "rtp": rtp(credits),
            })
    fmt = {"top": model.top_line, "other": model.n_lines - 1}
    stars = []
    for s, stage in enumerate(STAGE_NAMES):
        for e, event in enumerate(STAR_EVENTS):
            count = int(star_par[s, e, 0])
            if count:
                stars.append({
                    "event": event.format(**fmt), "stage": stage, "count": count,
                    "odds": _one_in(count, n), "credits": int(star_par[s, e, 1]),
                    "rtp": rtp(star_par[s, e, 1]),
                })
    stages = []
    for s, stage in enumerate(STAGE_NAMES):
        line_credits = int(line_par[s, :, 1].sum())
        star_credits = int(star_par[s, :, 1].sum())
        stages.append({
            "stage": stage, "plays": int(stage_plays[s]),
            "probability": float(stage_plays[s]) / n,
            "line wins": int(line_par[s, :, 0].sum()), "rtp lines": rtp(line_credits),
            "three-Star events": int(star_par[s, :, 0].sum()), "rtp three Stars": rtp(star_credits),
            "rtp": rtp(line_credits + star_credits),
        })
    mults = [
        {"multiplier": m, "line wins": int(mult_par[m, 0]), "rtp": rtp(mult_par[m, 1])}
        for m in range(mult_par.shape[0]) if mult_par[m, 0]
    ]
    factors = []
    for code, sid in enumerate(model.symbol_ids):
        row: dict[str, str | int] = {"symbol": sid}
        for r in range(3):
            row[f"reel {r + 1}"] = int((model.strips[r, : model.lengths[r]] == code).sum())
        factors.append(row)
    distribution = [
        {"band": lab, "plays": c, "probability": c / n, "odds": _one_in(c, n)}
        for lab, c in zip(labels, bands, strict=True)
    ]
    return {
        "combinations": combos,
        "three_stars": stars,
        "stages": stages,
        "multipliers": mults,
        "reel_factors": factors,
        "win_distribution": distribution,
    }
