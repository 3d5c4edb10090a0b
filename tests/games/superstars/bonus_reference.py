"""An independent pure-Python Superstars Bonus Game, and a builder of scripted draws for tests.

:func:`reference_bonus` plays the Bonus Game from the rule text with plain Python containers (a
dict of prizes, a set of free positions), drawing through a ``below(n)`` callable in the draw
order documented in :mod:`slotlab.games.superstars.bonus`. Fed the same draws as the compiled
kernel it must give the same total, the same prizes on the reels, the same features and the
same number of draws.

:class:`Script` writes the 32-bit words of a scripted stream (``bonus.scripted_stream``) draw
by draw, so a test states its outcomes ("roll a 6", "the wheel stops on Replay").
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import slotlab.games.superstars as superstars
from slotlab.games.superstars.bonus import (
    bonus_events,
    forcing_word,
    scripted_stream,
    scripted_used,
    trace_bonus,
)
from slotlab.games.superstars.bonus_spec import BonusSpec
from slotlab.mechanics.weighted import WeightedTable

Below = Callable[[int], int]
DICE = -1  # a Dice landing, in Script.spin


def words_below(words: list[int]) -> tuple[Below, Callable[[], int]]:
    """A ``below(n)`` over 32-bit words (as a scripted stream maps them) and a draw counter."""
    pos = [0]

    def below(n: int) -> int:
        w = words[pos[0]]
        pos[0] += 1
        return (w * n) >> 32

    return below, lambda: pos[0]


def _pick(below: Below, table: WeightedTable[Any]) -> Any:
    r = below(table.total)
    for v, w in zip(table.values, table.weights, strict=True):
        if r < w:
            return v
        r -= w
    raise AssertionError("unreachable")


def _distinct(below: Below, items: list[int], k: int) -> list[int]:
    """k distinct items: the partial Fisher-Yates shuffle the kernel documents."""
    items = list(items)
    for i in range(k):
        j = i + below(len(items) - i)
        items[i], items[j] = items[j], items[i]
    return items[:k]


@dataclass
class Outcome:
    total: int
    reels: dict[int, int]
    final_total: int
    final_game: bool
    features: list[str] = field(default_factory=list)  # in the order they ran
    final_dice: int = 0


def reference_bonus(spec: BonusSpec, below: Below, trigger: list[int], dice_cell: int) -> Outcome:
    """The Bonus Game from the trigger positions (``dice_cell`` -1: no Dice)."""
    prizes: dict[int, int] = {}
    for c in sorted(set(trigger) | ({dice_cell} if dice_cell >= 0 else set())):
        prizes[c] = _pick(below, spec.prize_table())
    cell = spec.cell_table()
    wheel = WeightedTable.of(spec.wheel)
    state = {"dice": 1 if dice_cell >= 0 else 0, "spins": spec.initial_spins,
             "max": spec.initial_spins, "hearts": 0, "pos": 0, "extra": False,
             "replay": False, "upgrade": 0}
    out = Outcome(0, prizes, 0, False)

    def full() -> bool:
        return len(prizes) == 25

    def character(name: str) -> None:
        out.features.append(name)
        if name == "STARBURST":
            v = _pick(below, WeightedTable.of(spec.starburst.values_x_bet))
            spots = [(col, top) for col in range(5) for top in range(3)
                     if any(col * 5 + top + i in prizes for i in range(3))]
            col, top = spots[below(len(spots))]
            for i in range(3):
                c = col * 5 + top + i
                prizes[c] = prizes[c] * v if c in prizes else v
        elif name == "GONZO":
            lo, hi = spec.gonzo.count
            k = min(lo + below(hi - lo + 1), len(prizes))
            cand = sorted(prizes)
            mults = WeightedTable.of(spec.gonzo.multipliers)
            for i in range(k):  # position then multiplier, prize by prize
                j = i + below(len(cand) - i)
                cand[i], cand[j] = cand[j], cand[i]
                prizes[cand[i]] *= _pick(below, mults)
        elif name == "MISSBANKS":
            lo, hi = spec.missbanks.count
            k = lo + below(hi - lo + 1)
            cand = list(range(25))
            vlo, vhi = spec.missbanks.values_x_bet
            for i in range(k):
                j = i + below(25 - i)
                cand[i], cand[j] = cand[j], cand[i]
                prizes[cand[i]] = prizes.get(cand[i], 0) + vlo + below(vhi - vlo + 1)
        elif name == "FINN":
            lo, hi = spec.finn.count
            k = min(lo + below(hi - lo + 1), len(prizes))
            chosen = _distinct(below, sorted(prizes), k)
            total = sum(prizes[c] + spec.finn.add_x_bet for c in chosen)
            dest = chosen[below(k)]
            for c in chosen:
                del prizes[c]
            prizes[dest] = total
        elif name == "SPACEWARS":
            values = sorted(set(prizes.values()), reverse=True)[: spec.spacewars.top_values]
            p = spec.spacewars.land
            num, den = (int(x) for x in p.split("/")) if "/" in p else (int(p), 1)
            for _ in range(spec.spacewars.respins):
                for c in [c for c in range(25) if c not in prizes]:
                    if below(den) < num:
                        prizes[c] = values[below(len(values))]
                if full():
                    return
        else:
            raise AssertionError(name)

    def play_character(name: str) -> None:
        runs = 2 if state["replay"] else 1
        state["replay"] = False
        for _ in range(runs):
            character(name)
            if full():
                return

    def roll() -> None:
        while state["dice"] and not full():
            state["dice"] -= 1
            step = 1 + below(6)
            if state["pos"] + step >= 24:
                state["hearts"] += 1
            state["pos"] = (state["pos"] + step) % 24
            square = spec.board[state["pos"]]
            if square == "-":
                if state["upgrade"]:
                    times = 2 if state["replay"] else 1
                    state["replay"] = False
                    for c in prizes:
                        prizes[c] += state["upgrade"] * times
                    out.features.append("UPGRADED_SQUARE")
            elif square == "EXTRASPINS":
                out.features.append(square)
                if not state["extra"]:
                    state["extra"] = True
                    state["max"] = state["spins"] = spec.extra_spins_max
            elif square == "WHEEL":
                out.features.append(square)
                seg = _pick(below, wheel)
                out.features.append(seg)
                if seg == "DICE1":
                    state["dice"] += 1
                elif seg == "DICE2":
                    state["dice"] += 2
                elif seg == "RANDOM":
                    name = _pick(below, WeightedTable.of([(c, 1) for c in spec.random_features]))
                    play_character(name)
                elif seg == "REPLAY":
                    state["replay"] = True
                elif seg == "PLUS1":
                    for c in prizes:
                        prizes[c] += spec.plus_x_bet
                elif seg == "UPGRADE":
                    state["upgrade"] += spec.upgrade_step_x_bet
            elif square != "START":
                play_character(square)

    while True:
        roll()
        if full():
            break
        if state["spins"] == 0:
            if not state["hearts"]:
                break
            state["hearts"] -= 1
            state["spins"] = state["max"]
        state["spins"] -= 1
        landed = False
        for c in [c for c in range(25) if c not in prizes]:
            o = _pick(below, cell)
            if o == DICE:
                state["dice"] += 1
            elif o > 0:
                prizes[c] = o
                landed = True
        if landed:
            state["spins"] = state["max"]
        if full():
            break
    if full():
        out.final_game = True
        n = state["dice"] + state["max"] + state["hearts"] * state["max"]
        n = n * 2 if state["replay"] else n
        n += 1  # the bottom-left die
        out.final_dice = n
        pos = 0
        while n:
            n -= 1
            pos = (pos + 1 + below(6)) % 24
            v = spec.final_board[pos]
            if v == "DICE":
                n += 1
            else:
                out.final_total += int(v)
    out.total = sum(prizes.values()) + out.final_total
    return out


class Script:
    """The words of a scripted stream, draw by draw, tracking which positions hold a prize."""

    def __init__(self, spec: BonusSpec) -> None:
        self.spec = spec
        self.words: list[int] = []
        self.held: set[int] = set()

    def below(self, v: int, n: int) -> Script:
        self.words.append(forcing_word(v, n))
        return self

    def pick(self, table: WeightedTable[Any], value: Any) -> Script:
        i = table.values.index(value)
        return self.below(sum(table.weights[:i]), table.total)

    def prizes(self, cells: dict[int, int]) -> Script:
        """The trigger prizes, in cell order."""
        for c in sorted(cells):
            self.pick(self.spec.prize_table(), cells[c])
            self.held.add(c)
        return self

    def spin(self, land: dict[int, int] | None = None) -> Script:
        """One Bonus spin: ``land`` maps empty positions to a prize or :data:`DICE`."""
        land = land or {}
        for c in range(25):
            if c not in self.held:
                self.pick(self.spec.cell_table(), land.get(c, 0))
                if land.get(c, 0) > 0:
                    self.held.add(c)
        return self

    def roll(self, *steps: int) -> Script:
        for s in steps:
            self.below(s - 1, 6)
        return self

    def wheel(self, segment: str) -> Script:
        return self.pick(WeightedTable.of(self.spec.wheel), segment)

    def random(self, character: str) -> Script:
        return self.pick(WeightedTable.of([(c, 1) for c in self.spec.random_features]), character)


MODEL = Path(superstars.__file__).parent / "models" / "superstars.json"


def model_spec() -> BonusSpec:
    """The shipped 94.06% model's ``bonus`` section."""
    return BonusSpec.model_validate(json.loads(MODEL.read_text())["bonus"])


@dataclass
class Played:
    win: int
    flags: int
    rows: list[list[int]]
    events: list[dict[str, Any]]
    used: int  # scripted words consumed

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]


def play_script(spec: BonusSpec, bp: tuple[np.ndarray, ...], words: list[int],
                trigger: list[int], dice_cell: int = -1) -> Played:
    """Play one traced Bonus Game on scripted words; every word must be used."""
    cells = np.zeros(25, np.int64)
    cells[trigger] = 1
    stream = scripted_stream(words)
    win, flags, rows = trace_bonus(bp, stream, cells, dice_cell)
    used = scripted_used(stream)
    assert used == len(words), f"the Bonus Game used {used} of the {len(words)} scripted draws"
    return Played(win, flags, rows, bonus_events(rows, spec), used)
