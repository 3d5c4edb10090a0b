"""A slow pure-Python brute force of Super 12 Stars' mathematics, written from the rule text.

It reads the model's JSON (symbol names, not the kernel's arrays), works in fractions of the
total bet, and shares no code with the kernel or ``exact.py``: where those use closed forms
(products of match probabilities, convolutions, a forward DP over awarded spins, a backward
Frenzy recursion, the mechanics' absorbing chain) it enumerates: every stop combination of a
small model, every symbol tuple of a payline, every retrigger sequence, every Frenzy sequence
below a limit, every landing pattern of a small hold-and-win grid.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from functools import cache
from math import comb, prod
from typing import Any

ROWS = 3
CENTRE = 2
PAYING = ("SE", "BA", "BE", "GR", "PL", "OR", "LE", "CH")
SPECIAL_IN_VIEW = ("GS", "SS", "BO", "WH")
BLANK = "-"
SETS = ("base", "free", "super10_free")


def q(x: Any) -> Fraction:
    """A JSON number (0.5, 2.5, 0.0585) as the exact fraction its decimal text says."""
    return Fraction(str(x))


def window_of(strip: list[str], stop: int) -> list[str]:
    return [strip[(stop + k) % len(strip)] for k in range(ROWS)]


def centre_reads(cells: list[str]) -> tuple[str, list[str], list[str]]:
    """``(kind, cells for the lines, cells counted as scatters)`` of a central-reel window.

    Super 7 in view: it expands, the reel is three wilds and covers what was under it. A
    whole Super 10 / Super 12 starts its feature; giant cells are blanks.
    """
    if "S7" in cells:
        return "S7", ["W"] * ROWS, []
    if cells == ["T10"] * ROWS:
        return "T10", [BLANK] * ROWS, []
    if cells == ["T12"] * ROWS:
        return "T12", [BLANK] * ROWS, []
    shown = [BLANK if c in ("T10", "T12") else c for c in cells]
    return "normal", shown, shown


# -- one payline ---------------------------------------------------------------------------------


def line_pay(raw: dict[str, Any], cells: list[str]) -> Fraction:
    """Pay of one payline (x total bet): the better of its wild run and its symbol run."""
    pays = raw["line_pays_x_line_bet"]
    per_line = Fraction(1, len(raw["lines"]))
    best = Fraction(0)
    w = 0
    while w < len(cells) and cells[w] == "W":
        w += 1
    if w >= 3:
        best = pays[raw["wild_only_line_pays_as"]][w - 3] * per_line
    if w < len(cells) and cells[w] in PAYING:
        t = cells[w]
        k = w
        while k < len(cells) and cells[k] in (t, "W"):
            k += 1
        if k >= 3:
            best = max(best, pays[t][k - 3] * per_line)
    return best


def lines_of_window(raw: dict[str, Any], cols: list[list[str]]) -> Fraction:
    return sum((line_pay(raw, [cols[r][row] for r, row in enumerate(line)])
                for line in raw["lines"]), Fraction(0))


def scatter_pay(raw: dict[str, Any], golden: int, silver: int) -> Fraction:
    g = raw["golden_scatter_pays_x_total_bet"]
    s = raw["silver_scatter_pays_x_total_bet"]
    return q(g.get(str(golden), 0)) + q(s.get(str(silver), 0))


# -- every stop combination of a (small) reel set ------------------------------------------------


def spin_of(raw: dict[str, Any], cols: list[list[str]]) -> dict[str, Any]:
    """One spin from its window ``cols[reel][row]``: kind, the base spin's own wins, triggers."""
    kind, centre_lines, centre_seen = centre_reads(cols[CENTRE])
    lines_cols = [*cols[:CENTRE], centre_lines, *cols[CENTRE + 1:]]
    seen = [c for r, col in enumerate(cols) if r != CENTRE for c in col] + centre_seen
    golden, silver = seen.count("GS"), seen.count("SS")
    return {
        "kind": kind,
        "lines": lines_of_window(raw, lines_cols),
        "golden": q(raw["golden_scatter_pays_x_total_bet"].get(str(golden), 0)),
        "silver": q(raw["silver_scatter_pays_x_total_bet"].get(str(silver), 0)),
        "bonus": seen.count("BO") >= 3,
        "wheel": seen.count("WH") >= 3,
    }


