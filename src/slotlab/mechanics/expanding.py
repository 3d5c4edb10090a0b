"""Expanding reels: a symbol that, in view, turns its whole reel into the wild, then respins with
the expanded reels held.

In a spin, every reel not held that shows the symbol anywhere becomes the wild in every row
before the window is counted or paid (what else that reel showed is gone). A spin that expands
a reel awards a number of respins: the expanded reels stay where they are, as wilds, and the
others spin again; a reel a respin expands is held for the respins left. A game decides what a
respin may start (here: nothing; it pays its lines and scatters).

:func:`show_and_expand` is the compiled step. :class:`ExpandingMath` is the exact calculator: the
reels stop independently, so a reel is in one of three states (held, expanding now, showing what
its strip shows at a stop without the symbol), and a line's or the scatters' expected pay given
those states is a product over reels, as for a plain line game. The respins are a chain over the
set of reels held, ``V(held, k) = sum over new reels N of E[pay, N | held] + P(N | held)
V(held + N, k - 1)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import prod

import numpy as np
from numba import njit

from slotlab.mechanics.lines import line_weighted_units
from slotlab.mechanics.scatter import convolve

Reels = frozenset[int]


@njit(cache=True, inline="always")
def show_and_expand(strips: np.ndarray, stops: np.ndarray, window: np.ndarray, symbol: int,
                    wild: int, held: np.ndarray, counts: np.ndarray) -> int:
    """Show each reel's window (``strips`` at ``stops``; a reel with ``held[r] != 0`` shows
    ``wild``), turn every reel not held that shows ``symbol`` into ``wild`` in every row and hold
    it (``held[r] = 1``), and count the cells showing each symbol once expanded (``counts[s]``),
    in one pass. Returns how many reels expanded."""
    counts[:] = 0
    rows = window.shape[1]
    n = 0
    for r in range(window.shape[0]):
        turn = held[r] != 0
        if not turn:
            for row in range(rows):
                s = strips[r, stops[r] + row]
                window[r, row] = s
                counts[s] += 1
                if s == symbol:
                    turn = True
            if turn:  # rare: take back what the reel showed
                for row in range(rows):
                    counts[window[r, row]] -= 1
                held[r] = 1
                n += 1
        if turn:
            for row in range(rows):
                window[r, row] = wild
            counts[wild] += rows
    return n


@dataclass(frozen=True)
class LinePays:
    """What the line evaluator needs to pay a line (see :mod:`slotlab.mechanics.lines`)."""

    lines: np.ndarray  # int64[n_lines, reels]: the row of each line on each reel
    paytab: np.ndarray
    substitutes: np.ndarray  # int64[n_symbols]
    wild: int
    wild_mult: int
    wild_each: bool


@dataclass(frozen=True)
class ReelStates:
    """One reel's stops by what they show: ``expanded`` show the symbol; the others by the symbol
    at each row (``rows[row, s]``) and, for each scatter ``i``, by how many of it they show
    (``scatters[i][k]`` stops show ``k``)."""

    length: int
    expanded: int
    rows: np.ndarray
    scatters: list[list[int]]


def reel_states(strip: np.ndarray, length: int, rows: int, symbol: int,
                scatters: Sequence[int], n_symbols: int) -> ReelStates:
    """Count one reel's stops (``strip`` wrapped, as the line kernels keep it); a scatter < 0
    counts nothing."""
    by_row = np.zeros((rows, n_symbols), dtype=np.int64)
    counts = [[0] * (rows + 1) for _ in scatters]
    expanded = 0
    for p in range(length):
        cells = strip[p : p + rows]
        if np.any(cells == symbol):
            expanded += 1
            continue
        for row in range(rows):
            by_row[row, int(cells[row])] += 1
        for i, scatter in enumerate(scatters):
            counts[i][int(np.count_nonzero(cells == scatter)) if scatter >= 0 else 0] += 1
    return ReelStates(length, expanded, by_row, counts)


class ExpandingMath:
    """Exact per-spin expectations (in pay units, multiplier 1) of a reel set whose ``symbol``
    expands and awards ``respins`` respins: a spin's line and scatter pays with its reels
    expanded, the value of the respins it awards, and the first scatter's count distribution.
    ``scatter_pays[i][k]`` is what ``k`` of scatter ``i`` (in :class:`ReelStates` order) pay."""

    def __init__(self, states: list[ReelStates], pays: LinePays,
                 scatter_pays: Sequence[np.ndarray], respins: int) -> None:
        self.states = states
        self.pays = pays
        self.scatter_pays = scatter_pays
        self.respins = respins
        self.expandable = frozenset(r for r, s in enumerate(states) if s.expanded)
        self.cycle = prod(s.length for s in states)
        # the reels' rows a line crosses only matter where a reel can expand
        patterns: dict[tuple[int, ...], int] = {}
        for line in pays.lines:
            key = tuple(int(line[r]) for r in sorted(self.expandable))
            patterns[key] = patterns.get(key, 0) + 1
        self._patterns = patterns
        empty: Reels = frozenset()
        self.lines = sum((self._lines(empty, n) for n in self._new(empty)), Fraction(0))
        # each scatter's expected pay in a spin (not its respins), and all of them
        self.scatter_each = [sum((self._scatter_of(i, empty, n) for n in self._new(empty)),
                                 Fraction(0)) for i in range(len(scatter_pays))]
        self.scatter = sum(self.scatter_each, Fraction(0))
        self.respin_value = sum((self._p(empty, n) * self._value(n, respins)
                                 for n in self._new(empty) if n), Fraction(0))
        self.p_expand = 1 - self._p(empty, empty)
        self.scatter_dist = convolve([[s.scatters[0][0] + s.expanded, *s.scatters[0][1:]]
                                      for s in states])

    def p_scatter(self, count: int) -> Fraction:
        """P(a spin, not a respin, shows ``count`` scatters once its reels expanded)."""
        n = self.scatter_dist[count] if count < len(self.scatter_dist) else 0
        return Fraction(n, self.cycle)

    def _new(self, held: Reels) -> list[Reels]:
        """Every set of reels a spin with ``held`` reels may expand."""
        free = sorted(self.expandable - held)
        return [frozenset(c) for k in range(len(free) + 1) for c in combinations(free, k)]

    def _p(self, held: Reels, new: Reels) -> Fraction:
        """P(a spin with ``held`` reels expands exactly ``new``)."""
        p = Fraction(1)
        for r in self.expandable - held:
            s = self.states[r]
            p *= Fraction(s.expanded if r in new else s.length - s.expanded, s.length)
        return p

    def _denominator(self, held: Reels) -> int:
        return prod(s.length for r, s in enumerate(self.states) if r not in held)

    @cache  # noqa: B019 - one calculator per reel set, kept as long as its report
    def _lines(self, held: Reels, new: Reels) -> Fraction:
        """E[line pays, and the spin expands exactly ``new`` | ``held``]."""
        p = self.pays
        total = 0
        for key, n_lines in self._patterns.items():
            row_of = dict(zip(sorted(self.expandable), key, strict=True))
            counts = np.zeros((len(self.states), p.paytab.shape[0]), dtype=np.int64)
            for r, s in enumerate(self.states):
                if r in held:
                    counts[r, p.wild] = 1
                elif r in new:
                    counts[r, p.wild] = s.expanded
                else:
                    counts[r] = s.rows[row_of.get(r, 0)]
            total += n_lines * line_weighted_units(counts, p.paytab, p.substitutes, p.wild,
                                                   p.wild_mult, p.wild_each)
        return Fraction(total, self._denominator(held))

    def _scatter(self, held: Reels, new: Reels) -> Fraction:
        """E[scatter pays, and the spin expands exactly ``new`` | ``held``]."""
        return sum((self._scatter_of(i, held, new) for i in range(len(self.scatter_pays))),
                   Fraction(0))

    @cache  # noqa: B019
    def _scatter_of(self, i: int, held: Reels, new: Reels) -> Fraction:
        """E[scatter ``i``'s pay, and the spin expands exactly ``new`` | ``held``]."""
        dist = convolve([[1] if r in held else [s.expanded] if r in new else s.scatters[i]
                         for r, s in enumerate(self.states)])
        total = sum(n * int(self.scatter_pays[i][c]) for c, n in enumerate(dist))
        return Fraction(total, self._denominator(held))

    @cache  # noqa: B019
    def _value(self, held: Reels, left: int) -> Fraction:
        """The value of ``left`` respins with ``held`` reels held."""
        if left == 0:
            return Fraction(0)
        return sum((self._lines(held, n) + self._scatter(held, n)
                    + self._p(held, n) * self._value(held | n, left - 1)
                    for n in self._new(held)), Fraction(0))
