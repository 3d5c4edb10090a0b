"""Line pays of a reel window: the evaluator every line game shares.

A line pays the longest run from the leftmost reel of one symbol, wilds standing in for the
symbols they substitute; a run of wilds pays as the wild's own symbol (``paytab[wild]``), and a
line pays only the better of the two runs. Amounts are in whatever unit ``paytab`` is in.

How lines are paid fast (:func:`masked_line_pays`): every line is one bit of an int64 (up to 62
lines), and ``masks[reel, row]`` holds the lines crossing a cell. Lines are grouped by the row
they start on, whose symbol ``t`` they share. Walking the reels left to right, two masks are
narrowed with AND: ``p``, the lines whose cells so far are all ``t``, and ``c``, those whose
cells are ``t`` or a wild standing in for it. The lines leaving ``c`` at reel ``k`` have a run
of exactly ``k``; they pay ``paytab[t, k]``, times the wild multiplier for those not in ``p``
(their run holds a wild). A popcount pays them all at once, no branch per line; a group stops as
soon as ``c`` is empty, usually after one or two reels. Only what masks cannot settle goes to the
reference walk :func:`walk_lines` (the rules line by line, also used by exact calculators and for
more than 62 lines): lines starting with a wild (a wild run competes with the substituted run)
whose cells can still reach a paying run, and wild runs in "each" multiplier mode.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Columns of the per-line results written by line_pays.
W_LINE, W_UNITS, W_SYMBOL, W_COUNT, W_MULT = 0, 1, 2, 3, 4

MAX_MASKED_LINES = 62  # lines that fit a positive int64 bitmask


def line_masks(lines: np.ndarray, rows: int) -> np.ndarray:
    """``masks[reel, row]``: bit ``li`` set when line ``li`` crosses that cell.

    An empty array when there are too many lines for a mask (then every line is walked).
    """
    if lines.shape[0] > MAX_MASKED_LINES:
        return np.zeros((0, rows), dtype=np.int64)
    masks = np.zeros((lines.shape[1], rows), dtype=np.int64)
    for li, line in enumerate(lines):
        for r, row in enumerate(line):
            masks[r, row] |= 1 << li
    return masks


@njit(cache=True)
def popcount(x):
    """Set bits of a non-negative int64 (LLVM turns this into one ``popcnt``)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True)
def walk_lines(window, lines, sel, paytab, substitutes, wild, wild_mult, wild_each, wins, n):
    """The reference rule, line by line: pay each line in bitmask ``sel`` (``-1``: every line),
    appending paying lines to ``wins`` from row ``n``. Returns ``(units, n)``.

    Runs start on the leftmost reel. A run of wilds pays as the wild's own symbol; a run of a
    symbol may include wilds that substitute for it, and then carries the wild multiplier (once
    per line, or once per wild). Each line pays only the better of the two runs.
    """
    reels = window.shape[0]
    n_lines = lines.shape[0]
    total = 0
    li = -1
    rest = sel
    while True:
        if sel == -1:
            li += 1
            if li >= n_lines:
                break
        else:
            if rest == 0:
                break
            low = rest & -rest
            rest ^= low
            li = popcount(low - 1)
        w = 0
        if wild >= 0:
            while w < reels and window[w, lines[li, w]] == wild:
                w += 1
        best, best_sym, best_count, best_mult = 0, -1, 0, 1
        if w > 0:
            best, best_sym, best_count = paytab[wild, w], wild, w
        if w < reels:
            t = window[w, lines[li, w]]
            if w == 0 or substitutes[t]:
                k = w + 1
                n_wild = w
                while k < reels:
                    s = window[k, lines[li, k]]
                    if s == t:
                        k += 1
                    elif s == wild and substitutes[t]:
                        k += 1
                        n_wild += 1
                    else:
                        break
                pay = paytab[t, k]
                if pay > 0:
                    mult = 1
                    if n_wild > 0 and wild_mult > 1:
                        mult = wild_mult
                        if wild_each:
                            for _ in range(n_wild - 1):
                                mult *= wild_mult
                    if pay * mult > best:
                        best, best_sym, best_count, best_mult = pay * mult, t, k, mult
        if best > 0:
            total += best
            wins[n, W_LINE] = li
            wins[n, W_UNITS] = best
            wins[n, W_SYMBOL] = best_sym
            wins[n, W_COUNT] = best_count
            wins[n, W_MULT] = best_mult
            n += 1
    return total, n


