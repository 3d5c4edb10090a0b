"""Every sentence of Lucky Coin Link's rule text (the model's ``rules``), tested on rounds played
from fixed seeds (seeds 0..5999, see conftest) and on the hold and win played from fixed
streams. RULES.md maps each sentence to these tests."""

from __future__ import annotations

from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.round import Tables, hold_and_win
from slotlab.games.lines.game import LineGame
from slotlab.rng import chacha_stream, parse_seed
from slotlab.rounds import Event, RoundResult
from tests.games.composed.conftest import BET, variant

SCATTER_X = {3: 2, 4: 10, 5: 50}  # total bets, from the rule text
AWARDS = {3: 8, 4: 10, 5: 12}
JACKPOT_X = {"Mini": 10, "Minor": 25, "Major": 100, "Grand": 1000}


def _of(result: RoundResult, kind: str) -> list[Event]:
    return [e for e in result.events if e["type"] == kind]


def _with(corpus: tuple[RoundResult, ...], kind: str) -> list[RoundResult]:
    found = [r for r in corpus if _of(r, kind)]
    assert found, f"no round of the corpus has a {kind} event"
    return found


def _next(result: RoundResult, after: Event, kind: str) -> Event | None:
    """The first event of ``kind`` after ``after``."""
    events = list(result.events)
    start = next(i for i, e in enumerate(events) if e is after)
    return next((e for e in events[start + 1:] if e["type"] == kind), None)


def _line_game(game: ComposedGame) -> LineGame:
    return LineGame(game.model.lines)


# -- 20 fixed paylines ...; only the highest win per line; wins on different lines are added --

def test_twenty_paylines_pay_left_to_right_as_the_line_evaluator(
        game: ComposedGame, corpus: tuple[RoundResult, ...]) -> None:
    assert len(game.model.spec.lines) == 20 and (game.model.spec.reels,
                                                  game.model.spec.rows) == (5, 3)
    lines = _line_game(game)
    checked = 0
    for r in corpus[:1500]:
        stopped = _of(r, "reels_stopped")[0]
        _units, _su, _c, expected = lines.evaluate_window(stopped["window"])
        base_wins = []
        for e in r.events[1:]:
            if e["type"] != "line_won":
                break
            base_wins.append(e)
        assert [(e["line"], e["symbol"], e["count"], e["win"]) for e in base_wins] == [
            (x["line"], x["symbol"], x["count"], x["win"]) for x in expected]
        for e in base_wins:  # left to right on adjacent reels from the leftmost
            assert [p[0] for p in e["positions"]] == list(range(e["count"]))
        assert len({e["line"] for e in base_wins}) == len(base_wins)  # one win per line
        checked += bool(base_wins)
    assert checked > 100


def test_line_wins_on_different_lines_are_added(game: ComposedGame) -> None:
    lines = _line_game(game)
    window = [["DRAGON"] * 3, ["DRAGON"] * 3, ["DRAGON"] * 3, ["A"] * 3, ["A"] * 3]
    units, _su, _c, wins = lines.evaluate_window(window)
    assert len(wins) == 20 and units == sum(w["win"] for w in wins) == 20 * 50


# -- Wild substitutes for every symbol except Bonus Wheel and Coin --

def test_wild_substitutes_for_every_symbol_but_bonus_and_coin(game: ComposedGame) -> None:
    lines = _line_game(game)
    for sym in game.model.spec.pays:
        window = [["WILD"] * 3, [sym] * 3, [sym] * 3, ["TEN" if sym != "TEN" else "J"] * 3,
                  ["K"] * 3]
        _u, _s, _c, wins = lines.evaluate_window(window)
        assert {(w["symbol"], w["count"]) for w in wins} == {(sym, 3)}
    for sym in ("BONUS", "COIN"):
        window = [[sym] * 3, ["WILD"] * 3, ["WILD"] * 3, ["Q"] * 3, ["Q"] * 3]
        _u, _s, _c, wins = lines.evaluate_window(window)
        assert wins == []  # the wild stands in for neither, so no line starts on reel 1


# -- 3, 4 or 5 Bonus Wheel symbols pay 2, 10 or 50 times the total bet and spin the wheel --

