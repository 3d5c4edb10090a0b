"""Players, passwords (argon2id), sessions (random expiring tokens) and failed-login delays.

Tokens are 256-bit random strings; only their SHA-256 is stored, so a database leak gives no
usable token. A session ends at ``expires_at`` or after ``session_idle_s`` without a call, or
when the player's newer sessions push it past ``max_sessions_per_player``. Usernames are one
account whatever their case; the name is shown as registered.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, NoReturn, TypeVar

import anyio.to_thread
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session as OrmSession
from starlette.concurrency import run_in_threadpool

from slotlab import ledger
from slotlab.server import currencies, metrics, ratelimit
from slotlab.server.errors import conflict, unauthorized
from slotlab.server.ratelimit import Refused
from slotlab.server.services import login_delays, profiles
from slotlab.server.services.context import Services
from slotlab.server.services.help import duration_text
from slotlab.server.settings import Settings
from slotlab.store.models import Player, Session, Wallet, utcnow

T = TypeVar("T")
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
    currency: str | None = None  # the player's wallet currency (None: the server's default)
    demo: bool = False  # a demo player's session (services/demo.py): play money


def username_key(username: str) -> str:
    """The name an account is known by whatever its case ("Alice" and "alice" are one)."""
    return username.lower()


# Password work (argon2) runs in the services' own small thread pools (one for logins, one for
# registrations), so that a flood of either queues there and never takes the worker threads
# that play rounds, nor the other's place.


async def hash_password(ctx: Services, password: str) -> str:
    return await ctx.registration_pool.run(ctx.hasher.hash, password)


async def check_password(ctx: Services, pw_hash: str | None, password: str) -> bool:
    """Whether ``password`` is the one of ``pw_hash``. With no account (None) the login takes
    as long as a check takes here lately, without the work: a flood of unknown names costs
    the pool nothing, and its answers take the time a wrong password's take."""
    pool = ctx.password_pool
    if pw_hash is None:  # holds no place in the backlog: a flood of such names never fills it
        typical = pool.typical_s
        if typical is None:  # the first login of the process: measured on the dummy hash
            return await pool.run(_verify, ctx, None, password)
        await asyncio.sleep(typical)
        return False
    with pool.occupied():
        return await pool.run(_verify, ctx, pw_hash, password)


REGISTRATIONS_TOTAL_KEY = "r:*"  # every address's registrations in login_limits


def count_registration(ctx: Services, address: str) -> None:
    """Count a registration against its client address's limit and the server's total (429
    ``too_many_registrations`` with ``Retry-After`` beyond either), before its password is
    hashed; counted whatever its outcome. A refusal is a read: a flood writes nothing."""
    st = ctx.settings
    now = utcnow()
    limits = [(f"r:{address}", st.registration_limit_per_address),
              (REGISTRATIONS_TOTAL_KEY, st.registration_limit_total)]
    with ctx.db.read() as s:
        over = ratelimit.refused(s, limits, now, st.registration_limit_window_s)
    if not over:
        with ctx.db.write() as s:
            over = ratelimit.take(s, limits, now, st.registration_limit_window_s)
            if over:  # rolled back: a refused registration is not counted
                raise _too_many_registrations(max(over.values()))
    if over:
        raise _too_many_registrations(max(over.values()))


def _too_many_registrations(retry_after: int) -> Refused:
    return Refused(429, "too_many_registrations",
                   f"too many new accounts from here or in all; try again in {retry_after} s",
                   retry_after)


def register(ctx: Services, username: str, pw_hash: str, currency: str | None = None) -> int:
    """A new player with a wallet in ``currency`` (None: the server's default; 422
    ``currency_not_offered`` for one the server does not offer), granted the currency's
    play-money balance."""
    now = utcnow()
    name_key = username_key(username)
    terms = currencies.offered(ctx.settings, currency)
    try:
        with ctx.db.write() as s:
            if s.scalar(select(Player.id).where(Player.username_key == name_key)) is not None:
                raise conflict("username_taken", f"username {username!r} is taken")
            player = Player(username=username, username_key=name_key, password_hash=pw_hash,
                            created_at=now, failed_logins=0)
            s.add(player)
            s.flush()
            wallet = Wallet(player_id=player.id, currency=terms.code, balance=0)
            s.add(wallet)
            s.flush()
            grant = terms.play_money_balance
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


@dataclass(frozen=True)
class LoginAttempt:
    """A login whose guess is counted (limits and delays) and may be checked."""

    player_id: int | None
    password_hash: str | None
    address: str
    name_key: str
    wait_s: float  # the account's delay, waited before the password is checked


def _refuse(ctx: Services, address: str, retry_after: int) -> None:
    """429 ``too_many_logins``; the address is remembered in this process until it may guess
    again (:class:`slotlab.server.ratelimit.LoginGate`)."""
    ctx.login_blocks.add(address, retry_after)
    metrics.rate_limited("login")
    raise ratelimit.too_many(retry_after)


