"""Free Round Bonus (FRB): rounds granted by the operator at a fixed bet, played at no cost.

A package belongs to one player and one game and has a fixed bet (one of the game's allowed
bets), a number of rounds and an expiry. A free round debits nothing; it is played with the
normal rules at the package's bet, and its win is credited by a ``free_round_win`` ledger entry
whose ``ref`` names the package (``free_round:<package>:round:<round>:win``). Packages are used
in creation order: a round on a package is refused (409 ``free_round_out_of_order``) while an
older package of the same game still has rounds left and has not expired. Expired or used-up
packages cannot be played (409 ``free_round_expired`` / ``free_round_used_up``).

Every check that matters runs in the round's write transaction, after the player's wallet is
locked, and the round counter moves with a guarded ``UPDATE ... WHERE rounds_left > 0``: two
requests for the last round cannot both get it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from slotlab.server.errors import conflict, forbidden, not_found, unprocessable
from slotlab.server.services import idempotency as idem
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.store.models import AdminAction, FreeRoundPackage, Player, Wallet, utcnow

ACTIVE = "active"
USED = "used"
EXPIRED = "expired"
MAX_ROUNDS = 100_000


def status_of(p: FreeRoundPackage, now: datetime) -> str:
    if p.rounds_left <= 0:
        return USED
    if p.expires_at <= now:
        return EXPIRED
    return ACTIVE


def package_public(p: FreeRoundPackage, now: datetime | None = None) -> dict[str, Any]:
    return {
        "id": p.id,
        "game": p.game_id,
        "bet": p.bet,
        "rounds_total": p.rounds_total,
        "rounds_left": p.rounds_left,
        "total_won": p.total_won,
        "expires_at": p.expires_at.isoformat(),
        "created_at": p.created_at.isoformat(),
        "status": status_of(p, now or utcnow()),
    }


def after(p: FreeRoundPackage, used: int, won: int) -> FreeRoundPackage:
    """A detached copy of the package once a round used ``used`` of its rounds and added
    ``won`` to its total (the batched path's view of a package it wrote)."""
    return FreeRoundPackage(id=p.id, player_id=p.player_id, game_id=p.game_id, bet=p.bet,
                            rounds_left=p.rounds_left - used, total_won=p.total_won + won,
                            expires_at=p.expires_at)


def as_read(p: FreeRoundPackage | None) -> tuple[int, int, int] | None:
    """The package as a round's write read it (id, rounds left, total won), which the write
    requires unchanged (``RoundWrite.free_round``); None: no free round."""
    return None if p is None else (p.id, p.rounds_left, p.total_won)


def round_state(p: FreeRoundPackage, now: datetime | None = None) -> dict[str, Any]:
    """What a round response says about its package (``status`` is ``used`` when it ran out)."""
    return {"id": p.id, "rounds_left": p.rounds_left, "total_won": p.total_won,
            "status": status_of(p, now or utcnow())}


def grant(ctx: Services, username: str, game_id: str, bet: int, rounds: int,
          expires_at: datetime, key: str | None, req_hash: str) -> tuple[int, dict[str, Any]]:
    """Admin: give a player a package (idempotent on the admin's ``Idempotency-Key``)."""
    with ctx.db.read() as s:
        row = idem.lookup(s, "admin", key, req_hash) if key else None
        # The bet is one of the game's bets in the player's currency.
        currency = s.scalar(select(Wallet.currency).join(Player, Player.id == Wallet.player_id)
                            .where(Player.username_key == username.lower()))
    if row is not None and row.response is not None:
        return row.status_code or 201, row.response
    entry = ctx.catalog.get(game_id, currency)
    credits = entry.credits_of(bet)
    if credits is None:
        raise unprocessable("bet_not_allowed",
                            f"bet {bet} is not allowed; allowed bets: {entry.bets_minor()}")
    now = utcnow()
    if expires_at <= now:
        raise unprocessable("invalid_request", "expires_at must be in the future")
    try:
        with ctx.db.write() as s:
            pid = s.scalar(select(Player.id).where(Player.username_key == username.lower()))
            if pid is None:
                raise not_found("unknown_player", f"no player {username!r}")
            key_row = idem.reserve(s, "admin", key, req_hash) if key else None
            p = FreeRoundPackage(player_id=pid, game_id=entry.id, bet=bet, bet_credits=credits,
                                 denomination=entry.denomination, rounds_total=rounds,
                                 rounds_left=rounds, total_won=0, expires_at=expires_at,
                                 created_at=now)
            s.add(p)
            s.flush()
            s.add(AdminAction(action="grant_free_rounds", target=username,
                              detail=f"package {p.id}: {rounds} x {bet} on {entry.id}",
                              created_at=now))
            body = {**package_public(p, now), "username": username}
            if key_row is not None:
                key_row.status_code, key_row.response = 201, body
            return 201, body
    except IntegrityError:
        with ctx.db.read() as s:
            row = idem.lookup(s, "admin", key, req_hash) if key else None
        if row is not None and row.response is not None:
            return row.status_code or 201, row.response
        raise conflict("concurrent_request", "a concurrent request interfered; retry") from None


def list_packages(ctx: Services, player_id: int) -> list[dict[str, Any]]:
    """Every package of the player, oldest first (the order they are used in)."""
    now = utcnow()
    with ctx.db.read() as s:
        rows = s.scalars(select(FreeRoundPackage).where(FreeRoundPackage.player_id == player_id)
                         .order_by(FreeRoundPackage.id)).all()
        return [package_public(p, now) for p in rows]


def summary(ctx: Services, player_id: int) -> dict[str, Any]:
    """For ``GET /api/session``: the packages that can be played now."""
    active = [p for p in list_packages(ctx, player_id) if p["status"] == ACTIVE]
    return {"packages": active, "rounds_left": sum(p["rounds_left"] for p in active)}


def _older(s: Session, p: FreeRoundPackage, now: datetime) -> int | None:
    """An older package of the same player and game that can still be played (it goes first)."""
    return s.scalar(select(FreeRoundPackage.id).where(
        FreeRoundPackage.player_id == p.player_id, FreeRoundPackage.game_id == p.game_id,
        FreeRoundPackage.id < p.id, FreeRoundPackage.rounds_left > 0,
        FreeRoundPackage.expires_at > now).order_by(FreeRoundPackage.id).limit(1))


def check_use(p: FreeRoundPackage | None, package_id: int, player_id: int, entry: GameEntry,
              bet: int, now: datetime, older: int | None) -> FreeRoundPackage:
    """The package, if this player may play a round of it now on this game at this bet (with
    ``older``, the package that must go first); else the error that says why not."""
    if p is None:
        raise not_found("unknown_free_round", f"no free round package {package_id}")
    if p.player_id != player_id:
        raise forbidden("not_your_free_round", "this free round package belongs to another player")
    if p.game_id != entry.id:
        raise unprocessable("free_round_wrong_game",
                            f"free round package {p.id} is for game {p.game_id!r}")
    if p.bet != bet:
        raise unprocessable("free_round_wrong_bet",
                            f"free round package {p.id} plays at the fixed bet {p.bet}")
    if p.rounds_left <= 0:
        raise conflict("free_round_used_up", f"free round package {p.id} has no rounds left")
    if p.expires_at <= now:
        raise conflict("free_round_expired",
                       f"free round package {p.id} expired at {p.expires_at.isoformat()}")
    if older is not None:
        raise conflict("free_round_out_of_order",
                       f"packages are used in creation order: play package {older} first")
    return p


def usable(ctx: Services, player_id: int, package_id: int, entry: GameEntry, bet: int,
           now: datetime) -> FreeRoundPackage:
    """Outside any write: the package as it stands, if a round of it may be played now (the
    round writer's read; its write then requires the package unchanged). Raises where a round
    of it may not be played (:func:`check_use`)."""
    with ctx.db.read() as s:
        p = s.scalar(select(FreeRoundPackage).where(FreeRoundPackage.id == package_id))
        older = None if p is None else _older(s, p, now)
        if p is not None:
            s.expunge(p)
    return check_use(p, package_id, player_id, entry, bet, now, older)


def add_win(s: Session, package_id: int, amount: int) -> None:
    if amount:
        s.execute(update(FreeRoundPackage).where(FreeRoundPackage.id == package_id)
                  .values(total_won=FreeRoundPackage.total_won + amount)
                  .execution_options(synchronize_session=False))


def give_back(s: Session, package_id: int) -> None:
    """A free round voided (or settled by refund) returns its round to the package."""
    s.execute(update(FreeRoundPackage).where(FreeRoundPackage.id == package_id,
                                             FreeRoundPackage.rounds_left
                                             < FreeRoundPackage.rounds_total)
              .values(rounds_left=FreeRoundPackage.rounds_left + 1)
              .execution_options(synchronize_session=False))


