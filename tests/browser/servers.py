"""Start the real slotlab server for browser tests, with games whose next outcome can be chosen.

The server runs in a thread on 127.0.0.1 with a free port and a temporary SQLite file, and serves
the client from src/slotlab/web at ``/``. Its games are the engine's real games, wrapped so that a
test can ask for "the next round of fruit-5x3 triggers free spins": the wrapper searches for a
seed whose round does that and substitutes it for the server's fresh seed. The substitution is
remembered per server seed, so replay (which re-runs the round from the stored seed) still
reproduces the stored events exactly. Nothing in the server is patched.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

ADMIN_TOKEN = "browser-test-admin-token-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ForcedGame:
    """A real game whose next rounds can be steered to an outcome chosen by the test."""

    def __init__(self, game: Any) -> None:
        self._game = game
        self._queue: list[bytes] = []
        self._map: dict[bytes, bytes] = {}
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def play(self, bet: int, seeds: Sequence[bytes], choices: Sequence[str] = ()) -> Any:
        seeds = list(seeds)
        first = bytes(seeds[0])
        with self._lock:
            if first not in self._map and self._queue and first != bytes(32):
                self._map[first] = self._queue.pop(0)
            if first in self._map:
                seeds[0] = self._map[first]
        return self._game.play(bet, seeds, choices)

    def force(self, bet_credits: int, want: Callable[[Any], bool], tries: int = 200_000) -> None:
        """Make the next round at this bet one for which ``want(result)`` holds."""
        for _ in range(tries):
            seed = os.urandom(32)
            if want(self._game.play(bet_credits, [seed], [])):
                with self._lock:
                    self._queue.append(seed)
                return
        raise RuntimeError("no seed found for the wanted outcome")


class Server:
    def __init__(self, tmp: Path, extra_games: Sequence[Any] = (), **settings: Any) -> None:
        """``extra_games``: games served besides the shipped ones (a model of the test's)."""
        from slotlab.games import find_game, offered_ids
        from slotlab.server.app import create_app
        from slotlab.server.settings import Settings

        self.games = {gid: ForcedGame(find_game(gid)) for gid in offered_ids()}
        self.games.update({g.id: ForcedGame(g) for g in extra_games})
        cfg = Settings(
            database_url=f"sqlite:///{tmp / 'slotlab.db'}",
            admin_token=ADMIN_TOKEN,
            sqlite_synchronous="NORMAL",
            argon2_memory_kib=1024,
            argon2_time_cost=1,
            registration_limit_per_address=1_000_000,  # every test player from loopback
            **settings,
        )
        self.app = create_app(cfg, games_override=self.games)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        # Start-up compiles every game's kernels when numba's cache is cold (minutes on a busy
        # 2-core machine); we wait for it, bounded, and stop at once if the server thread died.
        deadline = time.time() + 900
        while time.time() < deadline and self.thread.is_alive():
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)

    # ---- helpers for tests -------------------------------------------------------------------
    def admin(self, method: str, path: str, **kw: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "Idempotency-Key": os.urandom(8).hex()}
        return httpx.request(method, self.url + path, headers=headers, timeout=30, **kw)


@contextmanager
def running(tmp: Path, **settings: Any) -> Iterator[Server]:
    srv = Server(tmp, **settings)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