def delays(st: Settings) -> login_delays.Delays:
    return login_delays.Delays(free=st.lockout_attempts, base_s=st.login_delay_s,
                               address_max_s=st.lockout_s,
                               account_max_s=st.login_account_delay_max_s,
                               memory_s=st.login_delay_memory_s)


def start_login(ctx: Services, username: str, address: str) -> LoginAttempt:
    """Count the guess before any password is checked, atomically: the client address's limit
    and delay (429 beyond them) and the account's delay (waited for). Names with no account
    are counted the same way, so no answer tells whether a name exists."""
    st = ctx.settings
    now = utcnow()
    name_key = username_key(username)
    limits = [(f"a:{address}", st.login_limit_per_address)]
    d = delays(st)
    with ctx.db.read() as s:  # a refusal is a read: a flood writes nothing
        over = ratelimit.refused(s, limits, now, st.login_limit_window_s)
        wait = login_delays.address_wait(s, address, now, d)
    if over or wait is not None:
        _refuse(ctx, address, max([*over.values(), wait or 0]))
    with ctx.db.write() as s:
        over = ratelimit.take(s, limits, now, st.login_limit_window_s)
        refused_for, account_wait = (None, 0.0) if over else login_delays.count_guess(
            s, address, name_key, now, d)
        if over or refused_for is not None:
            # Raised inside the transaction: it rolls back, so the refused guess is not counted.
            _refuse(ctx, address, max([*over.values(), refused_for or 0]))
        player = s.execute(select(Player.id, Player.password_hash)
                           .where(Player.username_key == name_key)).first()
    return LoginAttempt(None if player is None else player.id,
                        None if player is None else player.password_hash,
                        address, name_key, account_wait)


def refuse_guess(attempt: LoginAttempt) -> NoReturn:
    """401 for a wrong guess; the operator's metric tells a name with no account from a wrong
    password, the answer does not."""
    metrics.login_failed("unknown_username" if attempt.player_id is None else "wrong_password")
    raise unauthorized("wrong username or password", "invalid_credentials")


def finish_login(ctx: Services, attempt: LoginAttempt, ok: bool) -> tuple[str, datetime, int]:
    """Settle a checked guess: a failure stays counted; a success ends the address's and the
    account's streaks and opens a session."""
    st = ctx.settings
    now = utcnow()
    pid = attempt.player_id
    if pid is None or not ok:
        refuse_guess(attempt)
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=st.session_ttl_s)
    with ctx.db.write() as s:
        ratelimit.give_back(s, [f"a:{attempt.address}"])
        login_delays.end_streaks(s, attempt.address, attempt.name_key)
        # The player's row is locked first, so concurrent logins cap sessions one by one.
        s.execute(update(Player).where(Player.id == pid).values(failed_logins=0)
                  .execution_options(synchronize_session=False))
        revoked = _make_room(s, pid, st.max_sessions_per_player - 1, now)
        s.add(Session(token_hash=token_hash(token), player_id=pid, created_at=now,
                      expires_at=expires, last_seen=now, revoked=False))
    for th in revoked:
        ctx.auth_cache.pop(th, None)
    return token, expires, pid


def _make_room(s: OrmSession, pid: int, keep: int, now: datetime) -> list[str]:
    """Revoke the player's live sessions beyond the ``keep`` newest; their token hashes.
    The player's row is locked by the caller, so concurrent logins cap one after the other."""
    old = s.execute(select(Session.id, Session.token_hash)
                    .where(Session.player_id == pid, Session.revoked.is_(False),
                           Session.expires_at > now)
                    .order_by(Session.id.desc()).offset(keep)).all()
    if old:
        s.execute(update(Session).where(Session.id.in_([r.id for r in old]))
                  .values(revoked=True).execution_options(synchronize_session=False))
    return [r.token_hash for r in old]


async def login(ctx: Services, username: str, password: str, address: str
                ) -> tuple[str, datetime, int]:
    """Log in: (token, expires_at, player id). Database steps run in the worker threads, the
    password check in the login pool. Only a check holds a place in the pool's backlog: with
    none left, any login is answered 503 ``login_busy`` before its guess is counted; logins
    at names without an account, or waiting for an account's delay, hold none."""
    ctx.password_pool.check_room()
    attempt = await run_in_threadpool(start_login, ctx, username, address)
    if attempt.wait_s > 0:
        await asyncio.sleep(attempt.wait_s)
    ok = await check_password(ctx, attempt.password_hash, password)
    if not ok:  # nothing to write: answered here, without a trip through the worker threads
        refuse_guess(attempt)
    return await settle(ctx, finish_login, ctx, attempt, ok)


