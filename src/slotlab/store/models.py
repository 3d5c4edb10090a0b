"""The tables. Money is integer minor units; jackpot pools are integer micro-units of a minor unit.

``ledger_entries`` is the truth for money: a wallet's ``balance`` column is a cached sum of its
entries, updated in the same transaction as every entry (tests and ``/api/admin/audit`` check the
equality). Each entry has a unique ``ref`` built from what caused it (``round:<id>:bet``,
``round:<id>:win`` ...), so the same movement can never be written twice.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL gets a 64-bit identity.
BigId = BigInteger().with_variant(Integer(), "sqlite")

# Round statuses (the full list).
OPEN = "open"  # debited, being played
AWAITING_CHOICE = "awaiting_choice"
CREDITING = "crediting"  # an operator wallet credit is being retried (issue 5)
COMPLETED = "completed"
CANCELLED = "cancelled"  # voided: bet refunded, nothing paid
STATUSES = (OPEN, AWAITING_CHOICE, CREDITING, COMPLETED, CANCELLED)
LIVE_STATUSES = (OPEN, AWAITING_CHOICE, CREDITING)
# Operator-wallet mode: a round ended with one of these outcomes is credited its bet back (0 for
# a free round) and is ``cancelled`` once the operator confirms that credit; until then it is
# ``crediting`` and, for its run's figures, already not charged.
REFUND_OUTCOMES = ("voided", "better_of_refund")
_LIVE_SQL = "status IN ('open', 'awaiting_choice', 'crediting')"


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on both back-ends (SQLite keeps naive text)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class Player(Base):
    __tablename__ = "players"
    # One account per name whatever its case (migration 0006): the key is the lower-cased name.
    __table_args__ = (Index("uq_players_username_key", "username_key", unique=True),
                      Index("ix_players_demo", "demo", sqlite_where=text("demo"),
                            postgresql_where=text("demo")))

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)  # as registered (display)
    username_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    failed_logins: Mapped[int] = mapped_column(Integer, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Per-player jurisdiction override (issue 5); NULL = the server's profile.
    jurisdiction: Mapped[str | None] = mapped_column(String(16), nullable=True)
    last_round_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # An anonymous demo player (services/demo.py): play money, no username_key (it cannot be
    # looked up or logged in), deleted with everything it played when its session ends.
    demo: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))


class Wallet(Base):
    __tablename__ = "wallets"
    __table_args__ = (CheckConstraint("balance >= 0", name="ck_wallets_balance_nonneg"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"), unique=True)
    currency: Mapped[str] = mapped_column(String(8))
    balance: Mapped[int] = mapped_column(BigInteger, default=0)


class LedgerEntry(Base):
    __tablename__ = "ledger_entries"
    __table_args__ = (Index("ix_ledger_wallet", "wallet_id", "id"),
                      # The session's net position: a wallet's entries since a time.
                      Index("ix_ledger_wallet_time", "wallet_id", "created_at"))

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    wallet_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("wallets.id"))
    # bet, win, refund, jackpot, demo_grant, admin_credit, admin_debit, free_round_win
    kind: Mapped[str] = mapped_column(String(24))
    amount: Mapped[int] = mapped_column(BigInteger)  # signed: debits are negative
    balance_after: Mapped[int] = mapped_column(BigInteger)
    round_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    ref: Mapped[str] = mapped_column(String(300), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The wallet's hash chain (slotlab.store.chain), filled in by the database's trigger.
    chain_seq: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    chain_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ChainHead(Base):
    """The last link of each hash chain (slotlab.store.chain): ``ledger:<wallet id>``,
    ``rounds:<player id>``; advanced by the triggers in the transaction that adds a link."""

    __tablename__ = "chain_heads"

    chain: Mapped[str] = mapped_column(String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    head: Mapped[str] = mapped_column(String(64))


class Session(Base):
    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    last_seen: Mapped[datetime] = mapped_column(UTCDateTime)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class LoginLimit(Base):
    """Counters per key, in the database so that all server processes share them: failed logins
    per client address (``a:<address>``), demo sessions (``d:``) and registrations (``r:``) in the
    window that started at ``window_start``; and failed-login streaks (``f:a:``, ``f:u:``), whose
    ``window_start`` is when the next guess is allowed (services/login_delays.py)."""

    __tablename__ = "login_limits"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[datetime] = mapped_column(UTCDateTime)
    attempts: Mapped[int] = mapped_column(Integer)


class ModelSource(Base):
    """Every model version the server offered, kept by its hash: a round finds its own model
    here after the model file is edited or removed (replay, resuming an open round)."""

    __tablename__ = "model_sources"

    model_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    family: Mapped[str] = mapped_column(String(64))  # which game's rules read it
    game_id: Mapped[str] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(Text)  # the model's canonical JSON
    stored_at: Mapped[datetime] = mapped_column(UTCDateTime)


class KernelDigest(Base):
    """The digest of a compiled-kernel cache file as this host first loaded it (software
    integrity, R21): a recorded file that changes takes its games out of play."""

    __tablename__ = "kernel_digests"

    host: Mapped[str] = mapped_column(String(255), primary_key=True)
    path: Mapped[str] = mapped_column(String(500), primary_key=True)  # under NUMBA_CACHE_DIR
    sha256: Mapped[str] = mapped_column(String(64))
    recorded_at: Mapped[datetime] = mapped_column(UTCDateTime)


class PeriodicJob(Base):
    """A job that exactly one server process runs per interval, whichever claims it first
    (:mod:`slotlab.store.jobs`): when it is next due, who ran it last and what it found."""

    __tablename__ = "periodic_jobs"

    name: Mapped[str] = mapped_column(String(300), primary_key=True)
    next_due_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # Where the database has no advisory locks (SQLite): the run's lease, while it runs.
    running_until: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    holder: Mapped[str | None] = mapped_column(String(300), nullable=True)  # host:pid
    last_run_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class PlayerLimit(Base):
    """A limit the player set (R19): losses or deposits over a rolling period, in minor units.
    A raise or a removal waits for ``pending_from`` (a cooling-off day)."""

    __tablename__ = "player_limits"

    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"),
                                           primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)  # loss, deposit
    period: Mapped[str] = mapped_column(String(16), primary_key=True)  # day, week, month
    amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    pending_amount: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    pending_from: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)


class RealityCheck(Base):
    """The last reality-check reminder a session acknowledged (sessions end, rows stay small)."""

    __tablename__ = "reality_checks"

    session_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    acknowledged_at: Mapped[datetime] = mapped_column(UTCDateTime)


class FairnessPair(Base):
    """A player's provably fair seed pair (slotlab/fairness.py): the server seed stays secret
    until ``revealed_at``; ``counter`` is the next seed's number, advanced in one statement."""

    __tablename__ = "fairness_pairs"
    __table_args__ = (
        Index("ix_fairness_pairs_player", "player_id", "revealed_at"),
        # One active pair per player, whatever runs at once (two first rounds in two processes).
        Index("uq_fairness_pairs_active", "player_id", unique=True,
              sqlite_where=text("revealed_at IS NULL"),
              postgresql_where=text("revealed_at IS NULL")),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"))
    server_seed: Mapped[str] = mapped_column(String(64))  # hex
    commitment: Mapped[str] = mapped_column(String(64))  # hex SHA-256 of the server seed
    client_seed: Mapped[str] = mapped_column(String(64))
    counter: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (
        # One live round per player, enforced by the database as well as by the service.
        Index(
            "uq_rounds_one_live",
            "player_id",
            unique=True,
            sqlite_where=text(_LIVE_SQL),
            postgresql_where=text(_LIVE_SQL),
        ),
        Index("ix_rounds_player_seq", "player_id", "seq"),
        Index("ix_rounds_status", "status"),
    )

    seq: Mapped[int] = mapped_column(BigId, primary_key=True)
    id: Mapped[str] = mapped_column(String(32), unique=True)
    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"))
    game_id: Mapped[str] = mapped_column(String(64))
    model_hash: Mapped[str] = mapped_column(String(128))
    # The RTP variant played (a game id or model file; None before migration 0004: game_id).
    variant: Mapped[str | None] = mapped_column(String(255), nullable=True)
    code_version: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(8))
    denomination: Mapped[int] = mapped_column(BigInteger)
    bet_credits: Mapped[int] = mapped_column(BigInteger)
    bet: Mapped[int] = mapped_column(BigInteger)  # minor units
    win_credits: Mapped[int] = mapped_column(BigInteger, default=0)  # from the game, capped by it
    win: Mapped[int] = mapped_column(BigInteger, default=0)  # minor units paid (after cash cap)
    uncapped_win: Mapped[int] = mapped_column(BigInteger, default=0)  # before the cash cap
    jackpot_win: Mapped[int] = mapped_column(BigInteger, default=0)
    jackpots: Mapped[list[Any]] = mapped_column(JSON, default=list)  # [{tier, amount}]
    status: Mapped[str] = mapped_column(String(16))
    seeds: Mapped[list[str]] = mapped_column(JSON)  # hex; seeds[k] drives play after choice k
    choices: Mapped[list[str]] = mapped_column(JSON, default=list)
    auto_seeds: Mapped[list[str]] = mapped_column(JSON, default=list)  # seeds of auto choices
    events: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    awaiting: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    step: Mapped[int] = mapped_column(Integer, default=0)  # optimistic version for choices
    outcome: Mapped[str | None] = mapped_column(String(24), nullable=True)  # how it ended
    notice_pending: Mapped[bool] = mapped_column(Boolean, default=False)
    free_round_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # issue 5
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # The autoplay run that started the round (autoplay_runs; None: started by the player).
    autoplay_run_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True, index=True)
    # The player's hash chain of final rounds (slotlab.store.chain), filled in by the
    # database's trigger when the round reaches a final status.
    chain_seq: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    chain_digest: Mapped[str | None] = mapped_column(String(64), nullable=True)


