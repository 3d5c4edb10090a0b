"""Superstars in the browser (issue 10, "In the browser"), against the real server in Chromium.

Every feature is reached by a forced outcome (servers.ForcedGame: a seed found to produce it), so
each round also replays as verified. The Bonus Game is watched live where the pacing buttons
matter, and step by step in RECALL for each feature: the grid shown at a step is compared with
the event's own ``reels`` (the 25 prizes after it). Screenshots go to test-artifacts/screenshots/
(and docs/images/ with SLOTLAB_UPDATE_DOC_IMAGES=1).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Error as PlaywrightError

from .conftest import doc_name, shot
from .servers import Server
from .test_client import (
    api,
    minor,
    money,
    open_game,
    reels_window,
    register,
    rounds_played,
    wait_round,
)

pytestmark = pytest.mark.browser
GID = "superstars"
BET = 20  # credits: the smallest bet of the ladder, where the page starts
ROWS = 5
CONTACT = "support@casino.example, +356 2000 0000"


def warm_games() -> None:
    """Compile every game's kernels and work out its figures in this process first: the server
    does both for each game when it starts, and a cold numba compile of the new games on a busy
    machine takes longer than servers.py waits for a start."""
    from slotlab.games import find_game, game_ids

    for gid in game_ids():
        g = find_game(gid)
        g.play(g.bets()[0], [bytes(32)])
        g.theoretical_rtp()
        g.describe()


@contextmanager
def serve(tmp: Path, extra_games: Sequence[Any] = (), **settings: Any) -> Iterator[Server]:
    """servers.running, warmed up first and with a patient wait for the start."""
    warm_games()
    srv = Server(tmp, extra_games, **settings)
    srv.thread.start()
    deadline = time.time() + 600
    while time.time() < deadline:
        try:
            if httpx.get(srv.url + "/api/health", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    else:
        srv.stop()
        raise RuntimeError("server did not start")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pytest.importorskip("slotlab.server.app")
    from slotlab.games import game_ids

    if GID not in game_ids():
        pytest.skip("Superstars is not registered in slotlab.games")
    with serve(
        tmp_path_factory.mktemp("srv-superstars"),
        operator_name="Test Casino",
        operator_contact=CONTACT,
    ) as s:
        yield s


# ---- helpers -----------------------------------------------------------------------------------


def has(*types: str) -> Callable[[Any], bool]:
    return lambda r: all(any(e["type"] == t for e in r.events) for t in types)


def force(srv: Server, want: Callable[[Any], bool], tries: int = 400_000) -> None:
    srv.games[GID].force(BET, want, tries=tries)


def last_round(page: Any) -> dict[str, Any]:
    rid = api(page, "GET", "/api/history?limit=1")["rounds"][0]["round_id"]
    return api(page, "GET", f"/api/rounds/{rid}")


def grid_values(page: Any, scope: str = "[data-testid=game]") -> list[int]:
    """The 25 prizes the Bonus Game grid shows (x bet; 0 empty), cell = reel * 5 + row."""
    return page.eval_on_selector(
        scope,
        """(root) => { const out = [];
            for (let c = 0; c < 5; c++) for (let r = 0; r < 5; r++) {
              const el = root.querySelector(`[data-testid=bonus-cell-${c}-${r}]`);
              out.push(el && el.dataset.kind.startsWith('prize') ? Number(el.dataset.value) : 0); }
            return out; }""",
    )


def font_sizes(page: Any, selector: str) -> list[float]:
    """The computed font size (px) of every element the selector finds."""
    sizes: list[float] = page.eval_on_selector_all(
        selector, "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes or selector.endswith(".sq-sub"), f"nothing found: {selector}"
    return sizes


def pause_clock(page: Any) -> None:
    """Pause the page's installed clock just ahead of its present. ``pause_at`` takes only a
    time still to come, and on a loaded machine the running clock can pass a near one before
    the call lands ("Cannot fast-forward to the past", which changes nothing): it is asked
    again, further ahead (the page idles meanwhile: no round is under way)."""
    for ahead_ms in (50, 1_000, 10_000):
        try:
            page.clock.pause_at((page.evaluate("Date.now()") + ahead_ms) / 1000)  # seconds
            return
        except PlaywrightError as e:
            if "to the past" not in str(e):
                raise
    raise AssertionError("the page's clock ran past every pause asked of it")


def stall(page: Any) -> None:
    """Quick stop ("Stall"): the SPIN button while a round is shown."""
    page.click("[data-testid=spin]")


def open_replay(page: Any) -> list[dict[str, Any]]:
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-reels]")
    page.wait_for_selector("[data-testid=replay-verify]:has-text('Verified')")
    return last_round(page)["events"]


def step_to(page: Any, events: list[dict[str, Any]], index: int) -> None:
    """Step the replay with NEXT to event `index` (0-based) and check the counter.

    The presses are made in the page, as fast as a player could make them: each redraws the
    round from its start and ends the draw before it, so a Bonus Game's hundreds of steps
    pressed one by one from the test (each press a round trip) took minutes."""
    now = int(page.inner_text("[data-testid=replay-count]").split()[1]) - 1
    page.evaluate("""(n) => { const next = document.querySelector('[data-testid=replay-next]');
                              for (let k = 0; k < n; k++) next.click(); }""", index - now)
    page.wait_for_function(
        "(want) => document.querySelector('[data-testid=replay-count]').innerText === want",
        arg=f"Step {index + 1} of {len(events)}")


def denomination(page: Any) -> int:
    """Minor units per credit (the server's setting for this game)."""
    return int(api(page, "GET", f"/api/games/{GID}")["denomination"])


def prize_money(page: Any, x: int) -> str:
    """How the page shows a prize of x times the bet."""
    return money(x * BET * denomination(page))


# ---- tests -------------------------------------------------------------------------------------


def test_lobby_offers_superstars_with_5x5_reels(page: Any, srv: Server) -> None:
    register(page, srv)
    card = page.locator(f"[data-testid=game-card-{GID}]")
    assert "Superstars" in card.inner_text() and "RTP" in card.inner_text()
    open_game(page, GID)
    assert page.locator("[data-testid=reels] .cell[data-symbol]").count() == 25
    force(srv, lambda r: r.win > 0 and not has("bonus_started")(r))
    before = minor(page, "balance")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    wait_round(page, n)
    rec = last_round(page)
    window = next(e for e in rec["events"] if e["type"] == "reels_stopped")["window"]
    assert reels_window(page) == window
    assert len(window) == 5 and all(len(col) == 5 for col in window)
    assert minor(page, "win") == rec["win"] > 0
    assert minor(page, "balance") == before - rec["bet"] + rec["win"]
    assert page.locator("[data-testid=win-tag]").count() > 0
    shot(page, "superstars-line-win", docs=True)


def test_bonus_game_live_paced_by_throw_dice_and_spin(sized: Any, srv: Server) -> None:
    """The board round the reels, locked prizes, the counters, the token moving square by square;
    "Throw Dice" and the wheel's "Spin" wait for the player and change nothing; Stall ends it.
    At desktop, then at phone size."""
    page = sized
    register(page, srv)
    open_game(page, GID)
    force(srv, lambda r: has("dice_rolled", "wheel_spun")(r) and r.win < 200 * BET)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=board]:not(.off)", timeout=30_000)
    rec = last_round(page)  # the round is settled on the server before the show starts
    events = rec["events"]
    started = next(e for e in events if e["type"] == "bonus_started")
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid^=bonus-cell-].prize').length >= n",
        arg=len(started["prizes"]),
    )
    shown = grid_values(page)
    for p in started["prizes"]:
        assert shown[p["cell"]] == p["value"]  # the triggering symbols became these prizes
    assert page.inner_text("[data-testid=counter-spins]").endswith(str(started["spins"]))
    assert page.locator("[data-testid^=board-square-]").count() == 24
    # the feature squares named after a character (or the wheel) carry its drawing by their name
    board = api(page, "GET", "/api/games/superstars")["board"]
    for i, name in enumerate(board):
        square = f"[data-testid=board-square-{i}]"
        art = page.locator(f"{square} .sq-art").count()
        shapes = page.locator(f"{square} .sq-art svg.glyph > *").count()  # drawn, not empty
        if name in ("FINN", "STARBURST", "WHEEL", "GONZO", "MISSBANKS", "SPACEWARS"):
            assert art == 1 and shapes > 0, (i, name)
        else:
            assert art == 0, (i, name)
        assert page.get_attribute(square, "data-label") == page.inner_text(
            f"{square} .sq-label")
    shot(page, doc_name(page, "superstars-bonus-start"), docs=page.size_name == "desktop")
    assert page.inner_text("[data-testid=spin]").strip() == "STALL"

    # the first die waits for "Throw Dice"; the token then moves square by square to its square
    roll = next(e for e in events if e["type"] == "dice_rolled")
    page.wait_for_selector("[data-testid=pace-dice]", timeout=60_000)
    assert page.get_attribute("[data-testid=game]", "data-pacing") == "pace-dice"
    assert page.get_attribute("[data-testid=board-token]", "data-square") == str(roll["from"])
    page.wait_for_timeout(600)
    assert page.locator("[data-testid=pace-dice]").count() == 1  # still waiting for the click
    page.evaluate(
        """() => { window.__squares = [];
            const t = document.querySelector('[data-testid=board-token]');
            new MutationObserver(() => window.__squares.push(+t.dataset.square))
              .observe(t, {attributes: true, attributeFilter: ['data-square']}); }"""
    )
    page.click("[data-testid=pace-dice]")
    page.wait_for_function(
        "(to) => document.querySelector('[data-testid=board-token]').dataset.square === String(to)",
        arg=roll["to"],
    )
    squares = page.evaluate("window.__squares")
    assert squares[: roll["value"]] == [
        (roll["from"] + k) % 24 for k in range(1, roll["value"] + 1)
    ]
    assert page.get_attribute("[data-testid=die]", "data-value") == str(roll["value"])
    shot(page, doc_name(page, "superstars-dice"))

    # the Wheel Game waits for its Spin button (clicking further dice on the way)
    wheel = next(e for e in events if e["type"] == "wheel_spun")
    # bounded by time, not by a count of polls: under load the show between rolls takes longer
    deadline = time.monotonic() + 180
    while not page.locator("[data-testid=pace-wheel]").count() and time.monotonic() < deadline:
        if page.locator("[data-testid=pace-dice]").count():
            page.click("[data-testid=pace-dice]", timeout=5000)
        page.wait_for_timeout(100)
    page.wait_for_selector("[data-testid=pace-wheel]")
    shot(page, doc_name(page, "superstars-wheel-game"))
    page.click("[data-testid=pace-wheel]")
    # read in the poll that sees it stopped: the show then moves on by itself
    segment = page.wait_for_function(
        """() => { const w = document.querySelector('[data-testid=bonus-wheel]');
                   return w && w.dataset.state === 'stopped' && w.dataset.segment; }""",
        timeout=30_000).json_value()
    assert segment == str(wheel["segment_index"])
    shot(page, doc_name(page, "superstars-wheel-result"), docs=True)

    # Stall: the rest at once, and the game returns to the round that triggered the bonus
    stall(page)
    wait_round(page, n, timeout=60_000)
    assert page.locator("[data-testid=board].off").count() == 1
    assert page.is_hidden("[data-testid=bonus-grid]")
    window = next(e for e in events if e["type"] == "reels_stopped")["window"]
    assert reels_window(page) == window
    assert minor(page, "win") == rec["win"] > 0
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    paid = next(e for e in events if e["type"] == "bonus_paid")
    assert paid["win"] <= rec["win"]


