"""A player's flow through the client, in Chromium at desktop (1280x800) and phone (390x844) size.

Each test is one stumble a newcomer met (issue 14, "The player"): the gamble is offered on request
and SPIN collects; autoplay stops with its reason when another window settles its round; an open
round of another game is shown as that game; Crystal Star Deluxe lists what every stage paid;
free spins show their running and final total; no captions under the symbols; nothing below the
reels moves on a win; a quick stop lands at once. Outcomes are forced by seed (see servers.py) and
checked against the server's record. No test asserts a timing: where speed matters the test holds
a request and asserts the state the page reaches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import PAGE_WAIT_MS, SIZES, checked_page, shot
from .test_client import api, last_window, loses, minor, money, reels_window, register, wins

pytestmark = pytest.mark.browser

WIN_TYPES = ("line_won", "scatter_won", "flat_prize_won")


@pytest.fixture
def desktop(browser: Any) -> Iterator[Any]:
    yield from checked_page(browser, {"viewport": SIZES["desktop"]})


# ---- helpers ---------------------------------------------------------------------------------


def state(page: Any) -> str:
    return str(page.get_attribute("[data-testid=game]", "data-state"))


def go_to_game(page: Any, gid: str) -> None:
    page.click(f"[data-testid=game-card-{gid}]")
    page.wait_for_selector(f"[data-testid=game][data-game={gid}][data-state=idle]")


def settled(page: Any, n: int, timeout: float = 60_000) -> None:
    """Wait until round n+1 is over, or holds its win for a gamble offered on request."""
    page.wait_for_function(
        """(n) => { const g = document.querySelector('[data-testid=game]');
                   return g && !window.slotlab.view.busy &&
                     ((+g.dataset.rounds || 0) > n || g.dataset.state === 'offered'); }""",
        arg=n,
        timeout=timeout,
    )


def rounds_played(page: Any) -> int:
    return int(page.get_attribute("[data-testid=game]", "data-rounds") or 0)


def line_win(result: Any) -> bool:
    return wins(result) and not result.jackpots


def record(page: Any, name: str, selector: str) -> None:
    """Keep every text the element shows from now on in window.__rec[name] (the page's own log)."""
    page.evaluate(
        """([name, sel]) => {
            window.__rec = window.__rec || {};
            const el = document.querySelector(sel);
            const log = (window.__rec[name] = [el.textContent]);
            new MutationObserver(() => {
                if (log[log.length - 1] !== el.textContent) log.push(el.textContent);
            }).observe(el, { childList: true, characterData: true, subtree: true });
        }""",
        [name, selector],
    )


def recorded(page: Any, name: str) -> list[str]:
    return list(page.evaluate("(name) => window.__rec[name]", name))


def boxes(page: Any) -> dict[str, list[float]]:
    """Where everything below the reels is: the message row, the meters and each control."""
    return dict(
        page.evaluate(
            """() => {
                const out = {};
                const put = (key, el) => {
                    const r = el.getBoundingClientRect();
                    const box = [r.x, r.y + window.scrollY, r.width, r.height];
                    out[key] = box.map((v) => Math.round(v * 10) / 10);
                };
                const all = (sel) => document.querySelectorAll(sel);
                put('cabinet', document.querySelector('.cabinet'));
                put('message-row', document.querySelector('.message-row'));
                all('.meter').forEach((el, i) => put(`meter-${i}`, el));
                all('.controls > *').forEach((el, i) => put(`control-${i}`, el));
                all('[data-testid^=bet-]').forEach((el) => put(el.dataset.testid, el));
                return out;
            }"""
        )
    )


def hold(page: Any, pattern: str) -> list[Any]:
    """Hold the page's requests to pattern until the test lets them go (route.continue_())."""
    held: list[Any] = []
    page.route(pattern, lambda route: held.append(route))
    return held


def wait_held(page: Any, held: list[Any], n: int = 1) -> None:
    for _ in range(600):
        if len(held) >= n:
            return
        page.wait_for_timeout(50)  # lets Playwright deliver the request to the route handler
    raise AssertionError("the request was never sent")


# ---- 1. the gamble on request ------------------------------------------------------------------


def test_gamble_is_offered_on_request_and_spin_collects(sized: Any, server: Any) -> None:
    page = sized
    size = page.size_name
    register(page, server)
    go_to_game(page, "fruit-5x3")
    g = server.games["fruit-5x3"]
    g.force(30, line_win)
    g.force(30, loses)
    before = minor(page, "balance")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    settled(page, n)
    # the win waits for a gamble only on request: no gamble panel, a GAMBLE button, SPIN enabled
    assert state(page) == "offered"
    assert page.is_hidden("[data-testid=gamble]")
    assert page.is_visible("[data-testid=gamble-open]")
    assert page.is_enabled("[data-testid=spin]") and page.is_enabled("[data-testid=auto]")
    first = api(page, "GET", "/api/rounds/open")
    stake = first["awaiting"]["stake"]
    assert page.inner_text("[data-testid=win]") == money(stake)
    assert money(stake) in page.inner_text("[data-testid=message]")
    b = page.locator("[data-testid=gamble-open]").bounding_box()
    assert b["x"] >= 0 and b["x"] + b["width"] <= SIZES[size]["width"], "GAMBLE is off screen"
    shot(page, f"{size}-fruit-5x3-gamble-offered")
    # SPIN collects the win (no gamble) and plays the next round: one click
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_function(
        "(n) => (+document.querySelector('[data-testid=game]').dataset.rounds || 0) >= n + 2"
        " && !window.slotlab.view.busy",
        arg=n,
    )
    rounds = api(page, "GET", "/api/history?limit=5")["rounds"]
    assert len(rounds) == 2
    collected = api(page, "GET", f"/api/rounds/{first['round_id']}")
    assert collected["status"] == "completed" and collected["win"] == stake
    assert not any(e["type"] == "gamble_resolved" for e in collected["events"])
    assert rounds[0]["win"] == 0
    wallet = api(page, "GET", "/api/wallet")["balance"]
    assert wallet == before - 30 + stake - 30
    assert minor(page, "balance") == wallet
    assert state(page) == "idle" and page.is_hidden("[data-testid=gamble-open]")
    shot(page, f"{size}-fruit-5x3-collected-by-spin")


def test_gamble_button_opens_the_gamble_and_space_collects(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "classic-3x3")
    g = server.games["classic-3x3"]
    g.force(5, line_win)
    n = rounds_played(page)
    page.keyboard.press("Space")
    settled(page, n)
    stake = api(page, "GET", "/api/rounds/open")["awaiting"]["stake"]
    page.click("[data-testid=gamble-open]")
    page.wait_for_selector("[data-testid=gamble]:visible")
    assert state(page) == "gamble"
    assert money(stake) in page.inner_text("[data-testid=gamble-text]")
    assert page.is_hidden("[data-testid=gamble-open]")
    shot(page, "desktop-classic-3x3-gamble-on-request")
    page.click("[data-testid=gamble-collect]")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert api(page, "GET", "/api/rounds/open") is None
    # the space bar collects an offered win and spins again, like SPIN
    g.force(5, line_win)
    g.force(5, loses)
    n = rounds_played(page)
    page.keyboard.press("Space")
    settled(page, n)
    assert state(page) == "offered"
    page.keyboard.press("Space")
    page.wait_for_function(
        "(n) => (+document.querySelector('[data-testid=game]').dataset.rounds || 0) >= n + 2"
        " && !window.slotlab.view.busy",
        arg=n,
    )
    assert api(page, "GET", "/api/rounds/open") is None
    assert len(api(page, "GET", "/api/history?limit=5")["rounds"]) == 3
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


def test_auto_spin_started_after_a_win_collects_it_first(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "classic-3x3")
    g = server.games["classic-3x3"]
    g.force(5, line_win)
    g.force(5, loses)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    settled(page, n)
    first = api(page, "GET", "/api/rounds/open")
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.fill("[data-testid=auto-balance-down]", "0.01")  # stops after one round lost
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=60_000)
    assert "decreased" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    collected = api(page, "GET", f"/api/rounds/{first['round_id']}")
    assert collected["status"] == "completed"
    assert collected["win"] == first["awaiting"]["stake"]
    assert len(api(page, "GET", "/api/history?limit=5")["rounds"]) == 2
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


