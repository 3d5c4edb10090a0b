"""End-to-end tests of the browser client against the real server, in Debian's Chromium.

Every test asserts on what the page shows (balance, bet, win amounts, symbols on the reels) and
checks it against the server's own record of the round. Outcomes are never decided by the client:
where a test needs a particular outcome (a win, free spins, a nudge) it asks the server's game
wrapper for a seed that produces it (see servers.py).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import doc_name, in_view, shot, unique

pytestmark = pytest.mark.browser
PASSWORD = "correct-horse-battery"


# ---- helpers ---------------------------------------------------------------------------------


def register(page: Any, srv: Any, username: str | None = None) -> str:
    username = username or unique("p")
    page.goto(srv.url + "/")
    page.fill("[data-testid=username]", username)
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=register-submit]")
    page.wait_for_selector("[data-testid=lobby]")
    return username


def open_game(page: Any, gid: str) -> None:
    page.click(f"[data-testid=game-card-{gid}]")
    page.wait_for_selector(f"[data-testid=game][data-game={gid}][data-state=idle]")


def api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """Call the API from the page with the player's token (to check what the page shows)."""
    res = page.evaluate(
        """async ([m, p, b]) => {
            const t = JSON.parse(localStorage.getItem('slotlab.token'));
            const r = await fetch(p, {method: m, body: b ? JSON.stringify(b) : undefined,
              headers: {Authorization: 'Bearer ' + t, 'Content-Type': 'application/json'}});
            return {status: r.status, body: r.status === 204 ? null : await r.json()};
        }""",
        [method, path, body],
    )
    return res["body"]


def minor(page: Any, testid: str) -> int:
    return int(page.get_attribute(f"[data-testid={testid}]", "data-minor"))


def rounds_played(page: Any) -> int:
    return int(page.get_attribute("[data-testid=game]", "data-rounds") or 0)


def spin(page: Any, *, key: bool = False) -> None:
    """Press SPIN (or the space bar) and wait until the round is over or waits for a choice."""
    n = rounds_played(page)
    if key:
        page.keyboard.press("Space")
    else:
        page.click("[data-testid=spin]")
    wait_round(page, n)


def wait_round(page: Any, n: int, timeout: float = 60_000) -> None:
    """Wait until the round is over, or holds its win with a gamble offered (or open)."""
    page.wait_for_function(
        """(n) => { const g = document.querySelector('[data-testid=game]');
                   if (!g) return false;
                   const held = ['offered', 'gamble'].includes(g.dataset.state);
                   return (+g.dataset.rounds || 0) > n || held && !window.slotlab.view.busy; }""",
        arg=n,
        timeout=timeout,
    )


def quick_stop(page: Any) -> None:
    """Press SPIN to quick-stop the round's show, if it is still going.

    The check and the press are one step in the page: on a busy machine the show had ended
    before a separate press arrived, which then started a new round."""
    page.evaluate("""() => { if (window.slotlab.view.busy)
                               document.querySelector('[data-testid=spin]').click(); }""")


def open_gamble(page: Any) -> None:
    """The gamble is offered on request: press GAMBLE to see it."""
    page.click("[data-testid=gamble-open]")
    page.wait_for_selector("[data-testid=gamble]:visible")


def collect(page: Any) -> None:
    """Collect a win held for a gamble (offered or open), if there is one."""
    if page.get_attribute("[data-testid=game]", "data-state") == "offered":
        open_gamble(page)
    if page.get_attribute("[data-testid=game]", "data-state") == "gamble":
        page.click("[data-testid=gamble-collect]")
        page.wait_for_selector("[data-testid=game][data-state=idle]")