FEATURES = [
    # (event type, what the step must show besides the grid), one forced round each
    ("starburst_placed", "Starburst"),
    ("gonzo_multiplied", "Gonzo"),
    ("miss_banks_placed", "Miss Banks"),
    ("finn_merged", "Finn"),
    ("space_wars_respun", "Space Wars"),
    ("plus_one_added", "+1"),
    ("upgrade_added", "Upgrade"),
    ("upgraded_square_paid", "Upgraded square"),
    ("extra_spins_gained", "Extra Spins"),
    ("heart_gained", "Extra Life"),
    ("replay_armed", "Replay"),
    ("replay_used", "Replay"),
]


@pytest.mark.parametrize(("etype", "words"), FEATURES, ids=[f[0] for f in FEATURES])
def test_each_feature_step_by_step_in_recall(
    page: Any, srv: Server, etype: str, words: str
) -> None:
    register(page, srv)
    open_game(page, GID)
    force(srv, has(etype))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=board]:not(.off)", timeout=30_000)
    stall(page)
    wait_round(page, n, timeout=60_000)
    events = open_replay(page)
    i = next(k for k, e in enumerate(events) if e["type"] == etype)
    step_to(page, events, i)
    e = events[i]
    scope = "[data-testid=recall-dialog]"
    assert words in page.inner_text("[data-testid=replay-step]")
    # the grid shows the prizes as they stand after this step
    reels = e.get("reels") or next(x["reels"] for x in reversed(events[:i]) if "reels" in x)
    assert grid_values(page, scope) == reels
    if etype == "upgrade_added":
        blank = events[next(k for k, x in enumerate(events) if x["type"] == "bonus_started")][
            "board"
        ].index("-")
        sub = page.inner_text(f"{scope} [data-testid=board-value-{blank}]")
        assert sub == prize_money(page, e["square_value"])
    if etype == "heart_gained":
        assert page.get_attribute(f"{scope} [data-testid=counter-hearts]", "data-value") == str(
            e["hearts"]
        )
    if etype == "extra_spins_gained" and e["applied"]:
        assert page.get_attribute(f"{scope} [data-testid=counter-spins]", "data-value") == str(
            e["spins"]
        )
    if etype == "replay_armed" and e["armed"]:
        assert page.get_attribute(f"{scope} [data-testid=counter-replay]", "data-value") == "armed"
    if etype == "replay_used":
        assert page.locator(f"{scope} [data-testid=counter-replay]").is_hidden()
    token = page.get_attribute(f"{scope} [data-testid=board-token]", "data-square")
    rolls = [x for x in events[:i] if x["type"] == "dice_rolled"]
    assert token == str(rolls[-1]["to"] if rolls else 0)
    shot(page, f"superstars-recall-{etype.replace('_', '-')}")


