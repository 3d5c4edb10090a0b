"""Superstars model files: load, validate, hash, and compile the base game to kernel arrays.

A model file (``models/superstars*.json``) holds the bet ladder, the 13 symbols, the 45 lines,
the line paytable, the five base reel strips, the round cap and the Bonus Game's parameters
(the ``bonus`` section, whose schema is :class:`.bonus_spec.BonusSpec`). Its version is the
SHA-256 of its canonical JSON (:func:`slotlab.model.content_hash`).

Units: a bet is the total stake and every pay is x the stake. Line pays are integers in *pay
units* of ``1 / bet.divisor`` of the total bet (the research's 0.1x becomes 2 with divisor 20);
Bonus prizes and the cap are whole multiples of the total bet. Bets are credits; a total bet is
``divisor x level`` credits, so every pay is a whole number of credits, and one credit is
``bet.credit_value`` money (0.005: the ladder 0.10 .. 100 is 20 .. 20000 credits).

Kernel encoding (``int64``): symbol codes are indices into ``Model.symbol_ids`` (file order);
``paytab[code, run]`` in pay units, with the wild's row equal to the row of the symbol a run of
wilds pays as; strips are followed by their first ``rows - 1`` stops so the window needs no
modulo; cell = ``reel * 5 + row``, row 0 on top.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from slotlab.mechanics.lines import line_masks
from slotlab.model import GameModel, ModelError, Strict, read_spec, strip_window

try:  # the Bonus Game's schema, written beside this module by the bonus engineer
    from .bonus_spec import BonusSpec as _BonusSchema
except ImportError:  # pragma: no cover - until it lands the section stays a plain dict
    _BonusSchema = None  # type: ignore[assignment,misc]

MODELS = Path(__file__).parent / "models"
DEFAULT_ID = "superstars"

N_REELS = 5
N_ROWS = 5
N_CELLS = N_REELS * N_ROWS
MAX_RUN = N_REELS + 1  # paytab columns: run length 0 .. 5

# Kernel scalars: indices into Model.scalars.
S_WILD, S_SCATTER, S_DICE, S_DICE_REEL, S_TRIGGER, S_DIVISOR, S_CAP_X = 0, 1, 2, 3, 4, 5, 6
N_SCALARS = 7


class BetSpec(Strict):
    divisor: int = Field(ge=1)
    levels: list[int] = Field(min_length=1)
    credit_value: str
    ladder_money: list[str] = Field(min_length=1)

    @field_validator("credit_value")
    @classmethod
    def _decimal(cls, v: str) -> str:
        try:
            d = Decimal(v)
        except InvalidOperation as exc:
            raise ValueError(f"credit_value {v!r} is not a decimal number") from exc
        if not d > 0:
            raise ValueError("credit_value must be positive")
        return v

    @model_validator(mode="after")
    def _ladder(self) -> BetSpec:
        if self.levels != sorted(set(self.levels)) or self.levels[0] < 1:
            raise ValueError("bet.levels must be ascending distinct positive integers")
        if len(self.ladder_money) != len(self.levels):
            raise ValueError("bet.ladder_money needs one amount per level")
        unit = Decimal(self.credit_value)
        for level, money in zip(self.levels, self.ladder_money, strict=True):
            if Decimal(money) != level * self.divisor * unit:
                raise ValueError(f"bet level {level} is {level * self.divisor * unit} money, "
                                 f"not {money} (levels x divisor x credit_value)")
        return self


class ModelSpec(Strict):
    """The schema of a Superstars model file."""

    family: Literal["superstars"] | None = None
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    version: int = Field(ge=1)
    rtp_target: str = Field(pattern=r"^\d{1,3}\.\d{2}%$")
    source: str = ""
    game: str = ""
    units: str = ""
    grid: tuple[int, int]
    row_convention: str = ""
    bet: BetSpec
    symbols: dict[str, str]
    wild: str
    wild_only_line_pays_as: str
    scatter: str
    dice: str
    dice_reel: int = Field(ge=1, le=N_REELS)
    trigger_count: int = Field(ge=1, le=N_CELLS)
    lines: list[tuple[int, int, int, int, int]] = Field(min_length=1)
    line_pays: dict[str, dict[int, int]]
    reel_strips: list[list[str]]
    max_win_x: int = Field(ge=1)
    bonus: Any  # validated in _consistent against the bonus engineer's BonusSpec

    @field_validator("bonus")
    @classmethod
    def _bonus(cls, v: Any) -> Any:
        if _BonusSchema is not None:
            return v if isinstance(v, _BonusSchema) else _BonusSchema.model_validate(v)
        if not isinstance(v, dict):
            raise ValueError("bonus must be an object")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if tuple(self.grid) != (N_REELS, N_ROWS):
            raise ValueError(f"grid must be [5, 5], got {list(self.grid)}")
        for i, line in enumerate(self.lines, 1):
            if any(not 0 <= r < N_ROWS for r in line):
                raise ValueError(f"line {i} has a row outside 0..4: {list(line)}")
        if len(set(self.lines)) != len(self.lines):
            raise ValueError("two lines have the same rows")
        if len(self.lines) > 62:
            raise ValueError("at most 62 lines (one bit each in the line masks)")
        special = {self.wild, self.scatter, self.dice}
        if len(special) != 3:
            raise ValueError("wild, scatter and dice must be three different symbols")
        for role, s in (("wild", self.wild), ("scatter", self.scatter), ("dice", self.dice),
                        ("wild_only_line_pays_as", self.wild_only_line_pays_as)):
            if s not in self.symbols:
                raise ValueError(f"{role}: unknown symbol {s!r}")
        for s, table in self.line_pays.items():
            if s not in self.symbols or s in special:
                raise ValueError(f"line_pays: {s!r} is not a paying symbol")
            for count, pay in table.items():
                if not 1 <= count <= N_REELS or pay <= 0:
                    raise ValueError(f"line_pays.{s}: {count} of a kind must be in 1..5 and "
                                     f"pay a positive amount, got {pay}")
        if self.wild_only_line_pays_as not in self.line_pays:
            raise ValueError("wild_only_line_pays_as must name a paying symbol")
        if len(self.reel_strips) != N_REELS:
            raise ValueError(f"need {N_REELS} reel strips, got {len(self.reel_strips)}")
        for r, strip in enumerate(self.reel_strips, 1):
            _check_strip(r, strip, self)
        return self


def _check_strip(reel: int, strip: list[str], spec: ModelSpec) -> None:
    n = len(strip)
    if n < N_ROWS:
        raise ValueError(f"reel {reel}: a strip needs at least {N_ROWS} stops")
    unknown = sorted(set(strip) - set(spec.symbols))
    if unknown:
        raise ValueError(f"reel {reel}: unknown symbols {unknown}")
    if spec.dice in strip and reel != spec.dice_reel:
        raise ValueError(f"reel {reel}: the Dice may only be on reel {spec.dice_reel}")
    # Scatters and Dice at least 5 stops apart (cyclically): a window shows at most one of them
    # per reel, so a spin shows at most one Dice and the exact trigger math is per reel.
    at = [i for i, s in enumerate(strip) if s in (spec.scatter, spec.dice)]
    for k, a in enumerate(at):
        b = at[k + 1] if k + 1 < len(at) else at[0] + n
        if len(at) > 1 and b - a < N_ROWS:
            raise ValueError(f"reel {reel}: scatter/dice stops {a} and {b % n} are fewer than "
                             f"{N_ROWS} apart")


class Model(GameModel[ModelSpec]):
    """A validated model and its kernel arrays (see the module docstring for the encoding)."""

    def __init__(self, spec: ModelSpec, raw: dict[str, Any], source: str) -> None:
        super().__init__(spec, raw, source)
        self.symbol_ids: list[str] = list(spec.symbols)
        code = {s: i for i, s in enumerate(self.symbol_ids)}
        self.code = code
        n_sym = len(self.symbol_ids)
        self.wild, self.scatter, self.dice = code[spec.wild], code[spec.scatter], code[spec.dice]
        self.divisor = spec.bet.divisor
        self.paytab = np.zeros((n_sym, MAX_RUN), np.int64)
        for s, table in spec.line_pays.items():
            for count, pay in table.items():
                self.paytab[code[s], count] = pay
        # A run of wilds pays as the best symbol (the shared evaluator pays paytab[wild]).
        self.paytab[self.wild] = self.paytab[code[spec.wild_only_line_pays_as]]
        self.substitutes = np.array(
            [0 if i in (self.wild, self.scatter, self.dice) else 1 for i in range(n_sym)],
            np.int64)
        self.min_count = np.full(n_sym, MAX_RUN, np.int64)  # > reels: never pays on a line
        for i in range(n_sym):
            paying = np.nonzero(self.paytab[i])[0]
            if len(paying):
                self.min_count[i] = int(paying[0])
        self.lengths = np.array([len(s) for s in spec.reel_strips], np.int64)
        self.strips = np.zeros((N_REELS, int(self.lengths.max()) + N_ROWS - 1), np.int64)
        for r, strip in enumerate(spec.reel_strips):
            self.strips[r, : len(strip) + N_ROWS - 1] = [code[s] for s in
                                                         strip + strip[: N_ROWS - 1]]
        self.lines = np.array(spec.lines, np.int64)
        self.masks = line_masks(self.lines, N_ROWS)
        self.scalars = np.array(
            [self.wild, self.scatter, self.dice, spec.dice_reel - 1, spec.trigger_count,
             self.divisor, spec.max_win_x], np.int64)
        self.n_lines = len(spec.lines)
        self.credit_value = Decimal(spec.bet.credit_value)

    @property
    def bonus_spec(self) -> Any:
        """The ``bonus`` section: a ``BonusSpec`` once ``bonus_spec.py`` exists, else a dict."""
        return self.spec.bonus

    def bets(self) -> list[int]:
        """Allowed total bets in credits: divisor x each level."""
        return [self.divisor * lv for lv in self.spec.bet.levels]

    def pay_unit(self, bet: int) -> int:
        """Credits per pay unit at total bet ``bet`` (one of :meth:`bets`)."""
        return bet // self.divisor

    def window(self, stops: list[int] | np.ndarray) -> list[list[str]]:
        """Symbol ids in view, ``[reel][row]`` with row 0 on top, for top-row ``stops``."""
        return strip_window(self.strips, self.lengths, self.symbol_ids, stops, N_ROWS)


def model_path(model_id: str = DEFAULT_ID) -> Path:
    return MODELS / f"{model_id}.json"


def load_model(source: str | Path | dict[str, Any] = DEFAULT_ID) -> Model:
    """Load and validate a model: a shipped id (``"superstars-96"``), a file path, or a dict.

    Raises :class:`slotlab.model.ModelError` naming every problem.
    """
    def shipped(s: str | Path) -> Path | None:
        return model_path(s) if isinstance(s, str) and model_path(s).exists() else None

    return Model(*read_spec(ModelSpec, source, shipped))


__all__ = ["N_CELLS", "N_REELS", "N_ROWS", "Model", "ModelError", "ModelSpec", "load_model"]
