"""Superstars as the platform sees it: the ``Game`` and ``Simulatable`` facade.

The rules are in :mod:`.kernel` (base game, trigger, cap) and :mod:`.bonus` (the Bonus Game);
this module validates input, runs the kernel on the round's ChaCha20 stream, names the event
rows and serves the figures of :mod:`.exact`. The round never waits for the player: the "Throw
Dice" and wheel "Spin" buttons only pace the show, so one seed decides the whole round.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from slotlab.games.contract import FamilyGame
from slotlab.mechanics.accumulators import new_accumulators
from slotlab.rng import Seed, chacha_stream
from slotlab.rounds import (
    Event,
    IllegalChoiceError,
    ReportCache,
    RoundResult,
    check_bet,
    check_inputs,
)

from . import bonus as _bonus
from . import kernel as k
from .model import N_REELS, N_ROWS, Model, load_model

COMPONENTS = ["lines", "bonus_reels", "bonus_final_game", "cap_removed"]  # kernel C_*
# The rule text's cash cap of a round, whole units per currency (COP 350,000,000).
CASH_CAPS = {"COP": 350_000_000}
FORCED_SEED = b"\0" * 32  # the Bonus Game's stream of a forced outcome when none is given


class Superstars(FamilyGame[Model]):
    """The game: ``play`` for live rounds and replay, ``play_stops`` for forced outcomes."""

    family = "superstars"
    kind = "superstars"

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        self._m = k.pack(model)
        self._bp = _bonus.pack_bonus(model.bonus_spec)
        self._ev_rows = 256
        self._exact: ReportCache[tuple[int, int, int]] = ReportCache()

    @classmethod
    def read_model(cls, source: Path | dict[str, Any]) -> Model:
        return load_model(source)

    # -- bets -------------------------------------------------------------------------------

    def pay_unit(self, bet: int) -> int:
        """Credits per pay unit of a total bet; raises :class:`IllegalBetError` for others."""
        check_bet(self, bet)
        return self.model.pay_unit(bet)

    # -- rounds -----------------------------------------------------------------------------

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        """Play a round from its one seed (the game never waits for a choice)."""
        check_inputs(self, bet, seeds, choices)
        if choices:
            raise IllegalChoiceError("Superstars takes no player choices: Throw Dice and Spin "
                                     "only pace the Bonus Game's show")
        return self._run(bet, None, seeds[0])

    def play_stops(self, bet: int, stops: Sequence[int] | np.ndarray,
                   seed: Seed = FORCED_SEED) -> RoundResult:
        """The round that top-row reel ``stops`` produce (forced outcomes, tests); a Bonus Game
        it triggers draws from the ChaCha20 stream of ``seed``."""
        self.pay_unit(bet)
        try:
            arr = np.array([operator.index(s) for s in stops], np.int64)
        except TypeError as exc:
            raise ValueError(f"stops must be integers, got {list(stops)}") from exc
        m = self.model
        if arr.shape != (N_REELS,) or any(not 0 <= arr[r] < m.lengths[r] for r in range(N_REELS)):
            raise ValueError(f"stops must be {N_REELS} ints in range(strip length) "
                             f"{m.lengths.tolist()}, got {list(stops)}")
        return self._run(bet, arr, seed)

    def _run(self, bet: int, stops: np.ndarray | None, seed: Seed) -> RoundResult:
        while True:
            stream = chacha_stream(seed)
            ev = np.zeros((self._ev_rows, k.EV_WIDTH), np.int64)
            st, window, wins, cells = k.scratch()
            if stops is None:
                out = k.play_round(self._m, self._bp, stream, True, ev, st, window, wins, cells)
            else:
                st[:] = stops
                out = k.play_stops(self._m, self._bp, stream, True, ev, st, window, wins, cells)
            n_ev = int(out[-1])
            if n_ev <= ev.shape[0]:
                break
            self._ev_rows = max(2 * self._ev_rows, n_ev)  # a long Bonus Game: run it again
        win_units = int(out[0])
        events = self._events(bet, ev[:n_ev])
        unit = self.model.pay_unit(bet)
        win = win_units * unit
        events.append({"type": "round_ended", "win": win})
        return RoundResult(game_id=self.id, model_hash=self.model_hash, bet=bet,
                           events=tuple(events), win=win)

    def _events(self, bet: int, rows: np.ndarray) -> list[Event]:
        m = self.model
        unit = m.pay_unit(bet)
        n = rows.shape[0]
        # The Bonus Game's rows: from the row after EV_BONUS_START to the EV_BONUS_END row,
        # which is the last of the kernel's rows but a cap and names its own index.
        first = end = n
        for j in range(n - 1, -1, -1):
            if rows[j, 0] == k.EV_BONUS_END and rows[j, 2] == j:
                first, end = int(rows[j, 1]), j
                break
        out: list[Event] = []
        for i in [*range(first), *range(end, n)]:
            row = [int(x) for x in rows[i]]
            kind = row[0]
            if kind == k.EV_SPIN:
                stops = row[1 : 1 + N_REELS]
                out.append({"type": "reels_stopped", "stage": "base", "stops": stops,
                            "window": m.window(stops)})
            elif kind == k.EV_LINE:
                li, sym, count, units = row[1:5]
                out.append({
                    "type": "line_won", "line": li + 1, "symbol": m.symbol_ids[sym],
                    "count": count,
                    "positions": [[r, int(m.lines[li, r])] for r in range(count)],
                    "win": units * unit, "x_bet": _x(units, m.divisor),
                })
            elif kind == k.EV_TRIGGER:
                count, dice_cell = row[1], row[2]
                window = out[0]["window"]
                scat = [[r, w] for r in range(N_REELS) for w in range(N_ROWS)
                        if window[r][w] == m.spec.scatter]
                out.append({
                    "type": "bonus_triggered", "scatters": count, "positions": scat,
                    "dice": None if dice_cell < 0 else [dice_cell // N_ROWS, dice_cell % N_ROWS],
                })
            elif kind == k.EV_BONUS_START:
                out.extend(_bonus.bonus_events(rows[first:end].tolist(), m.bonus_spec))
            elif kind == k.EV_BONUS_END:
                win_x, flags = row[3], row[4]
                out.append({"type": "bonus_paid", "win": win_x * bet, "x_bet": win_x,
                            "final_game": bool(flags & k.FLAG_FINAL_GAME),
                            "returns_to": "base_game"})
            elif kind == k.EV_CAP:
                cap, uncapped = row[1], row[2]
                out.append({"type": "win_capped", "cap": cap * unit, "uncapped": uncapped * unit,
                            "max_win_x": m.spec.max_win_x})
        return out

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        raise IllegalChoiceError("Superstars never waits for a choice")

    # -- math -------------------------------------------------------------------------------

    def exact(self, bet: int | None = None, bonuses: int = 1_000_000,
              seed: int = 0) -> dict[str, Any]:
        """The RTP report: the base game exactly, the Bonus Game by direct simulation of
        ``bonuses`` Bonus Games from each trigger class (see :mod:`.exact`). Cached."""
        from .exact import rtp_report

        bet = self.bets()[0] if bet is None else bet
        self.pay_unit(bet)
        return self._exact.get((bet, bonuses, seed),
                               lambda: rtp_report(self, bonuses=bonuses, seed=seed))

    composed = exact  # the Bonus Game's part of the RTP is simulated

    def precise_rtp(self, precision: float = 1e-4, seed: int = 0,
                    workers: int = 2) -> dict[str, Any]:
        """The composed RTP simulated until its 99 % half-width is at most ``precision``, with
        variance reduction (see :mod:`.precise`); ``slotlab rtp superstars --precision``."""
        from .precise import precise_rtp

        return precise_rtp(self, precision=precision, seed=seed, workers=workers)

    def tuner(self, bonuses: int, seed: int) -> Callable[[dict[str, Any]], float]:
        """For ``slotlab tune``: the composed RTP of a model dict of this game."""
        from .tune import superstars_evaluator

        return superstars_evaluator(bonuses, seed)

    def top_prize(self, bonuses: int = 200_000, seed: int = 0) -> dict[str, Any]:
        """The rule text's "probability of winning the top prize": P(the Final board's top
        square is won) per Bonus Game, simulated with its 99 % interval (:mod:`.top_prize`)."""
        from .top_prize import top_prize_rates

        return top_prize_rates(self, bonuses=bonuses, seed=seed)

    def theoretical_rtp(self) -> float:
        """The variant's declared RTP (the model's ``rtp_target``), proven by the composed
        estimate's 99 % interval (tests, and the recorded proofs in RULES.md)."""
        return float(Fraction(self.model.spec.rtp_target.rstrip("%")) / 100)

    def max_win_x(self) -> int:
        return int(self.model.spec.max_win_x)

    def cash_caps(self) -> dict[str, int]:
        """The rule text's "COP 350,000,000 or 10,000 times the stake, whichever comes first":
        the cash part, in whole units per currency (an operator's lower cap applies on top)."""
        return dict(CASH_CAPS)

    # -- simulation -------------------------------------------------------------------------

    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        level = self.pay_unit(bet)
        acc, sq = new_accumulators()
        st, window, wins, cells = k.scratch()
        k.simulate_rounds(self._m, self._bp, stream, spins, level, bet, acc, sq, st, window,
                          wins, cells)
        return acc, sq

    def round_wins(self, bet: int, rounds: int, stream: np.ndarray) -> np.ndarray:
        acc, sq = new_accumulators()
        out = np.zeros(rounds, np.int64)
        k.round_wins(self._m, self._bp, stream, self.pay_unit(bet), bet, out, acc, sq,
                     *k.scratch())
        return out

    def component_names(self) -> list[str]:
        return list(COMPONENTS)

    # -- PAYS / HELP ------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        m = self.model
        spec = m.spec
        symbols = [
            {"id": sid, "name": name, "wild": sid == spec.wild,
             "scatter": sid in (spec.scatter, spec.dice), "dice": sid == spec.dice}
            for sid, name in spec.symbols.items()
        ]
        paytable = [
            {"symbol": s, "pays": {str(c): p for c, p in sorted(t.items())},
             "x_bet": {str(c): _x(p, m.divisor) for c, p in sorted(t.items())}}
            for s, t in spec.line_pays.items()
        ]
        bonus = spec.bonus
        bonus_json = bonus.model_dump(mode="json") if hasattr(bonus, "model_dump") else bonus
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "model_version": m.version,
            "model_hash": self.model_hash,
            "reels": N_REELS,
            "rows": N_ROWS,
            "symbols": symbols,
            "lines": [list(x) for x in spec.lines],
            "bets": self.bets(),
            "bet_money": list(spec.bet.ladder_money),
            "credit_value": spec.bet.credit_value,
            "pay_divisor": m.divisor,
            "paytable": paytable,
            "wild_only_line_pays_as": spec.wild_only_line_pays_as,
            "board": list(bonus_json["board"]),
            "final_board": list(bonus_json["final_board"]),
            "bonus": bonus_json,
            "rules": rules_text(m),
            "rtp": self.theoretical_rtp(),
            "rtp_target": spec.rtp_target,
            "max_win_x": self.max_win_x(),
            "stops_are": "top-row strip index per reel",
        }