def test_lowering_the_bet_after_a_win_collects_it(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "fruit-5x3")
    desc = api(page, "GET", "/api/games/fruit-5x3")
    ladder = desc["bets"]
    page.click("[data-testid=bet-up]")
    server.games["fruit-5x3"].force(desc["bets_credits"][1], line_win)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    settled(page, n)
    assert page.is_enabled("[data-testid=bet-down]")
    page.click("[data-testid=bet-down]")
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=bet]').dataset.minor == {ladder[0]}"
    )
    assert state(page) == "idle"
    assert api(page, "GET", "/api/rounds/open") is None
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


# ---- 2. autoplay never hangs; an open round is shown as its own game ------------------------


def test_autoplay_stops_when_another_window_settles_its_round(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport=SIZES["desktop"])  # one account: tabs share the login
    errors: list[str] = []
    tab_a = ctx.new_page()
    tab_a.on("pageerror", lambda e: errors.append(str(e)))
    try:
        tab_a.set_default_timeout(PAGE_WAIT_MS)
        register(tab_a, server)
        tab_b = ctx.new_page()
        tab_b.on("pageerror", lambda e: errors.append(str(e)))
        tab_b.set_default_timeout(PAGE_WAIT_MS)
        tab_b.goto(server.url + "/#/lobby")
        tab_b.wait_for_selector("[data-testid=lobby]")
        go_to_game(tab_a, "fruit-5x3")
        server.games["fruit-5x3"].force(30, line_win)  # autoplay stops after this round
        # tab A's autoplay collects its win; that collect is held while tab B plays the round
        held = hold(tab_a, "**/api/rounds/*/choices")
        tab_a.click("[data-testid=auto]")
        tab_a.click("[data-testid=auto-rounds-25]")
        tab_a.click("[data-testid=auto-start]")
        wait_held(tab_a, held)
        assert "STOP" in tab_a.inner_text("[data-testid=spin]")
        open_round = api(tab_b, "GET", "/api/rounds/open")
        assert open_round["game"] == "fruit-5x3"
        # tab B asks for Classic Sevens: it is shown Fruit Fiesta's open round, as Fruit Fiesta
        tab_b.click("[data-testid=game-card-classic-3x3]")
        tab_b.wait_for_selector("[data-testid=game][data-game=fruit-5x3][data-state=offered]")
        assert tab_b.evaluate("location.hash") == "#/game/fruit-5x3"
        assert tab_b.inner_text(".game-title") == "Fruit Fiesta"
        assert reels_window(tab_b) == last_window(open_round["events"])
        shot(tab_b, "desktop-two-tabs-b-shows-fruit")
        tab_b.click("[data-testid=gamble-open]")
        tab_b.click("[data-testid=gamble-collect]")
        tab_b.wait_for_selector("[data-testid=game][data-state=idle]")
        # tab A's collect arrives too late: autoplay stops, with the reason shown
        for route in held:
            route.continue_()
        tab_a.wait_for_selector("[data-testid=game][data-auto-stop]")
        reason = tab_a.get_attribute("[data-testid=game]", "data-auto-stop")
        assert "Auto spin stopped" in reason and "settled" in reason
        assert "settled" in tab_a.inner_text("[data-testid=message]")
        tab_a.wait_for_selector("[data-testid=game][data-state=idle]")
        assert tab_a.inner_text("[data-testid=auto]") == "AUTO"
        assert tab_a.inner_text("[data-testid=spin]").strip().endswith("SPIN")
        assert tab_a.is_enabled("[data-testid=spin]")
        shot(tab_a, "desktop-two-tabs-a-autoplay-stopped")
        # and it stays stopped: no further round is started
        tab_a.wait_for_timeout(1000)
        assert len(api(tab_a, "GET", "/api/history?limit=10")["rounds"]) == 1
        assert minor(tab_a, "balance") == api(tab_a, "GET", "/api/wallet")["balance"]
    finally:
        ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_autoplay_stops_on_an_error_it_cannot_continue_from(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "classic-3x3")
    g = server.games["classic-3x3"]
    g.force(5, loses)
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-25]")
    page.click("[data-testid=auto-start]")
    page.wait_for_function(
        "() => +document.querySelector('[data-testid=game]').dataset.rounds >= 1"
    )
    # the server has a problem from now on
    page.route(
        "**/api/games/*/rounds",
        lambda route: route.fulfill(status=500, content_type="application/json",
                                    body='{"error": {"code": "internal", "message": "boom"}}'),
    )
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=60_000)
    assert "problem" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert page.inner_text("[data-testid=auto]") == "AUTO"
    assert page.inner_text("[data-testid=spin]").strip().endswith("SPIN")


