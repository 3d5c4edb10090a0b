"""The data-only line game model: schema, validation and compilation to kernel arrays.

The file format is documented in docs/model-format.md. Every pay is an integer number of
*pay units*; a pay unit is the total bet divided by ``bet.divisor`` (so with 30 lines and a
divisor of 30, one pay unit is the line bet). The total bet is ``divisor * level`` credits for
each allowed ``level``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

import numpy as np
from pydantic import Field, PositiveInt, model_validator

from slotlab.model import Strict, content_hash, read_json, validate

FORMAT = "slotlab.lines/1"


class SymbolSpec(Strict):
    id: str = Field(min_length=1, max_length=16)
    name: str = ""


class BetSpec(Strict):
    divisor: PositiveInt
    levels: list[PositiveInt] = Field(min_length=1)


class WildSpec(Strict):
    symbol: str
    substitutes: list[str] | Literal["all"] = "all"
    multiplier: PositiveInt = 1
    multiplier_mode: Literal["line", "each"] = "line"


class ScatterSpec(Strict):
    symbol: str
    pays: dict[int, int] = Field(default_factory=dict)


class FreeSpinsSpec(Strict):
    awards: dict[int, PositiveInt] = Field(min_length=1)
    multiplier: PositiveInt = 1
    retrigger: bool = True
    max_spins: PositiveInt | None = None
    strips: str = "base"


class GambleSpec(Strict):
    max_steps: PositiveInt = 5


class ReelsSpec(Strict):
    """What every reel game's model file has, whatever its family: the window, symbols, bets,
    lines and their pays, wild, scatter, reel strips, free spins and the max win. A family's
    spec extends it (its ``family`` and ``format``, and its features)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    reels: int = Field(ge=1, le=7)
    rows: int = Field(ge=1, le=9)
    symbols: list[SymbolSpec] = Field(min_length=1)
    bet: BetSpec
    lines: list[list[int]] = Field(min_length=1)
    pays: dict[str, dict[int, int]]
    wild: WildSpec | None = None
    scatter: ScatterSpec | None = None
    strips: dict[str, list[list[str]]]
    free_spins: FreeSpinsSpec | None = None
    max_win_x: PositiveInt
    rules: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_reels(self) -> Self:
        ids = [s.id for s in self.symbols]
        if len(set(ids)) != len(ids):
            raise ValueError("symbol ids must be unique")
        known = set(ids)

        def need(symbol: str, where: str) -> None:
            if symbol not in known:
                raise ValueError(f"{where}: unknown symbol {symbol!r}")

        if "base" not in self.strips:
            raise ValueError("strips: a 'base' reel set is required")
        for name, strips in self.strips.items():
            if len(strips) != self.reels:
                raise ValueError(f"strips.{name}: {len(strips)} strips for {self.reels} reels")
            for r, strip in enumerate(strips):
                if len(strip) < self.rows:
                    raise ValueError(
                        f"strips.{name}[{r}]: {len(strip)} stops is shorter than {self.rows} rows"
                    )
                for s in strip:
                    need(s, f"strips.{name}[{r}]")
        for i, line in enumerate(self.lines, start=1):
            if len(line) != self.reels:
                raise ValueError(f"line {i}: {len(line)} rows given for {self.reels} reels")
            if any(not 0 <= row < self.rows for row in line):
                raise ValueError(f"line {i}: row outside the window 0..{self.rows - 1}: {line}")
        if not self.pays:
            raise ValueError("pays: no paying symbol")
        for sym, table in self.pays.items():
            need(sym, "pays")
            if not table:
                raise ValueError(f"pays.{sym}: missing pays")
            for count, pay in table.items():
                if not 1 <= count <= self.reels:
                    raise ValueError(f"pays.{sym}: count {count} outside 1..{self.reels}")
                if pay <= 0:
                    raise ValueError(f"pays.{sym}: pay for {count} must be positive, got {pay}")
        if self.wild is not None:
            need(self.wild.symbol, "wild.symbol")
            if self.wild.substitutes != "all":
                for s in self.wild.substitutes:
                    need(s, "wild.substitutes")
            if self.scatter is not None and (
                self.wild.substitutes != "all" and self.scatter.symbol in self.wild.substitutes
            ):
                raise ValueError("wild.substitutes: a wild never substitutes for the scatter")
        if self.scatter is not None:
            need(self.scatter.symbol, "scatter.symbol")
            if self.scatter.symbol in self.pays:
                raise ValueError("pays: the scatter pays by count in scatter.pays, not on lines")
            for count, pay in self.scatter.pays.items():
                if not 1 <= count <= self.reels * self.rows or pay <= 0:
                    raise ValueError(f"scatter.pays: bad entry {count}: {pay}")
        if self.free_spins is not None:
            if self.scatter is None:
                raise ValueError("free_spins: awarded by scatter count, but there is no scatter")
            if self.free_spins.strips not in self.strips:
                raise ValueError(f"free_spins.strips: no reel set {self.free_spins.strips!r}")
            for count in self.free_spins.awards:
                if not 1 <= count <= self.reels * self.rows:
                    raise ValueError(f"free_spins.awards: bad scatter count {count}")
        return self


