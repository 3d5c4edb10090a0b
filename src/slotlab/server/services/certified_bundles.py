"""Games held to the evidence bundles a test lab certified (``slotlab certify``, R21).

The operator names the certified bundles' folders in ``SLOTLAB_CERTIFIED_BUNDLES``. Each offered
game is held to the bundle of the model it runs (found by model hash; else the bundle of its game
id, whose model then differs): every critical file the bundle lists (generator, round contract,
mechanics, the game's package, the model file) must have the digest it certified, no file may
have been added to the game's package, and the model's content hash must be the certified one.
A game that differs is out of play (the integrity check, services/integrity.py).

A profile with ``certified_bundle`` (the regulated markets) also takes out of play every game
that no configured bundle covers. A bundle folder that cannot be read takes every game out (fail
closed: the server cannot tell which game it was for). With no bundle configured nothing is
checked here; a profile that asks for bundles then says so at start-up and in the admin report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from slotlab.rounds import Game

_LISTED = 3  # files named in a reason; the admin report's count says how many differ in all


@dataclass(frozen=True)
class CertifiedBundles:
    """The bundles the operator configured, read once per check (a lab may replace them)."""

    folders: tuple[str, ...]
    required: bool  # the profile in force asks for a bundle for every offered game
    by_hash: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    by_game: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    problem: str | None = None  # a folder that cannot be read: every game out

    @classmethod
    def read(cls, folders: list[str], required: bool) -> CertifiedBundles:
        # Imported here: slotlab.certify makes bundles with a real server, so it imports the
        # server's app, which imports this module.
        from slotlab.certify import BundleError
        from slotlab.certify import read as read_bundle

        found = cls(tuple(folders), required)
        for folder in folders:
            try:
                bundle = read_bundle(Path(folder))
            except BundleError as e:
                return cls(tuple(folders), required, problem=f"certified bundle unusable: {e}")
            found.by_hash.setdefault(str(bundle["model_hash"]), (folder, bundle))
            found.by_game.setdefault(str(bundle["game"]), (folder, bundle))
        return found

    @property
    def configured(self) -> bool:
        return bool(self.folders)

    def reasons(self, offered_id: str, game: Game) -> tuple[str | None, list[str]]:
        """The bundle the game is held to (its folder; None: none) and why the game differs
        from it (empty: it is what the lab certified, or no bundle applies)."""
        if self.problem:
            return None, [self.problem]
        if not self.configured:
            return None, []
        hit = self.by_hash.get(game.model_hash) or self.by_game.get(offered_id) or (
            self.by_game.get(game.id))
        if hit is None:
            if self.required:
                return None, [f"no certified bundle covers model {game.model_hash[:16]}... "
                              "(the jurisdiction's profile requires one for every game)"]
            return None, []
        folder, bundle = hit
        if bundle["model_hash"] != game.model_hash:
            return folder, [f"runs model {game.model_hash[:16]}..., its certified bundle "
                            f"{folder} has model {str(bundle['model_hash'])[:16]}..."]
        return folder, _file_reasons(folder, bundle)


def _file_reasons(folder: str, bundle: dict[str, Any]) -> list[str]:
    from slotlab.certify import digests  # see CertifiedBundles.read

    differ = [r for r in digests.check(bundle["digests"]) if r["status"] != "same"]
    if not differ:
        return []
    named = ", ".join(f"{r['status']} {r['kind']} {r['path']}" for r in differ[:_LISTED])
    more = f" and {len(differ) - _LISTED} more" if len(differ) > _LISTED else ""
    return [f"{len(differ)} critical file(s) differ from the certified bundle {folder}: "
            f"{named}{more}"]


def status(bundles: CertifiedBundles, profile_id: str) -> dict[str, Any]:
    """What the admin report says of the bundles: which, whether the profile asks for them,
    and whether they are enforced."""
    note = None
    if bundles.required and not bundles.configured:
        note = (f"jurisdiction {profile_id!r} requires certified bundles, but "
                "SLOTLAB_CERTIFIED_BUNDLES names none: games are not checked against a bundle")
    return {"folders": list(bundles.folders), "required_by_profile": bundles.required,
            "enforced": bundles.configured, "note": note}