def test_an_answer_the_client_cannot_read_leaves_the_round_playable(
    desktop: Any, server: Any
) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "classic-3x3")
    g = server.games["classic-3x3"]
    g.force(5, line_win)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    settled(page, n)
    # the collect's answer is garbled on the way: the round is redrawn as the server has it
    page.route("**/api/rounds/*/choices", lambda route: route.fulfill(
        status=200, content_type="application/json", body="null"))
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=game][data-state=offered]")
    page.wait_for_function("() => !window.slotlab.view.busy")
    assert api(page, "GET", "/api/rounds/open") is not None
    assert page.is_enabled("[data-testid=spin]")
    page.unroute("**/api/rounds/*/choices")
    g.force(5, loses)
    page.click("[data-testid=spin]")
    page.wait_for_function(
        "(n) => (+document.querySelector('[data-testid=game]').dataset.rounds || 0) >= n + 2"
        " && !window.slotlab.view.busy",
        arg=n,
    )
    assert api(page, "GET", "/api/rounds/open") is None
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


# ---- 3. Crystal Star Deluxe: what paid, in every stage -------------------------------------------


def win_then_nudge(result: Any) -> bool:
    """A win at one stage, and a nudge after it that moves the reels away."""
    ev = result.events
    first_win = next((i for i, e in enumerate(ev) if e["type"] == "line_won"), None)
    return (
        first_win is not None
        and not result.jackpots
        and any(e["type"] == "reels_nudged" for e in ev[first_win:])
    )


