"""Exact mathematics of a data-only line game, in rational numbers.

* Line pays: reels stop independently and uniformly, so each row of reel ``r`` shows symbol
  ``s`` with probability ``count_r(s) / L_r``, and every payline sees the same product of these
  marginals. One line's outcome distribution comes from enumerating symbol tuples (a few
  thousand), weighted by products of symbol counts; the lines' RTP is that times the number of
  lines (linearity of expectation).
* Scatter pays: each reel's window shows a number of scatters with a distribution counted over
  its stops; the total is the convolution of the reels' distributions.
* Free spins: by Wald's identity the free-spin win is E[number of free spins] times the mean
  win of one free spin, and E[number] follows from the retrigger law: ``a / (1 - m)`` with
  ``m`` the mean award per free spin when retriggers are unlimited, a small dynamic programme
  over (awarded, played) when a cap limits them.
* Hit frequency: whether any line pays is decided by the first ``M`` reels, ``M`` the longest
  shortest paying run; enumerating their stops and convolving the rest's scatter counts gives
  P(the base spin pays or triggers free spins) exactly.

All figures are of the uncapped game; the cap's effect is measured by simulation.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
from numba import njit

from slotlab.games.contract import FamilyModel
from slotlab.games.lines.model import LineArrays, LineModel
from slotlab.mechanics.lines import line_outcome_weights, line_pays
from slotlab.mechanics.scatter import convolve, window_count_weights

HIT_ENUMERATION_LIMIT = 50_000_000


def _symbol_counts(strips: np.ndarray, lengths: np.ndarray, n_sym: int) -> np.ndarray:
    counts = np.zeros((strips.shape[0], n_sym), dtype=np.int64)
    for r in range(strips.shape[0]):
        counts[r] = np.bincount(strips[r, : lengths[r]], minlength=n_sym)
    return counts


def _scatter_counts(strips: np.ndarray, lengths: np.ndarray, rows: int, scatter: int) -> list[
    list[int]]:
    """Per reel: how many stops show k scatters in the window, k = 0..rows."""
    return [window_count_weights(strips[r], int(lengths[r]), rows, scatter)
            for r in range(strips.shape[0])]


def _cycle(lengths: np.ndarray) -> int:
    n = 1
    for length in lengths:
        n *= int(length)
    return n


class ReelSetMath:
    """Per-spin expectations of one reel set, in pay units (before any free-spin multiplier)."""

    def __init__(self, model: LineModel, strips: np.ndarray, lengths: np.ndarray) -> None:
        a = model.arrays
        n_sym = len(model.symbol_ids)
        self.cycle = _cycle(lengths)
        counts = _symbol_counts(strips, lengths, n_sym)
        outcomes = np.zeros((n_sym, a.reels + 1, a.reels + 1), dtype=np.int64)
        line_outcome_weights(counts, a.paytab, a.substitutes.astype(np.int64), a.wild, a.wild_mult,
                       a.wild_each, outcomes)
        self.line_rows = []  # (symbol, run, multiplier, weighted count, pay units)
        line_total = 0
        for sym, run, e in zip(*np.nonzero(outcomes), strict=True):
            mult = a.wild_mult ** int(e)
            weight = int(outcomes[sym, run, e])
            pay = int(a.paytab[sym, run]) * mult
            self.line_rows.append((int(sym), int(run), mult, weight, pay))
            line_total += weight * pay
        self.line_per_line = Fraction(line_total, self.cycle)
        self.lines = len(a.lines) * self.line_per_line
        self.scatter_dist = convolve(_scatter_counts(strips, lengths, a.rows, a.scatter))
        self.scatter = Fraction(
            sum(n * int(a.scatter_pays[c]) for c, n in enumerate(self.scatter_dist)), self.cycle
        )

    def p_scatter(self, count: int) -> Fraction:
        return Fraction(self.scatter_dist[count], self.cycle) if count < len(
            self.scatter_dist) else Fraction(0)


class ScatterLaw(Protocol):
    """What the free-spin count needs of a reel set: its scatter count's distribution."""

    cycle: int

    def p_scatter(self, count: int) -> Fraction: ...


