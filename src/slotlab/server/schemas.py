"""Request and response bodies. Requests refuse unknown fields; amounts are integer minor units.

Naming: ``*Create`` is what a client sends, ``*Public`` what it gets back.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import Path
from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
)

MAX_AMOUNT = 10**15

Username = Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9_.-]{3,32}$")]
Password = Annotated[StrictStr, Field(min_length=8, max_length=128)]
Amount = Annotated[StrictInt, Field(gt=0, le=MAX_AMOUNT)]
# OpenAPI links from a round in a response to what can be done with it next (followed by the
# stateful API tests, and by any client generator that reads links).
_ROUND_ID_FROM_BODY = {"round_id": "$response.body#/round_id"}
ROUND_LINKS: dict[str, Any] = {
    op: {"operationId": op, "parameters": _ROUND_ID_FROM_BODY, "description": what}
    for op, what in (("read_round", "the round's full record"),
                     ("create_choice", "answer the choice the round waits for"),
                     ("replay_round", "replay the finished round"))}
# From the list of games to a round of the first one, at its lowest bet.
GAME_LINKS: dict[str, Any] = {
    "create_round": {"operationId": "create_round",
                     "parameters": {"game_id": "$response.body#/0/id"},
                     "requestBody": {"bet": "$response.body#/0/bets/0"},
                     "description": "play a round of the first game at its lowest bet"}}
ERROR_DESCRIPTIONS = {
    400: "malformed request (JSON, Idempotency-Key)", 401: "missing or invalid token",
    402: "insufficient funds", 403: "not allowed", 404: "not found",
    409: "conflict with the state of the round, key or account",
    413: "request body too large", 422: "invalid request",
    429: "too fast or too many attempts", 503: "unavailable; nothing was taken or changed"}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for the error statuses a route answers (``{error: {code,
    message}}``)."""
    return {s: {"model": ErrorPublic, "description": ERROR_DESCRIPTIONS[s]} for s in statuses}


# A player named in a path: printable (PostgreSQL text cannot hold a NUL byte).
UsernamePath = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[^\x00-\x1f\x7f]+$")]


def _in_utc(t: datetime) -> datetime:
    """The instant in UTC, as it is stored; one that UTC cannot hold is invalid input."""
    try:
        return t.astimezone(UTC)
    except OverflowError:  # e.g. 9999-12-31T23:00-05:00 is in year 10000 in UTC
        raise ValueError("the time is out of range once converted to UTC") from None


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_in_utc)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Properties to receive on player registration and on login
class PlayerCreate(_Request):
    username: Username
    password: Password
    # The wallet's ISO 4217 currency, one the server offers (default: the server's).
    currency: Annotated[StrictStr, Field(pattern=r"^[A-Z]{3}$")] | None = None


class SessionCreate(_Request):
    username: Annotated[StrictStr, Field(min_length=1, max_length=32, pattern=r"^[ -~]+$")]
    password: Annotated[StrictStr, Field(min_length=1, max_length=128)]


# Properties to receive on round creation and on a choice
class AutoplayCreate(_Request):
    """The stop conditions of the autoplay run that starts a round (services/autoplay.py)."""

    # Rounds left in the run, this one included; null: until another condition stops it.
    rounds_left: Annotated[StrictInt, Field(gt=0, le=100_000)] | None = None
    any_win: StrictBool = False
    single_win_above: Amount | None = None
    balance_up_by: Amount | None = None
    balance_down_by: Amount | None = None  # the loss limit
    # The autoplay run (POST /api/autoplay) the round belongs to: the server counts the run's
    # rounds and money and refuses the round once a stop condition of the run is met.
    run_id: Annotated[StrictInt, Field(gt=0, le=MAX_AMOUNT)] | None = None


class AutoplayRunCreate(_Request):
    """An autoplay run the player starts: the game and the run's stop conditions."""

    game: Annotated[StrictStr, Field(min_length=1, max_length=64)]
    rounds: Annotated[StrictInt, Field(gt=0, le=100_000)] | None = None  # null: no round limit
    any_win: StrictBool = False
    single_win_above: Amount | None = None
    balance_up_by: Amount | None = None
    balance_down_by: Amount | None = None  # the loss limit


