"""The 99 % intervals a PAR sheet puts beside each simulated figure.

* the RTP: normal interval from the per-round standard deviation (the runner's ``ci99``);
* a frequency (hits, feature triggers): the Wilson score interval of a binomial share;
* a part of the RTP: batch means over the run's chunks (a ratio estimator whose spread is taken
  between chunks, so no per-part second moment is needed), with Student's t on k - 1 degrees of
  freedom.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from slotlab.simulate.stats import Z99


def t99(df: int) -> float:
    """Two-sided 99 % quantile of Student's t with ``df`` degrees of freedom.

    Cornish-Fisher expansion around the normal quantile: within 0.2 % of the table value from
    5 degrees of freedom on, and exact in the limit (a PAR run has dozens of chunks at least).
    """
    if df < 1:
        raise ValueError("t needs at least one degree of freedom")
    z = Z99
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def wilson99(successes: int, trials: int) -> tuple[float, float]:
    """99 % Wilson score interval of a binomial share (sound at zero and at tiny shares)."""
    if trials <= 0:
        raise ValueError("no trials")
    z2 = Z99 * Z99
    p = successes / trials
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z99 * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def batch_means99(totals: Sequence[int], spins: Sequence[int], bet: int) -> tuple[float, float]:
    """99 % interval of ``sum(totals) / (bet * sum(spins))`` from its per-chunk values."""
    k = len(totals)
    n = sum(spins)
    mean = sum(totals) / (bet * n)
    if k < 2:
        return mean, mean
    resid = sum((w - mean * bet * s) ** 2 for w, s in zip(totals, spins, strict=True))
    se = math.sqrt(k / (k - 1) * resid) / (bet * n)
    half = t99(k - 1) * se
    return mean - half, mean + half
