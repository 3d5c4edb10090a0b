"""Demo mode in Chromium (issue 15): the welcome screen offers "Play demo" where the server
allows it, the DEMO badge stays on screen at desktop and phone size, and a round is played for
play money, kept in the session's history."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .test_client import api, loses, minor, open_game, spin

pytestmark = pytest.mark.browser
GAME = "classic-3x3"


def _on_screen(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).bounding_box()
    view = page.viewport_size
    assert box is not None, f"{selector} is not shown"
    assert box["width"] > 0 and box["height"] > 0
    assert box["x"] >= 0 and box["x"] + box["width"] <= view["width"], box
    assert box["y"] >= 0 and box["y"] + box["height"] <= view["height"], box
    return dict(box)


def _start_demo(page: Any, server: Any) -> None:
    page.goto(server.url + "/")
    page.click("[data-testid=demo-start]")
    page.wait_for_selector("[data-testid=lobby]")


def _badge_stays(page: Any, tmp_path: Path, name: str) -> None:
    """The badge is on screen, also with the page scrolled to its bottom."""
    _on_screen(page, "[data-testid=demo-badge]")
    assert page.inner_text("[data-testid=demo-badge]") == "DEMO"
    page.screenshot(path=str(tmp_path / f"{name}.png"))
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    _on_screen(page, "[data-testid=demo-badge]")
    page.screenshot(path=str(tmp_path / f"{name}-scrolled.png"))
    page.evaluate("() => window.scrollTo(0, 0)")


def test_play_demo_from_the_welcome_screen(page: Any, server: Any, tmp_path: Path) -> None:
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=demo-start]")
    assert "no account" in page.inner_text("[data-testid=demo-offer]")
    page.click("[data-testid=demo-start]")
    page.wait_for_selector("[data-testid=lobby]")
    assert api(page, "GET", "/api/session")["demo"] is True
    _badge_stays(page, tmp_path, "demo-lobby")
    start = minor(page, "balance")
    assert start == api(page, "GET", "/api/demo")["balance"]
    assert page.inner_text(".wallet .label") == "PLAY MONEY"
    open_game(page, GAME)
    _badge_stays(page, tmp_path, "demo-game")
    server.games[GAME].force(5, loses)
    spin(page)
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    rounds = api(page, "GET", "/api/history?limit=10")["rounds"]
    assert len(rounds) == 1 and rounds[0]["game"] == GAME
    assert minor(page, "balance") == start - rounds[0]["bet"]
    # RECALL shows the demo session's round.
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    assert page.locator("[data-testid=history-row]").count() == 1
    page.screenshot(path=str(tmp_path / "demo-recall.png"))


def test_demo_badge_on_a_phone(phone: Any, server: Any, tmp_path: Path) -> None:
    _start_demo(phone, server)
    _badge_stays(phone, tmp_path, "phone-demo-lobby")
    open_game(phone, GAME)
    _badge_stays(phone, tmp_path, "phone-demo-game")
    server.games[GAME].force(5, loses)
    spin(phone)
    _on_screen(phone, "[data-testid=demo-badge]")


def test_ending_the_demo_takes_the_badge_away(page: Any, server: Any) -> None:
    _start_demo(page, server)
    assert page.inner_text("[data-testid=logout]") == "END DEMO"
    page.click("[data-testid=logout]")
    page.wait_for_selector("[data-testid=login]")
    assert not page.locator("[data-testid=demo-badge]").is_visible()
    page.wait_for_selector("[data-testid=demo-start]")  # offered again


def test_no_demo_offered_where_the_jurisdiction_forbids_it(page: Any, gb_server: Any) -> None:
    page.goto(gb_server.url + "/")
    page.wait_for_selector("[data-testid=login]")
    offer = page.evaluate("async () => (await fetch('/api/demo')).json()")
    assert offer["enabled"] is False and offer["code"] == "demo_not_allowed"
    page.wait_for_load_state("networkidle")
    assert page.locator("[data-testid=demo-start]").count() == 0
