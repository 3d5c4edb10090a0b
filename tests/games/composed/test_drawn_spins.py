"""Free spins whose number a wheel segment gives (``spins``): a mini game that draws the number
of free spins and their multiplier, each retrigger awarding that number again. The rule on
rounds of a variant of Lucky Coin Link (seeds 0..2999), and the exact count of spins played
against a plain recursion and the compiled simulation."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from slotlab.games.lines.exact import ReelSetMath, expected_free_spins
from slotlab.rng import parse_seed
from slotlab.rounds import RoundResult
from tests.games.composed.conftest import BET, drawn_spins_game
from tests.games.composed.test_exact import _kernel_rtp_within
from tests.games.composed.test_kernel import _same_rounds


@cache
def _corpus() -> tuple[RoundResult, ...]:
    game = drawn_spins_game()
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(3000))


def test_the_segment_gives_the_number_of_spins_and_each_retrigger_gives_it_again() -> None:
    """The free spins start with the segment's spins at its multiplier, whatever the scatter
    count; every retrigger adds that number again, up to the cap of 50."""
    game = drawn_spins_game()
    segments = game.describe()["wheels"][0]["segments"]
    seen = retriggered = 0
    for r in _corpus():
        spun = next((e for e in r.events if e["type"] == "wheel_spun"), None)
        if spun is None or spun["feature"] != "free_spins":
            continue
        seg = segments[spun["segment"]]
        start = next(e for e in r.events if e["type"] == "free_spins_triggered")
        assert (start["awarded"], start["multiplier"]) == (seg["spins"], seg["multiplier"])
        seen += 1
        for e in r.events:
            if e["type"] == "free_spins_retriggered":
                retriggered += 1
                assert e["awarded"] == min(seg["spins"], 50 - (e["total_awarded"]
                                                               - e["awarded"]))
    assert seen > 50 and retriggered > 0


def _played(award: int, again: int, cap: int, p: Fraction) -> Fraction:
    """E[spins played]: each spin retriggers with probability ``p``, adding ``again`` up to
    ``cap`` awarded (a plain recursion over (awarded, played))."""
    @cache
    def more(total: int, played: int) -> Fraction:
        if played == total:
            return Fraction(total)
        return p * more(min(total + again, cap), played + 1) + (1 - p) * more(total,
                                                                               played + 1)
    return more(min(award, cap), 0)


def test_the_spins_played_are_the_plain_recursion() -> None:
    """The closed form with a retrigger award of its own equals the recursion, fraction for
    fraction (the game's free reels and cap)."""
    game = drawn_spins_game()
    a = game.model.lines.arrays
    free = ReelSetMath(game.model.lines, a.free, a.free_len)
    p = sum((free.p_scatter(c) for c in range(len(a.fs_awards)) if a.fs_awards[c] > 0),
            Fraction(0))
    for award in (5, 8, 12):
        assert expected_free_spins(a, free, award, award) == _played(award, award, 50, p)


def test_kernel_and_traced_rounds_agree_with_drawn_spins() -> None:
    assert _same_rounds(drawn_spins_game(), 5_000, 15) > 100


def test_the_compiled_simulation_holds_the_exact_rtp_with_drawn_spins() -> None:
    """1 M rounds (fixed seed), 99.9 % interval."""
    ok, text = _kernel_rtp_within(drawn_spins_game(), 1_000_000, 45)
    assert ok, text