def reels_window(page: Any, testid: str = "reels") -> list[list[str]]:
    # Drawn first: a reel set that changes (free spins back to the base game) is redrawn.
    page.wait_for_selector(f"[data-testid={testid}] .cell[data-symbol]")
    cells = page.eval_on_selector_all(
        f"[data-testid={testid}] .cell[data-symbol]",
        "els => els.map(e => [+e.dataset.reel, +e.dataset.row, e.dataset.symbol])",
    )
    n_reels = max(c[0] for c in cells) + 1
    n_rows = max(c[1] for c in cells) + 1
    window = [[""] * n_rows for _ in range(n_reels)]
    for reel, row, sym in cells:
        window[reel][row] = sym
    return window


def last_window(events: list[dict[str, Any]]) -> list[list[str]]:
    # what the reels show last: a stop, a nudge, or reels turned wild after the last stop
    return [e for e in events
            if e["type"] in ("reels_stopped", "reels_nudged", "reels_expanded")][-1]["window"]


def money(minor_units: int) -> str:
    """How the client formats EUR (the test server's currency)."""
    whole, frac = divmod(abs(minor_units), 100)
    return f"{'-' if minor_units < 0 else ''}€{whole:,}.{frac:02d}"


def wins(result: Any) -> bool:
    return result.win > 0 and not any(e["type"] == "free_spins_triggered" for e in result.events)


def loses(result: Any) -> bool:
    return result.win == 0 and result.awaiting is None


# ---- tests -------------------------------------------------------------------------------------


def test_register_login_lobby_and_play(page: Any, server: Any) -> None:
    user = register(page, server)
    cards = page.locator("[data-testid^=game-card-]")
    # every game once; Superstars' other RTP variants are not games of their own
    assert cards.count() == 6
    lobby_text = page.inner_text("[data-testid=lobby]")
    for name in ("Super 12 Stars", "Superstars", "Crystal Star Deluxe", "Fruit Fiesta",
                 "Classic Sevens", "Lucky Coin Link"):
        assert name in lobby_text
    assert "RTP" in lobby_text and "Max win" in lobby_text
    assert page.inner_text("[data-testid=balance]") == money(100_000)
    page.wait_for_function("() => document.querySelectorAll('.thumb svg').length >= 9")
    shot(page, "lobby", docs=True)

    # log out and back in
    page.click("[data-testid=logout]")
    page.wait_for_selector("[data-testid=login]")
    page.fill("[data-testid=username]", user)
    page.fill("[data-testid=password]", "wrong-password-1")
    page.click("[data-testid=login-submit]")
    page.wait_for_selector("[data-testid=login-error]:has-text('Wrong username or password')")
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=login-submit]")
    page.wait_for_selector("[data-testid=lobby]")

    open_game(page, "classic-3x3")
    shot(page, "classic-3x3-rest")
    before = minor(page, "balance")
    bet = minor(page, "bet")
    assert page.inner_text("[data-testid=bet]") == money(bet)
    for _ in range(3):
        spin(page)
        collect(page)
        rid = page.get_attribute("[data-testid=game]", "data-last-round")
        rec = api(page, "GET", f"/api/rounds/{rid}")
        # the reels show exactly the server's final window, and the win shown is the server's
        assert reels_window(page) == last_window(rec["events"])
        assert minor(page, "win") == rec["win"]
        assert page.inner_text("[data-testid=win]") == money(rec["win"])
        before = before - rec["bet"] + rec["win"]
        assert minor(page, "balance") == before
        assert page.inner_text("[data-testid=balance]") == money(before)
    assert api(page, "GET", "/api/wallet")["balance"] == before
    shot(page, "classic-3x3-played")


