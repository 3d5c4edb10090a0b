"""A player's choice on the fast money path: ``POST /api/rounds/{id}/choices`` for a round this
process wrote waiting for that choice (its start, or an earlier choice, on the fast path).

The process remembers such a round as it wrote it (:class:`Waiting`), so a choice costs no read:
the choice is checked as :func:`slotlab.server.services.rounds.submit_choice` checks it (the
player's round, the step it answers, an option offered, the game in service), played on the
stored seeds and choices with one new seed, and written by :mod:`slotlab.ledger`'s batch writers
as a :class:`~slotlab.ledger.batch.RoundWrite` that ``continues`` the round: the write requires
the round still waiting as remembered, its step, update time and record (so anything that
touched it since, a void, a settlement, a choice in another process, a record changed under
it, sends the choice to the general path, which judges it as it always did), credits the win
and stores the answer with the key. A choice whose outcome wins jackpots is written alone, its
game's pools locked and the amounts paid from them in the same transaction
(:meth:`.fast_rounds.FastRoundPath.write_won`). What the general path writes for the same
choice, this writes (tests/server/test_fast_rounds.py holds the rows equal).

A round this process does not remember (another process wrote it, or this one was restarted
since) is read once (:func:`stored`) with the checks the general path makes before it continues
a round: the player's, waiting, on a model still offered, its record re-playing as stored.
In operator-wallet mode a choice that completes the round is written with its credit's row
(the round ``crediting``) and paid by the operator pipeline (server/operator_rounds.py).
The general path takes the choice where that read finds anything else and, with the seed
drawn here (:class:`~slotlab.server.services.rounds.PlayedChoice`), where the write is refused
or the outcome wins a tier the game has no pool for (the general path logs it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any, TypedDict, cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from slotlab import ledger
from slotlab.json_text import json_object_with, json_text, to_jsonable
from slotlab.ledger.batch import Continues, LedgerLine, RoundSession, RoundWrite, paid_lines
from slotlab.rng import Seed
from slotlab.rounds import RoundResult
from slotlab.server import operator_rounds
from slotlab.server.fast_requests import token_and_key
from slotlab.server.schemas import ChoiceCreate
from slotlab.server.services import free_rounds, round_view
from slotlab.server.services import idempotency as idem
from slotlab.server.services import rounds as general
from slotlab.server.services.auth import Auth
from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.server.services.round_view import ROUND_ID
from slotlab.store.models import (
    AWAITING_CHOICE,
    CANCELLED,
    COMPLETED,
    CREDITING,
    FreeRoundPackage,
    Round,
    utcnow,
)

# Every column of ``rounds`` but ``seq`` and ``events``, as a Waiting's values hold them.
_VALUE_COLUMNS = [c.key for c in Round.__table__.columns if c.key not in ("seq", "events")]

_PREFIX, _SUFFIX = "/api/rounds/", "/choices"
_REMEMBERED = 100_000  # rounds waiting for a choice, at most (then forgotten: the general path)


def round_of(path: str) -> str | None:
    """The round id of a choice's path, else None."""
    if path.startswith(_PREFIX) and path.endswith(_SUFFIX):
        rid = path[len(_PREFIX):-len(_SUFFIX)]
        if ROUND_ID.fullmatch(rid):
            return rid
    return None


@dataclass(frozen=True)
class ChoiceRequest:
    round_id: str
    token: str
    key: str
    choice: str
    step: int
    request_hash: str


def parse(round_id: str, headers: list[tuple[bytes, bytes]], body: bytes
          ) -> ChoiceRequest | None:
    """The request, when it is a well-formed choice; else None (the app answers it)."""
    found = token_and_key(headers)
    if found is None:
        return None
    token, key = found
    try:
        req = ChoiceCreate.model_validate_json(body)
    except ValueError:  # pydantic's ValidationError
        return None
    h = idem.request_hash("POST", f"{_PREFIX}{round_id}{_SUFFIX}",
                          req.model_dump(exclude_none=True))
    return ChoiceRequest(round_id, token, key, req.choice, req.step, h)


