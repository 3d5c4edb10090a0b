"""Line pays from per-stop masks (``mechanics/stop_masks.py``) pay what the rule pays.

* Property tests (hypothesis): random line models (the line evaluator's own strategy: wild
  substitution and multiplier modes, "each" mode's walked lines) on random strips, at random
  stops: the units equal a plain Python reading of the rule for the window those stops show.
* Superstars' shipped model, the simulation loop's user: 20,000 random stops pay what
  ``masked_line_units`` pays for their window, wild-led windows among them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from slotlab.games import find_game
from slotlab.mechanics.lines import masked_line_units
from slotlab.mechanics.stop_masks import stop_line_units, stop_masks

from .test_lines import models, rule_rows


def padded(strip: list[int], rows: int) -> list[int]:
    """A strip followed by its first ``rows - 1`` symbols, wrapping as often as needed."""
    return [strip[i % len(strip)] for i in range(len(strip) + rows - 1)]


@st.composite
def model_strips_and_stops(draw):
    m = draw(models())
    assume(m.masks.shape[0] > 0)  # more lines than a mask holds: no masks to table
    n_sym, reels = m.paytab.shape[0], m.lines.shape[1]
    heavy = [m.wild] * 3 if m.wild >= 0 else []
    alphabet = st.sampled_from(list(range(n_sym)) + heavy)
    strips = [draw(st.lists(alphabet, min_size=1, max_size=8)) for _ in range(reels)]
    lengths = np.array([len(s) for s in strips], np.int64)
    table = np.zeros((reels, int(lengths.max()) + m.rows - 1), np.int64)
    for r, s in enumerate(strips):
        table[r, : len(s) + m.rows - 1] = padded(s, m.rows)
    stops = [np.array([draw(st.integers(0, int(n) - 1)) for n in lengths], np.int64)
             for _ in range(draw(st.integers(1, 6)))]
    return m, table, lengths, stops


@settings(max_examples=250, deadline=None)
@given(model_strips_and_stops())
def test_stop_masks_pay_random_models_like_the_rule(case):
    m, strips, lengths, all_stops = case
    table = stop_masks(strips, lengths, m.masks, m.paytab.shape[0])
    reels = m.lines.shape[1]
    for stops in all_stops:
        window = np.array([[strips[r, stops[r] + row] for row in range(m.rows)]
                           for r in range(reels)], np.int64)
        total, _ = rule_rows(window.tolist(), m.lines.tolist(), m.paytab, m.substitutes,
                             m.wild, m.wild_mult, m.wild_each)
        scratch = np.full((reels, m.rows), -9, np.int64)
        assert stop_line_units(table, stops, strips, scratch, m.lines, m.paytab, m.substitutes,
                               m.wild, m.wild_mult, m.wild_each, m.min_count) == total


def test_superstars_stops_pay_what_their_windows_pay():
    model = find_game("superstars").model
    table = stop_masks(model.strips, model.lengths, model.masks, model.paytab.shape[0])
    rng = np.random.default_rng(11)
    scratch = np.zeros((5, 5), np.int64)
    wild_led = 0
    for _ in range(20_000):
        stops = (rng.random(5) * model.lengths).astype(np.int64)
        window = np.array([model.strips[r, stops[r]:stops[r] + 5] for r in range(5)])
        wild_led += bool((window[0] == model.wild).any())
        expected = masked_line_units(window, model.lines, model.paytab, model.substitutes,
                                     model.wild, 1, False, model.masks, model.min_count)
        assert stop_line_units(table, stops, model.strips, scratch, model.lines, model.paytab,
                               model.substitutes, model.wild, 1, False,
                               model.min_count) == expected
    assert wild_led > 1_000  # the walked lines were exercised


def test_a_strip_set_that_does_not_fit_the_masks_is_refused():
    model = find_game("superstars").model
    with pytest.raises(ValueError, match="strips"):
        stop_masks(model.strips[:4], model.lengths[:4], model.masks, model.paytab.shape[0])
