"""Autoplay runs: the server's record of each autoplay run, and its stop conditions enforced
across the run's rounds.

The player starts a run (``POST /api/autoplay``: the game and the stop conditions), checked
against the jurisdiction profile as every autoplay round is (services/autoplay.py); a player has
one active run at a time (starting another stops the older one, ``replaced``). Every round the
run starts names it (``autoplay.run_id`` in the round-start body), and is stamped with it
(``rounds.autoplay_run_id``), so the run's figures are always its rounds' figures: rounds
played, bets charged, everything paid. The run's row keeps them, each round's write adding its
share (:func:`take_round`, and the batched writers), so that no round counts the run's rounds
before it; a change to a round already written (its choice, a refund, a void, the operator's
confirmation) counts them again from the rounds (:func:`recount`).

The server stops the run itself when one of its conditions is met (``rounds``: its number of
rounds played; ``loss_limit``: bets minus wins reached ``balance_down_by``; ``balance_up``:
wins minus bets reached ``balance_up_by``; ``single_win``: one round paid ``single_win_above``
or more; ``any_win``), at the round that meets it, and refuses every later round of the run with
409 ``autoplay_stopped``, whatever the client asks. The client stops a run for its own reasons
(``POST /api/autoplay/{id}/stop``: the player pressed STOP, a feature was won, ...); the
maintenance sweep stops the runs whose session has ended (``session_ended``). The run's
check and its round are one transaction with the run's row locked, so two rounds sent at once
cannot both take the last round of a run. An auditor reads the runs in
``GET /api/admin/autoplay-runs``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

from sqlalchemy import func, select, text, update
from sqlalchemy.orm import Session

from slotlab.ledger.batch import EVERY_RUN_FIGURES, RUN_ACTIVE, RUN_FIGURES, RUN_STOPPED
from slotlab.server.errors import ApiError, conflict, not_found
from slotlab.server.schemas import AutoplayCreate, AutoplayRunCreate
from slotlab.server.services import autoplay as autoplay_rules
from slotlab.server.services import idempotency as idem
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.server.services.profiles import PROFILES
from slotlab.store.models import (
    CANCELLED,
    COMPLETED,
    CREDITING,
    LIVE_STATUSES,
    REFUND_OUTCOMES,
    AutoplayRun,
    Player,
    Round,
    utcnow,
)
from slotlab.store.models import Session as LoginSession

ACTIVE, STOPPED = RUN_ACTIVE, RUN_STOPPED
_RUN_FIGURES = text(RUN_FIGURES.format(run=":run"))  # the writers count them the same way
REASON_TEXT = {
    "rounds": "its number of rounds was played",
    "loss_limit": "the balance decreased by its loss limit",
    "balance_up": "the balance increased by its limit",
    "single_win": "a single win reached its limit",
    "any_win": "a round won",
    "replaced": "another autoplay run was started",
    "player": "the player stopped it",
    "feature": "a feature was won",
    "choice": "a round waited for the player's choice",
    "balance_low": "the balance was too low for the bet",
    "error": "a round failed",
    "left": "the player left the game",
    "session_ended": "its session ended",
}

_FIGURE_REASONS = frozenset({"rounds", "loss_limit", "balance_up", "single_win", "any_win"})


@dataclass(frozen=True)
class Figures:
    rounds: int
    bet: int  # charged: free rounds and refunded rounds (``charged``) cost nothing
    win: int  # paid: wins and jackpots
    best: int  # the most one round paid

    def plus(self, r: Round) -> Figures:
        paid = r.win + r.jackpot_win if r.status == COMPLETED else 0
        return Figures(self.rounds + 1, self.bet + charged(r), self.win + paid,
                       max(self.best, paid))


def charged(r: Round) -> int:
    """What ``r`` costs its run (as ``ledger.batch.RUN_FIGURES`` counts it): its bet, unless
    it is a free round or refunded (``cancelled``, or in operator-wallet mode ``crediting``
    the bet back)."""
    refunded = r.status == CANCELLED or (r.status == CREDITING and r.outcome in REFUND_OUTCOMES)
    return 0 if r.free_round_id is not None or refunded else r.bet


def _figures(run: AutoplayRun) -> Figures:
    return Figures(run.rounds_played, run.total_bet, run.total_win, run.best_win)


def counted(s: Session, run_id: int) -> Figures:
    """The run's figures counted from its rounds (what its row must hold)."""
    row = s.execute(_RUN_FIGURES, {"run": run_id}).one()
    return Figures(int(row[0]), int(row[1]), int(row[2]), int(row[3]))


def recount(s: Session, r: Round) -> None:
    """After a change to a round already written (flushed first): its run's figures counted
    again from its rounds. Rare (a choice, a refund, a void, a confirmed credit), so the count
    over the run's rounds is affordable here."""
    if r.autoplay_run_id is None:
        return
    s.flush()
    f = counted(s, r.autoplay_run_id)
    s.execute(update(AutoplayRun).where(AutoplayRun.id == r.autoplay_run_id)
              .values(rounds_played=f.rounds, total_bet=f.bet, total_win=f.win,
                      best_win=f.best).execution_options(synchronize_session=False))