def test_autoplay_stops_at_a_bonus_game_and_skips_the_buttons(page: Any, srv: Server) -> None:
    register(page, srv)
    open_game(page, GID)
    page.evaluate(
        """() => { window.__paced = 0; const g = document.querySelector('[data-testid=game]');
            new MutationObserver(() => { if (g.dataset.pacing) window.__paced++; })
              .observe(g, {attributes: true, attributeFilter: ['data-pacing']}); }"""
    )
    g = srv.games[GID]
    g.force(BET, lambda r: r.win == 0)
    g.force(BET, lambda r: r.win == 0)
    g.force(BET, has("bonus_started", "dice_rolled"))
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    assert page.is_checked("[data-testid=auto-feature]")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=180_000)
    assert "feature" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert len(api(page, "GET", "/api/history?limit=10")["rounds"]) == 3
    assert page.evaluate("window.__paced") == 0  # auto spin never waited for Throw Dice / Spin


def test_autoplay_single_win_limit_is_reached_when_equalled(page: Any, srv: Server) -> None:
    """ "If the simple winnings exceed [amount]": stops when a win equals or exceeds it; the
    settings are back to their defaults after a reload."""
    register(page, srv)
    open_game(page, GID)
    g = srv.games[GID]
    g.force(BET, lambda r: r.win == 0)
    found: list[int] = []

    def equal_win(r: Any) -> bool:
        if r.win > 0 and not has("bonus_started")(r):
            found.append(r.win)
            return True
        return False

    g.force(BET, equal_win)
    win_minor = found[0] * denomination(page)
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.uncheck("[data-testid=auto-feature]")
    page.fill("[data-testid=auto-single-win]", f"{win_minor // 100}.{win_minor % 100:02d}")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=120_000)
    assert "reached your limit" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    rounds = api(page, "GET", "/api/history?limit=10")["rounds"]
    assert len(rounds) == 2 and rounds[0]["win"] == win_minor
    page.reload()
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    page.click("[data-testid=auto]")
    assert page.input_value("[data-testid=auto-single-win]") == ""
    assert not page.is_checked("[data-testid=auto-single-win-on]")
    assert page.is_checked("[data-testid=auto-feature]")  # the default again
    assert page.get_attribute("[data-testid=auto-rounds-10]", "aria-checked") == "true"


