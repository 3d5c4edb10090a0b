"""The composed game model: a line game's reels and pays plus features taken from
:mod:`slotlab.mechanics` (free spins, a wheel, a hold-and-win grid, expanding reels with
respins), all from one file.

The format is documented in docs/model-format.md (``slotlab.composed/1``). Every amount is in
pay units (total bet / ``bet.divisor``), as in a line model. The reels, lines, pays, wild,
scatter and free spins are a line model's keys with a line model's meaning, and are checked and
compiled by :class:`~slotlab.games.lines.model.LineModel`, so the two families pay a window the
same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PositiveInt, model_validator

from slotlab.games.lines.model import LineModel, ReelsSpec
from slotlab.mechanics.weighted import WeightedTable
from slotlab.mechanics.wheel import Segment
from slotlab.model import Strict, content_hash, read_json, validate

FORMAT = "slotlab.composed/1"
Jackpot = Literal["Mini", "Minor", "Major", "Grand"]
JACKPOTS: tuple[Jackpot, ...] = ("Mini", "Minor", "Major", "Grand")
FEATURES = ("free_spins", "hold_and_win", "colour_wheel")
Feature = Literal["free_spins", "hold_and_win", "colour_wheel"]


class WheelSegment(Strict):
    """One segment: it pays ``pay`` units, or starts ``feature`` (its wins times
    ``multiplier``), or both. Free spins are the scatters' award, or ``spins`` (also what each
    retrigger in them awards)."""

    weight: PositiveInt
    pay: int = Field(default=0, ge=0)
    feature: Feature | None = None
    multiplier: PositiveInt = 1
    spins: PositiveInt | None = None
    # the strip set its free spins play on (default: free_spins.strips)
    strips: str | None = None

    @model_validator(mode="after")
    def _check(self) -> WheelSegment:
        if self.pay == 0 and self.feature is None:
            raise ValueError("a segment pays (pay > 0) or starts a feature, or both")
        if self.multiplier > 1 and self.feature is None:
            raise ValueError("multiplier: multiplies a feature's wins, but no feature is set")
        if self.spins is not None and self.feature != "free_spins":
            raise ValueError("spins: the free spins a segment awards, but it starts no "
                             "free_spins")
        if self.strips is not None and self.feature != "free_spins":
            raise ValueError("strips: the reels a segment's free spins play on, but it starts "
                             "no free_spins")
        return self


class WheelTrigger(Strict):
    """``count`` or more of ``symbol`` in the base spin's window spin the wheel."""

    symbol: str
    count: PositiveInt


class WheelSpec(Strict):
    """A wheel spun when the scatters award free spins, its segment deciding what they bring;
    or, with a ``trigger``, spun by its own symbol (the scatters then start free spins as
    without a wheel). ``name``: what the player sees it called."""

    name: str | None = Field(default=None, min_length=1, max_length=24)
    trigger: WheelTrigger | None = None
    segments: list[WheelSegment] = Field(min_length=1)


class ColourSegment(Strict):
    """One segment of the colour wheel: its colour and the multiplier it adds."""

    weight: PositiveInt
    colour: str
    multiplier: PositiveInt


class ColourWheelSpec(Strict):
    """A mini game on the player's choice (see :mod:`slotlab.mechanics.colour_wheel`)."""

    name: str | None = Field(default=None, min_length=1, max_length=24)
    colours: list[str] = Field(min_length=2, max_length=6)
    segments: list[ColourSegment] = Field(min_length=1)
    limit: PositiveInt = Field(le=10_000)

    @model_validator(mode="after")
    def _check(self) -> ColourWheelSpec:
        if len(set(self.colours)) != len(self.colours):
            raise ValueError("colours: each colour once")
        for i, seg in enumerate(self.segments):
            if seg.colour not in self.colours:
                raise ValueError(f"segments[{i}].colour: {seg.colour!r} is not one of the "
                                 f"colours {self.colours}")
        return self


class CoinSpec(Strict):
    """One entry of the coin table: a value in pay units, or one of the four jackpots."""

    weight: PositiveInt
    value: PositiveInt | None = None
    jackpot: Jackpot | None = None

    @model_validator(mode="after")
    def _check(self) -> CoinSpec:
        if (self.value is None) == (self.jackpot is None):
            raise ValueError("a coin has either a value or a jackpot")
        return self


