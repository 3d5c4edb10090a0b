"""The fast money path: ``POST /api/games/{game}/rounds`` for the common round, answered at the
ASGI level, its rows written by one batched statement (group commit) on the database.

The common round: a player's session with the internal wallet, a new Idempotency-Key, a bet on
the game's ladder (or a free round of a package the player may play now; an autoplay round
of a run still going included), and a round that completes in this
request (jackpots won included: such a round is written alone, its game's pools locked,
:meth:`FastRoundPath.write_won`) or waits for the player's choice (the choice comes here too:
:mod:`.fast_choices`), under any profile: paced rounds (gb's 2.5 s), reality checks, the
session's figures in every answer and provably fair seeds (the pair's counter advanced in its
own transaction, :func:`~slotlab.server.services.fairness.next_seed`) included.
For it this module does what the general path
(:func:`slotlab.server.services.rounds.start_round`) does, without FastAPI's routing and
dependency solving, the thread pool or an ORM session: the same session check
(:func:`~slotlab.server.services.auth.cached_auth`), the same reality-check rule
(:func:`~slotlab.server.services.reality.surely_not_due`), the same seed
(``rounds.fresh_seed``, or the player's seed pair's) and play (``rounds.play``), the same rows
(round, ledger entries, idempotency key with its answer, jackpot contributions, the player's
last round time where rounds are paced), written by :mod:`slotlab.ledger`'s batch writers in a
statement that checks the funds, the live round, the key, the loss limits and the pace with the
wallet locked, and returns the session's net position where the answer shows it. In
operator-wallet mode round starts go to the operator pipeline (:mod:`.operator_rounds`); a free
round, with no debit to send, is written here with its credit's row and then paid by that
pipeline.

Everything else goes to the FastAPI app unchanged (so its answers, errors and OpenAPI stay
the contract): a request this path does not recognise whole before playing is passed on as it
came (a bad body, a missing key, a 401: the app answers as it always did); a round it played
but the write left out (a live round, a key whose round is in progress, a package or run
changed, a wallet changed meanwhile, or a failure) is passed on with its seed and outcome
(:class:`~slotlab.server.services.rounds.Played`), so the general path answers the refusal or
writes that very round, with this path's writer (:meth:`FastRoundPath.write`: on the internal
wallet every round start and choice is written by it, whichever route it took). A round
start the database refuses for the pace, a loss limit or the funds is answered here, with the
general path's error for that state (:func:`~slotlab.server.services.rounds.refusal`), and so
is a retry (a key used before: its first answer, or 409 where it came with another request).

The 413 body cap and the security headers stay the app's middlewares' (this one runs inside
them); ``SLOTLAB_FAST_ROUNDS=false`` turns the answering here off (the writer stays).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import SimpleNamespace
from typing import Any, TypeVar, cast

from sqlalchemy.dialects.postgresql import asyncpg as asyncpg_dialect
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from slotlab import CODE_VERSION, ledger
from slotlab.json_text import json_object_with, json_text, to_jsonable
from slotlab.ledger.batch import (
    GroupWriter,
    LedgerLine,
    Outcome,
    ReadRow,
    Refused,
    RoundWrite,
    Stored,
    Written,
    paid_lines,
)
from slotlab.ledger.postgres import PostgresRoundWriter
from slotlab.ledger.sqlite import SqliteRoundWriter
from slotlab.rng import Seed
from slotlab.rounds import RoundResult
from slotlab.server import fast_answers, fast_choices, metrics, operator_rounds
from slotlab.server.errors import ApiError
from slotlab.server.fast_answers import send_json
from slotlab.server.fast_requests import token_and_key
from slotlab.server.operator_rounds import OperatorRounds
from slotlab.server.schemas import AutoplayCreate, RoundCreate
from slotlab.server.services import auth as auth_service
from slotlab.server.services import autoplay as autoplay_rules
from slotlab.server.services import (
    autoplay_runs,
    demo,
    fairness,
    free_rounds,
    jackpots,
    profiles,
    reality,
    round_view,
)
from slotlab.server.services import idempotency as idem
from slotlab.server.services import rounds as general
from slotlab.server.services.auth import Auth
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.store.models import (
    AWAITING_CHOICE,
    COMPLETED,
    CREDITING,
    OPEN,
    FreeRoundPackage,
    Round,
    utcnow,
)

log = logging.getLogger("slotlab.server")
T = TypeVar("T")
# How long another thread waits for a write on the loop (:meth:`FastRoundPath.call`): a batch
# commits in milliseconds; past this the caller gives up (what it wrote, if anything, stands).
CALL_WAIT_S = 30.0

_PREFIX, _SUFFIX = "/api/games/", "/rounds"


def _game_of(path: str) -> str | None:
    """The game id of a round-start path, else None."""
    if path.startswith(_PREFIX) and path.endswith(_SUFFIX):
        game = path[len(_PREFIX):-len(_SUFFIX)]
        if game and "/" not in game:
            return game
    return None


@dataclass(frozen=True)
class _Request:
    game_id: str
    token: str
    key: str
    bet: int
    request_hash: str
    free_round_id: int | None
    autoplay: AutoplayCreate | None


def _parse(game_id: str, headers: list[tuple[bytes, bytes]], body: bytes) -> _Request | None:
    """The request, when it is a plain round start this path serves; else None."""
    found = token_and_key(headers)
    if found is None:
        return None
    token, key = found
    try:
        req = RoundCreate.model_validate_json(body)  # strict fields: as json.loads + validate
    except ValueError:  # pydantic's ValidationError
        return None
    h = idem.request_hash("POST", f"{_PREFIX}{game_id}{_SUFFIX}", req.model_dump(exclude_none=True))
    return _Request(game_id, token, key, req.bet, h, req.free_round_id, req.autoplay)


async def _profile_allows(ctx: Services, who: Auth, entry: GameEntry) -> bool:
    """Whether the player's profile lets this path start the round: the game's RTP meets it,
    and no reality check is due (by the acknowledgement this process remembers, read once per
    session; where a reminder is due, the general path reads it again and answers). The pace
    is checked by the write itself. Otherwise the general path checks and answers."""
    p = ctx.profile(who.jurisdiction)
    if p.id != ctx.settings.jurisdiction and profiles.below_min_rtp(p, entry.rtp):
        return False
    if reality.surely_not_due(ctx, who) is None:
        await run_in_threadpool(reality.last_ack, ctx, who)
    return reality.surely_not_due(ctx, who) is True


def _entry(ctx: Services, game_id: str, who: Auth) -> GameEntry | None:
    """The game in the player's currency, as the general path finds it (None: let it say why)."""
    try:
        return ctx.catalog.get(game_id, who.currency)
    except ApiError:
        return None


