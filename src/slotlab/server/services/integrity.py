"""Software integrity checked at start-up and every 24 hours (R21), games out of play on a
mismatch.

The check compares this install with the certified list the operator installed
(``SLOTLAB_CERTIFIED_LIST``): the package's code digest and each offered game's model hash; and
each game's compiled-kernel cache files with the digests this install recorded (in the database,
per host) when it first loaded them. A game that fails is taken out of play: new rounds and
choices get 503 ``game_out_of_service``, an alert is logged and shown by
``GET /api/admin/integrity``. A certified list that is configured but cannot be read takes every
game out (fail closed). Without a certified list only the kernel cache is checked, and the
report says the install is not checked against one. Each game is also held to its certified
evidence bundle where the operator names bundles (``SLOTLAB_CERTIFIED_BUNDLES``;
services/certified_bundles.py): a critical file or model that differs from the bundle takes it
out, and under a profile that requires bundles so does a game no bundle covers.

With several server processes on a host, each checks at its start-up what it loaded; the
periodic check runs in one of them per host (:func:`slotlab.server.services.maintenance.
integrity_tick`), and the others adopt its outcome at their next tick (:meth:`IntegrityMonitor.
adopt`), so a game taken out of play is out in every process of the host within one
maintenance interval.
"""

from __future__ import annotations

import logging
import platform
import threading
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from slotlab.integrity import (
    CertifiedList,
    CertifiedListError,
    code_digest,
    file_digest,
    kernel_cache_dir,
    kernel_cache_files,
)
from slotlab.server.services.catalog import Catalog
from slotlab.server.services.certified_bundles import CertifiedBundles
from slotlab.server.services.certified_bundles import status as bundles_status
from slotlab.server.services.profiles import PROFILES
from slotlab.store import Database
from slotlab.store.models import KernelDigest, utcnow

log = logging.getLogger("slotlab.server")

MAX_ALERTS = 200  # the admin report keeps the latest; every alert is in the log


@dataclass(frozen=True)
class GameCheck:
    game: str
    model_hash: str
    certified: bool | None  # None: no certified list installed
    kernel_files: int
    in_service: bool
    reason: str | None
    bundle: str | None = None  # the certified bundle's folder the game is held to


def heal_kernel_cache(db: Database, host: str | None = None) -> list[str]:
    """Before the kernels load: remove every compiled-kernel file whose digest differs from the
    one recorded, and its record, so that numba compiles it again from the source the code
    digest covers (and the new file is recorded after the warm-up). A file changed while the
    server was down (tampered with, or torn by a crash while numba wrote it) never runs.
    Returns the files removed, for the alerts."""
    host = host or platform.node() or "localhost"
    root = kernel_cache_dir()
    with db.read() as s:
        recorded = {r.path: r.sha256 for r in s.execute(
            select(KernelDigest.path, KernelDigest.sha256).where(KernelDigest.host == host))}
    removed = []
    for key, digest in recorded.items():
        path = root / key
        if path.is_file() and file_digest(path) != digest:
            path.unlink(missing_ok=True)
            removed.append(key)
    if removed:
        with db.write() as s:
            s.execute(delete(KernelDigest).where(KernelDigest.host == host,
                                                 KernelDigest.path.in_(removed)))
        for key in removed:
            log.error("integrity: compiled kernel file %s changed while the server was down; "
                      "removed, to be compiled again from the source", key)
    return removed