class LandingSpec(Strict):
    """Weights of what one free cell shows after a respin."""

    nothing: PositiveInt
    coin: PositiveInt
    collector: int = Field(default=0, ge=0)


class HoldAndWinSpec(Strict):
    # what the player sees the feature called ("Coin Link"); the client's generic name without
    name: str | None = Field(default=None, min_length=1, max_length=24)
    symbol: str
    trigger: PositiveInt
    respins: PositiveInt = 3
    landing: LandingSpec
    coins: list[CoinSpec] = Field(min_length=1)
    jackpots: dict[Jackpot, PositiveInt] = Field(default_factory=dict)
    # the jackpot a grid with every cell held pays, on top of what its coins pay
    full_grid: Jackpot | None = None

    @model_validator(mode="after")
    def _check(self) -> HoldAndWinSpec:
        named = {c.jackpot for c in self.coins} | {self.full_grid}
        missing = [j for j in JACKPOTS if j in named and j not in self.jackpots]
        if missing:
            raise ValueError(f"jackpots: no value for {', '.join(missing)}, which a coin or "
                             "full_grid names")
        return self


class ExpandingSpec(Strict):
    """A symbol that, in view, turns its reel into the wild and awards respins with that reel
    held (see :mod:`slotlab.mechanics.expanding`)."""

    symbol: str
    respins: int = Field(default=1, ge=0, le=10)


class WholeReelSpec(Strict):
    """A symbol as tall as the reel (a run of ``rows`` on its strips): in full view it starts
    ``starts`` (the hold and win, its cells as coins)."""

    symbol: str
    starts: Literal["hold_and_win"] = "hold_and_win"


class PayingScatterSpec(Strict):
    """A symbol that pays by how many of it are in view, anywhere (``pays``: count to pay
    units). It starts nothing: the line keys' ``scatter`` is the one that awards free spins."""

    symbol: str
    pays: dict[int, PositiveInt] = Field(min_length=1)