def full_cycle(raw: dict[str, Any], set_name: str) -> dict[str, Any]:
    """Every stop combination of reel set ``set_name``: expectations of one spin (x bet) and
    probabilities, all exact. Also the wild-reel spin (Super 7 initial spin and respin)."""
    strips = raw["reel_strips"][set_name]
    n = prod(len(s) for s in strips)
    tot: Counter[str] = Counter()
    sums = {"lines": Fraction(0), "golden": Fraction(0), "silver": Fraction(0)}
    silent_normal = 0
    silent_t10 = 0
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        cols = [window_of(strips[r], stops[r]) for r in range(5)]
        spin = spin_of(raw, cols)
        tot[spin["kind"]] += 1
        tot["bonus"] += spin["bonus"]
        tot["wheel"] += spin["wheel"]
        for key in sums:
            sums[key] += spin[key]
        quiet = not (spin["lines"] or spin["golden"] or spin["silver"] or spin["bonus"]
                     or spin["wheel"])
        if quiet and spin["kind"] == "normal":
            silent_normal += 1
        if quiet and spin["kind"] == "T10":
            silent_t10 += 1
    wild = wild_reel_cycle(raw, set_name)
    out: dict[str, Any] = {k: v / n for k, v in sums.items()}
    out.update({f"p_{k}": Fraction(v, n) for k, v in tot.items()})
    out["silent_normal"] = Fraction(silent_normal, n)
    out["silent_t10"] = Fraction(silent_t10, n)
    out["wild_spin"] = wild["value"]
    out["wild_silent"] = wild["silent"]
    return out


def wild_reel_cycle(raw: dict[str, Any], set_name: str) -> dict[str, Fraction]:
    """Every stop combination of the four other reels against a central reel of wilds."""
    strips = raw["reel_strips"][set_name]
    others = [r for r in range(5) if r != CENTRE]
    n = prod(len(strips[r]) for r in others)
    value = Fraction(0)
    silent = 0
    for stops in itertools.product(*(range(len(strips[r])) for r in others)):
        cols = [window_of(strips[r], s) for r, s in zip(others, stops, strict=True)]
        cols.insert(CENTRE, ["S7", "W", "W"])  # any window with a Super 7 reads as wilds
        spin = spin_of(raw, cols)
        assert not spin["bonus"] and not spin["wheel"]
        win = spin["lines"] + spin["golden"] + spin["silver"]
        value += win
        silent += win == 0
    return {"value": value / n, "silent": Fraction(silent, n)}


# -- the real model, by symbol tuples and count tables -------------------------------------------


def centre_cells_by_row(strip: list[str]) -> list[Counter[str]]:
    """For each row: how many central stops put each (line-reading) symbol there."""
    rows: list[Counter[str]] = [Counter() for _ in range(ROWS)]
    for stop in range(len(strip)):
        _, cells, _ = centre_reads(window_of(strip, stop))
        for row in range(ROWS):
            rows[row][cells[row]] += 1
    return rows


def expected_line(raw: dict[str, Any], reels: list[Counter[str]]) -> Fraction:
    """E[pay of one payline] (x bet) given each reel's distribution of the line's cell.

    Walks the symbol tuples reel by reel, and stops extending a tuple once no run can go on
    (the rest of the reels then only multiply by their stop counts).
    """
    totals = [sum(c.values()) for c in reels]

    def go(prefix: list[str], weight: int) -> Fraction:
        k = len(prefix)
        if k == len(reels) or (k > 0 and not _can_extend(prefix)):
            rest = prod(totals[k:])
            return weight * rest * line_pay(raw, prefix + [BLANK] * (len(reels) - k))
        return sum((go([*prefix, s], weight * n) for s, n in reels[k].items()), Fraction(0))

    return go([], 1) / prod(totals)


def _can_extend(prefix: list[str]) -> bool:
    """Could another cell still change this prefix's pay (a run is still open)?"""
    wild_run = all(c == "W" for c in prefix)
    firsts = [c for c in prefix if c != "W"]
    symbol_run = bool(firsts) and firsts[0] in PAYING and all(c in (firsts[0], "W")
                                                              for c in prefix)
    return wild_run or symbol_run


