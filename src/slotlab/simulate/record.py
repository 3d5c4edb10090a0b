"""A recorded simulation run shipped with a game: the figures its rule text publishes.

A rule text may publish what a long simulation found ("the maximum prize achieved during a
simulation of 2,000 million games was ... times the bet, with an occurrence probability of
1:2000000000"). ``slotlab simulate GAME --spins N --seed S --record`` writes that run as
``simulation-record.json`` beside the game's code; the game shows its figures in game. The record
is stamped with the model's hash: a record made on another model is refused, never shown.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

RECORD_NAME = "simulation-record.json"
FORMAT: Literal["slotlab.simulation-record/1"] = "slotlab.simulation-record/1"


class RecordError(ValueError):
    """A record file that is missing fields, malformed, or made on another model."""


class SimulationRecord(BaseModel):
    """One simulation run's published figures (RTP and wins in units of the total bet)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["slotlab.simulation-record/1"] = FORMAT
    game: str
    model_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    command: str
    seed: int = Field(ge=0)
    spins: int = Field(gt=0)
    bet: int = Field(gt=0)
    rtp: float
    rtp_ci99: tuple[float, float]
    exact_rtp: float | None = None
    hit_rate: float
    max_win_x: float = Field(ge=0)
    max_win_count: int = Field(gt=0)
    # the run's largest wins (x bet), largest first, and the lower bound they give the win level
    # one round in ``spins`` exceeds (``stats.tail_level``); records made before keep neither
    top_wins_x: list[float] = Field(default_factory=list)
    level_at_least_x: float | None = None
    level_order: int | None = None
    level_confidence: float | None = None
    code_version: str = ""
    simulation_code: str = ""

    @property
    def max_win_one_in(self) -> float:
        """The largest win's observed odds: 1 in spins / times reached."""
        return self.spins / self.max_win_count

    def max_win_text(self) -> str:
        """``890.1x (1 in 2,000,000,000)``: the largest win and its observed odds."""
        return f"{self.max_win_x:,.1f}x (1 in {self.max_win_one_in:,.0f})"

    def level_text(self) -> str | None:
        """``the 1-in-2,000,000,000 win level is at least 610.0x (99.6 % confidence, ...)``."""
        if self.level_at_least_x is None or self.level_confidence is None:
            return None
        return (f"the 1-in-{self.spins:,} win level is at least {self.level_at_least_x:,.1f}x "
                f"({self.level_confidence:.1%} confidence: the run's {_ordinal(self.level_order)} "
                f"largest win; no run of this length bounds it from above)")

    def shown(self) -> dict[str, Any]:
        """What a game's description carries for clients to show."""
        return {"max_win_x": round(self.max_win_x, 2), "max_win_count": self.max_win_count,
                "spins": self.spins, "one_in": round(self.max_win_one_in),
                "rtp": self.rtp, "rtp_ci99": list(self.rtp_ci99),
                "text": self.max_win_text(), "model_hash": self.model_hash,
                "level_at_least_x": self.level_at_least_x,
                "level_confidence": self.level_confidence, "level_text": self.level_text()}


def _ordinal(n: int | None) -> str:
    n = n or 0
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def from_run(data: dict[str, Any], command: str) -> SimulationRecord:
    """A record of ``slotlab simulate --json``'s output ``data``, made by ``command``."""
    if data["max_win_count"] <= 0:
        raise RecordError("no round won anything: there is no largest win to record")
    level = data.get("one_in_spins_level")
    return SimulationRecord(
        game=data["game"], model_hash=data["model_hash"], command=command, seed=data["seed"],
        spins=data["spins"], bet=data["bet"], rtp=data["rtp"], rtp_ci99=tuple(data["ci99"]),
        exact_rtp=data.get("exact_rtp"), hit_rate=data["hit_rate"],
        max_win_x=data["max_win_x"], max_win_count=data["max_win_count"],
        top_wins_x=data.get("top_wins_x", []),
        **({} if level is None else {"level_at_least_x": level["at_least_x"],
                                     "level_order": level["order"],
                                     "level_confidence": level["confidence"]}),
        code_version=data.get("code_version", ""),
        simulation_code=data.get("simulation_code", ""))


def write(record: SimulationRecord, path: Path) -> Path:
    path.write_text(json.dumps(record.model_dump(mode="json"), indent=1) + "\n",
                    encoding="utf-8")
    return path


def read(path: Path, model_hash: str | None = None) -> SimulationRecord:
    """The record in ``path``; with ``model_hash``, refused unless made on that model."""
    try:
        record = SimulationRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as exc:
        raise RecordError(f"{path}: not a simulation record: {exc}") from exc
    if model_hash is not None and record.model_hash != model_hash:
        raise RecordError(f"{path}: recorded on model {record.model_hash[:12]}, "
                          f"the game plays {model_hash[:12]}")
    return record


def record_path(game: Any) -> Path:
    """Where ``game``'s record lives: beside the code of its class."""
    return Path(inspect.getfile(type(game))).parent / RECORD_NAME


def record_for(game: Any) -> SimulationRecord | None:
    """``game``'s shipped record, or None when there is none for this game and model."""
    path = record_path(game)
    if not path.is_file():
        return None
    try:
        record = read(path, game.model_hash)
    except RecordError:
        return None
    return record if record.game == game.id else None


__all__ = ["RECORD_NAME", "RecordError", "SimulationRecord", "from_run", "read", "record_for",
           "record_path", "write"]
