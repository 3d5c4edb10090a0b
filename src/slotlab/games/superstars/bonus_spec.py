"""The schema of a Superstars model's ``bonus`` section: the Bonus Game, its board, the Final Game.

Everything is in integer form: prizes are whole multiples of the total bet, tables are
``[value, weight]`` pairs with positive integer weights, probabilities are ``"p/q"`` strings.
The rule text fixes the ranges (prizes of 1 to 25x, Starburst stacks of 2 to 5x, Gonzo's x2/x3/x5,
Miss Banks' 1 to 5x, the Final Game's 25, 50, 75, 100, 500 and 1000x, a board of 24 squares with
12 feature squares), so a model outside them is refused with a message that names the rule.

Board squares (index 0 is the bottom-left corner, the token moves clockwise): ``START`` (Extra
Life), ``-`` (a square without a Bonus function; the Upgrade gives it a value), ``FINN``,
``STARBURST``, ``WHEEL``, ``GONZO``, ``MISSBANKS``, ``EXTRASPINS``, ``SPACEWARS``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Literal

from pydantic import Field, field_validator, model_validator

from slotlab.mechanics.weighted import WeightedTable
from slotlab.model import Strict

SQUARES = ("-", "START", "FINN", "STARBURST", "WHEEL", "GONZO", "MISSBANKS", "EXTRASPINS",
           "SPACEWARS")  # kernel square codes 0..8, in this order
CHARACTERS = ("STARBURST", "SPACEWARS", "FINN", "GONZO", "MISSBANKS")  # the Random segment's
WHEEL_SEGMENTS = ("DICE1", "DICE2", "RANDOM", "REPLAY", "PLUS1", "UPGRADE")
FINAL_PRIZES = (25, 50, 75, 100, 500, 1000)
N_SQUARES = 24
N_FEATURE_SQUARES = 12
N_CELLS = 25  # the 5x5 reel window

Square = Literal["-", "START", "FINN", "STARBURST", "WHEEL", "GONZO", "MISSBANKS", "EXTRASPINS",
                 "SPACEWARS"]
Segment = Literal["DICE1", "DICE2", "RANDOM", "REPLAY", "PLUS1", "UPGRADE"]
Character = Literal["STARBURST", "SPACEWARS", "FINN", "GONZO", "MISSBANKS"]


def parse_probability(text: str) -> Fraction:
    """A ``"p/q"`` probability in [0, 1]; a clear error otherwise.

    >>> parse_probability("13/200")
    Fraction(13, 200)
    """
    try:
        p = Fraction(text)
    except (ValueError, ZeroDivisionError) as exc:
        raise ValueError(f"{text!r} is not a probability like '13/200'") from exc
    if not 0 <= p <= 1:
        raise ValueError(f"probability {text!r} is outside [0, 1]")
    return p


def _table(pairs: list[tuple[int, int]], what: str, lo: int, hi: int) -> list[tuple[int, int]]:
    if not pairs:
        raise ValueError(f"{what} needs at least one [value, weight] pair")
    values = [v for v, _ in pairs]
    if len(set(values)) != len(values):
        raise ValueError(f"{what} lists a value twice: {values}")
    for v, w in pairs:
        if not lo <= v <= hi:
            raise ValueError(f"{what}: value {v} is outside the rule's {lo} to {hi}")
        if w <= 0:
            raise ValueError(f"{what}: the weight of {v} must be a positive integer, got {w}")
    return pairs


def _range(r: tuple[int, int], what: str, lo: int, hi: int) -> tuple[int, int]:
    a, b = r
    if not lo <= a <= b <= hi:
        raise ValueError(f"{what} [{a}, {b}] must satisfy {lo} <= min <= max <= {hi}")
    return r


class Landing(Strict):
    """What lands on an empty position in a Bonus spin (otherwise it stays blank)."""

    prize: str
    dice: str

    @field_validator("prize", "dice")
    @classmethod
    def _probability(cls, v: str) -> str:
        parse_probability(v)
        return v

    @model_validator(mode="after")
    def _sum(self) -> Landing:
        if parse_probability(self.prize) + parse_probability(self.dice) > 1:
            raise ValueError("land.prize + land.dice must not exceed 1")
        if parse_probability(self.prize) == 0:
            raise ValueError("land.prize must be above 0, or no Bonus Game could ever end full")
        return self


class StarburstSpec(Strict):
    stack: Literal[3]  # "a vertical stack of 3 equal prizes"
    values_x_bet: list[tuple[int, int]]

    @field_validator("values_x_bet")
    @classmethod
    def _values(cls, v: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return _table(v, "starburst.values_x_bet", 2, 5)


class GonzoSpec(Strict):
    count: tuple[int, int]
    multipliers: list[tuple[int, int]]

    @field_validator("count")
    @classmethod
    def _count(cls, v: tuple[int, int]) -> tuple[int, int]:
        return _range(v, "gonzo.count", 1, 24)

    @field_validator("multipliers")
    @classmethod
    def _mults(cls, v: list[tuple[int, int]]) -> list[tuple[int, int]]:
        _table(v, "gonzo.multipliers", 2, 5)
        if any(m not in (2, 3, 5) for m, _ in v):
            raise ValueError("gonzo.multipliers: the rule allows only x2, x3 and x5")
        return v


class FinnSpec(Strict):
    count: tuple[int, int]
    add_x_bet: int = Field(ge=1)

    @field_validator("count")
    @classmethod
    def _count(cls, v: tuple[int, int]) -> tuple[int, int]:
        return _range(v, "finn.count", 1, 5)


class MissBanksSpec(Strict):
    count: tuple[int, int]
    values_x_bet: tuple[int, int]  # uniform over the range

    @field_validator("count")
    @classmethod
    def _count(cls, v: tuple[int, int]) -> tuple[int, int]:
        return _range(v, "missbanks.count", 4, 15)

    @field_validator("values_x_bet")
    @classmethod
    def _values(cls, v: tuple[int, int]) -> tuple[int, int]:
        return _range(v, "missbanks.values_x_bet", 1, 5)


class SpaceWarsSpec(Strict):
    respins: int = Field(ge=1)
    land: str
    top_values: int = Field(ge=1)

    @field_validator("land")
    @classmethod
    def _probability(cls, v: str) -> str:
        parse_probability(v)
        return v


class BonusSpec(Strict):
    """The ``bonus`` section of a Superstars model file."""

    initial_spins: int = Field(ge=1)
    extra_spins_max: int = Field(ge=1)
    land: Landing
    prizes_x_bet: list[tuple[int, int]]
    board: list[Square]
    wheel: list[tuple[Segment, int]]
    random_features: list[Character]
    starburst: StarburstSpec
    gonzo: GonzoSpec
    finn: FinnSpec
    missbanks: MissBanksSpec
    spacewars: SpaceWarsSpec
    plus_x_bet: int = Field(ge=1)
    upgrade_step_x_bet: int = Field(ge=1)
    final_board: list[int | Literal["DICE"]]

    @field_validator("prizes_x_bet")
    @classmethod
    def _prizes(cls, v: list[tuple[int, int]]) -> list[tuple[int, int]]:
        return _table(v, "prizes_x_bet", 1, 25)

    @field_validator("wheel")
    @classmethod
    def _wheel(cls, v: list[tuple[str, int]]) -> list[tuple[str, int]]:
        names = [s for s, _ in v]
        if sorted(names) != sorted(WHEEL_SEGMENTS):
            raise ValueError(f"wheel must list each of {list(WHEEL_SEGMENTS)} once, got {names}")
        if any(w <= 0 for _, w in v):
            raise ValueError("wheel weights must be positive integers")
        return v

    @field_validator("random_features")
    @classmethod
    def _random(cls, v: list[str]) -> list[str]:
        if sorted(v) != sorted(CHARACTERS):
            raise ValueError(f"random_features must list each of {list(CHARACTERS)} once")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> BonusSpec:
        if self.extra_spins_max < self.initial_spins:
            raise ValueError("extra_spins_max must be at least initial_spins")
        b = self.board
        if len(b) != N_SQUARES:
            raise ValueError(f"board must have {N_SQUARES} squares, got {len(b)}")
        if b[0] != "START" or b.count("START") != 1:
            raise ValueError("board[0] (bottom-left) must be the only START square")
        features = sum(1 for s in b if s != "-")
        if features != N_FEATURE_SQUARES:
            raise ValueError(f"board must have {N_FEATURE_SQUARES} feature squares, got {features}")
        missing = [s for s in SQUARES[1:] if s not in b]
        if missing:
            raise ValueError(f"board lacks the feature squares {missing}")
        f = self.final_board
        if len(f) != N_SQUARES:
            raise ValueError(f"final_board must have {N_SQUARES} squares, got {len(f)}")
        if f[0] != "DICE" or f.count("DICE") != 2:
            raise ValueError("final_board needs 2 DICE squares, one of them bottom-left (index 0)")
        bad = sorted({v for v in f if v != "DICE" and v not in FINAL_PRIZES})
        if bad:
            raise ValueError(f"final_board prizes must be among {list(FINAL_PRIZES)}, got {bad}")
        if self.spacewars.top_values > N_CELLS:
            raise ValueError("spacewars.top_values cannot exceed the 25 positions")
        cell = self.cell_table()
        if cell.total >= 1 << 32:
            raise ValueError("land probabilities x prize weights need too fine a denominator")
        return self

    # Tables the kernel and the exact math share -------------------------------------------

    def prize_table(self) -> WeightedTable[int]:
        return WeightedTable.of(self.prizes_x_bet)

    def wheel_table(self) -> WeightedTable[str]:
        return WeightedTable.of(self.wheel)

    def random_table(self) -> WeightedTable[str]:
        """The Random segment's characters: "one of the following ... randomly" (uniform)."""
        return WeightedTable.of([(c, 1) for c in self.random_features])

    def starburst_table(self) -> WeightedTable[int]:
        return WeightedTable.of(self.starburst.values_x_bet)

    def gonzo_table(self) -> WeightedTable[int]:
        return WeightedTable.of(self.gonzo.multipliers)

    def cell_table(self) -> WeightedTable[int]:
        """One draw per empty position: value 0 blank, -1 a Dice, v > 0 a prize of v x bet.

        The landing probabilities and the prize weights scale to one integer table, so a Bonus
        spin costs one draw per position (blank first: the common case stops the scan at once).
        """
        prize, dice = parse_probability(self.land.prize), parse_probability(self.land.dice)
        pt = self.prize_table()
        pairs: list[tuple[int, Fraction]] = [(0, 1 - prize - dice)]
        pairs += [(v, prize * p) for v, p in zip(pt.values, pt.probabilities(), strict=True)]
        pairs.append((-1, dice))
        return WeightedTable.of([(v, w) for v, w in pairs if w > 0])

    def square_codes(self) -> list[int]:
        return [SQUARES.index(s) for s in self.board]
