"""Wallet reads and operator (admin) credits and debits.

With ``wallet_mode=operator`` an operator's seamless wallet replaces :mod:`ledger` postings for
bets and wins with remote debit/credit calls (:mod:`slotlab.server.services.rounds`); rounds then
use split commits and the ``crediting`` status while a credit is retried. The wallet view then
reads the operator's balance (the player's operator id is their username), and admin credits
and debits of the internal wallet are refused: the operator owns the money.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from slotlab import ledger
from slotlab.server import currencies
from slotlab.server.errors import ApiError, conflict, not_found, unprocessable
from slotlab.server.operator_wallet import OperatorError
from slotlab.server.services import idempotency as idem
from slotlab.server.services import limits
from slotlab.server.services.context import Services
from slotlab.server.services.profiles import PROFILES
from slotlab.server.services.round_view import money_of
from slotlab.store.models import AdminAction, Player, Wallet, utcnow

log = logging.getLogger("slotlab.server")


def wallet_view(ctx: Services, player_id: int) -> dict[str, Any]:
    if ctx.operator is not None:
        return _operator_view(ctx, player_id)
    with ctx.db.read() as s:
        w = s.scalar(select(Wallet).where(Wallet.player_id == player_id))
    if w is None:
        raise not_found("unknown_player", "no wallet")
    return {"balance": w.balance, **money_of(ctx, w.currency), "source": "internal"}


def _operator_view(ctx: Services, player_id: int) -> dict[str, Any]:
    assert ctx.operator is not None
    with ctx.db.read() as s:
        username = s.scalar(select(Player.username).where(Player.id == player_id))
    if username is None:
        raise not_found("unknown_player", "no wallet")
    try:
        b = ctx.operator.balance(username)
    except OperatorError as e:
        if e.status is not None and 400 <= e.status < 500:
            raise ApiError(e.status if e.status == 404 else 409, f"operator_{e.code}",
                           f"the operator's wallet: {e.message}") from None
        raise ApiError(503, "operator_unavailable",
                       f"the operator's wallet cannot be read now ({e.code})") from None
    currency = str(b.get("currency") or ctx.settings.currency)
    return {"balance": int(b["balance"]), **money_of(ctx, currency), "source": "operator"}


def registration_currency(ctx: Services, username: str, asked: str | None) -> str:
    """A new player's wallet currency: the one asked for (None: the server's); with
    wallet_mode=operator the currency the operator's wallet holds for the player, when it says
    (422 ``currency_mismatch`` if another was asked for). 422 ``currency_not_offered`` for a
    currency the server does not offer."""
    code = asked
    if ctx.operator is not None:
        try:
            held = ctx.operator.balance(username).get("currency")
        except OperatorError as e:  # not known there yet, or unreachable: the asked one
            log.warning("the operator's wallet gave no currency for %s: %s", username, e.code)
            held = None
        if held:
            if asked is not None and asked != held:
                raise unprocessable("currency_mismatch",
                                    f"the operator's wallet holds this player's money in "
                                    f"{held}, not {asked}")
            code = str(held)
    return currencies.offered(ctx.settings, code).code


def admin_move(ctx: Services, username: str, amount: int, credit: bool, key: str | None,
               req_hash: str) -> dict[str, Any]:
    if ctx.operator is not None:
        raise conflict("operator_wallet", "the operator's wallet holds the money "
                       "(wallet_mode=operator): credit or debit the player there")
    with ctx.db.read() as s:
        pid = s.scalar(select(Player.id).where(Player.username_key == username.lower()))
        row = idem.lookup(s, "admin", key, req_hash) if key else None
    if pid is None:
        raise not_found("unknown_player", f"no player {username!r}")
    if row is not None and row.response is not None:
        return cast(dict[str, Any], row.response)
    kind = ledger.ADMIN_CREDIT if credit else ledger.ADMIN_DEBIT
    ref = f"admin:{key}" if key else f"admin:{uuid.uuid4().hex}"
    try:
        with ctx.db.write() as s:
            now = utcnow()
            wallet = ledger.lock_wallet(s, pid)
            if credit:  # a deposit to a wallet slotlab holds: the player's limits apply
                limits.check_deposit(s, pid, amount)
            key_row = idem.reserve(s, "admin", key, req_hash) if key else None
            entry_id = ledger.post(s, wallet, amount if credit else -amount, kind, ref, now=now,
                                   want_id=True)
            s.add(AdminAction(action=kind, target=username, detail=str(amount), created_at=now))
            body = {"username": username, "amount": amount, "kind": kind,
                    "balance": wallet.balance, "entry_id": entry_id,
                    **money_of(ctx, wallet.currency)}
            if key_row is not None:
                key_row.status_code, key_row.response = 200, body
            return body
    except IntegrityError:
        with ctx.db.read() as s:
            row = idem.lookup(s, "admin", key, req_hash) if key else None
        if row is not None and row.response is not None:
            return cast(dict[str, Any], row.response)
        raise conflict("concurrent_request", "a concurrent request interfered; retry") from None


def set_jurisdiction(ctx: Services, username: str, jurisdiction: str | None) -> dict[str, Any]:
    """Admin: override the jurisdiction profile of one player (None: the server's profile)."""
    if jurisdiction is not None and jurisdiction not in PROFILES:
        raise unprocessable("unknown_jurisdiction",
                            f"unknown jurisdiction {jurisdiction!r}; known: {sorted(PROFILES)}")
    with ctx.db.write() as s:
        player = s.scalar(select(Player).where(Player.username_key == username.lower())
                          .with_for_update())
        if player is None:
            raise not_found("unknown_player", f"no player {username!r}")
        player.jurisdiction = jurisdiction
        pid = player.id
        s.add(AdminAction(action="set_jurisdiction", target=username,
                          detail=jurisdiction or "", created_at=utcnow()))
    # Sessions cached by this process pick the change up at once (others within
    # session_cache_s).
    for th, cached in list(ctx.auth_cache.items()):
        if cached.auth.player_id == pid:
            ctx.auth_cache.pop(th, None)
    return {"username": username, "jurisdiction": jurisdiction,
            "profile": ctx.profile(jurisdiction).to_json()}
