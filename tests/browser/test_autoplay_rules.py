"""Autoplay under a jurisdiction that makes stop conditions mandatory (issue 15), in Chromium:
the AUTO dialog shows the mandatory ones switched on, caps the number of rounds, refuses to
start without the loss limit, and every round auto spin starts declares its conditions to the
server (which refuses autoplay without them: tests/server/test_autoplay_rules.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import shot
from .test_client import api, loses, minor, open_game, register, spin

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
    # Every round auto spin started declared the run: rounds left and the loss limit, and the
    # run started on the server, which stopped it at its loss limit itself.
    assert [{k: v for k, v in b["autoplay"].items() if k != "run_id"} for b in bodies] == [
        {"rounds_left": n, "balance_down_by": 15} for n in (10, 9, 8)]
    (run_id,) = {b["autoplay"]["run_id"] for b in bodies}
    run = api(page, "GET", f"/api/autoplay/{run_id}")
    assert (run["status"], run["stop_reason"], run["rounds_played"]) == ("stopped",
                                                                        "loss_limit", 3)
    assert (run["rounds"], run["balance_down_by"], run["net_loss"]) == (10, 15, 15)
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


def test_the_server_stops_auto_spin_a_client_would_not_stop(page: Any, server: Any) -> None:
    """A client that ignores its loss limit (patched here to forget it once the run started):
    the server counts the run's losses and refuses its next round; auto spin stops, told."""
    register(page, server)
    open_game(page, GAME)
    g = server.games[GAME]
    for _ in range(3):
        g.force(5, loses)
    bodies = _round_bodies(page)
    page.evaluate("""() => {
        const v = window.slotlab.view, start = v.startAuto.bind(v);
        v.startAuto = async (cfg) => { await start(cfg); if (v.auto) v.auto.balanceDown = 0; };
    }""")
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.fill("[data-testid=auto-balance-down]", "0.10")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=60_000)
    stop = page.get_attribute("[data-testid=game]", "data-auto-stop")
    assert "by the server" in stop and "decreased" in stop, stop
    shot(page, "autoplay-stopped-by-the-server")
    # Two rounds lost 0.10; the third was asked for and refused, nothing taken.
    assert len(bodies) == 3
    rounds = api(page, "GET", "/api/history?limit=10")["rounds"]
    assert len(rounds) == 2
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    run = api(page, "GET", f"/api/autoplay/{bodies[0]['autoplay']['run_id']}")
    assert (run["stop_reason"], run["rounds_played"], run["net_loss"]) == ("loss_limit", 2, 10)
