"""What one fast round writes, and the group commit that writes many in one transaction.

A :class:`RoundWrite` is a completed round's rows, built by the web layer before the database
is asked anything: the round, its ledger entries, its idempotency key and its jackpot
contributions. Only the wallet's balance is left open: the database fills it in, in the same
statement that checks the funds and takes the money.

:class:`GroupWriter` collects the rounds of concurrent requests and hands them to a backend
(:mod:`.postgres`, :mod:`.sqlite`) in batches, each batch one transaction and so one WAL flush
for all of its rounds. Each caller is answered only after the commit that made its round durable.
A batch never holds two rounds of one player (the second waits for the next batch), so the
rounds of a batch never depend on each other. A batch the database refuses whole (a concurrent
request elsewhere took the same key, a deadlock, a lost connection) is written again round by
round, so that one round's trouble is that round's alone. The operator-wallet path's writes
(:mod:`.operator_rounds`) are grouped by the same writer.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

from slotlab.ledger.kinds import (
    FREE_ROUND_WIN,
    JACKPOT,
    POOL_AWARD,
    POOL_CONTRIBUTION,
    POOL_SEED,
    WIN,
)
from slotlab.store.models import AWAITING_CHOICE, CANCELLED, CREDITING, OPEN, REFUND_OUTCOMES

log = logging.getLogger("slotlab.server")


# An autoplay run's figures from its rounds, the one definition of them: rounds, bets charged (a
# free or cancelled round costs nothing), everything paid, the best payment. The run's row keeps
# them (``autoplay_runs.rounds_played, total_bet, total_win, best_win``): each round's write adds
# its share (every writer), and a change to a round written outside them (an incident void,
# a credit the sweep confirmed) counts them again with this statement
# (services/autoplay_runs.recount). A refund waiting for its operator credit is not charged:
# its write took the bet off already. ``{run}``: the run id's placeholder in the statement.
_REFUNDS = ", ".join(f"'{o}'" for o in REFUND_OUTCOMES)
_RUN_SUMS = f"""count(*),
  coalesce(sum(CASE WHEN o.free_round_id IS NULL AND o.status <> '{CANCELLED}'
                    AND NOT (o.status = '{CREDITING}' AND coalesce(o.outcome, '') IN ({_REFUNDS}))
               THEN o.bet ELSE 0 END), 0),
  coalesce(sum(o.win + o.jackpot_win), 0), coalesce(max(o.win + o.jackpot_win), 0)"""
RUN_FIGURES = f"SELECT {_RUN_SUMS} FROM rounds o WHERE o.autoplay_run_id = {{run}}"
EVERY_RUN_FIGURES = (f"SELECT o.autoplay_run_id, {_RUN_SUMS} FROM rounds o "
                     "WHERE o.autoplay_run_id IS NOT NULL GROUP BY o.autoplay_run_id")
RUN_ACTIVE, RUN_STOPPED = "active", "stopped"  # an autoplay run's states
# What a choice changes in its round's row.
CHOICE_COLUMNS = ("events", "win_credits", "win", "uncapped_win", "jackpot_win", "jackpots",
                  "status", "awaiting", "step", "seeds", "choices", "auto_seeds", "outcome",
                  "notice_pending", "completed_at", "updated_at")


@dataclass(slots=True, frozen=True)
class Continues:
    """The round a choice continues, as the process that wrote it remembers it. The write
    requires the row still in ``status`` with this step and update time, and with this record
    (the seeds, choices and events it was played on, as JSON text): a record changed since is
    the general path's to judge, which re-plays the stored record before any choice.

    ``status`` ``open``: a round recorded and debited by its opening (``RoundWrite.opening``),
    now played and settled; its key, reserved by the opening with no answer, gets this
    write's answer (found by the round's id: recovery knows no key)."""

    step: int
    updated_at: datetime
    seeds: str
    choices: str
    events: str
    status: str = AWAITING_CHOICE

    @property
    def settles_open(self) -> bool:
        return self.status == OPEN


@dataclass(slots=True)  # made per round: no frozen-init cost
class LedgerLine:
    """One ledger entry of the round; its ``balance_after`` is the wallet's balance after the
    whole round less ``back`` (the bet's entry: the win that follows it)."""

    kind: str
    amount: int
    back: int
    ref: str


def paid_lines(round_id: str, win: int, won: Sequence[tuple[str, int]],
               free_round_id: int | None) -> list[LedgerLine]:
    """A completed round's credits to the wallet, as the general path posts them
    (services/rounds.py): its win (a free round's its own kind, the ref naming the package),
    then each jackpot won, (tier, minor units), in the order won; each line's ``back`` is what
    the lines after it credit."""
    jackpot = sum(amount for _, amount in won)
    lines = []
    if win and free_round_id is None:
        lines.append(LedgerLine(WIN, win, jackpot, f"round:{round_id}:win"))
    elif win:
        lines.append(LedgerLine(FREE_ROUND_WIN, win, jackpot,
                                f"free_round:{free_round_id}:round:{round_id}:win"))
    later = jackpot
    for i, (tier, amount) in enumerate(won):
        later -= amount
        if amount:
            lines.append(LedgerLine(JACKPOT, amount, later, f"round:{round_id}:jackpot:{i}:{tier}"))
    return lines


# The session a round was played under: (session id, the player's jurisdiction then, whether
# its last-seen time is due). The write requires the session live and the player still there.
RoundSession = tuple[int, str | None, bool]


@dataclass(slots=True)  # made per round: no frozen-init cost
class RoundWrite:
    player_id: int
    currency: str  # the wallet must hold it (the bet was checked on this currency's ladder)
    bet: int  # debited (0: a free round)
    win: int  # credited in the same transaction (0: no win entry)
    round_id: str
    owner: str  # of the idempotency key
    key: str | None  # None: no request to answer (an auto-completion): no key written
    request_hash: str
    at: datetime
    round_values: dict[str, Any]  # every column of ``rounds`` but ``seq`` and ``events``
    ledger: tuple[LedgerLine, ...]
    contributions: tuple[tuple[int, int], ...]  # (pool id, micro-units), in tier order
    # The 201 body but its ``balance`` (known once written) and its ``events``; the same as JSON
    # text with the events; the events as JSON text. Encoded once per round, for the stored
    # answer, the events column and the answer sent.
    response: dict[str, Any]
    response_json: str
    events_json: str
    # The profile's minimum time between a player's rounds (0: none): the round is written only
    # if the player's last round started at least this long before ``at``, which it becomes.
    pace_ms: int = 0
    # The session's start, when the answer shows the session's net position (None: it does not).
    since: datetime | None = None
    play: int = 0  # the round's ledger lines of the play kinds, summed (its net position share)
    # A free round: (package id, its rounds left, its total won) as read before the round. The
    # write requires the package unchanged and (a round's start) no older package of its game
    # still playable (a void can give one a round back), uses one of its rounds and adds the
    # win to it.
    free_round: tuple[int, int, int] | None = None
    # A round of an autoplay run: (run id, the run's figures as read: rounds, bet charged, paid,
    # best single payment; the stop reason this round meets, or None). The write requires the
    # run still active with those figures on its row, adds the round's share (one round, its
    # bet, its win) and stops it for that reason. A choice's: (run id, None, None), its win added.
    autoplay: tuple[int, tuple[int, int, int, int] | None, str | None] | None = None
    # A choice's write (``POST /api/rounds/{id}/choices``, or the choices an auto-completion
    # made, with no key): the round goes on from its row as remembered, which the write
    # requires unchanged. Its row is updated (:data:`CHOICE_COLUMNS`),
    # not inserted; nothing is debited, no pool fed, no pace or loss limit checked; its free
    # round's package gets the win but keeps its rounds, its autoplay run gets the win whatever
    # the run's state (None: the round's start).
    continues: Continues | None = None
    # Operator-wallet mode (a free round, or a choice that completes its round: nothing to debit
    # first): the win is the operator's to pay,
    # not the wallet's to take: the wallet is not credited, and this credit's row (every column
    # of ``operator_wallet_ops`` but ``id``, ``pending``) is written with the round, which
    # waits in ``crediting`` until the operator confirms it (:mod:`.operator_rounds`).
    credit: dict[str, Any] | None = None
    # The jackpots the round won, (pool id, micro-units paid, the pool's reset value), in the
    # order won, from the pools' values as locked by the write that carries them
    # (``write_won``: services/jackpots.won); their amounts are in ``win`` and the rows already.
    awards: tuple[tuple[int, int, int], ...] = ()
    # The session and the player's jurisdiction the round was played under, and whether the
    # session's last-seen time is due: the write requires the session live at ``at`` (not
    # revoked, not past its end) and the player still in that jurisdiction, so a server
    # process's older copy of a session never carries a round, and sets last-seen to ``at`` when
    # due (None: the caller read the session fresh, and wrote last-seen itself).
    session: RoundSession | None = None
    # Split commits (``SLOTLAB_SPLIT_ROUND_COMMITS``): the round recorded ``open``, its seed
    # drawn but not played, the bet taken, a free round's round used, an autoplay run's round
    # counted, the pools fed; its key reserved with no answer (a retry meanwhile is answered
    # with the open round). A write that ``continues`` it (``Continues.status`` ``open``)
    # plays and settles it, or ends it (a void).
    opening: bool = False
    # A round that ``continues`` to its end before its play did (an admin's void, the better-of
    # rule's refund): cancelled, its bet given back (``win`` is the refund entry's amount; a
    # free round gets its round back instead), and its autoplay run's figures lose its bet.
    gives_back: bool = False
    # An entry of the round's notes (``admin_actions``: action, detail) written with it: a
    # void, or why the better-of rule settled the round.
    note: tuple[str, str] | None = None

    @property
    def status_code(self) -> int:
        """The answer's status, stored with the key: 201 a round started, 200 a choice."""
        return 201 if self.continues is None or self.continues.settles_open else 200


def pool_moves(contributions: Sequence[tuple[int, int]],
               awards: Sequence[tuple[int, int, int]] = ()) -> list[tuple[int, str, int]]:
    """A round's jackpot pool entries, (pool id, kind, micro-units) in the order the general
    path makes them (services/jackpots.py): its contributions, then for each tier won the
    award paid out of the pool and the reset value put back in."""
    moves = [(pool, POOL_CONTRIBUTION, micro) for pool, micro in contributions]
    for pool, paid, reset in awards:
        moves += [(pool, POOL_AWARD, -paid), (pool, POOL_SEED, reset)]
    return moves


@dataclass(slots=True, frozen=True)
class Written:
    """A round made durable: the wallet's balance after it and, where the write asked for it
    (``since``), the session's net position after it."""

    balance: int
    net: int | None = None


# Why a round start is not written (Refused.reason; KEY: Stored).
FUNDS, PACE, LOSS_LIMIT, KEY = "funds", "pace", "loss_limit", "key"


@dataclass(slots=True, frozen=True)
class Refused:
    """A round start the database refused for a reason the player is told, decided where the
    general path would decide it (its checks run in this order: the session, the wallet's
    currency, the key, a live round, the pace, the loss limits, the funds): ``PACE``, every check
    before the pace passed and the player's last round started at ``last_round_at``, too
    recently; ``LOSS_LIMIT``, every check before the loss limits passed and the bet would pass
    ``limit``, (period, amount in force, losses so far) of the first one (the shortest period
    first); ``FUNDS``, every other check passed and the wallet's ``balance`` is below the bet.
    Nothing of the round is written; the session's last-seen time is, where due, as for any
    call."""

    reason: str
    balance: int = 0  # the wallet's, where the server holds it
    last_round_at: datetime | None = None
    limit: tuple[str, int, int] | None = None


@dataclass(slots=True, frozen=True)
class Stored:
    """A round start whose Idempotency-Key was used before, found where the general path finds
    it (after the session and the wallet's currency): the first request's hash and, once its
    round was answered, that answer as stored with the key (status, JSON text; None while the
    round is in progress); with, where the write asked for it (``since``), the session's net
    position now. Nothing is written but the session's last-seen time, where due."""

    request_hash: str
    status_code: int | None
    response: str | None
    net: int | None = None


# What a backend says of one round of a batch: written, refused for a reason the player is
# told, its key used before, or None where the database's state calls for the general path (a
# live round, a package or run changed, the session ended, a wallet changed since the
# statement began).
Outcome = Written | Refused | Stored | None
# A backend writes a batch in one transaction.
WriteBatch = Callable[[Sequence[RoundWrite]], Awaitable[list[Outcome]]]
# A backend's read of one row (a statement and its parameters), on a connection of its own.
ReadRow = Callable[..., Awaitable[Mapping[str, Any] | None]]

T = TypeVar("T")  # what one caller asks written (a round, or one step of an operator round)
R = TypeVar("R")  # what the backend says of it once written


def _player_of(w: Any) -> int:
    return int(w.player_id)


class GroupWriter(Generic[T, R]):
    """Batches of at most ``max_batch`` items, ``depth`` of them in flight at once; never two
    items of one player (``player``: an item's player id) in one batch."""

    def __init__(self, write: Callable[[Sequence[T]], Awaitable[Sequence[R]]], depth: int,
                 max_batch: int, player: Callable[[T], int] = _player_of) -> None:
        self._write = write
        self._player = player
        self.depth = depth
        self.max_batch = max_batch
        self._pending: deque[tuple[T, asyncio.Future[R]]] = deque()
        self._busy: set[int] = set()  # players with a round in a batch in flight
        self._running = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.batches = 0  # counters for the benchmark and the tests
        self.rounds = 0
        self.retried = 0

    async def submit(self, w: T) -> R:
        """What the backend says of the item, once its batch is durable (for a round: its
        :data:`Outcome`). Raises when the
        database failed (nothing of the item was kept, or its outcome is unknown: for a round,
        its idempotency key tells)."""
        fut: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._pending.append((w, fut))
        self._kick()
        return await asyncio.shield(fut)

    def _kick(self) -> None:
        while self._running < self.depth and self._pending:
            batch = self._take()
            if not batch:
                return
            self._running += 1
            task = asyncio.get_running_loop().create_task(self._run(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _take(self) -> list[tuple[T, asyncio.Future[R]]]:
        batch: list[tuple[T, asyncio.Future[R]]] = []
        later: list[tuple[T, asyncio.Future[R]]] = []
        while self._pending and len(batch) < self.max_batch:
            item = self._pending.popleft()
            pid = self._player(item[0])
            if pid in self._busy:
                later.append(item)
            else:
                self._busy.add(pid)
                batch.append(item)
        self._pending.extendleft(reversed(later))
        return batch

    async def _run(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        writes = [w for w, _ in batch]
        outcomes: list[R | BaseException]
        try:
            outcomes = await self._outcomes(writes)
        except BaseException as e:  # cancelled (shutdown): nobody is left waiting unanswered
            outcomes = [e] * len(batch)
            raise
        finally:
            for w in writes:
                self._busy.discard(self._player(w))
            self._running -= 1
            for (_, fut), outcome in zip(batch, outcomes, strict=True):
                if fut.done():
                    continue
                if isinstance(outcome, BaseException):
                    fut.set_exception(outcome)
                else:
                    fut.set_result(outcome)
        self.batches += 1
        self.rounds += len(batch)
        self._kick()

    async def _outcomes(self, writes: list[T]) -> list[R | BaseException]:
        try:
            return list(await self._write(writes))
        except Exception as e:
            if len(writes) == 1:
                return [e]
            log.info("a batch of %d rounds was refused (%s); writing them one by one",
                     len(writes), e)
            self.retried += 1
        outcomes: list[R | BaseException] = []
        for w in writes:
            try:
                outcomes.extend(await self._write([w]))
            except Exception as e:
                outcomes.append(e)
        return outcomes

    async def drain(self) -> None:
        """Wait for the batches in flight (shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