# The session query as the PostgreSQL backend runs it (asyncpg's $1 parameters).
_SESSION_SQL = str(auth_service.SESSION_QUERY.compile(
    dialect=asyncpg_dialect.dialect()))  # type: ignore[no-untyped-call]
WriteWon = Callable[[int, Sequence[int], Callable[[Mapping[int, tuple[int, int]]], RoundWrite]],
                    Awaitable[tuple[RoundWrite, Outcome]]]


@dataclass
class FastRoundPath:
    """The path's state in one server process: its writer and the pools' ids (fixed rows)."""

    ctx: Services
    writer: GroupWriter[RoundWrite, Outcome]
    close_backend: Any  # the backend's ``close`` coroutine function
    read_row: ReadRow | None = None  # the backend's read, where it has one
    write_won_backend: WriteWon | None = None  # a round that won jackpots, alone
    pools: dict[Any, dict[str, int]] = field(default_factory=dict)
    stats: Counter[str] = field(default_factory=Counter)  # answered here / passed on, and why
    # (player, autoplay run) -> the run as the last round this process wrote left it
    runs: dict[tuple[int, int], autoplay_runs.RunUse] = field(default_factory=dict)
    # (player, free round package) -> the package as the last round this process wrote left it
    packages: dict[tuple[int, int], FreeRoundPackage] = field(default_factory=dict)
    # Operator-wallet mode: the round starts this path serves go to the operator pipeline.
    operator: OperatorRounds | None = None
    # Rounds this path (or its operator pipeline) wrote waiting for a choice, for the choice's
    # write.
    waiting: fast_choices.WaitingRounds = field(default_factory=fast_choices.WaitingRounds)
    # Whether requests are answered here (SLOTLAB_FAST_ROUNDS); off, the general path still
    # writes its round starts with this path's writer (``rounds.start_round``).
    serves: bool = True
    # The event loop the writer runs on, for the server's other threads (:meth:`call`).
    loop: asyncio.AbstractEventLoop | None = None

    def call(self, fn: Callable[..., Coroutine[Any, Any, T]], *args: Any) -> T:
        """``fn(*args)`` run on this path's event loop and waited for, from another thread of
        the server: a worker thread, or the maintenance sweeper, which is no worker thread of
        the loop's (never from the loop's own thread: it would wait for itself)."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(fn(*args), self.loop).result(CALL_WAIT_S)

    async def pool_ids(self, entry: GameEntry) -> dict[str, int]:
        ids = self.pools.get(jackpots.pool_key(entry))
        return ids if ids is not None else await run_in_threadpool(self.read_pool_ids, entry)

    def read_pool_ids(self, entry: GameEntry) -> dict[str, int]:
        """:meth:`pool_ids` on a worker thread (the general path's: it may not wait for
        another thread)."""
        k = jackpots.pool_key(entry)
        ids = self.pools.get(k)
        if ids is None:
            ids = self.pools[k] = jackpots.pool_ids(self.ctx.db, entry)
        return ids

    async def write_won(self, player_id: int, ids: Mapping[str, int], tiers: Sequence[str],
                        contributions: Sequence[tuple[int, int]],
                        make: Callable[..., RoundWrite]
                        ) -> tuple[RoundWrite, Outcome]:
        """A round (or a choice) that won jackpots, written alone (the backend's
        ``write_won``): its game's pools (``ids``, by tier) locked after the wallet, the
        amounts paid from their values as locked (:func:`jackpots.won`, after the round's own
        ``contributions``), then ``make(won=..., awards=...)`` is the write."""
        assert self.write_won_backend is not None

        def build(pools: Mapping[int, tuple[int, int]]) -> RoundWrite:
            won, awards = jackpots.won(tiers, ids, pools, contributions)
            return make(won=won, awards=awards)

        return await self.write_won_backend(player_id, list(ids.values()), build)

    async def auth(self, token: str) -> Auth:
        """The session, as :func:`auth_service.authenticate` checks it: from the process's
        cache, else read on the backend's connection (no thread, no ORM), else (the session's
        last-seen time is due to be written) by ``authenticate`` itself. Raises its 401s.

        Every write of this path checks the session itself and sets its last-seen time when
        due (``RoundWrite.session``; an operator round's opening, before its debit is sent:
        ``Opening.session``), so the copy serves past session_cache_s: a player's round every
        few seconds would otherwise read the session every round, and write it every minute in
        a worker thread. A write refused drops the copy (the general path then reads the
        session anew and says why)."""
        ctx = self.ctx
        who = auth_service.cached_auth(ctx, token, write_checks_session=True)
        if who is None and self.read_row is not None:
            th = auth_service.token_hash(token)
            self.stats["session:read"] += 1
            who = auth_service.checked(
                ctx, auth_service.remember(ctx, th, await self.read_row(_SESSION_SQL, th)),
                write_touches=True)
        if who is None:
            who = await run_in_threadpool(auth_service.authenticate, ctx, token)
        return who

    async def autoplay_run(self, who: Auth, game_id: str, declared: AutoplayCreate | None
                           ) -> autoplay_runs.RunUse | None:
        """The run a round is played in (None: no autoplay declared), once the profile's
        autoplay rules allow the declaration: as this process last wrote it (the write checks
        the figures against the stored rounds, so a stale one is refused, never trusted), else
        read (:func:`autoplay_runs.usable`). Raises where the general path must answer."""
        if declared is None:
            return None
        autoplay_rules.check_round(self.ctx.profile(who.jurisdiction), declared)
        if declared.run_id is None:
            return None
        known = self.runs.get((who.player_id, declared.run_id))
        if known is not None and known.run.game_id == game_id:
            return known
        return await run_in_threadpool(autoplay_runs.usable, self.ctx, who, game_id, declared)

    def remember_run(self, who: Auth, run: autoplay_runs.RunUse | None, write: RoundWrite
                     ) -> None:
        """The run's figures after a round written here, for its next round (a run this round
        stopped is forgotten: its next round is the general path's to refuse)."""
        if run is None or write.autoplay is None:
            return
        k = (who.player_id, run.run_id)
        if write.autoplay[2] is not None:
            self.runs.pop(k, None)
            return
        if len(self.runs) > 100_000:
            self.runs.clear()
        self.runs[k] = run.played(write.round_values)

    def forget_run(self, who: Auth, run: autoplay_runs.RunUse | None) -> None:
        if run is not None:
            self.runs.pop((who.player_id, run.run_id), None)

    async def package(self, who: Auth, package_id: int, entry: GameEntry, bet: int
                      ) -> FreeRoundPackage:
        """A free round's package, if a round of it may be played now: as this process's last
        write of it left it (the write requires the package unchanged and no older package of
        the game playable, so a stale copy is refused, never trusted), else read
        (:func:`free_rounds.usable`). Raises as that does: the general path answers."""
        now = utcnow()
        known = self.packages.get((who.player_id, package_id))
        if known is not None:
            return free_rounds.check_use(known, package_id, who.player_id, entry, bet, now, None)
        return await run_in_threadpool(free_rounds.usable, self.ctx, who.player_id, package_id,
                                       entry, bet, now)

    def remember_package(self, who: Auth, package: FreeRoundPackage | None, write: RoundWrite,
                         awaiting: bool) -> None:
        """The package after a free round written here, for its next round; forgotten when it
        has no round left or its round waits for a choice (the choice adds to its win)."""
        if package is None:
            return
        k = (who.player_id, package.id)
        if awaiting or package.rounds_left <= 1:  # this round was its last
            self.packages.pop(k, None)
            return
        if len(self.packages) > 100_000:
            self.packages.clear()
        self.packages[k] = free_rounds.after(package, 1, write.win)

    def forget_package(self, who: Auth, package: FreeRoundPackage | None) -> None:
        if package is not None:
            self.packages.pop((who.player_id, package.id), None)

    def passed(self, why: str, who: Auth, run: autoplay_runs.RunUse | None,
               package: FreeRoundPackage | None, token: str | None = None) -> None:
        """A round start whose write was tried here, left to the general path: counted under
        ``why``, this process's copies of its run and package dropped (the general path reads
        them anew) and, given the ``token`` of a session whose write was refused (it may have
        ended), the session's copy too."""
        self.stats[why] += 1
        self.forget_run(who, run)
        self.forget_package(who, package)
        if token is not None:
            auth_service.forget(self.ctx, token)

    async def write(self, who: Auth, entry: GameEntry, credits: int, bet: int, key: str,
                    request_hash: str, seed: Seed, result: RoundResult,
                    package: FreeRoundPackage | None, run: autoplay_runs.RunUse | None,
                    seen: bool, ids: dict[str, int]) -> tuple[RoundWrite, Outcome]:
        """A played round start's rows, written: the one write of a round start on the internal
        wallet, this path's and the general path's (``rounds.start_round``). The jackpots it
        won paid from its game's pools (``ids``, by tier) as locked (:meth:`write_won`), a demo
        player's at their reset values; a tier the game has no pool for is logged and paid
        nothing (:func:`jackpots.payable_tiers`)."""
        tiers = jackpots.payable_tiers(who.demo, entry, result.jackpots, ids)
        make = functools.partial(build, self.ctx, who, entry, credits, bet, key, request_hash,
                                 seed, result, ids, package, run, seen=seen)
        if tiers and not who.demo:
            return await self.write_won(who.player_id, ids, tiers, jackpots.round_contributions(
                entry, credits, bet, ids, who.demo, package is not None), make)
        write = make(won=(demo.reset_value_wins(entry, tiers) or []) if tiers else [])
        return write, await self.writer.submit(write)

    async def write_opening(self, who: Auth, entry: GameEntry, credits: int, bet: int,
                            key: str, request_hash: str, seed: Seed,
                            package: FreeRoundPackage | None, run: autoplay_runs.RunUse | None,
                            ids: dict[str, int]) -> tuple[RoundWrite, Outcome]:
        """Split commits: a round start recorded and debited before it is played
        (:func:`opening`); this process's copies of its run and package are dropped (its
        settling changes them again)."""
        self.forget_run(who, run)
        self.forget_package(who, package)
        write = opening(self.ctx, who, entry, credits, bet, key, request_hash, seed, ids,
                        package, run)
        return write, await self.writer.submit(write)

    async def settle_open(self, waiting: fast_choices.Waiting, result: RoundResult,
                          is_demo: bool, ids: dict[str, int], outcome: str = "played",
                          username: str | None = None) -> tuple[RoundWrite, Outcome]:
        """An ``open`` round (``waiting``: its row as recorded) played on its recorded seed to
        ``result`` and settled, written as a choice is, the answer stored with the key its
        opening reserved; ``outcome`` ``recovered``: settled by start-up recovery, the
        player told at their next login. ``username``: operator-wallet mode, as
        :meth:`write_auto` has it."""
        return await self.write_auto(waiting, fast_choices.Steps((), (), outcome), result,
                                     is_demo, ids, username)

    def after_write(self, who: Auth, entry: GameEntry, write: RoundWrite,
                    package: FreeRoundPackage | None, run: autoplay_runs.RunUse | None) -> None:
        """A round start written: what this process keeps of it (the run's and the package's
        figures, the round waiting for a choice) and its settlement's metrics."""
        waits = write.round_values["awaiting"] is not None
        self.remember_run(who, run, write)
        self.remember_package(who, package, write, waits)
        if waits:  # its choice comes next, to this path if here
            self.waiting.remember(fast_choices.after_start(write, entry, package))
        else:  # a round waiting for a choice settles with it
            metrics.round_settled(entry.id, entry.currency, write.round_values["bet"],
                                  write.win, round_id=write.round_id, player_id=who.player_id,
                                  free=package is not None, demo=who.demo)

    async def write_choice(self, who: Auth, waiting: fast_choices.Waiting,
                           req: fast_choices.ChoiceRequest, seed: Seed, result: RoundResult,
                           username: str | None, seen: bool, ids: dict[str, int]
                           ) -> tuple[RoundWrite, Outcome]:
        """A played choice's rows, written: the one write of a choice on a waiting round,
        this path's and the general path's (``rounds.submit_choice``), its jackpots paid as
        :meth:`write` pays a start's (its bet fed the pools at its start). ``username``:
        operator-wallet mode, a choice that completes the round (the operator pays it)."""
        make = functools.partial(fast_choices.build, self.ctx, who, waiting, req, seed, result,
                                 username, seen=seen)
        return await self._write_continued(waiting, result, who.demo, ids, make)

    async def write_auto(self, waiting: fast_choices.Waiting, steps: fast_choices.Steps,
                         result: RoundResult, is_demo: bool, ids: dict[str, int],
                         username: str | None = None) -> tuple[RoundWrite, Outcome]:
        """A round continued with no request of its own, written as a choice is (no key): an
        abandoned round finished by its game's choice policy (``round_recovery.auto_complete``),
        or an open round settled (:meth:`settle_open`);
        ``username``: operator-wallet mode, the player's id at the operator, who pays the win
        (the round left ``crediting`` with its credit's row). This process forgets the round
        as waiting; written, its settlement is counted."""
        self.waiting.take(waiting.values["id"])
        make = functools.partial(fast_choices.continued, self.ctx, waiting, steps, result,
                                 username)
        write, outcome = await self._write_continued(waiting, result, is_demo, ids, make)
        if isinstance(outcome, Written):
            _continued_settled(waiting, write, is_demo)
        return write, outcome

    async def _write_continued(self, waiting: fast_choices.Waiting, result: RoundResult,
                               is_demo: bool, ids: dict[str, int],
                               make: Callable[..., RoundWrite]) -> tuple[RoundWrite, Outcome]:
        """A waiting round's continuation written (``make(won=..., awards=...)``: its rows),
        its jackpots paid as :meth:`write` pays a start's (its bet fed the pools at its
        start); its autoplay run's figures change, so the run is read anew next time."""
        entry = waiting.entry
        tiers = jackpots.payable_tiers(is_demo, entry, result.jackpots, ids)
        run = waiting.values["autoplay_run_id"]
        if run is not None:
            self.runs.pop((waiting.player_id, run), None)
        if tiers and not is_demo:
            return await self.write_won(waiting.player_id, ids, tiers, (), make)
        write = make(won=(demo.reset_value_wins(entry, tiers) or []) if tiers else [])
        return write, await self.writer.submit(write)

    def after_choice(self, who: Auth, waiting: fast_choices.Waiting, write: RoundWrite) -> None:
        """A choice written: the round remembered for its next choice, or its settlement's
        metrics."""
        if write.round_values["awaiting"] is not None:
            self.waiting.remember(fast_choices.after_choice(waiting, write))
        else:
            _continued_settled(waiting, write, who.demo)

    def waiting_of(self, s: Session, r: Round) -> fast_choices.Waiting | None:
        """:func:`fast_choices.waiting_of`, for the general path's thread."""
        return fast_choices.waiting_of(self.ctx, s, r)

    async def serve_handed(self, who: Auth, entry: GameEntry, credits: int, bet: int, key: str,
                           request_hash: str, free_round_id: int | None,
                           autoplay: AutoplayCreate | None
                           ) -> tuple[fast_answers.Collected, bool | None]:
        """Operator-wallet mode: a round start the app answers (this path answers none itself:
        ``SLOTLAB_FAST_ROUNDS=false``, or split commits; or it passed this one on), handed to
        the operator pipeline as the middleware hands one (:meth:`FastRounds._serve_operator`,
        timed by the general path): what it sent, and what it returned (False: answered)."""
        assert self.operator is not None
        sent = fast_answers.Collected()
        # No token: the route authenticated the session and keeps its last-seen time.
        req = _Request(entry.id, "", key, bet, request_hash, free_round_id, autoplay)
        done = await FastRounds._serve_operator(self, self.operator, who, entry, credits, req,
                                                sent, None)
        return sent, done

    @staticmethod
    def opened(write: RoundWrite, entry: GameEntry, package: FreeRoundPackage | None
               ) -> fast_choices.Waiting:
        """The round an opening recorded, for its settling (``package``: as read before)."""
        return fast_choices.after_start(write, entry, package)

    @staticmethod
    def as_stored(s: Session, r: Round, entry: GameEntry) -> fast_choices.Waiting | None:
        """:func:`fast_choices.as_stored`, for the general path's thread."""
        return fast_choices.as_stored(s, r, entry)

    @staticmethod
    def live_of(s: Session, r: Round) -> fast_choices.Live | None:
        """:func:`fast_choices.live_of`, for the general path's thread."""
        return fast_choices.live_of(s, r)

    async def write_ended(self, waiting: fast_choices.Live, refund: bool, outcome: str,
                          note: tuple[str, str] | None, notice: bool, is_demo: bool,
                          username: str | None = None) -> tuple[RoundWrite, Outcome]:
        """A live round ended before its play did (:func:`fast_choices.ended`: an admin's void,
        the better-of rule), written as a choice is; ``username``: operator-wallet mode, the
        player's id at the operator, who is credited (the round left ``crediting`` with its
        credit's row). This process forgets the round as waiting and the copies of its run and
        package; a round completed on its win is counted as settled."""
        self.waiting.take(waiting.values["id"])
        run = waiting.values["autoplay_run_id"]
        if run is not None:
            self.runs.pop((waiting.player_id, run), None)
        if waiting.package is not None:
            self.packages.pop((waiting.player_id, waiting.package.id), None)
        write = fast_choices.ended(self.ctx, waiting, refund, outcome, note, notice, username)
        outcome_ = await self.writer.submit(write)
        if isinstance(outcome_, Written) and not refund:
            _continued_settled(waiting, write, is_demo)
        return write, outcome_

    @staticmethod
    def choice_request(round_id: str, key: str, choice: str, step: int, request_hash: str
                       ) -> fast_choices.ChoiceRequest:
        """A choice the general path takes, as :meth:`write_choice` writes it."""
        return fast_choices.ChoiceRequest(round_id, "", key, choice, step, request_hash)

    async def close(self) -> None:
        if self.operator is not None:
            await self.operator.close()
        await self.writer.drain()
        await self.close_backend()
        w = self.writer
        log.info("fast round path: %d rounds written in %d batches (%d refused whole and "
                 "written one by one); requests: %s", w.rounds, w.batches, w.retried,
                 dict(self.stats))


