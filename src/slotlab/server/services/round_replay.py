"""Replay: a finished round played again from its recorded seeds and choices, compared with
its record."""

from __future__ import annotations

import logging
from typing import Any

from slotlab import CODE_VERSION
from slotlab.rounds import replay
from slotlab.server.errors import conflict, not_found
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services
from slotlab.server.services.round_history import round_record
from slotlab.server.services.round_view import to_jsonable
from slotlab.store.models import CANCELLED

log = logging.getLogger("slotlab.server")


def replay_round(ctx: Services, auth: Auth | None, round_id: str) -> dict[str, Any]:
    rec = round_record(ctx, auth, round_id)
    if rec["seeds"] is None:
        raise conflict("round_not_finished", "a round can be replayed once it is over")
    if rec["events"] == [] and rec["status"] == CANCELLED:
        raise conflict("round_not_played", "this round was cancelled before it was played")
    entry = ctx.catalog.find(rec["game"])
    # The round's own model (found by its variant and hash); else the one offered now, which
    # shows the difference.
    game = ctx.catalog.model(rec["game"], rec["variant"], rec["model_hash"])
    if game is None:
        if entry is None:
            raise not_found("unknown_game", f"game {rec['game']!r} is no longer offered")
        game = entry.game
    current = entry.game.model_hash if entry is not None else game.model_hash
    seeds = [bytes.fromhex(x) for x in rec["seeds"]]
    try:
        _, result = replay(game, rec["bet_credits"], seeds, rec["choices"], rec["events"])
        events = to_jsonable(list(result.events))
        win_credits = int(result.win)
    except (ValueError, LookupError) as e:
        events, win_credits = None, None
        log.warning("replay of %s failed: %s", round_id, e)
    hash_ok = game.model_hash == rec["model_hash"]
    same = events == rec["events"]
    return {
        "round_id": rec["round_id"],
        "identical": same and hash_ok,
        "events_identical": same,
        "model_hash_matches": hash_ok,  # replayed on the model the round was played on
        "recorded_model_hash": rec["model_hash"],
        "replayed_model_hash": game.model_hash,
        "current_model_hash": current,  # the model the game is offered on now
        "variant": rec["variant"],
        "code_version": CODE_VERSION,
        "win_credits": win_credits,
        "events": events,
    }