def test_bonus_symbols_pay_and_spin_the_wheel(corpus: tuple[RoundResult, ...]) -> None:
    for r in corpus:
        stage, mult = "base", 1
        for e in r.events:
            if e["type"] == "reels_stopped":
                stage = e["stage"]
            elif e["type"] == "free_spin_started":
                mult = e["multiplier"]
            elif e["type"] == "scatter_won":
                assert e["win"] == SCATTER_X[e["count"]] * BET * (1 if stage == "base" else mult)
        base = next(e for e in r.events if e["type"] == "reels_stopped")
        count = sum(col.count("BONUS") for col in base["window"])
        assert len(_of(r, "wheel_spun")) == (1 if count >= 3 else 0)
    assert len(_with(corpus, "wheel_spun")) > 50


# -- The Bonus Wheel awards 5 or 10 times the total bet, free spins x1/x2/x3, or Coin Link --

def test_the_wheel_brings_what_its_segment_says(game: ComposedGame,
                                                corpus: tuple[RoundResult, ...]) -> None:
    wheel = game.model.spec.wheel
    assert wheel is not None
    brings = {(s.pay, s.feature, s.multiplier) for s in wheel.segments}
    assert brings == {(5 * BET, None, 1), (10 * BET, None, 1), (0, "free_spins", 1),
                      (0, "free_spins", 2), (0, "free_spins", 3), (0, "hold_and_win", 1)}
    seen = set()
    for r in _with(corpus, "wheel_spun"):
        spun = _of(r, "wheel_spun")[0]
        seg = wheel.segments[spun["segment"]]
        assert (spun["pay"], spun["feature"], spun["multiplier"]) == (
            seg.pay, seg.feature, seg.multiplier)
        nxt = _next(r, spun, "free_spins_triggered"), _next(r, spun, "hold_and_win_started")
        if seg.feature == "free_spins":
            assert nxt[0] is not None and nxt[0]["multiplier"] == seg.multiplier
        elif seg.feature == "hold_and_win":
            assert nxt[0] is None and nxt[1] is not None
        else:
            assert nxt == (None, None)
        seen.add(spun["segment"])
    assert seen == set(range(len(wheel.segments)))


# -- 3, 4 or 5 award 8, 10 or 12 free spins; every free-spin win times the wheel's multiplier --

def test_free_spins_awarded_and_multiplied(corpus: tuple[RoundResult, ...]) -> None:
    rounds = _with(corpus, "free_spins_triggered")
    for r in rounds:
        base_scatters = next(e for e in r.events if e["type"] == "reels_stopped")
        count = sum(row.count("BONUS") for row in base_scatters["window"])
        trig = _of(r, "free_spins_triggered")[0]
        assert trig["awarded"] == AWARDS[count]
        mult = trig["multiplier"]
        for e in _of(r, "line_won")[len([x for x in r.events[:r.events.index(trig)]
                                          if x["type"] == "line_won"]):]:
            assert e["win"] % mult == 0 and e["multiplier"] % mult == 0
    assert {(_of(r, "free_spins_triggered")[0]["multiplier"]) for r in rounds} == {1, 2, 3}


def test_free_spin_line_wins_are_the_evaluator_times_the_multiplier(
        game: ComposedGame, corpus: tuple[RoundResult, ...]) -> None:
    lines = _line_game(game)
    for r in _with(corpus, "free_spins_triggered")[:40]:
        mult = _of(r, "free_spins_triggered")[0]["multiplier"]
        events = list(r.events)
        for i, e in enumerate(events):
            if e["type"] == "reels_stopped" and e["stage"] == "free":
                units, _s, _c, _w = lines.evaluate_window(e["window"])
                paid = 0
                for x in events[i + 1:]:
                    if x["type"] != "line_won":
                        break
                    paid += x["win"]
                assert paid == units * mult


# -- Bonus Wheel symbols during free spins award again, up to 50 free spins in all --

def test_free_spins_retrigger_up_to_the_cap(corpus: tuple[RoundResult, ...]) -> None:
    for r in _with(corpus, "free_spins_retriggered"):
        for e in _of(r, "free_spins_retriggered"):
            assert e["total_awarded"] <= 50
        ended = _of(r, "free_spins_ended")[0]
        assert ended["played"] == _of(r, "free_spins_retriggered")[-1]["total_awarded"]
    capped = variant(free_spins={"awards": {"3": 8, "4": 10, "5": 12}, "multiplier": 1,
                                 "retrigger": True, "max_spins": 9, "strips": "free"})
    totals = []
    for i in range(3000):
        r = capped.play(BET, [parse_seed(i)])
        if _of(r, "free_spins_ended"):
            totals.append(_of(r, "free_spins_ended")[0]["played"])
    assert totals and max(totals) == 9 and min(totals) == 8