def test_help_sound_volume_and_go_out(page: Any, srv: Server) -> None:
    register(page, srv)
    open_game(page, GID)
    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog]")
    text = page.inner_text("[data-testid=pays-dialog]")
    assert "94.06%" in text
    assert CONTACT in page.inner_text("[data-testid=operator-contact]")
    unfinished = page.inner_text("[data-testid=operator-unfinished]")
    assert "round" in unfinished and "24 hours" in unfinished
    assert "without activity" in page.inner_text("[data-testid=operator-inactivity]")
    assert "Bonus Game" in page.inner_text("[data-testid=feature-help]")
    shot(page, "superstars-help")
    page.keyboard.press("Escape")
    # SOUND: off and on, and a volume slider (remembered)
    page.click("[data-testid=menu]")
    page.wait_for_selector("[data-testid=menu-dialog]")
    page.fill("[data-testid=volume]", "30")
    page.dispatch_event("[data-testid=volume]", "input")
    assert page.evaluate("JSON.parse(localStorage.getItem('slotlab.volume'))") == pytest.approx(0.3)
    page.check("[data-testid=menu-sound]")
    assert page.get_attribute("[data-testid=sound]", "aria-pressed") == "true"
    page.uncheck("[data-testid=menu-sound]")
    assert page.get_attribute("[data-testid=sound]", "aria-pressed") == "false"
    page.keyboard.press("Escape")
    # "Go out": back to the lobby
    page.click("[data-testid=lobby]")
    page.wait_for_selector("[data-testid=lobby]")


