"""Players, passwords (argon2id), sessions (random expiring tokens) and the login lockout.

Tokens are 256-bit random strings; only their SHA-256 is stored, so a database leak gives no
usable token. A session ends at ``expires_at`` or after ``session_idle_s`` without a call.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from slotlab.server.errors import ApiError, conflict, unauthorized
from slotlab.server.services import ledger
from slotlab.server.services.context import Services
from slotlab.store.models import Player, Session, Wallet, utcnow

_TOUCH_EVERY = timedelta(seconds=60)  # write last_seen at most this often
_DUMMY_HASH: dict[int, str] = {}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Auth:
    player_id: int
    username: str
    jurisdiction: str | None
    session_id: int
    session_started: datetime
    expires_at: datetime


def register(ctx: Services, username: str, password: str) -> int:
    pw_hash = ctx.hasher.hash(password)
    now = utcnow()
    try:
        with ctx.db.write() as s:
            if s.scalar(select(Player.id).where(Player.username == username)) is not None:
                raise conflict("username_taken", f"username {username!r} is taken")
            player = Player(username=username, password_hash=pw_hash, created_at=now,
                            failed_logins=0)
            s.add(player)
            s.flush()
            wallet = Wallet(player_id=player.id, currency=ctx.settings.currency, balance=0)
            s.add(wallet)
            s.flush()
            grant = ctx.settings.play_money_balance
            if grant:
                ledger.post(s, wallet, grant, ledger.DEMO_GRANT, f"player:{player.id}:demo_grant",
                            now=now)
            return player.id
    except IntegrityError:
        raise conflict("username_taken", f"username {username!r} is taken") from None


def _verify(ctx: Services, pw_hash: str | None, password: str) -> bool:
    if pw_hash is None:  # unknown user: spend the same time, never succeed
        key = id(ctx.hasher)
        if key not in _DUMMY_HASH:
            _DUMMY_HASH[key] = ctx.hasher.hash(secrets.token_hex(16))
        pw_hash = _DUMMY_HASH[key]
        with contextlib.suppress(VerificationError, InvalidHashError):
            ctx.hasher.verify(pw_hash, password)
        return False
    try:
        return ctx.hasher.verify(pw_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def login(ctx: Services, username: str, password: str) -> tuple[str, datetime]:
    st = ctx.settings
    now = utcnow()
    with ctx.db.read() as s:
        player = s.scalar(select(Player).where(Player.username == username))
    if player is not None and player.locked_until is not None and player.locked_until > now:
        raise ApiError(401, "account_locked",
                       f"too many failed logins; locked until {player.locked_until.isoformat()}")
    ok = _verify(ctx, player.password_hash if player else None, password)
    if player is None:
        raise unauthorized("wrong username or password", "invalid_credentials")
    with ctx.db.write() as s:
        p = s.get(Player, player.id, with_for_update=True)
        assert p is not None
        if not ok:
            p.failed_logins += 1
            if p.failed_logins >= st.lockout_attempts:
                p.failed_logins = 0
                p.locked_until = now + timedelta(seconds=st.lockout_s)
        else:
            p.failed_logins = 0
            p.locked_until = None
            token = secrets.token_urlsafe(32)
            expires = now + timedelta(seconds=st.session_ttl_s)
            s.add(Session(token_hash=token_hash(token), player_id=p.id, created_at=now,
                          expires_at=expires, last_seen=now, revoked=False))
    if not ok:
        raise unauthorized("wrong username or password", "invalid_credentials")
    return token, expires


@dataclass(frozen=True)
class _Cached:
    auth: Auth
    last_seen: datetime
    revoked: bool
    until: float  # monotonic time after which the database is asked again


AUTH_CACHE_S = 2.0  # a logout elsewhere takes effect within this time; here at once


def cached_auth(ctx: Services, token: str) -> Auth | None:
    """The session from memory when that needs no database call (checked as
    :func:`authenticate` checks it), else None."""
    cached = ctx.auth_cache.get(token_hash(token))
    if cached is None or cached.until < time.monotonic():
        return None
    now = utcnow()
    if now - cached.last_seen >= _TOUCH_EVERY:
        return None
    idle_deadline = cached.last_seen + timedelta(seconds=ctx.settings.session_idle_s)
    if cached.revoked or cached.auth.expires_at <= now or idle_deadline <= now:
        raise unauthorized("session expired", "session_expired")
    return cached.auth


def authenticate(ctx: Services, token: str) -> Auth:
    now = utcnow()
    th = token_hash(token)
    cached = ctx.auth_cache.get(th)
    if cached is None or cached.until < time.monotonic():
        with ctx.db.read() as s:
            sess = s.execute(
                select(Session.id, Session.player_id, Session.created_at, Session.expires_at,
                       Session.last_seen, Session.revoked, Player.username, Player.jurisdiction)
                .join(Player, Player.id == Session.player_id)
                .where(Session.token_hash == th)
            ).first()
        if sess is None:
            ctx.auth_cache.pop(th, None)
            raise unauthorized()
        auth = Auth(sess.player_id, sess.username, sess.jurisdiction, sess.id, sess.created_at,
                    sess.expires_at)
        cached = _Cached(auth, sess.last_seen, sess.revoked, time.monotonic() + AUTH_CACHE_S)
        if len(ctx.auth_cache) > 100_000:
            ctx.auth_cache.clear()
        ctx.auth_cache[th] = cached
    auth = cached.auth
    idle_deadline = cached.last_seen + timedelta(seconds=ctx.settings.session_idle_s)
    if cached.revoked or auth.expires_at <= now or idle_deadline <= now:
        raise unauthorized("session expired", "session_expired")
    if now - cached.last_seen >= _TOUCH_EVERY:
        with ctx.db.write() as s:
            live = s.get(Session, auth.session_id)
            if live is not None:
                live.last_seen = now
        ctx.auth_cache[th] = _Cached(auth, now, cached.revoked, cached.until)
    return auth


def logout(ctx: Services, auth: Auth) -> None:
    th = None
    with ctx.db.write() as s:
        sess = s.get(Session, auth.session_id)
        if sess is not None:
            sess.revoked = True
            th = sess.token_hash
    if th is not None:
        ctx.auth_cache.pop(th, None)


def find_player_id(ctx: Services, username: str) -> int | None:
    with ctx.db.read() as s:
        return s.scalar(select(Player.id).where(Player.username == username))
