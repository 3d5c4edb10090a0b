"""Line pays from the reel stops alone: per-stop line masks, made once per model.

A reel window is its stops: reel ``r`` at stop ``s`` shows ``strips[r, s:s + rows]`` (strips
padded with their first ``rows - 1`` symbols). So the masks that :mod:`.lines` builds for every
round, the lines crossing a cell that shows symbol ``t``, can be made once for every stop:
``table[r, s, t]`` is the OR of ``masks[r, row]`` over the rows where reel ``r`` at stop ``s``
shows ``t``. A round's line pays are then one load per reel and symbol instead of a scan of
the window's cells, all the rows of the first reel that show one symbol narrowed at once, and
the window is not written at all: only the lines :mod:`.lines` leaves to its reference walk
(those starting with a wild that can still pay, wild runs in "each" mode) need it, and it is
filled for those rounds alone. The narrowing is :func:`.lines.masked_line_units`' (see that
module's note) and pays the same to the unit (tests/mechanics/test_stop_masks.py); it is the
simulation loop's shortcut, live play keeps the window and its rows of paying lines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.mechanics.lines import MAX_MASKED_REELS, popcount, walked_units


def stop_masks(strips: np.ndarray, lengths: np.ndarray, masks: np.ndarray,
               n_symbols: int) -> np.ndarray:
    """``table[r, s, t]`` (int64): the lines crossing a cell of reel ``r`` that shows symbol
    ``t`` when the reel stops at ``s`` (``masks`` from :func:`.lines.line_masks`)."""
    reels, rows = masks.shape
    if reels > MAX_MASKED_REELS or strips.shape[0] != reels:
        raise ValueError(f"per-stop masks need {reels} strips of at most "
                         f"{MAX_MASKED_REELS} reels")
    table = np.zeros((reels, strips.shape[1], n_symbols), np.int64)
    for r in range(reels):
        for row in range(rows):
            shown = strips[r, row:row + int(lengths[r])]  # the symbol in ``row`` at every stop
            table[r, np.arange(len(shown)), shown] |= masks[r, row]
    return table


@njit(cache=True, inline="always")
def stop_line_units(table: np.ndarray, stops: np.ndarray, strips: np.ndarray,
                    window: np.ndarray, lines: np.ndarray, paytab: np.ndarray,
                    substitutes: np.ndarray, wild: int, wild_mult: int, wild_each: bool,
                    min_count: np.ndarray) -> int:
    """The line pays (units) of the window the reels show at ``stops``: the total of
    :func:`.lines.masked_line_units` for that window. ``window`` (``int64[reels, rows]``) is
    scratch, written only when a line needs the reference walk."""
    reels = table.shape[0]
    extra = wild_mult - 1 if wild_mult > 1 else 0
    each = -1 if wild_each else 0
    total = 0
    walk = 0  # lines left to the reference walk
    s0 = stops[0]
    for t in range(table.shape[2]):
        p = table[0, s0, t]  # lines whose first k cells are all t
        if p == 0 or t == wild or min_count[t] > reels:
            continue
        sub = -1 if wild >= 0 and substitutes[t] else 0
        c = p  # lines whose first k cells are t or a wild standing in for t
        for k in range(1, reels + 1):
            mk = 0
            c_next = 0
            if k < reels:
                mk = table[k, stops[k], t]
                wk = table[k, stops[k], wild] if wild >= 0 else 0
                c_next = c & (mk | (wk & sub))
            pay = paytab[t, k]
            if pay > 0:
                paying = c & ~c_next  # runs of exactly k cells
                to_walk = paying & ~p & each
                walk |= to_walk
                paying ^= to_walk
                total += pay * (popcount(paying) + extra * popcount(paying & ~p))
            if c_next == 0:
                break
            p &= mk
            c = c_next
    if wild >= 0 and table[0, s0, wild] != 0:
        # As in .lines: lines starting with a wild whose cells can still form a paying run
        # (of wilds, or of a symbol the wild stands in for) go to the reference walk.
        starts_wild = table[0, s0, wild]
        for t in range(paytab.shape[0]):
            need = min_count[t]
            if need > reels or not (t == wild or substitutes[t]):
                continue
            c = starts_wild
            for k in range(1, need):
                c &= table[k, stops[k], t] | table[k, stops[k], wild]
            walk |= c
    if walk != 0:
        for r in range(reels):
            for row in range(window.shape[1]):
                window[r, row] = strips[r, stops[r] + row]
        total += walked_units(window, lines, paytab, substitutes, wild, wild_mult, wild_each,
                              walk)
    return total
