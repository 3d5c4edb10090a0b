"""The 24-month discard: "All winnings remaining to be paid from incomplete games shall be
discarded after 24 months of the initial incomplete game."

A round is normally completed long before (auto-completion, start-up recovery); one that is
still incomplete 24 calendar months after it started (its game out of play all that time) is
closed by the maintenance sweep: its win so far is not paid, the round becomes ``completed``
with outcome ``unpaid_discarded``, and the discard is written down twice: a ledger entry of
kind ``unpaid_discarded`` (amount 0: nothing moves; internal wallet) and a note in
``admin_actions`` saying what was discarded. An operator-wallet credit left ``unpaid`` for 24
months is discarded in the operations log (status ``discarded``) and its round closed the same
way (:func:`close_discarded`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from slotlab import ledger
from slotlab.months import add_months, months_passed
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import cash_cap_of
from slotlab.store.models import (
    AWAITING_CHOICE,
    COMPLETED,
    CREDITING,
    OPEN,
    AdminAction,
    Round,
    utcnow,
)

KEEP_MONTHS = 24
DISCARDED = "unpaid_discarded"  # the round's outcome


def discard_incomplete(ctx: Services, now: datetime | None = None) -> int:
    """Close every round still incomplete 24 calendar months after it started; how many."""
    now = now or utcnow()
    # A month's slack in the query; the exact calendar test per round below.
    with ctx.db.read() as s:
        rows = list(s.execute(select(Round.id, Round.created_at).where(
            Round.status.in_((OPEN, AWAITING_CHOICE)),
            Round.created_at <= add_months(now, 1 - KEEP_MONTHS))))
    return sum(close_discarded(ctx, rid, (OPEN, AWAITING_CHOICE), now)
               for rid, started in rows if months_passed(started, now, KEEP_MONTHS))


def close_discarded(ctx: Services, rid: str, statuses: tuple[str, ...] = (CREDITING,),
                    now: datetime | None = None, amount: int | None = None) -> bool:
    """Close a round whose winnings (``amount``; default: its win so far) are discarded
    unpaid, if it is still in ``statuses``."""
    now = now or utcnow()
    with ctx.db.read() as s:
        pid = s.scalar(select(Round.player_id).where(Round.id == rid))
    if pid is None:
        return False
    with ctx.db.write() as s:
        wallet = ledger.lock_wallet(s, pid)
        r = s.scalar(select(Round).where(Round.id == rid).with_for_update())
        if r is None or r.status not in statuses:
            return False
        won = amount
        if won is None:
            won = r.win_credits * r.denomination
            cap = cash_cap_of(ctx, r.game_id, r.currency)
            won = (won if cap is None else min(won, cap)) + r.jackpot_win
        if ctx.operator is None:  # operator-wallet rounds have their record in its log
            ledger.post(s, wallet, 0, ledger.UNPAID_DISCARDED, f"round:{rid}:unpaid_discarded",
                        round_id=rid, now=now)
        r.uncapped_win = r.win_credits * r.denomination
        r.win, r.jackpot_win, r.jackpots = 0, 0, []
        r.status, r.outcome, r.awaiting = COMPLETED, DISCARDED, None
        r.completed_at = r.updated_at = now
        s.add(AdminAction(action="discard_unpaid", target=rid, created_at=now, detail=(
            f"winnings of {won} {r.currency} (minor units) unpaid since the round started "
            f"{r.created_at.isoformat()}: discarded after {KEEP_MONTHS} months")))
    return True