class AutoplayStopCreate(_Request):
    # Why the client stopped the run; a run the server stopped first keeps the server's reason.
    reason: Literal["player", "feature", "choice", "balance_low", "error", "left", "rounds",
                    "loss_limit", "balance_up", "single_win", "any_win"] = "player"


class RoundCreate(_Request):
    bet: Amount
    # Play a round of this Free Round Bonus package (no debit; ``bet`` must be the package's).
    free_round_id: Annotated[StrictInt, Field(gt=0, le=MAX_AMOUNT)] | None = None
    # Sent with every round autoplay starts; absent for a round the player starts.
    autoplay: AutoplayCreate | None = None


class FreeRoundGrantCreate(_Request):
    username: Username
    game: Annotated[StrictStr, Field(min_length=1, max_length=64)]
    bet: Amount
    rounds: Annotated[StrictInt, Field(gt=0, le=100_000)]
    expires_at: UtcDatetime


class ChoiceCreate(_Request):
    choice: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    # The step the choice answers: the round's ``step`` (choices made so far) as the client
    # last saw it; another step is refused (409 round_changed). Required: without it two
    # concurrent copies of one choice would both apply (422 ``step_required``).
    step: Annotated[StrictInt, Field(ge=0, le=1_000_000)]


class JurisdictionCreate(_Request):
    # A profile id (``gb``, ``mt``), or null for the server's profile.
    jurisdiction: Annotated[StrictStr, Field(min_length=1, max_length=16)] | None


class AmountCreate(_Request):
    amount: Amount


RoundIdItem = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{32}$")]