# -- Every Coin shows a value or a jackpot: Mini 10, Minor 25, Major 100, Grand 1,000 x bet --

def test_coins_show_a_value_or_a_fixed_jackpot(game: ComposedGame,
                                               corpus: tuple[RoundResult, ...]) -> None:
    hw = game.model.spec.hold_and_win
    assert hw is not None
    values = {c.value for c in hw.coins if c.value is not None}
    seen = set()
    for r in corpus[:3000]:
        for e in _of(r, "coins_shown"):
            for coin in e["coins"]:
                if coin["jackpot"] is None:
                    assert coin["value"] in values
                else:
                    assert coin["value"] == JACKPOT_X[coin["jackpot"]] * BET
                    seen.add(coin["jackpot"])
    assert seen == set(JACKPOT_X)


# -- 6 or more Coins anywhere start Coin Link with those Coins held and 3 respins --

def test_six_coins_start_coin_link_with_them_held(corpus: tuple[RoundResult, ...]) -> None:
    started = 0
    for r in corpus:
        shown = next((e for e in r.events if e["type"] == "coins_shown"), None)
        coins = shown["coins"] if shown and r.events.index(shown) < 25 else []
        first_hw = _of(r, "hold_and_win_started")[:1]
        base = next(e for e in r.events if e["type"] == "reels_stopped")
        n = sum(col.count("COIN") for col in base["window"])
        if n >= 6:
            started += 1
            assert first_hw and first_hw[0]["respins"] == 3
            assert first_hw[0]["coins"] == sorted(coins, key=lambda c: (c["cell"]))
        elif first_hw:  # fewer coins: only the wheel starts it
            assert _of(r, "wheel_spun") and _of(r, "wheel_spun")[0]["feature"] == "hold_and_win"
    assert started >= 5


# -- Coin Link started by the Bonus Wheel starts with the Coins in view held --

def test_wheel_coin_link_starts_with_the_coins_in_view(corpus: tuple[RoundResult, ...]) -> None:
    rounds = [r for r in _with(corpus, "wheel_spun")
              if _of(r, "wheel_spun")[0]["feature"] == "hold_and_win"]
    assert rounds
    for r in rounds:
        spun = _of(r, "wheel_spun")[0]
        hw = _next(r, spun, "hold_and_win_started")
        shown = _of(r, "coins_shown")
        coins = shown[0]["coins"] if shown and r.events.index(shown[0]) < r.events.index(
            spun) else []
        assert hw is not None and hw["coins"] == sorted(coins, key=lambda c: c["cell"])


def _grid_rounds(game: ComposedGame, n: int, start: dict[int, int],
                 mult: int = 1) -> list[tuple[int, list[Event]]]:
    t = Tables(game.model)
    out = []
    for i in range(n):
        events: list[Event] = []
        win = hold_and_win(t, chacha_stream(parse_seed(i)), start, mult, 1, events)
        out.append((win, events))
    return out


# -- each empty position respins on its own ...; a landing resets the respins to 3 --
# -- Coin Link ends when no respins are left or all 15 positions are filled --