def test_crystal_lists_what_every_stage_paid(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    go_to_game(page, "crystal-star-deluxe")
    bet = minor(page, "bet")
    desc = api(page, "GET", "/api/games/crystal-star-deluxe")
    server.games["crystal-star-deluxe"].force(desc["bets_credits"][0], win_then_nudge)
    page.evaluate(
        """() => {
            const msg = document.querySelector('[data-testid=message]');
            const paid = document.querySelector('[data-testid=paid-list]');
            window.__nudges = [];
            new MutationObserver(() => {
                if (!/NUDGE/.test(msg.textContent)) return;
                const items = [...paid.querySelectorAll('[data-testid=paid-win]')];
                window.__nudges.push({ text: msg.textContent, shown: !paid.hidden,
                                       paid: items.map((e) => e.dataset.line) });
            }).observe(msg, { childList: true, characterData: true, subtree: true });
        }"""
    )
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    settled(page, n)
    rid = page.get_attribute("[data-testid=game]", "data-last-round")
    rec = api(page, "GET", f"/api/rounds/{rid}")
    assert rec["bet"] == bet
    ev = rec["events"]
    paid = [e for e in ev if e["type"] == "line_won"]
    # every win of the round is listed with its line, its stage and its amount
    items = page.eval_on_selector_all(
        "[data-testid=paid-win]",
        "els => els.map(e => [+e.dataset.line, +e.dataset.stage, +e.dataset.win, e.textContent])",
    )
    assert [(i[0], i[1], i[2]) for i in items] == [(e["line"], e["stage"], e["win"]) for e in paid]
    for item, e in zip(items, paid, strict=True):
        assert f"Line {e['line']}" in item[3]
        assert money(e["win"] * desc["denomination"]) in item[3]
    assert page.is_visible("[data-testid=paid-list]")
    # each nudge after a win kept the earlier wins listed while the reels moved
    nudges = page.evaluate("window.__nudges")
    first_win_stage = paid[0]["stage"]
    later = [x for x in nudges if int(x["text"].split("NUDGE ")[1].rstrip("!")) > first_win_stage]
    assert later and all(x["shown"] and x["paid"] for x in later)
    # at rest the reels highlight every win whose symbols are still where they paid
    final = last_window(ev)
    stage_windows = [e["window"] for e in ev if e["type"] in ("reels_stopped", "reels_nudged")]
    still = {
        (r, row)
        for e in paid
        if all(final[r][row] == stage_windows[e["stage"]][r][row] for r, row in e["positions"])
        for r, row in e["positions"]
    }
    lit = page.eval_on_selector_all(
        "[data-testid=reels] .cell.win", "els => els.map(e => [+e.dataset.reel, +e.dataset.row])"
    )
    assert {tuple(x) for x in lit} == still
    assert reels_window(page) == final
    # every win is in view, on a phone too: the list wraps rather than scrolls its wins out of view
    box = page.locator("[data-testid=paid-list]").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    for el in page.locator("[data-testid=paid-win]").all():
        b = el.bounding_box()
        assert box["x"] <= b["x"] and b["x"] + b["width"] <= box["x"] + box["width"], (b, box)
    shot(page, f"{page.size_name}-crystal-paid-list")


# ---- 4. free spins: the running and the final total ----------------------------------------------


def test_free_spins_show_their_running_and_final_total(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "fruit-5x3")
    desc = api(page, "GET", "/api/games/fruit-5x3")
    denom = desc["denomination"]
    # one award of free spins (a retrigger would change "of N" on the way)
    server.games["fruit-5x3"].force(
        30, lambda r: sum(e["type"] == "free_spins_triggered" for e in r.events) == 1
    )
    record(page, "fs", "[data-testid=free-spins]")
    record(page, "msg", "[data-testid=message]")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=free-spins]:has-text('FREE SPIN 2 of')", timeout=60_000)
    shot(page, "desktop-fruit-5x3-free-spin-running-total")
    settled(page, n, timeout=180_000)
    hist = api(page, "GET", "/api/history?limit=1")["rounds"][0]
    ev = api(page, "GET", f"/api/rounds/{hist['round_id']}")["events"]
    # what each free spin won, from the server's log
    per_spin: dict[int, int] = {}
    spin_no = 0
    for e in ev:
        if e["type"] == "free_spin_started":
            spin_no = e["index"]
            per_spin[spin_no] = 0
        elif spin_no and e["type"] in WIN_TYPES:
            per_spin[spin_no] += e["win"]
    spins = sorted(per_spin)
    total = sum(per_spin.values())
    assert spins == list(range(1, len(spins) + 1))
    fs_texts = recorded(page, "fs")
    msgs = recorded(page, "msg")
    for k in spins:
        # each free spin says itself (the first spin's message does not stay) ...
        assert any(m.startswith(f"Free spin {k} of {len(spins)}") for m in msgs), (k, msgs)
        # ... and the banner shows what the free spins have won so far
        before = sum(per_spin[j] for j in spins if j < k)
        through = before + per_spin[k]
        shown = [t for t in fs_texts if t.startswith(f"FREE SPIN {k} of {len(spins)}")]
        assert shown, (k, fs_texts)
        allowed = {f"WON {money(before * denom)}", f"WON {money(through * denom)}"}
        assert all(t.rsplit(" · ", 1)[1] in allowed for t in shown), (k, shown, allowed)
        assert shown[-1].endswith(f"WON {money(through * denom)}")
    summary = f"FREE SPINS WON {money(total * denom)}"
    assert page.inner_text("[data-testid=free-spins]") == summary
    assert f"Free spins won {money(total * denom)}" in msgs
    shot(page, "desktop-fruit-5x3-free-spins-summary")
    # the summary stays until the next spin
    if state(page) == "offered":
        server.games["fruit-5x3"].force(30, loses)
        n = rounds_played(page)
        page.click("[data-testid=spin]")
        page.wait_for_function(
            "(n) => (+document.querySelector('[data-testid=game]').dataset.rounds || 0) >= n + 2"
            " && !window.slotlab.view.busy",
            arg=n,
        )
        assert page.is_hidden("[data-testid=free-spins]")