def resumes_without(run: AutoplayRun | None, r: Round) -> bool:
    """Whether the run of the ``open`` round ``r`` goes on once ``r`` is withdrawn (it never
    took place: its operator debit not confirmed): the run stopped at ``r``'s start, for a
    condition its figures without ``r`` do not meet."""
    if (run is None or run.status != STOPPED or run.stopped_at != r.created_at
            or run.stop_reason not in _FIGURE_REASONS):
        return False
    without = Figures(run.rounds_played - 1, run.total_bet - charged(r), run.total_win,
                      run.best_win)
    return stop_reason(run, without) is None


def audit(s: Session) -> list[dict[str, Any]]:
    """Every run whose row's figures are not its rounds' (the admin audit lists them)."""
    counted_by_run = {int(row[0]): Figures(*(int(v) for v in row[1:]))
                      for row in s.execute(text(EVERY_RUN_FIGURES))}
    bad = []
    for run in s.scalars(select(AutoplayRun)):
        stored, count = _figures(run), counted_by_run.get(run.id, Figures(0, 0, 0, 0))
        if stored != count:
            bad.append({"run_id": run.id, "stored": dataclasses.asdict(stored),
                        "counted": dataclasses.asdict(count)})
    return bad


def stop_reason(run: AutoplayRun, f: Figures) -> str | None:
    """The first of the run's stop conditions its figures meet (None: the run goes on)."""
    if run.rounds is not None and f.rounds >= run.rounds:
        return "rounds"
    if run.balance_down_by is not None and f.bet - f.win >= run.balance_down_by:
        return "loss_limit"
    if run.balance_up_by is not None and f.win - f.bet >= run.balance_up_by:
        return "balance_up"
    if run.single_win_above is not None and f.best >= run.single_win_above:
        return "single_win"
    if run.any_win and f.best > 0:
        return "any_win"
    return None


def _view(run: AutoplayRun, f: Figures) -> dict[str, Any]:
    return {"run_id": run.id, "game": run.game_id, "jurisdiction": run.jurisdiction,
            "rounds": run.rounds, "any_win": run.any_win,
            "single_win_above": run.single_win_above, "balance_up_by": run.balance_up_by,
            "balance_down_by": run.balance_down_by, "status": run.status,
            "stop_reason": run.stop_reason, "started_at": run.started_at.isoformat(),
            "stopped_at": None if run.stopped_at is None else run.stopped_at.isoformat(),
            "rounds_played": f.rounds, "total_bet": f.bet, "total_win": f.win,
            "net_loss": f.bet - f.win}


def _stop(run: AutoplayRun, reason: str, now: datetime) -> None:
    run.status, run.stop_reason, run.stopped_at = STOPPED, reason, now


def _stopped(run: AutoplayRun) -> ApiError:
    why = REASON_TEXT.get(run.stop_reason or "", run.stop_reason or "")
    return conflict("autoplay_stopped", f"autoplay run {run.id} has stopped: {why}",
                    stop_reason=run.stop_reason)


def start(ctx: Services, auth: Auth, body: AutoplayRunCreate) -> dict[str, Any]:
    """Start a run: refused as an autoplay round with these conditions would be."""
    ctx.catalog.get(body.game)  # 404 for a game not offered
    profile = ctx.profile(auth.jurisdiction)
    autoplay_rules.check_run(profile, AutoplayCreate(
        rounds_left=body.rounds, any_win=body.any_win, single_win_above=body.single_win_above,
        balance_up_by=body.balance_up_by, balance_down_by=body.balance_down_by))
    now = utcnow()
    with ctx.db.write() as s:
        s.execute(update(AutoplayRun)
                  .where(AutoplayRun.player_id == auth.player_id, AutoplayRun.status == ACTIVE)
                  .values(status=STOPPED, stop_reason="replaced", stopped_at=now))
        run = AutoplayRun(player_id=auth.player_id, session_id=auth.session_id,
                          game_id=body.game, jurisdiction=profile.id, rounds=body.rounds,
                          any_win=body.any_win, single_win_above=body.single_win_above,
                          balance_up_by=body.balance_up_by,
                          balance_down_by=body.balance_down_by, status=ACTIVE,
                          stop_reason=None, started_at=now, stopped_at=None)
        s.add(run)
        s.flush()
        return _view(run, Figures(0, 0, 0, 0))


def _own_run(s: Session, player_id: int, run_id: int, lock: bool = False) -> AutoplayRun:
    q = select(AutoplayRun).where(AutoplayRun.id == run_id, AutoplayRun.player_id == player_id)
    run = s.scalar(q.with_for_update() if lock else q)
    if run is None:
        raise not_found("unknown_autoplay_run", f"no autoplay run {run_id} of yours")
    return run


def read(ctx: Services, auth: Auth, run_id: int) -> dict[str, Any]:
    with ctx.db.read() as s:
        run = _own_run(s, auth.player_id, run_id)
        return _view(run, _figures(run))