def count_tables(raw: dict[str, Any], set_name: str) -> list[Counter[tuple[str, ...]]]:
    """Per reel: stops by the scatter-type symbols they show (as a sorted tuple), and for the
    central reel also by its kind."""
    tables: list[Counter[tuple[str, ...]]] = []
    for r, strip in enumerate(raw["reel_strips"][set_name]):
        t: Counter[tuple[str, ...]] = Counter()
        for stop in range(len(strip)):
            cells = window_of(strip, stop)
            if r == CENTRE:
                kind, _, seen = centre_reads(cells)
                t[(kind, *sorted(c for c in seen if c in SPECIAL_IN_VIEW))] += 1
            else:
                t[tuple(sorted(c for c in cells if c in SPECIAL_IN_VIEW))] += 1
        tables.append(t)
    return tables


def spin_by_tables(raw: dict[str, Any], set_name: str) -> dict[str, Fraction]:
    """One spin of a full-size reel set: lines by symbol tuples, scatters by count tables."""
    strips = raw["reel_strips"][set_name]
    n = prod(len(s) for s in strips)
    out: dict[str, Fraction] = Counter()  # type: ignore[assignment]
    for combo in itertools.product(*(t.items() for t in count_tables(raw, set_name))):
        weight = prod(m for _, m in combo)
        kind = combo[CENTRE][0][0]
        seen = [s for r, (key, _) in enumerate(combo) for s in (key[1:] if r == CENTRE else key)]
        p = Fraction(weight, n)
        out[f"p_{kind}"] += p
        golden = q(raw["golden_scatter_pays_x_total_bet"].get(str(seen.count("GS")), 0))
        silver = q(raw["silver_scatter_pays_x_total_bet"].get(str(seen.count("SS")), 0))
        out["golden"] += p * golden
        out["silver"] += p * silver
        out["p_golden_pays"] += p * (golden > 0)
        out["p_silver_pays"] += p * (silver > 0)
        out["p_bonus_or_wheel"] += p * (seen.count("BO") >= 3 or seen.count("WH") >= 3)
        out["p_bonus"] += p * (seen.count("BO") >= 3)
        out["p_wheel"] += p * (seen.count("WH") >= 3)
    marg = [Counter(s) for s in strips]
    by_row = centre_cells_by_row(strips[CENTRE])
    lines = Fraction(0)
    for line in raw["lines"]:
        reels = [by_row[line[CENTRE]] if r == CENTRE else marg[r] for r in range(5)]
        lines += expected_line(raw, reels)
    out["lines"] = lines
    # The wild central reel: lines against W, scatters of the other reels only.
    wild_reels = [Counter({"W": 1}) if r == CENTRE else marg[r] for r in range(5)]
    wild_lines = expected_line(raw, wild_reels) * len(raw["lines"])
    others = [r for r in range(5) if r != CENTRE]
    tables = count_tables(raw, set_name)
    m = prod(len(strips[r]) for r in others)
    wild_scatter = Fraction(0)
    for combo in itertools.product(*(tables[r].items() for r in others)):
        seen = [s for key, _ in combo for s in key]
        wild_scatter += Fraction(prod(k for _, k in combo), m) * scatter_pay(
            raw, seen.count("GS"), seen.count("SS"))
    out["wild_spin"] = wild_lines + wild_scatter
    return dict(out)


# -- free spins: every retrigger sequence --------------------------------------------------------


def free_spins_by_paths(initial: int, cap: int, p: Fraction) -> Fraction:
    """E[spins played], walking every sequence of retrigger / no retrigger (2**spins paths)."""

    def walk(awarded: int, played: int, weight: Fraction) -> Fraction:
        if played == awarded:
            return weight * played
        return (walk(min(awarded + initial, cap), played + 1, weight * p)
                + walk(awarded, played + 1, weight * (1 - p)))

    return walk(min(initial, cap), 0, Fraction(1))


def free_spins_backward(initial: int, cap: int, p: Fraction) -> Fraction:
    """E[spins played] by a memoised backward recursion over (awarded, played)."""

    @cache
    def e(awarded: int, played: int) -> Fraction:
        if played == awarded:
            return Fraction(played)
        return p * e(min(awarded + initial, cap), played + 1) + (1 - p) * e(awarded, played + 1)

    return e(min(initial, cap), 0)


# -- Frenzy Wheel: every sequence ----------------------------------------------------------------


