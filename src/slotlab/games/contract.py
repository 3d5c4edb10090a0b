"""The game contract: what a game family is, and what each of its games offers the platform.

A family (:class:`GameFamily`) is the code that plays one kind of model file: its name, which
model files ship with it (game ids, RTP variants) and the game class that loads a model. The
registry in :mod:`slotlab.games` lists every family once. Its game class extends
:class:`FamilyGame`, which holds what every game shares (the model, its hash, the bets, building
a game from a model's data) and names what a game must offer (play, replay, a description for
the client, simulation) and what it may offer: exact math, an RTP partly simulated, a standard
deviation, progressives, a tuner, a top-prize rate. What a game lacks is ``None``, so a caller
asks ``game.exact is None`` instead of probing for a method.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

import numpy as np

from slotlab.mechanics.accumulators import ACC_WIN
from slotlab.model import ModelError
from slotlab.rng import Seed
from slotlab.rounds import (
    ComposedMath,
    ExactMath,
    Progressives,
    RoundResult,
    StandardDeviation,
    TopPrizeRate,
)


class UnknownGameError(LookupError):
    """No game has this id, no model file has this path, or no family has this name."""


M_co = TypeVar("M_co", covariant=True)


class _Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


class FamilyModel(Protocol):
    """What a family's validated model offers the contract."""

    @property
    def spec(self) -> _Named: ...

    @property
    def hash(self) -> str: ...

    @property
    def raw(self) -> dict[str, Any]: ...

    def bets(self) -> list[int]: ...


class ModelType(Protocol[M_co]):
    """A family's model class, when it reads a file or a model's parsed JSON itself."""

    def from_file(self, path: Path | str) -> M_co: ...

    def from_dict(self, raw: dict[str, Any], source: str = ...) -> M_co: ...


class Tuner(Protocol):
    """A game's own tuner of a simulated RTP: ``tuner(bonuses, seed)`` is an evaluator of model
    dicts (``slotlab tune`` on a game whose RTP is partly simulated)."""

    def __call__(self, bonuses: int, seed: int) -> Callable[[dict[str, Any]], float]: ...


class PreciseRtp(Protocol):
    """A partly simulated RTP estimated until its 99 % half-width is at most ``precision``,
    with variance reduction (``slotlab rtp --precision``): a report dict."""

    def __call__(self, precision: float = ..., seed: int = 0, workers: int = ...
                 ) -> dict[str, Any]: ...


M = TypeVar("M", bound=FamilyModel)


