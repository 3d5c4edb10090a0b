"""Super 12 Stars model files: load, validate, hash, and compile to kernel arrays.

A model file (``models/super-12-stars.v*.json``) holds the research model of
``game-models.md`` section 2: symbols, 30 paylines, the pay tables, the feature tables and three
sets of reel strips. Its version is the SHA-256 of its canonical JSON
(:func:`slotlab.model.content_hash`).

**Pay unit.** Every amount the kernel handles is in *pay units* of one line bet
(total bet / :data:`PAY_DIVISOR` = 30). Every research pay is a whole number of line bets:
line pays and the Wheel are x line bet, and the smallest total-bet pays (silver 3 = 0.5x, a 0.5x
star) are 15 units. Bets are ``30 x credits per line`` credits, so a win in credits is
``units x credits per line``, always an integer.

**Kernel encoding** (every array is ``int64``):

* symbol codes: the index in :data:`SYMBOLS` (``SE`` = 0 ... ``CH`` = 7 are the paying symbols,
  then ``W`` 8, ``GS`` 9 golden scatter, ``SS`` 10 silver scatter, ``BO`` 11 Bonus, ``WH`` 12
  Wheel, ``S7`` 13 Super 7, ``T10`` 14 and ``T12`` 15 the giant 1x3 Super 10 / Super 12);
* ``strips[set, reel, i]`` for the reel sets :data:`REEL_SETS` (``BASE`` 0, ``FREE`` 1 for the
  Bonus free spins, ``S10_FREE`` 2 for the Super 10 free spins), each strip followed by its first
  two stops so that row ``k`` of top-row stop ``i`` is ``strips[set, reel, i + k]`` without a
  modulo (the window wraps round); ``lengths[set, reel]`` is the strip length, ``stops`` are
  top-row indices in ``range(lengths[set, reel])``; unused tail entries are ``-1``;
* ``lines[li, reel]``: row of payline ``li + 1`` on each reel; ``masks`` from
  :func:`slotlab.mechanics.lines.line_masks`;
* ``paytab[symbol, run]``: units of a run of ``run`` (0..5) cells, non-zero for runs 3..5 of the
  paying symbols and of ``W`` (a line of wilds pays as ``wild_only_line_pays_as``, the Seven);
  ``substitutes[symbol]`` 1 for the paying symbols only (the wild stands in for nothing else);
  ``min_count[symbol]`` the shortest paying run (6 = never pays on a line);
* ``golden_pays[count]`` (count 0..5) and ``silver_pays[count]`` (0..9): units of a scatter
  count anywhere in view; ``bonus_pay``: units of three Bonus symbols (once per trigger);
* ``star_units[i]``: units of star value ``i`` of ``star_values`` (MINOR and MAJOR at their
  fixed amounts); ``grand_units``; ``s10_kind[i]`` (:data:`S10_DIRECT`, :data:`S10_FRENZY`,
  :data:`S10_FREE_SPINS`) and ``s10_amount[i]`` (units of a direct win, or a number of spins) of
  Super 10 reel outcome ``i``; ``frenzy_values[box]`` and ``frenzy_colours[box]`` (index into
  ``colours``) of the mirrored Frenzy Wheel, red boxes first.

**Feature tables** are :class:`slotlab.mechanics.weighted.WeightedTable`s (integer weights, the
research's fractional weights scaled by :meth:`WeightedTable.of`; ``.cumulative()`` for the
kernel, ``.probability(i)`` exact):

* ``wheel``: segment values in units (= x line bet);
* ``tv_spins``, ``tv_multiplier``: the two draws of the TV mini game (spins, multiplier);
* ``super10``: outcomes ``(kind, value)`` as in the file (``("DIRECT", 3)`` x total bet,
  ``("FRENZY", None)``, ``("FS", 5)`` spins);
* ``frenzy``: the 20 boxes ``(value, colour)``, each value once per colour with the same weight;
  ``frenzy_per_colour`` the values of one colour; the wheel stops once the total is above
  ``frenzy_limit``;
* ``star_values``: labels ``"0.5"``, ``"1"`` ... ``"MINOR"``, ``"MAJOR"`` (the value of a star);
* ``lucky_cell``: what one empty Lucky Stars cell shows after a respin: outcome 0 nothing
  (``1 - p``), outcome ``i + 1`` a star of value ``i`` (``p x`` its star-value probability), the
  table :func:`slotlab.mechanics.hold_and_win.land_on_free_cells` draws from; ``lucky_p`` is
  ``p`` as a fraction.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np
from pydantic import Field, model_validator

from slotlab.mechanics.lines import line_masks
from slotlab.mechanics.weighted import WeightedTable
from slotlab.model import GameModel, ModelError, Strict, read_spec, strip_window

MODELS = Path(__file__).parent / "models"
DEFAULT_VERSION = 2

N_REELS = 5
N_ROWS = 3
CENTRE = 2  # reel 3, the central reel (0-based)
PAY_DIVISOR = 30  # pay unit = line bet = total bet / 30

SYMBOLS = ("SE", "BA", "BE", "GR", "PL", "OR", "LE", "CH",
           "W", "GS", "SS", "BO", "WH", "S7", "T10", "T12")
PAYING = SYMBOLS[:8]
SE, BA, BE, GR, PL, OR, LE, CH = range(8)
W, GS, SS, BO, WH, S7, T10, T12 = range(8, 16)
NEVER = N_REELS + 1  # min_count of a symbol that never pays on a line

REEL_SETS = ("base", "free", "super10_free")
BASE, FREE, S10_FREE = 0, 1, 2

S10_DIRECT, S10_FRENZY, S10_FREE_SPINS = 0, 1, 2
S10_KINDS = {"DIRECT": S10_DIRECT, "FRENZY": S10_FRENZY, "FS": S10_FREE_SPINS}

# Where each symbol may stand: reel set -> 1-based reels (game-models.md 2.4.3; the [RULE]
# parts: Wheel on 1, 3, 5; Bonus on 2, 3, 4; Super 7/10/12 on the central reel; no golden
# scatter or Wheel in free spins, no Bonus either in the Super 10 free spins).
_ALL = {1, 2, 3, 4, 5}
_PLACES: dict[str, dict[str, set[int]]] = {
    "base": {"W": {2, 3, 4}, "GS": _ALL, "SS": {2, 3, 4}, "BO": {2, 3, 4}, "WH": {1, 3, 5},
             "S7": {3}, "T10": {3}, "T12": {3}},
    "free": {"W": {2, 3, 4}, "SS": {2, 3, 4}, "BO": {2, 3, 4}, "S7": {3}},
    "super10_free": {"W": {2, 3, 4}, "SS": {2, 3, 4}, "S7": {3}},
}
ONE_PER_WINDOW = ("GS", "BO", "WH", "S7")  # counted once per reel: never two in one window
GIANTS = ("T10", "T12")  # 1x3 symbols: blocks of exactly three stops


Number = int | float


def _units(x: Number | str, what: str) -> int:
    """``x`` times the total bet in units of a line bet; it must be a whole number of them."""
    u = Fraction(str(x)) * PAY_DIVISOR
    if u.denominator != 1 or u < 0:
        raise ValueError(f"{what} = {x} x total bet is not a whole number of line bets (1/30)")
    return int(u)


class BetSpec(Strict):
    lines: int
    credits_per_line: list[int] = Field(min_length=1)


class FsMinigame(Strict):
    spins_weight: list[tuple[int, Number]] = Field(min_length=1)
    multiplier_weight: list[tuple[int, Number]] = Field(min_length=1)
    max_total_spins: int = Field(ge=1)


class FrenzySpec(Strict):
    values_per_colour: list[int] = Field(min_length=1)
    weights: list[Number] = Field(min_length=1)
    colours: tuple[str, str]
    stop_when_total_gt: int = Field(ge=1)


class LuckyStarsSpec(Strict):
    cells: int
    initial_stars: int
    respins: int = Field(ge=1)
    p_star_per_empty_cell: float = Field(gt=0, lt=1)
    star_values_x_total_bet_weight: list[tuple[Number | Literal["MINOR", "MAJOR"], Number]] = (
        Field(min_length=1))
    MINOR: Number = Field(ge=0)
    MAJOR: Number = Field(ge=0)
    GRAND: Number = Field(ge=0)


class ReelStrips(Strict):
    base: list[list[str]]
    free: list[list[str]]
    super10_free: list[list[str]]


class ModelSpec(Strict):
    """The schema of a Super 12 Stars model file."""

    family: Literal["super_12_stars"] | None = None
    id: str
    name: str
    version: int = Field(ge=1)
    source: str = ""
    game: str = ""
    grid: tuple[int, int]
    row_convention: str = ""
    lines: list[tuple[int, int, int, int, int]] = Field(min_length=1)
    bet: BetSpec
    max_win_cap_x: int | None = Field(default=None, ge=1)
    symbols: dict[str, str]
    line_pays_x_line_bet: dict[str, tuple[int, int, int]]
    wild_only_line_pays_as: str
    golden_scatter_pays_x_total_bet: dict[int, Number]
    silver_scatter_pays_x_total_bet: dict[int, Number]
    bonus_trigger_pay_x_total_bet: Number = Field(ge=0)
    wheel_segments_x_line_bet_weight: list[tuple[int, Number]] = Field(min_length=1)
    fs_minigame: FsMinigame
    super10_reel: list[tuple[Literal["DIRECT", "FRENZY", "FS"], Number | None, Number]] = (
        Field(min_length=1))
    frenzy_wheel: FrenzySpec
    lucky_stars: LuckyStarsSpec
    reel_strips: ReelStrips

    @model_validator(mode="after")
    def _consistent(self) -> ModelSpec:
        if tuple(self.grid) != (N_REELS, N_ROWS):
            raise ValueError(f"grid must be [5, 3], got {list(self.grid)}")
        for i, line in enumerate(self.lines, 1):
            if any(not 0 <= r < N_ROWS for r in line):
                raise ValueError(f"line {i} has a row outside 0..2: {list(line)}")
        if len(set(self.lines)) != len(self.lines):
            raise ValueError("two paylines have the same rows")
        if len(self.lines) != PAY_DIVISOR or self.bet.lines != PAY_DIVISOR:
            raise ValueError(f"the game has {PAY_DIVISOR} fixed lines: lines and bet.lines "
                             f"must be {PAY_DIVISOR}")
        cpl = self.bet.credits_per_line
        if cpl != sorted(set(cpl)) or cpl[0] < 1:
            raise ValueError("bet.credits_per_line must be ascending distinct positive integers")
        if tuple(self.symbols) != SYMBOLS:
            raise ValueError(f"symbols must be exactly {list(SYMBOLS)} in this order")
        if set(self.line_pays_x_line_bet) != set(PAYING):
            raise ValueError(f"line_pays_x_line_bet must give 3/4/5 pays for {list(PAYING)}")
        for s, pays in self.line_pays_x_line_bet.items():
            if any(p < 0 for p in pays):
                raise ValueError(f"line pays of {s} must not be negative")
        if self.wild_only_line_pays_as not in PAYING:
            raise ValueError("wild_only_line_pays_as must be a paying symbol")
        _check_pays("golden_scatter_pays_x_total_bet", self.golden_scatter_pays_x_total_bet,
                    range(3, 6))
        _check_pays("silver_scatter_pays_x_total_bet", self.silver_scatter_pays_x_total_bet,
                    range(3, 10))
        _units(self.bonus_trigger_pay_x_total_bet, "bonus_trigger_pay_x_total_bet")
        _weights("wheel_segments_x_line_bet_weight", self.wheel_segments_x_line_bet_weight)
        if any(v < 1 for v, _ in self.wheel_segments_x_line_bet_weight):
            raise ValueError("wheel segments must pay at least 1 x line bet")
        fs = self.fs_minigame
        _weights("fs_minigame.spins_weight", fs.spins_weight)
        _weights("fs_minigame.multiplier_weight", fs.multiplier_weight)
        if any(v < 1 for v, _ in fs.spins_weight + fs.multiplier_weight):
            raise ValueError("free spins and multipliers must be at least 1")
        _weights("super10_reel", [(k, w) for k, _, w in self.super10_reel])
        for kind, value, _ in self.super10_reel:
            if kind == "FRENZY" and value is not None:
                raise ValueError("a FRENZY outcome of super10_reel carries no value (null)")
            if kind == "DIRECT" and (value is None or _units(value, "super10 DIRECT") < 1):
                raise ValueError("a DIRECT outcome of super10_reel needs a positive x total bet")
            if kind == "FS" and (not isinstance(value, int) or value < 1):
                raise ValueError("an FS outcome of super10_reel needs a positive whole number "
                                 "of spins")
        fw = self.frenzy_wheel
        if len(fw.values_per_colour) != len(fw.weights):
            raise ValueError("frenzy_wheel needs one weight per value")
        _weights("frenzy_wheel", list(zip(fw.values_per_colour, fw.weights, strict=True)))
        if any(v < 1 for v in fw.values_per_colour) or fw.colours[0] == fw.colours[1]:
            raise ValueError("frenzy_wheel values must be positive and its two colours differ")
        ls = self.lucky_stars
        if ls.cells != N_REELS * N_ROWS or ls.initial_stars != N_ROWS:
            raise ValueError("lucky_stars has 15 cells and starts with the 3 central-reel stars")
        _weights("lucky_stars.star_values_x_total_bet_weight", ls.star_values_x_total_bet_weight)
        for v, _ in ls.star_values_x_total_bet_weight:
            if not isinstance(v, str) and _units(v, "a star value") < 1:
                raise ValueError("star values must be positive")
        for name in ("MINOR", "MAJOR", "GRAND"):
            _units(getattr(ls, name), f"lucky_stars.{name}")
        for set_name in REEL_SETS:
            strips = getattr(self.reel_strips, set_name)
            if len(strips) != N_REELS:
                raise ValueError(f"reel_strips.{set_name}: need {N_REELS} strips")
            for r, strip in enumerate(strips, 1):
                _check_strip(set_name, r, strip)
        return self


def _check_pays(name: str, pays: dict[int, Number], counts: range) -> None:
    if set(pays) != set(counts):
        raise ValueError(f"{name} must give a pay for each count {counts.start}..{counts.stop - 1}")
    for c, x in pays.items():
        _units(x, f"{name}[{c}]")


def _weights(name: str, pairs: list[tuple[Any, Number]]) -> None:
    if any(not w > 0 for _, w in pairs):
        raise ValueError(f"{name}: every weight must be positive")


def _check_strip(set_name: str, reel: int, strip: list[str]) -> None:
    where = f"reel_strips.{set_name} reel {reel}"
    n = len(strip)
    if n < N_ROWS:
        raise ValueError(f"{where}: a strip needs at least {N_ROWS} stops")
    unknown = sorted(set(strip) - set(SYMBOLS))
    if unknown:
        raise ValueError(f"{where}: unknown symbols {unknown}")
    places = _PLACES[set_name]
    for s in set(strip) - set(PAYING):
        if reel not in places.get(s, set()):
            raise ValueError(f"{where}: {s} may not appear on this reel in this set")
    for p in range(n):
        window = [strip[(p + k) % n] for k in range(N_ROWS)]
        for s in ONE_PER_WINDOW:
            if window.count(s) > 1:
                raise ValueError(f"{where}: two {s} in the window at stop {p}")
    for s in GIANTS:
        # Every giant cell belongs to a block of exactly three in a row.
        cells = [i for i in range(n) if strip[i] == s]
        starts = [i for i in cells if strip[(i - 1) % n] != s]
        for i in starts:
            run = 1
            while run <= n and strip[(i + run) % n] == s:
                run += 1
            if run != N_ROWS:
                raise ValueError(f"{where}: {s} must come in blocks of exactly 3 stops "
                                 f"(block at {i} has {run})")
        if cells and not starts:
            raise ValueError(f"{where}: a strip of {s} alone")


class Model(GameModel[ModelSpec]):
    """A validated model and its kernel arrays (see the module docstring for the encoding)."""

    def __init__(self, spec: ModelSpec, raw: dict[str, Any], source: str) -> None:
        super().__init__(spec, raw, source)
        self.symbol_ids: tuple[str, ...] = SYMBOLS
        self.code = {s: i for i, s in enumerate(SYMBOLS)}
        sets = [getattr(spec.reel_strips, s) for s in REEL_SETS]
        self.lengths = np.array([[len(s) for s in strips] for strips in sets], np.int64)
        self.strips = np.full((len(sets), N_REELS, int(self.lengths.max()) + N_ROWS - 1), -1,
                              np.int64)
        for si, strips in enumerate(sets):
            for r, strip in enumerate(strips):
                codes = [self.code[s] for s in strip + strip[: N_ROWS - 1]]
                self.strips[si, r, : len(codes)] = codes
        self.lines = np.array(spec.lines, np.int64)
        self.masks = line_masks(self.lines, N_ROWS)
        self.paytab = np.zeros((len(SYMBOLS), N_REELS + 1), np.int64)
        for s, pays in spec.line_pays_x_line_bet.items():
            self.paytab[self.code[s], 3:] = pays
        self.paytab[W] = self.paytab[self.code[spec.wild_only_line_pays_as]]
        self.substitutes = np.zeros(len(SYMBOLS), np.int64)
        self.substitutes[: len(PAYING)] = 1
        self.min_count = np.full(len(SYMBOLS), NEVER, np.int64)
        for s in (*range(len(PAYING)), W):
            paying = [k for k in range(1, N_REELS + 1) if self.paytab[s, k] > 0]
            if paying:
                self.min_count[s] = paying[0]
        self.golden_pays = np.zeros(N_REELS + 1, np.int64)
        for c, x in spec.golden_scatter_pays_x_total_bet.items():
            self.golden_pays[c] = _units(x, "golden")
        self.silver_pays = np.zeros(3 * N_ROWS + 1, np.int64)
        for c, x in spec.silver_scatter_pays_x_total_bet.items():
            self.silver_pays[c] = _units(x, "silver")
        self.bonus_pay = _units(spec.bonus_trigger_pay_x_total_bet, "bonus")

        self.wheel: WeightedTable[int] = WeightedTable.of(spec.wheel_segments_x_line_bet_weight)
        fs = spec.fs_minigame
        self.tv_spins: WeightedTable[int] = WeightedTable.of(fs.spins_weight)
        self.tv_multiplier: WeightedTable[int] = WeightedTable.of(fs.multiplier_weight)
        self.max_free_spins = fs.max_total_spins

        self.super10: WeightedTable[tuple[str, Number | None]] = WeightedTable.of(
            [((k, v), w) for k, v, w in spec.super10_reel])
        self.s10_kind = np.array([S10_KINDS[k] for k, _ in self.super10.values], np.int64)
        self.s10_amount = np.array(
            [_units(cast(Number, v), "super10") if k == "DIRECT" else int(v or 0)
             for k, v in self.super10.values], np.int64)

        fw = spec.frenzy_wheel
        self.colours: tuple[str, str] = tuple(fw.colours)  # type: ignore[assignment]
        self.frenzy_per_colour: WeightedTable[int] = WeightedTable.of(
            list(zip(fw.values_per_colour, fw.weights, strict=True)))
        self.frenzy: WeightedTable[tuple[int, str]] = WeightedTable.of(
            [((v, c), w) for c in self.colours
             for v, w in zip(fw.values_per_colour, fw.weights, strict=True)])
        self.frenzy_values = np.array([v for v, _ in self.frenzy.values], np.int64)
        self.frenzy_colours = np.array([self.colours.index(c) for _, c in self.frenzy.values],
                                       np.int64)
        self.frenzy_limit = fw.stop_when_total_gt

        ls = spec.lucky_stars
        labels = [v if isinstance(v, str) else _label(v)
                  for v, _ in ls.star_values_x_total_bet_weight]
        self.star_values: WeightedTable[str] = WeightedTable.of(
            list(zip(labels, (w for _, w in ls.star_values_x_total_bet_weight), strict=True)))
        self.minor_units = _units(ls.MINOR, "MINOR")
        self.major_units = _units(ls.MAJOR, "MAJOR")
        self.grand_units = _units(ls.GRAND, "GRAND")
        fixed = {"MINOR": self.minor_units, "MAJOR": self.major_units}
        self.star_units = np.array(
            [fixed[v] if isinstance(v, str) else _units(v, "star")
             for v, _ in ls.star_values_x_total_bet_weight], np.int64)
        self.lucky_p = Fraction(str(ls.p_star_per_empty_cell))
        star_p = self.star_values.probabilities()
        self.lucky_cell: WeightedTable[int] = WeightedTable.of(
            [(0, 1 - self.lucky_p)] + [(i + 1, self.lucky_p * q) for i, q in enumerate(star_p)])
        self.lucky_cells = ls.cells
        self.lucky_respins = ls.respins
        self.lucky_initial = ls.initial_stars

        self.line_levels = list(spec.bet.credits_per_line)
        self.cap_x = spec.max_win_cap_x

    def bets(self) -> list[int]:
        """Allowed total bets in credits: 30 lines x credits per line."""
        return [PAY_DIVISOR * c for c in self.line_levels]

    def window(self, reel_set: int, stops: list[int] | np.ndarray) -> list[list[str]]:
        """Symbol ids in view, ``[reel][row]`` with row 0 on top, for top-row ``stops``."""
        return strip_window(self.strips[reel_set], self.lengths[reel_set], SYMBOLS, stops,
                            N_ROWS)


def _label(x: Number) -> str:
    """A star value as players read it: ``0.5``, ``1``, ``10``."""
    f = Fraction(str(x))
    return str(f.numerator) if f.denominator == 1 else str(float(f))


def model_path(version: int = DEFAULT_VERSION) -> Path:
    return MODELS / f"super-12-stars.v{version}.json"


def load_model(source: int | str | Path | dict[str, Any] = DEFAULT_VERSION) -> Model:
    """A model version number, a file path or an already parsed dict, validated."""
    return Model(*read_spec(ModelSpec, source,
                            lambda s: model_path(s) if isinstance(s, int) else None))


__all__ = ["Model", "ModelError", "ModelSpec", "load_model", "model_path"]