def test_line_wins_shown_with_amounts_and_gamble(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "fruit-5x3")
    shot(page, "fruit-5x3-rest")
    server.games["fruit-5x3"].force(30, wins)
    before = minor(page, "balance")
    spin(page)
    open_gamble(page)
    open_round = api(page, "GET", "/api/rounds/open")
    line_wins = [e for e in open_round["events"] if e["type"] in ("line_won", "scatter_won")]
    assert line_wins
    # every win is labelled on the reels with its amount, and its cells are highlighted
    tags = page.locator("[data-testid=win-tag]").all_inner_texts()
    assert tags, "no win amounts shown"
    # (a win a wild multiplied says by how much before its amount)
    assert set(tags) <= {(f"×{e['multiplier']}" if e.get("multiplier", 1) > 1 else "")
                         + money(e["win"]) for e in line_wins}
    assert page.locator("[data-testid=reels] .cell.win").count() > 0
    stake = open_round["awaiting"]["stake"]
    assert money(stake) in page.inner_text("[data-testid=gamble-text]")
    assert page.inner_text("[data-testid=win]") == money(stake)
    shot(page, "fruit-5x3-gamble")
    page.click("[data-testid=gamble-collect]")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert minor(page, "balance") == before - 30 + stake
    assert api(page, "GET", "/api/wallet")["balance"] == before - 30 + stake
    assert page.locator("[data-testid=gamble]").is_hidden()


def test_gamble_choice_is_played_back(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "classic-3x3")
    server.games["classic-3x3"].force(5, wins)
    spin(page)
    open_gamble(page)
    shot(page, "classic-3x3-gamble")
    page.click("[data-testid=gamble-red]")
    page.wait_for_selector("[data-testid=game][data-last-card]")
    card = page.get_attribute("[data-testid=game]", "data-last-card")
    page.wait_for_function(
        "() => ['idle', 'gamble'].includes("
        "document.querySelector('[data-testid=game]').dataset.state) && !window.slotlab.view.busy"
    )
    hist = api(page, "GET", "/api/history?limit=1")["rounds"][0]
    rec = api(page, "GET", f"/api/rounds/{hist['round_id']}")
    resolved = [e for e in rec["events"] if e["type"] == "gamble_resolved"]
    assert resolved and resolved[0]["card"] == card and resolved[0]["choice"] == "red"
    collect(page)
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


def test_change_bet(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "fruit-5x3")
    ladder = api(page, "GET", "/api/games/fruit-5x3")["bets"]
    assert page.inner_text("[data-testid=bet]") == money(ladder[0])
    page.click("[data-testid=bet-up]")
    assert minor(page, "bet") == ladder[1]
    page.click("[data-testid=bet-down]")
    assert minor(page, "bet") == ladder[0]
    # sound is synthesised on demand; turning it on and off must not break anything
    page.click("[data-testid=sound]")
    assert page.get_attribute("[data-testid=sound]", "aria-pressed") == "true"
    page.click("[data-testid=sound]")
    assert page.get_attribute("[data-testid=sound]", "aria-pressed") == "false"
    page.click("[data-testid=bet-settings]")
    page.wait_for_selector("[data-testid=bet-dialog]")
    options = page.locator("[data-testid^=bet-option-]")
    assert options.count() == len(ladder)
    page.click("[data-testid=bet-option-3]")
    assert page.inner_text("[data-testid=bet]") == money(ladder[3])
    before = minor(page, "balance")
    server.games["fruit-5x3"].force(ladder[3], loses)
    spin(page)
    assert api(page, "GET", "/api/history?limit=1")["rounds"][0]["bet"] == ladder[3]
    assert minor(page, "balance") == before - ladder[3]
    # the bet is remembered for this game after a reload
    page.reload()
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert minor(page, "bet") == ladder[3]


def test_autoplay_stops_on_a_win(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "classic-3x3")
    g = server.games["classic-3x3"]
    g.force(5, loses)
    g.force(5, loses)
    g.force(5, wins)
    page.click("[data-testid=auto]")
    page.wait_for_selector("[data-testid=auto-dialog]")
    page.click("[data-testid=auto-rounds-25]")
    page.check("[data-testid=auto-any-win]")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=60_000)
    assert "a win" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    rounds = api(page, "GET", "/api/history?limit=10")["rounds"]
    assert len(rounds) == 3
    assert rounds[0]["win"] > 0 and rounds[1]["win"] == 0 and rounds[2]["win"] == 0
    assert rounds[0]["status"] == "completed"  # autoplay collected, never gambled
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


