"""Housekeeping: start-up recovery, then a periodic sweep.

The sweep auto-completes abandoned rounds, forgets idempotency keys older than their retention
(never under 24 hours), deletes sessions that ended more than a day ago and login-limit counters
whose window has passed. With
``wallet_mode=operator`` it also resumes the operator wallet's unconfirmed operations
(:func:`slotlab.server.services.round_operator.operator_sweep`): a ``crediting`` round is
completed once its credit is confirmed, at start-up (a restart resumes the retries) and on every
sweep.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from sqlalchemy import delete

from slotlab.server import ratelimit
from slotlab.server.services import jackpots, round_operator, round_recovery
from slotlab.server.services.context import Services
from slotlab.store.models import IdempotencyKey, Session, utcnow

log = logging.getLogger("slotlab.server")


def startup(ctx: Services) -> dict[str, int]:
    jackpots.ensure_pools(ctx.db, ctx.catalog, ctx.settings.currency)
    recovered = round_recovery.recover(ctx)
    if recovered:
        log.warning("recovered %d interrupted rounds", recovered)
    return {"recovered": recovered, **sweep(ctx)}


def sweep(ctx: Services) -> dict[str, int]:
    auto = round_recovery.expire_awaiting(ctx)
    operator = round_operator.operator_sweep(ctx) if ctx.operator is not None else {}
    now = utcnow()
    with ctx.db.write() as s:
        keys = s.execute(delete(IdempotencyKey).where(
            IdempotencyKey.created_at < now - timedelta(seconds=ctx.settings.idempotency_ttl_s)))
        sessions = s.execute(delete(Session).where(Session.expires_at < now - timedelta(days=1)))
        limits = ratelimit.purge(s, now, ctx.settings.login_limit_window_s)
    return {"auto_completed": auto, "keys_forgotten": keys.rowcount,  # type: ignore[attr-defined]
            "sessions_deleted": sessions.rowcount,  # type: ignore[attr-defined]
            "login_limits_dropped": limits,
            **operator}


class Sweeper(threading.Thread):
    def __init__(self, ctx: Services) -> None:
        super().__init__(name="slotlab-sweeper", daemon=True)
        self.ctx = ctx
        self.stopping = threading.Event()

    def run(self) -> None:
        integrity_due = time.monotonic() + self.ctx.settings.integrity_interval_s
        while not self.stopping.wait(self.ctx.settings.maintenance_interval_s):
            try:
                sweep(self.ctx)
            except Exception:
                log.exception("maintenance sweep failed")
            if self.ctx.integrity is not None and time.monotonic() >= integrity_due:
                integrity_due = time.monotonic() + self.ctx.settings.integrity_interval_s
                try:
                    self.ctx.integrity.check()
                except Exception:
                    log.exception("integrity check failed")

    def stop(self) -> None:
        self.stopping.set()