def stop(ctx: Services, auth: Auth, run_id: int, reason: str) -> dict[str, Any]:
    """The client stops its run; a run already stopped keeps its first reason."""
    with ctx.db.write() as s:
        run = _own_run(s, auth.player_id, run_id, lock=True)
        if run.status == ACTIVE:
            _stop(run, reason, utcnow())
        return _view(run, _figures(run))


def check_round(ctx: Services, auth: Auth, game_id: str, declared: AutoplayCreate | None,
                owner: str, key: str, req_hash: str) -> None:
    """Before a round of a run: 409 ``autoplay_stopped`` once the run has stopped, recording
    the stop when the run's figures meet a condition (a win that came with a later choice, or
    a round settled after its start). A retried request is answered from its key instead."""
    if declared is None or declared.run_id is None:
        return
    with ctx.db.read() as s:
        if idem.lookup(s, owner, key, req_hash) is not None:
            return  # the retry gets the first answer, whatever the run did since
        run = _own_run(s, auth.player_id, declared.run_id)
        if run.game_id != game_id:
            raise conflict("autoplay_run_other_game",
                           f"autoplay run {run.id} plays {run.game_id}, not {game_id}")
        if run.status != ACTIVE:
            raise _stopped(run)
        reason = stop_reason(run, _figures(run))
    if reason is not None:
        with ctx.db.write() as s:  # the stop is recorded (committed), then the round refused
            run = _own_run(s, auth.player_id, declared.run_id, lock=True)
            if run.status == ACTIVE:
                _stop(run, reason, utcnow())
            refusal = _stopped(run)
        raise refusal


@dataclass(frozen=True)
class RunUse:
    """What the fast round path needs of a run for a round it plays: the run's figures as read
    (its write requires them unchanged, with the run still active) and how the round leaves
    the run: stopped for ``stop`` (None: it goes on)."""

    run_id: int
    before: Figures
    run: AutoplayRun

    def after(self, r: Round) -> str | None:
        return stop_reason(self.run, self.before.plus(r))

    def played(self, values: dict[str, Any]) -> RunUse:
        """The run after a round (its row's values) was written in it."""
        r = cast(Round, SimpleNamespace(**values))
        return RunUse(self.run_id, self.before.plus(r), self.run)


def usable(ctx: Services, auth: Auth, game_id: str, declared: AutoplayCreate | None
           ) -> RunUse | None:
    """Outside any write, for the fast round path: the run a round may be played in, or None
    when the round names no run. Raises for a run that is another game's or not the player's;
    returns nothing usable (LookupError) for a run that has stopped or must stop, or that has
    a round still live: the general path records the stop and answers, as it always does."""
    if declared is None or declared.run_id is None:
        return None
    with ctx.db.read() as s:
        run = _own_run(s, auth.player_id, declared.run_id)
        if run.game_id != game_id:
            raise conflict("autoplay_run_other_game",
                           f"autoplay run {run.id} plays {run.game_id}, not {game_id}")
        before = _figures(run)
        live = s.scalar(select(func.count()).where(Round.autoplay_run_id == run.id,
                                                   Round.status.in_(LIVE_STATUSES)))
        s.expunge(run)
    if run.status != ACTIVE or stop_reason(run, before) is not None or live:
        raise LookupError("the general path takes this round")
    return RunUse(run.id, before, run)


def stop_ended(ctx: Services) -> int:
    """Stop (``session_ended``) the active runs whose session has ended: logged out, expired,
    gone, or idle beyond the longest inactivity timeout any profile sets (so a live run is
    never stopped early); the number stopped. For the record: such a run has no client left."""
    now = utcnow()
    idle_s = max([ctx.settings.session_idle_s,
                  *(p.session_idle_s for p in PROFILES.values() if p.session_idle_s)])
    live = (select(LoginSession.id)
            .where(LoginSession.id == AutoplayRun.session_id, LoginSession.revoked.is_(False),
                   LoginSession.expires_at > now,
                   LoginSession.last_seen > now - timedelta(seconds=idle_s)))
    with ctx.db.write() as s:
        res = s.execute(update(AutoplayRun)
                        .where(AutoplayRun.status == ACTIVE, ~live.exists())
                        .values(status=STOPPED, stop_reason="session_ended", stopped_at=now)
                        .execution_options(synchronize_session=False))
        return int(res.rowcount or 0)  # type: ignore[attr-defined]


def list_runs(ctx: Services, username: str | None, limit: int) -> list[dict[str, Any]]:
    """Auditor: the newest runs (of one player, by username), with their figures."""
    with ctx.db.read() as s:
        q = select(AutoplayRun, Player.username).join(Player, Player.id == AutoplayRun.player_id)
        if username is not None:
            q = q.where(Player.username_key == username.lower())
        rows = s.execute(q.order_by(AutoplayRun.id.desc()).limit(limit)).all()
        return [{**_view(run, _figures(run)), "username": name} for run, name in rows]
