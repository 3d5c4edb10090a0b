"""What a player (or an admin) reads back: the open round, history, a round's full record,
results not yet seen, the live rounds."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from slotlab.server.errors import forbidden, not_found
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.server.services.round_recovery import expire_awaiting
from slotlab.server.services.round_view import ROUND_ID, iso, round_public, round_summary
from slotlab.server.services.round_voids import voids_of
from slotlab.store.models import (
    CANCELLED,
    COMPLETED,
    LIVE_STATUSES,
    AdminAction,
    LedgerEntry,
    Player,
    Round,
    Wallet,
)


def open_round(ctx: Services, auth: Auth) -> dict[str, Any] | None:
    expire_awaiting(ctx, player_id=auth.player_id)
    return live_round_of(ctx, auth.player_id)


def live_round_of(ctx: Services, player_id: int) -> dict[str, Any] | None:
    """The player's live round (a waiting one with its ``awaiting`` options), with its game."""
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.player_id == player_id,
                                         Round.status.in_(LIVE_STATUSES)))
        if r is None:
            return None
        balance = s.scalar(select(Wallet.balance).where(Wallet.player_id == player_id))
        body = round_public(ctx, r, balance)
    entry = ctx.catalog.find(r.game_id, r.currency)
    body["game_info"] = None if entry is None else {
        "id": entry.id, "name": entry.game.name, "bets": entry.bets_minor()}
    return body


def history(ctx: Services, auth: Auth, limit: int) -> list[dict[str, Any]]:
    with ctx.db.read() as s:
        rows = list(s.scalars(select(Round).where(Round.player_id == auth.player_id)
                              .order_by(Round.seq.desc()).limit(limit)))
        voids = voids_of(s, [r.id for r in rows if r.status == CANCELLED])
        return [{**round_summary(ctx, r), "void": voids.get(r.id)} for r in rows]


def load_own(s: Session, auth: Auth, round_id: str) -> Round:
    r = None
    if ROUND_ID.fullmatch(round_id):
        r = s.scalar(select(Round).where(Round.id == round_id))
    if r is None:
        raise not_found("unknown_round", f"no round {round_id!r}")
    if r.player_id != auth.player_id:
        raise forbidden("not_your_round", "this round belongs to another player")
    return r


def round_record(ctx: Services, auth: Auth | None, round_id: str) -> dict[str, Any]:
    with ctx.db.read() as s:
        if auth is None:  # admin
            r = s.scalar(select(Round).where(Round.id == round_id)) if ROUND_ID.fullmatch(
                round_id) else None
            if r is None:
                raise not_found("unknown_round", f"no round {round_id!r}")
        else:
            r = load_own(s, auth, round_id)
        entries = s.scalars(select(LedgerEntry).where(LedgerEntry.round_id == r.id)
                            .order_by(LedgerEntry.id)).all()
        balance = s.scalar(select(Wallet.balance).where(Wallet.player_id == r.player_id))
        notes = s.scalars(select(AdminAction).where(AdminAction.target == r.id)
                          .order_by(AdminAction.id)).all()
        void = voids_of(s, [r.id]).get(r.id)
        body = round_public(ctx, r, balance)
    terminal = r.status in (COMPLETED, CANCELLED)
    body.update({
        "choices": list(r.choices),
        # Seeds are secret until the round is over: they would reveal what comes next.
        "seeds": list(r.seeds) if terminal else None,
        "auto_seeds": list(r.auto_seeds) if terminal else None,
        "uncapped_win": r.uncapped_win,
        "code_version": r.code_version,
        "autoplay_run_id": r.autoplay_run_id,  # the autoplay run that started it (None: none)
        "ledger": [{"id": e.id, "kind": e.kind, "amount": e.amount, "ref": e.ref,
                    "balance_after": e.balance_after, "created_at": iso(e.created_at)}
                   for e in entries],
        "notes": [{"action": n.action, "detail": n.detail, "created_at": iso(n.created_at)}
                  for n in notes],
        "void": void,  # voided for a malfunction: the incident, its reason, what was reversed
    })
    return body


def unseen_results(ctx: Services, player_id: int) -> list[dict[str, Any]]:
    with ctx.db.read() as s:
        rows = s.scalars(select(Round).where(Round.player_id == player_id,
                                             Round.notice_pending.is_(True))
                         .order_by(Round.seq))
        return [round_summary(ctx, r) for r in rows]


def ack_unseen(ctx: Services, player_id: int) -> None:
    with ctx.db.write() as s:
        s.execute(update(Round).where(Round.player_id == player_id,
                                      Round.notice_pending.is_(True))
                  .values(notice_pending=False))


def live_rounds(ctx: Services) -> list[dict[str, Any]]:
    with ctx.db.read() as s:
        rows = s.execute(select(Round, Player.username).join(Player, Player.id == Round.player_id)
                         .where(Round.status.in_(LIVE_STATUSES)).order_by(Round.seq)).all()
        return [{**round_summary(ctx, r), "username": u} for r, u in rows]
