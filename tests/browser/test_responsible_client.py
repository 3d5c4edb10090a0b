"""Responsible gambling in the client, in Chromium against the real server: the reality-check
reminder a round start meets (Continue acknowledges it and play goes on; Leave goes to the lobby),
the player's own limits panel in the MENU, and the loss limit refusing a bet.

The reality-check interval is the profile's; the servers run in this process, so a test shortens
the default (mt) profile's interval with monkeypatch (ctx.profile reads PROFILES per request).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from slotlab.server.services import profiles

from .conftest import shot
from .test_client import api, loses, money, open_game, register, rounds_played, spin

pytestmark = pytest.mark.browser
GAME = "classic-3x3"  # a bet of 5 credits: €0.05


def _reality_interval(monkeypatch: pytest.MonkeyPatch, seconds: int) -> None:
    monkeypatch.setitem(profiles.PROFILES, "mt",
                        dataclasses.replace(profiles.PROFILES["mt"], reality_check_s=seconds))


def _figures(page: Any) -> dict[str, Any]:
    return dict(api(page, "GET", "/api/session/reality-check"))


def _wait_elapsed(page: Any, seconds: int) -> None:
    """Wait until the session has run ``seconds`` (by the server's clock)."""
    while _figures(page)["elapsed_s"] < seconds:
        page.wait_for_timeout(250)


def _history(page: Any) -> list[Any]:
    return list(api(page, "GET", "/api/history?limit=50")["rounds"])


def test_reality_check_stops_autoplay_and_continue_plays_on(
        page: Any, server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _reality_interval(monkeypatch, 2)
    register(page, server)
    open_game(page, GAME)
    _wait_elapsed(page, 2)
    assert _figures(page)["due_in_s"] == 0
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=reality-check]")
    text = page.inner_text("[data-testid=reality-check-text]")
    assert text == "You have played 0 minutes this session; net position €0.00."
    assert page.inner_text("#reality-check-title") == "Reality check"
    # Auto spin stopped with the reason, and the refused round moved nothing.
    page.wait_for_selector("[data-testid=game][data-auto-stop]")
    assert "Reality check" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    assert page.inner_text("[data-testid=auto]") == "AUTO"
    assert _history(page) == []
    shot(page, "reality-check-desktop")

    # Long enough since the session's start that, unacknowledged, the reminder stays due under a
    # 10 s interval; acknowledged, the next 10 s are free to play.
    _wait_elapsed(page, 12)
    _reality_interval(monkeypatch, 10)
    assert _figures(page)["due_in_s"] == 0
    page.click("[data-testid=reality-check-continue]")
    page.wait_for_selector("[data-testid=reality-check]", state="detached")
    assert _figures(page)["due_in_s"] > 0
    # The refused spin is not replayed by itself; the player's next one plays.
    assert _history(page) == [] and rounds_played(page) == 0
    server.games[GAME].force(5, loses)
    spin(page)
    assert len(_history(page)) == 1
    assert page.locator("[data-testid=reality-check]").count() == 0


def test_reality_check_on_a_phone_and_leave_to_the_lobby(
        phone: Any, server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _reality_interval(monkeypatch, 2)
    register(phone, server)
    open_game(phone, GAME)
    _wait_elapsed(phone, 2)
    phone.click("[data-testid=spin]")
    phone.wait_for_selector("[data-testid=reality-check]")
    for testid in ("reality-check-continue", "reality-check-leave"):
        b = phone.locator(f"[data-testid={testid}]").bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 390, f"{testid} off screen"
    shot(phone, "reality-check-phone")
    phone.click("[data-testid=reality-check-leave]")
    phone.wait_for_selector("[data-testid=lobby]")
    assert phone.locator("[data-testid=reality-check]").count() == 0
    assert _history(phone) == []
    # Not acknowledged: back in the game, the reminder is still due.
    assert _figures(phone)["due_in_s"] == 0


def _open_limits(page: Any, menu_shot: str | None = None) -> None:
    page.click("[data-testid=menu]")
    page.wait_for_selector("[data-testid=menu-dialog]")
    if menu_shot:
        shot(page, menu_shot)
    page.click("[data-testid=menu-limits]")
    page.wait_for_selector("[data-testid=limits-dialog] [data-testid=limit-loss-day]")


def test_loss_limit_set_in_the_panel_refuses_a_bet(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, GAME)
    _open_limits(page)
    assert "applies at once" in page.inner_text("[data-testid=limits-rule]")
    assert "cooling-off day" in page.inner_text("[data-testid=limits-rule]")
    for kind in ("loss", "deposit"):  # this server holds the wallet: deposit limits too
        for period in ("day", "week", "month"):
            assert page.inner_text(f"[data-testid=limit-{kind}-{period}-amount]") == "No limit"
    page.fill("[data-testid=limit-loss-day-input]", "abc")
    page.click("[data-testid=limit-loss-day-set]")
    assert "above zero" in page.inner_text("[data-testid=limit-loss-day-error]")
    page.fill("[data-testid=limit-loss-day-input]", "0.10")
    page.click("[data-testid=limit-loss-day-set]")
    page.wait_for_selector("[data-testid=limit-loss-day-amount]:text('Limit €0.10')")
    assert page.locator("[data-testid=limit-loss-day-error]").is_hidden()
    shot(page, "limits-panel-desktop")
    page.click("[data-testid=dialog-close]")

    g = server.games[GAME]
    for _ in range(2):
        g.force(5, loses)
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=loss-limit]", timeout=60_000)
    expected = (f"This bet would pass your daily loss limit of {money(10)} "
                f"(lost so far {money(10)}).")
    assert page.inner_text("[data-testid=loss-limit-text]") == expected
    assert expected in page.inner_text("[data-testid=message]")
    assert expected in page.get_attribute("[data-testid=game]", "data-auto-stop")
    assert len(_history(page)) == 2  # the third bet was refused
    shot(page, "loss-limit-desktop")

    # From the message to the panel: what the day has used; a raise waits for its cooling-off day.
    page.click("[data-testid=loss-limit-limits]")
    page.wait_for_selector("[data-testid=limits-dialog] [data-testid=limit-loss-day]")
    assert page.inner_text("[data-testid=limit-loss-day-used]") == f"Lost {money(10)}"
    page.fill("[data-testid=limit-loss-day-input]", "5")
    page.click("[data-testid=limit-loss-day-set]")
    pending = page.locator("[data-testid=limit-loss-day-pending]")
    pending.wait_for()
    assert pending.inner_text().startswith(f"Rises to {money(500)} from ")
    assert page.inner_text("[data-testid=limit-loss-day-amount]") == f"Limit {money(10)}"
    row = api(page, "GET", "/api/limits")["limits"][0]
    assert (row["kind"], row["period"], row["amount"], row["pending_amount"]) == (
        "loss", "day", 10, 500)
    # Still refused: the lower limit holds through the cooling-off day.
    page.click("[data-testid=dialog-close]")
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=loss-limit]")
    assert len(_history(page)) == 2


def test_limits_panel_on_a_phone(phone: Any, server: Any) -> None:
    register(phone, server)
    open_game(phone, GAME)
    _open_limits(phone, "menu-limits-phone")
    phone.fill("[data-testid=limit-deposit-week-input]", "50")
    phone.click("[data-testid=limit-deposit-week-set]")
    phone.wait_for_selector(f"[data-testid=limit-deposit-week-amount]:text('Limit {money(5000)}')")
    for testid in ("limit-loss-month-set", "limit-deposit-week-remove"):
        b = phone.locator(f"[data-testid={testid}]").bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 390, f"{testid} off screen"
    # Removing waits a cooling-off day too.
    phone.click("[data-testid=limit-deposit-week-remove]")
    phone.wait_for_selector("[data-testid=limit-deposit-week-pending]:text('Removed from')")
    assert phone.inner_text("[data-testid=limit-deposit-week-amount]") == f"Limit {money(5000)}"
    shot(phone, "limits-panel-phone")
