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

The narrowing (:func:`_masked_core`) writes nothing: it keeps which lines paid, their run
lengths (as bit planes) and which carry the wild multiplier in a few int64 masks. The rows are
then written once, in line order, from those masks (a paid line's symbol is that of its first
cell), so :func:`line_pays` needs no sort, and :func:`masked_line_units` (the total only, for
simulation loops) writes no row at all. Measured against a plain C evaluator of the same game in
``benchmarks/bench_line_evaluator.py``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slotlab.mechanics.jit import njit_no_nrt

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
def popcount(x: int) -> int:
    """Set bits of a non-negative int64 (LLVM turns this into one ``popcnt``)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True, inline="always")
def _walk_line(window: np.ndarray, lines: np.ndarray, li: int, paytab: np.ndarray,
               substitutes: np.ndarray, wild: int, wild_mult: int,
               wild_each: bool) -> tuple[int, int, int, int]:
    """The reference rule for line ``li``: ``(units, symbol, count, multiplier)``, units 0 when
    the line does not pay."""
    reels = window.shape[0]
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
    return best, best_sym, best_count, best_mult


@njit(cache=True, inline="always")
def _put_win(wins: np.ndarray, n: int, li: int, units: int, symbol: int, count: int,
             mult: int) -> None:
    wins[n, W_LINE] = li
    wins[n, W_UNITS] = units
    wins[n, W_SYMBOL] = symbol
    wins[n, W_COUNT] = count
    wins[n, W_MULT] = mult


# Functions called (not inlined) with arrays are compiled without reference counting
# (``_nrt=False``): they allocate nothing, and a caller's counts keep the arrays alive, while the
# atomic increments and decrements of every array argument cost more than paying a window.
@njit_no_nrt(cache=True)
def walk_lines(window: np.ndarray, lines: np.ndarray, sel: int, paytab: np.ndarray,
               substitutes: np.ndarray, wild: int, wild_mult: int, wild_each: bool,
               wins: np.ndarray, n: int) -> tuple[int, int]:
    """The reference rule, line by line: pay each line in bitmask ``sel`` (``-1``: every line),
    appending paying lines to ``wins`` from row ``n``. Returns ``(units, n)``.

    Runs start on the leftmost reel. A run of wilds pays as the wild's own symbol; a run of a
    symbol may include wilds that substitute for it, and then carries the wild multiplier (once
    per line, or once per wild). Each line pays only the better of the two runs.
    """
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
        best, best_sym, best_count, best_mult = _walk_line(window, lines, li, paytab,
                                                           substitutes, wild, wild_mult,
                                                           wild_each)
        if best > 0:
            total += best
            _put_win(wins, n, li, best, best_sym, best_count, best_mult)
            n += 1
    return total, n


@njit_no_nrt(cache=True)
def sort_wins(wins: np.ndarray, n: int) -> None:
    """Order the first ``n`` rows of ``wins`` by line (insertion sort: ``n`` is small)."""
    for i in range(1, n):
        j = i
        while j > 0 and wins[j - 1, W_LINE] > wins[j, W_LINE]:
            for col in range(5):
                x = wins[j - 1, col]
                wins[j - 1, col] = wins[j, col]
                wins[j, col] = x
            j -= 1


MAX_MASKED_REELS = 15  # run lengths kept in 4 bit planes


@njit(cache=True, inline="always")
def _masked_core(window: np.ndarray, paytab: np.ndarray, substitutes: np.ndarray, wild: int,
                 wild_mult: int, wild_each: bool, masks: np.ndarray,
                 min_count: np.ndarray) -> tuple[int, int, int, int, int, int, int, int]:
    """Pay the lines that masks settle (see the module note), writing nothing.

    Returns ``(units, paid, k0, k1, k2, k3, wm, walk)``: the units of the paid lines, their
    bitmask, their run lengths as four bit planes (bit ``li`` of ``kj`` is bit ``j`` of line
    ``li``'s count), those paid with the wild multiplier, and the lines left to the reference
    walk. A paid line's symbol is that of its first cell. Keeping the per-line results as masks
    (instead of writing a row per paying line as it is found) lets the caller write the rows in
    line order without sorting them, or not at all.
    """
    reels, rows = masks.shape
    # A substituted run is multiplied by wild_mult once per line; "each" mode needs the number
    # of wilds in the run, so those lines go to the reference walk.
    extra = wild_mult - 1 if wild_mult > 1 else 0
    each = -1 if wild_each else 0
    total = 0
    paid, k0, k1, k2, k3, wm = 0, 0, 0, 0, 0, 0
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
            pay = paytab[t, k]
            if pay > 0:
                paying = c & ~c_next  # runs of exactly k cells
                to_walk = paying & ~p & each
                walk |= to_walk
                paying ^= to_walk
                total += pay * (popcount(paying) + extra * popcount(paying & ~p))
                # Which lines paid, their count, their multiplier.
                paid |= paying
                k0 |= paying & -(k & 1)
                k1 |= paying & -((k >> 1) & 1)
                k2 |= paying & -((k >> 2) & 1)
                k3 |= paying & -((k >> 3) & 1)
                wm |= paying & ~p
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
    return total, paid, k0, k1, k2, k3, wm, walk


@njit(cache=True, inline="always")
def walked_units(window: np.ndarray, lines: np.ndarray, paytab: np.ndarray,
                  substitutes: np.ndarray, wild: int, wild_mult: int, wild_each: bool,
                  walk: int) -> int:
    """Units of the lines in bitmask ``walk`` by the reference rule, writing nothing."""
    total = 0
    while walk != 0:
        low = walk & -walk
        walk ^= low
        total += _walk_line(window, lines, popcount(low - 1), paytab, substitutes, wild,
                            wild_mult, wild_each)[0]
    return total


@njit(cache=True, inline="always")
def masked_line_pays(window: np.ndarray, lines: np.ndarray, paytab: np.ndarray,
                     substitutes: np.ndarray, wild: int, wild_mult: int, wild_each: bool,
                     masks: np.ndarray, min_count: np.ndarray, wins: np.ndarray) -> tuple[int, int]:
    """:func:`line_pays` with line bitmasks (see the module note), inlined into its caller.

    Paying lines are written to ``wins`` in line order (callers written when they came in no
    particular order call :func:`sort_wins`, which then only checks)."""
    reels = masks.shape[0]
    if reels > MAX_MASKED_REELS:
        return walk_lines(window, lines, -1, paytab, substitutes, wild, wild_mult, wild_each,
                          wins, 0)
    total, paid, k0, k1, k2, k3, wm, walk = _masked_core(window, paytab, substitutes, wild,
                                                         wild_mult, wild_each, masks, min_count)
    # One row per paying line, in line order (so sorting them later costs only a check): a
    # masked line's row comes from the masks (its symbol is that of its first cell), a walked
    # line's from the reference walk. Most windows walk no line: a loop without that branch.
    n = 0
    todo = paid | walk
    while todo != 0:
        low = todo & -todo
        todo ^= low
        li = popcount(low - 1)
        if walk & low:
            units, sym, count, mult = _walk_line(window, lines, li, paytab, substitutes, wild,
                                                 wild_mult, wild_each)
            if units == 0:
                continue
            total += units
        else:
            sym = window[0, lines[li, 0]]
            count = (((k0 >> li) & 1) | (((k1 >> li) & 1) << 1) | (((k2 >> li) & 1) << 2)
                     | (((k3 >> li) & 1) << 3))
            mult = wild_mult if (wm >> li) & 1 else 1
            units = paytab[sym, count] * mult
        _put_win(wins, n, li, units, sym, count, mult)
        n += 1
    return total, n


@njit(cache=True, inline="always")
def masked_line_units(window: np.ndarray, lines: np.ndarray, paytab: np.ndarray,
                      substitutes: np.ndarray, wild: int, wild_mult: int, wild_each: bool,
                      masks: np.ndarray, min_count: np.ndarray) -> int:
    """The total of :func:`masked_line_pays` (units), without writing the paying lines: for
    simulation loops that need only the sum."""
    reels = masks.shape[0]
    if reels > MAX_MASKED_REELS:
        every = (1 << lines.shape[0]) - 1  # masks exist only for up to 62 lines
        return walked_units(window, lines, paytab, substitutes, wild, wild_mult, wild_each,
                             every)
    total, _paid, _k0, _k1, _k2, _k3, _wm, walk = _masked_core(
        window, paytab, substitutes, wild, wild_mult, wild_each, masks, min_count)
    return total + walked_units(window, lines, paytab, substitutes, wild, wild_mult, wild_each,
                                 walk)


@njit_no_nrt(cache=True)
def line_pays(window: np.ndarray, lines: np.ndarray, paytab: np.ndarray, substitutes: np.ndarray,
              wild: int, wild_mult: int, wild_each: bool, masks: np.ndarray, min_count: np.ndarray,
              wins: np.ndarray) -> tuple[int, int]:
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
    # masked_line_pays writes the rows in line order already: no sort_wins needed.
    return masked_line_pays(window, lines, paytab, substitutes, wild, wild_mult, wild_each, masks,
                            min_count, wins)


@njit(cache=True)
def line_outcome_weights(counts: np.ndarray, paytab: np.ndarray, substitutes: np.ndarray,
                         wild: int, wild_mult: int, wild_each: bool, out: np.ndarray) -> None:
    """Weighted count of one line's outcomes, ``out[symbol, run, multiplier exponent]``, when
    reel ``r`` shows symbol ``s`` on the line with weight ``counts[r, s]`` (independently of the
    other reels): every symbol tuple is walked once. Exact calculators weigh lines with it."""
    reels, n_sym = counts.shape
    window = np.zeros((reels, 1), dtype=np.int64)
    line = np.zeros((1, reels), dtype=np.int64)
    wins = np.empty((1, 5), dtype=np.int64)
    no_masks = np.zeros((0, 1), dtype=np.int64)  # evaluate every line: no prefilter
    no_counts = np.zeros(0, dtype=np.int64)
    idx = np.zeros(reels, dtype=np.int64)
    while True:
        weight = 1
        for r in range(reels):
            weight *= counts[r, idx[r]]
        if weight > 0:
            for r in range(reels):
                window[r, 0] = idx[r]
            _total, paying = line_pays(window, line, paytab, substitutes, wild, wild_mult,
                                       wild_each, no_masks, no_counts, wins)
            if paying:
                sym, count, mult = wins[0, W_SYMBOL], wins[0, W_COUNT], wins[0, W_MULT]
                e = 0
                while mult > 1:
                    mult //= wild_mult
                    e += 1
                out[sym, count, e] += weight
        r = reels - 1
        while r >= 0:
            idx[r] += 1
            if idx[r] < n_sym:
                break
            idx[r] = 0
            r -= 1
        if r < 0:
            return


def line_weighted_units(counts: np.ndarray, paytab: np.ndarray, substitutes: np.ndarray,
                        wild: int, wild_mult: int, wild_each: bool) -> int:
    """The sum over one line's outcomes of weight times pay units (see
    :func:`line_outcome_weights`): divided by the product of the reels' total weights, the
    line's expected pay."""
    reels, n_sym = counts.shape
    out = np.zeros((n_sym, reels + 1, reels + 1), dtype=np.int64)
    line_outcome_weights(counts, paytab, substitutes, wild, wild_mult, wild_each, out)
    return sum(int(out[s, run, e]) * int(paytab[s, run]) * wild_mult ** int(e)
               for s, run, e in zip(*np.nonzero(out), strict=True))