class LineModelSpec(ReelsSpec):
    family: Literal["lines"] | None = None
    format: Literal["slotlab.lines/1"]
    gamble: GambleSpec | None = None


@dataclass(frozen=True)
class LineArrays:
    """A model compiled to the int arrays the kernels read (symbols are indices)."""

    reels: int
    rows: int
    lines: np.ndarray  # int64[n_lines, reels], row per reel
    base: np.ndarray  # int64[reels, max L + rows]: strip r, wrapped so windows need no modulo
    base_len: np.ndarray  # int64[reels]
    free: np.ndarray
    free_len: np.ndarray
    paytab: np.ndarray  # int64[n_symbols, reels + 1]: pay units for a run of k
    min_count: np.ndarray  # int64[n_symbols]: smallest paying run (reels + 1 when none)
    substitutes: np.ndarray  # bool[n_symbols]: the wild stands in for it
    wild: int  # -1 when none
    wild_mult: int
    wild_each: bool
    scatter: int  # -1 when none
    scatter_pays: np.ndarray  # int64[reels * rows + 1]
    fs_awards: np.ndarray  # int64[reels * rows + 1]
    fs_mult: int
    fs_retrigger: bool
    fs_max: int  # 0 = unlimited
    cap_units: int


class LineModel:
    """A validated line game model with its hash and kernel arrays."""

    def __init__(self, spec: LineModelSpec, raw: dict[str, Any]) -> None:
        self.spec = spec
        self.raw = raw
        self.hash = content_hash(raw)
        self.symbol_ids = [s.id for s in spec.symbols]
        self.index = {s: i for i, s in enumerate(self.symbol_ids)}
        self.arrays = self._compile()

    @classmethod
    def from_file(cls, path: Path | str) -> LineModel:
        path = Path(path)
        raw = read_json(path)
        return cls(validate(LineModelSpec, raw, str(path)), raw)

    @classmethod
    def from_dict(cls, raw: dict[str, Any], source: str = "<model>") -> LineModel:
        return cls(validate(LineModelSpec, raw, source), raw)

    @property
    def divisor(self) -> int:
        return self.spec.bet.divisor

    def bets(self) -> list[int]:
        return sorted(self.divisor * level for level in self.spec.bet.levels)

    def reel_set(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """Strips as one padded array, each wrapped by ``rows`` stops so windows need no modulo."""
        strips = self.spec.strips[name]
        lengths = np.array([len(s) for s in strips], dtype=np.int64)
        out = np.full((len(strips), int(lengths.max()) + self.spec.rows), -1, dtype=np.int64)
        for r, strip in enumerate(strips):
            ids = [self.index[s] for s in strip]
            wrapped = (ids * (self.spec.rows // len(ids) + 2))[: len(ids) + self.spec.rows]
            out[r, : len(wrapped)] = wrapped
        return out, lengths

    def _compile(self) -> LineArrays:
        spec = self.spec
        n_sym = len(self.symbol_ids)
        paytab = np.zeros((n_sym, spec.reels + 1), dtype=np.int64)
        for sym, table in spec.pays.items():
            for count, pay in table.items():
                paytab[self.index[sym], count] = pay
        min_count = np.full(n_sym, spec.reels + 1, dtype=np.int64)
        for s in range(n_sym):
            paying = np.nonzero(paytab[s])[0]
            if paying.size:
                min_count[s] = paying[0]
        wild = self.index[spec.wild.symbol] if spec.wild else -1
        scatter = self.index[spec.scatter.symbol] if spec.scatter else -1
        substitutes = np.zeros(n_sym, dtype=np.bool_)
        if spec.wild is not None:
            subs = self.symbol_ids if spec.wild.substitutes == "all" else spec.wild.substitutes
            for sid in subs:
                substitutes[self.index[sid]] = True
            substitutes[wild] = False
            if scatter >= 0:
                substitutes[scatter] = False
        cells = spec.reels * spec.rows
        scatter_pays = np.zeros(cells + 1, dtype=np.int64)
        fs_awards = np.zeros(cells + 1, dtype=np.int64)
        if spec.scatter is not None:
            for count, pay in spec.scatter.pays.items():
                scatter_pays[count] = pay
        fs = spec.free_spins
        if fs is not None:
            for count, award in fs.awards.items():
                fs_awards[count] = award
        base, base_len = self.reel_set("base")
        free, free_len = self.reel_set(fs.strips if fs else "base")
        return LineArrays(
            reels=spec.reels,
            rows=spec.rows,
            lines=np.array(spec.lines, dtype=np.int64),
            base=base,
            base_len=base_len,
            free=free,
            free_len=free_len,
            paytab=paytab,
            min_count=min_count,
            substitutes=substitutes,
            wild=wild,
            wild_mult=spec.wild.multiplier if spec.wild else 1,
            wild_each=bool(spec.wild and spec.wild.multiplier_mode == "each"),
            scatter=scatter,
            scatter_pays=scatter_pays,
            fs_awards=fs_awards,
            fs_mult=fs.multiplier if fs else 1,
            fs_retrigger=bool(fs and fs.retrigger),
            fs_max=(fs.max_spins or 0) if fs else 0,
            cap_units=spec.max_win_x * spec.bet.divisor,
        )
