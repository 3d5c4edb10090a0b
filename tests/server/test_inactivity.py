"""Inactivity timeout (R20): a session ends after the inactivity timeout of the player's
jurisdiction profile (else the server's ``session_idle_s``), told apart from a session that was
closed or ran out (401 ``session_idle`` against ``session_expired``), and HELP states it."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from slotlab.server.services import profiles

from .server_util import LiveServer, ServerClock, server_settings

GAME = "classic-3x3"
IDLE_S = 600  # the server's inactivity timeout in these tests: ten minutes


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> ServerClock:
    return ServerClock(monkeypatch)


@pytest.fixture
def idle_server(database: Any, clock: ServerClock) -> Iterator[LiveServer]:
    # session_cache_s=0: every call reads the session anew.
    srv = LiveServer(server_settings(database, games=[GAME], session_idle_s=IDLE_S,
                                     session_cache_s=0), None)
    srv.__enter__()
    yield srv
    srv.__exit__()


def test_an_idle_session_ends_with_its_own_reason(idle_server, clock):
    c, _ = idle_server.player()
    assert c.get("/api/wallet").status_code == 200
    # Calls half a timeout apart keep it: the session outlives the timeout counted from login.
    for _ in range(2):
        clock.advance(IDLE_S / 2)
        assert c.get("/api/wallet").status_code == 200
    clock.advance(IDLE_S)  # the timeout itself, without a call
    r = c.get("/api/wallet")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_idle"
    assert "10 minutes without activity" in r.json()["error"]["message"]


def test_a_closed_session_is_expired_not_idle(idle_server):
    c, _ = idle_server.player()
    assert c.delete("/api/sessions/current").status_code == 204
    r = c.get("/api/wallet")
    assert r.status_code == 401 and r.json()["error"]["code"] == "session_expired"


def test_the_profile_sets_the_timeout_and_help_states_it(database, monkeypatch):
    monkeypatch.setitem(profiles.PROFILES, "mt", dataclasses.replace(
        profiles.PROFILES["mt"], session_idle_s=15 * 60))
    srv = LiveServer(server_settings(database, games=[GAME], session_idle_s=3600), None)
    srv.__enter__()
    try:
        with srv.client() as anon:
            op = anon.get(f"/api/games/{GAME}").json()["operator"]
        assert op["inactivity_timeout_s"] == 900
        assert op["inactivity"] == ("Inactive gaming sessions end after 15 minutes without "
                                    "activity; log in again to continue.")
    finally:
        srv.__exit__()