class ComposedSpec(ReelsSpec):
    """A reel game's keys (checked as a line model's) plus the composed features."""

    family: Literal["composed"] | None = None  # the format declares it too
    format: Literal["slotlab.composed/1"]
    version: int = 1
    wheel: WheelSpec | None = None
    wheels: list[WheelSpec] = Field(default_factory=list)  # more wheels, after ``wheel``
    hold_and_win: HoldAndWinSpec | None = None
    expanding: ExpandingSpec | None = None
    whole_reel: WholeReelSpec | None = None
    colour_wheel: ColourWheelSpec | None = None
    scatters: list[PayingScatterSpec] = Field(default_factory=list)

    def line_part(self) -> dict[str, Any]:
        """The reels' keys, as a line model's data."""
        data = self.model_dump(include=set(ReelsSpec.model_fields) - {"rules"},
                               exclude_none=True)
        return {"format": "slotlab.lines/1", **data}

    @model_validator(mode="after")
    def _check(self) -> ComposedSpec:
        ids = {s.id for s in self.symbols}
        hw = self.hold_and_win
        if hw is not None:
            if hw.symbol not in ids:
                raise ValueError(f"hold_and_win.symbol: unknown symbol {hw.symbol!r}")
            if hw.symbol in self.pays:
                raise ValueError("hold_and_win.symbol: the coin pays by its value, not on lines")
            if self.scatter is not None and hw.symbol == self.scatter.symbol:
                raise ValueError("hold_and_win.symbol: the coin cannot be the scatter")
            if not 1 <= hw.trigger <= self.reels * self.rows:
                raise ValueError(f"hold_and_win.trigger: {hw.trigger} coins do not fit the "
                                 f"{self.reels * self.rows} cells")
            if self.wild is not None and (self.wild.substitutes != "all"
                                          and hw.symbol in self.wild.substitutes):
                raise ValueError("wild.substitutes: a wild never substitutes for the coin")
        ex = self.expanding
        if ex is not None:
            if ex.symbol not in ids:
                raise ValueError(f"expanding.symbol: unknown symbol {ex.symbol!r}")
            if self.wild is None:
                raise ValueError("expanding: the symbol turns its reel into the wild, but there "
                                 "is no wild")
            taken = {"the wild": self.wild.symbol,
                     "the scatter": self.scatter.symbol if self.scatter else None,
                     "the coin": hw.symbol if hw else None}
            for what, sym in taken.items():
                if ex.symbol == sym:
                    raise ValueError(f"expanding.symbol: cannot be {what}")
            if ex.symbol in self.pays:
                raise ValueError("expanding.symbol: it turns into the wild, it never pays on "
                                 "lines itself")
        if self.whole_reel is not None:
            self._check_whole_reel(self.whole_reel)
        self._check_scatters()
        self._check_wheels()
        if self.colour_wheel is not None and not any(
                s.feature == "colour_wheel" for _w, wheel in self.all_wheels()
                for s in wheel.segments):
            raise ValueError("colour_wheel: a wheel segment starts it, but none does")
        return self

    def all_wheels(self) -> list[tuple[str, WheelSpec]]:
        """Every wheel, with the key errors call it by: ``wheel``, then ``wheels[i]``."""
        first = [("wheel", self.wheel)] if self.wheel is not None else []
        return first + [(f"wheels[{i}]", w) for i, w in enumerate(self.wheels)]

    def _check_wheels(self) -> None:
        by_award: list[str] = []
        symbols: dict[str, str] = {}
        for where, wheel in self.all_wheels():
            if wheel.trigger is not None:
                sym = wheel.trigger.symbol
                if sym in symbols:
                    raise ValueError(f"{where}.trigger.symbol: {sym} already spins "
                                     f"{symbols[sym]}")
                symbols[sym] = where
                self._check_wheel_trigger(where, wheel)
            elif self.free_spins is None:
                raise ValueError(f"{where}: spun when scatters award free spins, but there are "
                                 "no free_spins (or give the wheel a trigger)")
            else:
                by_award.append(where)
            if len(by_award) > 1:
                raise ValueError(f"{where}: {by_award[0]} is already the wheel the scatters' "
                                 "award spins; give this one a trigger")
            for i, seg in enumerate(wheel.segments):
                if seg.feature == "hold_and_win" and self.hold_and_win is None:
                    raise ValueError(f"{where}.segments[{i}]: starts hold_and_win, but there "
                                     "is no hold_and_win")
                if seg.feature == "colour_wheel" and self.colour_wheel is None:
                    raise ValueError(f"{where}.segments[{i}]: starts colour_wheel, but there "
                                     "is no colour_wheel")
                if seg.strips is not None and seg.strips not in self.strips:
                    raise ValueError(f"{where}.segments[{i}].strips: no strip set "
                                     f"{seg.strips!r} (there are {sorted(self.strips)})")

    def _special(self) -> list[tuple[str, str]]:
        """The symbols with a role of their own: (what errors call it, symbol)."""
        roles = [("the wild", self.wild.symbol if self.wild else None),
                 ("the scatter", self.scatter.symbol if self.scatter else None),
                 ("the coin", self.hold_and_win.symbol if self.hold_and_win else None),
                 ("the expanding symbol", self.expanding.symbol if self.expanding else None),
                 ("the whole-reel symbol", self.whole_reel.symbol if self.whole_reel else None),
                 *(("a paying scatter", s.symbol) for s in self.scatters)]
        return [(what, sym) for what, sym in roles if sym is not None]

    def _check_own_symbol(self, sym: str, where: str, role: str, own: str = "") -> None:
        """A symbol with a role of its own (``own``: what :meth:`_special` calls that role, if it
        lists it): known, no other special symbol, paid on no line, never stood in for by the
        wild."""
        if sym not in {s.id for s in self.symbols}:
            raise ValueError(f"{where}: unknown symbol {sym!r}")
        for what, other in self._special():
            if sym == other and what != own:
                raise ValueError(f"{where}: cannot be {what}")
        if sym in self.pays:
            raise ValueError(f"{where}: it {role}, it never pays on lines")
        if self.wild is not None and self.wild.substitutes != "all" \
                and sym in self.wild.substitutes:
            raise ValueError(f"wild.substitutes: a wild never substitutes for {sym}, which "
                             f"{role}")

    def _check_wheel_trigger(self, where: str, wheel: WheelSpec) -> None:
        assert wheel.trigger is not None
        self._check_own_symbol(wheel.trigger.symbol, f"{where}.trigger.symbol",
                               "spins the wheel")
        if wheel.trigger.count > self.reels * self.rows:
            raise ValueError(f"{where}.trigger.count: {wheel.trigger.count} do not fit the "
                             f"{self.reels * self.rows} cells")
        for i, seg in enumerate(wheel.segments):
            if seg.feature == "free_spins" and seg.spins is None:
                raise ValueError(f"{where}.segments[{i}]: a wheel its own symbol spins has no "
                                 "scatter award to give as free spins: give its spins")
            if seg.feature == "free_spins" and self.free_spins is None:
                raise ValueError(f"{where}.segments[{i}]: starts free_spins, but there are no "
                                 "free_spins")

    def _check_scatters(self) -> None:
        seen: set[str] = set()
        for i, sc in enumerate(self.scatters):
            where = f"scatters[{i}]"
            if sc.symbol in seen:
                raise ValueError(f"{where}.symbol: {sc.symbol} is listed twice")
            seen.add(sc.symbol)
            self._check_own_symbol(sc.symbol, f"{where}.symbol", "pays by its count",
                                   "a paying scatter")
            for count in sc.pays:
                if not 1 <= count <= self.reels * self.rows:
                    raise ValueError(f"{where}.pays: {count} {sc.symbol} do not fit the "
                                     f"{self.reels * self.rows} cells")

    def _check_whole_reel(self, whole: WholeReelSpec) -> None:
        sym = whole.symbol
        self._check_own_symbol(sym, "whole_reel.symbol", "starts a feature",
                               "the whole-reel symbol")
        if self.hold_and_win is None:
            raise ValueError("whole_reel.starts: hold_and_win, but there is no hold_and_win")
        for name, strips in self.strips.items():
            for r, strip in enumerate(strips):
                for start, length in _runs(strip, sym):
                    if length != self.rows:
                        raise ValueError(
                            f"strips.{name}[{r}]: {sym} at stop {start} stands {length} high; "
                            f"it is one symbol {self.rows} rows tall, a run of {self.rows}")


