"""Hold and win: a grid of cells that lock what lands on them, under a respin counter.

Every respin, each cell not yet held spins on its own: it draws one outcome from a weighted
table whose outcome 0 is "nothing lands". When anything lands the counter goes back to its reset
value, otherwise it counts down; the feature ends when the counter reaches 0 or every cell is
held. A game decides what an outcome means (a value, a label, an extra die) and which outcomes
hold their cell.

:func:`land_on_free_cells` is the compiled respin (and :func:`land_on_free_list` the same over a
list of free cells, from draws made in one batch); :func:`final_held_distribution` is the exact
absorbing Markov chain over (cells held, counter) for the case where every landing holds and
each free cell lands with the same probability.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

import numpy as np
from numba import njit

from slotlab.rng import weighted_pick


@njit(cache=True, inline="always")
def land_on_free_cells(stream: np.ndarray, held: np.ndarray, cumulative: np.ndarray,
                       landed: np.ndarray) -> int:
    """Spin every cell with ``held[i] == 0``: ``landed[i]`` gets the outcome drawn (0: nothing),
    held cells get 0. Returns how many cells landed something. Cells are drawn in index order,
    one draw each, so a round replays from its stream."""
    n = 0
    for i in range(held.shape[0]):
        if held[i] != 0:
            landed[i] = 0
            continue
        o = weighted_pick(stream, cumulative)
        landed[i] = o
        if o != 0:
            n += 1
    return n


@njit(cache=True, inline="always")
def land_on_free_list(draws: np.ndarray, free: np.ndarray, n_free: int, cumulative: np.ndarray,
                      outcomes: np.ndarray, landed_cells: np.ndarray,
                      landed_outcomes: np.ndarray) -> tuple[int, int]:
    """One respin of the cells on a free list, from draws the caller made (in one batch).

    ``free[:n_free]`` are the cells not held, in cell order; ``draws[j]``, uniform below
    ``cumulative[-1]``, decides cell ``free[j]``: it lands ``outcomes[i]`` for the first ``i``
    with ``cumulative[i] > draws[j]``. An outcome > 0 holds its cell (a value); 0 is nothing;
    one < 0 lands something that leaves the cell free (an extra die, say). The free list is
    compacted in place, keeping cell order; each landing's cell and outcome go to
    ``landed_cells[k]``, ``landed_outcomes[k]`` in cell order. Returns ``(cells still free,
    landings)``. A game with few held cells keeps a free list rather than scanning the grid.
    """
    still = 0
    n = 0
    for j in range(n_free):
        c = free[j]
        r = draws[j]
        i = 0
        while cumulative[i] <= r:
            i += 1
        o = outcomes[i]
        if o != 0:
            landed_cells[n] = c
            landed_outcomes[n] = o
            n += 1
        if o <= 0:
            free[still] = c
            still += 1
    return still, n


@njit(cache=True, inline="always")
def next_counter(counter: int, landings: int, reset: int) -> int:
    """The respin counter after a respin: back to ``reset`` when anything landed, else one less."""
    return reset if landings > 0 else counter - 1


def final_held_distribution(cells: int, start: int, p: Fraction, respins: int,
                            reset: int | None = None) -> dict[int, Fraction]:
    """``P(the feature ends with k cells held)`` for k = start..cells, exactly.

    ``start`` cells are held when it begins with ``respins`` on the counter; each free cell
    lands (and holds) with probability ``p`` per respin, independently; any landing sets the
    counter to ``reset`` (default: ``respins``). A state is (held, counter); the chain moves
    from ``h`` held to ``h + j`` with the binomial probability of ``j`` landings among the
    ``cells - h`` free cells.
    """
    if not 0 <= start <= cells or respins < 1 or not 0 <= p <= 1:
        raise ValueError("need 0 <= start <= cells, respins >= 1 and 0 <= p <= 1")
    reset = respins if reset is None else reset
    q = 1 - p

    @cache
    def ends(held: int, counter: int) -> tuple[Fraction, ...]:
        out = [Fraction(0)] * (cells + 1)
        if held == cells or counter == 0:
            out[held] = Fraction(1)
            return tuple(out)
        free = cells - held
        for j in range(free + 1):
            pj = comb(free, j) * p**j * q ** (free - j)
            if pj == 0:
                continue
            nxt = ends(held + j, reset if j > 0 else counter - 1)
            for k, x in enumerate(nxt):
                if x:
                    out[k] += pj * x
        return tuple(out)

    dist = ends(start, respins)
    return {k: x for k, x in enumerate(dist) if k >= start and x}