def test_autoplay_number_of_rounds_and_loss_limit(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "classic-3x3")
    g = server.games["classic-3x3"]
    for _ in range(3):
        g.force(5, loses)
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.fill("[data-testid=auto-balance-down]", "0.15")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=60_000)
    assert "decreased" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    assert len(api(page, "GET", "/api/history?limit=10")["rounds"]) == 3


def test_pays_and_help(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "fruit-5x3")
    desc = api(page, "GET", "/api/games/fruit-5x3")
    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog]")
    # the paytable shows the model's pays at the current bet: pays x total bet / pay_divisor
    k = desc["pay_divisor"]
    credits = desc["bets_credits"][0]
    values = page.locator("[data-testid=paytable] [data-testid=pay-value]").all_inner_texts()
    expected = [
        money(int(v) * credits * desc["denomination"] // k)
        for row in desc["paytable"]
        for _, v in sorted(row["pays"].items(), key=lambda kv: -int(kv[0]))
    ]
    assert values == expected
    assert page.locator("[data-testid^=payline-]").count() == len(desc["lines"])
    rules = page.inner_text("[data-testid=rules]")
    assert desc["rules"][0] in rules
    help_text = page.inner_text("[data-testid=pays-dialog]")
    for button in ("MENU", "BET", "AUTO SPIN", "SPIN", "SOUND", "LOBBY", "PAYS / HELP", "RECALL"):
        assert button in help_text
    shot(page, "fruit-5x3-pays")
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=pays-dialog]", state="detached")
    # at a higher bet the pays scale with it
    page.click("[data-testid=bet-up]")
    page.click("[data-testid=pays]")
    credits2 = desc["bets_credits"][1]
    row0 = desc["paytable"][0]
    top = max(row0["pays"], key=int)
    first = page.locator("[data-testid=pay-row-0] [data-testid=pay-value]").first.inner_text()
    assert first == money(int(row0["pays"][top]) * credits2 * desc["denomination"] // k)


def test_recall_shows_a_round_voided_for_a_malfunction(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "crystal-star-deluxe")
    spin(page)
    spin(page)
    voided, kept = api(page, "GET", "/api/history?limit=2")["rounds"]
    r = server.admin("POST", "/api/admin/incident-voids", json={
        "incident_id": "INC-42", "reason": "reel display fault", "round_ids": [voided["round_id"]]})
    assert r.status_code == 200 and r.json()["counts"] == {"voided": 1}, r.text
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    rows = page.locator("[data-testid=history-row]")
    assert rows.nth(0).locator("[data-testid=history-status]").inner_text() == (
        "Voided: reel display fault")
    assert rows.nth(1).locator("[data-testid=history-status]").inner_text() == "Completed"
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-reels]")
    info = page.inner_text("dl.info")
    assert "Voided: reel display fault" in info and "INC-42" in info
    assert kept["void"] is None


