"""Superstars' composed RTP to a chosen precision (``slotlab rtp superstars --precision H``).

The figure is :mod:`.exact`'s composition, RTP = lines (exact) + sum over trigger classes of
P(class) (exact) x E[min(bonus, cap) | class] (estimated), with the Bonus Game part made cheaper
to pin down in three ways, each of which leaves the estimate unbiased:

* **Control variates with exact means.** Every Bonus Game leaves tallies of its draws
  (:data:`.bonus.TALLY`); from them come quantities whose expectation is exactly 0 by the
  model's tables (Wald's identity: a sum of ``draw - its mean given the state before it`` over
  draws made until a stopping time), :func:`cv_names` in order:

  - ``final``: the Final Game's total minus ``E[Final Game | its dice]``, the exact sub-chain
    (:func:`final_game_means`, the absorbing chain of :func:`.bonus.final_game_mean`, in
    fractions). It removes the 1000x square's luck;
  - the triggering and the spun prizes minus their count x the prize table's mean; prizes and
    Dice landed minus the cell draws x P(prize) / P(Dice); the die rolls minus 3.5 each;
  - per kind of board square, the rolls landing there minus their chances from the squares
    the rolls were made from (:func:`landing_sixths`); wheel segments and Random characters
    minus their weights' shares; Gonzo's multipliers and Starburst's values against their
    means (weighted by what they multiply), Miss Banks' counts and values, Space Wars'
    landings and values;
  - Bonus-spin prizes landed minus their chance, grouped by the state the spin was made in
    (empty positions x spins left, the last spin split by a heart to spare): a prize near the
    end decides whether the Final Game comes, so each group gets its own coefficient. These
    remove most of what the others leave (1.7x less variance per Bonus Game without them,
    about 9x with them).

  The estimate per class is ``mean(Y) - beta . mean(C)``; ``beta`` (least squares) comes from a
  separate pilot run and is then fixed, so it is not fitted on the data it corrects.
* **Neyman allocation.** Bonus Games go to the classes in proportion to P(class) x sigma(class)
  (sigma of the corrected value, from the pilot), which minimises the variance for a budget.
* **Two processes.** Chunks of one class run on ``workers`` forked processes; the plan (chunk
  sizes, stream indices ``chunk_stream(seed, i)``) does not depend on the worker count, so a
  seed gives the same figure on 1 or 2 workers.

The run stops when the 99 % half-width is at most the target (a new, larger plan from the
running sigmas otherwise). Every figure it prints is **estimated** but the line RTP and the class
probabilities, which are exact.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import resource
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import njit

from slotlab.mechanics.accumulators import Z99
from slotlab.mechanics.unmanaged import unmanaged
from slotlab.rng import chunk_stream, cumulative_weights

from . import bonus as _bonus
from .bonus_spec import CHARACTERS, SQUARES, WHEEL_SEGMENTS, BonusSpec
from .exact import (
    class_probabilities,
    fraction_text,
    line_report,
    place_triggers,
    trigger_classes,
)
from .model import N_CELLS

if TYPE_CHECKING:
    from .game import Superstars

BASE_CVS = ("final", "trigger", "spin_value", "spin_prize", "spin_dice", "roll")
LAND_CODES = tuple(c for c in range(len(SQUARES)) if SQUARES[c] != "START")  # START's is
# the others' complement (the landings of a roll sum to 1), so it would add nothing
FEATURE_CVS = ("gonzo_multiplier", "starburst_value", "missbanks_count", "missbanks_value",
               "spacewars_land", "spacewars_value")
N_WHEEL, N_RANDOM = len(WHEEL_SEGMENTS), len(CHARACTERS)
# one segment's and one character's count are the others' complement too
# Bonus spins grouped by the state they were made in (empty positions, spins left): a prize
# landing near the end (few positions empty, the last spin) is worth far more than one early,
# so each group has a coefficient of its own.
FREE_GROUPS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 7), (8, 10), (11, 15), (16, 25))
SPIN_GROUPS = (0, 1, 2, 3)  # spins left before the spin: 0 the last with a heart to spare,
# 1 the last, 2, 3 (or 4)
N_SPIN_CVS = len(FREE_GROUPS) * len(SPIN_GROUPS)
N_AT = 4 * (N_CELLS + 1)  # the bonus module's tally of spins by (empty positions, spins left)
N_CV = (len(BASE_CVS) + len(LAND_CODES) + (N_WHEEL - 1) + (N_RANDOM - 1) + len(FEATURE_CVS)
        + N_SPIN_CVS)  # the order of cv_names()
DIM = 2 + N_CV  # the moment vector (1, Y, C_1 .. C_N_CV)
FINAL_DICE_MAX = 160  # E[Final Game | d dice] tabulated for d <= this; beyond, its CV is 0
PILOT = 40_000  # Bonus Games per class in the pilot run
MIN_CLASS = 4_000  # at least this many per class in the main run (a sigma of its own)
CHUNK = 250_000  # Bonus Games per task at most


# -- exact means --------------------------------------------------------------------------------


def final_game_means(spec: BonusSpec, dmax: int) -> list[Fraction]:
    """``E[Final Game total | d initial dice]`` (x bet) for ``d = 0 .. dmax``, exactly.

    The recursion of :func:`.bonus.final_game_mean`, ``(I - A G) E_d = A (prize + (1 - G)
    E_{d-1})``, with the matrix inverted once: ``E_d = c + D E_{d-1}``.
    """
    board = spec.final_board
    m = len(board)
    prize = [Fraction(0 if v == "DICE" else v) for v in board]
    gain = [v == "DICE" for v in board]
    sixth = Fraction(1, 6)
    a = [[Fraction(0)] * m for _ in range(m)]  # A: the die's move
    for p in range(m):
        for r in range(1, 7):
            a[p][(p + r) % m] += sixth
    lhs = [[Fraction(int(i == j)) - (a[i][j] if gain[j] else 0) for j in range(m)]
           for i in range(m)]
    inv = _inverse(lhs)
    b = [[sum((inv[i][k] * a[k][j] for k in range(m)), Fraction(0)) for j in range(m)]
         for i in range(m)]  # (I - A G)^-1 A
    c = [sum((b[i][j] * prize[j] for j in range(m)), Fraction(0)) for i in range(m)]
    keep = [Fraction(0) if gain[j] else Fraction(1) for j in range(m)]
    e = [Fraction(0)] * m
    out = [Fraction(0)]
    for _ in range(dmax):
        e = [c[i] + sum((b[i][j] * keep[j] * e[j] for j in range(m) if keep[j]), Fraction(0))
             for i in range(m)]
        out.append(e[0])
    return out


def _inverse(a: list[list[Fraction]]) -> list[list[Fraction]]:
    """Gauss-Jordan in fractions (a small, well-conditioned matrix)."""
    n = len(a)
    w = [[*row, *(Fraction(int(i == j)) for j in range(n))] for i, row in enumerate(a)]
    for col in range(n):
        piv = next(r for r in range(col, n) if w[r][col] != 0)
        w[col], w[piv] = w[piv], w[col]
        d = w[col][col]
        w[col] = [x / d for x in w[col]]
        for r in range(n):
            if r != col and w[r][col] != 0:
                f = w[r][col]
                w[r] = [x - f * y for x, y in zip(w[r], w[col], strict=True)]
    return [row[n:] for row in w]


def cv_names(spec: BonusSpec) -> list[str]:
    """The control variates, in the kernel's order (``C_1 .. C_N_CV``)."""
    wheel = spec.wheel_table().values
    return [*BASE_CVS, *(f"land_{SQUARES[c].lower()}" for c in LAND_CODES),
            *(f"wheel_{s.lower()}" for s in wheel[:-1]),
            *(f"random_{c.lower()}" for c in spec.random_table().values[:-1]), *FEATURE_CVS,
            *(f"spin_prize_free_{lo}_{hi}_spins_{s}" for lo, hi in FREE_GROUPS
              for s in SPIN_GROUPS)]