def _runs(strip: list[str], symbol: str) -> list[tuple[int, int]]:
    """The runs of ``symbol`` on a circular strip: ``(first stop, length)``."""
    n = len(strip)
    if all(s == symbol for s in strip):
        return [(0, n)]
    runs = []
    for i in range(n):
        if strip[i] == symbol and strip[i - 1] != symbol:
            length = 1
            while strip[(i + length) % n] == symbol:
                length += 1
            runs.append((i, length))
    return runs


# a placeholder table for a game without a colour wheel (its kernel never draws from it)
NO_COLOUR_WHEEL: WeightedTable[tuple[int, int]] = WeightedTable.of([((0, 1), 1)])


@dataclass(frozen=True)
class CompiledWheel:
    """A wheel's segments and what spins it: ``count`` or more of ``symbol`` in the base
    window, or (``symbol`` -1) the scatters' award of free spins."""

    table: WeightedTable[Segment]
    symbol: int = -1
    count: int = 0
    name: str | None = None


@dataclass(frozen=True)
class FeatureArrays:
    """The features compiled for the round: coin symbol, tables and their draws."""

    coin: int  # symbol index, -1 without hold and win
    trigger: int
    respins: int
    landing: WeightedTable[str]  # "nothing", "coin", "collector"
    coins: WeightedTable[int]  # value in pay units (a jackpot's fixed value)
    coin_labels: tuple[str | None, ...]  # the jackpot an entry is, else None
    expanding: int = -1  # symbol index, -1 without expanding reels
    expanding_respins: int = 0
    whole_reel: int = -1  # symbol index, -1 without one
    # the colour wheel's segments: (colour index, multiplier); colours by name; its limit
    colour_segments: WeightedTable[tuple[int, int]] = NO_COLOUR_WHEEL
    colours: tuple[str, ...] = ()
    colour_limit: int = 0
    # the paying scatters: their symbol indices, and each one's pays by count (0..cells)
    scatter_symbols: tuple[int, ...] = ()
    scatter_pays: tuple[tuple[int, ...], ...] = ()
    full_grid: int = 0  # what a full grid pays on top of its coins (pay units), 0 without
    wheels: tuple[CompiledWheel, ...] = ()  # in the model's order: ``wheel``, then ``wheels``
    # the strip sets wheel segments play free spins on, besides the model's free-spin set
    strip_sets: tuple[str, ...] = ()

    @property
    def award_index(self) -> int:
        """Which of :attr:`wheels` the scatters' award of free spins spins; -1 for none."""
        return next((w for w, wheel in enumerate(self.wheels) if wheel.symbol < 0), -1)


