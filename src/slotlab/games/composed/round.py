"""One round of a composed game from a random stream: the base spin, then the features its
window starts, each step written as an event.

The same :func:`play_round` serves live play and replay (``events`` is a list) and the
simulator (``events`` is None). Draws, in order: the base spin's reel stops, one coin-table
draw per coin in the window (cell order: reel by reel, top row first), the reel stops of each
respin an expanding reel awards (held reels draw nothing), the base hold and win, the wheels
their symbols spin (in the model's order), the wheel the scatters' award spins (or the free
spins it awards), each free spin the same way as the base spin. In hold and win, each respin
draws one landing per free cell in cell order, then one coin-table draw per coin landed, in
cell order.

Amounts are in pay units internally; events carry credits (units times ``level``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from slotlab.games.composed import kernel as composed_kernel
from slotlab.games.composed.model import ComposedModel
from slotlab.games.lines import kernel
from slotlab.mechanics.hold_and_win import next_counter
from slotlab.mechanics.lines import W_COUNT, W_LINE, W_MULT, W_SYMBOL, W_UNITS, sort_wins
from slotlab.mechanics.weighted import draw
from slotlab.mechanics.wheel import Segment
from slotlab.mechanics.whole_reel import is_full
from slotlab.rng import randbelow
from slotlab.rounds import Event

NOTHING, COIN, COLLECTOR = 0, 1, 2  # landing outcomes, in the landing table's order
COMPONENTS = ("base_lines", "base_scatter", "hold_and_win", "wheel_pays",
              "wheel_hold_and_win", "free_spins", "respins", "colour_wheel", "cap")
RANDOM, WAIT = -1, -2  # play_round's colour: drawn from the stream, or stop before the choice


@dataclass
class Tally:
    """A round's win by component, in pay units."""

    parts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COMPONENTS, 0))
    feature: bool = False
    # a colour wheel waiting for the player's colour: the multiplier of the segment that
    # started it
    pending: int | None = None

    @property
    def uncapped(self) -> int:
        return sum(v for k, v in self.parts.items() if k != "cap")


class Tables:
    """The model's arrays and cumulative weights, built once per game."""

    def __init__(self, model: ComposedModel) -> None:
        self.model = model
        self.packed = kernel.pack(model.lines.arrays)
        self.features = composed_kernel.pack_features(model)
        self.arrays = model.lines.arrays
        f = model.features
        self.f = f
        self.landing = f.landing.cumulative()
        self.coins = f.coins.cumulative()
        self.coin_values = f.coins.int_values()
        self.wheels = [w.table.cumulative() for w in f.wheels]
        # a segment's strip set: its name, the reels (padded) and their lengths
        self.strip_sets = {name: model.lines.reel_set(name) for name in f.strip_sets}
        self.colour_segments = f.colour_segments.cumulative()
        self.rows = model.spec.rows
        self.cells = model.cells()
        fs = model.spec.free_spins
        self.fs_mult = fs.multiplier if fs else 1
        self.fs_max = (fs.max_spins or 0) if fs else 0
        self.retrigger = bool(fs and fs.retrigger)
        self.free_name = fs.strips if fs else "base"
        hw = model.spec.hold_and_win
        self.full_grid_name = hw.full_grid if hw and hw.full_grid else ""


