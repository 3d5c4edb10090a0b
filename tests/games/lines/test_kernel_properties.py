"""Property tests: the compiled line evaluation equals the obvious reference on any window."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from slotlab.games import find_game
from tests.games.lines import reference
from tests.games.lines.conftest import toy_game

GAMES = {
    "toy": toy_game(),
    "toy-each": toy_game(wild={"symbol": "W", "substitutes": ["A", "B"], "multiplier": 3,
                               "multiplier_mode": "each"}),
    "fruit-5x3": find_game("fruit-5x3"),
    "classic-3x3": find_game("classic-3x3"),
}


@st.composite
def game_and_window(draw):
    name = draw(st.sampled_from(sorted(GAMES)))
    game = GAMES[name]
    spec = game.model.spec
    # bias towards wilds and one paying symbol so that long runs and mixes are common
    ids = [s.id for s in spec.symbols]
    heavy = [spec.wild.symbol] * 3 if spec.wild else []
    alphabet = st.sampled_from(ids + heavy + [ids[-2]] * 3)
    window = [[draw(alphabet) for _ in range(spec.rows)] for _ in range(spec.reels)]
    return game, window


@settings(max_examples=600, deadline=None)
@given(game_and_window())
def test_kernel_pays_every_window_like_the_reference(case):
    game, window = case
    spec = game.model.spec
    units, scatter, count, events = game.evaluate_window(window)
    expected = reference.spin_pays(spec, window)
    assert (units, scatter, count) == expected
    for event in events:
        line = spec.lines[event["line"] - 1]
        pay, symbol, run, mult = reference.line_pay(spec, window, line)
        assert (event["win"], event["symbol"], event["count"], event["multiplier"]) == (
            pay, symbol, run, mult)


@settings(max_examples=300, deadline=None)
@given(game_and_window(), st.data())
def test_symbols_after_a_run_never_change_its_pay(case, data):
    """Left-to-right adjacency: what lies beyond the end of a line's run is irrelevant."""
    game, window = case
    spec = game.model.spec
    ids = [s.id for s in spec.symbols]
    wild = spec.wild.symbol if spec.wild else None
    for line in spec.lines:
        pay = reference.line_pay(spec, window, line)[0]
        cells = [window[r][row] for r, row in enumerate(line)]
        heads = [s for s in cells if s != wild]
        # the leading cells any run could use: wilds and the first other symbol
        reach = next((i for i, s in enumerate(cells) if s != wild and s != heads[0]),
                     spec.reels) if heads else spec.reels
        if pay == 0 or reach >= spec.reels - 1:
            continue
        changed = [list(reel) for reel in window]
        reel = data.draw(st.integers(reach + 1, spec.reels - 1))
        changed[reel][line[reel]] = data.draw(st.sampled_from(ids))
        assert reference.line_pay(spec, changed, line)[0] == pay


@settings(max_examples=300, deadline=None)
@given(game_and_window())
def test_a_wild_never_counts_as_a_scatter(case):
    game, window = case
    spec = game.model.spec
    if spec.scatter is None or spec.wild is None:
        return
    _, _, count, _ = game.evaluate_window(window)
    assert count == sum(s == spec.scatter.symbol for reel in window for s in reel)
