"""A player's session reconstructed from the records (R8): what an auditor reads back years
later, from the rows the money path wrote and nothing else.

A session is a login (``sessions``). Rounds and ledger entries carry no session of their own, so
a session's records are the player's between its login and its end: the player's next login,
else the session's expiry, else now. (A player with two sessions open at once has both sessions'
rounds in the earlier one's window; the answer says which window it used.) The reconstruction
checks what it reads: each ledger entry's balance follows from the one before it (the opening
balance is the last one before the window), every round in the window has its bet (or is a free
round) and its win paid, and the closing balance is the last entry's. Autoplay runs are the
session's own (they name it).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotlab.ledger import kinds
from slotlab.server.errors import not_found
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import iso
from slotlab.store.models import (
    COMPLETED,
    AutoplayRun,
    LedgerEntry,
    Player,
    Round,
    Wallet,
    utcnow,
)
from slotlab.store.models import Session as LoginSession


def player_sessions(ctx: Services, username: str, limit: int) -> list[dict[str, Any]]:
    """The player's sessions, newest first."""
    with ctx.db.read() as s:
        player = _player(s, username)
        rows = s.scalars(select(LoginSession).where(LoginSession.player_id == player.id)
                         .order_by(LoginSession.id.desc()).limit(limit))
        return [_session_view(x) for x in rows]


def reconstruct(ctx: Services, session_id: int) -> dict[str, Any]:
    """The session's rounds, money movements and autoplay runs in order, with the checks."""
    with ctx.db.read() as s:
        login = s.get(LoginSession, session_id)
        if login is None:
            raise not_found("unknown_session", f"no session {session_id}")
        player = s.get(Player, login.player_id)
        assert player is not None
        start, end, ends_by = _window(s, login)
        wallet = s.scalar(select(Wallet).where(Wallet.player_id == player.id))
        entries: list[LedgerEntry] = [] if wallet is None else list(s.scalars(
            select(LedgerEntry).where(LedgerEntry.wallet_id == wallet.id,
                                      LedgerEntry.created_at >= start,
                                      LedgerEntry.created_at < end)
            .order_by(LedgerEntry.id)))
        before = None if wallet is None else s.scalar(
            select(LedgerEntry.balance_after).where(LedgerEntry.wallet_id == wallet.id,
                                                    LedgerEntry.created_at < start)
            .order_by(LedgerEntry.id.desc()).limit(1))
        rounds = list(s.scalars(select(Round).where(Round.player_id == player.id,
                                                    Round.created_at >= start,
                                                    Round.created_at < end)
                                .order_by(Round.seq)))
        runs = list(s.scalars(select(AutoplayRun).where(AutoplayRun.session_id == login.id)
                              .order_by(AutoplayRun.id)))
    opening = before or 0
    closing = entries[-1].balance_after if entries else opening
    checks = (_checks(opening, entries, rounds) if ctx.operator is None else
              {"ok": None, "why": "the money is the operator's: its wallet's records (the "
                                  "operations log) hold the movements"})
    play = sum(e.amount for e in entries if e.kind in kinds.PLAY_KINDS)
    return {
        "session": _session_view(login),
        "username": player.username,
        "window": {"start": iso(start), "end": iso(end), "ends_by": ends_by},
        "opening_balance": opening,
        "closing_balance": closing,
        "net_position": play,
        "rounds": [_round_view(r) for r in rounds],
        "ledger": [_entry_view(e) for e in entries],
        "autoplay_runs": [{"run_id": a.id, "game": a.game_id, "status": a.status,
                           "stop_reason": a.stop_reason, "rounds_played": a.rounds_played,
                           "total_bet": a.total_bet, "total_win": a.total_win}
                          for a in runs],
        "checks": checks,
    }


def _player(s: Session, username: str) -> Player:
    player = s.scalar(select(Player).where(Player.username_key == username.lower()))
    if player is None:
        raise not_found("unknown_player", f"no player {username!r}")
    return player


def _window(s: Session, login: LoginSession) -> tuple[datetime, datetime, str]:
    """Where the session's records lie: [login, end) and what ended it."""
    following = s.scalar(select(LoginSession.created_at)
                         .where(LoginSession.player_id == login.player_id,
                                LoginSession.id > login.id)
                         .order_by(LoginSession.id).limit(1))
    now = utcnow()
    if following is not None and following < login.expires_at:
        return login.created_at, following, "the next login"
    if login.expires_at <= now:
        return login.created_at, login.expires_at, "its expiry"
    return login.created_at, now, "now (still open)"


def _checks(opening: int, entries: list[LedgerEntry], rounds: list[Round]
            ) -> dict[str, Any]:
    """The records agree with each other: the balance chain, and each round's money."""
    broken = []
    balance = opening
    for e in entries:
        if e.balance_after != balance + e.amount:
            broken.append(e.id)
        balance = e.balance_after
    by_round: dict[str, list[LedgerEntry]] = {}
    for e in entries:
        if e.round_id is not None:
            by_round.setdefault(e.round_id, []).append(e)
    unpaid = []
    for r in rounds:
        moved = by_round.get(r.id, [])
        bet_taken = r.free_round_id is not None or any(
            e.kind == kinds.BET and e.amount == -r.bet for e in moved)
        won = sum(e.amount for e in moved if e.kind in (kinds.WIN, kinds.FREE_ROUND_WIN,
                                                         kinds.JACKPOT))
        if not bet_taken or (r.status == COMPLETED and won != r.win + r.jackpot_win):
            unpaid.append(r.id)
    return {"ok": not broken and not unpaid, "balance_chain_broken_at": broken,
            "rounds_not_matching_their_money": unpaid}


def _session_view(x: LoginSession) -> dict[str, Any]:
    return {"session_id": x.id, "started_at": iso(x.created_at),
            "last_seen": iso(x.last_seen), "expires_at": iso(x.expires_at),
            "logged_out": x.revoked}


def _round_view(r: Round) -> dict[str, Any]:
    return {"round_id": r.id, "game": r.game_id, "started_at": iso(r.created_at),
            "completed_at": iso(r.completed_at), "status": r.status, "outcome": r.outcome,
            "bet": r.bet, "win": r.win, "jackpot_win": r.jackpot_win,
            "free_round_id": r.free_round_id, "autoplay_run_id": r.autoplay_run_id,
            "choices": r.choices, "model_hash": r.model_hash}


def _entry_view(e: LedgerEntry) -> dict[str, Any]:
    return {"entry_id": e.id, "at": iso(e.created_at), "kind": e.kind, "amount": e.amount,
            "balance_after": e.balance_after, "round_id": e.round_id, "ref": e.ref}