def test_recall_and_replay_a_round(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "crystal-star-deluxe")
    g = server.games["crystal-star-deluxe"]
    g.force(9, loses)
    g.force(9, lambda r: r.win > 0 and any(e["type"] == "reels_nudged" for e in r.events))
    spin(page)
    spin(page)
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    assert page.locator("[data-testid=history-row]").count() == 2
    newest = api(page, "GET", "/api/history?limit=1")["rounds"][0]
    assert page.locator("[data-testid=history-win]").first.inner_text() == money(newest["win"])
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-reels]")
    rec = api(page, "GET", f"/api/rounds/{newest['round_id']}")
    events = rec["events"]
    assert page.inner_text("[data-testid=replay-count]") == f"Step 1 of {len(events)}"
    seen_windows = []
    for i in range(1, len(events)):
        page.click("[data-testid=replay-next]")
        assert page.inner_text("[data-testid=replay-count]") == f"Step {i + 1} of {len(events)}"
        if events[i]["type"] in ("reels_stopped", "reels_nudged"):
            assert reels_window(page, "replay-reels") == events[i]["window"]
            seen_windows.append(events[i]["type"])
        if events[i]["type"] == "reels_nudged":
            assert "Nudge" in page.inner_text("[data-testid=replay-step]")
    assert "reels_nudged" in seen_windows
    assert page.is_disabled("[data-testid=replay-next]")
    assert page.inner_text("[data-testid=replay-win]") == money(rec["win"])
    page.wait_for_selector("[data-testid=replay-verify]:has-text('Verified')")
    shot(page, "crystal-star-deluxe-replay")
    page.click("[data-testid=replay-prev]")
    count = page.inner_text("[data-testid=replay-count]")
    assert count == f"Step {len(events) - 1} of {len(events)}"
    page.click("[data-testid=replay-back]")
    page.wait_for_selector("[data-testid=history-row]")
    assert page.locator("dialog[open]").count() == 1