async def settle(ctx: Services, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` for a login whose password was right, on the login's own worker threads:
    however many wrong logins queue for the shared ones, the right one goes on at once."""
    return await anyio.to_thread.run_sync(fn, *args, limiter=ctx.login_limiter)


@dataclass(frozen=True)
class _Cached:
    auth: Auth
    last_seen: datetime
    revoked: bool
    until: float  # monotonic time after which the database is asked again


# Sessions are cached per process for ``session_cache_s`` (SLOTLAB_SESSION_CACHE_S, 2 s by
# default; 0: never). A session ended in this process (logout, revoked by a newer login, a
# jurisdiction change) is dropped here at once; one ended in another process or host is still
# accepted here until its entry is that old: the staleness is bounded by session_cache_s. A
# session's lifetime and inactivity timeout are checked on every call, cached or not. A round's
# write on the batched path checks the session itself and sets its last-seen time when due
# (ledger.batch.RoundWrite.session): there a copy older than session_cache_s serves (until its
# last-seen time is due), since the write refuses a session that ended or a player who moved.


def cached_auth(ctx: Services, token: str, *, write_checks_session: bool = False
                ) -> Auth | None:
    """The session from memory when that needs no database call (checked as
    :func:`authenticate` checks it), else None. ``write_checks_session``: the caller's write
    refuses a session that ended and writes its last-seen time (:func:`last_seen_due`)."""
    cached: _Cached | None = ctx.auth_cache.get(token_hash(token))
    if cached is None:
        return None
    stale = cached.until <= time.monotonic()
    if stale and (not write_checks_session or _due(cached, utcnow())):
        return None  # a copy past its last-seen write is read again: others may have seen it
    return checked(ctx, cached, write_touches=write_checks_session)


def forget(ctx: Services, token: str) -> None:
    """Drop this process's copy of a session: its next call reads it anew."""
    ctx.auth_cache.pop(token_hash(token), None)


def last_seen_due(ctx: Services, token: str) -> bool:
    """Whether the session's last-seen time is due to be written (by the round's write)."""
    cached: _Cached | None = ctx.auth_cache.get(token_hash(token))
    return cached is not None and _due(cached, utcnow())


def seen(ctx: Services, token: str, at: datetime) -> None:
    """A write set the session's last-seen time to ``at``: this process's copy follows."""
    th = token_hash(token)
    cached: _Cached | None = ctx.auth_cache.get(th)
    if cached is not None:
        ctx.auth_cache[th] = replace(cached, last_seen=max(cached.last_seen, at))


def _due(cached: _Cached, now: datetime) -> bool:
    """The session's last-seen time is due to be written."""
    return now - cached.last_seen >= _TOUCH_EVERY


def checked(ctx: Services, cached: _Cached, *, write_touches: bool = False) -> Auth | None:
    """The session once checked live (401 if it ended), or None when its last-seen time is
    due to be written (:func:`authenticate` writes it) and the caller's write does not."""
    now = utcnow()
    if _due(cached, now) and not write_touches:
        return None
    _check_live(ctx, cached, now)
    return cached.auth


def _check_live(ctx: Services, cached: _Cached, now: datetime) -> None:
    """401 for a session that ended: ``session_expired`` (logged out, revoked or past its
    lifetime) or ``session_idle`` (no call for the inactivity timeout, R20: the player's
    jurisdiction profile's, else the server's)."""
    if cached.revoked or cached.auth.expires_at <= now:
        raise unauthorized("session expired", "session_expired")
    idle_s = profiles.idle_timeout_s(ctx.profile(cached.auth.jurisdiction),
                                     ctx.settings.session_idle_s)
    if cached.last_seen + timedelta(seconds=idle_s) <= now:
        raise unauthorized(f"your session ended after {duration_text(idle_s)} without activity",
                           "session_idle")


# The session of a token hash (``:token_hash``), as :func:`remember` reads it. The fast round
# path runs the same query on its own connections (server/fast_rounds.py).
SESSION_QUERY = (
    select(Session.id.label("session_id"), Session.player_id, Session.created_at,
           Session.expires_at, Session.last_seen, Session.revoked, Player.username,
           Player.jurisdiction, Wallet.currency, Player.demo)
    .join(Player, Player.id == Session.player_id)
    .outerjoin(Wallet, Wallet.player_id == Session.player_id)
    .where(Session.token_hash == bindparam("token_hash")))


def remember(ctx: Services, th: str, row: Mapping[Any, Any] | None) -> _Cached:
    """Cache the session that :data:`SESSION_QUERY` found for ``th``; 401 when none."""
    if row is None:
        ctx.auth_cache.pop(th, None)
        raise unauthorized()
    auth = Auth(row["player_id"], row["username"], row["jurisdiction"], row["session_id"],
                row["created_at"], row["expires_at"], row["currency"], bool(row["demo"]))
    cached = _Cached(auth, row["last_seen"], row["revoked"], time.monotonic()
                     + ctx.settings.session_cache_s)
    if len(ctx.auth_cache) > 100_000:
        ctx.auth_cache.clear()
    ctx.auth_cache[th] = cached
    return cached


def authenticate(ctx: Services, token: str) -> Auth:
    now = utcnow()
    th = token_hash(token)
    cached = ctx.auth_cache.get(th)
    if cached is None or cached.until <= time.monotonic():
        with ctx.db.read() as s:
            row = s.execute(SESSION_QUERY, {"token_hash": th}).first()
        cached = remember(ctx, th, None if row is None else row._mapping)
    auth = cached.auth
    _check_live(ctx, cached, now)
    if _due(cached, now):
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
        return s.scalar(select(Player.id).where(Player.username_key == username_key(username)))
