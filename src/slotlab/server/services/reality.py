"""Reality checks: where the player's jurisdiction profile asks for them (``reality_check_s``),
play stops every so often to show the time played and the net position of the session; the next
round is refused (409 ``reality_check_due``) until the player acknowledges the reminder
(``POST /api/session/reality-check``). The interval counts from the session's start, then from
the last acknowledgement.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from slotlab.server.errors import conflict
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import net_position
from slotlab.store.models import RealityCheck, utcnow


def last_ack(ctx: Services, auth: Auth) -> datetime:
    """The session's last acknowledgement (or its start), read, and remembered."""
    with ctx.db.read() as s:
        acked = s.scalar(select(RealityCheck.acknowledged_at)
                         .where(RealityCheck.session_id == auth.session_id))
    last = acked or auth.session_started
    _remember(ctx, auth, last)
    return last


def _remember(ctx: Services, auth: Auth, last: datetime) -> None:
    """Keep the session's last acknowledgement in this process: it only ever moves forward, so
    a remembered one is never later than the stored one (another process may have a newer)."""
    known = ctx.reality_acks.get(auth.session_id)
    if known is None or known < last:
        if len(ctx.reality_acks) > 100_000:
            ctx.reality_acks.clear()
        ctx.reality_acks[auth.session_id] = last


def surely_not_due(ctx: Services, auth: Auth) -> bool | None:
    """Whether a round may start with no reminder due, from what this process remembers: True
    (not due), False (due by the remembered acknowledgement: :func:`check_round` reads the
    stored one and decides), None (nothing remembered: :func:`last_ack` reads it). A remembered
    acknowledgement is never later than the stored one, so True is never wrong."""
    interval = ctx.profile(auth.jurisdiction).reality_check_s
    if not interval:
        return True
    last = ctx.reality_acks.get(auth.session_id)
    if last is None:
        return None
    return utcnow() - last < timedelta(seconds=interval)


def status(ctx: Services, auth: Auth) -> dict[str, Any]:
    """The session's figures and when the next reminder falls due (None: none required)."""
    interval = ctx.profile(auth.jurisdiction).reality_check_s
    now = utcnow()
    out: dict[str, Any] = {
        "interval_s": interval,
        "elapsed_s": int((now - auth.session_started).total_seconds()),
        "net_position": net_position(ctx, auth.player_id, auth.session_started),
        "due_in_s": None,
    }
    if interval:
        due = last_ack(ctx, auth) + timedelta(seconds=interval)
        out["due_in_s"] = max(0, int((due - now).total_seconds()))
    return out


def check_round(ctx: Services, auth: Auth) -> None:
    """409 ``reality_check_due`` when the reminder is due and not yet acknowledged."""
    interval = ctx.profile(auth.jurisdiction).reality_check_s
    if not interval:
        return
    if utcnow() - last_ack(ctx, auth) >= timedelta(seconds=interval):
        figures = status(ctx, auth)
        minutes = figures["elapsed_s"] // 60
        raise conflict("reality_check_due",
                       f"You have played for {minutes} minutes this session; your net position "
                       f"is {figures['net_position']}. Acknowledge to carry on.",
                       reality_check=figures)


def acknowledge(ctx: Services, auth: Auth) -> dict[str, Any]:
    now = utcnow()
    try:
        with ctx.db.write() as s:
            row = s.get(RealityCheck, auth.session_id)
            if row is None:
                s.add(RealityCheck(session_id=auth.session_id, acknowledged_at=now))
            else:
                row.acknowledged_at = now
        _remember(ctx, auth, now)
    except IntegrityError:  # a concurrent acknowledgement of the same session: it stands
        pass
    return status(ctx, auth)
