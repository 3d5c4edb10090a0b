"""The critical files of a game and their SHA-256 digests (R21), and the check of a bundle's list
against the code and model that run now.

Paths are relative to the installed ``slotlab`` package, so a digest made from a source checkout
checks an installed wheel of the same code, and the other way round.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import slotlab
from slotlab.integrity import file_digest
from slotlab.model import content_hash, read_json
from slotlab.rounds import Game

PACKAGE = Path(slotlab.__file__).parent

# What decides every outcome, whatever the game: the generator and its fail-closed live source,
# the round contract, the model loader (the content hash) and the shared mechanics.
_GENERATOR = ("rng.py", "server/services/live_seeds.py")
_SHARED = ("rounds.py", "model.py")


def family_dir(game: Game) -> Path:
    """The game's own package: ``slotlab/games/<family>/``."""
    parts = type(game).__module__.split(".")
    return PACKAGE / "games" / parts[2]


def model_path(game: Game) -> Path:
    """The model file the game was loaded from: its recorded source, else the file of the
    game's package whose content hash is the game's."""
    source = getattr(game.model, "source", None)  # type: ignore[attr-defined]
    if source and Path(source).is_file():
        return Path(source).resolve()
    for path in sorted(family_dir(game).rglob("*.json")):
        try:
            if content_hash(read_json(path)) == game.model_hash:
                return path.resolve()
        except ValueError:
            continue
    raise ValueError(f"no model file of {game.id} has its model hash {game.model_hash}")


def _kind(rel: str, model_rel: str) -> str:
    if rel == model_rel:
        return "model"
    if rel in _GENERATOR:
        return "generator"
    if rel.startswith("mechanics/"):
        return "mechanics"
    if Path(rel).name in ("kernel.py", "bonus.py"):
        return "kernel"
    if rel.startswith("games/"):
        return "game package"
    return "round contract"


def critical_files(game: Game) -> list[Path]:
    """The generator, the round contract, the mechanics, the game's package (kernels, model
    files, rule text) and the model file the game runs on."""
    pkg = family_dir(game)
    files = {PACKAGE / p for p in (*_GENERATOR, *_SHARED)}
    files |= set((PACKAGE / "mechanics").glob("*.py"))
    files |= {p for p in pkg.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    files.add(model_path(game))
    return sorted(files)


def _rel(path: Path) -> str:
    try:
        return path.resolve().relative_to(PACKAGE.resolve()).as_posix()
    except ValueError:  # a model file outside the package: kept by its absolute path
        return str(path.resolve())


def digests(game: Game) -> dict[str, Any]:
    """Each critical file's SHA-256 with its kind, the model's content hash and how to recompute
    both."""
    model_rel = _rel(model_path(game))
    files = [{"path": _rel(p), "kind": _kind(_rel(p), model_rel), "bytes": p.stat().st_size,
              "sha256": file_digest(p)} for p in critical_files(game)]
    return {
        "package_root": "the folder of the installed slotlab package (python -c \"import "
                        "slotlab, os; print(os.path.dirname(slotlab.__file__))\")",
        "files": files,
        "game_package": _rel(family_dir(game)),
        "model_file": model_rel,
        "model_hash": game.model_hash,
        "set_sha256": set_digest(files),
        "recompute": {
            "file": "cd <package_root> && sha256sum <path>   (or: python -c \"import hashlib,"
                    "sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())\" "
                    "<path>)",
            "model_hash": "SHA-256 of the model file's canonical JSON (keys sorted, no spaces, "
                          "UTF-8): python -c \"import json,hashlib,sys; d=json.load(open("
                          "sys.argv[1])); print(hashlib.sha256(json.dumps(d, sort_keys=True, "
                          "separators=(',',':'), ensure_ascii=False).encode()).hexdigest())\" "
                          "<model file>; the same hash is on every round the server records",
            "set_sha256": "SHA-256 of the lines '<sha256>  <path>\\n' of every file, in the "
                          "order listed (the output of sha256sum over the list)",
            "all": "slotlab certify --check <bundle folder>",
        },
    }


def set_digest(files: list[dict[str, Any]]) -> str:
    text = "".join(f"{f['sha256']}  {f['path']}\n" for f in files)
    return hashlib.sha256(text.encode()).hexdigest()


def check(recorded: dict[str, Any], root: Path = PACKAGE) -> list[dict[str, Any]]:
    """Each recorded file against the file at the same place under ``root`` now: same, changed
    or missing; a file of the game's package that was not certified (added); and the model's
    content hash recomputed from its file."""
    rows: list[dict[str, Any]] = []
    for f in recorded["files"]:
        path = Path(f["path"]) if Path(f["path"]).is_absolute() else root / f["path"]
        now = file_digest(path) if path.is_file() else None
        rows.append({"path": f["path"], "kind": f["kind"], "certified": f["sha256"],
                     "running": now, "status": ("missing" if now is None else
                                                "same" if now == f["sha256"] else "changed")})
    known = {f["path"] for f in recorded["files"]}
    package = root / recorded["game_package"]
    for p in sorted(package.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if p.is_file() and "__pycache__" not in p.parts and rel not in known:
            rows.append({"path": rel, "kind": "game package", "certified": None,
                         "running": file_digest(p), "status": "added"})
    model = recorded["model_file"]
    mpath = Path(model) if Path(model).is_absolute() else root / model
    try:
        now_hash: str | None = content_hash(read_json(mpath))
    except ValueError:
        now_hash = None
    rows.append({"path": f"{model} (content hash)", "kind": "model hash",
                 "certified": recorded["model_hash"], "running": now_hash,
                 "status": ("missing" if now_hash is None else
                            "same" if now_hash == recorded["model_hash"] else "changed")})
    return rows