@dataclass(frozen=True)
class Live:
    """A live round as written: its row's values and events, and its free round's package as
    the write left it (None: not a free round). Enough to end it before its play did
    (:func:`ended`), whether or not its game is still offered."""

    player_id: int
    values: dict[str, Any]  # every column of ``rounds`` but ``seq`` and ``events``
    events_json: str
    package: FreeRoundPackage | None


@dataclass(frozen=True)
class Waiting(Live):
    """A live round that can be played on (waiting for a choice, as this process wrote it, or
    open): :class:`Live`, and the game it is played in."""

    entry: GameEntry

    def options(self) -> list[str]:
        return list((self.values["awaiting"] or {}).get("options", []))

    def seeds(self) -> list[bytes]:
        return [bytes.fromhex(x) for x in self.values["seeds"]]

    def play(self, seed: Seed, choice: str) -> RoundResult:
        """The round played again on its seeds and choices, with the new seed and choice."""
        return general.play(self.entry, self.values["bet_credits"], [*self.seeds(), seed],
                            [*self.values["choices"], choice])


class WaitingRounds:
    """The rounds this process wrote waiting for a choice. A round is taken out when its choice
    arrives, whatever then happens to it: a remembered round is never used twice."""

    def __init__(self) -> None:
        self._rounds: dict[str, Waiting] = {}

    def remember(self, w: Waiting) -> None:
        if len(self._rounds) >= _REMEMBERED:
            self._rounds.clear()
        self._rounds[w.values["id"]] = w

    def take(self, round_id: str) -> Waiting | None:
        return self._rounds.pop(round_id, None)


def stored(ctx: Services, player_id: int, round_id: str) -> Waiting | None:
    """The player's round waiting for a choice, as the database holds it, where the general
    path would continue it (:func:`~slotlab.server.services.rounds.continuable`,
    :func:`~slotlab.server.services.rounds.stored_play_differs`); else None, and the general
    path answers. Read without a lock: the choice's write requires the round unchanged since."""
    with ctx.db.read() as s:
        r = s.scalar(select(Round).where(Round.id == round_id))
        if r is None or r.player_id != player_id or r.status != AWAITING_CHOICE:
            return None
        return waiting_of(ctx, s, r)


def waiting_of(ctx: Services, s: Session, r: Round) -> Waiting | None:
    """:func:`stored` for a waiting round already read, in the session ``s`` it was read in."""
    entry = general.continuable(ctx, r)
    if entry is None or general.stored_play_differs(entry, r) is not None:
        return None
    return as_stored(s, r, entry)


def as_stored(s: Session, r: Round, entry: GameEntry) -> Waiting | None:
    """A live round as the database holds it (its record not re-played), for a write that
    continues it with no choice: an ``open`` round's settling on its recorded seed (start-up
    recovery); None: its free round's package is gone."""
    live = live_of(s, r)
    return None if live is None else Waiting(live.player_id, live.values, live.events_json,
                                             live.package, entry)


def live_of(s: Session, r: Round) -> Live | None:
    """A live round as the database holds it, for its end before its play's (a void, the
    better-of rule: :func:`ended`); None: its free round's package is gone (its player's too:
    a demo player's, deleted with their rounds)."""
    package = None
    if r.free_round_id is not None:
        p = s.get(FreeRoundPackage, r.free_round_id)
        if p is None:
            return None
        package = free_rounds.after(p, 0, 0)
    values = {k: getattr(r, k) for k in _VALUE_COLUMNS}
    return Live(r.player_id, values, json_text(r.events), package)


def after_start(write: RoundWrite, entry: GameEntry, package: FreeRoundPackage | None
                ) -> Waiting:
    """A round the fast path started, waiting for its choice (``package``: as read before)."""
    left = None if package is None else free_rounds.after(package, 1, 0)
    return Waiting(write.player_id, write.round_values, write.events_json, left, entry)


def after_choice(w: Waiting, write: RoundWrite) -> Waiting:
    """The round after a choice that left it waiting for another."""
    return dataclasses.replace(w, values=write.round_values, events_json=write.events_json)