# Every column but ``seq`` and ``events`` (whose JSON text the write carries).
_ROUND_COLUMNS = dict.fromkeys(c.key for c in Round.__table__.columns
                               if c.key not in ("seq", "events"))


def build(ctx: Services, who: Auth, entry: GameEntry, credits: int, bet: int, key: str,
          request_hash: str, seed: Seed, result: RoundResult, pools: dict[str, int],
          package: FreeRoundPackage | None = None, run: autoplay_runs.RunUse | None = None,
          operator_player: str | None = None, won: Sequence[Mapping[str, Any]] = (),
          awards: tuple[tuple[int, int, int], ...] = (), seen: bool = False) -> RoundWrite:
    """The rows of a round that completes at once, or that waits for the player's choice (its
    bet taken, nothing paid yet), the wallet's balance left to the statement (whether the
    middleware or the app answers the request: tests/server/test_fast_rounds.py holds the
    two ways' rows equal). The round is a plain
    record with the model's attributes, not an ORM object: this path has no session, and
    instrumented attributes cost more than the game.
    ``package``: a free round's package as read (nothing debited, the win its own kind);
    ``run``: the autoplay run the round is played in, as read;
    ``operator_player``: operator-wallet mode (a free round), the player's id at the
    operator: the win and the jackpots are not credited here but sent as the operator's
    credit, whose row the write adds; the round waits in ``crediting`` until it is confirmed,
    or for its choice with no credit yet;
    ``won``, ``awards``: the jackpots the round won, as :func:`jackpots.won` pays them from
    the pools as locked (:meth:`FastRoundPath.write_won`), or a demo player's reset values
    (:func:`demo.reset_value_wins`, no award): on the internal wallet credited after the win,
    each its own ledger entry."""
    now = utcnow()
    events_json = json_text(list(result.events))
    win_credits = int(result.win)
    awaiting = result.awaiting
    waits = awaiting is not None  # paid when the choice completes it, not now
    uncapped = 0 if waits else win_credits * entry.denomination
    cap = entry.cash_cap  # the settings' cap for the entry's currency, kept with the entry
    win = uncapped if cap is None else min(uncapped, cap)
    jackpot_win = sum(int(j["amount"]) for j in won)
    values = _recorded(who, entry, credits, bet, seed, package, run, now)
    rid = values["id"]
    values.update({
        "win_credits": win_credits, "win": win, "uncapped_win": uncapped,
        "jackpot_win": jackpot_win, "jackpots": [dict(j) for j in won],
        "status": AWAITING_CHOICE if waits else COMPLETED if operator_player is None else CREDITING,
        "awaiting": None if awaiting is None else to_jsonable(awaiting.to_json()),
        "step": 1, "outcome": None if waits else "played",
        "completed_at": None if waits or operator_player is not None else now})
    # round_public reads attributes only; the answer's events are added as JSON text below.
    r = cast(Round, SimpleNamespace(**values, events=None))
    credit = None
    if operator_player is not None:  # the operator's money: the internal ledger is not touched
        lines = []
        credit = None if waits else operator_rounds.credit_row(
            rid, operator_player, win + jackpot_win, entry.currency, now)
    else:  # the bet, then the win and each jackpot as services/rounds.py credits them
        lines = ([] if package is not None  # a free round: nothing debited
                 else [LedgerLine(ledger.BET, -bet, win + jackpot_win, f"round:{rid}:bet")])
        lines += paid_lines(rid, win, [(j["tier"], int(j["amount"])) for j in won],
                            None if package is None else package.id)
    contributions = jackpots.round_contributions(entry, credits, bet, pools, who.demo,
                                                 package is not None)
    body = round_view.round_public(ctx, r, None)  # its balance is the statement's to fill in
    del body["balance"], body["events"]
    if package is not None:  # the package as this round leaves it
        body["free_round"] = free_rounds.round_state(
            free_rounds.after(package, 1, win + jackpot_win), now)
    head = json_object_with(json_text(body), events=events_json)
    profile = ctx.profile(who.jurisdiction)
    return RoundWrite(
        player_id=who.player_id, currency=entry.currency, bet=0 if package else bet,
        win=win + jackpot_win,
        round_id=rid,
        owner=general.key_owner(who), key=key, request_hash=request_hash, at=now,
        round_values=values, ledger=tuple(lines), contributions=contributions, response=body,
        response_json=head, events_json=events_json,
        pace_ms=max(ctx.settings.min_round_interval_ms, profile.min_cycle_ms),
        since=who.session_started if profile.session_with_rounds else None,
        play=sum(line.amount for line in lines if line.kind in ledger.PLAY_KINDS),
        free_round=free_rounds.as_read(package),
        autoplay=None if run is None
        else (run.run_id, dataclasses.astuple(run.before), run.after(r)),
        credit=credit, awards=awards, session=(who.session_id, who.jurisdiction, seen))