class FamilyGame(ABC, Generic[M]):
    """A game of a family, on one model. Subclasses set ``family`` and ``kind``, say how a model
    is read (``model_type``, or :meth:`read_model`) and implement the round, the description
    and the simulation; the optional capabilities stay ``None`` unless the family has them."""

    family: ClassVar[str]  # the name a model file declares and a stored model version keeps
    kind: ClassVar[str]  # what the client draws (``describe()["kind"]``)
    # The model class, where it reads files and parsed JSON itself (else: read_model)
    model_type: ClassVar[ModelType[Any] | None] = None

    exact: ExactMath | None = None  # the figures at a bet: exact, or composed (see ``composed``)
    composed: ComposedMath | None = None  # the same with a feature simulated (bonuses, seed)
    sd: StandardDeviation | None = None  # exact SD of a round's return per unit bet
    progressives: Progressives | None = None  # the jackpot pools a round feeds
    tuner: Tuner | None = None  # the game's own tuner of a simulated RTP
    top_prize: TopPrizeRate | None = None  # P(the top prize is won) per feature game
    precise_rtp: PreciseRtp | None = None  # the composed RTP to a chosen precision

    def __init__(self, model: M) -> None:
        self.model = model
        self.id = model.spec.id
        self.name = model.spec.name
        self.model_hash = model.hash

    @classmethod
    def read_model(cls, source: Path | dict[str, Any]) -> M:
        """The validated model of a file or of a model's parsed JSON (:class:`ModelError`):
        by ``model_type``; a family without one says how."""
        if cls.model_type is None:
            raise NotImplementedError(f"{cls.__name__} sets no model_type nor read_model")
        loaded: M = (cls.model_type.from_dict(source, "<dict>") if isinstance(source, dict)
                     else cls.model_type.from_file(source))
        return loaded

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        """The game on a model given as its parsed JSON (a stored model version)."""
        return cls(cls.read_model(data))

    @classmethod
    def from_file(cls, path: Path | str) -> Self:
        return cls(cls.read_model(Path(path)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r}, {self.model_hash[:12]})"

    def bets(self) -> list[int]:
        """Allowed total bets, in credits, ascending."""
        return self.model.bets()

    @property
    def simulation(self) -> FamilyGame[M]:
        """Every family game simulates itself (:meth:`simulate_chunk`)."""
        return self

    def model_source(self) -> tuple[str, dict[str, Any]]:
        """``(family, model data)``: what :meth:`GameFamily.from_data` rebuilds the game from,
        so that a model version stays playable after its file is edited."""
        return self.family, self.model.raw

    # -- what every game implements -------------------------------------------------------

    @abstractmethod
    def play(self, bet: int, seeds: Sequence[Seed], choices: Sequence[str] = ()) -> RoundResult:
        """Play (or re-play) a round; ``len(seeds) == len(choices) + 1``."""

    @abstractmethod
    def auto_choice(self, result: RoundResult, seed: Seed) -> str:
        """The choice the platform makes for a player who never came back."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """What a client needs to draw the game and its PAYS/HELP pages (JSON-able)."""

    @abstractmethod
    def max_win_x(self) -> int:
        """The model's max win per round in multiples of the total bet."""

    def theoretical_rtp(self) -> float:
        """Theoretical RTP of the game as offered: its exact RTP at the smallest bet (a family
        whose RTP is not exact, or not the same at every bet, says otherwise)."""
        if self.exact is None:
            raise NotImplementedError(f"{type(self).__name__} has no exact RTP to offer")
        return float(self.exact(self.bets()[0])["rtp"])

    @abstractmethod
    def simulate_chunk(self, bet: int, spins: int,
                       stream: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play ``spins`` rounds (collecting at every choice) and return their running sums."""

    @abstractmethod
    def component_names(self) -> list[str]:
        """Names of the win components the kernel accumulates, in slot order."""

    def round_wins(self, bet: int, rounds: int, stream: np.ndarray) -> np.ndarray:
        """The win in credits of each of ``rounds`` rounds played from ``stream`` (int64), each
        drawing what it draws in :meth:`simulate_chunk`. This is the slow path, a call per
        round; the families override it with a kernel that loops in compiled code."""
        out = np.zeros(rounds, np.int64)
        for i in range(rounds):
            out[i] = self.simulate_chunk(bet, 1, stream)[0][ACC_WIN]
        return out


AnyGame = FamilyGame[Any]


@dataclass(frozen=True)
class GameFamily:
    """One family, registered once in :mod:`slotlab.games`.

    ``game`` names the game class as ``"module:Class"`` and is imported on first use, so that
    loading one family never imports (or compiles) another's kernels. ``shipped`` maps the game
    ids that ship with the family to their model files; ``models`` is a folder whose every
    ``*.json`` file is a game of the family, its id the file name. ``variants`` maps another RTP
    variant's id to the game it is a variant of: listed and loadable, but offered only as the
    variant an operator chooses. ``formats`` are the ``format`` values (prefixes) that declare
    the family in a model file that has no ``family`` field.
    """

    name: str
    game: str
    shipped: Mapping[str, Path] = field(default_factory=dict)
    models: Path | None = None
    variants: Mapping[str, str] = field(default_factory=dict)
    formats: tuple[str, ...] = ()

    def game_class(self) -> type[AnyGame]:
        module, cls = self.game.split(":")
        found = getattr(importlib.import_module(module), cls)
        if not (isinstance(found, type) and issubclass(found, FamilyGame)):
            raise TypeError(f"{self.game} is not a FamilyGame")
        return found

    def ids(self) -> list[str]:
        """The game ids that ship with the family."""
        folder = sorted(p.stem for p in self.models.glob("*.json")) if self.models else []
        return [*self.shipped, *(i for i in folder if i not in self.shipped)]

    def shipped_file(self, game_id: str) -> Path | None:
        if game_id in self.shipped:
            return self.shipped[game_id]
        if self.models is not None and (self.models / f"{game_id}.json").is_file():
            return self.models / f"{game_id}.json"
        return None

    def declared_by(self, data: Mapping[str, Any]) -> bool:
        """Whether a model's data names this family (its ``family``, else its ``format``)."""
        if "family" in data:
            return bool(data["family"] == self.name)
        fmt = data.get("format")
        return isinstance(fmt, str) and fmt.startswith(self.formats) if self.formats else False

    def from_data(self, data: dict[str, Any]) -> AnyGame:
        return self.game_class().from_data(data)

    def from_file(self, path: Path) -> AnyGame:
        return self.game_class().from_file(path)


__all__ = ["AnyGame", "FamilyGame", "FamilyModel", "GameFamily", "ModelError", "PreciseRtp",
           "Tuner", "UnknownGameError"]
