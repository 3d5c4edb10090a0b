"""The kernel's simulation against the exact figures, and its spins against the brute force.

Statistical tests use fixed seeds. Each family of comparisons holds at 99 % jointly: with ``k``
comparisons each one uses the two-sided ``1 - 0.01 / k`` normal quantile (Bonferroni). Standard
errors: the RTP from the simulation's own SD; RTP components by batch means (one batch per
simulation chunk); frequencies from the binomial SD of the exact probability; means of a
feature (free spins played, final stars, Frenzy total) from the sample SD of the features seen.
"""

from __future__ import annotations

import copy
import itertools
import math
from fractions import Fraction
from statistics import NormalDist, fmean, stdev
from typing import Any

import numpy as np
import pytest

from slotlab.games import find_game
from slotlab.games.super_12_stars import kernel as k
from slotlab.games.super_12_stars.exact import compute
from slotlab.games.super_12_stars.game import COMPONENTS, Super12Stars
from slotlab.games.super_12_stars.model import load_model
from slotlab.mechanics.accumulators import ACC_COMPONENTS, ACC_SPINS
from slotlab.rng import chunk_stream
from slotlab.simulate.runner import simulate
from slotlab.simulate.stats import Z99

from . import reference as ref
from .test_exact import SMALL_STRIPS

BET = 30
LUCKY_PARTS = ("lucky_stars_values", "minor", "major", "grand")


def z_for(k_tests: int) -> float:
    """Two-sided normal quantile so that ``k_tests`` comparisons hold at 99 % together."""
    return NormalDist().inv_cdf(1 - 0.01 / (2 * k_tests))


def components_of(acc: np.ndarray) -> dict[str, float]:
    """The exact report's split from a chunk's sums (Lucky Stars' four parts summed), x bet."""
    spins = int(acc[ACC_SPINS])
    raw = {name: int(acc[ACC_COMPONENTS + i]) for i, name in enumerate(COMPONENTS)}
    out = {name: raw[name] for name in COMPONENTS if name not in (*LUCKY_PARTS, "cap")}
    out["lucky_stars"] = sum(raw[p] for p in LUCKY_PARTS)
    return {name: v / (spins * BET) for name, v in out.items()}


def run_and_check(game: Super12Stars, spins: int, seed: int, chunk: int, workers: int = 1
                  ) -> None:
    exact = game.exact(BET)
    chunks: list[np.ndarray] = []
    sim = simulate(game, game.id, BET, spins, seed=seed, workers=workers, chunk_spins=chunk,
                   on_chunk=lambda c: chunks.append(c[0].copy()))
    assert sim.spins == spins and sim.components["cap"] == 0
    assert sum(sim.components.values()) == sim.total_win
    half = Z99 * sim.sd / math.sqrt(spins)
    assert abs(sim.rtp - exact["rtp"]) <= half, (sim.rtp, exact["rtp"], half)
    # Components by batch means over equal chunks (the last, shorter one is left out).
    full = [c for c in chunks if int(c[ACC_SPINS]) == chunk]
    assert len(full) >= 30
    per_chunk = [components_of(c) for c in full]
    total = components_of(sum(full))
    z = z_for(len(total))
    for name, value in total.items():
        se = stdev(x[name] for x in per_chunk) / math.sqrt(len(full))
        expected = exact["components"][name]["rtp"]
        assert abs(value - expected) <= z * se, (name, value, expected, se)


def test_simulation_agrees_with_the_exact_rtp_and_split(game):
    """10 million rounds (about 4 s on a quiet core): the RTP inside its 99 % interval, each
    component inside its own (11 components, 99 % together)."""
    run_and_check(game, 10_000_000, seed=1, chunk=1 << 17)


def test_simulation_of_the_shipped_model_agrees_with_its_exact_rtp_and_split():
    """The same check on the shipped model (v2; the fixture's v1 is its mechanics' reference):
    10 million rounds, 99 %."""
    run_and_check(find_game("super-12-stars"), 10_000_000, seed=2, chunk=1 << 17)


