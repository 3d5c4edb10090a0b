"""How a round is shown: its public body, its summary, and the profile's extras per response."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, Select, bindparam, case, func, select

from slotlab import ledger
from slotlab.server.services import profiles
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.store.models import (
    CANCELLED,
    COMPLETED,
    LedgerEntry,
    Player,
    Round,
    Wallet,
    utcnow,
)
from slotlab.store.operator_wallet import CREDIT, DEBIT, DONE, OperatorWalletOp

ROUND_ID = re.compile(r"[0-9a-f]{32}")


def iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


def cash_cap_of(ctx: Services, game_id: str, currency: str) -> int | None:
    """The most a round of the game pays in the currency, minor units (None: no cap): the
    lower of the operator's cap and the game's own (Superstars' COP 350,000,000); for a game
    or currency no longer offered, the operator's."""
    entry = ctx.catalog.find(game_id, currency)
    return entry.cash_cap if entry is not None else ctx.settings.cash_cap(currency)


def _win_now(ctx: Services, r: Round) -> int:
    if r.status in (COMPLETED, CANCELLED):
        return r.win
    win = r.win_credits * r.denomination
    cap = cash_cap_of(ctx, r.game_id, r.currency)
    return win if cap is None else min(win, cap)


def decimals_of(ctx: Services, currency: str) -> int:
    """A currency's minor-unit digits; a currency no longer offered keeps the default's."""
    terms = ctx.settings.money_or_none(currency)
    return (terms or ctx.settings.money()).decimals


def money_of(ctx: Services, currency: str) -> dict[str, Any]:
    """What every body carrying amounts says about them: their currency and its decimals."""
    return {"currency": currency, "decimals": decimals_of(ctx, currency)}


def round_public(ctx: Services, r: Round, balance: int | None) -> dict[str, Any]:
    return {
        "round_id": r.id,
        "game": r.game_id,
        "status": r.status,
        "bet": r.bet,
        "bet_credits": r.bet_credits,
        "denomination": r.denomination,
        **money_of(ctx, r.currency),
        "win": _win_now(ctx, r),
        "jackpots": list(r.jackpots or []),
        "jackpot_win": r.jackpot_win,
        "balance": balance,
        "awaiting": r.awaiting,
        "step": len(r.choices or []),
        "events": list(r.events or []),
        "model_hash": r.model_hash,
        "variant": r.variant or r.game_id,
        "outcome": r.outcome,
        "free_round_id": r.free_round_id,
        "created_at": iso(r.created_at),
        "completed_at": iso(r.completed_at),
    }


def round_summary(ctx: Services, r: Round) -> dict[str, Any]:
    return {
        "round_id": r.id,
        "game": r.game_id,
        "model_hash": r.model_hash,
        "variant": r.variant or r.game_id,
        "bet": r.bet,
        **money_of(ctx, r.currency),
        "win": _win_now(ctx, r),
        "jackpot_win": r.jackpot_win,
        "status": r.status,
        "outcome": r.outcome,
        "created_at": iso(r.created_at),
        "completed_at": iso(r.completed_at),
    }


def with_profile(ctx: Services, auth: Auth, body: dict[str, Any], net: int | None = None
                 ) -> dict[str, Any]:
    """A round response as the player's jurisdiction wants it: ``celebrate`` always; the
    session's net position (``net`` where the round's write returned it, else read) and elapsed
    time when the profile asks for them with every round. Added per response (not stored with
    the idempotency key): a retry gets them fresh."""
    profile = ctx.profile(auth.jurisdiction)
    out = {**body, "celebrate": profiles.celebrate(
        profile, int(body.get("bet") or 0),
        int(body.get("win") or 0) + int(body.get("jackpot_win") or 0))}
    if profile.session_with_rounds:
        now = utcnow()
        out["session"] = {
            "net_position": (net_position(ctx, auth.player_id, auth.session_started)
                             if net is None else net),
            "elapsed_s": int((now - auth.session_started).total_seconds()),
            "started_at": auth.session_started.isoformat()}
    return out


# The net position in operator-wallet mode: the player's operations since a time, found by the
# operator's player id (the username) and time (migration 0018's index); parameters
# ``player_id`` and ``since``. The status and kind are summed over, not filtered on: a filter on
# the status could take its index instead (every operation done since then, of every player)
# where the tables' statistics are not yet there to show how many that is. (The operator
# pipeline runs it on asyncpg: server/operator_rounds.py.)
_OP = OperatorWalletOp
_DONE = _OP.status == DONE
_PLAYER_ID: BindParameter[int] = bindparam("player_id")
OPERATOR_NET_POSITION: Select[tuple[int]] = (
    select(func.coalesce(func.sum(case((_DONE & (_OP.kind == CREDIT), _OP.amount),
                                       (_DONE & (_OP.kind == DEBIT), -_OP.amount),
                                       else_=0)), 0))
    .join(Round, Round.id == _OP.round_id)
    .where(_OP.player_id == select(Player.username).where(Player.id == _PLAYER_ID)
           .scalar_subquery(),
           _OP.created_at >= bindparam("since"), Round.player_id == _PLAYER_ID))


def net_position(ctx: Services, player_id: int, since: datetime) -> int:
    """What the player won less what they staked since ``since``: the play entries of the
    wallet's ledger; in operator-wallet mode, where the money moves at the operator and the
    ledger holds none of it, the credits less the debits the operator confirmed for the
    player's rounds (a debit rolled back or refused moved nothing, and a credit still being
    retried is not paid yet)."""
    with ctx.db.read() as s:
        if ctx.operator is not None:
            return int(s.scalar(OPERATOR_NET_POSITION,
                                {"player_id": player_id, "since": since}) or 0)
        return int(s.scalar(
            select(func.coalesce(func.sum(LedgerEntry.amount), 0))
            .join(Wallet, Wallet.id == LedgerEntry.wallet_id)
            .where(Wallet.player_id == player_id, LedgerEntry.created_at >= since,
                   LedgerEntry.kind.in_(ledger.PLAY_KINDS))
        ) or 0)
