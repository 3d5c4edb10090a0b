"""Server test fixtures (see server_util.py for what they build)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..operator_wallet.conftest import WalletServer
from .server_games import make_test_games
from .server_util import PG_URL, Database, LiveServer, make_database, server_settings

BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=[pytest.mark.postgres,
                                    pytest.mark.skipif(not PG_URL, reason="no PostgreSQL URL")]),
]


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    db = make_database(request.param, tmp_path)
    yield db
    db.cleanup()


@pytest.fixture
def second_database(database: Database, tmp_path: Path) -> Iterator[Database]:
    """Another database of the same backend: a second server's, for tests that compare two."""
    db = make_database(database.backend, tmp_path / "second")
    yield db
    db.cleanup()


@pytest.fixture
def make_server(database: Database) -> Iterator[Callable[..., LiveServer]]:
    """Start servers on the test's database: ``make_server(games=..., **settings)``
    (``proxy_headers=False``: see :class:`LiveServer`)."""
    started: list[LiveServer] = []

    def start(games: dict[str, Any] | None = None, real_games: bool = False,
              proxy_headers: bool = True, **overrides: Any) -> LiveServer:
        if games is None and not real_games:
            games = make_test_games()
        srv = LiveServer(server_settings(database, **overrides), None if real_games else games,
                         proxy_headers)
        srv.__enter__()
        started.append(srv)
        return srv

    yield start
    for srv in reversed(started):
        srv.__exit__()


@pytest.fixture
def serve_games(database: Database) -> Iterator[Callable[..., LiveServer]]:
    """Start servers offering the engine's own games: ``serve_games(*game_ids, **settings)``."""
    started: list[LiveServer] = []

    def start(*game_ids: str, **overrides: Any) -> LiveServer:
        srv = LiveServer(server_settings(database, games=list(game_ids), **overrides), None)
        srv.__enter__()
        started.append(srv)
        return srv

    yield start
    for srv in reversed(started):
        srv.__exit__()


@pytest.fixture
def server(make_server: Callable[..., LiveServer]) -> LiveServer:
    return make_server()


@pytest.fixture
def wallet_server(tmp_path: Path) -> Iterator[WalletServer]:
    """The reference operator wallet on a real port, for operator-wallet mode."""
    srv = WalletServer(tmp_path / "operator-wallet.db").start()
    yield srv
    srv.stop()
