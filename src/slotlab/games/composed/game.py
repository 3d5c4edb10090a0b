"""The composed game: features from :mod:`slotlab.mechanics` put together by a model file
alone (see docs/model-format.md, ``slotlab.composed/1``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from slotlab.games.composed import kernel
from slotlab.games.composed.exact import exact_report
from slotlab.games.composed.model import JACKPOTS, ComposedModel
from slotlab.games.composed.round import (
    COMPONENTS,
    WAIT,
    Tables,
    cap_win,
    colour_wheel,
    play_round,
)
from slotlab.games.contract import FamilyGame
from slotlab.mechanics.accumulators import new_accumulators
from slotlab.rng import Seed, chacha_stream, randbelow
from slotlab.rounds import (
    Awaiting,
    Event,
    IllegalChoiceError,
    ReportCache,
    RoundResult,
    check_inputs,
)

COLOUR_CHOICE = "colour_wheel"  # the kind of choice a composed round may wait for


class ComposedGame(FamilyGame[ComposedModel]):
    """A game whose rules are a composition of shared mechanics, read from its model file.

    A round takes one choice when it reaches a colour wheel (the player's colour), and none
    otherwise. Its SD is not exact: the server takes it from simulation.
    """

    family = "composed"
    kind = "composed"

    def __init__(self, model: ComposedModel) -> None:
        super().__init__(model)
        self._tables = Tables(model)
        self._exact: ReportCache[int] = ReportCache()

    model_type = ComposedModel

    def max_win_x(self) -> int:
        return self.model.spec.max_win_x

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        check_inputs(self, bet, seeds, choices)
        level = bet // self.model.divisor
        events: list[Event] = []
        t = self._tables
        tally = play_round(t, chacha_stream(seeds[0]), level, events, WAIT)
        awaiting = None
        if tally.pending is not None:
            colours = self.model.features.colours
            info = {"win_so_far": tally.uncapped * level, "bet": bet}
            events.append({"type": "colour_wheel_offered", "options": list(colours), **info})
            awaiting = Awaiting(COLOUR_CHOICE, colours, info)
            if choices:
                if choices[0] not in colours:
                    raise IllegalChoiceError(f"choice {choices[0]!r} is not one of "
                                             f"{list(colours)}")
                tally.parts["colour_wheel"] = colour_wheel(
                    t, chacha_stream(seeds[1]), colours.index(choices[0]), tally.pending, level,
                    events)
                cap_win(t, tally, level, events)
                awaiting, choices = None, choices[1:]
        if choices:
            raise IllegalChoiceError("the round is over: no choice is awaited")
        win = (tally.uncapped + tally.parts["cap"]) * level
        if awaiting is None:
            events.append({"type": "round_ended", "win": win})
        return RoundResult(self.id, self.model_hash, bet, tuple(events), win, awaiting)

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        """The colour for a player who never came back: at random from ``seed`` (the rounds
        are completed as the simulator plays them)."""
        if result.awaiting is None or result.awaiting.kind != COLOUR_CHOICE:
            raise IllegalChoiceError("the round is not waiting for a choice")
        colours = self.model.features.colours
        return colours[randbelow(chacha_stream(seed), len(colours))]

    def exact(self, bet: int | None = None) -> dict[str, Any]:
        bet = self.bets()[0] if bet is None else bet
        return self._exact.get(bet, lambda: exact_report(self.model, bet))

    def component_names(self) -> list[str]:
        return list(COMPONENTS)

    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rounds from the compiled kernel (the same draws as :meth:`play`)."""
        acc, sq = new_accumulators()
        parts = np.zeros(len(COMPONENTS), dtype=np.int64)
        kernel.simulate_rounds(self._tables.packed, self._tables.features, stream, spins,
                               bet // self.model.divisor, bet, acc, sq, parts,
                               kernel.scratch(self._tables.packed, self._tables.features))
        return acc, sq

    def describe(self) -> dict[str, Any]:
        spec = self.model.spec
        level_unit = spec.bet.divisor
        names = {s.id: (s.name or s.id) for s in spec.symbols}
        hw = spec.hold_and_win
        paytable: list[dict[str, Any]] = [
            {"symbol": sym, "label": names[sym], "pays": {str(k): v for k, v in sorted(t.items())}}
            for sym, t in spec.pays.items()]
        if spec.scatter is not None and spec.scatter.pays:
            paytable.append({"symbol": spec.scatter.symbol, "label": names[spec.scatter.symbol],
                             "scatter": True, "pays": {str(k): v for k, v in
                                                       sorted(spec.scatter.pays.items())}})
        paytable += [{"symbol": sc.symbol, "label": names[sc.symbol], "scatter": True,
                      "pays": {str(k): v for k, v in sorted(sc.pays.items())}}
                     for sc in spec.scatters]
        wild = spec.wild.symbol if spec.wild else None
        scatters = {sc.symbol for sc in spec.scatters} | (
            {spec.scatter.symbol} if spec.scatter else set())
        expanding = spec.expanding.symbol if spec.expanding else None
        whole = spec.whole_reel.symbol if spec.whole_reel else None
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "model_hash": self.model_hash,
            "reels": spec.reels,
            "rows": spec.rows,
            "symbols": [{"id": s.id, "name": s.name or s.id, "wild": s.id == wild,
                         "scatter": s.id in scatters, "coin": hw is not None and s.id == hw.symbol,
                         "expanding": s.id == expanding, "giant": s.id == whole}
                        for s in spec.symbols],
            "lines": spec.lines,
            "bets": self.bets(),
            "pay_divisor": level_unit,
            "paytable": paytable,
            "wild": spec.wild.model_dump() if spec.wild else None,
            "free_spins": ({**spec.free_spins.model_dump(), "awards": {
                str(k): v for k, v in spec.free_spins.awards.items()}}
                if spec.free_spins else None),
            # every wheel in the model's order (``wheel_spun.wheel`` indexes them): its name,
            # what spins it (a count of its own symbol, else null: the scatters' award) and
            # what each segment brings, in order (the weights stay in the model)
            "wheels": [{"name": w.name,
                        "trigger": w.trigger.model_dump() if w.trigger else None,
                        "segments": [s.model_dump(exclude={"weight"}, exclude_none=True)
                                     for s in w.segments]}
                       for _where, w in spec.all_wheels()],
            "hold_and_win": ({"name": hw.name, "symbol": hw.symbol, "trigger": hw.trigger,
                              "respins": hw.respins,
                              "jackpots": {j: hw.jackpots[j] for j in JACKPOTS
                                           if j in hw.jackpots},
                              "full_grid": hw.full_grid}
                             if hw else None),
            "expanding": spec.expanding.model_dump() if spec.expanding else None,
            "whole_reel": spec.whole_reel.model_dump() if spec.whole_reel else None,
            # the colour wheel's segments in order, without their weights
            "colour_wheel": ({"name": spec.colour_wheel.name,
                              "colours": spec.colour_wheel.colours,
                              "limit": spec.colour_wheel.limit,
                              "segments": [sg.model_dump(exclude={"weight"})
                                           for sg in spec.colour_wheel.segments]}
                             if spec.colour_wheel else None),
            "gamble": None,
            "rules": self.rules(),
            "max_win_x": spec.max_win_x,
            "rtp": self.theoretical_rtp(),
        }

    def rules(self) -> list[str]:
        """The player-facing rules: the model's own text (its ``rules``), which RULES.md maps
        to the mechanics and tests."""
        return list(self.model.spec.rules)