def test_crystal_nudges_and_jackpot_meters(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    open_game(page, "crystal-star-deluxe")
    meters = page.inner_text("[data-testid=jackpots]")
    assert "TOP PROGRESSIVE" in meters and "BOTTOM PROGRESSIVE" in meters
    pools = api(page, "GET", "/api/jackpots")["jackpots"]
    top = next(p for p in pools if p["tier"] == "top" and p["game"] == "crystal-star-deluxe")
    assert money(top["value"]) in page.inner_text("[data-testid=jackpot-top]")
    g = server.games["crystal-star-deluxe"]
    # the double nudge: the stars nudge twice, and a win is paid on the way
    g.force(9, lambda r: sum(e["type"] == "reels_nudged" for e in r.events) >= 2 and r.win > 0)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=message]:has-text('NUDGE 1')", timeout=30_000)
    page.wait_for_selector("[data-testid=message]:has-text('NUDGE 2')", timeout=30_000)
    shot(page, doc_name(page, "crystal-star-deluxe-nudging"), docs=True)  # the second under way
    wait_round(page, n)
    rid = page.get_attribute("[data-testid=game]", "data-last-round")
    rec = api(page, "GET", f"/api/rounds/{rid}")
    assert reels_window(page) == last_window(rec["events"])
    assert minor(page, "win") == rec["win"]
    # at the end the reels, and the message with what was paid, are on the screen whole
    in_view(page, "[data-testid=reels]")
    in_view(page, "[data-testid=message]", whole_text=True)
    shot(page, doc_name(page, "crystal-star-deluxe-nudge"), docs=True)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_crystal_multiplier_symbols_multiply_a_line_win(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    open_game(page, "crystal-star-deluxe")
    server.games["crystal-star-deluxe"].force(9, lambda r: not any(
        e["type"] == "reels_nudged" for e in r.events) and any(
        e["type"] == "line_won" and e["multiplier"] > 1 for e in r.events))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    wait_round(page, n)
    rid = page.get_attribute("[data-testid=game]", "data-last-round")
    rec = api(page, "GET", f"/api/rounds/{rid}")
    assert reels_window(page) == last_window(rec["events"])
    assert minor(page, "win") == rec["win"]
    # the multiplied win's tag on the reels says its multiplier and its amount, on the screen
    multiplied = [e for e in rec["events"] if e["type"] == "line_won" and e["multiplier"] > 1]
    tag = page.locator("[data-testid=win-tag][data-multiplier]").first
    tag.wait_for()
    want = {f"×{e['multiplier']}{money(e['win'])}" for e in multiplied}
    assert tag.inner_text().replace(" ", "") in want, (tag.inner_text(), want)
    in_view(page, "[data-testid=win-tag][data-multiplier]", whole_text=True)
    # and it leaves the multiplier badges of the winning symbols in view (it once covered one)
    tags = [t.bounding_box() for t in page.locator("[data-testid=win-tag]").all()]
    badges = [b.bounding_box()
              for b in page.locator("[data-testid=reels] .cell.win .mult-badge").all()]
    assert badges
    assert not any(overlap(t, b) for t in tags for b in badges), (tags, badges)
    shot(page, doc_name(page, "crystal-star-deluxe-multiplier"), docs=True)


def test_free_spins_feature(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    open_game(page, "fruit-5x3")
    server.games["fruit-5x3"].force(
        30, lambda r: any(e["type"] == "free_spins_triggered" for e in r.events)
    )
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    # catch a free spin at rest (reels landed), for a readable screenshot; the counter is read
    # in the same poll, as the free spins go on by themselves
    counter = page.wait_for_function(
        """() => { const r = document.querySelector('[data-testid=reels]');
                   const f = document.querySelector('[data-testid=free-spins]');
                   return r.dataset.state === 'idle' && / of /.test(f.innerText)
                          && f.innerText; }""",
        timeout=60_000,
    ).json_value()
    shot(page, doc_name(page, "fruit-5x3-free-spins"), docs=True)
    assert re.search(r"FREE SPIN \d+ of \d+", counter), counter
    # the plaque is read whole, its win too (it was cut short with an ellipsis at 390 px)
    in_view(page, "[data-testid=free-spins]", whole_text=True)
    # quick stop skips the rest of the presentation
    quick_stop(page)
    wait_round(page, n, timeout=120_000)
    rec = api(page, "GET", "/api/history?limit=1")["rounds"][0]
    full = api(page, "GET", f"/api/rounds/{rec['round_id']}")
    assert reels_window(page) == last_window(full["events"])
    collect(page)
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


def test_reload_mid_round_resumes_the_gamble(page: Any, server: Any) -> None:
    register(page, server)
    open_game(page, "fruit-5x3")
    server.games["fruit-5x3"].force(30, wins)
    spin(page, key=True)  # the space bar spins
    open_gamble(page)  # (LOBBY would collect a win only offered)
    open_round = api(page, "GET", "/api/rounds/open")
    stake = open_round["awaiting"]["stake"]
    # going to another game leads back to the unfinished round
    page.click("[data-testid=lobby]")
    page.click("[data-testid=game-card-crystal-star-deluxe]")
    page.wait_for_selector("[data-testid=game][data-game=fruit-5x3][data-state=offered]")
    assert page.evaluate("location.hash") == "#/game/fruit-5x3"
    page.goto(server.url + "/#/lobby")  # leave, then come back by a reload
    page.reload()
    page.wait_for_selector("[data-testid=game][data-game=fruit-5x3][data-state=offered]")
    assert money(stake) in page.inner_text("[data-testid=message]")
    assert reels_window(page) == last_window(open_round["events"])
    assert "restored" in page.inner_text("[data-testid=message]")
    shot(page, "fruit-5x3-resumed")
    balance = api(page, "GET", "/api/wallet")["balance"]
    open_gamble(page)
    assert money(stake) in page.inner_text("[data-testid=gamble-text]")
    page.click("[data-testid=gamble-collect]")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert minor(page, "balance") == balance + stake
    assert api(page, "GET", "/api/rounds/open") is None


def test_errors_are_told_in_words(page: Any, server: Any) -> None:
    user = register(page, server)
    open_game(page, "classic-3x3")
    # network lost while starting a round
    page.route("**/api/games/*/rounds", lambda route: route.abort())
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=message]:has-text('Connection lost')", timeout=30_000)
    page.unroute("**/api/games/*/rounds")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    # too fast
    page.route(
        "**/api/games/*/rounds",
        lambda route: route.fulfill(
            status=429,
            content_type="application/json",
            body='{"error": {"code": "too_fast", "message": "slow down"}}',
        ),
    )
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=message]:has-text('Too fast')")
    page.unroute("**/api/games/*/rounds")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    # insufficient funds (real server: the operator takes the balance down to 3 cents)
    balance = api(page, "GET", "/api/wallet")["balance"]
    r = server.admin("POST", f"/api/admin/players/{user}/debit", json={"amount": balance - 3})
    assert r.status_code == 200, r.text
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=message]:has-text('Insufficient funds')")
    # the client fetches the balance again after the refusal: wait for that answer
    page.wait_for_selector("[data-testid=balance][data-minor='3']")
    assert minor(page, "balance") == 3
    shot(page, "classic-3x3-insufficient-funds")