def _cell(t: Tables, cell: int) -> list[int]:
    return [cell // t.rows, cell % t.rows]


def _coin(t: Tables, i: int, level: int, cell: int, mult: int = 1) -> dict[str, Any]:
    return {"cell": _cell(t, cell), "value": int(t.coin_values[i]) * level * mult,
            "jackpot": t.f.coin_labels[i]}


class Spin(NamedTuple):
    """What one spin paid (pay units) and showed."""

    lines: int
    scatters: int  # every scatter's pay
    scatter_count: int  # the scatters that award free spins
    coins: dict[int, int]  # cell: coin-table index
    expanded: int  # reels
    filled: list[int]  # reels the whole-reel symbol fills
    wheel_hits: list[int]  # per wheel, the symbols in view that spin it


def _reels(t: Tables, stage: str, strips: str | None) -> tuple[np.ndarray, np.ndarray]:
    """A stage's reels: the base set, the free-spin set, or a segment's ``strips``."""
    a = t.arrays
    if stage == "base":
        return a.base, a.base_len
    return t.strip_sets[strips] if strips else (a.free, a.free_len)


def _spin(t: Tables, stream: np.ndarray, stage: str, mult: int, level: int,
          events: list[Event] | None, held: np.ndarray,
          respin: tuple[int, int] | None = None, reels: str | None = None) -> Spin:
    """Stop the reels (those in ``held`` stay wild), expand, pay the window and, unless it is
    respin ``respin = (number, of)``, draw the coins' values (a reel the whole-reel symbol
    fills is coins). ``reels``: the strip set of a segment's free spins."""
    a = t.arrays
    strips, lengths = _reels(t, stage, reels)
    stops, window, wins = kernel.scratch(t.packed)
    was_held = [r for r in range(a.reels) if held[r]]
    counts = np.zeros(len(t.model.symbol_ids), dtype=np.int64)
    lu, su, count, n_wins, expanded = composed_kernel.spin(
        t.packed, t.features, strips, lengths, stream, mult, held, stops, window, wins, counts)
    coins: dict[int, int] = {}
    filled: list[int] = []
    if t.f.coin >= 0 and respin is None:
        if t.f.whole_reel >= 0:
            filled = [r for r in range(a.reels) if is_full(window, r, t.f.whole_reel)]
        for cell in range(t.cells):
            if cell // t.rows in filled or window[cell // t.rows, cell % t.rows] == t.f.coin:
                coins[cell] = draw(stream, t.coins)
    if events is not None:
        ids = t.model.symbol_ids
        wild = ids[a.wild] if a.wild >= 0 else ""
        shown = [[wild] * t.rows if r in was_held else
                 [ids[s] for s in strips[r, stops[r]: stops[r] + t.rows]] for r in range(a.reels)]
        stopped: Event = {"type": "reels_stopped", "stage": stage, "stops": stops.tolist(),
                          "window": shown}
        if respin is not None:
            stopped.update({"respin": respin[0], "respins": respin[1], "held": was_held})
        events.append(stopped)
        if expanded:
            events.append({"type": "reels_expanded", "stage": stage,
                           "reels": [r for r in range(a.reels) if held[r] and r not in was_held],
                           "window": [[ids[s] for s in col] for col in window.tolist()],
                           "respins": 0 if respin else t.f.expanding_respins})
        sort_wins(wins, n_wins)
        for w in wins[:n_wins].tolist():
            line = t.model.spec.lines[w[W_LINE]]
            events.append({"type": "line_won", "line": w[W_LINE] + 1, "symbol": ids[w[W_SYMBOL]],
                           "count": w[W_COUNT],
                           "positions": [[r, line[r]] for r in range(w[W_COUNT])],
                           "multiplier": w[W_MULT] * mult, "win": w[W_UNITS] * mult * level})
        events.extend(_scatters_won(t, window, counts, count, mult, level))
        if filled:
            events.append({"type": "whole_reel_shown", "stage": stage, "reels": filled,
                           "symbol": ids[t.f.whole_reel]})
        if coins:
            events.append({"type": "coins_shown",
                           "coins": [_coin(t, i, level, c) for c, i in coins.items()]})
    # the kernel counts the window's symbols whenever a wheel has a symbol (F_COUNTED)
    hits = [int(counts[w.symbol]) if w.symbol >= 0 else 0 for w in t.f.wheels]
    return Spin(lu, su, count, coins, expanded, filled, hits)


def _scatters_won(t: Tables, window: np.ndarray, counts: np.ndarray, count: int, mult: int,
                  level: int) -> list[Event]:
    """A ``scatter_won`` event for each scatter that pays in ``window`` (``counts``: the
    kernel's count of each symbol; ``count``: how many of the line keys' scatter it shows), in
    the model's order."""
    paid = [(t.arrays.scatter, count, int(t.arrays.scatter_pays[count]))]
    for sym, pays in zip(t.f.scatter_symbols, t.f.scatter_pays, strict=True):
        n = int(counts[sym])
        paid.append((sym, n, pays[n]))
    return [{"type": "scatter_won", "symbol": t.model.symbol_ids[sym], "count": n,
             "positions": [[r, k] for r in range(t.arrays.reels) for k in range(t.rows)
                           if window[r, k] == sym],
             "win": pay * mult * level} for sym, n, pay in paid if pay > 0]


def respins(t: Tables, stream: np.ndarray, stage: str, mult: int, level: int,
            events: list[Event] | None, held: np.ndarray, reels: str | None = None) -> int:
    """The respins an expansion awards, with the reels in ``held`` held: their pays in pay
    units (a respin starts nothing)."""
    win = 0
    n = t.f.expanding_respins
    for number in range(1, n + 1):
        spin = _spin(t, stream, stage, mult, level, events, held, (number, n), reels)
        win += spin.lines + spin.scatters
    return win


def hold_and_win(t: Tables, stream: np.ndarray, start: dict[int, int], mult: int, level: int,
                 events: list[Event] | None) -> int:
    """Play the grid from the coins ``start`` (cell: coin-table index); returns its win in pay
    units (coins plus what collectors collect, times ``mult``)."""
    coins = dict(start)
    collectors: list[int] = []
    counter = t.f.respins
    if events is not None:
        events.append({"type": "hold_and_win_started", "cells": t.cells, "rows": t.rows,
                       "respins": counter, "multiplier": mult,
                       "coins": [_coin(t, i, level, c, mult) for c, i in sorted(coins.items())]})
    while counter > 0 and len(coins) + len(collectors) < t.cells:
        landed: list[tuple[int, int]] = []
        for cell in range(t.cells):
            if cell not in coins and cell not in collectors:
                outcome = draw(stream, t.landing)
                if outcome != NOTHING:
                    landed.append((cell, outcome))
        new_coins: list[dict[str, Any]] = []
        for cell, outcome in landed:
            if outcome == COIN:
                coins[cell] = draw(stream, t.coins)
                new_coins.append(_coin(t, coins[cell], level, cell, mult))
            else:
                collectors.append(cell)
        counter = next_counter(counter, len(landed), t.f.respins)
        if events is not None:
            events.append({"type": "respin_landed", "coins": new_coins,
                           "collectors": [_cell(t, c) for c, o in landed if o == COLLECTOR],
                           "respins": counter, "held": len(coins) + len(collectors)})
    total = sum(int(t.coin_values[i]) for i in coins.values())
    full = len(coins) + len(collectors) == t.cells
    full_grid = t.f.full_grid if full else 0
    win = (total * (1 + len(collectors)) + full_grid) * mult
    if events is not None:
        for c in sorted(collectors):
            events.append({"type": "collector_collected", "cell": _cell(t, c),
                           "win": total * mult * level})
        won = {t.f.coin_labels[i] or "" for i in coins.values()} - {""}
        if full_grid:
            won.add(t.full_grid_name)
        events.append({"type": "hold_and_win_ended", "coins": total * mult * level,
                       "collectors": len(collectors), "full": full, "jackpots": sorted(won),
                       "full_grid": {"jackpot": t.full_grid_name,
                                     "win": full_grid * mult * level} if full_grid else None,
                       "win": win * level})
    return win


def free_spins(t: Tables, stream: np.ndarray, awarded: int, mult: int, level: int,
               events: list[Event] | None, again: int = 0, reels: str | None = None) -> int:
    """Play ``awarded`` free spins (and their retriggers up to the cap) at ``mult``; a
    retrigger awards ``again`` (0: the scatters' award). ``reels``: a segment's strip set
    (None: the model's free-spin reels)."""
    fs = t.model.spec.free_spins
    assert fs is not None
    total = min(awarded, t.fs_max) if t.fs_max else awarded
    win = 0
    played = 0
    if events is not None:
        events.append({"type": "free_spins_triggered", "awarded": total, "multiplier": mult,
                       "strips": reels or t.free_name})
    while played < total and played < kernel.MAX_FREE_SPINS:
        played += 1
        if events is not None:
            events.append({"type": "free_spin_started", "index": played,
                           "remaining": total - played, "multiplier": mult})
        held = np.zeros(t.arrays.reels, dtype=np.int64)
        lu, su, count, coins, expanded, filled, _hits = _spin(t, stream, "free", mult, level,
                                                              events, held, None, reels)
        win += lu + su
        if expanded:
            win += respins(t, stream, "free", mult, level, events, held, reels)
        if t.f.coin >= 0 and (len(coins) >= t.f.trigger or filled):
            win += hold_and_win(t, stream, coins, mult, level, events)
        more = int(t.arrays.fs_awards[count]) if t.retrigger else 0
        if more > 0 and again > 0:
            more = again
        if t.fs_max and total + more > t.fs_max:
            more = t.fs_max - total
        if more > 0:
            total += more
            if events is not None:
                events.append({"type": "free_spins_retriggered", "awarded": more,
                               "total_awarded": total})
    if events is not None:
        events.append({"type": "free_spins_ended", "played": played, "win": win * level})
    return win


def colour_wheel(t: Tables, stream: np.ndarray, colour: int, mult: int, level: int,
                 events: list[Event] | None) -> int:
    """The colour wheel for ``colour`` (an index of the model's colours); its win in pay units
    (the total times the total bet, times ``mult``)."""
    f = t.f
    total = 0
    while True:
        index = draw(stream, t.colour_segments)
        c, m = f.colour_segments.values[index]
        total += m
        again = c == colour and total <= f.colour_limit
        if events is not None:
            events.append({"type": "colour_wheel_spun", "segment": index, "colour": f.colours[c],
                           "multiplier": m, "total": total, "again": again})
        if not again:
            break
    win = total * t.model.divisor * mult
    if events is not None:
        events.append({"type": "colour_wheel_ended", "total": total, "multiplier": mult,
                       "win": win * level})
    return win


def spin_wheel(t: Tables, stream: np.ndarray, tally: Tally, wheel: int, coins: dict[int, int],
               awarded: int, level: int, events: list[Event] | None) -> int:
    """Spin wheel ``wheel`` (its index in the model's wheels): its pay and the feature its
    segment starts (free spins of ``awarded``, a hold and win from the base spin's ``coins``)
    into ``tally``. Returns the segment's multiplier when it starts the colour wheel, which the
    round plays last; else 0."""
    table = t.f.wheels[wheel].table
    index = draw(stream, t.wheels[wheel])
    seg: Segment = table.values[index]
    if events is not None:
        events.append({"type": "wheel_spun", "wheel": wheel, "segment": index,
                       "segments": len(table.values), "pay": seg.pay * level,
                       "feature": seg.feature, "multiplier": seg.multiplier})
    parts = tally.parts
    parts["wheel_pays"] += seg.pay
    if seg.feature == "free_spins":
        parts["free_spins"] += free_spins(t, stream, seg.spins or awarded,
                                          t.fs_mult * seg.multiplier, level, events, seg.spins,
                                          seg.strips)
    elif seg.feature == "hold_and_win":
        parts["wheel_hold_and_win"] += hold_and_win(t, stream, coins, seg.multiplier, level,
                                                    events)
    elif seg.feature == "colour_wheel":
        return seg.multiplier
    return 0


def cap_win(t: Tables, tally: Tally, level: int, events: list[Event] | None) -> None:
    """The max-win cap on the round's win (its ``cap`` part, <= 0)."""
    uncapped = tally.uncapped
    cap = t.arrays.cap_units
    if uncapped > cap:
        tally.parts["cap"] = cap - uncapped
        if events is not None:
            events.append({"type": "win_capped", "cap": cap * level,
                           "uncapped": uncapped * level})


def play_round(t: Tables, stream: np.ndarray, level: int, events: list[Event] | None,
               colour: int = RANDOM) -> Tally:
    """A whole round; the tally's parts add up to the capped win (``cap`` is <= 0).

    ``colour``: the colour wheel's colour is drawn from the stream (:data:`RANDOM`, the
    simulator's player) or the round stops before it (:data:`WAIT`: ``tally.pending``, nothing
    capped yet; the game plays it from the next seed once the player chose).
    """
    tally = Tally()
    parts = tally.parts
    held = np.zeros(t.arrays.reels, dtype=np.int64)
    lu, su, count, coins, expanded, filled, wheel_hits = _spin(t, stream, "base", 1, level,
                                                               events, held)
    parts["base_lines"], parts["base_scatter"] = lu, su
    if expanded:
        tally.feature = True
        parts["respins"] = respins(t, stream, "base", 1, level, events, held)
    if t.f.coin >= 0 and (len(coins) >= t.f.trigger or filled):
        tally.feature = True
        parts["hold_and_win"] = hold_and_win(t, stream, coins, 1, level, events)
    awarded = int(t.arrays.fs_awards[count])
    colour_mult = 0  # the colour wheels started: their segments' multipliers, added
    for w, wheel in enumerate(t.f.wheels):
        if wheel.symbol >= 0 and wheel_hits[w] >= wheel.count:
            tally.feature = True
            colour_mult += spin_wheel(t, stream, tally, w, coins, 0, level, events)
    if awarded > 0:
        tally.feature = True
        award = t.f.award_index
        if award < 0:
            # added: a wheel its symbol spun may have started free spins too
            parts["free_spins"] += free_spins(t, stream, awarded, t.fs_mult, level, events)
        else:
            colour_mult += spin_wheel(t, stream, tally, award, coins, awarded, level, events)
    if colour_mult:
        # last in the round: the player's colour, or the simulator's drawn at random
        if colour == WAIT:
            tally.pending = colour_mult
            return tally
        if colour == RANDOM:
            colour = randbelow(stream, len(t.f.colours))
        parts["colour_wheel"] = colour_wheel(t, stream, colour, colour_mult, level, events)
    cap_win(t, tally, level, events)
    return tally
