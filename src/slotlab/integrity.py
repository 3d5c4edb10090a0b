"""Software integrity (regulators' R21): the digests a test lab certifies and a server checks.

Three things decide what a game pays, and each has a SHA-256 digest:

- the code: every Python source file of the package (:func:`code_digest`);
- each model: its model hash (SHA-256 of its canonical JSON, stamped on every round);
- the compiled kernels: numba's machine-code cache files (``*.nbc``) under ``NUMBA_CACHE_DIR``.
  They are machine-specific, so no lab can certify them; the server records their digests when
  this install first loads them; a recorded file that changed is removed at start-up before the
  kernels load (numba compiles it again from the source), and one that changes while the server
  runs takes its games out of play (whoever can write to the cache can change outcomes).

A certified list is a JSON file the operator installs (format in docs/operators.md):
``{"format": "slotlab.certified/1", "code": "<sha256>", "models": {"<model hash>": "<game id>"}}``.
``slotlab integrity`` prints this install's list, for the lab to certify.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import slotlab
from slotlab.rounds import Game

FORMAT = "slotlab.certified/1"

# The cache folders of code every game compiles in: the random streams (``slotlab/rng.py``) and
# the shared mechanics. A game's own folder is named after its package (``superstars_<hash>``).
_SHARED_CACHE_PREFIXES = ("slotlab_", "mechanics_")


def code_digest() -> str:
    """SHA-256 of the package's Python source files (names and bytes, in sorted order)."""
    return slotlab._source_digest()


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def certified_list(games: Iterable[Game]) -> dict[str, Any]:
    """This install's list, in the certified-list format: the code digest and every model."""
    return {"format": FORMAT, "code": code_digest(),
            "models": {g.model_hash: g.id for g in games}}


class CertifiedListError(ValueError):
    """A certified list file is missing, unreadable or not in the format."""


@dataclass(frozen=True)
class CertifiedList:
    code: str
    models: dict[str, str]  # model hash -> game id

    @classmethod
    def read(cls, path: Path) -> CertifiedList:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as e:
            raise CertifiedListError(f"{path}: no such certified list") from e
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CertifiedListError(f"{path}: unreadable ({e})") from e
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise CertifiedListError(f"{path}: not a certified list (format {FORMAT!r})")
        code, models = data.get("code"), data.get("models")
        if not _is_sha256(code) or not isinstance(models, dict) or not all(
                _is_sha256(h) and isinstance(g, str) for h, g in models.items()):
            raise CertifiedListError(f"{path}: 'code' must be a SHA-256 digest and 'models' map "
                                     "model hashes to game ids")
        return cls(code, dict(models))


def _is_sha256(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == 64 and all(
        c in "0123456789abcdef" for c in value)


def kernel_cache_dir() -> Path:
    return Path(os.environ["NUMBA_CACHE_DIR"])


def kernel_cache_files(game: Game, root: Path | None = None) -> list[Path]:
    """The compiled-kernel files a game's rounds run on: its own package's and the shared ones."""
    root = root or kernel_cache_dir()
    if not root.is_dir():
        return []
    family = type(game).__module__.split(".")[2] if type(game).__module__.startswith(
        "slotlab.games.") else None
    prefixes = (*_SHARED_CACHE_PREFIXES, *((f"{family}_",) if family else ()))
    return sorted(p for d in root.iterdir() if d.is_dir() and d.name.startswith(prefixes)
                  for p in d.glob("*.nbc"))