def frenzy_boxes(raw: dict[str, Any]) -> list[tuple[int, str, Fraction]]:
    fw = raw["frenzy_wheel"]
    weights = [q(w) for w in fw["weights"]]
    total = 2 * sum(weights)
    return [(v, c, w / total) for c in fw["colours"]
            for v, w in zip(fw["values_per_colour"], weights, strict=True)]


def frenzy_sequences(boxes: list[tuple[int, str, Fraction]], colour: str, limit: int
                     ) -> Iterator[tuple[list[int], Fraction]]:
    """Every finished Frenzy sequence (the values in order) and its probability."""

    def walk(seq: list[int], total: int, p: Fraction) -> Iterator[tuple[list[int], Fraction]]:
        for v, c, pb in boxes:
            t = total + v
            if t > limit or c != colour:
                yield [*seq, v], p * pb
            else:
                yield from walk([*seq, v], t, p * pb)

    yield from walk([], 0, Fraction(1))


def frenzy_by_sequences(boxes: list[tuple[int, str, Fraction]], colour: str, limit: int
                        ) -> Fraction:
    return sum((sum(seq) * p for seq, p in frenzy_sequences(boxes, colour, limit)), Fraction(0))


def frenzy_forward(boxes: list[tuple[int, str, Fraction]], colour: str, limit: int) -> Fraction:
    """E[final total] by pushing the running-total distribution forward (for limit 100)."""
    running = {0: Fraction(1)}
    expected = Fraction(0)
    while running:
        nxt: dict[int, Fraction] = {}
        for t, pt in running.items():
            for v, c, pb in boxes:
                u = t + v
                if u > limit or c != colour:
                    expected += pt * pb * u
                else:
                    nxt[u] = nxt.get(u, Fraction(0)) + pt * pb
        running = nxt
    return expected


# -- Lucky Stars ----------------------------------------------------------------------------------


def lucky_by_patterns(cells: int, start: int, p: Fraction, respins: int) -> dict[int, Fraction]:
    """Final stars, walking every landing pattern of every respin (each free cell lands or not)."""
    out: dict[int, Fraction] = {}

    def walk(held: int, counter: int, weight: Fraction) -> None:
        if held == cells or counter == 0:
            out[held] = out.get(held, Fraction(0)) + weight
            return
        free = cells - held
        for pattern in itertools.product((0, 1), repeat=free):
            j = sum(pattern)
            w = weight * p**j * (1 - p) ** (free - j)
            walk(held + j, respins if j else counter - 1, w)

    walk(start, respins, Fraction(1))
    return dict(sorted(out.items()))


def lucky_forward(cells: int, start: int, p: Fraction, respins: int) -> dict[int, Fraction]:
    """Final stars by pushing the (stars, counter) distribution forward respin by respin."""
    state = {(start, respins): Fraction(1)}
    out: dict[int, Fraction] = {}
    while state:
        nxt: dict[tuple[int, int], Fraction] = {}
        for (held, counter), w in state.items():
            if held == cells or counter == 0:
                out[held] = out.get(held, Fraction(0)) + w
                continue
            free = cells - held
            for j in range(free + 1):
                pj = comb(free, j) * p**j * (1 - p) ** (free - j)
                key = (held + j, respins if j else counter - 1)
                nxt[key] = nxt.get(key, Fraction(0)) + w * pj
        state = nxt
    return dict(sorted(out.items()))


def lucky_award(raw: dict[str, Any], final: dict[int, Fraction]) -> dict[str, Fraction]:
    """E[award] (x bet) split in cash stars, Minor, Major and Grand; every star has a value."""
    ls = raw["lucky_stars"]
    table = [(v, q(w)) for v, w in ls["star_values_x_total_bet_weight"]]
    total_w = sum(w for _, w in table)
    stars = sum((k * p for k, p in final.items()), Fraction(0))
    parts = {"cash": Fraction(0), "minor": Fraction(0), "major": Fraction(0)}
    for v, w in table:
        if v in ("MINOR", "MAJOR"):
            parts[v.lower()] += stars * w / total_w * q(ls[v])
        else:
            parts["cash"] += stars * w / total_w * q(v)
    parts["grand"] = final.get(ls["cells"], Fraction(0)) * q(ls["GRAND"])
    return parts


# -- the whole game --------------------------------------------------------------------------------


