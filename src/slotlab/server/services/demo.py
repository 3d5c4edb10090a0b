"""Demo mode: anyone plays any game without an account, for play money (issue 15, R23).

``POST /api/demo`` creates an anonymous demo player (``players.demo``), a wallet funded with
``demo_balance`` play money and a session token, all in one transaction; the player then plays
through the same endpoints, on the same models and kernels, as a real one (R23: the same math).
Everything lives in the database like every session, so any server process serves it.

What sets a demo player apart:

- it has no ``username_key``: it cannot log in, and no username lookup (admin credit and debit,
  free round grants, jurisdiction overrides) finds it, so nothing can be deposited or withdrawn;
- its rounds are left out of the RTP and daily reports (services/reports.py);
- progressive pools are never touched: a demo round contributes nothing and a tier it wins pays
  the tier's reset value in play money (:func:`reset_value_wins`); the pools shown are display
  only;
- once its session ends (logout, expiry, the inactivity timeout) the maintenance sweep deletes
  the player and everything it played (:func:`sweep`).

Demo is offered when ``demo_enabled`` is set, the wallet is the server's own (an operator's
wallet holds real money only) and the server's jurisdiction profile allows it (``demo``: gb does
not, it requires age verification before free play). Creating demo sessions is limited per
client address (``demo_limit_per_address`` per ``demo_limit_window_s``, counted in the database
so every process shares the count), so that a flood cannot fill the database.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session as OrmSession

from slotlab import ledger
from slotlab.server import ratelimit
from slotlab.server.errors import ApiError, forbidden
from slotlab.server.ratelimit import Refused
from slotlab.server.services import profiles
from slotlab.server.services.auth import token_hash
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.store.models import (
    AdminAction,
    AutoplayRun,
    FreeRoundPackage,
    IdempotencyKey,
    LedgerEntry,
    Player,
    PlayerLimit,
    RealityCheck,
    Round,
    Session,
    Wallet,
    utcnow,
)

log = logging.getLogger("slotlab.server")

# Not a name the registration pattern accepts, so no account can ever be called this.
NAME_PREFIX = "~demo-"
LIMIT_PREFIX = "d:"  # the demo-session counters' keys in login_limits: d:<client address>
SWEEP_BATCH = 200  # demo players deleted per sweep at most (the rest wait for the next one)


def refusal(ctx: Services) -> ApiError | None:
    """Why demo play is not offered on this server now (None: it is)."""
    profile = ctx.profile()
    if not ctx.settings.demo_enabled:
        return forbidden("demo_disabled", "demo play is switched off on this server")
    if ctx.operator is not None:
        return forbidden("demo_disabled", "demo play needs the server's own wallet; this "
                         "server plays with the operator's (wallet_mode=operator)")
    if not profile.demo:
        why = " (age verification comes before free play)" if profile.id == "gb" else ""
        return forbidden("demo_not_allowed",
                         f"demo play is not offered under jurisdiction {profile.id}{why}")
    return None


def offer(ctx: Services) -> dict[str, Any]:
    """What the lobby needs to offer demo play, or to say why it does not."""
    refused = refusal(ctx)
    return {"enabled": refused is None,
            "code": None if refused is None else refused.code,
            "message": None if refused is None else refused.message,
            "balance": ctx.settings.demo_balance, "currency": ctx.settings.currency,
            "session_ttl_s": ctx.settings.demo_session_ttl_s}


def _too_many(retry_after: int) -> Refused:
    return Refused(429, "too_many_demo_sessions",
                   f"too many demo sessions from this address; try again in {retry_after} s",
                   retry_after)


def open_session(ctx: Services, address: str) -> dict[str, Any]:
    """A new demo player, its play-money wallet and its session: the token and the wallet."""
    refused = refusal(ctx)
    if refused is not None:
        raise refused
    st = ctx.settings
    now = utcnow()
    limits = [(f"{LIMIT_PREFIX}{address}", st.demo_limit_per_address)]
    with ctx.db.read() as s:  # a flood is refused by a read, before it writes anything
        full = ratelimit.refused(s, limits, now, st.demo_limit_window_s)
    if full:
        raise _too_many(max(full.values()))
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=st.demo_session_ttl_s)
    with ctx.db.write() as s:
        over = ratelimit.take(s, limits, now, st.demo_limit_window_s)
        if over:
            raise _too_many(max(over.values()))
        player = Player(username=NAME_PREFIX + secrets.token_hex(12), username_key=None,
                        password_hash="!", created_at=now, failed_logins=0, demo=True)
        s.add(player)
        s.flush()
        wallet = Wallet(player_id=player.id, currency=st.currency, balance=0)
        s.add(wallet)
        s.flush()
        ledger.post(s, wallet, st.demo_balance, ledger.DEMO_GRANT, f"demo:{player.id}:grant",
                    now=now)
        s.add(Session(token_hash=token_hash(token), player_id=player.id, created_at=now,
                      expires_at=expires, last_seen=now, revoked=False))
        pid, balance = player.id, wallet.balance
    return {"token": token, "expires_at": expires.isoformat(), "demo": True, "player_id": pid,
            "balance": balance, "currency": st.currency}


def is_demo_player(s: OrmSession, player_id: int) -> bool:
    return bool(s.scalar(select(Player.demo).where(Player.id == player_id)))


def _reset_values(entry: GameEntry) -> dict[str, int]:
    return {p.tier: p.reset_credits * entry.denomination for p in entry.progressives}


def reset_value_wins(entry: GameEntry, tiers: Sequence[str]) -> list[dict[str, Any]] | None:
    """What a demo round's tiers won pay, for the round writer's write: each the tier's reset
    value in play money, as its own ledger entry; no pool is locked, paid or reset (real pools
    never move for play money). None where a tier is not the game's (logged, as every writer
    logs it: :func:`~slotlab.server.services.jackpots.payable_tiers`)."""
    resets = _reset_values(entry)
    if not set(tiers) <= resets.keys():
        return None
    return [{"tier": tier, "amount": resets[tier], "demo": True} for tier in tiers]


def _ended_players(s: OrmSession, now: datetime, idle_s: int) -> list[int]:
    """Demo players none of whose sessions is live (logged out, expired or idle)."""
    live = (select(Session.id)
            .where(Session.player_id == Player.id, Session.revoked.is_(False),
                   Session.expires_at > now,
                   Session.last_seen > now - timedelta(seconds=idle_s)))
    return list(s.scalars(select(Player.id).where(Player.demo, ~live.exists())
                          .order_by(Player.id).limit(SWEEP_BATCH)))


def _delete_player(s: OrmSession, pid: int) -> None:
    # The wallet first, locked: a round of this player still being written finishes first.
    wallets = list(s.scalars(select(Wallet.id).where(Wallet.player_id == pid).with_for_update()))
    s.execute(delete(AdminAction).where(AdminAction.target.in_(
        select(Round.id).where(Round.player_id == pid))))
    if wallets:
        s.execute(delete(LedgerEntry).where(LedgerEntry.wallet_id.in_(wallets)))
    s.execute(delete(Round).where(Round.player_id == pid))
    s.execute(delete(AutoplayRun).where(AutoplayRun.player_id == pid))
    s.execute(delete(IdempotencyKey).where(IdempotencyKey.owner == f"p:{pid}"))
    s.execute(delete(RealityCheck).where(RealityCheck.session_id.in_(
        select(Session.id).where(Session.player_id == pid))))
    s.execute(delete(Session).where(Session.player_id == pid))
    s.execute(delete(PlayerLimit).where(PlayerLimit.player_id == pid))
    s.execute(delete(FreeRoundPackage).where(FreeRoundPackage.player_id == pid))
    s.execute(delete(Wallet).where(Wallet.player_id == pid))
    s.execute(delete(Player).where(Player.id == pid, Player.demo))


def sweep(ctx: Services) -> int:
    """Delete the demo players whose session has ended, with everything they played; the number
    deleted. Each player goes in a transaction of its own: one that fails waits for the next
    sweep and stops no other."""
    now = utcnow()
    idle_s = profiles.idle_timeout_s(ctx.profile(), ctx.settings.session_idle_s)
    with ctx.db.read() as s:
        ended = _ended_players(s, now, idle_s)
    deleted = 0
    for pid in ended:
        try:
            with ctx.db.write() as s:
                _delete_player(s, pid)
            deleted += 1
        except Exception:
            log.exception("deleting demo player %s failed; the next sweep tries again", pid)
    return deleted