def spin_groups() -> np.ndarray:
    """``group[4 x empty + spins left]``: the spin control variate a spin state counts in."""
    out = np.full(N_AT, -1, np.int64)
    for g, (lo, hi) in enumerate(FREE_GROUPS):
        for f in range(lo, hi + 1):
            for s in SPIN_GROUPS:
                out[4 * f + s] = g * len(SPIN_GROUPS) + s
    return out


def cv_means(spec: BonusSpec) -> dict[str, Fraction]:
    """The exact per-draw means the control variates subtract (from the model's tables)."""
    cell = spec.cell_table()
    probs = cell.probabilities()
    p_prize = sum((p for v, p in zip(cell.values, probs, strict=True) if v > 0), Fraction(0))
    p_dice = sum((p for v, p in zip(cell.values, probs, strict=True) if v < 0), Fraction(0))
    spin_value = sum((v * p for v, p in zip(cell.values, probs, strict=True) if v > 0),
                     Fraction(0)) / p_prize
    mb, sw = spec.missbanks, spec.spacewars
    out = {"trigger_prize": spec.prize_table().mean(), "spin_prize_value": spin_value,
           "p_prize": p_prize, "p_dice": p_dice, "roll": Fraction(1 + 6, 2),
           "gonzo_multiplier": spec.gonzo_table().mean(),
           "starburst_value": spec.starburst_table().mean(),
           "missbanks_count": Fraction(mb.count[0] + mb.count[1], 2),
           "missbanks_value": Fraction(mb.values_x_bet[0] + mb.values_x_bet[1], 2),
           "spacewars_land": Fraction(sw.land)}
    wheel, random = spec.wheel_table(), spec.random_table()
    out |= {f"wheel_{i}": p for i, p in enumerate(wheel.probabilities())}
    out |= {f"random_{i}": p for i, p in enumerate(random.probabilities())}
    return out


