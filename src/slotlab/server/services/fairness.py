"""Provably fair seed pairs on the server (slotlab/fairness.py has the scheme).

With ``SLOTLAB_PROVABLY_FAIR`` on, every round seed of a player whose profile allows it comes
from :func:`round_seed`: the player's active pair's next derived seed, the counter advanced in
the same single UPDATE that reads it (two rounds never share a counter, whatever the processes).
A player gets a pair at the first round or look (``GET /api/fairness``); rotating it
(``PUT /api/fairness``) reveals the server seed and starts a new pair, never while a round waits
for the player's choice (the choice's seed must come from the pair the round began under).

R4 (outcomes drawn only after the player's choice): the seed that decides what follows a choice
is drawn when the choice arrives (the pair's next counter), and the player cannot compute it
without the server seed. But the server seed is fixed in advance by the commitment, so the
outcome after each possible choice is fixed before the choice is made. A profile whose reading
of R4 forbids that (``provably_fair=False``: Ontario, AGCO 4.26) gets fresh OS seeds, and the
fairness API tells the player the scheme is off there.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from slotlab import fairness
from slotlab.rng import Seed
from slotlab.server.errors import ApiError, conflict, forbidden, unprocessable
from slotlab.server.services import live_seeds
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.store.models import AWAITING_CHOICE, FairnessPair, Round


def offered(ctx: Services, jurisdiction: str | None) -> bool:
    return ctx.settings.provably_fair and ctx.profile(jurisdiction).provably_fair


def _new_pair(s: Session, player_id: int, client_seed: str | None) -> FairnessPair:
    server_seed = live_seeds.fresh_seed()
    pair = FairnessPair(player_id=player_id, server_seed=server_seed.hex(),
                        commitment=fairness.commitment(server_seed),
                        client_seed=client_seed or os.urandom(8).hex(), counter=0,
                        created_at=datetime.now(UTC), revealed_at=None)
    s.add(pair)
    s.flush()
    return pair


def _active(s: Session, player_id: int) -> FairnessPair | None:
    return s.scalar(select(FairnessPair).where(FairnessPair.player_id == player_id,
                                               FairnessPair.revealed_at.is_(None)))


def round_seed(ctx: Services, player_id: int, jurisdiction: str | None,
               fresh: Callable[[], Seed] = live_seeds.fresh_seed,
               s: Session | None = None) -> Seed:
    """The next seed of a round of this player: derived from the player's seed pair where the
    scheme is offered, else ``fresh()`` (the OS's seed, :func:`live_seeds.fresh_seed`, fail
    closed). ``s``: the caller's open write transaction (a choice), else one of its own."""
    if not offered(ctx, jurisdiction):
        return fresh()
    if s is not None:
        return _next(s, player_id)
    return _writing(ctx, lambda own: _next(own, player_id))


async def next_seed(ctx: Services, auth: Auth, fresh: Callable[[], Seed]) -> Seed:
    """:func:`round_seed` for the batched path's event loop: ``fresh()`` at once where the
    scheme is off, else the pair's next seed, its counter advanced in a transaction of its own
    in a worker thread (as a round start's always is; a seed a refused write leaves unused is
    a gap in the counters, which ``export_round`` finds past)."""
    if not offered(ctx, auth.jurisdiction):
        return fresh()
    return await run_in_threadpool(round_seed, ctx, auth.player_id, auth.jurisdiction, fresh)


T = TypeVar("T")


def _writing(ctx: Services, work: Callable[[Session], T]) -> T:
    """``work`` in a write transaction, once more if another request made the player's first
    pair at the same time (the unique index refused the second): it then finds that one."""
    try:
        with ctx.db.write() as s:
            return work(s)
    except IntegrityError:
        with ctx.db.write() as s:
            return work(s)


def _next(s: Session, player_id: int) -> Seed:
    P = FairnessPair
    step = (update(P).where(P.player_id == player_id, P.revealed_at.is_(None))
            .values(counter=P.counter + 1)
            .returning(P.server_seed, P.client_seed, P.counter))
    row = s.execute(step).first()
    if row is None:
        _new_pair(s, player_id, None)
        row = s.execute(step).first()
    assert row is not None
    server_seed, client_seed, after = row
    return fairness.derive(bytes.fromhex(server_seed), client_seed, int(after) - 1)