def _recorded(who: Auth, entry: GameEntry, credits: int, bet: int, seed: Seed,
              package: FreeRoundPackage | None, run: autoplay_runs.RunUse | None,
              now: datetime) -> dict[str, Any]:
    """A new round's row as recorded before it is played: ``open``, its seed drawn, nothing
    won (every column, one added later None, as on a new Round)."""
    return {
        **_ROUND_COLUMNS,
        "id": uuid.uuid4().hex, "player_id": who.player_id, "game_id": entry.id,
        "model_hash": entry.game.model_hash, "variant": entry.variant,
        "code_version": CODE_VERSION, "currency": entry.currency,
        "denomination": entry.denomination, "bet_credits": credits, "bet": bet,
        "win_credits": 0, "win": 0, "uncapped_win": 0, "jackpot_win": 0, "jackpots": [],
        "status": OPEN, "seeds": [seed.hex()], "choices": [], "auto_seeds": [],
        "awaiting": None, "step": 0, "outcome": None, "notice_pending": False,
        "free_round_id": None if package is None else package.id,
        "autoplay_run_id": None if run is None else run.run_id,
        "created_at": now, "updated_at": now, "completed_at": None}


def opening(ctx: Services, who: Auth, entry: GameEntry, credits: int, bet: int, key: str,
            request_hash: str, seed: Seed, pools: dict[str, int],
            package: FreeRoundPackage | None = None, run: autoplay_runs.RunUse | None = None,
            seen: bool = False) -> RoundWrite:
    """Split commits (``SLOTLAB_SPLIT_ROUND_COMMITS``): the rows the general path writes for a
    round start before it plays it (``RoundWrite.opening``): the round ``open`` with its seed,
    the bet debited (a free round: a round of its package used), its pools fed, its autoplay
    run's round counted, its key reserved with no answer; checked as :func:`build`'s round
    is. The round is then played and settled (:meth:`FastRoundPath.settle_open`)."""
    now = utcnow()
    values = _recorded(who, entry, credits, bet, seed, package, run, now)
    rid = values["id"]
    lines = () if package is not None else (LedgerLine(ledger.BET, -bet, 0, f"round:{rid}:bet"),)
    profile = ctx.profile(who.jurisdiction)
    return RoundWrite(
        player_id=who.player_id, currency=entry.currency, bet=0 if package else bet, win=0,
        round_id=rid, owner=general.key_owner(who), key=key, request_hash=request_hash, at=now,
        round_values=values, ledger=lines,
        contributions=jackpots.round_contributions(entry, credits, bet, pools, who.demo,
                                                   package is not None),
        response={}, response_json="{}", events_json="null",
        pace_ms=max(ctx.settings.min_round_interval_ms, profile.min_cycle_ms),
        free_round=free_rounds.as_read(package),
        autoplay=None if run is None
        else (run.run_id, dataclasses.astuple(run.before),
              run.after(cast(Round, SimpleNamespace(**values)))),
        session=(who.session_id, who.jurisdiction, seen), opening=True)


