"""Running sums that simulation kernels fill, one flat array pair per chunk.

Kernels accumulate into two flat arrays so that chunks merge by addition, whatever the worker:

* ``acc`` (``int64[ACC_SIZE]``): spins, total win, hits, max win and how often it occurred,
  feature triggers, up to ``N_COMPONENTS`` named parts of the win (e.g. base / free spins), a
  histogram of win / bet in ``BANDS``, and the ``N_TOP`` largest wins, largest first (the tail's
  order statistics: a long run's 1-in-N win level is bounded by them);
* ``sq`` (``float64[1]``): the sum of (win / bet) squared, for the standard deviation.

Wins are in the game's *units*: integer credits, and ``bet`` is the total bet in the same units.
"""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

ACC_SPINS = 0
ACC_WIN = 1
ACC_HITS = 2
ACC_MAX = 3
ACC_MAX_COUNT = 4
ACC_FEATURES = 5
ACC_COMPONENTS = 6
N_COMPONENTS = 16  # named parts of the win a game may split its RTP into
ACC_BANDS = ACC_COMPONENTS + N_COMPONENTS
# Lower edges of the win bands in multiples of the bet; band 0 is "no win", band 1 "under 1x".
BAND_EDGES = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000)
N_BANDS = len(BAND_EDGES) + 2
ACC_TOP = ACC_BANDS + N_BANDS
N_TOP = 8
ACC_SIZE = ACC_TOP + N_TOP
_EDGES = np.array(BAND_EDGES, dtype=np.int64)

Z99 = 2.5758293035489004  # two-sided 99 % normal quantile
Z90 = 1.6448536269514722  # two-sided 90 %, the volatility-index convention


def new_accumulators() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(ACC_SIZE, dtype=np.int64), np.zeros(1, dtype=np.float64)


@njit(cache=True)
def band_of(win: int, bet: int) -> int:
    """Histogram band of a win: 0 no win, 1 under 1x bet, then one band per edge."""
    if win <= 0:
        return 0
    band = 1
    for edge in _EDGES:
        if win >= edge * bet:
            band += 1
    return band


@njit(cache=True)
def record(acc: np.ndarray, sq: np.ndarray, win: int, bet: int, feature: bool) -> None:
    """Add one round to the running sums (its components are added by the caller)."""
    acc[ACC_SPINS] += 1
    acc[ACC_WIN] += win
    if win > 0:
        acc[ACC_HITS] += 1
    if feature:
        acc[ACC_FEATURES] += 1
    if win > acc[ACC_MAX]:
        acc[ACC_MAX] = win
        acc[ACC_MAX_COUNT] = 1
    elif win == acc[ACC_MAX] and win > 0:
        acc[ACC_MAX_COUNT] += 1
    acc[ACC_BANDS + band_of(win, bet)] += 1
    if win > acc[ACC_SIZE - 1]:  # among the largest so far
        keep_top(acc, win)
    x = win / bet
    sq[0] += x * x


# ``record`` compiled into a simulation loop from its own source (the same sums): a call per
# round, its arrays passed field by field, cost about 5 % of the loop's time.
record_inline = njit(cache=True, inline="always")(record.py_func)


@njit(cache=True)
def keep_top(acc: np.ndarray, win: int) -> None:
    """Insert ``win`` into the largest wins (kept in descending order), dropping the smallest."""
    i = ACC_SIZE - 1
    while i > ACC_TOP and acc[i - 1] < win:
        acc[i] = acc[i - 1]
        i -= 1
    acc[i] = win


def merge(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> None:
    """Add chunk ``b`` into ``a`` in place."""
    acc, sq = a
    acc_b, sq_b = b
    old_max, old_count = acc[ACC_MAX], acc[ACC_MAX_COUNT]
    top = np.sort(np.concatenate((acc[ACC_TOP:], acc_b[ACC_TOP:])))[::-1][:N_TOP]
    acc += acc_b
    acc[ACC_TOP:] = top
    if acc_b[ACC_MAX] > old_max:
        acc[ACC_MAX], acc[ACC_MAX_COUNT] = acc_b[ACC_MAX], acc_b[ACC_MAX_COUNT]
    elif acc_b[ACC_MAX] < old_max:
        acc[ACC_MAX], acc[ACC_MAX_COUNT] = old_max, old_count
    else:
        acc[ACC_MAX] = old_max
    sq += sq_b


def band_labels() -> list[str]:
    labels = ["0", f"under {BAND_EDGES[0]}x"]
    labels += [f"{lo}-{hi}x" for lo, hi in itertools.pairwise(BAND_EDGES)]
    labels.append(f"{BAND_EDGES[-1]}x and over")
    return labels