@njit(cache=True)
def sort_wins(wins, n):
    """Order the first ``n`` rows of ``wins`` by line (insertion sort: ``n`` is small)."""
    for i in range(1, n):
        j = i
        while j > 0 and wins[j - 1, W_LINE] > wins[j, W_LINE]:
            for col in range(5):
                x = wins[j - 1, col]
                wins[j - 1, col] = wins[j, col]
                wins[j, col] = x
            j -= 1


@njit(cache=True, inline="always")
def masked_line_pays(window, lines, paytab, substitutes, wild, wild_mult, wild_each, masks,
                 min_count, wins):
    """:func:`line_pays` with line bitmasks (see the module note); paying lines are written to
    ``wins`` in no particular order (:func:`sort_wins` puts them in line order)."""
    reels, rows = masks.shape
    # A substituted run is multiplied by wild_mult once per line; "each" mode needs the number
    # of wilds in the run, so those lines go to the reference walk.
    extra = wild_mult - 1 if wild_mult > 1 else 0
    each = -1 if wild_each else 0
    total = 0
    n = 0
    walk = 0  # lines left to the reference walk
    starts_wild = 0
    for row0 in range(rows):
        t = window[0, row0]
        if t == wild:
            starts_wild |= masks[0, row0]
            continue
        if min_count[t] > reels:  # no run of t pays (e.g. the scatter)
            continue
        sub = -1 if wild >= 0 and substitutes[t] else 0
        p = masks[0, row0]  # lines whose first k cells are all t
        c = p  # lines whose first k cells are t or a wild standing in for t
        for k in range(1, reels + 1):
            mk = 0
            c_next = 0
            if k < reels:
                wk = 0
                for row in range(rows):
                    x = window[k, row]
                    mr = masks[k, row]
                    mk |= mr if x == t else 0
                    wk |= mr if x == wild else 0
                c_next = c & (mk | (wk & sub))
            end = c & ~c_next  # runs of exactly k cells
            pay = paytab[t, k]
            paying = end if pay > 0 else 0
            to_walk = paying & ~p & each
            walk |= to_walk
            paying ^= to_walk
            total += pay * (popcount(paying) + extra * popcount(paying & ~p))
            while paying != 0:
                low = paying & -paying
                paying ^= low
                mult = 1 if (p & low) != 0 else wild_mult
                wins[n, W_LINE] = popcount(low - 1)
                wins[n, W_UNITS] = pay * mult
                wins[n, W_SYMBOL] = t
                wins[n, W_COUNT] = k
                wins[n, W_MULT] = mult
                n += 1
            if c_next == 0:
                break
            p &= mk
            c = c_next
    if starts_wild != 0:
        # Lines starting with a wild may pay as a run of wilds or as a run of any symbol the
        # wild stands in for: keep those whose cells can form such a run of a paying length.
        for t in range(paytab.shape[0]):
            need = min_count[t]
            if need > reels or not (t == wild or substitutes[t]):
                continue
            c = starts_wild
            for k in range(1, need):
                mk = 0
                for row in range(rows):
                    x = window[k, row]
                    mk |= masks[k, row] if (x == t) | (x == wild) else 0
                c &= mk
            walk |= c
    if walk != 0:
        units, n = walk_lines(window, lines, walk, paytab, substitutes, wild, wild_mult,
                               wild_each, wins, n)
        total += units
    return total, n


@njit(cache=True)
def line_pays(window, lines, paytab, substitutes, wild, wild_mult, wild_each, masks, min_count,
              wins):
    """Pay every line of ``window``; returns ``(total units, number of paying lines)``.

    ``window`` is ``int64[reels, rows]``, ``lines`` ``int64[n_lines, reels]`` (row per reel),
    ``paytab[symbol, run]`` the pay of a run, ``substitutes[symbol]`` 1 where the wild stands in,
    ``masks`` from :func:`line_masks` and ``min_count[symbol]`` the shortest paying run.
    Paying lines are written to ``wins`` (``int64[n_lines, 5]``, columns ``W_*``), in line order.
    With empty ``masks`` every line is walked by the reference rule (:func:`walk_lines`).
    """
    if masks.shape[0] == 0:
        return walk_lines(window, lines, -1, paytab, substitutes, wild, wild_mult, wild_each,
                           wins, 0)
    total, n = masked_line_pays(window, lines, paytab, substitutes, wild, wild_mult, wild_each,
                            masks, min_count, wins)
    sort_wins(wins, n)
    return total, n
