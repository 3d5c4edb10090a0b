"""The shared line evaluator: every entry pays like the rule, and like the plain C evaluator.

* Property tests (hypothesis) draw whole models (reels, rows, lines, pays, wild substitution and
  multiplier modes, more lines than a mask holds) and windows biased towards wilds and long
  runs, and check that ``masked_line_pays``, ``line_pays``, ``masked_line_units`` and
  ``walk_lines`` all give what a plain Python reading of the rule gives, line by line (rows in
  line order); the shipped line models are drawn too.
* The plain C evaluator of ``benchmarks/c/`` (built with gcc, skipped without it) and slotlab's
  evaluator pay identical sums for the same stops, spin by spin, and for the same xoshiro256**
  stream.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from slotlab.games import find_game
from slotlab.mechanics.lines import (
    MAX_MASKED_LINES,
    line_masks,
    line_pays,
    masked_line_pays,
    masked_line_units,
    sort_wins,
    walk_lines,
)

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_line_evaluator.py"


def rule_line(window, line, paytab, substitutes, wild, wild_mult, wild_each):
    """One line by the rule, in plain Python: ``(units, symbol, count, multiplier)``."""
    reels = len(line)
    cells = [int(window[r][line[r]]) for r in range(reels)]
    w = 0
    while wild >= 0 and w < reels and cells[w] == wild:
        w += 1
    best = (int(paytab[wild][w]), wild, w, 1) if w > 0 else (0, -1, 0, 1)
    if w < reels:
        t = cells[w]
        if w == 0 or substitutes[t]:
            k, n_wild = w, w
            while k < reels and (cells[k] == t or (cells[k] == wild and substitutes[t])):
                n_wild += cells[k] == wild
                k += 1
            mult = 1
            if n_wild > 0 and wild_mult > 1:
                mult = wild_mult ** n_wild if wild_each else wild_mult
            pay = int(paytab[t][k]) * mult
            if pay > 0 and pay > best[0]:
                best = (pay, t, k, mult)
    return best


def rule_rows(window, lines, paytab, substitutes, wild, wild_mult, wild_each):
    """Total units and the rows ``[line, units, symbol, count, mult]`` of the paying lines."""
    rows = []
    for li, line in enumerate(lines):
        units, sym, count, mult = rule_line(window, line, paytab, substitutes, wild, wild_mult,
                                            wild_each)
        if units > 0:
            rows.append([li, units, sym, count, mult])
    return sum(r[1] for r in rows), rows


class Model:
    """Arrays of a line model, as the line kernel packs them."""

    def __init__(self, lines, paytab, substitutes, wild, wild_mult, wild_each, rows):
        self.lines = np.asarray(lines, dtype=np.int64)
        self.paytab = np.asarray(paytab, dtype=np.int64)
        self.substitutes = np.asarray(substitutes, dtype=np.int64)
        self.wild, self.wild_mult, self.wild_each, self.rows = wild, wild_mult, wild_each, rows
        reels = self.lines.shape[1]
        self.min_count = np.full(self.paytab.shape[0], reels + 1, dtype=np.int64)
        for s in range(self.paytab.shape[0]):
            paying = np.nonzero(self.paytab[s])[0]
            if paying.size:
                self.min_count[s] = paying[0]
        self.masks = line_masks(self.lines, rows)

    def check(self, window) -> None:
        window = np.asarray(window, dtype=np.int64)
        args = (self.paytab, self.substitutes, self.wild, self.wild_mult, self.wild_each)
        total, rows = rule_rows(window.tolist(), self.lines.tolist(), *args)
        n_lines = self.lines.shape[0]
        wins = [np.full((n_lines, 5), -7, dtype=np.int64) for _ in range(3)]
        if self.masks.shape[0] == 0:  # more lines than a mask holds: line_pays walks them all
            u, n = line_pays(window, self.lines, *args, self.masks, self.min_count, wins[1])
            assert (u, wins[1][:n].tolist()) == (total, rows)
            return
        u1, n1 = masked_line_pays(window, self.lines, *args, self.masks, self.min_count, wins[0])
        u2, n2 = line_pays(window, self.lines, *args, self.masks, self.min_count, wins[1])
        u3 = masked_line_units(window, self.lines, *args, self.masks, self.min_count)
        u4, n4 = walk_lines(window, self.lines, -1, *args, wins[2], 0)
        assert u1 == u2 == u3 == u4 == total
        # line_pays and walk_lines: rows in line order; masked_line_pays: the same rows.
        assert wins[1][:n2].tolist() == rows
        assert wins[2][:n4].tolist() == rows
        assert sorted(wins[0][:n1].tolist()) == rows
        sort_wins(wins[0], n1)
        assert wins[0][:n1].tolist() == rows
        # walk_lines on any subset of lines pays exactly those lines.
        if n_lines <= MAX_MASKED_LINES:
            sel = sum(1 << li for li in range(0, n_lines, 2))
            u, n = walk_lines(window, self.lines, sel, *args, wins[2], 0)
            part = [r for r in rows if r[0] % 2 == 0]
            assert (u, wins[2][:n].tolist()) == (sum(r[1] for r in part), part)


@st.composite
def models(draw) -> Model:
    reels = draw(st.integers(1, 6))
    rows = draw(st.integers(1, 4))
    n_sym = draw(st.integers(2, 7))
    many = draw(st.integers(0, 9)) == 0  # sometimes more lines than a mask holds
    n_lines = draw(st.integers(MAX_MASKED_LINES + 1, 70) if many else st.integers(1, 40))
    lines = [[draw(st.integers(0, rows - 1)) for _ in range(reels)] for _ in range(n_lines)]
    pay = st.one_of(st.just(0), st.just(0), st.integers(1, 60))
    paytab = [[0] + [draw(pay) for _ in range(reels)] for _ in range(n_sym)]
    wild = draw(st.sampled_from([-1, 0, 0, 0, n_sym - 1]))
    substitutes = [int(draw(st.booleans()) and s != wild and wild >= 0) for s in range(n_sym)]
    wild_mult = draw(st.integers(1, 3))
    wild_each = draw(st.booleans())
    return Model(lines, paytab, substitutes, wild, wild_mult, wild_each, rows)


@st.composite
def model_and_windows(draw):
    m = draw(models())
    n_sym, reels = m.paytab.shape[0], m.lines.shape[1]
    favourite = draw(st.integers(0, n_sym - 1))
    heavy = ([m.wild] * 3 if m.wild >= 0 else []) + [favourite] * 3
    alphabet = st.sampled_from(list(range(n_sym)) + heavy)
    windows = [[[draw(alphabet) for _ in range(m.rows)] for _ in range(reels)]
               for _ in range(draw(st.integers(1, 8)))]
    return m, windows


@settings(max_examples=250, deadline=None)
@given(model_and_windows())
def test_every_entry_pays_random_models_like_the_rule(case):
    m, windows = case
    for window in windows:
        m.check(window)


def packed_model(gid: str) -> Model:
    p = find_game(gid)._packed
    sc = p[9]
    return Model(p[0], p[5], p[6], int(sc[2]), int(sc[3]), bool(sc[4]), int(sc[1]))


SHIPPED = {gid: packed_model(gid) for gid in ("fruit-5x3", "classic-3x3")}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SHIPPED)), st.data())
def test_every_entry_pays_shipped_models_like_the_rule(gid, data):
    m = SHIPPED[gid]
    n_sym, reels = m.paytab.shape[0], m.lines.shape[1]
    alphabet = st.sampled_from(list(range(n_sym)) + [m.wild] * 4 + [n_sym - 1] * 4)
    window = [[data.draw(alphabet) for _ in range(m.rows)] for _ in range(reels)]
    m.check(window)


def test_a_full_window_of_wilds_and_a_wild_run_beaten_by_a_substituted_run():
    m = packed_model("fruit-5x3")
    wild, seven, cherry = 0, 2, 8
    m.check([[wild] * 3] * 5)  # every line: five wilds, paytab[wild, 5]
    m.check([[wild] * 3, [seven] * 3, [seven] * 3, [seven] * 3, [seven] * 3])
    m.check([[wild] * 3, [wild] * 3, [wild] * 3, [cherry] * 3, [cherry] * 3])


# --- the plain C evaluator of benchmarks/c/ against slotlab's --------------------------------

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is not installed")


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_line_evaluator", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # numba's cache finds the module by its name
    spec.loader.exec_module(module)
    return module


@needs_gcc
def test_c_and_slotlab_pay_identical_sums_for_the_same_stops(bench, tmp_path):
    t = bench.Tables()
    c = bench.CEvaluator(t, tmp_path, ["-O2"])
    rng = np.random.default_rng(20261201)
    stops = rng.integers(0, bench.STOPS, size=(200_000, bench.REELS))
    c_lines, c_scatter, c_per_spin = c.run_stops(stops)
    s_lines, s_scatter, s_per_spin = bench.run_slotlab_stops(t, stops)
    assert c_lines > 0 and c_scatter > 0  # the game pays lines and scatters
    assert np.array_equal(c_per_spin, s_per_spin)
    assert (c_lines, c_scatter) == (s_lines, s_scatter)


@needs_gcc
def test_c_and_slotlab_draw_the_same_stops_from_the_same_stream(bench, tmp_path):
    t = bench.Tables()
    c = bench.CEvaluator(t, tmp_path, ["-O2"])
    words = bench.seed_words(3)
    spins = 100_000
    c_sums = c.run_xoshiro(words, spins)
    assert c_sums[0] > 0
    assert bench.run_slotlab(t, words, spins) == c_sums
    assert bench.run_slotlab(t, words, spins, public=True) == c_sums