def _pair_json(p: FairnessPair, reveal: bool) -> dict[str, Any]:
    return {"commitment": p.commitment, "client_seed": p.client_seed, "next_counter": p.counter,
            "server_seed": p.server_seed if reveal else None,
            "created_at": p.created_at.isoformat(),
            "revealed_at": p.revealed_at.isoformat() if p.revealed_at else None}


def _refuse_unless_offered(ctx: Services, auth: Auth) -> None:
    if not offered(ctx, auth.jurisdiction):
        why = ("this server does not offer provably fair seeds" if not ctx.settings.provably_fair
               else f"provably fair seeds are off under jurisdiction "
                    f"{ctx.profile(auth.jurisdiction).id}: outcomes there are drawn only when "
                    "each choice is made (R4)")
        raise forbidden("provably_fair_off", why)


def state(ctx: Services, auth: Auth) -> dict[str, Any]:
    """The active pair's commitment (made now if the player has none) and the revealed ones."""
    _refuse_unless_offered(ctx, auth)

    def look(s: Session) -> dict[str, Any]:
        active = _active(s, auth.player_id) or _new_pair(s, auth.player_id, None)
        revealed = s.scalars(select(FairnessPair).where(
            FairnessPair.player_id == auth.player_id, FairnessPair.revealed_at.is_not(None))
            .order_by(FairnessPair.id.desc()).limit(20)).all()
        return {"active": _pair_json(active, False),
                "revealed": [_pair_json(p, True) for p in revealed],
                "scheme": "seed = HMAC-SHA256(server seed, '<client seed>:<counter>'); "
                          "commitment = SHA-256(server seed)"}
    return _writing(ctx, look)


def rotate(ctx: Services, auth: Auth, client_seed: str | None) -> dict[str, Any]:
    """Reveal the active server seed and start a new pair (with the player's client seed)."""
    _refuse_unless_offered(ctx, auth)
    if client_seed is not None:
        try:
            fairness.check_client_seed(client_seed)
        except ValueError as e:
            raise unprocessable("bad_client_seed", str(e)) from None
    with ctx.db.write() as s:
        if s.scalar(select(Round.id).where(Round.player_id == auth.player_id,
                                           Round.status == AWAITING_CHOICE)) is not None:
            raise conflict("round_awaiting_choice", "finish the round waiting for your choice "
                                                    "before changing seeds")
        old = _active(s, auth.player_id)
        if old is not None:
            old.revealed_at = datetime.now(UTC)
            s.flush()  # no longer active before the new pair is
        new = _new_pair(s, auth.player_id, client_seed or (old.client_seed if old else None))
        return {"revealed": _pair_json(old, True) if old else None,
                "active": _pair_json(new, False)}


def export_round(ctx: Services, auth: Auth, rec: dict[str, Any]) -> dict[str, Any]:
    """A finished round's record as ``slotlab verify`` reads it: the round, and for each seed
    the pair and counter it was derived from (the server seed once the pair is revealed)."""
    if rec["seeds"] is None:
        raise conflict("round_not_finished", "a round can be exported once it is over")
    with ctx.db.read() as s:
        pairs = s.scalars(select(FairnessPair).where(
            FairnessPair.player_id == auth.player_id).order_by(FairnessPair.id)).all()
        found: list[tuple[FairnessPair, int]] = []
        for seed_hex in rec["seeds"]:
            seed = bytes.fromhex(seed_hex)
            hit = next(((p, k) for p in pairs if (k := fairness.find_counter(
                bytes.fromhex(p.server_seed), p.client_seed, seed, p.counter)) is not None),
                None)
            if hit is None:
                raise conflict("not_provably_fair", "this round's seeds were not derived from "
                                                    "a seed pair (played with the scheme off)")
            found.append(hit)
    pair = found[0][0]
    if any(p.id != pair.id for p, _ in found):
        raise ApiError(500, "mixed_pairs", "a round's seeds come from one pair")
    return {
        "format": fairness.FORMAT,
        "round": {k: rec[k] for k in ("round_id", "game", "variant", "model_hash", "bet_credits",
                                      "choices", "events", "status", "outcome", "created_at")}
        | {"win_credits": rec["uncapped_win"] // rec["denomination"], "seeds": rec["seeds"]},
        "fairness": {"commitment": pair.commitment, "client_seed": pair.client_seed,
                     "counters": [k for _, k in found],
                     "server_seed": pair.server_seed if pair.revealed_at else None,
                     "revealed": pair.revealed_at is not None},
    }