def test_respins_reset_on_each_landing_and_the_feature_ends_right(game: ComposedGame) -> None:
    full = 0
    for _win, events in _grid_rounds(game, 400, dict.fromkeys(range(0, 15, 2), 0)):
        respins = 3
        held = 8
        steps = [e for e in events if e["type"] == "respin_landed"]
        for e in steps:
            landed = len(e["coins"]) + len(e["collectors"])
            respins = 3 if landed else respins - 1
            held += landed
            assert (e["respins"], e["held"]) == (respins, held)
        assert respins == 0 or held == 15
        assert steps[-1]["respins"] == 0 or steps[-1]["held"] == 15
        full += held == 15
        # landings only on empty positions
        cells = [tuple(c["cell"]) for e in steps for c in e["coins"]] + [
            tuple(c) for e in steps for c in e["collectors"]]
        assert len(set(cells)) == len(cells)
        assert not set(cells) & {(c // 3, c % 3) for c in range(0, 15, 2)}
    assert full > 0


def test_each_empty_position_lands_with_the_models_probability(game: ComposedGame) -> None:
    """One respin from one held coin: 14 free cells, each landing with the model's p (14/100);
    the count over 2,000 respins is within its 99.9 % binomial interval."""
    landed = 0
    trials = 0
    for _win, events in _grid_rounds(game, 2000, {0: 0}):
        first = next(e for e in events if e["type"] == "respin_landed")
        landed += len(first["coins"]) + len(first["collectors"])
        trials += 14
    landing = game.model.spec.hold_and_win.landing  # type: ignore[union-attr]
    p = 1 - landing.nothing / (landing.nothing + landing.coin + landing.collector)
    assert p == 0.14
    sd = (trials * p * (1 - p)) ** 0.5
    assert abs(landed - trials * p) < 3.3 * sd


# -- every Coin pays its value and every Collector collects the values of all Coins again --

def test_coin_link_pays_coins_and_collectors(game: ComposedGame) -> None:
    with_collectors = 0
    for win, events in _grid_rounds(game, 600, {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5}):
        start = next(e for e in events if e["type"] == "hold_and_win_started")
        coins = sum(c["value"] for c in start["coins"]) + sum(
            c["value"] for e in events if e["type"] == "respin_landed" for c in e["coins"])
        collectors = sum(len(e["collectors"]) for e in events if e["type"] == "respin_landed")
        end = events[-1]
        assert end["type"] == "hold_and_win_ended"
        assert (end["coins"], end["collectors"]) == (coins, collectors)
        assert win == end["win"] == coins * (1 + collectors)
        collected = [e for e in events if e["type"] == "collector_collected"]
        assert len(collected) == collectors and all(e["win"] == coins for e in collected)
        with_collectors += collectors > 0
    assert with_collectors > 20


# -- Coins during free spins start Coin Link too; its win times the free-spin multiplier --

def test_coin_link_in_free_spins_is_multiplied(game: ComposedGame) -> None:
    # A variant whose free spins always start Coin Link: coins fill the free reels.
    raw_free = [["COIN", "COIN", "COIN", "A", "K"]] * 5
    g = variant(strips={**game.model.raw["strips"], "free": raw_free},
                wheel={"segments": [{"weight": 1, "feature": "free_spins", "multiplier": 3}]})
    found = 0
    for i in range(400):
        r = g.play(BET, [parse_seed(i)])
        events = list(r.events)
        if not _of(r, "free_spins_triggered"):
            continue
        trig = _of(r, "free_spins_triggered")[0]
        for e in events[events.index(trig):]:
            if e["type"] == "hold_and_win_started":
                assert e["multiplier"] == 3
                found += 1
            if e["type"] == "hold_and_win_ended":
                assert e["win"] == e["coins"] * (1 + e["collectors"])
                assert e["coins"] % 3 == 0
    assert found > 0


# -- The most a round pays is 5,000 times the total bet --

def test_the_round_win_is_capped(game: ComposedGame, corpus: tuple[RoundResult, ...]) -> None:
    assert game.max_win_x() == 5000
    assert all(r.win <= 5000 * BET for r in corpus)
    low = variant(max_win_x=2)
    capped = 0
    for i in range(300):
        r = low.play(BET, [parse_seed(i)])
        uncapped = _uncapped(r)
        assert r.win == min(uncapped, 2 * BET)
        if uncapped > 2 * BET:
            capped += 1
            assert _of(r, "win_capped")[0] == {"type": "win_capped", "cap": 2 * BET,
                                               "uncapped": uncapped}
    assert capped > 0


def _uncapped(r: RoundResult) -> int:
    """What the events pay before the cap: base lines and scatters, features' ends, wheel."""
    total = 0
    in_feature = False
    for e in r.events:
        kind = e["type"]
        if kind in ("free_spins_triggered", "hold_and_win_started"):
            in_feature = True
        if kind in ("line_won", "scatter_won") and not in_feature:
            total += e["win"]
        elif kind == "wheel_spun":
            total += e["pay"]
        elif kind == "free_spins_ended" or (kind == "hold_and_win_ended"
                                            and not _inside_free(r, e)):
            total += e["win"]
            in_feature = False
    return total


def _inside_free(r: RoundResult, event: Event) -> bool:
    events = list(r.events)
    i = events.index(event)
    started = [j for j, e in enumerate(events) if e["type"] == "free_spins_triggered"]
    ended = [j for j, e in enumerate(events) if e["type"] == "free_spins_ended"]
    return any(s < i < e for s, e in zip(started, ended, strict=False))


def test_a_round_is_a_pure_function_of_its_seed(game: ComposedGame) -> None:
    a = game.play(BET, [parse_seed(123)])
    b = game.play(BET, [parse_seed(123)])
    assert a == b and _uncapped(a) == a.win