def test_bonus_game_at_phone_size(phone: Any, srv: Server) -> None:
    register(phone, srv)
    open_game(phone, GID)
    force(srv, has("dice_rolled"))
    n = rounds_played(phone)
    phone.click("[data-testid=spin]")
    phone.wait_for_selector("[data-testid=pace-dice]", timeout=60_000)
    box = phone.locator("[data-testid=board]").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    b = phone.locator("[data-testid=pace-dice]").bounding_box()
    assert b["x"] >= 0 and b["x"] + b["width"] <= 390
    # legible at 390 px: the prizes on the reels and the board's values at least 12 px, its
    # names at least 9 px
    assert min(font_sizes(phone, "[data-testid^=bonus-cell-].prize .hc-label")) >= 12
    assert min(font_sizes(phone, "[data-testid^=board-square-]")) >= 9
    assert min(font_sizes(phone, "[data-testid^=board-square-] .sq-sub"), default=12) >= 12
    # and no name cut or broken inside a word ("STARBUR / ST"): a one-word name on one line
    cut = phone.eval_on_selector_all(
        "[data-testid^=board-square-] .sq-label",
        """els => els.filter(e => e.scrollWidth > e.parentElement.clientWidth + 1
              || (!/\\s/.test(e.textContent.trim())
                  && e.getBoundingClientRect().height
                     > 1.6 * parseFloat(getComputedStyle(e).fontSize)))
            .map(e => e.textContent)""")
    assert cut == [], cut
    shot(phone, "phone-superstars-bonus", docs=True)
    phone.click("[data-testid=pace-dice]")
    phone.wait_for_timeout(1500)
    stall(phone)
    wait_round(phone, n, timeout=60_000)
    shot(phone, "phone-superstars")