@pytest.mark.slow
def test_long_simulation_agrees_with_the_exact_rtp_and_split(game):
    """100 million rounds on two workers."""
    run_and_check(game, 100_000_000, seed=77, chunk=1 << 20, workers=2)


def traced_rounds(game: Super12Stars, rounds: int, seed: int) -> list[dict[str, Any]]:
    """Rounds of the simulation kernel with its event rows, the Frenzy colour at random: what
    each round started and its win (pay units)."""
    m = k.pack(game.model)
    stream = chunk_stream(seed, 0)
    script = k.new_script()
    scratch = k.scratch(m)
    ev = np.zeros((4096, k.EV_WIDTH), np.int64)
    out = []
    for _ in range(rounds):
        saved = stream.copy()
        win, _unc, feature, _pending, n_ev = k.trace_round(m, stream, script, k.COLOUR_RANDOM,
                                                           ev, *scratch)
        if n_ev > ev.shape[0]:  # a longer round than the buffer: again, with room for it
            stream[:] = saved
            ev = np.zeros((n_ev, k.EV_WIDTH), np.int64)
            win, _unc, feature, _pending, n_ev = k.trace_round(
                m, stream, script, k.COLOUR_RANDOM, ev, *scratch)
        out.append(_summary(ev[:n_ev].tolist(), int(win), bool(feature)))
    return out


def _summary(rows: list[list[int]], win: int, feature: bool) -> dict[str, Any]:
    s: dict[str, Any] = {"win": win, "feature": feature, "golden": False, "silver": False}
    spins = 0  # EV_REELS rows seen
    for row in rows:
        kind = row[0]
        if kind == k.EV_REELS:
            spins += 1
            if row[1] == k.STAGE_FREE and not row[5]:
                s["free_spins_played"] = s.get("free_spins_played", 0) + 1
        elif kind == k.EV_SCATTER and spins == 1:  # the base spin's own scatter pays
            s["golden" if row[1] == 0 else "silver"] = True
        elif kind == k.EV_SUPER7 and row[1] == k.STAGE_BASE:
            s["super7"] = True
        elif kind == k.EV_WHEEL:
            s["wheel"] = True
        elif kind == k.EV_TV:
            s["free_spins"] = True
            s.setdefault("free_spins_played", 0)
        elif kind == k.EV_S10:
            s["super10"] = True
            s[{0: "super10_direct", 1: "frenzy", 2: "super10_free_spins"}[row[2]]] = True
        elif kind == k.EV_LUCKY_END:
            s["lucky_stars"] = row[1]
        elif kind == k.EV_FRENZY_END:
            s["frenzy_total"] = row[1]
    return s


def test_feature_frequencies_and_feature_means_agree_with_exact(game):
    """200,000 traced rounds: how often each feature starts, the hit rate, and per feature
    the mean number of free spins, of final Lucky Stars and the Frenzy total."""
    n = 200_000
    rounds = traced_rounds(game, n, seed=9)
    f = compute(game.model)
    exact = game.exact(BET)
    freq = dict(f.frequencies)
    checks = {
        "golden_scatter_pay": sum(r["golden"] for r in rounds),
        "silver_scatter_pay": sum(r["silver"] for r in rounds),
        "hit_rate": sum(r["win"] > 0 for r in rounds),
        "any_feature": sum(r["feature"] for r in rounds),
        **{name: sum(name in r for r in rounds) for name in (
            "super7", "wheel", "free_spins", "super10", "super10_direct", "frenzy",
            "super10_free_spins", "lucky_stars")},
    }
    freq["hit_rate"] = Fraction(exact["hit_rate_fraction"])
    means = {
        "free spins played": ([r["free_spins_played"] for r in rounds if "free_spins" in r],
                              exact["free_spins_expected"]),
        "final stars": ([r["lucky_stars"] for r in rounds if "lucky_stars" in r],
                        exact["lucky_stars_expected_stars"]),
        "Frenzy total": ([r["frenzy_total"] for r in rounds if "frenzy_total" in r],
                         exact["frenzy_expected_x_bet"]),
    }
    z = z_for(len(checks) + len(means) + 1)
    for name, count in checks.items():
        p = float(freq[name])
        assert abs(count / n - p) <= z * math.sqrt(p * (1 - p) / n), (name, count / n, p)
    for name, (xs, expected) in means.items():
        assert len(xs) > 100
        assert abs(fmean(xs) - expected) <= z * stdev(xs) / math.sqrt(len(xs)), (name, expected)
    # The final-star distribution: chi-square over 3..15 stars (tail merged from 13 up), 99 %.
    stars = [r["lucky_stars"] for r in rounds if "lucky_stars" in r]
    bins = [Fraction(0)] * 11
    for kk, p in f.stars.items():
        bins[min(kk, 13) - 3] += p
    seen = [0] * 11
    for x in stars:
        seen[min(x, 13) - 3] += 1
    chi2 = sum((o - len(stars) * float(p)) ** 2 / (len(stars) * float(p))
               for o, p in zip(seen, bins, strict=True))
    assert chi2 < 23.21  # chi-square 99 % quantile, 10 degrees of freedom