class AutoplayRun(Base):
    """One autoplay run as the player started it (services/autoplay_runs.py): its stop
    conditions, and why it stopped. Its rounds are those whose ``autoplay_run_id`` names it."""

    __tablename__ = "autoplay_runs"
    __table_args__ = (Index("ix_autoplay_runs_player", "player_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"))
    session_id: Mapped[int] = mapped_column(BigInteger)
    game_id: Mapped[str] = mapped_column(String(64))
    jurisdiction: Mapped[str] = mapped_column(String(16))  # the profile it was started under
    rounds: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: no round limit
    any_win: Mapped[bool] = mapped_column(Boolean)
    single_win_above: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    balance_up_by: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    balance_down_by: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # loss limit
    status: Mapped[str] = mapped_column(String(16))  # active, stopped
    stop_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    stopped_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Its figures (ledger.batch.RUN_FIGURES counts them from its rounds): each round's write
    # adds its share, a later change to one of its rounds counts them again.
    rounds_played: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    total_bet: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    total_win: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    best_win: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class FreeRoundPackage(Base):
    """A Free Round Bonus package: rounds granted by the operator at a fixed bet (issue 5)."""

    __tablename__ = "free_round_packages"
    __table_args__ = (
        Index("ix_free_round_packages_player", "player_id", "id"),
        CheckConstraint("rounds_left >= 0 AND rounds_left <= rounds_total",
                        name="ck_free_round_packages_rounds"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    player_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("players.id"))
    game_id: Mapped[str] = mapped_column(String(64))
    bet: Mapped[int] = mapped_column(BigInteger)  # minor units, one of the game's allowed bets
    bet_credits: Mapped[int] = mapped_column(BigInteger)
    denomination: Mapped[int] = mapped_column(BigInteger)
    rounds_total: Mapped[int] = mapped_column(Integer)
    rounds_left: Mapped[int] = mapped_column(Integer)
    total_won: Mapped[int] = mapped_column(BigInteger, default=0)  # minor units, wins + jackpots
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"

    owner: Mapped[str] = mapped_column(String(40), primary_key=True)  # "p:<player id>", "admin"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    request_hash: Mapped[str] = mapped_column(String(64))
    # Indexed: a round's stored answers are found by it (migration 0017).
    round_id: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class JackpotPool(Base):
    __tablename__ = "jackpot_pools"
    # One set of pools per game, currency and denomination (migration 0011).
    __table_args__ = (UniqueConstraint("game_id", "currency", "denomination", "tier",
                                       name="uq_jackpot_pools_game_currency_denom_tier"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    game_id: Mapped[str] = mapped_column(String(64))
    denomination: Mapped[int] = mapped_column(BigInteger)
    tier: Mapped[str] = mapped_column(String(32))
    currency: Mapped[str] = mapped_column(String(8))
    reset_micro: Mapped[int] = mapped_column(BigInteger)
    rate: Mapped[str] = mapped_column(String(32))
    value_micro: Mapped[int] = mapped_column(BigInteger)


class JackpotEntry(Base):
    """Every movement of a pool: ``seed`` (reset funding), ``contribution``, ``award``."""

    __tablename__ = "jackpot_entries"
    __table_args__ = (Index("ix_jackpot_entries_pool", "pool_id", "id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    pool_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("jackpot_pools.id"))
    kind: Mapped[str] = mapped_column(String(16))
    amount_micro: Mapped[int] = mapped_column(BigInteger)  # signed
    value_after_micro: Mapped[int] = mapped_column(BigInteger)
    round_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class AdminAction(Base):
    __tablename__ = "admin_actions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(64))
    detail: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


# Round void statuses.
VOID_PENDING = "pending"  # operator wallet: the reversal is still being sent
VOID_DONE = "voided"  # every movement of the round reversed
VOID_PARTIAL = "partial"  # reversed as far as the balance allowed: ``shortfall`` not recovered


class RoundVoid(Base):
    """A round voided for a malfunction: the incident that voided it and what was reversed.

    One row per round (a round is voided once, whatever incident names it again). The money is
    moved by new ledger entries of kind ``void`` whose ``ref`` names the incident (internal
    wallet), or by operator-wallet transactions ``<round>:void:<incident>:credit|debit``."""

    __tablename__ = "round_voids"
    __table_args__ = (Index("ix_round_voids_incident", "incident_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    round_id: Mapped[str] = mapped_column(String(32), unique=True)
    incident_id: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))  # pending, voided, partial
    round_status: Mapped[str] = mapped_column(String(16))  # the round's status before the void
    bet: Mapped[int] = mapped_column(BigInteger)  # what the round charged (0: a free round)
    paid: Mapped[int] = mapped_column(BigInteger)  # what it paid: win + jackpots
    bet_returned: Mapped[int] = mapped_column(BigInteger, default=0)
    win_reversed: Mapped[int] = mapped_column(BigInteger, default=0)
    shortfall: Mapped[int] = mapped_column(BigInteger, default=0)  # paid, not taken back
    note: Mapped[str | None] = mapped_column(Text, nullable=True)  # why a part is missing
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
