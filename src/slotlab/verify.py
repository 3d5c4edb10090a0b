"""Verify a provably fair round alone (``slotlab verify ROUND.json``): no server, only the
round's export, the public model its hash names, and the game's code.

The checks, in order, stopping at the first that fails: the revealed server seed hashes to the
commitment shown before play; every seed of the round is the pair's derived seed at its
counter; the model with the round's hash is one this install has; replaying the round gives
each recorded event, one by one, and the recorded win.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from slotlab import fairness
from slotlab.games import UnknownGameError, find_game, game_ids
from slotlab.model_archive import archived
from slotlab.rounds import Game


class VerifyError(ValueError):
    """The round does not verify: the message says at which check."""


def load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise VerifyError(f"{path}: unreadable ({e})") from e
    if not isinstance(data, dict) or data.get("format") != fairness.FORMAT:
        raise VerifyError(f"{path}: not a round export (format {fairness.FORMAT!r}); export it "
                          "from RECALL or GET /api/fairness/rounds/ROUND_ID")
    return data


def model_game(model_hash: str, variant: str | None) -> Game:
    """The game on the public model with this hash: a shipped game or an archived version."""
    candidates = [variant] if variant else []
    for ref in [*candidates, *game_ids()]:
        try:
            game = find_game(ref)
        except (UnknownGameError, ValueError):
            continue
        if game.model_hash == model_hash:
            return game
    old = archived(model_hash)
    if old is None:
        raise VerifyError(f"no public model has the hash {model_hash}: this install cannot "
                          "replay the round")
    return old


def _canon(x: Any) -> str:
    return json.dumps(x, sort_keys=True)


def verify(data: dict[str, Any]) -> list[str]:
    """Every check passed, in order; raises :class:`VerifyError` at the first that fails."""
    try:
        rnd, fair = data["round"], data["fairness"]
        seeds = [bytes.fromhex(s) for s in rnd["seeds"]]
        counters = [int(c) for c in fair["counters"]]
    except (KeyError, TypeError, ValueError) as e:
        raise VerifyError(f"the export is incomplete or malformed ({e})") from e
    done: list[str] = []
    if not fair.get("server_seed"):
        raise VerifyError("the server seed is not revealed yet: rotate your seed pair (PUT "
                          "/api/fairness, or New seeds in RECALL), then export the round again")
    server_seed = bytes.fromhex(fair["server_seed"])
    if hashlib.sha256(server_seed).hexdigest() != fair["commitment"]:
        raise VerifyError(f"the revealed server seed does not match its commitment: SHA-256 of "
                          f"it is {hashlib.sha256(server_seed).hexdigest()}, the commitment "
                          f"shown before play was {fair['commitment']}")
    done.append(f"server seed matches the commitment {fair['commitment']}")
    if len(counters) != len(seeds):
        raise VerifyError(f"{len(seeds)} seeds but {len(counters)} counters")
    for k, (seed, n) in enumerate(zip(seeds, counters, strict=True)):
        if fairness.derive(server_seed, fair["client_seed"], n) != seed:
            raise VerifyError(f"seed {k} is not HMAC-SHA256(server seed, "
                              f"'{fair['client_seed']}:{n}')")
    done.append(f"{len(seeds)} seed(s) derived from client seed {fair['client_seed']!r} at "
                f"counter(s) {counters}")
    game = model_game(rnd["model_hash"], rnd.get("variant"))
    done.append(f"model {rnd['model_hash']} is {game.id}'s")
    result = game.play(int(rnd["bet_credits"]), seeds, list(rnd["choices"]))
    replayed = json.loads(json.dumps(list(result.events)))
    recorded = list(rnd["events"])
    for k in range(max(len(recorded), len(replayed))):
        want = recorded[k] if k < len(recorded) else None
        got = replayed[k] if k < len(replayed) else None
        if _canon(want) != _canon(got):
            raise VerifyError(f"event {k + 1} of {len(recorded)} differs: recorded {_canon(want)}, "
                              f"replayed {_canon(got)}")
    done.append(f"all {len(recorded)} events replay identically")
    if result.win != int(rnd["win_credits"]):
        raise VerifyError(f"the win differs: recorded {rnd['win_credits']} credits, replayed "
                          f"{result.win}")
    done.append(f"win {result.win} credits replays identically")
    return done