def _continued_settled(waiting: fast_choices.Live, write: RoundWrite, is_demo: bool
                       ) -> None:
    """A round settled by the write that continued it (a choice, an auto-completion, an open
    round's settling, the better-of rule's win), counted in the settlement metrics."""
    values = write.round_values
    metrics.round_settled(values["game_id"], values["currency"], values["bet"], write.win,
                          round_id=write.round_id, player_id=waiting.player_id,
                          free=waiting.package is not None, demo=is_demo)


def answer_text(ctx: Services, who: Auth, write: RoundWrite, written: Written) -> bytes:
    """The 201 body: the stored answer with its balance, and what the player's profile adds
    to each answer (``round_view.with_profile``: the session's figures from the write's net
    position), from the JSON text built once."""
    body = {**write.response, "balance": written.balance}
    full = round_view.with_profile(ctx, who, body, written.net)
    added = {k: json_text(v) for k, v in full.items() if k not in body}
    return json_object_with(write.response_json, balance=str(written.balance),
                            **added).encode()


async def _answer_unwritten(path: FastRoundPath, who: Auth, req: _Request, write: RoundWrite,
                            outcome: Refused | Stored, send: Send) -> bool:
    """A round start the write did not make, answered as the general path answers it
    (:func:`fast_answers.answer_unwritten`). False: nothing sent, the general path answers (a
    key whose round is still in progress, or an operator free round's retry: its credit may
    still be on its way)."""
    _seen(path.ctx, req.token, write)  # the write set the session's last-seen time, where due

    async def profiled(body: dict[str, Any], net: int | None) -> dict[str, Any]:
        return round_view.with_profile(path.ctx, who, body, net)

    answered = None
    if not (isinstance(outcome, Stored) and write.credit is not None
            and outcome.request_hash == req.request_hash):
        answered = await fast_answers.answer_unwritten(outcome, req.request_hash, write.bet,
                                                       write.pace_ms, write.at, profiled, send)
    path.stats[answered or "passed:in_progress"] += 1
    return answered is not None


