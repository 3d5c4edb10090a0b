"""A real server process on real games, with two test hooks: ``python serve_forced.py PORT``.

- ``SLOTLAB_TEST_GAMES``: comma-separated game ids to offer (default: super-12-stars).
- ``SLOTLAB_TEST_SEED`` (hex): the first fresh seed the server draws, so the first round played
  is the one the test searched for (the seed is recorded as usual: the round replays as any).
- ``SLOTLAB_TEST_KILL_ON_PLAY=1``: the process kills itself with SIGKILL when a game first plays
  that seed, i.e. with split round commits between the debit's commit and the settlement.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn

from slotlab.games import find_game
from slotlab.server.app import create_app
from slotlab.server.services import rounds
from slotlab.server.settings import Settings


class _KillOnPlay:
    def __init__(self, game: Any, seed: bytes) -> None:
        self._game, self._seed = game, seed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def play(self, bet: int, seeds: Sequence[bytes], choices: Sequence[str] = ()) -> Any:
        if bytes(seeds[0]) == self._seed:
            os.kill(os.getpid(), signal.SIGKILL)
        return self._game.play(bet, seeds, choices)


def main(port: int) -> None:
    ids = os.environ.get("SLOTLAB_TEST_GAMES", "super-12-stars").split(",")
    games: dict[str, Any] = {gid: find_game(gid) for gid in ids}
    seed_hex = os.environ.get("SLOTLAB_TEST_SEED")
    if seed_hex:
        queue = [bytes.fromhex(seed_hex)]
        fresh = rounds.fresh_seed
        rounds.fresh_seed = lambda: queue.pop(0) if queue else fresh()  # type: ignore[assignment]
        if os.environ.get("SLOTLAB_TEST_KILL_ON_PLAY") == "1":
            games = {gid: _KillOnPlay(g, queue[0]) for gid, g in games.items()}
    app = create_app(Settings(), games_override=games)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(int(sys.argv[1]))
