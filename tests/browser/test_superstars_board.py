"""Superstars' Bonus Game board features (Starburst, Gonzo, Miss Banks, Finn, Space Wars, Extra
Spins, Extra Life) watched live at desktop and phone size, each on screen and legible at its
moment, with README's pictures of them. Apart from test_superstars.py so that the suite's
workers can run the two files side by side (each is minutes of browser time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from . import test_superstars
from .conftest import doc_name, in_view, shot
from .servers import Server
from .test_client import open_game, register, rounds_played, wait_round
from .test_superstars import (
    GID,
    ROWS,
    font_sizes,
    force,
    grid_values,
    last_round,
    pause_clock,
    stall,
)

srv = test_superstars.srv  # the same module-scoped server fixture, started for this file

pytestmark = pytest.mark.browser


# The Bonus Game's board features watched live, each picture taken at its moment: the page's
# clock is Playwright's (installed before the page loads), paused before the first spin and
# moved on 25 ms at a time, so the show stops wherever the test looks and nothing moves on under a
# busy machine. (event, picture, the words its message starts with, when to look after the
# message shows: ms, from the event)
BOARD_FEATURES: list[tuple[str, str, str, Callable[[dict[str, Any]], int]]] = [
    # a stack of three prizes, each placed 260 ms apart, then 500 ms: look in that pause
    ("starburst_placed", "starburst", "Starburst", lambda e: 260 * len(e["cells"]) + 250),
    # each prize shows its multiplier 220 ms before its new value: look at the last one's
    ("gonzo_multiplied", "gonzo", "Gonzo", lambda e: 220 * (len(e["cells"]) - 1) + 110),
    # each prize placed 200 ms apart ("a×+b×" where one lands on another), then 400 ms
    ("miss_banks_placed", "miss-banks", "Miss Banks", lambda e: 200 * len(e["cells"]) + 200),
    # each raised by 5× 250 ms apart, 400 ms, then merged into one ("Finn"), 500 ms
    ("finn_merged", "finn", "Finn", lambda e: 250 * len(e["cells"]) + 400 + 250),
    # looked at once the third respin shows (see below)
    ("space_wars_respun", "space-wars", "Space Wars", lambda e: 0),
    ("extra_spins_gained", "extra-spins", "Extra Spins", lambda e: 350),
    ("heart_gained", "extra-life", "Extra Life", lambda e: 250),
]
MUST_SHOW = {"starburst_placed", "gonzo_multiplied", "miss_banks_placed", "space_wars_respun",
             "finn_merged"}
STEP_MS = 25

UNCOVERED_JS = """(e) => { const r = e.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!top && e.contains(top); }"""
INSIDE_CELL_JS = """(e) => { const r = e.getBoundingClientRect();
    const c = e.closest('.hold-cell').getBoundingClientRect();
    return r.left >= c.left - 0.5 && r.right <= c.right + 0.5; }"""
TOKEN_CLEAR_JS = """(i) => {
    const l = document.querySelector(`[data-testid=board-square-${i}] .sq-label`);
    const t = document.querySelector('[data-testid=board-token]').getBoundingClientRect();
    if (!l || !l.textContent.trim()) return true;
    const r = l.getBoundingClientRect();
    return t.right <= r.left || t.left >= r.right || t.bottom <= r.top || t.top >= r.bottom; }"""
NOT_CUT_JS = """(e) => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1"""


def message_text(page: Any) -> str:
    return page.inner_text("[data-testid=message]").strip()


def run_until(page: Any, check: Callable[[], bool], limit_ms: int = 240_000) -> None:
    """Move the paused page clock on STEP_MS at a time until check() holds."""
    for _ in range(limit_ms // STEP_MS):
        if check():
            return
        page.clock.run_for(STEP_MS)
    raise AssertionError("the show never got there")


def legible(page: Any, selector: str, *, min_px: float = 12) -> None:
    """On the screen whole, its text neither cut across nor down, at least min_px."""
    in_view(page, selector, whole_text=True)
    for el in page.locator(selector).all():
        assert el.evaluate(NOT_CUT_JS), f"{selector}: its text is cut: {el.inner_text()!r}"
    assert min(font_sizes(page, selector)) >= min_px, selector


def look_at_feature(page: Any, e: dict[str, Any], words: str, square: int) -> None:
    """What the screen must show at a feature's moment: its message whole, the token on the
    feature's square, the prizes it placed or changed on the reels whole and legible."""
    assert message_text(page).startswith(words), message_text(page)
    legible(page, "[data-testid=message]")
    assert page.get_attribute("[data-testid=board-token]", "data-square") == str(square)
    assert page.is_hidden("[data-testid=die]")  # put away: it covered a prize
    in_view(page, f"[data-testid=board-square-{square}]")
    # the square's name not under the token
    assert page.evaluate(TOKEN_CLEAR_JS, square), f"the token covers square {square}'s name"
    cells = {x["cell"] for x in e.get("cells") or []}
    if e["type"] == "finn_merged":
        cells = {e["to_cell"]}
    if e["type"] == "space_wars_respun":
        cells = {p["cell"] for rs in e["respins"] for p in rs["prizes"]}
        legible(page, "[data-testid=counter-sw]")
        legible(page, "[data-testid=counter-respins]")
        assert page.get_attribute("[data-testid=counter-respins]", "data-value").startswith("3")
    for cell in cells:
        c, r = divmod(cell, ROWS)
        legible(page, f"[data-testid=bonus-cell-{c}-{r}] .hc-label")
        # and nothing over it (the die stayed over a prize after the token landed)
        assert page.eval_on_selector(f"[data-testid=bonus-cell-{c}-{r}]", UNCOVERED_JS), (
            f"bonus-cell-{c}-{r} is covered")
        subs = page.locator(f"[data-testid=bonus-cell-{c}-{r}] .hc-sub")
        if subs.count():  # what it was made of ("100×2", "3×+2×") inside the cell
            assert subs.first.evaluate(INSIDE_CELL_JS), (cell, subs.first.inner_text())
    shown = grid_values(page)
    if e["type"] == "gonzo_multiplied":  # the last prize shows its multiplier, the others done
        *done, last = e["cells"]
        c, r = divmod(last["cell"], ROWS)
        label = page.inner_text(f"[data-testid=bonus-cell-{c}-{r}] .hc-label")
        assert label == f"×{last['multiplier']}"
        assert all(shown[x["cell"]] == x["value"] for x in done)
    elif e["type"] == "finn_merged":
        assert shown[e["to_cell"]] == e["value"]
        c, r = divmod(e["to_cell"], ROWS)
        assert page.inner_text(f"[data-testid=bonus-cell-{c}-{r}] .hc-sub") == "Finn"
    elif e["type"] in ("starburst_placed", "miss_banks_placed"):
        assert all(shown[x["cell"]] == x["value"] for x in e["cells"])
    elif e["type"] == "extra_spins_gained":
        legible(page, "[data-testid=counter-spins]")
        legible(page, "[data-testid=counter-max]")
        assert page.get_attribute("[data-testid=counter-max]", "data-value") == str(
            e["max_spins"])
    elif e["type"] == "heart_gained":
        legible(page, "[data-testid=counter-hearts]")
        assert page.get_attribute("[data-testid=counter-hearts]", "data-value") == str(
            e["hearts"])