def _x(units: int, divisor: int) -> str:
    """A pay in pay units as a multiple of the bet, exactly (``"0.25"``)."""
    f = Fraction(units, divisor)
    return str(f.numerator) if f.denominator == 1 else f"{float(f):g}"


def rules_text(m: Model) -> list[str]:
    """The help page's rules, from the model's own figures."""
    spec = m.spec
    sb = spec.symbols[spec.wild_only_line_pays_as]
    return [
        f"Superstars is a {N_REELS} reel, {N_ROWS} row video slot with {m.n_lines} fixed "
        "betting lines; BET is the total stake and every pay is a multiple of it.",
        "Winnings on betting lines are paid for symbols in succession from the far left reel. "
        "Only the highest win per line is paid; wins on different lines are added.",
        "Wild substitutes for all symbols except the Scatter and the Dice; a line of Wilds "
        f"pays as {sb}, the highest possible winning combination.",
        f"{spec.trigger_count} or more Scatters anywhere in view start the Bonus Game; a Dice, "
        f"which only appears on reel {spec.dice_reel} (at most one per spin), counts as a "
        "Scatter and adds 1 die to the dice counter.",
        "The Bonus Game is played with the bet of the round that triggered it; its total is "
        "added to that round's win, and the game then returns to that round.",
        f"The maximum win per round is {spec.max_win_x:,} times the stake or "
        + " or ".join(f"{code} {amount:,}" for code, amount in CASH_CAPS.items())
        + ", whichever comes first; the operator's currency cap, where lower, applies on top.",
    ]  # the return to player and the pace buttons are told beside the rules (client)