def _seen(ctx: Services, token: str, write: RoundWrite) -> None:
    """After a write: where it set the session's last-seen time, the process's copy follows."""
    if write.session is not None and write.session[2]:
        auth_service.seen(ctx, token, write.at)


class FastRounds:
    """ASGI middleware: serves the common round start, passes everything else on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        post = scope["type"] == "http" and scope["method"] == "POST"
        game_id = _game_of(scope["path"]) if post else None
        round_id = fast_choices.round_of(scope["path"]) if post and game_id is None else None
        path: FastRoundPath | None = (getattr(scope["app"].state, "fast_rounds", None)
                                      if game_id or round_id else None)
        if path is None or not path.serves:
            await self.app(scope, receive, send)
            return
        try:
            body = await _read_body(receive)
        except HTTPException as e:  # over the body cap, streamed: the app answers 413
            await self.app(scope, _raising(e), send)
            return
        if body is None:  # the client went away
            return
        again = _replay(body, receive)
        played: general.Played | general.PlayedChoice | bool | None
        if game_id is not None:
            played = await self._serve(path, scope, game_id, body, send)
            key = general.PLAYED_SCOPE_KEY
        else:
            assert round_id is not None
            played = await self._serve_choice(path, scope, round_id, body, send)
            key = general.PLAYED_CHOICE_KEY
        if played is False:
            return
        if played is not None and played is not True:
            scope[key] = played
        await self.app(scope, again, send)

    async def _serve(self, path: FastRoundPath, scope: Scope, game_id: str, body: bytes,
                     send: Send) -> general.Played | bool | None:
        """False: answered here; else what to pass on with the request (None: nothing)."""
        ctx = path.ctx
        started = metrics.clock()
        req = _parse(game_id, scope["headers"], body)
        if req is None:
            path.stats["passed:request"] += 1
            return None
        try:
            who = await path.auth(req.token)
        except Exception:  # 401, or the database: the app answers
            path.stats["passed:session"] += 1
            return None
        entry = _entry(ctx, game_id, who)
        credits = entry.credits_of(req.bet) if entry is not None else None
        if entry is None or credits is None or not await _profile_allows(ctx, who, entry):
            path.stats["passed:round"] += 1
            return None
        if path.operator is not None:
            return await self._serve_operator(path, path.operator, who, entry, credits, req,
                                              send, started)
        package = None
        if req.free_round_id is not None:
            try:
                package = await path.package(who, req.free_round_id, entry, req.bet)
            except Exception:  # refused (the general path says why), or the database
                path.stats["passed:free_round"] += 1
                return None
        try:
            run = await path.autoplay_run(who, game_id, req.autoplay)
        except Exception:  # refused, the run stopping or busy: the general path answers
            path.stats["passed:autoplay"] += 1
            return None
        try:
            # the general path's source (503 there if it fails), or the player's seed pair
            seed = await fairness.next_seed(ctx, who, general.fresh_seed)
            result = general.play(entry, credits, [seed], [])
        except Exception:
            path.stats["passed:play"] += 1
            return None
        played = general.Played(game_id, req.bet, seed, result)
        try:
            write, written = await path.write(
                who, entry, credits, req.bet, req.key, req.request_hash, seed, result, package,
                run, auth_service.last_seen_due(ctx, req.token),
                await path.pool_ids(entry) if entry.progressives else {})
        except Exception:
            log.warning("fast round write failed; the general path takes the round",
                        exc_info=True)
            path.passed("passed:failed", who, run, package)
            return played
        if isinstance(written, Refused | Stored):  # nothing moved: run and package as they were
            answered = await _answer_unwritten(path, who, req, write, written, send)
            return False if answered else played
        if written is None:
            path.passed("passed:refused", who, run, package, req.token)
            return played
        path.stats["served"] += 1
        _seen(ctx, req.token, write)
        path.after_write(who, entry, write, package, run)
        await send_json(send, 201, answer_text(ctx, who, write, written))
        metrics.round_latency("fast", started)
        return False

    async def _serve_choice(self, path: FastRoundPath, scope: Scope, round_id: str, body: bytes,
                            send: Send) -> general.PlayedChoice | bool | None:
        """A choice: False answered here; else what to pass on with it (None: nothing)."""
        ctx = path.ctx
        started = metrics.clock()
        req = fast_choices.parse(round_id, scope["headers"], body)
        if req is None:
            path.stats["choice:passed:request"] += 1
            return None
        try:
            who = await path.auth(req.token)
        except Exception:  # 401, or the database: the app answers
            path.stats["choice:passed:session"] += 1
            return None
        waiting = path.waiting.take(round_id)
        if waiting is None:  # written by another process, or before a restart: read it
            path.stats["choice:read"] += 1
            try:
                waiting = await run_in_threadpool(fast_choices.stored, ctx, who.player_id,
                                                  round_id)
            except Exception:  # the database: the general path answers
                log.warning("a waiting round could not be read; the general path takes the "
                            "choice", exc_info=True)
                waiting = None
        if waiting is None or waiting.player_id != who.player_id:
            path.stats["choice:passed:round"] += 1  # not waiting, or another's
            return None
        if (len(waiting.values["choices"]) != req.step  # the step it answers
                or req.choice not in waiting.options()):  # the general path says why
            path.waiting.remember(waiting)  # unchanged: its right choice may still come here
            path.stats["choice:passed:request"] += 1
            return None
        if not ctx.catalog.in_service(waiting.entry.id):
            path.stats["choice:passed:round"] += 1
            return None
        try:
            seed = await fairness.next_seed(ctx, who, general.fresh_seed)  # as the general path's
            result = waiting.play(seed, req.choice)
        except Exception:
            path.stats["choice:passed:play"] += 1
            return None
        played = general.PlayedChoice(round_id, req.step, req.choice, seed)
        op = path.operator
        entry = waiting.entry
        try:
            # Operator-wallet mode: a choice that completes the round is paid by the operator.
            username = (await op.username(who.player_id)
                        if op is not None and result.awaiting is None else None)
            write, written = await path.write_choice(
                who, waiting, req, seed, result, username,
                auth_service.last_seen_due(ctx, req.token),
                await path.pool_ids(entry) if entry.progressives else {})
        except Exception:
            log.warning("fast choice write failed; the general path takes the choice",
                        exc_info=True)
            path.stats["choice:passed:failed"] += 1
            return played
        if not isinstance(written, Written):  # a choice is never Refused: nothing to debit
            path.stats["choice:passed:refused"] += 1
            auth_service.forget(ctx, req.token)  # the session may have ended: read it anew
            return played
        path.stats["choice:served"] += 1
        _seen(ctx, req.token, write)
        path.after_choice(who, waiting, write)
        if op is not None and username is not None and write.credit is not None:
            final = await op.pay_written(who, username, write, written.balance)
            if final is None:  # taken over meanwhile (the sweep): its key answers
                return None
            await send_json(send, 200, json_text(final).encode())
        else:
            await send_json(send, 200, answer_text(ctx, who, write, written))
        metrics.choice_latency("fast", started)
        return False

    @staticmethod
    async def _serve_operator_free(path: FastRoundPath, op: OperatorRounds, who: Auth,
                                   entry: GameEntry, credits: int, req: _Request, send: Send,
                                   started: float | None) -> bool | None:
        """Operator-wallet mode, a free round: nothing to debit, so it is played at once and
        written by the batch writers with its credit's row (the round ``crediting``, the
        package used and its win added); then the credit is sent and the round completed as
        the pipeline completes a paid round (:meth:`OperatorRounds.pay`), an autoplay run's
        round stamped with its run and counted in its figures as the internal wallet's is. One
        that wins jackpots is written alone (:meth:`FastRoundPath.write_won`), its credit
        carrying them; one that waits for a choice is written with no credit and remembered for
        its choice (:mod:`.fast_choices` writes the credit's row with the choice that completes
        it). A tier the game has no pool for pays nothing (logged). A round not written (its
        write refused or failed) goes to the general path, which hands it here once more
        (``rounds._operator_round``) with its package and run read anew."""
        ctx = path.ctx
        if req.free_round_id is None:
            path.stats["passed:free_round"] += 1
            return None
        try:
            run = await path.autoplay_run(who, entry.id, req.autoplay)
        except Exception:  # refused, the run stopping or busy: the general path answers
            path.stats["passed:autoplay"] += 1
            return None
        try:
            package = await path.package(who, req.free_round_id, entry, req.bet)
            seed = await fairness.next_seed(ctx, who, general.fresh_seed)
            result = general.play(entry, credits, [seed], [])
        except Exception:  # refused (the general path says why), or the database
            path.stats["passed:free_round"] += 1
            return None
        try:
            ids = await path.pool_ids(entry) if entry.progressives else {}
            tiers = jackpots.payable_tiers(who.demo, entry, result.jackpots, ids)
            username = await op.username(who.player_id)
            make = functools.partial(build, ctx, who, entry, credits, req.bet, req.key,
                                     req.request_hash, seed, result, ids, package, run,
                                     operator_player=username,
                                     seen=auth_service.last_seen_due(ctx, req.token))
            if tiers:  # a free round feeds no pool: nothing contributed first
                write, written = await path.write_won(who.player_id, ids, tiers, (), make)
            else:
                write = make()
                written = await path.writer.submit(write)
        except Exception:
            log.warning("free round write failed; the general path takes the round",
                        exc_info=True)
            path.passed("passed:failed", who, run, package)
            return None
        if isinstance(written, Refused | Stored):  # too soon for the pace, or a retry
            answered = await _answer_unwritten(path, who, req, write, written, send)
            return False if answered else None
        if written is None:
            path.passed("passed:refused", who, run, package, req.token)
            return None
        path.stats["served"] += 1
        path.remember_run(who, run, write)
        path.remember_package(who, package, write, result.awaiting is not None)
        _seen(ctx, req.token, write)
        if result.awaiting is not None:  # its choice comes next, to this path if here
            path.waiting.remember(fast_choices.after_start(write, entry, package))
            await send_json(send, 201, answer_text(ctx, who, write, written))
            metrics.round_latency("fast", started)
            return False
        metrics.round_settled(entry.id, entry.currency, req.bet, write.win,
                              round_id=write.round_id, player_id=who.player_id, free=True,
                              demo=who.demo)
        final = await op.pay_written(who, username, write, written.balance)
        if final is None:  # taken over meanwhile (the sweep): its key answers
            return None
        await send_json(send, 201, json_text(final).encode())
        metrics.round_latency("fast", started)
        return False

    @staticmethod
    async def _serve_operator(path: FastRoundPath, op: OperatorRounds, who: Auth,
                              entry: GameEntry, credits: int, req: _Request, send: Send,
                              started: float | None) -> bool | None:
        """Operator-wallet mode: the round on the operator pipeline (server/operator_rounds.py);
        a free round here (:meth:`_serve_operator_free`); one the pipeline leaves, to the
        general path."""
        ctx = path.ctx
        if req.free_round_id is not None:
            return await FastRounds._serve_operator_free(path, op, who, entry, credits, req,
                                                         send, started)
        try:
            run = await path.autoplay_run(who, entry.id, req.autoplay)
        except Exception:  # refused, the run stopping or busy: the general path answers
            path.stats["passed:autoplay"] += 1
            return None
        try:
            ids = await path.pool_ids(entry) if entry.progressives else {}
            contributions = jackpots.round_contributions(entry, credits, req.bet, ids, who.demo,
                                                         free=False)
            seen = auth_service.last_seen_due(ctx, req.token)
            served = await op.serve(
                who, entry, credits, req.bet, req.key, req.request_hash, send, started, run,
                contributions, ids, lambda values, events: path.waiting.remember(
                    fast_choices.Waiting(who.player_id, values, events, None, entry)), seen)
        except Exception:  # the round's key (if written) tells the general path the answer
            log.warning("operator round failed; the general path answers", exc_info=True)
            path.stats["passed:failed"] += 1
            return None
        if served is None:
            path.stats["passed:refused"] += 1
            auth_service.forget(ctx, req.token)  # the session may have ended: read it anew
            return None
        path.stats[served] += 1
        if seen:  # the opening set it (or, for a round it refused, its statement)
            auth_service.seen(ctx, req.token, utcnow())
        return False


async def _read_body(receive: Receive) -> bytes | None:
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The request's body once more, for the app; then whatever the connection says."""
    given = False

    async def again() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def _raising(error: Exception) -> Receive:
    async def receive() -> Message:
        raise error

    return receive