def landing_sixths(spec: BonusSpec) -> np.ndarray:
    """``[square index, square code]``: how many of the 6 squares a die reaches from that square
    hold that code (the chance of landing there, in sixths; exact)."""
    codes = spec.square_codes()
    m = len(codes)
    out = np.zeros((m, len(SQUARES)), np.int64)
    for p in range(m):
        for r in range(1, 7):
            out[p, codes[(p + r) % m]] += 1
    return out


MEAN_KEYS = ("trigger_prize", "spin_prize_value", "p_prize", "p_dice", "roll",
             "gonzo_multiplier", "starburst_value", "missbanks_count", "missbanks_value",
             "spacewars_land")
M_WHEEL = len(MEAN_KEYS)  # means[M_WHEEL + i]: the wheel's segment i
M_RANDOM = M_WHEEL + N_WHEEL  # means[M_RANDOM + j]: the Random table's character j


def _mean_array(spec: BonusSpec) -> np.ndarray:
    m = cv_means(spec)
    return np.array([float(m[k]) for k in MEAN_KEYS]
                    + [float(m[f"wheel_{i}"]) for i in range(N_WHEEL)]
                    + [float(m[f"random_{j}"]) for j in range(N_RANDOM)], np.float64)


# -- the kernel ---------------------------------------------------------------------------------


