"""Lucky Coin Link, a composed game shipped as a model file alone, and rounds of it played from
fixed seeds, so that each rule test finds the rounds where its rule applies."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest

from slotlab.games import find_game
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from slotlab.rng import parse_seed
from slotlab.rounds import RoundResult

GAME_ID = "lucky-coin-link"
BET = 20  # level 1: one pay unit is one credit
CORPUS = 6000  # rounds from seeds 0..CORPUS-1


def plain_line_units(window: list[list[str]], lines: list[list[int]],
                     pays: dict[str, dict[int, int]], wild: str = "W") -> int:
    """What a window's lines pay, by the rules in words (no shared code): from the first reel,
    the run of a line's first symbol that is not the wild, the wild standing in for it."""
    total = 0
    for line in lines:
        cells = [window[r][row] for r, row in enumerate(line)]
        symbol = next((c for c in cells if c != wild), None)
        run = 0
        for c in cells:
            if c not in (symbol, wild):
                break
            run += 1
        total += pays.get(symbol or "", {}).get(run, 0)
    return total


def shipped_raw() -> dict[str, Any]:
    game = find_game(GAME_ID)
    assert isinstance(game, ComposedGame)
    return copy.deepcopy(game.model.raw)


def variant(**changes: Any) -> ComposedGame:
    """The shipped game with top-level keys of its model replaced."""
    raw = shipped_raw()
    raw.update(json.loads(json.dumps(changes)))
    return ComposedGame(ComposedModel.from_dict(raw))


def assert_model_error(raw: dict[str, Any], words: list[str]) -> None:
    """Loading ``raw`` fails with a message that says every one of ``words``."""
    from slotlab.games import game_of_data
    from slotlab.model import ModelError

    with pytest.raises(ModelError) as exc:
        game_of_data(raw, "mine.json")
    for w in words:
        assert w in str(exc.value), str(exc.value)


def seven_raw(respins: int = 2) -> dict[str, Any]:
    """Lucky Coin Link with an expanding Lucky 7 on reels 2, 3 and 4 (one on each of their base
    and free strips, in place of a low symbol next to a Coin) that awards ``respins`` respins."""
    raw = shipped_raw()
    raw.update(id="lucky-seven-link", name="Lucky Seven Link",
               expanding={"symbol": "SEVEN", "respins": respins})
    raw["symbols"].append({"id": "SEVEN", "name": "Lucky 7"})
    for strips in raw["strips"].values():
        for reel in (1, 2, 3):
            strip = strips[reel]
            at = next(i for i, s in enumerate(strip) if s in ("TEN", "J", "Q")
                      and "COIN" in (strip[i - 1], strip[(i + 1) % len(strip)]))
            strip[at] = "SEVEN"
    return raw


def stars_raw(base: dict[str, Any] | None = None) -> dict[str, Any]:
    """Lucky Coin Link (or ``base``) with two paying scatters: a Golden Star once on every strip
    (paying 3, 4, 5 of it anywhere) and a Silver Star stacked two high on reels 2 to 4 (paying
    2 to 6 of it), each in place of low symbols."""
    raw = copy.deepcopy(base) if base is not None else shipped_raw()
    raw.update(id=f"{raw['id']}-stars", name=f"{raw['name']} Stars", scatters=[
        {"symbol": "GOLD", "pays": {"3": 60, "4": 300, "5": 3000}},
        {"symbol": "SILVER", "pays": {"2": 4, "3": 10, "4": 30, "5": 100, "6": 500}}])
    raw["symbols"] += [{"id": "GOLD", "name": "Golden Star"},
                       {"id": "SILVER", "name": "Silver Star"}]
    low = ("TEN", "J", "Q")
    for strips in raw["strips"].values():
        for reel, strip in enumerate(strips):
            strip[strip.index("TEN")] = "GOLD"
            if reel in (1, 2, 3):
                at = next(i for i in range(len(strip) - 1)
                          if strip[i] in low and strip[i + 1] in low)
                strip[at: at + 2] = ["SILVER", "SILVER"]
    return raw


@cache
def stars_game(with_seven: bool = False) -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(stars_raw(seven_raw() if with_seven else None)))


def wheel_symbol_raw() -> dict[str, Any]:
    """Lucky Coin Link whose Bonus Wheel is spun by three Wheel symbols (three on each base
    strip of reels 1, 3 and 5, in place of low symbols) and pays, or starts Coin Link at x2 or
    6 free spins at x2 (6 more on each retrigger); the Bonus scatters start the free spins
    directly."""
    raw = shipped_raw()
    raw.update(id="lucky-wheel-link", name="Lucky Wheel Link")
    raw["symbols"].append({"id": "WHEEL", "name": "Wheel"})
    raw["wheel"] = {"trigger": {"symbol": "WHEEL", "count": 3}, "segments": [
        {"weight": 4, "pay": 100}, {"weight": 2, "pay": 200}, {"weight": 3, "pay": 40},
        {"weight": 1, "feature": "hold_and_win", "multiplier": 2},
        {"weight": 3, "feature": "free_spins", "spins": 6, "multiplier": 2}]}
    for reel in (0, 2, 4):
        strip = raw["strips"]["base"][reel]
        lows = [i for i, s in enumerate(strip) if s in ("J", "Q", "TEN")]
        for i in lows[::max(len(lows) // 3, 1)][:3]:
            strip[i] = "WHEEL"
    return raw


@cache
def wheel_symbol_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(wheel_symbol_raw()))


def drawn_spins_raw() -> dict[str, Any]:
    """Lucky Coin Link whose Bonus Wheel draws the free spins' number and multiplier (5, 8 or
    12 spins at x1, x2 or x3; a retrigger awards the same number again) or pays."""
    raw = shipped_raw()
    raw.update(id="lucky-draw-link", name="Lucky Draw Link")
    raw["wheel"]["segments"] = [{"weight": 3, "pay": 100}] + [
        {"weight": w * v, "feature": "free_spins", "spins": n, "multiplier": m}
        for n, w in ((5, 5), (8, 3), (12, 1)) for m, v in ((1, 4), (2, 2), (3, 1))]
    return raw


@cache
def drawn_spins_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(drawn_spins_raw()))


