"""Player-set limits (R19): losses and deposits over 24 hours, 7 days and 30 days.

A player sets, for each kind and period, a limit in minor units. Lowering a limit (or setting a
first one) takes effect at once; raising or removing one takes effect after a cooling-off day,
and until then the lower limit holds. A loss limit is checked before every bet (the bet is
refused, 409 ``loss_limit_reached``, when the losses of the period plus the bet would pass it);
it applies in both wallet modes, counted from the rounds: bets charged minus everything paid. A
deposit limit is checked on every credit to a wallet slotlab holds (an operator wallet's owner
keeps its own deposits).

Periods are rolling windows ending now: ``day`` 24 hours, ``week`` 7 days, ``month`` 30 days.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, func, select, text
from sqlalchemy.orm import Session

from slotlab import ledger
from slotlab.ledger.loss_limits import LOSS as LOSS
from slotlab.ledger.loss_limits import LOSSES
from slotlab.ledger.loss_limits import PERIODS as PERIODS
from slotlab.server.errors import ApiError, conflict, unprocessable
from slotlab.server.services.context import Services
from slotlab.store.models import LedgerEntry, PlayerLimit, Round, Wallet, utcnow

DEPOSIT = "deposit"
KINDS = (LOSS, DEPOSIT)
COOLING_OFF = timedelta(days=1)


@dataclass(frozen=True)
class Limit:
    kind: str
    period: str
    amount: int | None  # in force now (None: no limit)
    pending_amount: int | None  # what it becomes at pending_from (None there: removed)
    pending_from: datetime | None


def _in_force(row: PlayerLimit, now: datetime) -> Limit:
    """The limit as it stands at ``now``: a pending raise whose cooling-off day is over holds."""
    if row.pending_from is not None and row.pending_from <= now:
        return Limit(row.kind, row.period, row.pending_amount, None, None)
    return Limit(row.kind, row.period, row.amount, row.pending_amount, row.pending_from)


def limits(s: Session, player_id: int, now: datetime) -> dict[tuple[str, str], Limit]:
    rows = s.scalars(select(PlayerLimit).where(PlayerLimit.player_id == player_id))
    return {(r.kind, r.period): _in_force(r, now) for r in rows}


# The batch writers count a bet's limits with the same statement (ledger/loss_limits.py).
_LOSSES = text(LOSSES.format(player=":player", since=":since")).bindparams(
    bindparam("since", type_=Round.__table__.c.created_at.type))


def losses(s: Session, player_id: int, since: datetime) -> int:
    """Bets charged minus everything paid, over the player's rounds started since ``since``."""
    return int(s.execute(_LOSSES, {"player": player_id, "since": since}).scalar_one())


def deposits(s: Session, player_id: int, since: datetime) -> int:
    return int(s.scalar(
        select(func.coalesce(func.sum(LedgerEntry.amount), 0))
        .join(Wallet, Wallet.id == LedgerEntry.wallet_id)
        .where(Wallet.player_id == player_id, LedgerEntry.created_at >= since,
               LedgerEntry.kind == ledger.ADMIN_CREDIT)) or 0)


def _used(s: Session, player_id: int, kind: str, period: str, now: datetime) -> int:
    since = now - PERIODS[period]
    return losses(s, player_id, since) if kind == LOSS else deposits(s, player_id, since)


def view(ctx: Services, player_id: int) -> dict[str, Any]:
    now = utcnow()
    with ctx.db.read() as s:
        current = limits(s, player_id, now)
        out = []
        for kind in KINDS:
            for period in PERIODS:
                lim = current.get((kind, period), Limit(kind, period, None, None, None))
                out.append({
                    "kind": kind, "period": period, "amount": lim.amount,
                    "used": _used(s, player_id, kind, period, now),
                    "pending_amount": lim.pending_amount,
                    "pending_from": lim.pending_from.isoformat() if lim.pending_from else None,
                })
    return {"limits": out, "cooling_off_s": int(COOLING_OFF.total_seconds()),
            "deposits_here": ctx.operator is None}


def set_limit(ctx: Services, player_id: int, kind: str, period: str,
              amount: int | None) -> dict[str, Any]:
    """Set one limit: lower (or first) at once, higher or removed after the cooling-off day."""
    if kind not in KINDS or period not in PERIODS:
        raise unprocessable("unknown_limit", f"limits are {list(KINDS)} over {list(PERIODS)}")
    if amount is not None and amount <= 0:
        raise unprocessable("invalid_limit", "a limit is a positive amount in minor units, or "
                            "null to remove it")
    now = utcnow()
    with ctx.db.write() as s:
        row = s.scalar(select(PlayerLimit).where(
            PlayerLimit.player_id == player_id, PlayerLimit.kind == kind,
            PlayerLimit.period == period).with_for_update())
        if row is None:
            if amount is not None:
                s.add(PlayerLimit(player_id=player_id, kind=kind, period=period, amount=amount,
                                  updated_at=now))
        else:
            now_in_force = _in_force(row, now).amount
            row.amount = now_in_force
            if amount is not None and (now_in_force is None or amount <= now_in_force):
                row.amount, row.pending_amount, row.pending_from = amount, None, None
            else:  # a raise or a removal waits a day; the limit in force holds meanwhile
                row.pending_amount, row.pending_from = amount, now + COOLING_OFF
            row.updated_at = now
    return view(ctx, player_id)


def _passed(s: Session, player_id: int, kind: str, amount: int) -> tuple[str, int, int] | None:
    """``(period, limit, used)`` of the first ``kind`` limit that ``amount`` more would pass, the
    shortest period first (as the batch writers tell it: ledger/loss_limits.py)."""
    now = utcnow()
    found = limits(s, player_id, now)
    for period in PERIODS:
        lim = found.get((kind, period))
        if lim is None or lim.amount is None:
            continue
        used = _used(s, player_id, kind, period, now)
        if used + amount > lim.amount:
            return period, lim.amount, used
    return None


def check_bet(s: Session, player_id: int, bet: int) -> None:
    """409 ``loss_limit_reached`` when this bet would take a period's losses past its limit (in
    the debiting transaction, the wallet locked, so two bets cannot both pass)."""
    passed = _passed(s, player_id, LOSS, bet)
    if passed is not None:
        raise loss_limit_reached(*passed)


def loss_limit_reached(period: str, limit: int, used: int) -> ApiError:
    """409: a bet would pass the player's loss limit of ``limit`` over ``period``, its losses
    so far ``used``."""
    return conflict("loss_limit_reached",
                    f"this bet would pass your loss limit of {limit} over the {period} "
                    f"(losses so far {used})", limit=limit, period=period, used=used)


def check_deposit(s: Session, player_id: int, amount: int) -> None:
    """409 ``deposit_limit_exceeded`` when this credit would pass a deposit limit (in the
    crediting transaction, so two credits cannot both pass)."""
    passed = _passed(s, player_id, "deposit", amount)
    if passed is not None:
        period, limit, used = passed
        raise conflict("deposit_limit_exceeded",
                       f"this deposit would pass the player's deposit limit of {limit} over "
                       f"the {period} (deposited so far {used})", limit=limit, period=period,
                       used=used)
