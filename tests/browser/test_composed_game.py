"""Lucky Coin Link, a composed game with no code of its own, in the browser against the real
server in Chromium, at desktop and phone size: the lobby offers it, its PAYS / HELP page lists
its features, and the hold-and-win grid, the wheel and the free spins are drawn from the round's
events (the generic composed view). Each feature is reached by a forced outcome (servers.ForcedGame:
a seed found to produce it), so every round still replays as verified. Screenshots go to
test-artifacts/screenshots/.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .conftest import checked_page, shot
from .servers import Server
from .test_client import (
    api,
    last_window,
    minor,
    open_game,
    reels_window,
    register,
    rounds_played,
    wait_round,
)
from .test_languages import close_dialog
from .test_superstars import serve

pytestmark = pytest.mark.browser
GID = "lucky-coin-link"
BET = 20  # credits: the smallest bet, where the page starts
SIZES = {
    "desktop": {"viewport": {"width": 1280, "height": 800}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 2},
}


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pytest.importorskip("slotlab.server.app")
    with serve(tmp_path_factory.mktemp("srv-composed")) as s:
        yield s


@pytest.fixture(params=list(SIZES))
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A checked page (JavaScript errors fail the test) at desktop, then phone size."""
    for pg in checked_page(browser, SIZES[request.param]):
        pg.size_name = request.param
        yield pg


def has(etype: str, test: Callable[[dict[str, Any]], bool] = lambda e: True
        ) -> Callable[[Any], bool]:
    return lambda r: any(e["type"] == etype and test(e) for e in r.events)


def latest(page: Any) -> dict[str, Any]:
    rid = api(page, "GET", "/api/history?limit=1")["rounds"][0]["round_id"]
    rec: dict[str, Any] = api(page, "GET", f"/api/rounds/{rid}")
    return rec


def finish(page: Any, n: int) -> dict[str, Any]:
    """Wait for the round to end; check reels, win and balance against the server's record."""
    wait_round(page, n, timeout=240_000)
    rec = latest(page)
    assert reels_window(page) == last_window(rec["events"])
    assert minor(page, "win") == rec["win"]
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    return rec


def test_the_lobby_offers_it_and_help_lists_its_features(page: Any, srv: Server) -> None:
    register(page, srv)
    assert "Lucky Coin Link" in page.inner_text(f"[data-testid=game-card-{GID}]")
    open_game(page, GID)
    assert page.locator("[data-testid=reels] .cell[data-symbol]").count() == 15
    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog]")
    help_text = page.inner_text("[data-testid=feature-help]")
    for jackpot in ("MINI", "MINOR", "MAJOR", "GRAND"):
        assert jackpot in help_text
    assert "Free spins ×3" in help_text and "Hold & Win" in help_text
    shot(page, f"lucky-coin-link-help-{page.size_name}")
    close_dialog(page, "pays-dialog")


def test_hold_and_win_grid_is_drawn_from_the_events(page: Any, srv: Server) -> None:
    register(page, srv)
    open_game(page, GID)
    game = srv.games[GID]
    game.force(BET, lambda r: has("hold_and_win_started")(r) and has(
        "respin_landed", lambda e: len(e["coins"]) > 0)(r) and not has("wheel_spun")(r))
    # every cell the grid ever holds, and every value the respins counter takes, while shown
    page.evaluate("""() => { window.__cells = new Set(); window.__respins = [];
        new MutationObserver(() => {
            const g = document.querySelector('[data-testid=hold-grid]');
            if (!g || g.hidden) return;
            for (const c of g.querySelectorAll('.hold-cell'))
                if (c.dataset.kind !== 'empty') window.__cells.add(c.dataset.testid);
            const r = document.querySelector('[data-testid=counter-respins]');
            if (r && r.dataset.value !== window.__respins.at(-1))
                window.__respins.push(r.dataset.value); })
          .observe(document.body, {attributes: true, subtree: true, childList: true}); }""")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_function(
        """() => { const g = document.querySelector('[data-testid=hold-grid]');
                   return g && !g.hidden && g.querySelector('.hold-cell.landed'); }""",
        timeout=120_000)
    shot(page, f"lucky-coin-link-hold-and-win-{page.size_name}")
    rec = finish(page, n)
    events = rec["events"]
    started = next(e for e in events if e["type"] == "hold_and_win_started")
    steps = [e for e in events if e["type"] == "respin_landed"]
    cells = {f"hold-cell-{c['cell'][0]}-{c['cell'][1]}" for c in started["coins"]}
    cells |= {f"hold-cell-{c['cell'][0]}-{c['cell'][1]}" for e in steps for c in e["coins"]}
    cells |= {f"hold-cell-{c}-{r}" for e in steps for c, r in e["collectors"]}
    assert set(page.evaluate("[...window.__cells]")) == cells
    counter = [str(started["respins"])]
    for e in steps:
        if str(e["respins"]) != counter[-1]:
            counter.append(str(e["respins"]))
    assert page.evaluate("window.__respins") == counter
    ended = next(e for e in events if e["type"] == "hold_and_win_ended")
    assert ended["win"] > 0
    # RECALL (verified): the grid and its counter at the first respin that lands something
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-verify]:has-text('Verified')")
    k, step = next((k, e) for k, e in enumerate(events)
                   if e["type"] == "respin_landed" and e["coins"])
    for _ in range(k):
        page.click("[data-testid=replay-next]")
    scope = "[data-testid=recall-dialog]"
    assert page.locator(f"{scope} [data-testid=hold-grid] .hold-cell.held").count() == step["held"]
    assert page.get_attribute(f"{scope} [data-testid=counter-respins]", "data-value") == str(
        step["respins"])
    shot(page, f"lucky-coin-link-recall-{page.size_name}")


def test_wheel_spins_to_its_segment_and_free_spins_count(page: Any, srv: Server) -> None:
    register(page, srv)
    open_game(page, GID)
    srv.games[GID].force(BET, has("wheel_spun", lambda e: e["feature"] == "free_spins"
                                  and e["multiplier"] > 1))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    segment = page.wait_for_function(
        """() => { const w = document.querySelector('[data-testid=feature-wheel]');
                   return w && w.dataset.state === 'stopped' && w.dataset.segment; }""",
        timeout=120_000).json_value()
    shot(page, f"lucky-coin-link-wheel-{page.size_name}")
    counter = page.wait_for_function(
        """() => { const f = document.querySelector('[data-testid=free-spins]');
                   return f && !f.hidden && /×\\d/.test(f.innerText) && f.innerText; }""",
        timeout=120_000).json_value()
    shot(page, f"lucky-coin-link-free-spins-{page.size_name}")
    rec = finish(page, n)
    spun = next(e for e in rec["events"] if e["type"] == "wheel_spun")
    assert segment == str(spun["segment"])
    assert f"×{spun['multiplier']}" in counter