def test_board_features_live(sized: Any, srv: Server) -> None:
    """Starburst, Gonzo, Miss Banks, Finn, Space Wars, Extra Spins and Extra Life, each looked at
    live at its moment in a forced Bonus Game (as few as cover them), at desktop and phone size:
    the message, the token's square, the prizes it placed or changed on screen and legible."""
    page = sized
    page.clock.install()
    register(page, srv)
    open_game(page, GID)
    # the pacing buttons pressed as soon as they show (by the page's clock, so as it moves on)
    page.evaluate("() => setInterval(() => document.querySelector('.pace-btn')?.click(), 60)")
    # paused once, for good (a second pause_at after resume() can land in the clock's past)
    pause_clock(page)
    seen: set[str] = set()
    wanted = {etype for etype, *_ in BOARD_FEATURES}
    for _ in range(4):
        missing = wanted - seen
        if not missing:
            break
        need = min(len(missing), 3)

        def want(r: Any, missing: set[str] = missing, need: int = need) -> bool:
            types = {x["type"] for x in r.events}
            return ("bonus_started" in types and "final_game_started" not in types
                    and len(types & missing) >= need)

        force(srv, want, tries=2_000_000)
        n = rounds_played(page)
        page.click("[data-testid=spin]")
        run_until(page, lambda: page.locator("[data-testid=board]:not(.off)").count() > 0)
        events = last_round(page)["events"]
        to = 0
        for e in events:
            if e["type"] == "dice_rolled":
                to = e["to"]
            hit = next((f for f in BOARD_FEATURES if f[0] == e["type"]), None)
            if hit is None or e["type"] in seen or (
                    e["type"] == "extra_spins_gained" and not e["applied"]):
                continue
            etype, name, words, after = hit
            run_until(page, lambda words=words: message_text(page).startswith(words))
            if etype == "space_wars_respun":
                run_until(page, lambda: (page.get_attribute(
                    "[data-testid=counter-respins]", "data-value") or "").startswith("3"))
                after = lambda e: 500 + 160 * len(e["respins"][-1]["prizes"]) + 100  # noqa: E731
            page.clock.run_for(after(e))
            look_at_feature(page, e, words, to)
            shot(page, doc_name(page, f"superstars-{name}"), docs=True)
            seen.add(etype)
        stall(page)
        run_until(page, lambda n=n: page.evaluate(
            "(n) => (+document.querySelector('[data-testid=game]').dataset.rounds || 0) > n", n))
        wait_round(page, n)
    assert seen >= MUST_SHOW, MUST_SHOW - seen
    assert seen == wanted, wanted - seen  # each has its row in the README
