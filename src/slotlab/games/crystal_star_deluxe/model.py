"""Crystal Star Deluxe model files: load, validate, hash, and compile to kernel arrays.

A model file (``models/crystal-star-deluxe.v*.json``) holds the symbols, the reel strips, the
paylines, the paytable (combinations of base symbols, in credits per credit bet per line), the
multiplier cap, the three-Star prizes and the progressive settings. Its version is the SHA-256 of
its canonical JSON (:func:`slotlab.model.content_hash`).

Kernel encoding (every array is ``int64``):

* symbol codes are indices into ``Model.symbol_ids`` (the model's names: ``"STAR^"``, ``"777x2"``,
  ``"-"``...); per code, ``base`` (:data:`BLANK`, :data:`STAR` or a base-symbol index >= 2),
  ``mult`` (the fixed multiplier, 1 when none) and ``arrow`` (+1 down, -1 up, 0 not a Star);
* ``combo_mask[c]`` is a bit mask of the base symbols combination ``c`` accepts (bit = base code),
  combinations sorted by pay, highest first, so the first match on a line is its highest win.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, field_validator, model_validator

from slotlab.model import GameModel, ModelError, Strict, read_spec, strip_window

from .kernel import BLANK, STAR

MODELS = Path(__file__).parent / "models"
DEFAULT_VERSION = 1

N_REELS = 3
N_ROWS = 3
TIERS = ("top", "bottom")  # kernel tier codes 0 and 1


class SymbolSpec(Strict):
    base: str = Field(min_length=1)
    name: str = Field(min_length=1)
    multiplier: int = Field(default=1, ge=1)
    arrow: Literal["up", "down"] | None = None


class BetSpec(Strict):
    lines: int = Field(ge=1)
    credits_per_line: list[int] = Field(min_length=1)
    max_bet_credits: int = Field(ge=1)


class MaxBetStars(Strict):
    top_line: Literal["top"]
    other_lines: Literal["bottom"]
    subsequent_top_line_x_line_bet: int = Field(ge=0)
    subsequent_other_lines_credits: int = Field(ge=0)


class BelowMaxStars(Strict):
    top_line: int = Field(ge=0)
    other_lines: int = Field(ge=0)


class ThreeStars(Strict):
    top_line: int = Field(ge=1)
    below_max_bet_x_line_bet: BelowMaxStars
    max_bet: MaxBetStars


class ProgressiveSpec(Strict):
    tier: Literal["top", "bottom"]
    # What players read ("Top Progressive"); optional so that model versions without it load.
    name: str | None = Field(default=None, min_length=1)
    reset_credits: int = Field(gt=0)
    rate: str

    @property
    def display_name(self) -> str:
        return self.name or f"{self.tier.title()} Progressive"

    @field_validator("rate")
    @classmethod
    def _rate_is_fraction(cls, v: str) -> str:
        try:
            r = Fraction(v)
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"rate {v!r} is not a fraction like '1/250'") from exc
        if not 0 <= r < 1:
            raise ValueError(f"rate {v!r} must be in [0, 1)")
        return v


class ModelSpec(Strict):
    """The schema of a Crystal Star Deluxe model file."""

    family: Literal["crystal_star_deluxe"] | None = None
    id: str
    name: str
    version: int = Field(ge=1)
    source: str = ""
    game: str = ""
    grid: tuple[int, int]
    row_convention: str = ""
    lines: list[tuple[int, int, int]] = Field(min_length=1)
    bet: BetSpec
    symbols: dict[str, SymbolSpec]
    line_pays_x_line_bet: dict[str, int]
    combo_legend: dict[str, str]
    combo_symbols: dict[str, list[str]]
    multiplier_cap: int = Field(ge=1)
    three_stars: ThreeStars
    progressives: list[ProgressiveSpec]
    reel_strips: list[list[str]]

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if tuple(self.grid) != (N_REELS, N_ROWS):
            raise ValueError(f"grid must be [3, 3], got {list(self.grid)}")
        for i, line in enumerate(self.lines, 1):
            if any(not 0 <= r < N_ROWS for r in line):
                raise ValueError(f"line {i} has a row outside 0..2: {list(line)}")
        if len(set(self.lines)) != len(self.lines):
            raise ValueError("two paylines have the same rows")
        if self.bet.lines != len(self.lines):
            raise ValueError(f"bet.lines is {self.bet.lines} but {len(self.lines)} lines are given")
        cpl = self.bet.credits_per_line
        if cpl != sorted(set(cpl)) or cpl[0] < 1:
            raise ValueError("bet.credits_per_line must be ascending distinct positive integers")
        if self.bet.max_bet_credits != self.bet.lines * cpl[-1]:
            raise ValueError("bet.max_bet_credits must be lines x the largest credits per line")
        if not 1 <= self.three_stars.top_line <= len(self.lines):
            raise ValueError(f"three_stars.top_line {self.three_stars.top_line} is not a payline")
        stars = [s for s, spec in self.symbols.items() if spec.base == "STAR"]
        if not stars:
            raise ValueError("the model has no Crystal Star symbol (base 'STAR')")
        for s in stars:
            spec = self.symbols[s]
            if spec.arrow is None or spec.multiplier != 1:
                raise ValueError(f"Star symbol {s!r} needs an arrow and no multiplier")
        for s, spec in self.symbols.items():
            if spec.base != "STAR" and spec.arrow is not None:
                raise ValueError(f"only Stars carry an arrow, not {s!r}")
            if spec.base == "BLANK" and spec.multiplier != 1:
                raise ValueError(f"blank {s!r} cannot carry a multiplier")
        bases = {spec.base for spec in self.symbols.values()} - {"STAR", "BLANK"}
        if set(self.line_pays_x_line_bet) != set(self.combo_symbols):
            raise ValueError("line_pays_x_line_bet and combo_symbols must name the same combos")
        if set(self.combo_legend) != set(self.combo_symbols):
            raise ValueError("combo_legend and combo_symbols must name the same combos")
        for combo, members in self.combo_symbols.items():
            if not members or not set(members) <= bases:
                raise ValueError(f"combo {combo} must list base symbols from {sorted(bases)}")
            if self.line_pays_x_line_bet[combo] <= 0:
                raise ValueError(f"combo {combo} must pay a positive amount")
        if sorted(p.tier for p in self.progressives) != sorted(TIERS):
            raise ValueError("progressives must define exactly the tiers 'top' and 'bottom'")
        if len(self.reel_strips) != N_REELS:
            raise ValueError(f"need {N_REELS} reel strips, got {len(self.reel_strips)}")
        for i, strip in enumerate(self.reel_strips, 1):
            _check_strip(i, strip, self.symbols)
        if np.prod([len(s) for s in self.reel_strips], dtype=object) >= 1 << 32:
            raise ValueError("the full cycle (product of strip lengths) must be below 2**32")
        return self


def _check_strip(reel: int, strip: list[str], symbols: dict[str, SymbolSpec]) -> None:
    n = len(strip)
    if n < 5:
        raise ValueError(f"reel {reel}: a strip needs at least 5 stops")
    unknown = sorted(set(strip) - set(symbols))
    if unknown:
        raise ValueError(f"reel {reel}: unknown symbols {unknown}")
    stars = [i for i, s in enumerate(strip) if symbols[s].base == "STAR"]
    # Every window a play shows holds its Star and lies within two stops of it (a Star moves its
    # reel by at most two rows), so Stars at least 3 stops apart keep one Star per reel in view.
    for k, a in enumerate(stars):
        b = stars[k + 1] if k + 1 < len(stars) else stars[0] + n
        if len(stars) > 1 and b - a < 3:
            raise ValueError(f"reel {reel}: Stars at stops {a} and {b % n} are fewer than 3 apart")


@dataclass(frozen=True)
class Progressive:
    tier: str
    reset: int  # credits
    rate: Fraction  # share of max-bet coin-in


class Model(GameModel[ModelSpec]):
    """A validated model and its kernel arrays (see the module docstring for the encoding)."""

    def __init__(self, spec: ModelSpec, raw: dict[str, Any], source: str) -> None:
        super().__init__(spec, raw, source)
        self.symbol_ids: list[str] = list(spec.symbols)
        payable = {s.base for s in spec.symbols.values()} - {"STAR", "BLANK"}
        base_names = ["BLANK", "STAR", *sorted(payable)]
        self.base_names = base_names
        code = {s: i for i, s in enumerate(self.symbol_ids)}
        self.base = np.array([base_names.index(s.base) for s in spec.symbols.values()], np.int64)
        self.mult = np.array([s.multiplier for s in spec.symbols.values()], np.int64)
        self.arrow = np.array(
            [{"up": -1, "down": 1, None: 0}[s.arrow] for s in spec.symbols.values()], np.int64
        )
        self.lengths = np.array([len(s) for s in spec.reel_strips], np.int64)
        # Each strip is followed by its first two stops, so row k of top-row stop i is
        # strips[r, i + k] with no modulo.
        self.strips = np.zeros((N_REELS, int(self.lengths.max()) + 2), np.int64)
        for r, strip in enumerate(spec.reel_strips):
            self.strips[r, : len(strip) + 2] = [code[s] for s in strip + strip[:2]]
        self.lines = np.array(spec.lines, np.int64)
        # nonblank[r, i]: bit k set when row k of reel r at top-row stop i is not a blank;
        # line_table[(m1 << 6) | (m2 << 3) | m3]: bit l set when payline l + 1 crosses no blank
        # given those three reel masks. A line with a blank cannot win (the Star never
        # substitutes for a blank), so the kernel only looks at the lines in this set.
        self.nonblank = np.zeros((N_REELS, int(self.lengths.max())), np.int64)
        for r in range(N_REELS):
            for i in range(int(self.lengths[r])):
                for row in range(N_ROWS):
                    if self.base[self.strips[r, i + row]] != BLANK:
                        self.nonblank[r, i] |= 1 << row
        self.line_table = np.zeros(1 << (3 * N_REELS), np.int64)
        for key in range(1 << (3 * N_REELS)):
            masks = ((key >> 6) & 7, (key >> 3) & 7, key & 7)
            for li, rows in enumerate(spec.lines):
                if all(masks[r] >> rows[r] & 1 for r in range(N_REELS)):
                    self.line_table[key] |= 1 << li
        # Highest pay first; ties keep file order.
        self.combo_ids = sorted(
            spec.combo_symbols, key=lambda c: -spec.line_pays_x_line_bet[c]
        )
        self.combo_mask = np.array(
            [sum(1 << base_names.index(b) for b in spec.combo_symbols[c]) for c in self.combo_ids],
            np.int64,
        )
        self.combo_pay = np.array(
            [spec.line_pays_x_line_bet[c] for c in self.combo_ids], np.int64
        )
        self.progressives = {
            p.tier: Progressive(p.tier, p.reset_credits, Fraction(p.rate))
            for p in spec.progressives
        }
        ts = spec.three_stars
        self.top_line = ts.top_line  # 1-based
        self.line_bets = list(spec.bet.credits_per_line)
        self.max_line_bet = self.line_bets[-1]
        self.n_lines = len(spec.lines)
        # Kernel parameters: [cap, top line index (0-based), below-max top x lb, below-max other
        # x lb, max-bet repeat top x lb, max-bet repeat other credits, top reset, bottom reset]
        self.params = np.array(
            [
                spec.multiplier_cap,
                ts.top_line - 1,
                ts.below_max_bet_x_line_bet.top_line,
                ts.below_max_bet_x_line_bet.other_lines,
                ts.max_bet.subsequent_top_line_x_line_bet,
                ts.max_bet.subsequent_other_lines_credits,
                self.progressives["top"].reset,
                self.progressives["bottom"].reset,
            ],
            np.int64,
        )

    def bets(self) -> list[int]:
        """Allowed total bets in credits: lines x credits per line."""
        return [self.n_lines * c for c in self.line_bets]

    def window(self, stops: list[int] | np.ndarray) -> list[list[str]]:
        """Symbol ids in view, ``[reel][row]`` with row 0 on top, for top-row ``stops``."""
        return strip_window(self.strips, self.lengths, self.symbol_ids, stops, N_ROWS)


def model_path(version: int = DEFAULT_VERSION) -> Path:
    return MODELS / f"crystal-star-deluxe.v{version}.json"


def load_model(source: int | str | Path | dict[str, Any] = DEFAULT_VERSION) -> Model:
    """A model version number, a file path or an already parsed dict, validated."""
    return Model(*read_spec(ModelSpec, source,
                            lambda s: model_path(s) if isinstance(s, int) else None))


__all__ = ["BLANK", "STAR", "TIERS", "Model", "ModelError", "ModelSpec", "load_model"]
