"""What a player's loss limit counts, written once for the general path
(``server/services/limits.py``) and the batch writers (:mod:`.postgres`, :mod:`.sqlite`), which
check a limited player's bet in the statement that takes it.

A limit's period is a rolling window ending at the bet; the amount in force is the row's, or its
pending change once that change's cooling-off day is over; the losses are the bets charged (a
free or cancelled round costs nothing) less everything paid, over the player's rounds started in
the window. A bet is refused when those losses plus the bet would pass the amount in force; the
player is told of the first limit it would pass, the shortest period first.
"""

from __future__ import annotations

from datetime import timedelta

from slotlab.store.models import CANCELLED

LOSS = "loss"  # the limit kind (``player_limits.kind``)
PERIODS = {"day": timedelta(days=1), "week": timedelta(days=7), "month": timedelta(days=30)}

# The player's losses since a time; ``{player}``, ``{since}``: the statement's expressions.
LOSSES = f"""SELECT coalesce(sum(CASE WHEN o.free_round_id IS NULL AND o.status <> '{CANCELLED}'
                    THEN o.bet ELSE 0 END), 0) - coalesce(sum(o.win + o.jackpot_win), 0)
FROM rounds o WHERE o.player_id = {{player}} AND o.created_at >= {{since}}"""

# The amount in force at ``{now}`` of the limit row ``l`` (NULL: none).
IN_FORCE = ("CASE WHEN l.pending_from IS NOT NULL AND l.pending_from <= {now} "
            "THEN l.pending_amount ELSE l.amount END")


def passing_sql(player: str, bet: str, now: str, window_start: str, what: str) -> str:
    """A query of ``what`` for each of ``player``'s loss limits that a bet of ``bet`` at ``now``
    would pass, the shortest period first; ``window_start``: an expression of ``l.period`` and
    ``now`` giving the window's start (each database writes its interval arithmetic its own
    way); in ``what``, ``{in_force}`` and ``{losses}`` are the limit's amount in force and the
    losses in its window."""
    in_force = IN_FORCE.format(now=now)
    losses = f"({LOSSES.format(player=player, since=window_start)})"
    order = " ".join(f"WHEN '{p}' THEN {i}" for i, p in enumerate(PERIODS))
    return (f"SELECT {what.format(in_force=in_force, losses=losses)} FROM player_limits l "
            f"WHERE l.player_id = {player} AND l.kind = '{LOSS}' AND {in_force} IS NOT NULL "
            f"AND {losses} + {bet} > {in_force} ORDER BY CASE l.period {order} END")
