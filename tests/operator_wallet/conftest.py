"""Fixtures: the reference operator wallet served by uvicorn on 127.0.0.1 (a thread of this
process, a free port, real HTTP), and the game server's adapter with its operations store."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from sqlalchemy import create_engine, text

from slotlab.operator.reference_wallet import create_app
from slotlab.operator.signing import Keyring, check_response, sign_request
from slotlab.server.operator_wallet import OperatorWallet
from slotlab.store import normalize_url
from slotlab.store.operator_wallet import OperatorWalletStore

SECRET = "test-operator-secret-" + uuid.uuid4().hex
START_BALANCE = 10_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def signed_post(http: httpx.Client, path: str, payload: dict[str, Any] | None = None, *,
                secret: str = SECRET, raw: bytes | None = None, now: float | None = None,
                nonce: str | None = None) -> httpx.Response:
    """A signed request to a reference wallet (``now``, ``nonce``: sign it as of then, with that
    nonce); its answer is checked to be signed by the operator over this very request."""
    body = raw if raw is not None else json.dumps(payload).encode()
    signed = sign_request(Keyring(secret), "POST", path, body, now=now, nonce=nonce)
    r = http.post(path, content=body, headers=signed.headers)
    check_response(Keyring(SECRET), signed.digest, r.status_code, r.content, r.headers)
    return r


class WalletServer:
    """The reference wallet on a real port; ``post`` sends signed requests to it."""

    def __init__(self, db_path: Path, port: int | None = None,
                 secret: str | Keyring = SECRET) -> None:
        self.db_path = db_path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(db_path, secret, faults_enabled=True)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning",
                                timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def start(self) -> WalletServer:
        self.thread.start()
        while not self.server.started:  # start-up, not a timing assumption: we wait for it
            if not self.thread.is_alive():
                raise RuntimeError("wallet server failed to start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self.thread.join()
        self.app.state.wallet.close()

    def post(self, path: str, payload: dict[str, Any] | None = None, *,
             secret: str = SECRET, raw: bytes | None = None, now: float | None = None,
             nonce: str | None = None) -> httpx.Response:
        return signed_post(self.http, path, payload, secret=secret, raw=raw, now=now,
                           nonce=nonce)

    def player(self, balance: int = START_BALANCE, currency: str = "EUR") -> str:
        pid = f"p-{uuid.uuid4().hex[:10]}"
        r = self.post("/admin/players", {"player_id": pid, "token": f"tok-{pid}",
                                         "balance": balance, "currency": currency})
        assert r.status_code == 200, r.text
        return pid

    def balance(self, player_id: str) -> int:
        r = self.post("/admin/player", {"player_id": player_id})
        assert r.status_code == 200, r.text
        return int(r.json()["balance"])

    def transactions(self, round_id: str) -> list[dict[str, Any]]:
        r = self.post("/admin/transactions", {"round_id": round_id})
        assert r.status_code == 200, r.text
        return list(r.json()["transactions"])

    def faults(self, endpoint: str, **kw: Any) -> None:
        r = self.post("/_faults", {"endpoint": endpoint, **kw})
        assert r.status_code == 200, r.text

    def calls(self, endpoint: str) -> int:
        return int(self.app.state.faults.calls.get(endpoint, 0))


@pytest.fixture
def wallet_server(tmp_path: Path) -> Iterator[WalletServer]:
    srv = WalletServer(tmp_path / "operator-wallet.db").start()
    yield srv
    srv.stop()


PG_URL = os.environ.get("SLOTLAB_TEST_DATABASE_URL")
BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=[pytest.mark.postgres,
                                    pytest.mark.skipif(not PG_URL, reason="no PostgreSQL URL")]),
]


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The game server's database: an SQLite file, or a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'game-server.db'}"
        return
    assert PG_URL
    schema = f"slotlab_opw_{uuid.uuid4().hex[:12]}"
    admin = create_engine(normalize_url(PG_URL), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{normalize_url(PG_URL)}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def make_store(store_url: str) -> Iterator[Callable[[], OperatorWalletStore]]:
    """Open the game server's operations store (again: a new instance after a "restart")."""
    opened: list[OperatorWalletStore] = []

    def make() -> OperatorWalletStore:
        st = OperatorWalletStore(store_url)
        st.create_all()
        opened.append(st)
        return st

    yield make
    for st in opened:
        st.dispose()


@pytest.fixture
def make_adapter(wallet_server: WalletServer, make_store: Callable[[], OperatorWalletStore]
                 ) -> Iterator[Callable[..., OperatorWallet]]:
    made: list[OperatorWallet] = []

    def make(url: str | None = None, store: OperatorWalletStore | None = None,
             secret: str | Keyring = SECRET, **kw: Any) -> OperatorWallet:
        # A call's timeout well above a loaded machine's stalls; a test about a slow operator
        # passes its own (IMPATIENT_S).
        opts: dict[str, Any] = {"timeout": 5.0, "max_attempts": 3, "backoff": 0.05, **kw}
        w = OperatorWallet(url or wallet_server.url, secret, store=store or make_store(), **opts)
        made.append(w)
        return w

    yield make
    for w in made:
        w.close()


@pytest.fixture
def adapter(make_adapter: Callable[..., OperatorWallet]) -> OperatorWallet:
    return make_adapter()


IMPATIENT_S = 1.0  # the timeout of an adapter that a test's delayed answer (2 s) outlasts


def new_round() -> str:
    return uuid.uuid4().hex
