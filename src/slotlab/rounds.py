"""The round contract: a round is a pure function of (game, bet, seeds, choices).

``play(game, bet, seeds, choices)`` re-runs a round from its beginning: ``seeds[0]`` drives
everything up to the first player choice, ``seeds[k]`` everything after choice ``k``. So a live
round draws a fresh seed when it starts and one more with each choice, and no outcome exists
before the choice that precedes it. The server stores the seeds, the choices and the events;
:func:`replay` re-runs them and says whether the events are identical.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, runtime_checkable

from slotlab.rng import Seed

if TYPE_CHECKING:
    import numpy as np

Event = dict[str, Any]  # JSON-able; always has "type", a past-tense snake_case name


class IllegalBetError(ValueError):
    """The bet is not one the game allows."""


class IllegalChoiceError(ValueError):
    """A choice was given that the round does not accept at this point."""


@dataclass(frozen=True)
class Awaiting:
    """What a round waits for: the kind of choice and the options the player may send."""

    kind: str
    options: tuple[str, ...]
    info: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "options": list(self.options), **self.info}


@dataclass(frozen=True)
class RoundResult:
    """The outcome of a round so far.

    ``win`` is in credits (the game's bet unit), already capped by the model's max win. When
    ``awaiting`` is set the round is not finished: the next call to ``play`` must bring one more
    choice and one more seed. ``jackpots`` lists tiers won (``"top"``, ``"bottom"``); their money
    comes from pools outside the round, so it is not part of ``win``.
    """

    game_id: str
    model_hash: str
    bet: int
    events: tuple[Event, ...]
    win: int
    awaiting: Awaiting | None = None
    jackpots: tuple[str, ...] = ()

    @property
    def is_complete(self) -> bool:
        return self.awaiting is None

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game_id,
            "model_hash": self.model_hash,
            "bet": self.bet,
            "win": self.win,
            "awaiting": None if self.awaiting is None else self.awaiting.to_json(),
            "jackpots": list(self.jackpots),
            "events": list(self.events),
        }


class ExactMath(Protocol):
    """A game's figures at a total bet (default: its reference bet): RTP, its split, PAR
    tables. Exact, or composed when the game also has :class:`ComposedMath`."""

    def __call__(self, bet: int | None = None) -> dict[str, Any]: ...


class ComposedMath(Protocol):
    """The figures of a game whose RTP is partly simulated (Superstars' Bonus Game): exact where
    the math allows, ``bonuses`` simulated features from ``seed`` where it does not."""

    def __call__(self, bet: int | None = None, bonuses: int = ..., seed: int = 0
                 ) -> dict[str, Any]: ...


class TopPrizeRate(Protocol):
    """P(the game's top prize is won) per feature game, simulated: ``bonuses`` feature games
    from ``seed``; a dict with ``per_bonus_game`` and its 99 % interval ``ci99``."""

    def __call__(self, bonuses: int = ..., seed: int = 0) -> dict[str, Any]: ...


class StandardDeviation(Protocol):
    """The exact SD of a round's return per unit bet, or None where it is not known exactly."""

    def __call__(self) -> float | None: ...


class Progressives(Protocol):
    """The jackpot pools a game's rounds feed: ``{tier, reset, rate, ...}`` each."""

    def __call__(self) -> list[dict[str, Any]]: ...


@runtime_checkable
class Simulatable(Protocol):
    """What the Monte Carlo runner plays."""

    id: str
    model_hash: str

    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play ``spins`` rounds (collecting at every choice) and return their running sums."""
        ...

    def component_names(self) -> list[str]:
        """Names of the win components the kernel accumulates, in slot order."""
        ...


@runtime_checkable
class Game(Protocol):
    """What every game offers the rest of the platform (server, CLI, simulator).

    The capabilities below the round are optional: ``None`` where a game lacks one. The games of
    the engine's families (:class:`slotlab.games.contract.FamilyGame`) have all that a game must
    offer; a game embedded by a test or an operator may offer only the round.
    """

    id: str
    name: str
    model_hash: str

    def bets(self) -> list[int]:
        """Allowed total bets, in credits, ascending."""
        ...

    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        """Play (or re-play) a round; ``len(seeds) == len(choices) + 1``."""
        ...

    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        """The choice the platform makes for a player who never came back."""
        ...

    def describe(self) -> dict[str, Any]:
        """What a client needs to draw the game and its PAYS/HELP pages (JSON-able)."""
        ...

    def max_win_x(self) -> int:
        """The model's max win per round in multiples of the total bet."""
        ...

    def theoretical_rtp(self) -> float:
        """Theoretical RTP of the game as offered (at the reference bet)."""
        ...

    @property
    def exact(self) -> ExactMath | None: ...

    @property
    def composed(self) -> ComposedMath | None: ...

    @property
    def sd(self) -> StandardDeviation | None: ...

    @property
    def progressives(self) -> Progressives | None: ...

    @property
    def simulation(self) -> Simulatable | None: ...


def game_cash_caps(game: Game) -> dict[str, int]:
    """The game's own cap of a round's win per currency, in WHOLE units of the currency
    (``{"COP": 350_000_000}``: "COP 350,000,000 or 10,000 times the stake, whichever comes
    first"), from its optional ``cash_caps()``; the server turns it into minor units."""
    caps = getattr(game, "cash_caps", None)
    return dict(caps()) if callable(caps) else {}


def check_bet(game: Game, bet: int) -> None:
    """Raise :class:`IllegalBetError` unless ``bet`` is one of the game's total bets."""
    if bet not in game.bets():
        raise IllegalBetError(f"bet {bet} is not allowed; allowed total bets: {game.bets()}")


def check_inputs(game: Game, bet: int, seeds: Sequence[Seed], choices: Sequence[str]) -> None:
    """Validate the shape of a ``play`` call; games call this first."""
    check_bet(game, bet)
    if len(seeds) != len(choices) + 1:
        raise ValueError(f"{len(choices)} choices need {len(choices) + 1} seeds, got {len(seeds)}")


K = TypeVar("K", bound=Hashable)


class ReportCache(Generic[K]):
    """A game's figures (an exact report, say) computed once per key, typically the bet; each
    :meth:`get` returns a deep copy, so a caller that changes its copy leaves the cache as it is."""

    def __init__(self) -> None:
        self._reports: dict[K, dict[str, Any]] = {}

    def get(self, key: K, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The report for ``key``, from ``compute()`` the first time."""
        if key not in self._reports:
            self._reports[key] = compute()
        return copy.deepcopy(self._reports[key])


def play(game: Game, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
    """Play a round of ``game``; see the module docstring."""
    return game.play(bet, seeds, choices)


def replay(
    game: Game, bet: int, seeds: Sequence[Seed], choices: Sequence[str], events: Sequence[Event]
) -> tuple[bool, RoundResult]:
    """Re-run a recorded round; ``True`` when it reproduces the recorded events exactly.

    Both sides are compared as JSON, the form in which events are stored.
    """
    result = game.play(bet, seeds, choices)
    return _as_json(result.events) == _as_json(events), result


def _as_json(events: Sequence[Event]) -> Any:
    return json.loads(json.dumps(list(events), sort_keys=True))