def test_registration_says_its_rules_in_words(page: Any, server: Any) -> None:
    page.goto(server.url + "/")
    assert "at least 8 characters" in page.inner_text("[data-testid=account-rules]")
    page.fill("[data-testid=username]", unique("p"))
    page.fill("[data-testid=password]", "ab")
    page.click("[data-testid=register-submit]")
    text = page.inner_text("[data-testid=login-error]")
    assert "at least 8 characters" in text and "String should" not in text
    page.fill("[data-testid=username]", "x!")  # too short, and a character not allowed
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=register-submit]")
    assert "3 to 32 letters" in page.inner_text("[data-testid=login-error]")
    assert page.locator("[data-testid=lobby]").count() == 0  # nothing was created


def test_phone_size(phone: Any, server: Any) -> None:
    register(phone, server)
    shot(phone, "phone-lobby")
    open_game(phone, "fruit-5x3")
    box = phone.locator("[data-testid=reels]").bounding_box()
    assert box["width"] <= 390 and box["width"] > 300
    spin_box = phone.locator("[data-testid=spin]").bounding_box()
    assert spin_box["y"] + spin_box["height"] <= 844 * 1.2, "SPIN must be reachable"
    server.games["fruit-5x3"].force(30, wins)
    spin(phone)
    open_gamble(phone)
    for testid in ("gamble-red", "gamble-black", "gamble-collect"):
        b = phone.locator(f"[data-testid={testid}]").bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 390, f"{testid} off screen"
    shot(phone, "phone-fruit-5x3-gamble")
    phone.click("[data-testid=gamble-collect]")
    phone.wait_for_selector("[data-testid=game][data-state=idle]")
    shot(phone, "phone-fruit-5x3")


def test_gb_profile_and_results_completed_while_away(page: Any, gb_server: Any) -> None:
    register(page, gb_server)
    open_game(page, "classic-3x3")
    # the gb profile forbids autoplay and quick stop
    assert page.is_disabled("[data-testid=auto]")
    # a win that is not above the stake: shown, never celebrated
    gb_server.games["classic-3x3"].force(5, lambda r: 0 < r.win <= 5)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    assert page.inner_text("[data-testid=spin]").strip().endswith("SPIN")  # no STOP offered
    wait_round(page, n)
    assert page.is_visible("[data-testid=gamble-open]")
    assert "win" not in page.get_attribute("[data-testid=message]", "class").split()
    assert page.is_hidden("[data-testid=bigwin]")
    assert page.is_visible("[data-testid=session-info]")
    # leave the gamble open; the server completes it after 2 s and tells us on the next visit
    page.goto("about:blank")
    page.wait_for_timeout(3500)
    gb_server.admin("POST", "/api/admin/maintenance")
    page.goto(gb_server.url + "/")
    page.wait_for_selector("[data-testid=unseen]")
    assert "completed automatically" in page.inner_text("[data-testid=unseen]")
    assert page.locator("[data-testid=unseen-list] li").count() == 1
    shot(page, "unseen-results")
    page.click("[data-testid=unseen-ok]")
    page.wait_for_selector("[data-testid=lobby]")
    page.reload()
    page.wait_for_selector("[data-testid=lobby]")
    assert page.locator("[data-testid=unseen]").count() == 0  # told once


