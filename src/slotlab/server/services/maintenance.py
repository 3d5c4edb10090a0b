"""Housekeeping: start-up recovery, then a periodic sweep.

The sweep auto-completes abandoned rounds, closes rounds still incomplete 24 calendar months
after they started, their winnings discarded (services/unpaid_winnings.py), forgets idempotency
keys older than their retention (never under 24 hours), deletes sessions that ended more than a
day ago and login-limit counters whose window has passed, stops autoplay runs whose session ended
and deletes demo players whose session ended (services/demo.py). With
``wallet_mode=operator`` it also resumes the operator wallet's unconfirmed operations
(:func:`slotlab.server.services.round_operator.operator_sweep`): a ``crediting`` round is
completed once its credit is confirmed, at start-up (a restart resumes the retries) and on every
sweep; and malfunction voids whose reversal the operator has not confirmed yet are sent again
(services/round_voids.py).

Several server processes on one database (``--workers``, several hosts): each one ticks every
``maintenance_interval_s``, and each periodic job runs in exactly one of them per interval, the
one that claims it under the job's database lock (:mod:`slotlab.store.jobs`): the sweep once for
the whole database, the integrity check once per host (it checks that host's files), its
outcome kept with the job so that the host's other processes take the same games out of play at
their next tick. The sweep also finishes debited rounds left ``open`` for ``open_round_grace_s``
by a process that died while the others go on. Start-up work runs in each starting process:
every step of it locks what it changes, so processes starting together only repeat no-ops.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta
from typing import Any

from sqlalchemy import delete

from slotlab.server import ratelimit
from slotlab.server.services import (
    autoplay_runs,
    demo,
    jackpots,
    login_delays,
    round_operator,
    round_recovery,
    round_voids,
    unpaid_winnings,
)
from slotlab.server.services.context import Services
from slotlab.store import jobs
from slotlab.store.models import IdempotencyKey, Session, utcnow

log = logging.getLogger("slotlab.server")
SWEEP_JOB = "maintenance-sweep"


def integrity_job(host: str) -> str:
    return f"integrity:{host}"


def startup(ctx: Services) -> dict[str, int]:
    now = utcnow()
    st = ctx.settings
    # Start-up sweeps and checks here; the periodic ones are next due an interval from now.
    jobs.ensure(ctx.db, SWEEP_JOB, now + timedelta(seconds=st.maintenance_interval_s))
    if ctx.integrity is not None:
        jobs.ensure(ctx.db, integrity_job(ctx.integrity.host),
                    now + timedelta(seconds=st.integrity_interval_s))
    jackpots.ensure_pools(ctx.db, ctx.catalog, ctx.settings.currency)
    recovered = round_recovery.recover(ctx)
    if recovered:
        log.warning("recovered %d interrupted rounds", recovered)
    return {"recovered": recovered, **sweep(ctx)}


def sweep(ctx: Services) -> dict[str, int]:
    auto = round_recovery.expire_awaiting(ctx)
    # Debited rounds that a process which died left unplayed (the others go on serving).
    recovered = round_recovery.recover(ctx, older_than_s=ctx.settings.open_round_grace_s)
    operator = round_operator.operator_sweep(ctx) if ctx.operator is not None else {}
    voids = round_voids.resume_pending(ctx)  # operator wallet: voids not yet confirmed
    discarded = unpaid_winnings.discard_incomplete(ctx)  # incomplete for 24 months
    now = utcnow()
    with ctx.db.write() as s:
        keys = s.execute(delete(IdempotencyKey).where(
            IdempotencyKey.created_at < now - timedelta(seconds=ctx.settings.idempotency_ttl_s)))
        sessions = s.execute(delete(Session).where(Session.expires_at < now - timedelta(days=1)))
        # The demo-session and registration counters and the failed-login streaks share the
        # table, each in its own window.
        st = ctx.settings
        limits = ratelimit.purge(s, now, st.login_limit_window_s,
                                 {demo.LIMIT_PREFIX: st.demo_limit_window_s,
                                  "r:": st.registration_limit_window_s,
                                  login_delays.PREFIX: st.login_delay_memory_s})
    runs_ended = autoplay_runs.stop_ended(ctx)  # autoplay runs left by an ended session
    demo_deleted = demo.sweep(ctx)  # demo players whose session ended, with what they played
    return {"auto_completed": auto, "open_recovered": recovered,
            "keys_forgotten": keys.rowcount,  # type: ignore[attr-defined]
            "sessions_deleted": sessions.rowcount,  # type: ignore[attr-defined]
            "login_limits_dropped": limits, "demo_players_deleted": demo_deleted,
            "autoplay_runs_ended": runs_ended, "voids_settled": voids,
            "unpaid_discarded": discarded, **operator}


def tick(ctx: Services) -> dict[str, Any]:
    """One tick of this process: the periodic jobs it claims, run; what each did (absent: not
    this process's turn)."""
    st = ctx.settings
    done: dict[str, Any] = {}
    try:
        with jobs.claim(ctx.db, SWEEP_JOB, st.maintenance_interval_s, lock=st.job_lock) as run:
            if run is not None:
                run.result = done["sweep"] = sweep(ctx)
    except Exception:
        log.exception("maintenance sweep failed")
    if ctx.integrity is not None:
        try:
            done.update(integrity_tick(ctx))
        except Exception:
            log.exception("integrity check failed")
    return done


def integrity_tick(ctx: Services) -> dict[str, Any]:
    """The host's periodic integrity check, in one of its processes; the others adopt its
    outcome (which games are out of play) once it is newer than their own."""
    monitor = ctx.integrity
    assert monitor is not None
    name = integrity_job(monitor.host)
    with jobs.claim(ctx.db, name, ctx.settings.integrity_interval_s,
                    lock=ctx.settings.job_lock) as run:
        if run is not None:
            monitor.check()
            run.result = monitor.shared()
            return {"integrity": "checked"}
    at, result = jobs.last_run(ctx.db, name)
    if at is not None and result and monitor.adopt(result, at):
        return {"integrity": "adopted"}
    return {}


STOP_WAIT_S = 60.0  # a sweep is seconds; an operator's wallet that hangs is cut off here


class Sweeper(threading.Thread):
    def __init__(self, ctx: Services) -> None:
        super().__init__(name="slotlab-sweeper", daemon=True)
        self.ctx = ctx
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(self.ctx.settings.maintenance_interval_s):
            tick(self.ctx)

    def stop(self, timeout_s: float = STOP_WAIT_S) -> None:
        """Stop ticking, and wait for a sweep under way: closing the database under it (or
        dropping its schema) would cut it off mid-transaction, or wait on it forever."""
        self.stopping.set()
        self.join(timeout_s)
        if self.is_alive():
            log.warning("the maintenance sweep was still running %.0f s after the stop",
                        timeout_s)