class ComposedModel:
    """A validated composed model: its spec, hash, the line model of its reels and pays, and
    the features' tables."""

    def __init__(self, spec: ComposedSpec, raw: dict[str, Any], source: str) -> None:
        self.spec = spec
        self.raw = raw
        self.source = source
        self.hash = content_hash(raw)
        self.lines = LineModel.from_dict(spec.line_part(), source)
        self.symbol_ids = self.lines.symbol_ids
        self.index = self.lines.index
        self.features = self._features()

    @classmethod
    def from_file(cls, path: Path | str) -> ComposedModel:
        path = Path(path)
        raw = read_json(path)
        return cls(validate(ComposedSpec, raw, str(path)), raw, str(path))

    @classmethod
    def from_dict(cls, raw: dict[str, Any], source: str = "<dict>") -> ComposedModel:
        return cls(validate(ComposedSpec, raw, source), raw, source)

    @property
    def divisor(self) -> int:
        return self.spec.bet.divisor

    def bets(self) -> list[int]:
        return self.lines.bets()

    def _features(self) -> FeatureArrays:
        spec = self.spec
        ex, whole, cw = spec.expanding, spec.whole_reel, spec.colour_wheel
        wheels = tuple(self._wheel(w) for _where, w in spec.all_wheels())
        common: dict[str, Any] = {
            "wheels": wheels,
            # a segment's strips are None on the free-spin set (see _wheel)
            "strip_sets": tuple(sorted({s.strips for w in wheels for s in w.table.values
                                        if s.strips})),
            "expanding": self.index[ex.symbol] if ex else -1,
            "expanding_respins": ex.respins if ex else 0,
            "whole_reel": self.index[whole.symbol] if whole else -1,
            "scatter_symbols": tuple(self.index[sc.symbol] for sc in spec.scatters),
            "scatter_pays": tuple(tuple(sc.pays.get(n, 0) for n in range(self.cells() + 1))
                                  for sc in spec.scatters)}
        if cw is not None:
            common.update(
                colour_segments=WeightedTable.of([((cw.colours.index(s.colour), s.multiplier),
                                                   s.weight) for s in cw.segments]),
                colours=tuple(cw.colours), colour_limit=cw.limit)
        hw = spec.hold_and_win
        if hw is None:
            return FeatureArrays(coin=-1, trigger=0, respins=0,
                                 landing=WeightedTable.of([("nothing", 1)]),
                                 coins=WeightedTable.of([(0, 1)]), coin_labels=(None,),
                                 **common)
        landing = [("nothing", hw.landing.nothing), ("coin", hw.landing.coin)]
        if hw.landing.collector:
            landing.append(("collector", hw.landing.collector))
        coins = WeightedTable.of([
            (c.value if c.value is not None else hw.jackpots[c.jackpot or "Mini"], c.weight)
            for c in hw.coins])
        return FeatureArrays(coin=self.index[hw.symbol], trigger=hw.trigger,
                             respins=hw.respins, landing=WeightedTable.of(landing), coins=coins,
                             coin_labels=tuple(c.jackpot for c in hw.coins),
                             full_grid=hw.jackpots[hw.full_grid] if hw.full_grid else 0,
                             **common)

    def _wheel(self, wheel: WheelSpec) -> CompiledWheel:
        own = self.spec.free_spins.strips if self.spec.free_spins else None
        table = WeightedTable.of([
            (Segment(s.pay, s.feature, s.multiplier, s.spins or 0,
                     s.strips if s.strips != own else None), s.weight)
            for s in wheel.segments])
        trigger = wheel.trigger
        return CompiledWheel(table, self.index[trigger.symbol] if trigger else -1,
                             trigger.count if trigger else 0, wheel.name)

    def cells(self) -> int:
        return self.spec.reels * self.spec.rows
