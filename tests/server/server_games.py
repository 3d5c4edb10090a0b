"""Small real games for the server tests: deterministic, pure, and with a player choice.

They implement the ``Game`` protocol with the platform's own random streams, so the server
treats them exactly like the shipped games, but their outcomes are simple enough to assert on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from slotlab.rng import Seed, chacha_stream, randbelow
from slotlab.rounds import Awaiting, IllegalChoiceError, RoundResult, check_inputs

OPTIONS = ("left", "right")


class PickGame:
    """Three coins from ``seeds[0]``; then (``pick=True``) the player picks left or right and a
    prize of 0-3 x bet is drawn from the seed that came with the choice. Without ``pick`` the
    prize is drawn from ``seeds[0]`` and the round completes at once. ``jackpot`` names a tier
    that every max-bet round wins. It has no exact math and no simulation."""

    exact = None
    sd = None
    simulation = None

    def __init__(self, game_id: str, *, pick: bool, jackpot: str | None = None,
                 prize_x: int = 3, cash_caps: dict[str, int] | None = None) -> None:
        self.id = game_id
        self.name = game_id.replace("-", " ").title()
        self.pick = pick
        self.jackpot = jackpot
        self.prize_x = prize_x
        self._cash_caps = dict(cash_caps or {})  # the game's own, whole units per currency
        self.model_hash = hashlib.sha256(f"{game_id}:{pick}:{jackpot}:{prize_x}".encode()
                                         ).hexdigest()

    def bets(self) -> list[int]:
        return [1, 2, 5, 10]

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        check_inputs(self, bet, seeds, choices)
        stream = chacha_stream(seeds[0])
        coins = [randbelow(stream, 2) for _ in range(3)]
        events: list[dict[str, Any]] = [
            {"type": "reels_stopped", "stage": "base", "stops": coins,
             "window": [[c] for c in coins]}]
        if self.pick and not choices:
            return RoundResult(self.id, self.model_hash, bet, tuple(events), 0,
                               Awaiting("pick", OPTIONS, {"step": 1}))
        if not self.pick and choices:
            raise IllegalChoiceError("this game takes no choice")
        if self.pick:
            if choices[0] not in OPTIONS:
                raise IllegalChoiceError(f"choice {choices[0]!r} is not one of {OPTIONS}")
            prize = randbelow(chacha_stream(seeds[1]), self.prize_x + 1)
            events.append({"type": "pick_resolved", "choice": choices[0], "prize": prize * bet})
        else:
            prize = randbelow(stream, self.prize_x + 1)
        win = prize * bet
        jackpots: tuple[str, ...] = ()
        if self.jackpot and bet == self.bets()[-1]:
            jackpots = (self.jackpot,)
            events.append({"type": "progressive_won", "tier": self.jackpot, "line": 1})
        events.append({"type": "round_ended", "win": win})
        return RoundResult(self.id, self.model_hash, bet, tuple(events), win, None, jackpots)

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        assert result.awaiting is not None
        options = result.awaiting.options
        return options[randbelow(chacha_stream(seed), len(options))]

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "kind": "test", "reels": 3, "rows": 1,
                "symbols": [], "lines": [], "bets": self.bets(), "pay_divisor": 1,
                "paytable": [], "rules": ["a test game"], "max_win_x": self.max_win_x(),
                "rtp": self.theoretical_rtp()}

    def max_win_x(self) -> int:
        return self.prize_x

    def cash_caps(self) -> dict[str, int]:
        return dict(self._cash_caps)

    def theoretical_rtp(self) -> float:
        return self.prize_x / 2

    def progressives(self) -> list[dict[str, Any]]:
        if not self.jackpot:
            return []
        return [{"tier": "bottom", "reset": 100, "rate": "3/1000"},
                {"tier": "top", "reset": 1000, "rate": "1/250"}]


class PoolGame(PickGame):
    """Feeds two pools with every max-bet round and never wins one."""

    def __init__(self) -> None:
        super().__init__("pool-test", pick=False)

    def progressives(self) -> list[dict[str, Any]]:
        return [{"tier": "bottom", "reset": 100, "rate": "3/1000"},
                {"tier": "top", "reset": 1000, "rate": "1/250"}]


def make_test_games() -> dict[str, Any]:
    games = [PickGame("instant-test", pick=False), PickGame("pick-test", pick=True),
             PickGame("jackpot-test", pick=False, jackpot="top")]
    return {g.id: g for g in games}