# ---- 5. no captions under symbols --------------------------------------------------------------


def test_symbols_have_no_captions_their_names_go_to_aria_label(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    listing = api(page, "GET", "/api/games")
    games = [g["id"] for g in (listing if isinstance(listing, list) else listing["games"])]
    for gid in games:
        page.goto(server.url + f"/#/game/{gid}")
        page.wait_for_selector(f"[data-testid=game][data-game={gid}][data-state=idle]")
        desc = api(page, "GET", f"/api/games/{gid}")
        names = {str(s["id"]): str(s.get("name") or s["id"]) for s in desc["symbols"]}
        # text outside the symbol's drawing (the drawing may letter "BAR" or "5X" itself)
        cells = page.eval_on_selector_all(
            "[data-testid=reels] .cell[data-symbol]",
            """els => els.map(e => {
                const c = e.cloneNode(true);
                c.querySelectorAll('svg').forEach((s) => s.remove());
                return [e.dataset.symbol, e.getAttribute('aria-label'),
                        c.textContent.trim(), e.querySelectorAll('.cap').length];
            })""",
        )
        assert cells
        for sym, label, text, caps in cells:
            assert caps == 0 and text == "", f"{gid}: a caption under {sym}: {text!r}"
            assert label, f"{gid}: {sym} has no aria-label"
            if sym != "-" and names[sym].lower() not in ("blank", "empty"):
                # the caption is the name without what is in brackets, plus an arrow
                name = re.sub(r"\s*\(.*\)\s*", "", names[sym])
                assert label.rstrip(" ▲▼") == name, (gid, sym, label)
        shot(page, f"desktop-{gid}-no-captions")


# ---- 6. nothing jumps on a win -----------------------------------------------------------------


def big_win(result: Any) -> bool:
    return line_win(result) and result.win >= 10 * 30


def test_nothing_below_the_reels_moves_on_a_big_win(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    go_to_game(page, "fruit-5x3")
    server.games["fruit-5x3"].force(30, big_win)
    at_rest = boxes(page)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=message].win", timeout=30_000)
    during = boxes(page)
    page.wait_for_selector("[data-testid=bigwin]:visible", timeout=30_000)
    big = boxes(page)
    shot(page, f"{page.size_name}-fruit-5x3-big-win")
    settled(page, n)
    after = boxes(page)
    assert "win" in page.get_attribute("[data-testid=message]", "class").split()
    assert page.is_visible("[data-testid=gamble-open]")
    shot(page, f"{page.size_name}-fruit-5x3-big-win-settled")
    assert during == at_rest
    assert big == at_rest
    assert after == at_rest
    # a long message stays in its box too
    long_text = "A long message" + " that goes on" * 12
    page.evaluate("(t) => window.slotlab.view.message(t, 'win')", long_text)
    assert boxes(page) == at_rest


# ---- 7. quick stop -----------------------------------------------------------------------------


def test_quick_stop_before_the_answer_skips_landing_and_count_up(desktop: Any, server: Any) -> None:
    page = desktop
    register(page, server)
    go_to_game(page, "fruit-5x3")
    server.games["fruit-5x3"].force(30, line_win)
    held = hold(page, "**/api/games/*/rounds")
    record(page, "win", "[data-testid=win]")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    wait_held(page, held)
    assert page.inner_text("[data-testid=spin]").strip() == "STOP"
    page.click("[data-testid=spin]")  # quick stop while the server has not answered yet
    held[0].continue_()
    settled(page, n)
    stake = api(page, "GET", "/api/rounds/open")["awaiting"]["stake"]
    # the win meter went from nothing to the whole win: no count-up in between
    assert [t for t in recorded(page, "win") if t != money(0)] == [money(stake)]
    rec = api(page, "GET", "/api/rounds/open")
    assert reels_window(page) == last_window(rec["events"])
    assert page.is_hidden("[data-testid=bigwin]")


def test_quick_stop_while_the_reels_land_settles_at_once(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    go_to_game(page, "fruit-5x3")
    server.games["fruit-5x3"].force(30, line_win)
    page.click("[data-testid=spin]")
    # the first reel has landed, the last still spins
    page.wait_for_function(
        """() => { const r = document.querySelectorAll('[data-testid=reels] .reel');
                   const spins = (el) => el.classList.contains('spinning');
                   return !spins(r[0]) && spins(r[r.length - 1]); }""",
        polling="raf",
    )
    after = page.evaluate(
        """async () => {
            const q = (sel) => document.querySelector(sel);
            const spinning = () => document.querySelectorAll('[data-testid=reels] .reel.spinning');
            const spinningBefore = spinning().length;
            q('[data-testid=spin]').click();
            await new Promise((r) => setTimeout(r, 0));  // one turn of the event loop, no waiting
            return { spinningBefore, spinning: spinning().length,
                     reels: q('[data-testid=reels]').dataset.state,
                     state: q('[data-testid=game]').dataset.state,
                     win: q('[data-testid=win]').textContent, busy: window.slotlab.view.busy };
        }"""
    )
    assert after["spinningBefore"] > 0, "the reels had landed before the quick stop"
    rec = api(page, "GET", "/api/rounds/open")
    stake = rec["awaiting"]["stake"]
    # right after the quick stop: every reel at rest, the whole win shown, the round settled
    assert after == {**after, "spinning": 0, "reels": "idle", "state": "offered",
                     "win": money(stake), "busy": False}
    assert reels_window(page) == last_window(rec["events"])
    shot(page, f"{page.size_name}-fruit-5x3-quick-stopped")