def expected_free_spins(a: LineArrays, free: ScatterLaw, initial: int,
                        again: int | None = None) -> Fraction:
    """E[number of free spins played] after an initial award (retriggers included; each
    awards ``again`` when given, else the award of its scatter count)."""
    retrigger = [(free.p_scatter(c), again or int(a.fs_awards[c]))
                 for c in range(len(a.fs_awards)) if a.fs_awards[c] > 0 and a.fs_retrigger]
    if not retrigger:
        return Fraction(min(initial, a.fs_max) if a.fs_max else initial)
    if a.fs_max == 0:
        m = sum((p * award for p, award in retrigger), Fraction(0))
        if m >= 1:
            raise ValueError(f"free spins never end: a free spin awards {float(m):.3f} on average")
        return initial / (1 - m)
    # With a cap the award depends on what was awarded so far: a dynamic programme over
    # (total awarded, played). Integers scaled by D**(cap - played) keep it exact and fast
    # (Fractions would reduce by a gcd at every one of the ~cap**2/2 states).
    cap = a.fs_max
    denominator = free.cycle
    weights = [(int(p * denominator), award) for p, award in retrigger]
    w_none = denominator - sum(w for w, _ in weights)
    scaled: dict[tuple[int, int], int] = {}

    def after(total: int, played: int) -> int:
        """Scaled E[final total] once spin ``played`` is done, at ``total`` awarded."""
        if played == total:
            final: int = total * denominator ** (cap - played)
            return final
        return scaled[(total, played)]

    for total in range(cap, 0, -1):
        for played in range(total - 1, -1, -1):
            v = w_none * after(total, played + 1)
            for w, award in weights:
                v += w * after(min(total + award, cap), played + 1)
            scaled[(total, played)] = v
    start = min(initial, cap)
    return Fraction(scaled[(start, 0)], denominator**cap)


@njit(cache=True)
def _no_line_win_by_scatter(strips: np.ndarray, lengths: np.ndarray, rows: int, m_reels: int,
                            lines: np.ndarray, trunc: np.ndarray, substitutes: np.ndarray,
                            wild: int, scatter: int, out: np.ndarray) -> None:
    """Over all stops of the first ``m_reels`` reels: ``out[c] +=`` combinations where no line
    pays, ``c`` being the scatters those reels show."""
    idx = np.zeros(m_reels, dtype=np.int64)
    window = np.empty((m_reels, rows), dtype=np.int64)
    wins = np.empty((lines.shape[0], 5), dtype=np.int64)
    no_masks = np.zeros((0, rows), dtype=np.int64)  # evaluate every line: no prefilter
    no_counts = np.zeros(0, dtype=np.int64)
    while True:
        count = 0
        for r in range(m_reels):
            for row in range(rows):
                s = strips[r, idx[r] + row]
                window[r, row] = s
                if s == scatter:
                    count += 1
        _total, paying = line_pays(window, lines, trunc, substitutes, wild, 1, False, no_masks,
                                   no_counts, wins)
        if paying == 0:
            out[count] += 1
        r = m_reels - 1
        while r >= 0:
            idx[r] += 1
            if idx[r] < lengths[r]:
                break
            idx[r] = 0
            r -= 1
        if r < 0:
            return


def report_head(model: FamilyModel, bet: int, rtp: Fraction,
                components: dict[str, Fraction]) -> dict[str, Any]:
    """The fields every reel game's exact report opens with: the game, its model, the bet, the
    RTP and each component's share of it (``components``: per unit bet), as floats and
    fractions."""
    return {
        "game": model.spec.id,
        "model_hash": model.hash,
        "bet": bet,
        "rtp": float(rtp),
        "rtp_fraction": f"{rtp.numerator}/{rtp.denominator}",
        "components": {k: {"rtp": float(v), "fraction": f"{v.numerator}/{v.denominator}"}
                       for k, v in components.items()},
    }


def hit_frequency(model: LineModel) -> Fraction | None:
    """P(a base spin pays or triggers free spins), or None if too costly to enumerate."""
    a = model.arrays
    paying = [int(c) for c in a.min_count if c <= a.reels]
    m_reels = max(paying) if paying else 1
    if _cycle(a.base_len[:m_reels]) > HIT_ENUMERATION_LIMIT:
        return None
    # With only m reels seen, a run of m may continue: it pays if any longer run pays.
    trunc = a.paytab[:, : m_reels + 1].copy()
    trunc[:, m_reels] = a.paytab[:, m_reels:].max(axis=1)
    no_line = np.zeros(m_reels * a.rows + 1, dtype=np.int64)
    _no_line_win_by_scatter(a.base, a.base_len, a.rows, m_reels, a.lines, trunc,
                            a.substitutes.astype(np.int64), a.wild, a.scatter, no_line)
    rest = convolve(_scatter_counts(a.base[m_reels:], a.base_len[m_reels:], a.rows, a.scatter))
    silent = 0
    for c1, n1 in enumerate(no_line):
        for c2, n2 in enumerate(rest):
            c = c1 + c2
            if a.scatter_pays[c] == 0 and a.fs_awards[c] == 0:
                silent += int(n1) * n2
    return 1 - Fraction(silent, _cycle(a.base_len))