def build(ctx: Services, who: Auth, w: Waiting, req: ChoiceRequest, seed: Seed,
          result: RoundResult, operator_player: str | None = None,
          won: Sequence[Mapping[str, Any]] = (),
          awards: tuple[tuple[int, int, int], ...] = (), seen: bool = False) -> RoundWrite:
    """The rows of this choice: the round's row updated, the win credited, the key with its
    answer; the wallet's balance left to the
    statement. ``operator_player``: operator-wallet mode, a choice that completes the round,
    the player's id at the operator: the win is the operator's credit (its row written with
    the round, which waits in ``crediting``), not the wallet's. ``won``, ``awards``: the
    jackpots the choice's outcome won, as the start's (:func:`.fast_rounds.build`); in
    operator-wallet mode the credit carries them with the win."""
    profile = ctx.profile(who.jurisdiction)
    return continued(ctx, w, Steps((seed,), (req.choice,)), result, operator_player, won,
                     awards, key=(general.key_owner(who), req.key, req.request_hash),
                     since=who.session_started if profile.session_with_rounds else None,
                     session=(who.session_id, who.jurisdiction, seen))


def ended(ctx: Services, w: Live, refund: bool, outcome: str,
          note: tuple[str, str] | None, notice: bool, operator_player: str | None = None
          ) -> RoundWrite:
    """The rows that end the live round ``w`` before its play did, for an admin's void or the
    better-of rule (:func:`~slotlab.server.services.rounds.end_by_writer`): ``refund``,
    cancelled and its bet refunded (a free round: its round back to its package, nothing
    refunded); else completed on its win so far (capped), credited as its win, no jackpot.
    ``note``: its notes' entry (action, detail); ``notice``: the player told at their next
    login. No request asked for it: no key. ``operator_player``: operator-wallet mode, the
    player's id at the operator, who is paid the bet back or the win as a credit (its row
    written, the round ``crediting`` until the operator confirms it; a free round refunded:
    a credit of 0, which closes the round there as its win's would)."""
    before = w.values
    now = utcnow()
    rid = before["id"]
    package = w.package
    values = {**before, "awaiting": None, "outcome": outcome, "notice_pending": notice,
              "updated_at": now, "completed_at": now}
    if refund:
        values.update(status=CANCELLED, win=0)
        credit = 0 if package is not None else int(before["bet"])
    else:
        uncapped = int(before["win_credits"]) * int(before["denomination"])
        cap = round_view.cash_cap_of(ctx, before["game_id"], before["currency"])
        credit = uncapped if cap is None else min(uncapped, cap)
        values.update(status=COMPLETED, win=credit, uncapped_win=uncapped, jackpots=[],
                      jackpot_win=0)
    lines: list[LedgerLine] = []
    paid = None
    if operator_player is not None:  # the operator pays: no ledger line
        values.update(status=CREDITING, completed_at=None)
        paid = operator_rounds.credit_row(rid, operator_player, credit, before["currency"], now)
    elif not refund:
        lines = paid_lines(rid, credit, [], None if package is None else package.id)
    elif credit:
        lines.append(LedgerLine(ledger.REFUND, credit, 0, f"round:{rid}:refund"))
    r = cast(Round, SimpleNamespace(**values, events=None))
    body = round_view.round_public(ctx, r, None)  # its balance is the statement's to fill in
    del body["balance"], body["events"]
    return RoundWrite(
        player_id=w.player_id, currency=before["currency"], bet=0, win=credit, round_id=rid,
        owner="", key=None, request_hash="", at=now, round_values=values, ledger=tuple(lines),
        contributions=(), response=body,
        response_json=json_object_with(json_text(body), events=w.events_json),
        events_json=w.events_json, **_continuing(w), gives_back=refund, note=note, credit=paid)


class _Continuing(TypedDict):
    free_round: tuple[int, int, int] | None
    autoplay: tuple[int, None, None] | None
    continues: Continues


def _continuing(w: Live) -> _Continuing:
    """What every write that continues ``w`` carries for its checks: its package and its
    autoplay run as read, and the round as remembered (:class:`Continues`)."""
    before = w.values
    run = before["autoplay_run_id"]
    return {"free_round": free_rounds.as_read(w.package),
            "autoplay": None if run is None else (run, None, None),
            "continues": Continues(before["step"], before["updated_at"],
                                   json_text(before["seeds"]), json_text(before["choices"]),
                                   w.events_json, before["status"])}