class IncidentVoidCreate(_Request):
    """The rounds of a malfunction to void: ``round_ids``, or a ``game`` and the window
    [``start``, ``end``) of the rounds' start times; not both."""

    incident_id: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    reason: Annotated[StrictStr, Field(min_length=1, max_length=500,
                                       pattern=r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+$")]
    round_ids: Annotated[list[RoundIdItem], Field(min_length=1, max_length=10_000)] | None = None
    game: Annotated[StrictStr, Field(min_length=1, max_length=64)] | None = None
    start: UtcDatetime | None = None
    end: UtcDatetime | None = None


# Properties to return
class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorPublic(BaseModel):
    error: ErrorDetail
    round: dict[str, Any] | None = None


class PlayerPublic(BaseModel):
    player_id: int


class SessionPublic(BaseModel):
    token: str
    expires_at: str
    unseen_results: list[dict[str, Any]]
    open_round: dict[str, Any] | None = None  # a round waiting for the player: offer it again


class WalletPublic(BaseModel):
    balance: int
    currency: str
    decimals: int
    source: str = "internal"  # "operator" with wallet_mode=operator (the operator's balance)


class SessionInfoPublic(BaseModel):
    player: dict[str, Any]
    demo: bool = False  # a demo session: play money, nothing kept after it ends
    jurisdiction: dict[str, Any]
    session: dict[str, Any]
    net_position: int
    wallet: WalletPublic
    unseen_results: list[dict[str, Any]]
    open_round: dict[str, Any] | None = None
    free_rounds: dict[str, Any] | None = None


class GameSummaryPublic(BaseModel):
    id: str
    name: str
    bets: list[int]
    bets_credits: list[int]
    denomination: int
    currency: str
    decimals: int  # the currency's minor-unit digits
    rtp: float | None
    max_win: int
    max_win_bound: bool = False  # max_win is an upper bound that no round may reach
    # The largest win of the game's recorded simulation on this model, with its odds
    # (slotlab.simulate.record); None when the game ships no such record.
    max_win_simulated: dict[str, Any] | None = None
    max_win_cash: int | None
    model_hash: str
    variant: str
    progressives: bool
    in_service: bool  # false: taken out of play by the software integrity check


class RoundPublic(BaseModel):
    round_id: str
    game: str
    status: str
    bet: int
    bet_credits: int
    denomination: int
    currency: str
    decimals: int
    win: int
    jackpots: list[dict[str, Any]]
    jackpot_win: int
    balance: int | None
    awaiting: dict[str, Any] | None
    step: int  # choices made so far: the step a choice answers
    events: list[dict[str, Any]]
    model_hash: str
    variant: str
    outcome: str | None
    free_round_id: int | None = None
    free_round: dict[str, Any] | None = None
    celebrate: bool | None = None
    session: dict[str, Any] | None = None
    created_at: str | None
    completed_at: str | None


class OpenRoundPublic(RoundPublic):
    game_info: dict[str, Any] | None = None


class RoundSummaryPublic(BaseModel):
    round_id: str
    game: str
    model_hash: str
    variant: str
    bet: int
    currency: str
    decimals: int
    win: int
    jackpot_win: int
    status: str
    outcome: str | None
    created_at: str | None
    completed_at: str | None
    void: dict[str, Any] | None = None  # voided for a malfunction: incident, reason, amounts


class HistoryPublic(BaseModel):
    rounds: list[RoundSummaryPublic]


class LedgerEntryPublic(BaseModel):
    id: int
    kind: str
    amount: int
    ref: str | None = None
    balance_after: int
    created_at: str | None


class RoundRecordPublic(RoundPublic):
    choices: list[str]
    seeds: list[str] | None
    auto_seeds: list[str] | None
    uncapped_win: int
    code_version: str
    autoplay_run_id: int | None = None  # the autoplay run that started the round
    ledger: list[LedgerEntryPublic]
    notes: list[dict[str, Any]]  # what was done to the round and why (void, refusal)
    void: dict[str, Any] | None = None  # voided for a malfunction: incident, reason, amounts


class ReplayPublic(BaseModel):
    round_id: str
    identical: bool
    events_identical: bool
    win_identical: bool  # win, uncapped win and jackpots won as recorded
    # Every movement of the round's money (its ledger entries, or the operator's confirmed
    # debit and credit) is the one its replayed outcome calls for (None: a round voided for an
    # incident or discarded, whose own movements the audit checks against their record).
    payments_identical: bool | None
    payments: list[tuple[str, int]]  # those movements, [kind, amount] sorted
    # The round's row and its ledger entries match their hash-chain digests; what does not.
    record_intact: bool = True
    record_problems: list[str] = []
    model_hash_matches: bool
    recorded_model_hash: str
    replayed_model_hash: str
    current_model_hash: str
    variant: str
    code_version: str
    win_credits: int | None
    win: int | None
    uncapped_win: int | None
    jackpots: list[str] | None  # tiers won
    error: str | None = None  # why the record could not be replayed
    events: list[dict[str, Any]] | None


class JackpotPublic(BaseModel):
    game: str
    denomination: int
    currency: str
    decimals: int
    tier: str
    value: int
    value_micro: int
    reset: int
    rate: str


class JackpotsPublic(BaseModel):
    jackpots: list[JackpotPublic]


class AdminMovePublic(BaseModel):
    username: str
    amount: int
    kind: str
    balance: int
    entry_id: int
    currency: str
    decimals: int


class LiveRoundsPublic(BaseModel):
    rounds: list[dict[str, Any]]


class DemoOfferPublic(BaseModel):
    enabled: bool
    code: str | None  # why not: demo_disabled, demo_not_allowed
    message: str | None
    balance: int  # the play money a demo session starts with, minor units
    currency: str
    session_ttl_s: int


class DemoSessionPublic(BaseModel):
    token: str
    expires_at: str
    demo: bool
    player_id: int
    balance: int
    currency: str


class AutoplayRunPublic(BaseModel):
    run_id: int
    game: str
    jurisdiction: str
    rounds: int | None
    any_win: bool
    single_win_above: int | None
    balance_up_by: int | None
    balance_down_by: int | None
    status: str  # active, stopped
    stop_reason: str | None
    started_at: str
    stopped_at: str | None
    rounds_played: int
    total_bet: int
    total_win: int  # wins and jackpots paid
    net_loss: int  # total_bet - total_win (negative: a gain)
    username: str | None = None  # in the auditor's list


class AutoplayRunsPublic(BaseModel):
    runs: list[AutoplayRunPublic]


class FreeRoundPackagePublic(BaseModel):
    id: int
    game: str
    bet: int
    rounds_total: int
    rounds_left: int
    total_won: int
    expires_at: str
    created_at: str
    status: str  # active, used, expired


class FreeRoundGrantPublic(FreeRoundPackagePublic):
    username: str


class FreeRoundPackagesPublic(BaseModel):
    packages: list[FreeRoundPackagePublic]
    currency: str  # the player's: every package's bet and winnings are in it
    decimals: int
