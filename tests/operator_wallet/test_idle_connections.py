"""The adapter drops a connection to the operator that has been idle ``idle_s``, before the
operator's server closes it: a debit sent on a connection the server is closing gets no answer
and is rolled back, so the adapter must not send on one it has kept idle longer than a server
keeps it. Connections are counted by a relay between the adapter and the reference wallet."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from slotlab.server.operator_wallet import OperatorWallet
from tests.async_util import run
from tests.operator_wallet.conftest import SECRET, WalletServer

IDLE_S = 0.5


class CountingRelay:
    """Loopback TCP relay to ``upstream_port`` that counts the connections it accepts."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.accepted = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed: the test is over
                return
            self.accepted += 1
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                s.close()

    def close(self) -> None:
        self._listener.close()


@pytest.fixture
def relay(wallet_server: WalletServer) -> Iterator[CountingRelay]:
    r = CountingRelay(int(wallet_server.url.rsplit(":", 1)[1]))
    yield r
    r.close()


@pytest.fixture
def adapter(relay: CountingRelay) -> Iterator[OperatorWallet]:
    """An adapter calling through the relay (no operations log: these calls are reads)."""
    with OperatorWallet(f"http://127.0.0.1:{relay.port}", SECRET, idle_s=IDLE_S) as w:
        yield w


def test_the_blocking_client_reuses_a_busy_connection_and_drops_an_idle_one(
        wallet_server: WalletServer, relay: CountingRelay, adapter: OperatorWallet) -> None:
    player = wallet_server.player()
    for _ in range(3):
        adapter.balance(player)
    assert relay.accepted == 1
    time.sleep(2 * IDLE_S)
    adapter.balance(player)
    assert relay.accepted == 2


def test_the_event_loop_client_reuses_a_busy_connection_and_drops_an_idle_one(
        wallet_server: WalletServer, relay: CountingRelay, adapter: OperatorWallet) -> None:
    player = wallet_server.player()

    async def calls() -> tuple[int, int]:
        try:
            for _ in range(3):
                assert (await adapter.call_async("balance", {"player_id": player})).kind == "ok"
            busy = relay.accepted
            await asyncio.sleep(2 * IDLE_S)
            assert (await adapter.call_async("balance", {"player_id": player})).kind == "ok"
            return busy, relay.accepted
        finally:
            await adapter.aclose()

    assert run(calls()) == (1, 2)