@dataclass(frozen=True)
class Steps:
    """What continues a waiting round: a seed and a choice per step, and how the round then
    ends (``outcome``: ``played``; ``auto_completed`` by the game's choice policy, each policy
    choice drawn on one of ``auto_seeds``, the player told at their next login)."""

    seeds: tuple[Seed, ...]
    choices: tuple[str, ...]
    outcome: str = "played"
    auto_seeds: tuple[Seed, ...] = ()

    @property
    def notice(self) -> bool:
        return self.outcome != "played"


def continued(ctx: Services, w: Waiting, steps: Steps, result: RoundResult,
              operator_player: str | None = None, won: Sequence[Mapping[str, Any]] = (),
              awards: tuple[tuple[int, int, int], ...] = (),
              key: tuple[str, str, str] | None = None, since: datetime | None = None,
              session: RoundSession | None = None) -> RoundWrite:
    """The rows that continue the waiting round ``w`` by ``steps`` to ``result``: its row
    updated, its win credited. ``key``: (owner, key,
    request hash) of the request it answers, stored with the answer (None: no request, as
    an auto-completion's); ``since``, ``session``: as :class:`~slotlab.ledger.batch.RoundWrite`
    holds them (None: not shown, not checked)."""
    before = w.values
    now = utcnow()
    rid = before["id"]
    entry = w.entry
    events_json = json_text(list(result.events))
    awaiting = result.awaiting
    values = {**before, "events": None, "win_credits": int(result.win), "updated_at": now,
              "step": before["step"] + 1,
              "seeds": [*before["seeds"], *(seed.hex() for seed in steps.seeds)],
              "choices": [*before["choices"], *steps.choices]}
    if steps.auto_seeds:
        values["auto_seeds"] = [*before["auto_seeds"], *(s.hex() for s in steps.auto_seeds)]
    if steps.notice:
        values["notice_pending"] = True
    if awaiting is not None:
        values.update(status=AWAITING_CHOICE,
                      awaiting=to_jsonable(awaiting.to_json()))
    else:
        uncapped = int(result.win) * entry.denomination
        cap = entry.cash_cap
        values.update(status=COMPLETED if operator_player is None else CREDITING,
                      awaiting=None, uncapped_win=uncapped,
                      win=uncapped if cap is None else min(uncapped, cap),
                      outcome=steps.outcome,
                      completed_at=now if operator_player is None else None)
    del values["events"]
    jackpot_win = sum(int(j["amount"]) for j in won)
    values.update(jackpot_win=jackpot_win, jackpots=[dict(j) for j in won])
    win = values["win"] if awaiting is None else 0
    package = w.package
    lines: list[LedgerLine] = []
    credit = None
    if operator_player is not None and awaiting is None:  # the operator pays: no ledger line
        credit = operator_rounds.credit_row(rid, operator_player, win + jackpot_win,
                                            entry.currency, now)
    else:  # as services/rounds.py credits them
        lines = paid_lines(rid, win, [(j["tier"], int(j["amount"])) for j in won],
                           None if package is None else package.id)
    r = cast(Round, SimpleNamespace(**values, events=None))
    body = round_view.round_public(ctx, r, None)  # its balance is the statement's to fill in
    del body["balance"], body["events"]
    if package is not None:  # the package as this choice leaves it
        body["free_round"] = free_rounds.round_state(
            free_rounds.after(package, 0, win + jackpot_win), now)
    owner, request_key, request_hash = key or ("", None, "")
    return RoundWrite(
        player_id=w.player_id, currency=entry.currency, bet=0, win=win + jackpot_win,
        round_id=rid, owner=owner, key=request_key, request_hash=request_hash, at=now,
        round_values=values, ledger=tuple(lines), contributions=(), response=body,
        response_json=json_object_with(json_text(body), events=events_json),
        events_json=events_json, since=since,
        play=sum(line.amount for line in lines if line.kind in ledger.PLAY_KINDS),
        **_continuing(w), credit=credit, awards=awards, session=session)

