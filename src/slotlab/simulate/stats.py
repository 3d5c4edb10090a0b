"""The statistics of a finished simulation, derived from the kernels' running sums.

The sums themselves (layout, ``record``, ``merge``) live in :mod:`slotlab.mechanics.accumulators`,
below the games that fill them; they are re-exported here for the simulator's callers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from slotlab.mechanics.accumulators import (
    ACC_BANDS,
    ACC_COMPONENTS,
    ACC_FEATURES,
    ACC_HITS,
    ACC_MAX,
    ACC_MAX_COUNT,
    ACC_SIZE,
    ACC_SPINS,
    ACC_TOP,
    ACC_WIN,
    BAND_EDGES,
    N_BANDS,
    N_COMPONENTS,
    N_TOP,
    Z90,
    Z99,
    band_labels,
    band_of,
    merge,
    new_accumulators,
    record,
)

__all__ = [
    "ACC_BANDS", "ACC_COMPONENTS", "ACC_FEATURES", "ACC_HITS", "ACC_MAX", "ACC_MAX_COUNT",
    "ACC_SIZE", "ACC_SPINS", "ACC_TOP", "ACC_WIN", "BAND_EDGES", "N_BANDS", "N_COMPONENTS",
    "N_TOP", "Z90", "Z99", "SimulationResult", "TailLevel", "band_labels", "band_of", "merge",
    "new_accumulators", "record", "tail_level",
]


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p): the very figure of ``scipy.stats.binom.cdf``, without
    importing ``scipy.stats`` (0.45 s of CPU in every ``slotlab simulate``): the same special
    function it calls, from ``scipy.special`` (0.2 s)."""
    if k >= n:  # binom.cdf's answer above the support, before it calls the function
        return 1.0
    try:
        from scipy.special._ufuncs import _binom_cdf  # type: ignore[import-untyped]
    except ImportError:  # a scipy that moved it: the public, slower way
        from scipy.stats import binom  # type: ignore[import-untyped]

        return float(binom.cdf(k, n, p))
    return float(_binom_cdf(k, n, p))


@dataclass(frozen=True)
class TailLevel:
    """A lower confidence bound on the win level one round in ``one_in`` exceeds: the ``order``-th
    largest win of the run, which is at or below that level with probability ``confidence``."""

    one_in: float
    order: int
    at_least: int
    confidence: float


def tail_level(top: list[int], spins: int, one_in: float,
               confidence: float = 0.99) -> TailLevel | None:
    """The bound from the run's largest wins ``top`` (descending), by order statistics alone.

    With q the level a round exceeds with probability p = 1 / one_in, the count of the run's
    rounds above q is Binomial(spins, p), and the k-th largest win is above q only when that
    count is k or more: so q >= the k-th largest with probability P(count <= k - 1). The
    smallest k reaching ``confidence`` is taken (for a 1-in-spins level, k = 5: 99.6 %). The
    sample cannot bound q from above: with probability (1 - p)^spins (37 % at one_in = spins)
    no round exceeds it. None when the run kept fewer wins than k."""
    for k in range(1, len(top) + 1):
        reached = binomial_cdf(k - 1, spins, 1 / one_in)
        if reached >= confidence:
            return TailLevel(one_in, k, top[k - 1], reached) if top[k - 1] > 0 else None
    return None


@dataclass
class SimulationResult:
    """A finished simulation, in units of the total bet."""

    model_hash: str
    game: str
    bet: int
    seed: int
    spins: int
    seconds: float
    total_win: int
    sum_sq: float
    hits: int
    max_win: int
    max_win_count: int
    features: int
    components: dict[str, int] = field(default_factory=dict)
    bands: list[int] = field(default_factory=list)
    top_wins: list[int] = field(default_factory=list)  # the largest wins, largest first
    workers: int = 1
    # What anyone needs to rerun it and get the same numbers, and how this run went.
    code_version: str = ""
    simulation_code: str = ""  # digest of the code computing the figures (see runner)
    backend: str = "in-process"  # in-process, processes or ray
    chunk_spins: int = 0
    chunks: int = 0
    resumed_chunks: int = 0  # taken from a checkpoint, not run by this invocation
    resumed_spins: int = 0
    chunks_rerun: int = 0  # run again after their Ray node or worker was lost

    @property
    def rtp(self) -> float:
        return self.total_win / (self.spins * self.bet)

    @property
    def sd(self) -> float:
        """Standard deviation of one round's return per unit bet."""
        mean = self.rtp
        return math.sqrt(max(self.sum_sq / self.spins - mean * mean, 0.0))

    @property
    def ci99(self) -> tuple[float, float]:
        half = Z99 * self.sd / math.sqrt(self.spins)
        return self.rtp - half, self.rtp + half

    def _level(self) -> dict[str, Any] | None:
        """The 1-in-spins win level's lower bound (x bet), from the largest wins."""
        level = tail_level(self.top_wins, self.spins, self.spins)
        return None if level is None else {
            "one_in": level.one_in, "order": level.order, "at_least_x": level.at_least / self.bet,
            "confidence": level.confidence}

    def to_json(self) -> dict[str, Any]:
        spins = self.spins
        return {
            "model_hash": self.model_hash,
            "game": self.game,
            "bet": self.bet,
            "seed": self.seed,
            "spins": spins,
            "rtp": self.rtp,
            "ci99": list(self.ci99),
            "hit_rate": self.hits / spins,
            "sd": self.sd,
            "volatility_index_90": Z90 * self.sd,
            "max_win": self.max_win,
            "max_win_x": self.max_win / self.bet,
            "max_win_count": self.max_win_count,
            "feature_rate": self.features / spins,
            "feature_one_in": spins / self.features if self.features else None,
            "rtp_components": {k: v / (spins * self.bet) for k, v in self.components.items()},
            "win_bands": dict(zip(band_labels(), self.bands, strict=True)),
            "top_wins_x": [w / self.bet for w in self.top_wins],
            "one_in_spins_level": self._level(),
            "seconds": self.seconds,
            "spins_per_second": ((spins - self.resumed_spins) / self.seconds
                                 if self.seconds > 0 else None),
            "workers": self.workers,
            "code_version": self.code_version,
            "simulation_code": self.simulation_code,
            "backend": self.backend,
            "chunk_spins": self.chunk_spins,
            "chunks": self.chunks,
            "resumed_chunks": self.resumed_chunks,
            "chunks_rerun": self.chunks_rerun,
        }
