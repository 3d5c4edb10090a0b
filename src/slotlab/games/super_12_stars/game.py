"""Super 12 Stars as the platform sees it: the ``Game`` and ``Simulatable`` facade.

The rules are in :mod:`.kernel`; this module validates input, runs the kernel on the round's
ChaCha20 streams, names its event rows (amounts in credits) and serves the exact figures of
:mod:`.exact`. The only player choice is the Frenzy Wheel colour: a round that reaches the
Frenzy Wheel waits (``Awaiting("frenzy_colour", ("red", "green"))``) and the wheel is drawn from
``seeds[1]``, the seed that comes with the choice. RULES.md lists every event and its fields.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from slotlab.games.contract import FamilyGame
from slotlab.mechanics.accumulators import new_accumulators
from slotlab.rng import Seed, chacha_stream, randbelow
from slotlab.rounds import (
    Awaiting,
    Event,
    IllegalChoiceError,
    ReportCache,
    RoundResult,
    check_bet,
    check_inputs,
)
from slotlab.simulate.record import record_for

from . import kernel as k
from .model import (
    BASE,
    CENTRE,
    FREE,
    N_REELS,
    N_ROWS,
    PAY_DIVISOR,
    REEL_SETS,
    S10_FREE,
    S10_KINDS,
    SYMBOLS,
    Model,
    load_model,
)

COMPONENTS = ["lines", "golden", "silver", "bonus_pay", "super7_respins", "wheel", "free_spins",
              "super10_direct", "frenzy", "super10_free_spins", "lucky_stars_values", "minor",
              "major", "grand", "cap"]
AWAIT_KIND = "frenzy_colour"
FORCED_SEED = bytes(32)  # draws after a forced script come from this seed's stream

_STAGES = {k.STAGE_BASE: "base", k.STAGE_FREE: "free", k.STAGE_S10_FREE: "super10_free"}
_SETS = {k.STAGE_BASE: BASE, k.STAGE_FREE: FREE, k.STAGE_S10_FREE: S10_FREE}
_S10_KINDS = ("direct", "frenzy", "free_spins")
_SCATTERS = (("golden", "GS"), ("silver", "SS"))


class Super12Stars(FamilyGame[Model]):
    """The game: ``play`` for live rounds and replay, ``play_forced`` / ``play_stops`` for forced
    outcomes (tests, browser tests), ``simulate_chunk`` for the simulator."""

    family = "super_12_stars"
    kind = "super-12-stars"

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        self._packed = k.pack(model)
        self._exact: ReportCache[int] = ReportCache()

    @classmethod
    def read_model(cls, source: Path | dict[str, Any]) -> Model:
        return load_model(source)

    # -- bets -------------------------------------------------------------------------------

    def line_bet(self, bet: int) -> int:
        """Credits per line of a total bet (= credits per pay unit); refuses other bets."""
        check_bet(self, bet)
        return bet // PAY_DIVISOR

    # -- rounds -----------------------------------------------------------------------------

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        """Play (or replay) a round: ``seeds[0]`` drives everything up to the Frenzy Wheel,
        ``seeds[1]`` the Frenzy Wheel after the colour ``choices[0]``."""
        check_inputs(self, bet, seeds, choices)
        return self._run(bet, k.new_script(), [chacha_stream(s) for s in seeds], choices)

    def play_forced(self, bet: int, draws: Sequence[int], choices: Sequence[str] = (),
                    seeds: Sequence[Seed] | None = None) -> RoundResult:
        """The round that the forced ``draws`` produce, with the same events a seed would give.

        ``draws`` are taken in the kernel's draw order (see :mod:`.kernel`): the five base reel
        stops (top-row strip indices), then each further draw as it happens (the stops of a
        respin or free spin, the index of the outcome of each table: wheel segment, TV spins
        then multiplier, Super 10 reel, star values, Lucky Stars cells, Frenzy boxes). Draws
        after the script come from the streams of ``seeds`` (default: a fixed seed), one more
        seed per choice as in :meth:`play`.
        """
        self.line_bet(bet)
        if seeds is None:
            seeds = [FORCED_SEED] * (len(choices) + 1)
        if len(seeds) != len(choices) + 1:
            raise ValueError(f"{len(choices)} choices need {len(choices) + 1} seeds")
        try:
            values = [operator.index(d) for d in draws]
        except TypeError as exc:
            raise ValueError(f"forced draws must be integers, got {list(draws)}") from exc
        if any(v < 0 for v in values):
            raise ValueError(f"forced draws must not be negative, got {values}")
        script = k.new_script(values)
        result = self._run(bet, script, [chacha_stream(s) for s in seeds], choices)
        if script[2] >= 0:
            raise ValueError(f"forced draw {int(script[2])} (value {values[int(script[2])]}) is "
                             "outside the range of what it draws")
        if result.is_complete and script[0] < script[1]:
            raise ValueError(f"{int(script[1] - script[0])} forced draws were not used")
        return result

    def play_stops(self, bet: int, stops: Sequence[int], draws: Sequence[int] = (),
                   choices: Sequence[str] = ()) -> RoundResult:
        """:meth:`play_forced` with the base reel ``stops`` first (checked against the strips)."""
        lengths = self.model.lengths[BASE]
        try:
            arr = [operator.index(s) for s in stops]
        except TypeError as exc:
            raise ValueError(f"stops must be integers, got {list(stops)}") from exc
        if len(arr) != N_REELS or any(not 0 <= s < lengths[r] for r, s in enumerate(arr)):
            raise ValueError(f"stops must be {N_REELS} ints in range(strip length) "
                             f"{lengths.tolist()}, got {list(stops)}")
        return self.play_forced(bet, [*arr, *draws], choices)

    def _run(self, bet: int, script: np.ndarray, streams: list[np.ndarray],
             choices: Sequence[str]) -> RoundResult:
        level = self.line_bet(bet)
        m = self._packed
        comp = np.zeros(k.N_COMP, np.int64)
        ev, n_ev, (win, _uncapped, _feature, pending) = self._traced(
            lambda ev: k.trace_round(m, streams[0], script, k.COLOUR_WAIT, ev,
                                     *k.scratch(m)[:6], comp),
            script, streams[0], comp)
        events = self._decode(ev[:n_ev], level)
        awaiting = None
        if pending:
            info = {"win_so_far": int(win) * level, "bet": bet}
            events.append({"type": "frenzy_offered", "options": list(self.model.colours),
                           **info})
            awaiting = Awaiting(AWAIT_KIND, self.model.colours, info)
            if choices:
                colour = choices[0]
                if colour not in self.model.colours:
                    raise IllegalChoiceError(f"choice {colour!r} is not one of "
                                             f"{list(self.model.colours)}")
                so_far = int(win)
                ev, n_ev, (win, _uncapped) = self._traced(
                    lambda ev: k.trace_frenzy(m, streams[1], script,
                                              self.model.colours.index(colour), ev, so_far,
                                              comp),
                    script, streams[1], comp)
                events += self._decode(ev[:n_ev], level)
                awaiting = None
                choices = choices[1:]
        if choices:
            raise IllegalChoiceError("the round is over: no choice is awaited")
        credits = int(win) * level
        if awaiting is None:
            events.append({"type": "round_ended", "win": credits})
        return RoundResult(self.id, self.model_hash, bet, tuple(events), credits, awaiting)

    @staticmethod
    def _traced(run: Any, script: np.ndarray, stream: np.ndarray,
                comp: np.ndarray) -> tuple[np.ndarray, int, tuple[Any, ...]]:
        """Run a traced kernel call, again with a larger event buffer if it was too small (from
        the same stream and script state, so the same draws)."""
        size = 256
        saved = stream.copy(), script.copy(), comp.copy()
        while True:
            ev = np.zeros((size, k.EV_WIDTH), np.int64)
            *out, n_ev = run(ev)
            if n_ev <= size:
                return ev, n_ev, tuple(out)
            stream[:], script[:], comp[:] = saved
            size = n_ev

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        """The colour for a player who never came back: at random from ``seed`` (the rule text:
        "randomly complete the round"; either colour has the same expected win)."""
        if result.awaiting is None or result.awaiting.kind != AWAIT_KIND:
            raise IllegalChoiceError("the round is not waiting for a choice")
        return self.model.colours[randbelow(chacha_stream(seed), 2)]

    # -- events -----------------------------------------------------------------------------

    def _decode(self, rows: np.ndarray, level: int) -> list[Event]:
        """Kernel event rows to JSON events, amounts in credits (``level`` per pay unit)."""
        m = self.model
        events: list[Event] = []
        window: list[list[str]] = []
        stage = "base"
        mult = 1
        lucky: list[dict[str, Any]] | None = None  # stars of the current Lucky Stars event
        for row in rows.tolist():
            kind = row[0]
            if kind == k.EV_REELS:
                st, index, awarded, mult, respin = row[1:6]
                stops = row[6 : 6 + N_REELS]
                stage = _STAGES[st]
                window = m.window(_SETS[st], stops)
                if respin:
                    window[CENTRE] = ["W"] * N_ROWS
                e: Event = {"type": "reels_stopped", "stage": stage, "respin": bool(respin),
                            "stops": stops, "window": window}
                if st != k.STAGE_BASE:
                    e.update({"spin": index, "spins": awarded, "multiplier": mult})
                events.append(e)
            elif kind == k.EV_SUPER7:
                row3 = [r for r, s in enumerate(window[CENTRE]) if s == "S7"]
                window = [list(col) for col in window]
                window[CENTRE] = ["W"] * N_ROWS
                events.append({"type": "super7_expanded", "stage": stage, "reel": CENTRE + 1,
                               "row": row3[0] if row3 else None, "window": window})
            elif kind == k.EV_LINE:
                li, sym, count, mult_, units = row[1:6]
                events.append({"type": "line_won", "stage": stage, "line": li + 1,
                               "symbol": SYMBOLS[sym], "count": count,
                               "positions": [[r, int(m.lines[li, r])] for r in range(count)],
                               "multiplier": mult_, "win": units * level})
            elif kind == k.EV_SCATTER:
                which, count, units = row[1:4]
                name, sym = _SCATTERS[which]
                events.append({"type": "scatter_won", "stage": stage, "scatter": name,
                               "symbol": sym, "count": count,
                               "positions": _positions(window, sym),
                               "multiplier": mult, "win": units * level})
            elif kind == k.EV_BONUS:
                units, mult_, count = row[1:4]
                events.append({"type": "bonus_won", "stage": stage, "count": count,
                               "positions": _positions(window, "BO"), "multiplier": mult_,
                               "win": units * level})
            elif kind == k.EV_WHEEL:
                seg, value, units = row[1:4]
                events.append({"type": "wheel_spun", "segment": seg, "value": value,
                               "win": units * level})
            elif kind == k.EV_TV:
                si, spins, mi, mult_ = row[1:5]
                events.append({"type": "tv_drawn", "spins": spins, "multiplier": mult_,
                               "spins_index": si, "multiplier_index": mi})
            elif kind == k.EV_FS_AWARD:
                more, total, retrigger, st = row[1:5]
                kind_name = "free_spins_retriggered" if retrigger else "free_spins_awarded"
                events.append({"type": kind_name, "feature": _STAGES[st], "awarded": more,
                               "total": total})
            elif kind == k.EV_S10:
                oi, s10, amount = row[1:4]
                value = m.super10.values[oi][1]
                events.append({"type": "super10_spun", "index": oi, "outcome": _S10_KINDS[s10],
                               "value": value,
                               "win": amount * level if s10 == 0 else 0})
            elif kind == k.EV_LUCKY:
                phase, number, counter, _new, n_held = row[1:6]
                lucky = []
                if phase == 0:
                    events.append({"type": "lucky_stars_started", "stars": lucky,
                                   "counter": counter})
                else:
                    events.append({"type": "lucky_stars_respun", "respin": number,
                                   "new_stars": lucky, "counter": counter,
                                   "stars_held": n_held})
            elif kind == k.EV_STAR:
                cell, vi, units = row[1:4]
                assert lucky is not None
                lucky.append({"cell": [cell // N_ROWS, cell % N_ROWS],
                              "value": m.star_values.values[vi], "win": units * level})
            elif kind == k.EV_LUCKY_END:
                n_held, values, minors, majors, grand, total = row[1:7]
                events.append({"type": "lucky_stars_ended", "stars": n_held,
                               "values_win": values * level, "minor": minors, "major": majors,
                               "minor_win": minors * m.minor_units * level,
                               "major_win": majors * m.major_units * level,
                               "grand": grand > 0, "grand_win": grand * level,
                               "win": total * level})
            elif kind == k.EV_FRENZY:
                box, value, colour, total = row[1:5]
                events.append({"type": "frenzy_spun", "box": box, "value": value,
                               "colour": m.colours[colour], "total": total})
            elif kind == k.EV_FRENZY_END:
                total, units, colour = row[1:4]
                events.append({"type": "frenzy_ended", "colour": m.colours[colour],
                               "total": total, "win": units * level})
            elif kind == k.EV_CAP:
                events.append({"type": "win_capped", "cap": row[1] * level,
                               "uncapped": row[2] * level})
        return events

    # -- math -------------------------------------------------------------------------------

    def exact(self, bet: int | None = None) -> dict[str, Any]:
        """Exact figures at ``bet`` (default: the smallest) from :mod:`.exact`, cached; each call
        returns a copy."""
        bet = self.bets()[0] if bet is None else bet
        self.line_bet(bet)
        from .exact import exact_report  # imported on use: only these figures need it

        return self._exact.get(bet, lambda: exact_report(self.model, bet))

    def theoretical_rtp(self) -> float:
        """The exact RTP (the same at every bet: every pay is a multiple of the bet)."""
        return float(self.exact()["rtp"])

    def max_win_x(self) -> int:
        """The cap when the model has one, else the exact report's max win (whole multiples of
        the total bet, rounded up)."""
        if self.model.cap_x is not None:
            return self.model.cap_x
        return int(-(-float(self.exact()["max_win_x"]) // 1))

    # -- simulation -------------------------------------------------------------------------

    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play ``spins`` whole rounds from ``stream`` (the Frenzy colour drawn at random)."""
        level = self.line_bet(bet)
        acc, sq = new_accumulators()
        k.simulate_rounds(self._packed, stream, spins, level, bet, acc, sq, k.new_script(),
                          *k.scratch(self._packed))
        return acc, sq

    def round_wins(self, bet: int, rounds: int, stream: np.ndarray) -> np.ndarray:
        acc, sq = new_accumulators()
        out = np.zeros(rounds, np.int64)
        k.round_wins(self._packed, stream, self.line_bet(bet), bet, out, acc, sq, k.new_script(),
                     *k.scratch(self._packed))
        return out

    def component_names(self) -> list[str]:
        return list(COMPONENTS)

    # -- PAYS / HELP ------------------------------------------------------------------------

    def rules(self) -> list[str]:
        """The player-facing rules, with the model's numbers."""
        m = self.model
        spec = m.spec
        fs = spec.fs_minigame
        ls = spec.lucky_stars
        out = [
            f"Super 12 Stars has 5 reels, 3 rows and {PAY_DIVISOR} fixed lines; the line bet is "
            f"the total bet divided by {PAY_DIVISOR}.",
            "Line wins pay 3, 4 or 5 of a kind left to right on adjacent reels, starting from "
            "the leftmost reel, times the line bet. Only the highest win per line is paid; wins "
            "on different lines are added.",
            "The Wild appears on reels 2, 3 and 4 and substitutes for every paying symbol; it "
            "does not substitute for Bonus, Wheel, the golden and silver Super 5 Stars or the "
            "Super 7, Super 10 and Super 12 symbols. A line of Wilds pays as "
            f"{spec.symbols[spec.wild_only_line_pays_as]}s.",
            "The golden and silver Super 5 Stars are scatters: they pay by their count anywhere "
            "on the reels, times the total bet, added to the line wins. Golden: 3 to 5; silver "
            "(stacked on reels 2, 3 and 4): 3 to 9.",
            "Three Wheel symbols (reels 1, 3 and 5) give a spin of the Wheel; its segment "
            "multiplies the line bet.",
            f"Three Bonus symbols (reels 2, 3 and 4) pay {spec.bonus_trigger_pay_x_total_bet} x "
            "the total bet and start the TV mini game, which draws the number of free spins "
            f"({', '.join(str(v) for v in m.tv_spins.values)}) and their multiplier "
            f"(x{', x'.join(str(v) for v in m.tv_multiplier.values)}).",
            "Free spins are played at the bet of the spin that triggered them, on special reels "
            "without golden Super 5 Stars or Wheel symbols; every win is multiplied by the "
            "multiplier. Three Bonus symbols pay the Bonus win times the multiplier and add the "
            f"same number of free spins again, up to {fs.max_total_spins} free spins in total.",
            "The Super 7 appears on the central reel only. It turns the whole central reel into "
            "Wilds for that spin, then reels 1, 2, 4 and 5 spin once more with the central reel "
            "held as Wilds.",
            "The Super 10 (three positions on the central reel) in full view starts the Super 10 "
            "Stars mini game: the central reel spins to a direct win (times the total bet), the "
            "Frenzy Wheel, or free spins played at the same bet on reels without golden Super 5 "
            "Stars, Wheel or Bonus symbols. A Super 10 or Super 12 only partly in view pays "
            "nothing.",
            "Frenzy Wheel: choose Red or Green. Each spin adds the value of its box to the total "
            "multiplier. When the box has your colour the wheel spins again; on the other colour, "
            f"or once the total is above {m.frenzy_limit}, it ends and pays the total times the "
            "total bet. Every value is on the wheel once in each colour, so both colours win the "
            "same on average.",
            f"The Super 12 (three positions on the central reel) in full view starts Lucky Stars: "
            f"it becomes 3 held stars and you get {ls.respins} respins. Every new star is held "
            f"and the respins go back to {ls.respins}. It ends when the respins run out or all "
            "15 positions hold stars.",
            "When Lucky Stars ends all star values are added (times the total bet); a Minor star "
            f"is worth {ls.MINOR} x and a Major star {ls.MAJOR} x the total bet; 15 stars add "
            f"the Grand of {ls.GRAND} x the total bet. Minor, Major and Grand are fixed prizes, "
            "not progressive.",
            "Scatter wins, the Bonus win and feature wins are added to the line wins.",
            "Malfunction voids all pays and plays.",
        ]
        if m.cap_x is not None:
            out.append(f"The most a round pays is {m.cap_x:,} times the total bet.")
        else:
            out.append(f"No round pays more than {self.max_win_x():,} times the total bet.")
        record = record_for(self)
        if record is not None:  # the rule text's simulation statement, from the shipped run
            out.append(f"The largest win in a simulation of {record.spins:,} rounds was "
                       f"{record.max_win_x:,.1f} times the total bet, with an occurrence "
                       f"probability of 1 in {record.max_win_one_in:,.0f}; the simulated RTP "
                       f"was {record.rtp:.2%}.")
        return out

    def describe(self) -> dict[str, Any]:
        m = self.model
        spec = m.spec
        symbols = [{"id": s, "name": spec.symbols[s], "wild": s == "W",
                    "scatter": s in ("GS", "SS"), "giant": s in ("T10", "T12")}
                   for s in SYMBOLS]
        paytable = [{"symbol": s, "label": spec.symbols[s],
                     "pays": {str(n): p for n, p in zip((3, 4, 5), pays, strict=True)}}
                    for s, pays in spec.line_pays_x_line_bet.items()]
        report = self.exact()
        record = record_for(self)
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
            # Uncapped, the max win is a rigorous upper bound that no round may reach: said so.
            "max_win_bound": m.cap_x is None,
            "bets": self.bets(),
            "pay_divisor": PAY_DIVISOR,
            "paytable": paytable,
            "wild_only_line_pays_as": spec.wild_only_line_pays_as,
            "scatter_pays_x_total_bet": {
                "golden": {str(c): x for c, x in spec.golden_scatter_pays_x_total_bet.items()},
                "silver": {str(c): x for c, x in spec.silver_scatter_pays_x_total_bet.items()},
            },
            "bonus_pay_x_total_bet": spec.bonus_trigger_pay_x_total_bet,
            "wheel_x_line_bet": list(m.wheel.values),
            "tv_spins": list(m.tv_spins.values),
            "tv_multipliers": list(m.tv_multiplier.values),
            "max_free_spins": m.max_free_spins,
            "super10_reel": [{"outcome": _S10_KINDS[S10_KINDS[kind]], "value": v}
                             for kind, v in m.super10.values],
            "frenzy_wheel": [{"value": v, "colour": c} for v, c in m.frenzy.values],
            "frenzy_colours": list(m.colours),
            "frenzy_stops_above": m.frenzy_limit,
            "lucky_stars": {"respins": m.lucky_respins, "star_values": list(m.star_values.values),
                            "minor_x": spec.lucky_stars.MINOR, "major_x": spec.lucky_stars.MAJOR,
                            "grand_x": spec.lucky_stars.GRAND},
            "reel_sets": list(REEL_SETS),
            "reel_strips": {name: [list(strip) for strip in getattr(spec.reel_strips, name)]
                            for name in REEL_SETS},
            "rules": self.rules(),
            "rtp": float(report["rtp"]),
            "max_win_x": self.max_win_x(),
            # The largest win of the shipped recorded run on this model (None: no such record).
            "max_win_simulated": None if record is None else record.shown(),
            "stops_are": "top-row strip index per reel",
        }


def _positions(window: list[list[str]], symbol: str) -> list[list[int]]:
    return [[r, row] for r, col in enumerate(window) for row, s in enumerate(col) if s == symbol]
