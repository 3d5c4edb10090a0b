"""Autoplay under a jurisdiction that makes stop conditions mandatory (issue 15), in Chromium:
the AUTO dialog shows the mandatory ones switched on, caps the number of rounds, refuses to
start without the loss limit, and every round auto spin starts declares its conditions to the
server (which refuses autoplay without them: tests/server/test_autoplay_rules.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import shot
from .test_client import api, loses, open_game, register, spin

pytestmark = pytest.mark.browser
GAME = "classic-3x3"


def _round_bodies(page: Any) -> list[dict[str, Any]]:
    """Record the body of every round the page starts."""
    bodies: list[dict[str, Any]] = []

    def seen(request: Any) -> None:
        if request.method == "POST" and request.url.endswith(f"/api/games/{GAME}/rounds"):
            bodies.append(json.loads(request.post_data))

    page.on("request", seen)
    return bodies


def _under(page: Any, server: Any, jurisdiction: str) -> None:
    """A new player put under ``jurisdiction``, the page reloaded so the client follows it."""
    username = register(page, server)
    r = server.admin("PUT", f"/api/admin/players/{username}/jurisdiction",
                     json={"jurisdiction": jurisdiction})
    assert r.status_code == 200, r.text
    page.reload()
    page.wait_for_selector("[data-testid=lobby]")


def test_ontario_autoplay_requires_a_loss_limit_and_caps_rounds(page: Any, server: Any) -> None:
    _under(page, server, "on")
    assert api(page, "GET", "/api/session")["jurisdiction"]["autoplay_max_rounds"] == 100
    open_game(page, GAME)
    bodies = _round_bodies(page)
    page.click("[data-testid=auto]")
    page.wait_for_selector("[data-testid=auto-dialog]")
    note = page.inner_text("[data-testid=auto-required]")
    assert "at most 100" in note and "loss limit" in note
    # The rounds offered stop at the maximum; the loss limit is on and cannot be switched off.
    assert page.locator("[data-testid=auto-rounds-100]").count() == 1
    assert page.locator("[data-testid=auto-rounds-250]").count() == 0
    assert page.is_checked("[data-testid=auto-balance-down-on]")
    assert page.is_disabled("[data-testid=auto-balance-down-on]")
    assert not page.is_checked("[data-testid=auto-balance-up-on]")  # optional ones stay optional
    page.click("[data-testid=auto-start]")  # without the loss limit's amount: not started
    assert "Enter an amount" in page.inner_text("[data-testid=auto-dialog] [role=alert]")
    assert page.locator("[data-testid=auto-dialog]").is_visible()
    shot(page, "autoplay-ontario-required")
    assert bodies == [] and api(page, "GET", "/api/history?limit=10")["rounds"] == []

    g = server.games[GAME]
    for _ in range(3):
        g.force(5, loses)
    page.click("[data-testid=auto-rounds-10]")
    page.fill("[data-testid=auto-balance-down]", "0.15")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=60_000)
    assert "decreased" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    shot(page, "autoplay-ontario-stopped")
    assert len(api(page, "GET", "/api/history?limit=10")["rounds"]) == 3
    # Every round auto spin started declared the run: rounds left and the loss limit.
    assert [b.get("autoplay") for b in bodies] == [
        {"rounds_left": n, "balance_down_by": 15} for n in (10, 9, 8)]
    # A round the player starts declares nothing.
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    spin(page)
    assert len(bodies) == 4 and "autoplay" not in bodies[3]


def test_malta_makes_no_stop_mandatory(page: Any, server: Any) -> None:
    register(page, server)  # the server's profile, mt
    open_game(page, GAME)
    page.click("[data-testid=auto]")
    page.wait_for_selector("[data-testid=auto-dialog]")
    assert page.locator("[data-testid=auto-required]").count() == 0
    assert page.locator("[data-testid=auto-rounds-250]").count() == 1
    assert not page.is_checked("[data-testid=auto-balance-down-on]")
    assert not page.is_disabled("[data-testid=auto-balance-down-on]")
