"""An inactive session ends with its own message (R20): the player is shown the login form
saying the session ended after the inactivity timeout, not that it expired."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import shot, unique
from .servers import Server, running

pytestmark = pytest.mark.browser
PASSWORD = "correct-horse-battery"


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(Path(tmp_path_factory.mktemp("srv-idle")), session_idle_s=2) as srv:
        yield srv


def test_an_inactive_session_is_told_as_such(page: Any, idle_server: Server):
    page.goto(idle_server.url + "/")
    page.fill("[data-testid=username]", unique("idle"))
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=register-submit]")
    page.wait_for_selector("[data-testid=lobby]")
    time.sleep(2.5)  # the inactivity timeout itself: two seconds without a call
    page.click("[data-testid=game-card-classic-3x3]")
    message = page.wait_for_selector("[data-testid=login-error]:has-text('without activity')")
    assert message.inner_text() == ("Your session ended after 2 seconds without activity. "
                                    "Please log in again.")
    shot(page, "desktop-session-idle")
