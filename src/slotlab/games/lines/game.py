"""The data-only line game: a model file in, a playable, simulatable, provable game out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from slotlab.games.contract import FamilyGame
from slotlab.games.lines import kernel
from slotlab.games.lines.exact import exact_report
from slotlab.games.lines.model import LineModel
from slotlab.mechanics.accumulators import new_accumulators
from slotlab.mechanics.lines import line_pays
from slotlab.rng import Seed, chacha_stream, randbelow
from slotlab.rounds import (
    Awaiting,
    Event,
    IllegalChoiceError,
    ReportCache,
    RoundResult,
    check_inputs,
)

GAMBLE_OPTIONS = ("collect", "red", "black")
CARDS = ("red", "black")


class LineGame(FamilyGame[LineModel]):
    """A line game defined by a model file alone (see docs/model-format.md). Its SD is not
    exact (lines overlap): the server takes it from simulation."""

    family = "lines"
    kind = "lines"

    def __init__(self, model: LineModel) -> None:
        super().__init__(model)
        self._packed = kernel.pack(model.arrays)
        self._exact: ReportCache[int] = ReportCache()

    model_type = LineModel

    # -- the Game protocol -------------------------------------------------------------------

    def max_win_x(self) -> int:
        return self.model.spec.max_win_x

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        """Play a round: the spin (and free spins) from ``seeds[0]``, then one gamble step per
        choice, each drawing its card from the seed that came with it.

        The event log only grows: the events of a round that waits are the first events of
        the same round once the choice is made.
        """
        check_inputs(self, bet, seeds, choices)
        level = bet // self.model.divisor
        events, win = self._spin_events(chacha_stream(seeds[0]), level)
        step = 0  # gamble steps taken
        cap = self.max_win_x() * bet
        awaiting = self._offer_gamble(events, win, step, cap)
        for choice, seed in zip(choices, seeds[1:], strict=True):
            if awaiting is None:
                raise IllegalChoiceError("the round is over: no choice is awaited")
            if choice not in GAMBLE_OPTIONS:
                raise IllegalChoiceError(f"choice {choice!r} is not one of {GAMBLE_OPTIONS}")
            if choice == "collect":
                events.append({"type": "gamble_collected", "win": win})
                awaiting = None
                continue
            card = CARDS[randbelow(chacha_stream(seed), 2)]
            won = card == choice
            events.append({"type": "gamble_resolved", "choice": choice, "card": card,
                           "won": won, "stake": win, "win": 2 * win if won else 0})
            win = 2 * win if won else 0
            step += 1
            awaiting = self._offer_gamble(events, win, step, cap)
        if awaiting is None:
            events.append({"type": "round_ended", "win": win})
        return RoundResult(self.id, self.model_hash, bet, tuple(events), win, awaiting)

    def _offer_gamble(self, events: list[Event], win: int, step: int, cap: int) -> Awaiting | None:
        """Offer the gamble if the model has one and the win may be staked again."""
        gamble = self.model.spec.gamble
        if gamble is None or not self._can_gamble(win, step, cap):
            return None
        info = {"stake": win, "step": step + 1, "max_steps": gamble.max_steps}
        events.append({"type": "gamble_offered", **info})
        return Awaiting("gamble", GAMBLE_OPTIONS, info)

    def _can_gamble(self, win: int, step: int, cap: int) -> bool:
        gamble = self.model.spec.gamble
        return (gamble is not None and win > 0 and step < gamble.max_steps
                and 2 * win <= cap)

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        """An abandoned gamble is collected: the platform never stakes a player's win."""
        return "collect"

    def describe(self) -> dict[str, Any]:
        spec = self.model.spec
        names = {s.id: (s.name or s.id) for s in spec.symbols}
        wild = spec.wild.symbol if spec.wild else None
        scatter = spec.scatter.symbol if spec.scatter else None
        paytable: list[dict[str, Any]] = [
            {"symbol": sym, "label": names[sym], "pays": {str(k): v for k, v in sorted(t.items())}}
            for sym, t in spec.pays.items()
        ]
        if spec.scatter is not None:
            paytable.append({"symbol": scatter, "label": names[spec.scatter.symbol],
                             "scatter": True,
                             "pays": {str(k): v for k, v in sorted(spec.scatter.pays.items())}})
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "model_hash": self.model_hash,
            "reels": spec.reels,
            "rows": spec.rows,
            "symbols": [{"id": s.id, "name": s.name or s.id, "wild": s.id == wild,
                         "scatter": s.id == scatter} for s in spec.symbols],
            "lines": spec.lines,
            "bets": self.bets(),
            "pay_divisor": spec.bet.divisor,
            "paytable": paytable,
            "wild": spec.wild.model_dump() if spec.wild else None,
            "free_spins": ({**spec.free_spins.model_dump(), "awards": {
                str(k): v for k, v in spec.free_spins.awards.items()}}
                if spec.free_spins else None),
            "gamble": spec.gamble.model_dump() if spec.gamble else None,
            "rules": self.rules(),
            "max_win_x": spec.max_win_x,
            "rtp": self.theoretical_rtp(),
        }

    def rules(self) -> list[str]:
        """The player-facing rules, generated from the model (plus the model's own lines)."""
        spec = self.model.spec
        names = {s.id: (s.name or s.id) for s in spec.symbols}  # players see names, never ids
        out = [
            f"{len(spec.lines)} fixed paylines on {spec.reels} reels x {spec.rows} rows.",
            "Line wins pay left to right on adjacent reels, starting with the leftmost reel.",
            "Only the highest win per line is paid; wins on different lines are added.",
        ]
        if spec.wild:
            w = spec.wild
            subs = "every symbol except the scatter" if w.substitutes == "all" else _and(
                [names[s] for s in w.substitutes])
            out.append(f"{names[w.symbol]} is wild and substitutes for {subs}.")
            if w.multiplier > 1:
                how = "once per line" if w.multiplier_mode == "line" else "for each wild"
                out.append(f"A win with a substituting wild is multiplied by {w.multiplier} {how}.")
            if w.symbol in spec.pays:
                out.append("A line of wilds pays on its own; a line pays the better of the wild "
                           "win and the substituted win.")
        if spec.scatter:
            out.append(f"{names[spec.scatter.symbol]} scatters pay anywhere in the window, "
                       "times the bet shown, added to line wins.")
        if spec.free_spins:
            fs = spec.free_spins
            awards = ", ".join(f"{k} scatters: {v}" for k, v in sorted(fs.awards.items()))
            out.append(f"Scatters award free spins ({awards}).")
            if fs.multiplier > 1:
                out.append(f"All free-spin wins are multiplied by {fs.multiplier}.")
            if fs.retrigger:
                cap = f", up to {fs.max_spins} free spins in all" if fs.max_spins else ""
                out.append(f"Free spins can be won again during free spins{cap}.")
        out.append(f"The most a round pays is {spec.max_win_x:,} times the total bet.")
        if spec.gamble:
            out.append(f"After a win you may collect or gamble it up to {spec.gamble.max_steps} "
                       "times: pick red or black; the right colour doubles the win, the wrong "
                       "one loses it.")
        out.append("Misuse or malfunction voids all pays and plays.")
        return out + list(spec.rules)

    def evaluate_window(self, window: list[list[str]]) -> tuple[int, int, int, list[Event]]:
        """Pay a given window (``window[reel][row]`` symbol ids) with the kernel's rules:
        ``(line units, scatter units, scatter count, line_won events in units)``.

        For tests and tools: it reaches any combination without searching for a seed.
        """
        a = self.model.arrays
        grid = np.array([[self.model.index[s] for s in reel] for reel in window], dtype=np.int64)
        wins = np.empty((len(a.lines), 5), dtype=np.int64)
        m = self._packed
        units, n = line_pays(grid, a.lines, a.paytab, m[6], a.wild, a.wild_mult,
                                    a.wild_each, m[10], m[11], wins)
        count = int(np.count_nonzero(grid == a.scatter)) if a.scatter >= 0 else 0
        events: list[Event] = []
        for li, units_i, sym, run, mult in wins[:n].tolist():
            events.append({"type": "line_won", "line": li + 1,
                           "symbol": self.model.symbol_ids[sym], "count": run,
                           "multiplier": mult, "win": units_i})
        return int(units), int(a.scatter_pays[count]), count, events

    # -- internals ---------------------------------------------------------------------------

    def _spin_events(self, stream: np.ndarray, level: int) -> tuple[list[Event], int]:
        """Run the kernel with tracing and decode its rows into events (credits)."""
        size = 256
        stops, window, wins = kernel.scratch(self._packed)
        while True:
            ev = np.zeros((size, kernel.EV_WIDTH), dtype=np.int64)
            saved = stream.copy()
            win, *_rest, n_ev = kernel.play_round(self._packed, stream, True, ev, stops, window,
                                                      wins)
            if n_ev <= size:
                break
            stream[:] = saved  # replay the same draws into a larger buffer
            size = n_ev
        return self._decode(ev[:n_ev], level), int(win) * level

    def _decode(self, rows: np.ndarray, level: int) -> list[Event]:
        spec = self.model.spec
        names = self.model.symbol_ids
        events: list[Event] = []
        window: list[list[str]] = []
        for row in rows.tolist():
            kind = row[0]
            if kind == kernel.EV_SPIN:
                stage, index, remaining, mult = row[1:5]
                stops = row[5 : 5 + spec.reels]
                window = self._window(spec.strips["base" if stage == 0 else self._free_set()],
                                      stops)
                if stage == 1:
                    events.append({"type": "free_spin_started", "index": index,
                                   "remaining": remaining, "multiplier": mult})
                events.append({"type": "reels_stopped", "stage": "base" if stage == 0 else "free",
                               "stops": stops, "window": window})
            elif kind == kernel.EV_LINE:
                li, sym, count, mult, units = row[1:6]
                line = spec.lines[li]
                events.append({"type": "line_won", "line": li + 1, "symbol": names[sym],
                               "count": count, "positions": [[r, line[r]] for r in range(count)],
                               "multiplier": mult, "win": units * level})
            elif kind == kernel.EV_SCATTER:
                sym, count, units = row[1:4]
                positions = [[r, k] for r, col in enumerate(window) for k, s in enumerate(col)
                             if s == names[sym]]
                events.append({"type": "scatter_won", "symbol": names[sym], "count": count,
                               "positions": positions, "win": units * level})
            elif kind == kernel.EV_TRIGGER:
                events.append({"type": "free_spins_triggered", "awarded": row[1],
                               "total_awarded": row[2]})
            elif kind == kernel.EV_CAP:
                events.append({"type": "win_capped", "cap": row[1] * level,
                               "uncapped": row[2] * level})
        return events

    def _free_set(self) -> str:
        fs = self.model.spec.free_spins
        return fs.strips if fs else "base"

    def _window(self, strips: list[list[str]], stops: list[int]) -> list[list[str]]:
        rows = self.model.spec.rows
        return [[strip[(stop + k) % len(strip)] for k in range(rows)]
                for strip, stop in zip(strips, stops, strict=True)]

    # -- math -------------------------------------------------------------------------------

    def exact(self, bet: int | None = None) -> dict[str, Any]:
        bet = self.bets()[0] if bet is None else bet
        return self._exact.get(bet, lambda: exact_report(self.model, bet))

    def component_names(self) -> list[str]:
        return ["base_lines", "base_scatter", "free_spins", "cap"]

    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        acc, sq = new_accumulators()
        kernel.simulate_rounds(self._packed, stream, spins, bet // self.model.divisor, bet, acc,
                               sq, *kernel.scratch(self._packed))
        return acc, sq

    def round_wins(self, bet: int, rounds: int, stream: np.ndarray) -> np.ndarray:
        acc, sq = new_accumulators()
        out = np.zeros(rounds, np.int64)
        kernel.round_wins(self._packed, stream, bet // self.model.divisor, bet, out, acc, sq,
                          *kernel.scratch(self._packed))
        return out


def _and(words: Sequence[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    if len(words) < 2:
        return "".join(words) or "no symbol"
    return f"{', '.join(words[:-1])} and {words[-1]}"