async def start(ctx: Services) -> FastRoundPath:
    """The path for this server: the writer of every round's money. Raises where it cannot
    start (a database it has no writer for, a connection refused, in operator-wallet mode a
    pipeline that cannot start): the server then does not start either, rather than run every
    round on a second, slower money path. In operator-wallet mode its round starts go to the
    operator pipeline (:mod:`.operator_rounds`). With the path off
    (``SLOTLAB_FAST_ROUNDS=false``) or split commits (``SLOTLAB_SPLIT_ROUND_COMMITS``: a
    round's debit committed before it is played, two writes where this path answers with
    one) it answers no request but still writes the general path's round starts and choices
    (in operator-wallet mode: hands them to the operator pipeline)."""
    st = ctx.settings
    serves = st.fast_rounds and not st.split_round_commits
    backend: PostgresRoundWriter | SqliteRoundWriter
    try:
        if ctx.db.is_sqlite:
            depth = 1  # SQLite has one writer at a time
            backend = SqliteRoundWriter(ctx.db.url, busy_timeout_ms=st.sqlite_busy_timeout_ms,
                                        synchronous=st.sqlite_synchronous)
        elif ctx.db.dialect == "postgresql":
            # Behind PgBouncer in transaction mode no statement may stay prepared.
            prepared = getattr(st, "db_pooler", "none") != "pgbouncer"
            depth = st.fast_rounds_connections
            backend = await PostgresRoundWriter.connect(ctx.db.url, depth, prepared)
        else:
            raise RuntimeError(f"no round writer for a {ctx.db.dialect} database: slotlab "
                               "writes rounds on SQLite or PostgreSQL")
    except Exception as e:
        raise RuntimeError("the round writer cannot start, so the server does not: every "
                           "round's money goes through it") from e
    operator = None
    runs: dict[tuple[int, int], autoplay_runs.RunUse] = {}
    read_row = backend.fetchrow if isinstance(backend, PostgresRoundWriter) else None
    if ctx.operator is not None:  # operator-wallet mode: its own pipeline
        try:
            operator = await OperatorRounds.start(ctx, read_row)
            if operator is None:
                raise RuntimeError("the operator wallet keeps no operations log")
        except Exception as e:
            await backend.close()
            raise RuntimeError("the operator round pipeline cannot start, so the server does "
                               "not: every operator-wallet round goes through it") from e
        runs = operator.runs  # one memory of autoplay runs for both
    log.info("fast round path %s (%s, %d batch%s in flight%s)",
             "on" if serves else "off, its writer the general path's", ctx.db.dialect,
             depth, "" if depth == 1 else "es", ", operator wallet" if operator else "")
    return FastRoundPath(ctx, GroupWriter(metrics.timed_batches(backend.write), depth,
                                          st.fast_rounds_max_batch),
                         backend.close, read_row, backend.write_won, runs=runs, operator=operator,
                         serves=serves, loop=asyncio.get_running_loop())
