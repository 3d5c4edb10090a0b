"""Progressive pools: one set per game, currency and denomination, in integer micro-units of
that currency's minor unit (a COP round never feeds or wins a EUR pool).

A max-bet round contributes ``bet * rate`` (floored to a micro-unit) to every pool of its game,
currency and denomination (its :class:`GameEntry`: ``catalog.get(game_id, currency)``), in the
transaction that debits the bet. A tier won pays the pool's value at
that moment rounded down to minor units; the remainder stays in the pool, which is topped up by
its reset value, atomically with the credit. Every movement is a ``jackpot_entries`` row
(``seed``, ``contribution``, ``award``), so a pool's value always equals the sum of its entries.

Pools are locked in tier order after the player's wallet, the same order everywhere, so two
rounds never wait on each other in a cycle. Two players hitting one pool: the first to lock it
gets its value, the second the reset value (plus what came in since).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from slotlab.ledger.kinds import POOL_SEED
from slotlab.server.services import demo
from slotlab.server.services.catalog import MICRO, Catalog, GameEntry
from slotlab.store import Database
from slotlab.store.models import JackpotEntry, JackpotPool, utcnow

log = logging.getLogger("slotlab.server")


def _reset_micro(entry: GameEntry, reset_credits: int) -> int:
    return reset_credits * entry.denomination * MICRO


def pool_key(entry: GameEntry) -> tuple[str, str, int]:
    """What a game's pools are keyed by besides the tier: (game id, currency, denomination)."""
    return entry.id, entry.currency, entry.denomination


def _of(entry: GameEntry) -> Any:
    return ((JackpotPool.game_id == entry.id) & (JackpotPool.currency == entry.currency)
            & (JackpotPool.denomination == entry.denomination))


def ensure_pools(db: Database, catalog: Catalog, currency: str | None = None) -> None:
    """Create (seeded at the reset value) every pool that does not exist yet, in every offered
    currency (``currency`` is ignored: it named the one currency servers had before)."""
    del currency
    for entry in catalog.every_currency():
        if entry.progressives:
            # Another worker may create them at the same moment.
            with contextlib.suppress(IntegrityError):
                _ensure_game_pools(db, entry)


def _ensure_game_pools(db: Database, entry: GameEntry) -> None:
    with db.write() as s:
        have = set(s.scalars(select(JackpotPool.tier).where(_of(entry))))
        now = utcnow()
        for p in entry.progressives:
            if p.tier in have:
                continue
            reset = _reset_micro(entry, p.reset_credits)
            pool = JackpotPool(
                game_id=entry.id,
                denomination=entry.denomination,
                tier=p.tier,
                currency=entry.currency,
                reset_micro=reset,
                rate=p.rate_text,
                value_micro=reset,
            )
            s.add(pool)
            s.flush()
            s.add(JackpotEntry(pool_id=pool.id, kind=POOL_SEED, amount_micro=reset,
                               value_after_micro=reset, created_at=now))


def pool_ids(db: Database, entry: GameEntry) -> dict[str, int]:
    """The ids of ``entry``'s pools, by tier (the round writers write contributions and awards
    by id, locking the pools in tier order)."""
    with db.read() as s:
        rows = s.execute(select(JackpotPool.id, JackpotPool.tier).where(_of(entry))).all()
    return {tier: pid for pid, tier in rows}


def contributions(entry: GameEntry, bet_minor: int) -> list[tuple[str, int]]:
    """(tier, micro-units) that a max-bet round of ``bet_minor`` adds to each pool, in tier
    order; a share that floors to nothing is left out."""
    out = []
    for p in entry.progressives:
        amount = bet_minor * MICRO * p.rate.numerator // p.rate.denominator
        if amount > 0:
            out.append((p.tier, amount))
    return out


def round_contributions(entry: GameEntry, credits: int, bet_minor: int, pool_ids: dict[str, int],
                        demo: bool, free: bool) -> tuple[tuple[int, int], ...]:
    """(pool id, micro-units) that a round adds to its game's pools, in tier order: a max bet's
    :func:`contributions`; a demo player's play money and a free round feed none (services/
    demo.py, free_rounds)."""
    if not entry.progressives or credits != entry.max_bet_credits or demo or free:
        return ()
    return tuple((pool_ids[tier], micro) for tier, micro in contributions(entry, bet_minor)
                 if tier in pool_ids)


def paid_from(value_micro: int) -> int:
    """What a tier won pays from a pool of ``value_micro``: its value rounded down to minor
    units (the remainder stays in the pool, which its reset value then tops up). The one rule
    of an award, for the round writers' writes (:func:`won`)."""
    return value_micro // MICRO


def won(tiers: Sequence[str], pool_ids: Mapping[str, int],
        pools: Mapping[int, tuple[int, int]], contributions: Sequence[tuple[int, int]]
        ) -> tuple[list[dict[str, Any]], tuple[tuple[int, int, int], ...]]:
    """The tiers a round won, each paid its pool's value (:func:`paid_from`), the pool then
    reset to its reset value, from the pools as locked for
    the round's write (pool id -> (value, reset value), micro-units) after the round's own
    ``contributions``: what the round answers (``[{"tier", "amount"}]``, minor units) and the
    awards its write makes ((pool id, micro-units paid, reset value), in the order won). A tier
    twice pays the pool as the first award left it. Raises KeyError for a tier with no pool
    (the general path logs it and pays nothing)."""
    value = {pid: v for pid, (v, _) in pools.items()}
    for pid, micro in contributions:
        value[pid] += micro
    answer, awards = [], []
    for tier in tiers:
        pid = pool_ids[tier]
        amount = paid_from(value[pid])
        reset = pools[pid][1]
        value[pid] += reset - amount * MICRO
        answer.append({"tier": tier, "amount": amount})
        awards.append((pid, amount * MICRO, reset))
    return answer, tuple(awards)


def payable_tiers(is_demo: bool, entry: GameEntry, tiers: Sequence[str],
                  pools: Mapping[str, int]) -> list[str]:
    """The jackpot tiers a round won that are paid: each one the game has a pool for (a demo
    player's: a reset value for); the others are logged and pay nothing (every writer's
    rule: a start's, a choice's, the operator pipeline's)."""
    def known(tier: str) -> bool:
        return demo.reset_value_wins(entry, [tier]) is not None if is_demo else tier in pools
    paid = [tier for tier in tiers if known(tier)]
    if len(paid) < len(tiers):
        log.error("a round of %s won tiers %s; only %s have a pool", entry.id, tiers, paid)
    return paid


def pool_values(db: Database, catalog: Catalog, currency: str | None = None
                ) -> list[dict[str, Any]]:
    """The pools in play (of an offered game at its denomination in an offered currency), of
    ``currency`` only when given."""
    with db.read() as s:
        q = select(JackpotPool).order_by(JackpotPool.game_id, JackpotPool.currency,
                                         JackpotPool.tier)
        if currency is not None:
            q = q.where(JackpotPool.currency == currency)
        out = []
        for p in s.scalars(q):
            entry = catalog.find(p.game_id, p.currency)
            if entry is None or entry.denomination != p.denomination:
                continue
            out.append({
                "game": p.game_id,
                "denomination": p.denomination,
                "currency": p.currency,
                "decimals": entry.decimals,
                "tier": p.tier,
                "value": p.value_micro // MICRO,
                "value_micro": p.value_micro,
                "reset": p.reset_micro // MICRO,
                "rate": p.rate,
            })
        return out
