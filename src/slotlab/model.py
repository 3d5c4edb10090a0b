"""Loading model files: JSON in, validated data out, and the content hash that versions it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

M = TypeVar("M", bound=BaseModel)


class ModelError(ValueError):
    """A model file is malformed; the message names the problem and where it is."""


class Strict(BaseModel):
    """A part of a model file's schema: unknown keys are errors, and a loaded model is frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class NamedSpec(Protocol):
    """What every game's model file has at its top level."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> int: ...


S = TypeVar("S", bound=NamedSpec)


class GameModel(Generic[S]):
    """A validated model file: its schema object, the raw data, where it came from, and the hash
    of the raw data (the model's version on every round). Each game adds its kernel arrays."""

    def __init__(self, spec: S, raw: dict[str, Any], source: str) -> None:
        self.spec = spec
        self.raw = raw
        self.source = source
        self.hash = content_hash(raw)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def version(self) -> int:
        return self.spec.version


def strip_window(strips: np.ndarray, lengths: np.ndarray, symbol_ids: Sequence[str],
                 stops: Sequence[int] | np.ndarray, rows: int) -> list[list[str]]:
    """Symbol ids in view, ``[reel][row]`` with row 0 on top, for top-row ``stops``: ``strips``
    holds each reel's symbol codes followed by its first ``rows - 1`` again (so no modulo)."""
    out = []
    for r in range(strips.shape[0]):
        i = int(stops[r]) % int(lengths[r])
        out.append([symbol_ids[c] for c in strips[r, i:i + rows].tolist()])
    return out


def canonical_json(data: Any) -> bytes:
    """The bytes the model hash is taken over: sorted keys, no insignificant whitespace."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def content_hash(data: Any) -> str:
    """SHA-256 of the canonical JSON of a model: its version, stamped on every round."""
    return hashlib.sha256(canonical_json(data)).hexdigest()


def read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ModelError(f"{path}: no such model file") from exc
    except json.JSONDecodeError as exc:
        raise ModelError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ModelError(f"{path}: a model file must hold a JSON object")
    return data


def validate(schema: type[M], data: dict[str, Any], source: str) -> M:
    """Validate ``data`` against ``schema``; errors become one :class:`ModelError` per file."""
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(top level)"
            problems.append(f"  {where}: {err['msg']}")
        raise ModelError(f"{source}: invalid model\n" + "\n".join(problems)) from exc


def read_source(source: Any, shipped: Callable[[Any], Path | None]) -> tuple[dict[str, Any], str]:
    """A game's model as ``(raw data, where it came from)``: ``source`` is an already parsed
    dict, a name of a shipped model (``shipped(source)`` gives its path, or None when it is not
    one), or a file path."""
    if isinstance(source, dict):
        return source, "<dict>"
    path = shipped(source) or Path(source)
    return read_json(path), str(path)


def read_spec(schema: type[M], source: Any, shipped: Callable[[Any], Path | None]
              ) -> tuple[M, dict[str, Any], str]:
    """``(validated spec, raw data, where it came from)`` of a model source (see
    :func:`read_source`); a malformed model raises one :class:`ModelError` naming every
    problem."""
    raw, where = read_source(source, shipped)
    return validate(schema, raw, where), raw, where

