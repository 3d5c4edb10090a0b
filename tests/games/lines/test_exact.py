"""Exact figures against brute force (every stop combination) and against simulation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from functools import cache

import pytest

from slotlab.games import find_game
from slotlab.games.lines.exact import exact_report
from slotlab.simulate.runner import simulate
from slotlab.simulate.stats import Z99
from tests.games.lines import reference
from tests.games.lines.conftest import toy_game

# Small enough to enumerate every stop combination in pure Python (6*7*5*6*7 = 8,820).
SMALL_STRIPS = {
    "base": [["W", "A", "X", "B", "S", "C"], ["A", "X", "B", "S", "C", "X", "W"],
             ["A", "C", "S", "B", "X"], ["W", "A", "X", "B", "C", "A"],
             ["S", "A", "X", "B", "C", "W", "X"]],
    "free": [["W", "A", "S", "C", "X"], ["A", "S", "B", "X", "W"], ["W", "S", "C", "X"],
             ["A", "B", "X", "C"], ["A", "S", "X", "W", "B"]],
}


def _frac(text: str) -> Fraction:
    return Fraction(text)


def brute_force(spec, reel_set: str):
    """(E[line units over all lines], E[scatter units], P(scatter count = c),
    P(pays or triggers))."""
    strips = spec.strips[reel_set]
    cycle = math.prod(len(s) for s in strips)
    lines = scatter = hits = 0
    counts: dict[int, int] = {}
    awards = spec.free_spins.awards if spec.free_spins else {}
    for stops in itertools.product(*(range(len(s)) for s in strips)):
        window = reference.window_at(spec, reel_set, stops)
        lu, su, c = reference.spin_pays(spec, window)
        lines += lu
        scatter += su
        counts[c] = counts.get(c, 0) + 1
        hits += bool(lu or su or c in awards)
    return (Fraction(lines, cycle), Fraction(scatter, cycle),
            {c: Fraction(n, cycle) for c, n in counts.items()}, Fraction(hits, cycle))


def expected_spins_by_recursion(spec, p_free: dict[int, Fraction], initial: int) -> Fraction:
    """E[free spins played], by plain recursion over (played, awarded) with a cap."""
    fs = spec.free_spins
    cap = fs.max_spins

    @cache
    def value(played: int, total: int) -> Fraction:
        if played == total:
            return Fraction(total)
        out = Fraction(0)
        for c, p in p_free.items():
            more = fs.awards.get(c, 0) if fs.retrigger else 0
            out += p * value(played + 1, min(total + more, cap))
        return out

    return value(0, min(initial, cap))


@pytest.mark.parametrize("max_spins", [11, 7])
def test_exact_rtp_equals_brute_force_to_the_last_digit(max_spins):
    fs = {"awards": {"3": 5, "4": 8, "5": 10}, "multiplier": 3, "retrigger": True,
          "max_spins": max_spins, "strips": "free"}
    game = toy_game(strips=SMALL_STRIPS, free_spins=fs)
    spec = game.model.spec
    report = exact_report(game.model, 4)
    lines, scatter, p_base, hit = brute_force(spec, "base")
    f_lines, f_scatter, p_free, _ = brute_force(spec, "free")
    per_free_spin = 3 * (f_lines + f_scatter)
    free_spins = sum((p_base.get(c, 0) * expected_spins_by_recursion(spec, p_free, a)
                      for c, a in spec.free_spins.awards.items()), Fraction(0))
    divisor = spec.bet.divisor
    comps = report["components"]
    assert _frac(comps["base_lines"]["fraction"]) == lines / divisor
    assert _frac(comps["base_scatter"]["fraction"]) == scatter / divisor
    assert _frac(comps["free_spins"]["fraction"]) == free_spins * per_free_spin / divisor
    assert _frac(report["rtp_fraction"]) == (lines + scatter + free_spins * per_free_spin) / divisor
    assert _frac(report["hit_rate_fraction"]) == hit
    assert report["spins"] == math.prod(len(s) for s in SMALL_STRIPS["base"])


def test_exact_free_spins_without_retrigger_is_the_award():
    fs = {"awards": {"3": 5, "4": 8, "5": 10}, "multiplier": 2, "retrigger": False,
          "strips": "free"}
    game = toy_game(strips=SMALL_STRIPS, free_spins=fs)
    spec = game.model.spec
    _, _, p_base, _ = brute_force(spec, "base")
    f_lines, f_scatter, _, _ = brute_force(spec, "free")
    expected = sum((p_base.get(c, 0) * a for c, a in spec.free_spins.awards.items()),
                   Fraction(0)) * 2 * (f_lines + f_scatter) / 4
    assert _frac(exact_report(game.model, 4)["components"]["free_spins"]["fraction"]) == expected


def test_unending_free_spins_are_rejected():
    always = [["S", "X", "X"]] * 5
    fs = {"awards": {"5": 10}, "retrigger": True, "strips": "free"}
    game = toy_game(strips={"base": always, "free": always}, free_spins=fs)
    with pytest.raises(ValueError, match="never end"):
        exact_report(game.model, 4)


def _assert_inside_99(exact: float, simulated: float, sd: float, n: int) -> None:
    half = Z99 * sd / math.sqrt(n)
    assert simulated - half <= exact <= simulated + half, (exact, simulated, half)


@pytest.mark.parametrize(("ref", "spins"), [("fruit-5x3", 1_500_000), ("classic-3x3", 500_000)])
def test_simulation_agrees_with_exact_within_99_percent(ref, spins):
    """RTP, hit rate and free-spin frequency; seed fixed, 99 % two-sided intervals."""
    game = find_game(ref)
    bet = game.bets()[0]
    exact = game.exact(bet)
    result = simulate(game, ref, bet, spins, seed=20261130, chunk_spins=1 << 18)
    data = result.to_json()
    # the exact figure is of the uncapped game: add back what the cap removed
    uncapped = data["rtp"] - data["rtp_components"]["cap"]
    _assert_inside_99(exact["rtp"], uncapped, data["sd"], spins)
    p = exact["hit_rate"]
    _assert_inside_99(p, data["hit_rate"], math.sqrt(p * (1 - p)), spins)
    q = exact["free_spins_rate"]
    _assert_inside_99(q, data["feature_rate"], math.sqrt(q * (1 - q)), spins)


def test_simulation_with_unlimited_retriggers_agrees_with_the_closed_form():
    fs = {"awards": {"3": 5, "4": 8, "5": 10}, "multiplier": 3, "retrigger": True,
          "strips": "free"}
    # one scatter in the free reels' 3-row windows on two reels: retriggers stay rare
    strips = {"base": SMALL_STRIPS["base"],
              "free": [["S", "A", "X", "B"], ["A", "X", "C", "W", "B", "X"], ["A", "B", "C"],
                       ["W", "X", "C", "A"], ["S", "B", "X", "C", "X", "A"]]}
    game = toy_game(strips=strips, free_spins=fs, max_win_x=10**6)
    exact = exact_report(game.model, 4)
    spins = 400_000
    data = simulate(game, "unused", 4, spins, seed=7).to_json()
    _assert_inside_99(exact["rtp"], data["rtp"], data["sd"], spins)
