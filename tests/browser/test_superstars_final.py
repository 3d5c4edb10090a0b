"""Superstars' Final Game watched live (the board of prizes and the dice count in words), legible
on a phone, and stepped through in RECALL. Apart from test_superstars.py so that the suite's
workers run them side by side.

The show up to the Final Game is a whole Bonus Game that fills the reels: watched in real time
it took minutes. The page's clock is Playwright's, installed before the page loads and paused, and
moved on as fast as the page draws (as test_superstars_board.py does), so the show is the same,
only not waited for.
"""

from __future__ import annotations

from typing import Any

import pytest

from . import test_superstars
from .conftest import shot
from .servers import Server
from .test_client import api, minor, open_game, register, rounds_played, wait_round
from .test_superstars import (
    GID,
    font_sizes,
    force,
    has,
    last_round,
    open_replay,
    pause_clock,
    prize_money,
    stall,
    step_to,
)

srv = test_superstars.srv  # the same module-scoped server fixture, started for this file

pytestmark = pytest.mark.browser
CLOCK_STEP_MS = 200


def test_final_game(page: Any, srv: Server) -> None:
    page.clock.install()
    register(page, srv)
    open_game(page, GID)
    force(srv, has("final_game_started"), tries=2_000_000)
    n = rounds_played(page)
    # press every pacing button as soon as it shows (by the page's clock), to watch the whole
    # show live up to the Final Game's board, where the presses stop
    page.evaluate("() => setInterval(() => document.querySelector('[data-board=final]') || "
                  "document.querySelector('.pace-btn')?.click(), 60)")
    pause_clock(page)
    page.click("[data-testid=spin]")
    for _ in range(600_000 // CLOCK_STEP_MS):  # ten minutes of the show at most
        if page.locator("[data-testid=board][data-board=final]").count():
            break
        page.clock.run_for(CLOCK_STEP_MS)
    else:
        raise AssertionError("the show never reached the Final Game")
    message = page.inner_text("[data-testid=message]")
    rec = last_round(page)
    events = rec["events"]
    fg = next(e for e in events if e["type"] == "final_game_started")
    assert (
        fg["dice"]
        == (fg["dice_left"] + fg["max_spins"] + fg["hearts"] * fg["max_spins"])
        * (2 if fg["replay"] else 1)
        + fg["start_square_dice"]
    )
    for i, v in enumerate(fg["board"]):
        label = page.get_attribute(f"[data-testid=board-square-{i}]", "data-label")
        assert label == ("DICE" if v is None else prize_money(page, v))
    assert f"{fg['dice']} dice" in message
    # the dice count in words, not a sum to decode
    assert "for your spins" in message and "+" not in message, message
    page.clock.run_for(400)
    shot(page, "superstars-final-game", docs=True)
    # legible on a phone too: every prize of the Final board at least 12 px
    page.set_viewport_size({"width": 390, "height": 844})
    page.clock.run_for(300)
    assert min(font_sizes(page, "[data-testid=board][data-board=final] .sq")) >= 12
    shot(page, "phone-superstars-final-game", docs=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.clock.resume()  # the rest in real time, quick-stopped
    stall(page)
    wait_round(page, n, timeout=60_000)
    assert minor(page, "win") == rec["win"]
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    # RECALL: the Final Game board and each prize collected, step by step
    events = open_replay(page)
    i = next(k for k, e in enumerate(events) if e["type"] == "final_game_started")
    step_to(page, events, i)
    scope = "[data-testid=recall-dialog]"
    assert page.locator(f"{scope} [data-testid=board][data-board=final]").count() == 1
    assert str(fg["dice"]) in page.inner_text("[data-testid=replay-step]")
    j = next(k for k, e in enumerate(events) if e["type"] == "final_prize_collected")
    step_to(page, events, j)
    token = page.get_attribute(f"{scope} [data-testid=board-token]", "data-square")
    assert token == str(events[j]["square"])
    shot(page, "superstars-recall-final-game")
