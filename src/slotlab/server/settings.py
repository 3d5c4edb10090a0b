"""Server settings: one validated object, read from ``SLOTLAB_*`` environment variables.

Dict and list settings take JSON, e.g. ``SLOTLAB_DENOMINATIONS='{"fruit-5x3": 10}'``.
docs/server.md lists every setting.
"""

from __future__ import annotations

import json
import os
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from slotlab.server.currencies import CurrencySettings, CurrencyTerms, resolve

_WEAK_TOKENS = {"changethis", "admin", "secret", "password", "token"}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SLOTLAB_", extra="ignore")

    # Admin endpoints are off unless a token is set; it must be a real secret (>= 16 chars).
    admin_token: SecretStr | None = None
    database_url: str = "sqlite:///var/slotlab.db"

    # Money. ``currency`` is the default for new players; ``currencies`` offers more, each with
    # its own decimals, denominations or bet ladders, cash cap (server/currencies.py); the
    # single-currency settings below make the default currency's entry when it has none there.
    currency: str = "EUR"
    currencies: dict[str, CurrencySettings] = {}
    currency_decimals: int = Field(2, ge=0, le=8)
    play_money_balance: int = Field(100_000, ge=0, le=10**15)  # 0: funded by the operator
    denominations: dict[str, int] = {}  # game id -> minor units per credit
    default_denomination: int = Field(1, ge=1, le=10**9)
    cash_caps: dict[str, int] = {}  # currency -> max win per round, minor units

    # Demo mode (anonymous play money, services/demo.py): on unless switched off here or by the
    # jurisdiction profile; each demo session gets a play-money wallet of demo_balance, lives at
    # most demo_session_ttl_s, and a client address may open demo_limit_per_address of them per
    # demo_limit_window_s.
    demo_enabled: bool = True
    demo_balance: int = Field(100_000, ge=1, le=10**15)
    demo_session_ttl_s: int = Field(4 * 3600, ge=60)
    demo_limit_per_address: int = Field(20, ge=1)
    demo_limit_window_s: int = Field(3600, ge=1)

    # Wallet: "internal" (the server's own ledger) or "operator" (an operator's seamless wallet
    # over HTTP, docs/operator-wallet.md; the player's operator id is their slotlab username).
    wallet_mode: Literal["internal", "operator"] = "internal"
    operator_wallet_url: str | None = None
    operator_wallet_secret: SecretStr | None = None  # HMAC-SHA256 key shared with the operator
    # During a change of secret: the one being replaced, still accepted on the operator's answers
    # (docs/operator-wallet.md, "Key rotation").
    operator_wallet_previous_secret: SecretStr | None = None
    # How far a signed answer's timestamp may be from this server's clock.
    operator_wallet_tolerance_s: float = Field(300.0, gt=0, le=3600)
    # A debit still unanswered this long after it was recorded was cut off by a crash and is
    # rolled back by the sweep (None: max(60 s, 4 x the timeout)).
    operator_wallet_stale_after_s: float | None = Field(None, gt=0)
    operator_wallet_timeout_s: float = Field(5.0, gt=0)  # per HTTP call
    operator_wallet_attempts: int = Field(3, ge=1)  # inline tries of a credit or rollback
    operator_wallet_backoff_s: float = Field(0.5, ge=0)  # first delay between tries (doubled)
    # An idle connection to the operator is dropped after this, before the operator's server
    # closes it (server/operator_wallet.py).
    operator_wallet_idle_s: float = Field(1.5, gt=0, le=3600)

    # Games offered (None: every game the engine knows).
    games: list[str] | None = None
    # RTP variant per offered game: game id -> the variant it plays, a game id the engine knows
    # (``{"superstars": "superstars-92"}``) or a line-game model file path. Rounds are stamped
    # with it; rounds of a variant played before keep their own model (found by model hash).
    variants: dict[str, str] = {}

    # The operator, as HELP names it (None: not shown). The unfinished-round procedure text
    # defaults to one built from auto_complete_after_s; the inactivity timeout is session_idle_s.
    operator_name: str | None = None
    operator_contact: str | None = None  # "For further information, please contact ..."
    operator_terms_url: str | None = None  # the operator's terms and conditions
    unfinished_rounds_text: str | None = None

    # Rounds.
    auto_complete_after_s: float = Field(24 * 3600, ge=0)
    min_round_interval_ms: int = Field(0, ge=0)  # 429 below this (gb profile: 2500 at least)
    split_round_commits: bool = False  # commit the debit before playing (operator-wallet style)
    jurisdiction: str = "mt"
    # Provably fair seeds (services/fairness.py): each round seed derived from the player's
    # committed server seed, client seed and counter, where the profile allows it.
    provably_fair: bool = False

    # Sessions and security.
    session_ttl_s: int = Field(12 * 3600, ge=1)
    session_idle_s: int = Field(30 * 60, ge=1)
    # Failed logins in a row slow the guesser (services/login_delays.py): after
    # lockout_attempts of them, from one client address or at one account, each further guess
    # waits login_delay_s, doubled per guess; an address waits at most lockout_s (sooner: 429
    # too_many_logins), an account's login at most login_account_delay_max_s (then it is
    # checked: the owner is never locked out). A streak is forgotten login_delay_memory_s after
    # the last wait it set.
    lockout_attempts: int = Field(3, ge=1)
    lockout_s: int = Field(15 * 60, ge=0)
    login_delay_s: float = Field(1.0, ge=0)
    login_account_delay_max_s: float = Field(2.0, ge=0, le=30)
    login_delay_memory_s: int = Field(3600, ge=1)
    argon2_time_cost: int = Field(2, ge=1)
    argon2_memory_kib: int = Field(19 * 1024, ge=8)
    argon2_parallelism: int = Field(1, ge=1)
    password_threads: int = Field(1, ge=1, le=16)  # argon2 runs here, never in the round workers
    password_backlog: int = Field(32, ge=1)  # logins at once per process; beyond: 503 login_busy
    # Failed logins allowed per window per client address; beyond them 429 with Retry-After.
    # Counted in the database: all processes share them.
    login_limit_per_address: int = Field(30, ge=1)
    login_limit_window_s: int = Field(60, ge=1)
    # Registrations: a pool of their own (beyond its backlog 503 registration_busy), and at
    # most so many per client address and in all per window (429 too_many_registrations).
    registration_threads: int = Field(1, ge=1, le=16)
    registration_backlog: int = Field(8, ge=1)
    registration_limit_per_address: int = Field(20, ge=1)
    registration_limit_total: int = Field(10_000, ge=1)
    registration_limit_window_s: int = Field(3600, ge=1)
    # Proxies (addresses or networks) whose X-Forwarded-For names the client; none by default.
    trusted_proxies: list[str] = []
    max_sessions_per_player: int = Field(10, ge=1)  # beyond it the oldest live one is revoked
    # Seconds a process trusts its copy of a session before it reads it again: a session ended
    # in another process is refused here within this time (0: read on every call).
    session_cache_s: float = Field(2.0, ge=0, le=60)
    max_body_bytes: int = Field(64 * 1024, ge=1024)  # larger request bodies get 413 unread
    # A request's head must arrive within header_timeout_s (of the connection or its first
    # byte; else 408 and the connection closes), its body within body_timeout_s of the head
    # (server/timeouts.py).
    header_timeout_s: float = Field(10.0, gt=0, le=600)
    body_timeout_s: float = Field(30.0, gt=0, le=3600)
    # An idle keep-alive connection closes after keep_alive_s. Longer than a proxy's idle
    # timeout (60 s is common), so that the proxy never sends on a connection just closed; and
    # long enough that a process paused a few seconds (a busy host) does not close connections
    # whose next request is already waiting unread (uvicorn's 5 s lost such requests).
    keep_alive_s: float = Field(75.0, gt=0, le=3600)
    # Origins that may show the game in a frame besides its own ("https://casino.example").
    frame_ancestors: list[str] = []

    # Software integrity (R21): the certified list the operator installed (docs/operators.md);
    # the code, the models and the compiled kernels are checked at start-up and at this interval.
    certified_list: str | None = None
    # Folders of certified evidence bundles (slotlab certify --out): each offered game is held
    # to its bundle's digests (services/certified_bundles.py). A JSON list, or the folders
    # separated by the path separator (":" on Linux).
    certified_bundles: Annotated[list[str], NoDecode] = []
    integrity_interval_s: float = Field(24 * 3600, gt=0)

    # Housekeeping.
    idempotency_ttl_s: int = Field(48 * 3600, ge=24 * 3600)
    # Every process ticks at this interval; each periodic job runs in one of them (docs/scale.md).
    maintenance_interval_s: float = Field(60, gt=0)
    # A debited round still open this long was left by a process that died: the sweep plays it.
    open_round_grace_s: float = Field(30, ge=0)
    # The periodic jobs' lock: advisory locks on PostgreSQL, a lease row elsewhere ("auto"); a
    # PostgreSQL-compatible database without advisory locks takes "lease".
    job_lock: Literal["auto", "advisory", "lease"] = "auto"

    # The live RTP watch (services/rtp_watch.py): the last rtp_watch_rounds rounds, each bet
    # level's judged once it has rtp_watch_min_rounds, against an interval of this confidence;
    # checked (and logged) every rtp_watch_interval_s; a scrape of /metrics shows the levels by
    # the figures known so far (it never runs an exact report or a simulation).
    rtp_watch_rounds: int = Field(100_000, ge=100)
    rtp_watch_min_rounds: int = Field(100, ge=2)
    rtp_watch_confidence: float = Field(0.999, gt=0.5, lt=1)
    rtp_watch_interval_s: float = Field(60, gt=0)

    # Database tuning.
    # "pgbouncer": the database URL reaches PostgreSQL through PgBouncer in transaction mode,
    # so no statement is prepared on the server and no state outlives a transaction.
    db_pooler: Literal["none", "pgbouncer"] = "none"
    sqlite_synchronous: str = "FULL"
    sqlite_busy_timeout_ms: int = Field(10_000, ge=0)
    db_pool_size: int = Field(40, ge=1)
    # The fast round path (server/fast_rounds.py): the common round start answered without the
    # web framework and written with other players' rounds in one statement and one commit;
    # off: every round takes the general path. Its PostgreSQL connections (asyncpg) are the
    # batches it keeps in flight; a batch holds at most fast_rounds_max_batch rounds. One:
    # batches wait for each other's commit and so grow; measured on 2 cores at 32 clients,
    # PostgreSQL spent 0.16 ms of CPU per round against 0.23 with two, and one process did
    # 3,265-3,708 rounds/s against 2,710-2,752 (benchmarks/bench_server.py, turn by turn).
    fast_rounds: bool = True
    fast_rounds_connections: int = Field(1, ge=1, le=16)
    fast_rounds_max_batch: int = Field(64, ge=1, le=1000)

    # Static browser client directory (None: the package's slotlab/web).
    web_dir: str | None = None
    access_log: bool = False  # uvicorn's per-request log line
    # "json": JSON lines, with a line per request and per round settled (request_log.py);
    # "text": plain lines, start-up and trouble only.
    log_format: Literal["text", "json"] = "text"
    # OpenTelemetry spans per request and per round settled (server/tracing.py; needs
    # pip install 'slotlab[otel]'): "otlp" exports by OTLP/HTTP (OTEL_EXPORTER_OTLP_* set the
    # endpoint), "console" prints them, "off" loads nothing of OpenTelemetry.
    tracing: Literal["off", "otlp", "console"] = "off"
    threads: int = Field(8, ge=1, le=256)  # worker threads running the (blocking) endpoints

    @field_validator("admin_token")
    @classmethod
    def _strong_admin_token(cls, v: SecretStr | None) -> SecretStr | None:
        if v is None or not v.get_secret_value():
            return None
        secret = v.get_secret_value()
        if len(secret) < 16 or secret.lower() in _WEAK_TOKENS:
            raise ValueError("SLOTLAB_ADMIN_TOKEN must be a random secret of at least 16 chars")
        return v

    @field_validator("certified_bundles", mode="before")
    @classmethod
    def _bundle_folders(cls, v: Any) -> Any:
        if isinstance(v, str):
            text = v.strip()
            if text.startswith("["):
                return json.loads(text)
            return [p for p in text.split(os.pathsep) if p.strip()]
        return v

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, v: list[str]) -> list[str]:
        import ipaddress

        try:
            return [str(ipaddress.ip_network(x.strip(), strict=False)) for x in v]
        except ValueError as e:
            raise ValueError(f"trusted_proxies: {e}") from None

    @field_validator("frame_ancestors")
    @classmethod
    def _frame_sources(cls, v: list[str]) -> list[str]:
        import re

        source = re.compile(r"https?://(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?/?")
        bad = [x for x in v if not source.fullmatch(x)]
        if bad:
            raise ValueError(f"frame_ancestors: give origins such as https://casino.example: {bad}")
        return v

    @field_validator("jurisdiction")
    @classmethod
    def _known_profile(cls, v: str) -> str:
        from slotlab.server.services.profiles import PROFILES

        if v not in PROFILES:
            raise ValueError(f"unknown jurisdiction {v!r}; known: {sorted(PROFILES)}")
        return v

    @field_validator("variants")
    @classmethod
    def _variant_refs(cls, v: dict[str, str]) -> dict[str, str]:
        bad = [k for k, ref in v.items() if not k or not ref.strip() or len(ref) > 255]
        if bad:
            raise ValueError(f"variants: give each game a variant id or model path: {bad}")
        return {k: ref.strip() for k, ref in v.items()}

    @field_validator("sqlite_synchronous")
    @classmethod
    def _sync_mode(cls, v: str) -> str:
        v = v.upper()
        if v not in {"OFF", "NORMAL", "FULL", "EXTRA"}:
            raise ValueError("sqlite_synchronous must be OFF, NORMAL, FULL or EXTRA")
        return v

    @field_validator("denominations", "cash_caps")
    @classmethod
    def _positive(cls, v: dict[str, int]) -> dict[str, int]:
        if any(x < 1 for x in v.values()):
            raise ValueError("denominations and cash caps must be positive integers")
        return v

    _money: dict[str, CurrencyTerms] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _currencies_resolved(self) -> Settings:
        self._money = resolve(self.currency, self.currency_decimals, self.denominations,
                              self.default_denomination, self.cash_caps,
                              self.play_money_balance, self.currencies)
        return self

    @model_validator(mode="after")
    def _operator_wallet_configured(self) -> Settings:
        if self.wallet_mode == "operator":
            if not self.operator_wallet_url:
                raise ValueError("wallet_mode=operator needs SLOTLAB_OPERATOR_WALLET_URL")
            if (self.operator_wallet_secret is None
                    or not self.operator_wallet_secret.get_secret_value()):
                raise ValueError("wallet_mode=operator needs SLOTLAB_OPERATOR_WALLET_SECRET")
        return self

    @property
    def operator_mode(self) -> bool:
        return self.wallet_mode == "operator"

    @property
    def offered_currencies(self) -> list[str]:
        """The currencies players may hold, the default first."""
        return list(self._money)

    def money(self, currency: str | None = None) -> CurrencyTerms:
        """A currency's terms (None: the default currency); KeyError when it is not offered."""
        return self._money[currency or self.currency]

    def money_or_none(self, currency: str) -> CurrencyTerms | None:
        return self._money.get(currency)

    def denomination(self, game_id: str, currency: str | None = None) -> int:
        return self.money(currency).denomination(game_id)

    def cash_cap(self, currency: str | None = None) -> int | None:
        """The most a round pays in the currency (minor units); None: no cap. A currency no
        longer offered keeps the cap of the older ``cash_caps`` setting, if any."""
        terms = self._money.get(currency or self.currency)
        return terms.cash_cap if terms is not None else self.cash_caps.get(currency or "")