def two_wheels_raw() -> dict[str, Any]:
    """Lucky Wheel Link whose Bonus Wheel the Bonus scatters' award spins again (as in Lucky Coin
    Link), beside a second wheel, the Lucky Wheel, that three Wheel symbols spin: it pays, or
    starts Coin Link x2, or 5 free spins on reels of their own (the free reels with the Bonus
    scatters made Tens: they never retrigger)."""
    raw = wheel_symbol_raw()
    lucky = raw["wheel"]
    lucky["name"] = "Lucky Wheel"
    lucky["segments"][-1] = {"weight": 3, "feature": "free_spins", "spins": 5,
                             "strips": "lucky_free"}
    raw.update(id="lucky-two-wheels", name="Lucky Two Wheels", wheel=shipped_raw()["wheel"],
               wheels=[lucky])
    raw["strips"]["lucky_free"] = [["TEN" if s == "BONUS" else s for s in strip]
                                   for strip in raw["strips"][raw["free_spins"]["strips"]]]
    return raw


@cache
def two_wheels_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(two_wheels_raw()))


GRAND = 2000  # the full grid's jackpot in full_raw


def full_raw() -> dict[str, Any]:
    """Lucky Coin Link whose empty cells land a coin or a collector half the time, and whose
    grid pays a Grand of 2,000 units when every cell is held; no coin is a Mini."""
    raw = shipped_raw()
    hw = raw["hold_and_win"]
    raw.update(id="lucky-full-link", name="Lucky Full Link")
    hw["landing"] = {"nothing": 50, "coin": 48, "collector": 2}
    hw["coins"] = [c for c in hw["coins"] if c.get("jackpot") != "Mini"]
    hw["jackpots"] = {j: v for j, v in hw["jackpots"].items() if j != "Mini"} | {"Grand": GRAND}
    hw["full_grid"] = "Grand"
    return raw


@cache
def full_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(full_raw()))


def frenzy_raw() -> dict[str, Any]:
    """Lucky Coin Link whose Bonus Wheel may start a Frenzy Wheel: the player picks red or
    green, each spin adds 1 to 10 and spins again on the picked colour, up to a total of 20
    (uneven colours: green adds more but comes up less)."""
    raw = shipped_raw()
    raw.update(id="lucky-frenzy-link", name="Lucky Frenzy Link", colour_wheel={
        "name": "Frenzy Wheel", "colours": ["Red", "Green"], "limit": 20,
        "segments": [{"weight": 5, "colour": "Red", "multiplier": 1},
                     {"weight": 3, "colour": "Red", "multiplier": 2},
                     {"weight": 2, "colour": "Green", "multiplier": 3},
                     {"weight": 1, "colour": "Green", "multiplier": 10}]})
    raw["wheel"]["segments"].append({"weight": 3, "feature": "colour_wheel", "multiplier": 2})
    return raw


@cache
def frenzy_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(frenzy_raw()))


def mega_raw() -> dict[str, Any]:
    """Lucky Coin Link with a Mega Coin three rows tall on reel 3 (a run of three on its base
    and free strips, put in after its first Coin) that fills the reel and starts Coin Link."""
    raw = shipped_raw()
    raw.update(id="lucky-mega-link", name="Lucky Mega Link", whole_reel={"symbol": "MEGA"})
    raw["symbols"].append({"id": "MEGA", "name": "Mega Coin"})
    for strips in raw["strips"].values():
        strip = strips[2]
        at = strip.index("COIN") + 1
        strip[at:at] = ["MEGA"] * 3
    return raw


@cache
def mega_game() -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(mega_raw()))


@cache
def mega_corpus() -> tuple[RoundResult, ...]:
    game = mega_game()
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(3000))


@cache
def seven_game(respins: int = 2) -> ComposedGame:
    return ComposedGame(ComposedModel.from_dict(seven_raw(respins)))


@cache
def seven_corpus() -> tuple[RoundResult, ...]:
    game = seven_game()
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(3000))


@cache
def _corpus() -> tuple[RoundResult, ...]:
    game = find_game(GAME_ID)
    return tuple(game.play(BET, [parse_seed(i)]) for i in range(CORPUS))


@pytest.fixture(scope="session")
def game() -> ComposedGame:
    g = find_game(GAME_ID)
    assert isinstance(g, ComposedGame)
    return g


@pytest.fixture(scope="session")
def corpus() -> tuple[RoundResult, ...]:
    return _corpus()
