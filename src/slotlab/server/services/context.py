"""What every service call gets: settings, database, game catalogue, password hasher."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from anyio import CapacityLimiter
from argon2 import PasswordHasher

from slotlab.server.ratelimit import Blocks
from slotlab.server.services.catalog import Catalog
from slotlab.server.services.passwords import PasswordPool
from slotlab.server.services.profiles import PROFILES, Profile
from slotlab.server.settings import Settings
from slotlab.store import Database

if TYPE_CHECKING:
    from slotlab.server.fast_rounds import FastRoundPath
    from slotlab.server.operator_wallet import OperatorWallet
    from slotlab.server.services.integrity import IntegrityMonitor
    from slotlab.server.services.model_figures import ModelFigures
    from slotlab.server.services.rtp_watch import RtpWatch


@dataclass
class Services:
    settings: Settings
    db: Database
    catalog: Catalog
    hasher: PasswordHasher = field(init=False)
    password_pool: PasswordPool = field(init=False)  # logins' argon2, off the round workers
    registration_pool: PasswordPool = field(init=False)  # registrations' own
    login_blocks: Blocks = field(default_factory=Blocks)  # addresses over their login limit
    auth_cache: dict[str, Any] = field(default_factory=dict)  # token hash -> recent session
    # session id -> its last reality-check acknowledgement (or start), as this process saw it
    reality_acks: dict[int, datetime] = field(default_factory=dict)
    # Worker threads of their own for a login whose password was right (its session opened):
    # set at start-up, in the event loop; a flood of wrong logins never queues in front of it.
    login_limiter: CapacityLimiter | None = None
    # wallet_mode=operator: the seamless-wallet adapter (bets and wins go to the operator).
    operator: OperatorWallet | None = None
    # Software integrity checks (R21): which games are out of play, and the alerts.
    integrity: IntegrityMonitor | None = None
    # The live RTP watch (R22): alerts when a bet level pays outside its interval.
    rtp_watch: RtpWatch | None = None
    # The models' figures per bet level for the reports, made in a process of their own (set
    # with the server's start; None: a report made outside a server makes them itself).
    model_figures: ModelFigures | None = None
    # The server's round writer (set with its start; None: none runs), for the writes the
    # server makes with no request: auto-completion (services/round_recovery.py).
    round_writer: FastRoundPath | None = None

    def __post_init__(self) -> None:
        s = self.settings
        self.hasher = PasswordHasher(
            time_cost=s.argon2_time_cost,
            memory_cost=s.argon2_memory_kib,
            parallelism=s.argon2_parallelism,
        )
        self.password_pool = PasswordPool(s.password_threads, s.password_backlog)
        self.registration_pool = PasswordPool(s.registration_threads, s.registration_backlog,
                                              "registration_busy", "registrations")

    def profile(self, override: str | None = None) -> Profile:
        return PROFILES.get(override or "", PROFILES[self.settings.jurisdiction])