@njit(cache=True)
def _moments(bp: tuple[np.ndarray, ...], stream: np.ndarray, n: int, cum: np.ndarray,
             cfgs: np.ndarray, n_trigger: int, cap_x: float, gtab: np.ndarray,
             means: np.ndarray, sixths: np.ndarray, land_codes: np.ndarray,
             groups: np.ndarray, mom: np.ndarray) -> None:
    """Play ``n`` Bonus Games of one class (windows as :func:`.exact.simulate_class` draws
    them) and add ``v v^T`` to ``mom`` (DIM x DIM) for ``v = (1, min(win, cap), C_1 .. C_6)``."""
    cells_ = np.zeros(N_CELLS, np.int64)
    val_ = np.zeros(N_CELLS, np.int64)
    tmp_ = np.zeros(_bonus.WORK, np.int64)
    ev_ = np.zeros((1, _bonus.EV_WIDTH), np.int64)
    # Views without reference counts, as bonus.simulate_bonuses does (no atomic operations).
    cells, val, tmp, ev, s = unmanaged(cells_), unmanaged(val_), unmanaged(tmp_), \
        unmanaged(ev_), unmanaged(stream)
    u = (unmanaged(bp[0]), unmanaged(bp[1]), unmanaged(bp[2]), unmanaged(bp[3]),
         unmanaged(bp[4]), unmanaged(bp[5]), unmanaged(bp[6]), unmanaged(bp[7]),
         unmanaged(bp[8]), unmanaged(bp[9]), unmanaged(bp[10]), unmanaged(bp[11]),
         unmanaged(bp[12]), unmanaged(bp[13]), unmanaged(bp[14]), unmanaged(bp[15]),
         unmanaged(bp[16]))
    v = np.zeros(DIM, np.float64)
    idx = np.zeros(DIM, np.int64)
    t = _bonus.TALLY
    for _ in range(n):
        dice_cell = place_triggers(s, cum, cfgs, cells)
        reels, final, _n, _flags = _bonus.play_bonus_with_scratch(s, u, cells, dice_cell, False,
                                                                  ev, 0, val, tmp)
        for i in range(N_CELLS):
            cells[i] = 0
        win = float(reels + final)
        nd = tmp[t + _bonus.T_FINAL_DICE]
        draws = float(tmp[t + _bonus.T_CELL_DRAWS])
        prizes = float(tmp[t + _bonus.T_SPIN_PRIZES])
        v[0] = 1.0
        v[1] = min(win, cap_x)
        v[2] = final - gtab[nd] if nd < gtab.shape[0] else 0.0
        v[3] = tmp[t + _bonus.T_TRIGGER_PRIZE_SUM] - n_trigger * means[0]
        v[4] = tmp[t + _bonus.T_SPIN_PRIZE_SUM] - prizes * means[1]
        v[5] = prizes - draws * means[2]
        v[6] = tmp[t + _bonus.T_SPIN_DICE] - draws * means[3]
        v[7] = tmp[t + _bonus.T_ROLL_SUM] - tmp[t + _bonus.T_ROLLS] * means[4]
        i = 8
        for code in land_codes:  # landings on each kind of square minus their chances
            expect = 0
            for p in range(sixths.shape[0]):
                expect += tmp[t + _bonus.T_VISIT + p] * sixths[p, code]
            v[i] = tmp[t + _bonus.T_LAND + code] - expect / 6.0
            i += 1
        spins = 0
        for k in range(N_WHEEL):
            spins += tmp[t + _bonus.T_WHEEL + k]
        for k in range(N_WHEEL - 1):
            v[i] = tmp[t + _bonus.T_WHEEL + k] - spins * means[M_WHEEL + k]
            i += 1
        picks = 0
        for k in range(N_RANDOM):
            picks += tmp[t + _bonus.T_RANDOM + k]
        for k in range(N_RANDOM - 1):
            v[i] = tmp[t + _bonus.T_RANDOM + k] - picks * means[M_RANDOM + k]
            i += 1
        v[i] = tmp[t + _bonus.T_GONZO_OLD_M] - tmp[t + _bonus.T_GONZO_OLD] * means[5]
        v[i + 1] = tmp[t + _bonus.T_STAR_WV] - tmp[t + _bonus.T_STAR_W] * means[6]
        v[i + 2] = tmp[t + _bonus.T_MB_K] - tmp[t + _bonus.T_MB_RUNS] * means[7]
        v[i + 3] = tmp[t + _bonus.T_MB_V] - tmp[t + _bonus.T_MB_K] * means[8]
        v[i + 4] = tmp[t + _bonus.T_SW_LAND] - tmp[t + _bonus.T_SW_DRAWS] * means[9]
        v[i + 5] = tmp[t + _bonus.T_SW_VDEV]
        i += 6
        for k in range(N_SPIN_CVS):
            v[i + k] = 0.0
        for at in range(N_AT):  # prizes landed minus their chance x the positions spun
            spun = tmp[t + _bonus.T_SPINS_AT + at]
            if spun > 0:
                v[i + groups[at]] += (tmp[t + _bonus.T_PRIZES_AT + at]
                                      - spun * (at // 4) * means[2])
        # Only the non-zero entries: most groups and features stay 0 in a Bonus Game.
        nz = 0
        for i in range(DIM):
            if v[i] != 0.0:
                idx[nz] = i
                nz += 1
        for a in range(nz):
            i = idx[a]
            vi = v[i]
            for b in range(a + 1):
                j = idx[b]
                mom[i, j] += vi * v[j]


# -- tasks --------------------------------------------------------------------------------------


class Setup:
    """What a task needs, built once per process (forked workers inherit it)."""

    def __init__(self, game: Superstars) -> None:
        self.game = game
        spec = game.model.bonus_spec
        self.gtab = np.array([float(x) for x in final_game_means(spec, FINAL_DICE_MAX)])
        self.means = _mean_array(spec)
        self.sixths = landing_sixths(spec)
        self.land_codes = np.array(LAND_CODES, np.int64)
        self.groups = spin_groups()
        self.cv_names = cv_names(spec)
        self.classes = list(trigger_classes(game.model).items())
        self.cap_x = float(game.model.spec.max_win_x)
        self.tables: list[tuple[np.ndarray, np.ndarray]] = []
        for _cls, cfgs_p in self.classes:
            scale = math.lcm(*(p.denominator for _, p in cfgs_p))
            weights = [int(p * scale) for _, p in cfgs_p]
            g = math.gcd(*weights)
            self.tables.append((cumulative_weights([w // g for w in weights]),
                                np.array([c for c, _ in cfgs_p], np.int64)))

    def run(self, k: int, n: int, stream: np.ndarray) -> np.ndarray:
        """The moments of ``n`` Bonus Games of class ``k``."""
        mom = np.zeros((DIM, DIM), np.float64)
        cum, cfgs = self.tables[k]
        _moments(self.game._bp, stream, n, cum, cfgs, self.classes[k][0][0], self.cap_x,
                 self.gtab, self.means, self.sixths, self.land_codes,
                 self.groups, mom)
        return mom


_SETUP: Setup | None = None  # the forked workers' copy


def _task(seed: int, index: int, k: int, n: int) -> tuple[int, np.ndarray]:
    assert _SETUP is not None
    return index, _SETUP.run(k, n, chunk_stream(seed, index))


def _run_tasks(setup: Setup, seed: int, tasks: list[tuple[int, int, int]],
               pool: ProcessPoolExecutor | None) -> Iterator[tuple[int, np.ndarray]]:
    """``tasks``: (stream index, class, bonuses); yields (stream index, moments)."""
    if pool is None:
        for index, k, n in tasks:
            yield index, setup.run(k, n, chunk_stream(seed, index))
        return
    futures = [pool.submit(_task, seed, index, k, n) for index, k, n in tasks]
    for f in futures:
        yield f.result()


# -- statistics ---------------------------------------------------------------------------------


def _full(mom: np.ndarray) -> np.ndarray:
    """The symmetric moment matrix from its lower triangle."""
    full: np.ndarray = np.tril(mom) + np.tril(mom, -1).T
    return full


def _cov(mom: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of ``(Y, C)`` from the moments."""
    m = _full(mom)
    n = m[0, 0]
    mean = m[0, 1:] / n
    return mean, m[1:, 1:] / n - np.outer(mean, mean)


def fit_beta(mom: np.ndarray) -> np.ndarray:
    """Least-squares control-variate coefficients (regress Y on C) from pilot moments."""
    _mean, cov = _cov(mom)
    beta, *_ = np.linalg.lstsq(cov[1:, 1:], cov[1:, 0], rcond=None)
    return np.asarray(beta, np.float64)


def corrected(mom: np.ndarray, beta: np.ndarray) -> tuple[float, float, float]:
    """``(n, mean, sd)`` of ``Y - beta . C`` (the C's have exact mean 0)."""
    mean, cov = _cov(mom)
    w = np.concatenate(([1.0], -beta))
    return float(_full(mom)[0, 0]), float(w @ mean), math.sqrt(max(float(w @ cov @ w), 0.0))


def plain(mom: np.ndarray) -> tuple[float, float, float]:
    """``(n, mean, sd)`` of ``Y`` alone (no control variate)."""
    return corrected(mom, np.zeros(N_CV))


def neyman(probs: list[float], sds: list[float], half: float,
           minimum: int = MIN_CLASS) -> list[int]:
    """Bonus Games per class for a 99 % half-width ``half``: ``n_k`` proportional to
    ``p_k sigma_k``, so ``Var = (sum p_k sigma_k)^2 / N``."""
    s = sum(p * sd for p, sd in zip(probs, sds, strict=True))
    total = (Z99 * s / half) ** 2
    return [max(math.ceil(total * p * sd / s), minimum) for p, sd in zip(probs, sds,
                                                                          strict=True)]


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the pool's workers,
    once shut down): on a shared machine, the work done, apart from the waiting."""
    self, children = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return self.ru_utime + self.ru_stime + children.ru_utime + children.ru_stime


def _half(probs: list[float], stats: list[tuple[float, float, float]]) -> float:
    return Z99 * math.sqrt(sum((p * sd) ** 2 / n for p, (n, _m, sd) in zip(probs, stats,
                                                                            strict=True)))


# -- the estimate -------------------------------------------------------------------------------


def precise_rtp(game: Superstars, precision: float = 1e-4, seed: int = 0, workers: int = 2,
                max_bonuses: int = 2_000_000_000, control_variates: bool = True,
                on_progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """The composed RTP with a 99 % half-width of at most ``precision`` (in RTP: 1e-4 is
    0.01 pp), or the best reached within ``max_bonuses`` Bonus Games.

    ``control_variates=False`` gives the plain estimator with the same Neyman allocation (for
    comparison and tests).
    """
    global _SETUP
    started = time.perf_counter()
    cpu_started = _cpu_seconds()
    setup = Setup(game)
    lines = line_report(game.model)
    exact_probs = class_probabilities(game.model)
    probs = [float(exact_probs[c]) for c, _ in setup.classes]
    n_classes = len(probs)
    pool = None
    if workers > 1:
        _SETUP = setup
        from slotlab.simulate.runner import _pool_worker_init

        pool = ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("fork"),
                                   initializer=_pool_worker_init, initargs=(os.getpid(),))
    try:
        # Pilot: beta and sigma per class, on streams 0 .. n_classes - 1, then set aside.
        pilot = [np.zeros((DIM, DIM)) for _ in range(n_classes)]
        for index, mom in _run_tasks(setup, seed, [(k, k, PILOT) for k in range(n_classes)],
                                     pool):
            pilot[index] += mom
        betas = [fit_beta(m) if control_variates else np.zeros(N_CV) for m in pilot]
        sds = [corrected(m, b)[2] for m, b in zip(pilot, betas, strict=True)]
        main = [np.zeros((DIM, DIM)) for _ in range(n_classes)]
        done = [0] * n_classes
        next_index = n_classes
        rounds = 0
        while True:
            plan = neyman(probs, sds, precision)
            todo: list[tuple[int, int, int]] = []
            for k in range(n_classes):
                extra = min(plan[k] - done[k], max_bonuses - sum(done))
                while extra > 0:
                    n = min(extra, CHUNK)
                    todo.append((next_index, k, n))
                    next_index += 1
                    done[k] += n
                    extra -= n
            if not todo:
                break
            klass = {i: k for i, k, _ in todo}
            for index, mom in _run_tasks(setup, seed, todo, pool):
                main[klass[index]] += mom
            rounds += 1
            stats = [corrected(m, b) for m, b in zip(main, betas, strict=True)]
            half = _half(probs, stats)
            if on_progress is not None:
                on_progress({"bonuses": sum(done), "half_width": half,
                             "seconds": time.perf_counter() - started})
            if half <= precision or sum(done) >= max_bonuses:
                break
            # Not there yet (sigma was larger than the pilot's): plan again from the running
            # sigmas, 1 % over so that the top-up does not fall just short again.
            sds = [sd * 1.01 for _n, _m, sd in stats]
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        _SETUP = None
    stats = [corrected(m, b) for m, b in zip(main, betas, strict=True)]
    plain_stats = [plain(m) for m in main]
    half = _half(probs, stats)
    bonus = sum(p * mean for p, (_n, mean, _sd) in zip(probs, stats, strict=True))
    lines_rtp: Fraction = lines["rtp"]
    total = float(lines_rtp) + bonus
    plain_half = _half(probs, plain_stats)
    classes: dict[str, Any] = {}
    for k, (cls, _cfgs) in enumerate(setup.classes):
        count, mean, sd = stats[k]
        name = f"{cls[0]} symbols" + (" incl. the Dice" if cls[1] else ", no Dice")
        classes[name] = {
            "probability": fraction_text(exact_probs[cls]), "probability_exact": True,
            "bonuses": int(count), "mean_x_bet": mean, "sd_x_bet": sd,
            "plain_mean_x_bet": plain_stats[k][1], "plain_sd_x_bet": plain_stats[k][2],
            "variance_reduction": (plain_stats[k][2] / sd) ** 2 if sd > 0 else None,
            "beta": dict(zip(setup.cv_names, (float(x) for x in betas[k]), strict=True)),
            "estimated": True,
        }
    seconds = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu_started  # this process and its (finished) workers
    return {
        "game": game.id, "model_hash": game.model_hash,
        "rtp": total, "rtp_estimated": True, "ci99": [total - half, total + half],
        "ci99_half_width": half, "precision": precision, "precision_met": half <= precision,
        "base_rtp": float(lines_rtp), "base_rtp_fraction": fraction_text(lines_rtp),
        "base_rtp_exact": True,
        "bonus_rtp": bonus, "bonus_rtp_estimated": True,
        "plain_rtp": float(lines_rtp) + sum(p * mean for p, (_n, mean, _sd)
                                            in zip(probs, plain_stats, strict=True)),
        "plain_ci99_half_width": plain_half,
        "rtp_target": game.theoretical_rtp(),
        "target_inside_ci99": total - half <= game.theoretical_rtp() <= total + half,
        "control_variates": setup.cv_names if control_variates else [],
        "trigger_classes": classes, "bonuses_simulated": sum(done),
        "pilot_bonuses": PILOT * n_classes, "rounds": rounds, "workers": workers,
        "seed": seed, "seconds": seconds, "cpu_seconds": cpu,
        "notes": [
            "rtp, ci99 and bonus_rtp are estimated (the Bonus Game is simulated; the interval "
            "is 99 %); base_rtp and the class probabilities are exact",
            "control variates with exact means (Final Game given its dice, prize, landing and "
            "die-roll draws) and Neyman allocation over the trigger classes; pilot Bonus Games "
            "fix the coefficients and are not counted in the estimate",
            "cap: each Bonus Game counts min(bonus, cap), as `rtp superstars` subtracts what "
            "the cap removes",
        ],
    }