def test_free_round_package(page: Any, server: Any) -> None:
    """Free rounds (issue 5): announced on load, fixed bet, told when they run out."""
    user = register(page, server)
    r = server.admin(
        "POST",
        "/api/admin/free-rounds",
        json={
            "username": user,
            "game": "classic-3x3",
            "bet": 10,
            "rounds": 2,
            "expires_at": "2099-01-01T00:00:00Z",
        },
    )
    if r.status_code in (404, 405):
        pytest.skip("the server has no free rounds yet (issue 5)")
    assert r.status_code in (200, 201), r.text
    page.reload()
    page.wait_for_selector("[data-testid=frb-announce]")
    assert "2 free rounds" in page.inner_text("[data-testid=frb-list]")
    # the notice is over the lobby, never over the login form, and PLAY opens the package's game
    assert page.is_visible("[data-testid=lobby]")
    assert page.locator("[data-testid=login]").count() == 0
    page.click("[data-testid=frb-announce-ok]")
    page.wait_for_selector("[data-testid=game][data-game=classic-3x3][data-state=idle]")
    assert "FREE ROUNDS: 2 left" in page.inner_text("[data-testid=free-rounds]")
    assert page.inner_text("[data-testid=bet]") == money(10)
    assert page.is_disabled("[data-testid=bet-up]")
    before = api(page, "GET", "/api/wallet")["balance"]
    won = 0
    for _ in range(2):
        server.games["classic-3x3"].force(10, loses)
        spin(page)
    page.wait_for_selector("[data-testid=frb-ended]")
    assert "next round will cost" in page.inner_text("[data-testid=frb-ended]")
    assert api(page, "GET", "/api/wallet")["balance"] == before + won


def test_gb_profile_minimum_game_cycle(page: Any, gb_server: Any) -> None:
    """Two spins in quick succession: the client waits out the 2.5 s cycle, never a 429."""
    register(page, gb_server)
    open_game(page, "classic-3x3")
    g = gb_server.games["classic-3x3"]
    g.force(5, loses)
    g.force(5, loses)
    spin(page)
    spin(page)
    assert "Too fast" not in page.inner_text("[data-testid=message]")
    rounds = api(page, "GET", "/api/history?limit=5")["rounds"]
    assert len(rounds) == 2


def test_crystal_progressive_at_max_bet(sized: Any, server: Any) -> None:
    page = sized
    register(page, server)
    open_game(page, "crystal-star-deluxe")
    ladder = api(page, "GET", "/api/games/crystal-star-deluxe")["bets"]
    page.click("[data-testid=bet-settings]")
    page.click(f"[data-testid=bet-option-{len(ladder) - 1}]")
    assert "live at this (max) bet" in page.inner_text("[data-testid=jackpots]")
    server.games["crystal-star-deluxe"].force(ladder[-1], lambda r: bool(r.jackpots))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=bigwin]:has-text('PROGRESSIVE')", timeout=30_000)
    page.wait_for_timeout(500)  # let the banner's entrance finish
    shot(page, doc_name(page, "crystal-star-deluxe-progressive"), docs=True)
    wait_round(page, n)
    rid = page.get_attribute("[data-testid=game]", "data-last-round")
    rec = api(page, "GET", f"/api/rounds/{rid}")
    assert rec["jackpot_win"] > 0
    assert minor(page, "win") == rec["win"] + rec["jackpot_win"]
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]


def test_choice_after_the_server_settled_the_round(page: Any, gb_server: Any) -> None:
    """The gamble was left open too long and auto-completed: the page says so, nothing breaks."""
    register(page, gb_server)
    open_game(page, "classic-3x3")
    gb_server.games["classic-3x3"].force(5, wins)
    spin(page)
    open_gamble(page)
    page.wait_for_timeout(2500)
    gb_server.admin("POST", "/api/admin/maintenance")
    page.click("[data-testid=gamble-red]")
    page.wait_for_selector("[data-testid=message]:has-text('already settled')")
    assert page.is_hidden("[data-testid=gamble]")
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