# -- every spin of a small model, event by event, against the brute force ----------------------


SET_OF_STAGE = {"base": "base", "free": "free", "super10_free": "super10_free"}
SPIN_EVENTS = ("super7_expanded", "line_won", "scatter_won", "bonus_won")


def test_kernel_spins_equal_the_brute_force_on_every_base_stop_of_a_small_model(v1_raw):
    """Every base stop combination of the small model, played with its features: each spin
    (base, Super 7 respin, free spins with their multiplier, Super 10 free spins) pays what
    the brute force reads in its window, and starts the features the brute force sees."""
    raw = copy.deepcopy(v1_raw)
    raw["reel_strips"] = copy.deepcopy(SMALL_STRIPS)
    game = Super12Stars(load_model(raw))
    strips = raw["reel_strips"]
    bet = 60  # 2 credits per line: credits = 2 x units
    seen_kinds: set[str] = set()
    for stops in itertools.product(*(range(len(s)) for s in strips["base"])):
        result = game.play_stops(bet, list(stops))
        events = list(result.events)
        spins = [i for i, e in enumerate(events) if e["type"] == "reels_stopped"]
        for n_spin, i in enumerate(spins):
            e = events[i]
            cols = [ref.window_of(strips[SET_OF_STAGE[e["stage"]]][r], e["stops"][r])
                    for r in range(5)]
            expected = ref.spin_of(raw, cols)
            end = i + 1
            while end < len(events) and events[end]["type"] in SPIN_EVENTS:
                end += 1
            own = events[i + 1 : end]
            scale = bet * e.get("multiplier", 1)

            def won(kind: str, scatter: str | None = None, own: list[Any] = own) -> int:
                return sum(x["win"] for x in own if x["type"] == kind
                           and (scatter is None or x["scatter"] == scatter))

            assert won("line_won") == expected["lines"] * scale, (stops, e)
            assert won("scatter_won", "golden") == expected["golden"] * scale
            assert won("scatter_won", "silver") == expected["silver"] * scale
            bonus_pay = ref.q(raw["bonus_trigger_pay_x_total_bet"]) * scale
            assert won("bonus_won") == (bonus_pay if expected["bonus"] else 0)
            assert any(x["type"] == "super7_expanded" for x in own) == (
                expected["kind"] == "S7" and not e["respin"])
            if n_spin == 0:
                seen_kinds.add(expected["kind"])
                types = {x["type"] for x in events}
                assert ("wheel_spun" in types) == expected["wheel"]
                assert ("tv_drawn" in types) == expected["bonus"]
                assert ("super10_spun" in types) == (expected["kind"] == "T10")
                assert ("lucky_stars_started" in types) == (expected["kind"] == "T12")
                assert (events[spins[1]]["respin"] if len(spins) > 1 else False) == (
                    expected["kind"] == "S7")
    assert seen_kinds == {"normal", "S7", "T10", "T12"}