def weighted_mean(pairs: list[Any], value: Any = lambda v: v) -> Fraction:
    total = sum(q(w) for _, w in pairs)
    return sum((q(value(v)) * q(w) for v, w in pairs), Fraction(0)) / total


def free_spin_value(spin: dict[str, Fraction], bonus_pay: Fraction) -> Fraction:
    """One free spin (x bet, before a multiplier): its own wins (a Super 7's initial spin
    included), a 3-Bonus pay, and a Super 7's respin."""
    return (spin["lines"] + spin["golden"] + spin["silver"]
            + spin.get("p_bonus", 0) * bonus_pay + spin.get("p_S7", 0) * spin["wild_spin"])


def cycles(raw: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """:func:`full_cycle` of every reel set (small models only)."""
    return {s: full_cycle(raw, s) for s in SETS}


def rtp(raw: dict[str, Any], spins: dict[str, dict[str, Any]] | None = None
        ) -> dict[str, Fraction]:
    """The RTP split (x bet) of the whole game. ``spins``: the reel sets' one-spin figures,
    from :func:`cycles` for a small model; by default :func:`spin_by_tables`."""
    if spins is None:
        spins = {s: spin_by_tables(raw, s) for s in SETS}
    base, free, s10 = spins["base"], spins["free"], spins["super10_free"]
    bonus_pay = q(raw["bonus_trigger_pay_x_total_bet"])
    fs = raw["fs_minigame"]
    cap = fs["max_total_spins"]
    retrigger = free.get("p_bonus", Fraction(0))
    per_spin = free_spin_value(free, bonus_pay)
    mult = weighted_mean(fs["multiplier_weight"])
    spins_table = fs["spins_weight"]
    e_spins = weighted_mean(spins_table, lambda n: free_spins_backward(n, cap, retrigger))
    wheel = weighted_mean(raw["wheel_segments_x_line_bet_weight"]) / len(raw["lines"])
    boxes = frenzy_boxes(raw)
    colour = raw["frenzy_wheel"]["colours"][0]
    frenzy = frenzy_forward(boxes, colour, raw["frenzy_wheel"]["stop_when_total_gt"])
    s10_spin = free_spin_value(s10, bonus_pay)
    reel = raw["super10_reel"]
    total_w = sum(q(w) for _, _, w in reel)
    direct = sum((q(v) * q(w) for k, v, w in reel if k == "DIRECT"), Fraction(0)) / total_w
    p_frenzy = sum((q(w) for k, _, w in reel if k == "FRENZY"), Fraction(0)) / total_w
    s10_fs = sum((v * q(w) for k, v, w in reel if k == "FS"), Fraction(0)) / total_w * s10_spin
    ls = raw["lucky_stars"]
    final = lucky_forward(ls["cells"], ls["initial_stars"], q(ls["p_star_per_empty_cell"]),
                          ls["respins"])
    lucky = lucky_award(raw, final)
    p7, p10, p12 = (base.get(k, Fraction(0)) for k in ("p_S7", "p_T10", "p_T12"))
    return {
        "lines": base["lines"],
        "golden": base["golden"],
        "silver": base["silver"],
        "bonus_pay": base["p_bonus"] * bonus_pay,
        "super7_respins": p7 * base["wild_spin"],
        "wheel": base["p_wheel"] * wheel,
        "free_spins": base["p_bonus"] * e_spins * mult * per_spin,
        "super10_direct": p10 * direct,
        "frenzy": p10 * p_frenzy * frenzy,
        "super10_free_spins": p10 * s10_fs,
        "lucky_stars": p12 * sum(lucky.values(), Fraction(0)),
    }


def hit_rate_small(raw: dict[str, Any], spins: dict[str, dict[str, Any]]) -> Fraction:
    """P(round win > 0) of a small model, from the full cycles (:func:`cycles`)."""
    base, s10 = spins["base"], spins["super10_free"]
    z10 = s10["silent_normal"] + s10.get("p_S7", 0) * s10["wild_silent"] ** 2
    reel = raw["super10_reel"]
    total_w = sum(q(w) for _, _, w in reel)
    z_feature = sum((q(w) / total_w * z10**v for k, v, w in reel if k == "FS"), Fraction(0))
    zero = (base["silent_normal"] + base.get("p_S7", 0) * base["wild_silent"] ** 2
            + base["silent_t10"] * z_feature)
    return 1 - zero
