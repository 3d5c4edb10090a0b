"""Crystal Star Deluxe as the platform sees it: the ``Game`` and ``Simulatable`` facade.

The rules are in :mod:`.kernel`; this module validates input, draws the stops from the round's
ChaCha20 stream, names the kernel's event rows and serves the exact figures of :mod:`.exact`.
Bets are in credits (9 lines x 1 to 5 credits); the operator sets the credit's money value.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
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

from . import kernel as k
from .exact import exact_report, fraction_text
from .model import TIERS, Model, load_model

_FLAT_REASONS = {
    k.FLAT_BELOW_MAX_BET: "three_stars_below_max_bet",
    k.FLAT_TOP_ALREADY_WON: "top_progressive_already_won",
    k.FLAT_BOTTOM_ALREADY_WON: "bottom_progressive_already_won",
}
COMPONENTS = ["lines", "progressives", "flat_prizes"]


class CrystalStarDeluxe(FamilyGame[Model]):
    """The game: ``play`` for live rounds and replay, ``play_stops`` for forced outcomes."""

    family = "crystal_star_deluxe"
    kind = "lines-3x3-nudge"

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        self._exact: ReportCache[int] = ReportCache()
        self._ev_rows = 3 * (1 + model.n_lines)
        self._contribution_texts: dict[int, dict[str, str]] = {}

    @classmethod
    def read_model(cls, source: Path | dict[str, Any]) -> Model:
        return load_model(source)

    # -- bets -------------------------------------------------------------------------------

    def max_bet(self) -> int:
        return self.model.bets()[-1]

    def line_bet(self, bet: int) -> int:
        """Credits per line of a total bet; raises :class:`IllegalBetError` for other bets."""
        check_bet(self, bet)
        return bet // self.model.n_lines

    # -- rounds -----------------------------------------------------------------------------

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        """Play a round from its one seed (the game never waits for a choice)."""
        check_inputs(self, bet, seeds, choices)
        if choices:
            raise IllegalChoiceError("Crystal Star Deluxe takes no player choices")
        stream = chacha_stream(seeds[0])
        stops = np.empty(3, np.int64)
        k.draw_stops(stream, self.model.lengths, stops)
        return self._round(bet, stops)  # drawn in range: no need to check them again

    def play_stops(self, bet: int, stops: Sequence[int] | np.ndarray) -> RoundResult:
        """The round that top-row reel ``stops`` produce (forced outcomes, tests, PAR checks)."""
        check_bet(self, bet)
        m = self.model
        try:
            arr = np.array([operator.index(s) for s in stops], np.int64)
        except TypeError as exc:
            raise ValueError(f"stops must be integers, got {list(stops)}") from exc
        if arr.shape != (3,) or any(not 0 <= arr[r] < m.lengths[r] for r in range(3)):
            raise ValueError(f"stops must be 3 ints in range(strip length), got {list(stops)}")
        return self._round(bet, arr)

    def _round(self, bet: int, arr: np.ndarray) -> RoundResult:
        """The round on checked stops; its callers have checked the bet too."""
        m = self.model
        line_bet = bet // m.n_lines
        tot = np.zeros(k.T_SIZE, np.int64)
        ev = np.zeros((self._ev_rows, k.EV_COLS), np.int64)
        n = k.play_stops(
            arr, line_bet, line_bet == m.max_line_bet, m.strips, m.lengths, m.nonblank,
            m.line_table, m.base, m.mult, m.arrow, m.lines, m.combo_mask, m.combo_pay, m.params,
            tot, True, ev, np.zeros(k.W_SIZE, np.int64),
        )
        events: list[Event] = []
        if line_bet == m.max_line_bet:
            events.append({"type": "progressive_contributed",
                           "contributions": dict(self._contributions(bet))})
        jackpots: list[str] = []
        for row in ev[:n].tolist():
            events.append(self._event(row, jackpots))
        win = int(tot[k.T_LINES] + tot[k.T_FLAT])
        events.append({"type": "round_ended", "win": win})
        return RoundResult(
            game_id=self.id, model_hash=self.model_hash, bet=bet, events=tuple(events), win=win,
            jackpots=tuple(jackpots),
        )

    def _contributions(self, bet: int) -> dict[str, str]:
        """Each pool's share of a bet, as exact text (one per bet on the ladder, kept)."""
        texts = self._contribution_texts.get(bet)
        if texts is None:
            texts = {t: fraction_text(p.rate * bet) for t, p in self.model.progressives.items()}
            self._contribution_texts[bet] = texts
        return texts

    def _event(self, row: list[int], jackpots: list[str]) -> Event:
        kind, stage = row[0], row[1]
        m = self.model
        if kind == k.EV_STAGE:
            stops = row[2:5]
            if stage == 0:
                return {"type": "reels_stopped", "stage": "base", "stops": stops,
                        "window": m.window(stops)}
            return {"type": "reels_nudged", "step": stage, "stops": stops,
                    "window": m.window(stops)}
        line = row[2]
        if kind == k.EV_LINE:
            combo = m.combo_ids[row[3]]
            return {
                "type": "line_won", "stage": stage, "line": line + 1, "symbol": combo,
                "label": m.spec.combo_legend[combo], "count": 3,
                "positions": [[r, int(m.lines[line, r])] for r in range(3)],
                "multiplier": row[4], "win": row[5],
            }
        if kind == k.EV_PROGRESSIVE:
            tier = TIERS[row[3]]
            jackpots.append(tier)
            return {"type": "progressive_won", "stage": stage, "tier": tier, "line": line + 1}
        return {"type": "flat_prize_won", "stage": stage, "line": line + 1, "win": row[3],
                "reason": _FLAT_REASONS[row[4]]}

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        raise IllegalChoiceError("Crystal Star Deluxe never waits for a choice")

    # -- math -------------------------------------------------------------------------------

    def exact(self, bet: int | None = None) -> dict[str, Any]:
        """Exact full-cycle figures at ``bet`` (default: max bet); see :mod:`.exact`.

        Computed once per bet and cached; each call returns a copy the caller may change.
        """
        bet = self.max_bet() if bet is None else bet
        self.line_bet(bet)
        return self._exact.get(bet, lambda: exact_report(self.model, bet))

    def theoretical_rtp(self) -> float:
        """RTP with the progressives at reset: the same at every bet (see RULES.md)."""
        return float(self.exact()["rtp"])

    def sd(self) -> float:
        return float(self.exact()["sd"])

    def max_win_x(self) -> int:
        """The max win in whole multiples of the total bet, rounded up (exactly 1088.9 in v1;
        ``exact()["max_win_x"]`` has the exact figure), progressives valued at reset."""
        return math.ceil(Fraction(self.exact()["max_win"], self.max_bet()))

    def progressives(self) -> list[dict[str, Any]]:
        top_line = self.model.top_line
        lines = {"top": [top_line], "bottom": [i for i in range(1, self.model.n_lines + 1)
                                              if i != top_line]}
        names = self._pool_names()
        return [
            {"tier": p.tier, "name": names[p.tier], "reset": p.reset,
             "rate": fraction_text(p.rate), "lines": lines[p.tier], "max_bet": self.max_bet()}
            for p in self.model.progressives.values()
        ]

    def _pool_names(self) -> dict[str, str]:
        return {p.tier: p.display_name for p in self.model.spec.progressives}

    # -- simulation -------------------------------------------------------------------------

    def simulate_chunk(
        self, bet: int, spins: int, stream: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``spins`` rounds from ``stream``; progressives valued at reset (see kernel)."""
        line_bet = self.line_bet(bet)
        m = self.model
        acc, sq = new_accumulators()
        k.simulate_plays(
            stream, spins, line_bet, line_bet == m.max_line_bet, bet, m.strips, m.lengths,
            m.nonblank, m.line_table, m.base, m.mult, m.arrow, m.lines, m.combo_mask,
            m.combo_pay, m.params, acc, sq, np.zeros(3, np.int64), np.zeros(k.T_SIZE, np.int64),
            np.zeros((1, k.EV_COLS), np.int64), np.zeros(k.W_SIZE, np.int64),
        )
        return acc, sq

    def round_wins(self, bet: int, rounds: int, stream: np.ndarray) -> np.ndarray:
        line_bet = self.line_bet(bet)
        m = self.model
        acc, sq = new_accumulators()
        out = np.zeros(rounds, np.int64)
        k.round_wins(
            stream, line_bet, line_bet == m.max_line_bet, bet, m.strips, m.lengths, m.nonblank,
            m.line_table, m.base, m.mult, m.arrow, m.lines, m.combo_mask, m.combo_pay,
            m.params, out, acc, sq, np.zeros(3, np.int64), np.zeros(k.T_SIZE, np.int64),
            np.zeros((1, k.EV_COLS), np.int64), np.zeros(k.W_SIZE, np.int64),
        )
        return out

    def component_names(self) -> list[str]:
        return list(COMPONENTS)

    # -- PAYS / HELP ------------------------------------------------------------------------

    def _multiplier_text(self) -> str:
        """Which multipliers the strips carry, as the rule text words it."""
        spec = self.model.spec
        on: dict[int, list[str]] = {}
        for s in {s for strip in spec.reel_strips for s in strip}:
            sym = spec.symbols[s]
            if sym.multiplier > 1:
                base = spec.symbols[sym.base].name if sym.base in spec.symbols else sym.base
                on.setdefault(sym.multiplier, []).append(base)
        parts = [f"{x}X multipliers are available on {', '.join(sorted(on[x]))} symbols"
                 for x in sorted(on)]
        return ". ".join(parts) + "."

    def describe(self) -> dict[str, Any]:
        m = self.model
        spec = m.spec
        ts = spec.three_stars
        symbols = [
            {"id": sid, "name": s.name, "wild": s.base == "STAR", "scatter": False,
             "base": s.base, "multiplier": s.multiplier, "arrow": s.arrow}
            for sid, s in spec.symbols.items()
        ]
        paytable = [
            {"combination": cid, "label": spec.combo_legend[cid],
             "symbols": list(spec.combo_symbols[cid]),
             "pays": {"3": spec.line_pays_x_line_bet[cid]}}
            for cid in m.combo_ids
        ]
        top, other = m.top_line, f"1 to {m.n_lines - 1}"
        pool = self._pool_names()
        legend = spec.combo_legend
        mixed = [legend[c] for c, members in spec.combo_symbols.items() if len(members) > 1]
        rules = [
            "The Crystal Star symbol is wild and substitutes for any symbol except multiplier "
            "symbols: it stands in for the symbol and never carries a multiplier. It never "
            "substitutes for a blank."
            + (f" Sevens, or bars, that are not all alike pay as {' or '.join(mixed)}."
               if mixed else ""),
            "Multipliers multiply winning combinations except progressives. Two or more "
            "multipliers on a payline multiply together. The maximum total multiplier for a "
            f"winning combination is {spec.multiplier_cap}X.",
            self._multiplier_text(),
            "Double nudge: wins in the initial reel stop are paid first. Then every Crystal Star "
            "in view nudges one position at the same time (a Star on the top row moves down, on "
            "the bottom row up, on the middle row the way its arrow points) and the new "
            "combination is paid. Stars that can still move nudge a second time and the "
            "combination is paid again. A Star never nudges above line 2 or below line 3; its "
            "whole reel moves with it.",
            f"Progressives are available at max bet ({self.max_bet()} credits) only. Three "
            f"Crystal Stars on payline {top} award the {pool['top']}; on paylines {other} the "
            f"{pool['bottom']}. A progressive can be won before or after a nudge. Each "
            "progressive triggers at most once per play; further three-Star lines at max bet "
            f"pay {ts.max_bet.subsequent_other_lines_credits:,} credits on paylines {other} and "
            f"{ts.max_bet.subsequent_top_line_x_line_bet:,} x line bet on payline {top}.",
            f"Below max bet, three Crystal Stars on payline {top} pay "
            f"{ts.below_max_bet_x_line_bet.top_line:,} x line bet and on paylines {other} "
            f"{ts.below_max_bet_x_line_bet.other_lines:,} x line bet.",
            "Line wins must occur on adjacent reels, beginning with the leftmost reel; all wins "
            f"occur on active lines (all {m.n_lines} lines are always active).",
            "Only the highest winner is paid per payline and per stage; wins on all paylines "
            "and stages are added together.",
            f"The most a round pays is {self.max_win_x():,} times the total bet (rounded up; "
            "progressives counted at their reset values).",
            "Payoffs on registered credits only. Misuse or malfunction voids all pays and plays.",
        ]
        report = self.exact()
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "model_version": m.version,
            "model_hash": self.model_hash,
            "reels": 3,
            "rows": 3,
            "symbols": symbols,
            "lines": [list(x) for x in spec.lines],
            "line_names": {"1": "middle", "2": "top", "3": "bottom"},
            "bets": self.bets(),
            "credits_per_line": list(m.line_bets),
            "pay_divisor": m.n_lines,
            "paytable": paytable,
            "three_stars": spec.three_stars.model_dump(),
            "multiplier_cap": spec.multiplier_cap,
            "progressives": self.progressives(),
            "rules": rules,
            "max_win_x": self.max_win_x(),
            "max_win_x_exact": report["max_win_x"],
            "rtp": report["rtp"],
            "rtp_long_run_max_bet": report["rtp_long_run"],
            "hit_rate": report["hit_rate"],
            "stops_are": "top-row strip index per reel",
        }