class IntegrityMonitor:
    """Runs the checks and keeps their outcome: which games are out of play, and the alerts."""

    def __init__(self, db: Database, catalog: Catalog, certified_list: str | None,
                 host: str | None = None, healed: list[str] | None = None,
                 certified_bundles: list[str] | None = None, jurisdiction: str = "mt") -> None:
        self.db = db
        self.catalog = catalog
        self.certified_path = Path(certified_list) if certified_list else None
        self.bundle_folders = list(certified_bundles or ())
        self.jurisdiction = jurisdiction
        self.bundles_required = PROFILES[jurisdiction].certified_bundle
        if self.bundles_required and not self.bundle_folders:
            log.warning("integrity: jurisdiction %s requires certified bundles; set "
                        "SLOTLAB_CERTIFIED_BUNDLES to the folders slotlab certify wrote, or "
                        "games run unchecked against them", jurisdiction)
        self.host = host or platform.node() or "localhost"
        self.checked_at: datetime | None = None
        self.games: list[GameCheck] = []
        self.alerts: list[dict[str, Any]] = [
            {"at": utcnow().isoformat(), "game": None,
             "message": f"compiled kernel file {key} had changed while the server was down: "
                        "removed and compiled again"} for key in healed or ()]
        self._lock = threading.Lock()

    def check(self, record_new: bool = False) -> list[GameCheck]:
        """Check every offered game; ``record_new`` (at start-up, after the warm-up compiled the
        kernels) records the digests of kernel files this host has not seen yet."""
        with self._lock:
            code = code_digest()
            cert, cert_problem = self._certified()
            bundles = CertifiedBundles.read(self.bundle_folders, self.bundles_required)
            recorded = self._recorded()
            results, new = [], []
            for entry in self.catalog:
                reasons = []
                if cert_problem:
                    reasons.append(cert_problem)
                elif cert is not None:
                    if cert.code != code:
                        reasons.append(f"the code digest {code[:16]}... is not the certified "
                                       f"one ({cert.code[:16]}...)")
                    if entry.game.model_hash not in cert.models:
                        reasons.append(f"model {entry.game.model_hash[:16]}... is not certified")
                bundle, differ = bundles.reasons(entry.id, entry.game)
                reasons.extend(differ)
                files = kernel_cache_files(entry.game)
                for path in files:
                    key = str(path.relative_to(kernel_cache_dir()))
                    digest = file_digest(path)
                    if key not in recorded:
                        if record_new:
                            recorded[key] = digest
                            new.append((key, digest))
                    elif recorded[key] != digest:
                        reasons.append(f"compiled kernel file {key} changed since it was recorded")
                reason = "; ".join(reasons) or None
                results.append(GameCheck(
                    entry.id, entry.game.model_hash,
                    None if cert is None and not cert_problem else not reasons, len(files),
                    reason is None, reason, bundle))
            self._record(new)
            self._apply(results, utcnow())
            return results

    def shared(self) -> dict[str, Any]:
        """The last check's outcome as JSON, for this host's other processes (:meth:`adopt`)."""
        return {"checked_at": self.checked_at.isoformat() if self.checked_at else None,
                "games": [asdict(g) for g in self.games]}

    def adopt(self, outcome: dict[str, Any], checked_at: datetime) -> bool:
        """Take another process's check of this host's files as this process's own when it is
        newer (its games out of play are out here too); whether it was adopted."""
        with self._lock:
            if self.checked_at is not None and checked_at <= self.checked_at:
                return False
            offered = {e.id for e in self.catalog}
            results = [GameCheck(**g) for g in outcome.get("games", []) if g["game"] in offered]
            self._apply(results, checked_at)
            return True

    def _apply(self, results: list[GameCheck], checked_at: datetime) -> None:
        self.checked_at = checked_at
        self.games = results
        out = {g.game: g.reason for g in results if g.reason}
        for gid, reason in out.items():
            if self.catalog.out_of_service.get(gid) != reason:
                self._alert(gid, reason)
        for gid in set(self.catalog.out_of_service) - set(out):
            log.warning("integrity: game %s is back in play", gid)
        self.catalog.out_of_service = out

    def report(self) -> dict[str, Any]:
        return {
            "checked_at": self.checked_at.isoformat() if self.checked_at else None,
            "ok": all(g.in_service for g in self.games),
            "certified_list": str(self.certified_path) if self.certified_path else None,
            "certified_bundles": bundles_status(
                CertifiedBundles(tuple(self.bundle_folders), self.bundles_required),
                self.jurisdiction),
            "code_digest": code_digest(),
            "host": self.host,
            "games": [asdict(g) for g in self.games],
            "alerts": list(self.alerts),
        }

    def _certified(self) -> tuple[CertifiedList | None, str | None]:
        if self.certified_path is None:
            return None, None
        try:
            return CertifiedList.read(self.certified_path), None
        except CertifiedListError as e:
            return None, f"certified list unusable: {e}"

    def _alert(self, game: str, reason: str) -> None:
        log.error("integrity: game %s taken out of play: %s", game, reason)
        self.alerts.append({"at": utcnow().isoformat(), "game": game, "message": reason})
        del self.alerts[:-MAX_ALERTS]

    def _recorded(self) -> dict[str, str]:
        with self.db.read() as s:
            rows = s.execute(select(KernelDigest.path, KernelDigest.sha256)
                             .where(KernelDigest.host == self.host))
            return {r.path: r.sha256 for r in rows}

    def _record(self, new: list[tuple[str, str]]) -> None:
        if not new:
            return
        now = utcnow()
        try:
            with self.db.write() as s:
                s.add_all(KernelDigest(host=self.host, path=p, sha256=d, recorded_at=now)
                          for p, d in new)
        except IntegrityError:  # another process on this host recorded them first
            log.info("integrity: kernel digests recorded by another process")