def exact_report(model: LineModel, bet: int) -> dict[str, Any]:
    """The exact figures of the uncapped game at total bet ``bet`` credits (JSON-able)."""
    started = time.perf_counter()
    a = model.arrays
    divisor = model.divisor
    level = bet // divisor
    base = ReelSetMath(model, a.base, a.base_len)
    components = {"base_lines": base.lines, "base_scatter": base.scatter}
    fs_rows = []
    if model.spec.free_spins is not None:
        free = ReelSetMath(model, a.free, a.free_len)
        per_spin = a.fs_mult * (free.lines + free.scatter)
        fs_value = Fraction(0)
        for c in range(len(a.fs_awards)):
            if a.fs_awards[c] > 0 and base.p_scatter(c) > 0:
                spins = expected_free_spins(a, free, int(a.fs_awards[c]))
                fs_value += base.p_scatter(c) * spins * per_spin
                fs_rows.append({
                    "scatters": c, "probability": float(base.p_scatter(c)),
                    "one_in": float(1 / base.p_scatter(c)), "awarded": int(a.fs_awards[c]),
                    "expected_spins": float(spins),
                    "rtp_share": float(base.p_scatter(c) * spins * per_spin / divisor),
                })
        components["free_spins"] = fs_value
        p_trigger = sum((base.p_scatter(c) for c in range(len(a.fs_awards)) if a.fs_awards[c]),
                        Fraction(0))
    else:
        p_trigger = Fraction(0)
    total_units = sum(components.values(), Fraction(0))
    rtp = total_units / divisor
    hit = hit_frequency(model)
    names = model.symbol_ids
    n_lines = len(a.lines)
    par = []
    for sym, run, mult, weight, pay in sorted(base.line_rows, key=lambda r: (-r[4], r[0], -r[1])):
        p = Fraction(weight, base.cycle)
        par.append({
            "combination": f"{run} x {names[sym]}" + (f" (wild x{mult})" if mult > 1 else ""),
            "count_per_line": weight, "probability_per_line": float(p),
            "pay_credits": pay * level, "rtp_share": float(n_lines * p * pay / divisor),
        })
    scatter_rows = []
    for c, n in enumerate(base.scatter_dist):
        if c < len(a.scatter_pays) and a.scatter_pays[c] > 0 and n > 0:
            p = Fraction(n, base.cycle)
            scatter_rows.append({
                "combination": f"{c} x {names[a.scatter]}", "count": n, "probability": float(p),
                "pay_credits": int(a.scatter_pays[c]) * level,
                "rtp_share": float(p * int(a.scatter_pays[c]) / divisor),
            })
    tables = {"line pays (per line)": par, "scatter pays": scatter_rows}
    if fs_rows:
        tables["free spins"] = fs_rows
    notes = [
        "Exact RTP of the uncapped game; the max-win cap's effect is measured by simulation.",
        "The gamble is a fair double-or-nothing and adds nothing to the RTP; figures assume "
        "the player collects.",
        "hit_rate: P(a base spin pays or triggers free spins).",
    ]
    if hit is None:
        notes.append("hit_rate: too many stop combinations to enumerate; use simulate.")
    return {
        **report_head(model, bet, rtp, {k: v / divisor for k, v in components.items()}),
        "hit_rate": None if hit is None else float(hit),
        "hit_rate_fraction": None if hit is None else f"{hit.numerator}/{hit.denominator}",
        "hit_rate_exact": hit is not None,
        "free_spins_rate": float(p_trigger),
        "free_spins_one_in": float(1 / p_trigger) if p_trigger else None,
        "spins": base.cycle,
        "sd": None,
        "max_win": model.spec.max_win_x * bet,
        "max_win_x": model.spec.max_win_x,
        "tables": tables,
        "notes": notes,
        "seconds": time.perf_counter() - started,
    }
