"""The composed game: features from :mod:`slotlab.mechanics` put together by a model file
alone (see docs/model-format.md, ``slotlab.composed/1``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from slotlab.games.composed import kernel
from slotlab.games.composed.exact import exact_report
from slotlab.games.composed.model import JACKPOTS, ComposedModel
from slotlab.games.composed.round import COMPONENTS, Tables, play_round
from slotlab.games.contract import FamilyGame
from slotlab.mechanics.accumulators import new_accumulators
from slotlab.rng import Seed, chacha_stream
from slotlab.rounds import Event, IllegalChoiceError, ReportCache, RoundResult, check_inputs


class ComposedGame(FamilyGame[ComposedModel]):
    """A game whose rules are a composition of shared mechanics, read from its model file.

    A round takes no choice. Its SD is not exact: the server takes it from simulation.
    """

    family = "composed"
    kind = "composed"

    def __init__(self, model: ComposedModel) -> None:
        super().__init__(model)
        self._tables = Tables(model)
        self._features = kernel.pack_features(model)
        self._exact: ReportCache[int] = ReportCache()

    model_type = ComposedModel

    def max_win_x(self) -> int:
        return self.model.spec.max_win_x

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        check_inputs(self, bet, seeds, choices)
        if choices:
            raise IllegalChoiceError("the round is over: no choice is awaited")
        level = bet // self.model.divisor
        events: list[Event] = []
        tally = play_round(self._tables, chacha_stream(seeds[0]), level, events)
        win = (tally.uncapped + tally.parts["cap"]) * level
        events.append({"type": "round_ended", "win": win})
        return RoundResult(self.id, self.model_hash, bet, tuple(events), win)

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        raise IllegalChoiceError("a composed round never waits for a choice")

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
        kernel.simulate_rounds(self._tables.packed, self._features, stream, spins,
                               bet // self.model.divisor, bet, acc, sq, parts,
                               kernel.scratch(self._tables.packed, self._features))
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
        wild = spec.wild.symbol if spec.wild else None
        scatter = spec.scatter.symbol if spec.scatter else None
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
                         "scatter": s.id == scatter, "coin": hw is not None and s.id == hw.symbol,
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
            # what each segment brings, in the wheel's order (its weights stay in the model)
            "wheel": ([s.model_dump(exclude={"weight"}) for s in spec.wheel.segments]
                      if spec.wheel else None),
            "hold_and_win": ({"name": hw.name, "symbol": hw.symbol, "trigger": hw.trigger,
                              "respins": hw.respins,
                              "jackpots": {j: hw.jackpots[j] for j in JACKPOTS}}
                             if hw else None),
            "expanding": spec.expanding.model_dump() if spec.expanding else None,
            "whole_reel": spec.whole_reel.model_dump() if spec.whole_reel else None,
            "gamble": None,
            "rules": self.rules(),
            "max_win_x": spec.max_win_x,
            "rtp": self.theoretical_rtp(),
        }

    def rules(self) -> list[str]:
        """The player-facing rules: the model's own text (its ``rules``), which RULES.md maps
        to the mechanics and tests."""
        return list(self.model.spec.rules)
