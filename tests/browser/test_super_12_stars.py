"""Super 12 Stars in the browser (issue 9, "In the browser"), against the real server in Chromium.

Each feature is reached by a forced outcome (servers.ForcedGame: a seed found to produce it), so
every round still replays as verified; what the page shows is checked against the server's own
record of the round. Screenshots go to test-artifacts/screenshots/ (and docs/images/ with
SLOTLAB_UPDATE_DOC_IMAGES=1).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from itertools import pairwise
from typing import Any

import pytest

from .conftest import IN_VIEW_JS, doc_name, shot
from .servers import Server
from .test_client import (
    api,
    last_window,
    minor,
    money,
    open_game,
    quick_stop,
    reels_window,
    register,
    rounds_played,
    wait_round,
)
from .test_languages import close_dialog
from .test_superstars import serve

pytestmark = pytest.mark.browser
GID = "super-12-stars"
BET = 30  # credits: the smallest bet, where the page starts (line bet 1 credit)
CONTACT = "help@casino.example"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pytest.importorskip("slotlab.server.app")
    from slotlab.games import game_ids

    if GID not in game_ids():
        pytest.skip("Super 12 Stars is not registered in slotlab.games")
    with serve(
        tmp_path_factory.mktemp("srv-s12"), operator_name="Test Casino", operator_contact=CONTACT
    ) as s:
        yield s


# ---- helpers -----------------------------------------------------------------------------------


def has(
    etype: str, test: Callable[[dict[str, Any]], bool] = lambda e: True
) -> Callable[[Any], bool]:
    return lambda r: any(e["type"] == etype and test(e) for e in r.events)


def force(srv: Server, want: Callable[[Any], bool]) -> None:
    srv.games[GID].force(BET, want, tries=400_000)


def denomination(page: Any) -> int:
    return int(api(page, "GET", f"/api/games/{GID}")["denomination"])


def credits(page: Any, c: int) -> str:
    return money(c * denomination(page))


def latest(page: Any) -> dict[str, Any]:
    rid = api(page, "GET", "/api/history?limit=1")["rounds"][0]["round_id"]
    return api(page, "GET", f"/api/rounds/{rid}")


def play(page: Any) -> dict[str, Any]:
    """Spin, wait for the round to end, check reels, win and balance; the round's record."""
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    wait_round(page, n, timeout=180_000)
    rec = latest(page)
    assert reels_window(page) == last_window(rec["events"])
    assert minor(page, "win") == rec["win"]
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    return rec


def watch(page: Any, selector: str, attr: str) -> None:
    """Record every value an attribute takes (window.__seen) while the round is shown."""
    page.evaluate(
        """([sel, attr]) => { window.__seen = [];
            const root = document.querySelector('[data-testid=game]');
            new MutationObserver(() => { const el = document.querySelector(sel);
                if (el && el.getAttribute(attr) !== window.__seen.at(-1))
                  window.__seen.push(el.getAttribute(attr)); })
              .observe(root, {attributes: true, subtree: true, childList: true}); }""",
        [selector, attr],
    )


def replay_step(page: Any, etype: str) -> dict[str, Any]:
    """Open the newest round in RECALL (verified) and step with NEXT to its first `etype`."""
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-verify]:has-text('Verified')")
    events = latest(page)["events"]
    i = next(k for k, e in enumerate(events) if e["type"] == etype)
    for _ in range(i):
        page.click("[data-testid=replay-next]")
    assert page.inner_text("[data-testid=replay-count]") == f"Step {i + 1} of {len(events)}"
    return events[i]


# ---- tests -------------------------------------------------------------------------------------


def test_lobby_help_rtp_and_operator(page: Any, srv: Server) -> None:
    register(page, srv)
    card = page.inner_text(f"[data-testid=game-card-{GID}]")
    assert "Super 12 Stars" in card
    open_game(page, GID)
    assert page.locator("[data-testid=reels] .cell[data-symbol]").count() == 15
    desc = api(page, "GET", f"/api/games/{GID}")
    # the lobby and the menu show the largest win of the shipped 2,000-million-game run with
    # its odds, as the rule text does (its upper bound stays in the help)
    sim = desc["max_win_simulated"]
    assert f"{sim['max_win_x']:,.1f}× (1 in 2,000,000,000)" in card
    page.click("[data-testid=menu]")
    menu = page.inner_text("[data-testid=menu-dialog]")
    assert f"{sim['max_win_x']:,.1f} × stake (1 in 2,000,000,000)" in menu
    assert f"{desc['rtp'] * 100:.2f}%" in menu
    close_dialog(page, "menu-dialog")
    shot(page, "super-12-stars-rest")
    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog]")
    text = page.inner_text("[data-testid=pays-dialog]")
    assert f"{desc['rtp'] * 100:.2f}%" in text  # "RTP is shown in-game"
    assert CONTACT in page.inner_text("[data-testid=operator-contact]")
    lucky = desc["lucky_stars"]
    prizes = page.inner_text("[data-testid=help-lucky]")
    for tier in ("minor", "major", "grand"):
        assert f"{tier.upper()} {credits(page, lucky[f'{tier}_x'] * BET)}" in prizes
    shot(page, "super-12-stars-help")


def test_wheel_spins_to_its_segment(sized: Any, srv: Server) -> None:
    page = sized
    register(page, srv)
    open_game(page, GID)
    force(srv, has("wheel_spun"))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    # read in the poll that sees it stopped: the wheel is shown for only 1.2 s more
    segment, result = page.wait_for_function(
        """() => { const w = document.querySelector('[data-testid=wheel]');
                   const r = document.querySelector('[data-testid=wheel-result]');
                   return w && r && w.dataset.state === 'stopped' && r.innerText
                          && [w.dataset.segment, r.innerText]; }""",
        timeout=60_000).json_value()
    shot(page, doc_name(page, "super-12-stars-wheel"), docs=True)
    rec = latest(page)
    e = next(x for x in rec["events"] if x["type"] == "wheel_spun")
    assert segment == str(e["segment"])
    assert credits(page, e["win"]) in result
    wait_round(page, n, timeout=60_000)
    assert minor(page, "win") == rec["win"]


def test_tv_draws_free_spins_and_multiplier(sized: Any, srv: Server) -> None:
    page = sized
    register(page, srv)
    open_game(page, GID)
    force(srv, has("tv_drawn", lambda e: e["multiplier"] > 1))
    n = rounds_played(page)
    # every announcement the round makes (the free spins' total screen among them)
    page.evaluate("""() => { window.__told = [];
        new MutationObserver(() => { for (const a of document.querySelectorAll('.feature-announce'))
            if (!window.__told.includes(a.innerText)) window.__told.push(a.innerText); })
          .observe(document.body, {childList: true, subtree: true}); }""")
    page.click("[data-testid=spin]")
    # Both labels read at the moment the multiplier stops: the show moves on to the free spins
    # by itself, and on a busy machine it had before the test read them one by one.
    # (and, in the same poll, whether both drums and their drawn labels are on the screen whole)
    shown = page.wait_for_function(
        "() => { const inView = " + IN_VIEW_JS + ";" + """
                   const m = document.querySelector('[data-testid=tv-multiplier]');
                   const s = document.querySelector('[data-testid=tv-spins]');
                   const whole = (d) => { const w = d.querySelector('.drum-window');
                     const hit = d.querySelector('.drum-item.hit');
                     return inView(d) && !!hit && hit.scrollWidth <= w.clientWidth + 1; };
                   const height = (q) => document.querySelector(q).getBoundingClientRect().height;
                   return m && s && m.dataset.state === 'stopped'
                          && [s.dataset.label, m.dataset.label, whole(s) && whole(m),
                              height('[data-testid=tv]'), height('[data-testid=reels]')]; }""",
        timeout=60_000).json_value()
    shot(page, doc_name(page, "super-12-stars-tv"), docs=True)
    rec = latest(page)
    tv = next(x for x in rec["events"] if x["type"] == "tv_drawn")
    *shown, panel, reels = shown
    assert shown == [str(tv["spins"]), f"×{tv['multiplier']}", True]
    if page.size_name == "desktop":  # the TV is a screen of its own over the reel window
        assert panel >= 0.95 * reels, (panel, reels)
    # The free-spin counter and the multiplier stay on screen through the free spins: both read
    # in the poll that sees the reels stopped on a free spin (the show goes on by itself, and
    # on a busy machine it had ended between two separate reads).
    counters = page.wait_for_function(
        """() => { const f = document.querySelector('[data-testid=counter-free]');
                   const m = document.querySelector('[data-testid=counter-multiplier]');
                   const r = document.querySelector('[data-testid=reels]');
                   return f && m && r && r.dataset.state === 'idle' && / of /.test(f.innerText)
                          && [f.innerText, m.innerText]; }""",
        timeout=60_000).json_value()
    free = next(x for x in rec["events"] if x["type"] == "reels_stopped" and x["stage"] == "free")
    # the counter says which free spin of how many
    assert re.search(rf"\b\d+ of {free['spins']}$", counters[0].strip()), counters
    assert counters[1].strip().endswith(f"×{tv['multiplier']}"), counters
    shot(page, doc_name(page, "super-12-stars-free-spins"), docs=True)
    quick_stop(page)  # the rest without animation
    wait_round(page, n, timeout=120_000)
    assert rounds_played(page) == n + 1
    assert reels_window(page) == last_window(rec["events"])
    assert minor(page, "win") == rec["win"]
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    # the free spins' total screen: what they won (from the first free spin on) and their multiplier
    first = rec["events"].index(free)
    paid = ("line_won", "scatter_won", "bonus_won", "wheel_spun", "super10_spun",
            "lucky_stars_ended", "frenzy_ended")
    won = sum(e["win"] for e in rec["events"][first:] if e["type"] in paid)
    told = page.evaluate("window.__told")
    assert any(t.startswith("FREE SPINS WON") and credits(page, won) in t
               and f"×{tv['multiplier']}" in t for t in told), told
    # the counters go with the round, and the message says the round, not a free spin's wins
    assert page.locator("[data-testid=counter-free]").count() == 0
    assert page.locator("[data-testid=counter-multiplier]").count() == 0
    assert "wins pay" not in page.inner_text("[data-testid=message]")


def test_super7_expands_into_a_wild_reel_and_respins(sized: Any, srv: Server) -> None:
    page = sized
    register(page, srv)
    open_game(page, GID)
    force(srv, has("super7_expanded", lambda e: e["stage"] == "base"))
    watch(page, "[data-testid=reel-2]", "class")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=reel-2].expanded", timeout=60_000)
    symbols = page.eval_on_selector_all(
        "[data-testid=reel-2] .cell[data-symbol]", "els => els.map(e => e.dataset.symbol)"
    )
    assert symbols == ["W", "W", "W"]
    shot(page, doc_name(page, "super-12-stars-super7"), docs=True)
    wait_round(page, n, timeout=60_000)
    rec = latest(page)
    respin = [e for e in rec["events"] if e["type"] == "reels_stopped" and e["respin"]]
    assert respin and respin[0]["window"][2] == ["W", "W", "W"]
    assert reels_window(page) == last_window(rec["events"])
    # once expanded, the central reel is held through the respin: it never spins again
    seen = page.evaluate("window.__seen")
    after = seen[next(i for i, c in enumerate(seen) if c and "expanded" in c) :]
    assert not any(c and "spinning" in c for c in after)
    assert minor(page, "win") == rec["win"]


@pytest.mark.parametrize("outcome", ["direct", "free_spins"])
def test_super10_reel_spins_to_its_outcome(sized: Any, srv: Server, outcome: str) -> None:
    """The drum stops on the round's outcome: a win in currency, or the free spins it gives (the
    third outcome, the Frenzy Wheel, has tests of its own below)."""
    page = sized
    register(page, srv)
    open_game(page, GID)
    force(srv, has("super10_spun", lambda e: e["outcome"] == outcome))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    # read in the poll that sees it stopped: the reel is shown for only 1.3 s more (and whether
    # the reel and its drawn label are on the screen whole)
    label, whole, width, panel, reels = page.wait_for_function(
        "() => { const inView = " + IN_VIEW_JS + ";" + """
                   const d = document.querySelector('[data-testid=super10-reel]');
                   const w = d && d.querySelector('.drum-window');
                   const hit = d && d.querySelector('.drum-item.hit');
                   const height = (s) => document.querySelector(s).getBoundingClientRect().height;
                   return d && d.dataset.state === 'stopped' && [d.dataset.label,
                          inView(d) && !!hit && hit.scrollWidth <= w.clientWidth + 1,
                          w.getBoundingClientRect().width, height('[data-testid=super10]'),
                          height('[data-testid=reels]')]; }""",
        timeout=60_000).json_value()
    name = "super-12-stars-super10" + ("" if outcome == "direct" else "-free-spins")
    shot(page, doc_name(page, name), docs=True)
    assert whole, "the Super 10 reel or its label is off the screen or cut"
    if page.size_name == "phone":  # a full screen of its own: the reel across most of it
        assert width >= 0.6 * 390, width
    else:  # a screen of its own over the reel window (it was a 180 px popup in its middle)
        assert panel >= 0.95 * reels and width >= 300, (panel, reels, width)
    rec = latest(page)
    e = next(x for x in rec["events"] if x["type"] == "super10_spun")
    assert label == (credits(page, e["win"]) if outcome == "direct" else f"{e['value']} FREE SPINS")
    if outcome == "free_spins":  # played at once, on their own reels, each counted on screen
        counter = page.wait_for_function(
            """() => { const f = document.querySelector('[data-testid=counter-free]');
                       return f && / of /.test(f.innerText) && f.innerText; }""",
            timeout=60_000).json_value()
        assert re.search(rf"\b\d+ of {e['value']}$", counter.strip()), counter
        quick_stop(page)
    wait_round(page, n, timeout=120_000)
    assert minor(page, "win") == rec["win"]


def frenzy(r: Any) -> bool:
    return r.awaiting is not None and r.awaiting.kind == "frenzy_colour"


def test_frenzy_wheel_waits_for_red_or_green(page: Any, srv: Server) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})  # README's desktop
    register(page, srv)
    open_game(page, GID)
    force(srv, frenzy)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=choice-red]", timeout=60_000)
    assert page.is_visible("[data-testid=choice-green]")
    assert page.get_attribute("[data-testid=game]", "data-state") == "choice"
    page.wait_for_timeout(800)
    open_round = api(page, "GET", "/api/rounds/open")
    assert open_round["awaiting"]["kind"] == "frenzy_colour"  # the round waits for the click
    assert not any(e["type"] == "frenzy_spun" for e in open_round["events"])
    # a feature screen of its own: the wheel nearly as tall as the reel window (a fixed 230 px
    # popup at first, then 275 px sharing the window's height with the text and buttons), its
    # rule text and choice buttons beside it, all inside the window (read once the panel's
    # entrance, a growing scale, is over)
    page.wait_for_timeout(500)
    reels = page.locator("[data-testid=reels]").bounding_box()
    wheel = page.locator("[data-testid=frenzy-wheel] svg").bounding_box()
    assert wheel["height"] >= 0.8 * reels["height"], (wheel, reels)
    assert reels["y"] <= wheel["y"] and wheel["y"] + wheel["height"] <= reels["y"] + reels["height"]
    for testid in ("choice-red", "choice-green", "frenzy-text"):
        b = page.locator(f"[data-testid={testid}]").bounding_box()
        assert reels["y"] <= b["y"] and b["y"] + b["height"] <= reels["y"] + reels["height"]
        assert wheel["x"] + wheel["width"] <= b["x"] <= b["x"] + b["width"] <= (
            reels["x"] + reels["width"]), (testid, b, wheel)
    shot(page, "super-12-stars-frenzy-choice", docs=True)
    # a reload offers the colour again
    page.reload()
    page.wait_for_selector("[data-testid=choice-red]")
    n = rounds_played(page)
    watch(page, "[data-testid=counter-frenzy]", "data-value")
    page.click("[data-testid=choice-red]")
    page.wait_for_selector("[data-testid=frenzy-wheel][data-state=stopped]", timeout=60_000)
    shot(page, "super-12-stars-frenzy-spin")
    wait_round(page, n, timeout=120_000)
    rec = latest(page)
    assert rec["choices"] == ["red"]
    end = next(e for e in rec["events"] if e["type"] == "frenzy_ended")
    # the Frenzy total was counted up to the end's, and the counter went with the round
    assert f"{end['total']}×" in page.evaluate("window.__seen")
    assert page.locator("[data-testid=counter-frenzy]").count() == 0
    assert minor(page, "win") == rec["win"]
    assert minor(page, "balance") == api(page, "GET", "/api/wallet")["balance"]
    # RECALL replays the spins of the wheel step by step
    spun = replay_step(page, "frenzy_spun")
    scope = "[data-testid=recall-dialog]"
    assert (
        page.get_attribute(f"{scope} [data-testid=frenzy-wheel]", "data-colour") == spun["colour"]
    )
    assert "Frenzy" in page.inner_text("[data-testid=replay-step]")
    shot(page, "super-12-stars-recall-frenzy")


def test_autoplay_stops_at_the_frenzy_choice(page: Any, srv: Server) -> None:
    register(page, srv)
    open_game(page, GID)
    g = srv.games[GID]
    g.force(BET, lambda r: r.win == 0 and r.awaiting is None)
    g.force(BET, frenzy)
    page.click("[data-testid=auto]")
    page.click("[data-testid=auto-rounds-10]")
    page.click("[data-testid=auto-start]")
    page.wait_for_selector("[data-testid=game][data-auto-stop]", timeout=120_000)
    assert "waits for your choice" in page.get_attribute("[data-testid=game]", "data-auto-stop")
    page.wait_for_selector("[data-testid=choice-green]")
    assert api(page, "GET", "/api/rounds/open")["awaiting"]["kind"] == "frenzy_colour"
    n = rounds_played(page)
    page.click("[data-testid=choice-green]")
    wait_round(page, n, timeout=120_000)
    assert latest(page)["choices"] == ["green"]
    assert len(api(page, "GET", "/api/history?limit=10")["rounds"]) == 2


def lucky_with_reset_and_minor(r: Any) -> bool:
    respun = [e for e in r.events if e["type"] == "lucky_stars_respun"]
    reset = any(a["counter"] < 3 and b["counter"] == 3 for a, b in pairwise(respun))
    ended = [e for e in r.events if e["type"] == "lucky_stars_ended"]
    return reset and bool(ended) and (ended[0]["minor"] > 0 or ended[0]["major"] > 0)


def test_lucky_stars_hold_stars_and_reset_the_counter(page: Any, srv: Server) -> None:
    register(page, srv)
    open_game(page, GID)
    force(srv, lucky_with_reset_and_minor)
    watch(page, "[data-testid=counter-respins]", "data-value")
    # the stars counter's last value while the round is shown (it goes with the round)
    page.evaluate("""() => new MutationObserver(() => {
            const el = document.querySelector('[data-testid=counter-stars]');
            if (el) window.__stars = el.dataset.value; })
          .observe(document.querySelector('[data-testid=game]'),
                   {attributes: true, subtree: true, childList: true})""")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=lucky-grid]:not([hidden])", timeout=60_000)
    rec = latest(page)
    events = rec["events"]
    started = next(e for e in events if e["type"] == "lucky_stars_started")
    page.wait_for_selector("[data-testid=counter-grand]")
    lucky = api(page, "GET", f"/api/games/{GID}")["lucky_stars"]
    for tier in ("minor", "major", "grand"):
        shown = page.inner_text(f"[data-testid=counter-{tier}]")
        assert shown.endswith(credits(page, lucky[f"{tier}_x"] * BET))
    shot(page, "super-12-stars-lucky-stars-start")
    wait_round(page, n, timeout=180_000)
    # every star the events placed is held with its value
    stars = started["stars"] + [
        s for e in events if e["type"] == "lucky_stars_respun" for s in e["new_stars"]
    ]
    held = page.locator("[data-testid=lucky-grid] .hold-cell.star")
    assert held.count() == len(stars)
    for s in stars:
        c, r = s["cell"]
        cell = f"[data-testid=lucky-cell-{c}-{r}]"
        assert page.get_attribute(cell, "data-value") == s["value"]
        label = page.inner_text(cell)
        assert (
            (s["value"] in label)
            if s["value"] in ("MINOR", "MAJOR")
            else credits(page, s["win"]) in label
        )
    # the counter went down and back to 3 when a new star landed
    seen = [int(v) for v in page.evaluate("window.__seen") if v is not None]
    assert any(a < 3 and b == 3 for a, b in pairwise(seen)), seen
    end = next(e for e in events if e["type"] == "lucky_stars_ended")
    assert page.evaluate("window.__stars") == str(end["stars"])
    assert page.locator("[data-testid=counter-stars]").count() == 0  # gone with the round
    assert minor(page, "win") == rec["win"]
    shot(page, "super-12-stars-lucky-stars", docs=True)
    # RECALL: the grid after the first respin that resets the counter
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-verify]:has-text('Verified')")
    respun = [(k, e) for k, e in enumerate(events) if e["type"] == "lucky_stars_respun"]
    k, e = next((k, e) for (k, e) in respun if e["new_stars"])
    for _ in range(k):
        page.click("[data-testid=replay-next]")
    scope = "[data-testid=recall-dialog] [data-testid=lucky-grid]"
    assert page.locator(f"{scope} .hold-cell.star").count() == e["stars_held"]
    respins = "[data-testid=recall-dialog] [data-testid=counter-respins]"
    assert page.get_attribute(respins, "data-value") == "3"
    shot(page, "super-12-stars-recall-lucky-stars")


def test_phone_size_frenzy_and_lucky_stars(phone: Any, srv: Server) -> None:
    register(phone, srv)
    open_game(phone, GID)
    force(srv, frenzy)
    phone.click("[data-testid=spin]")
    phone.wait_for_selector("[data-testid=choice-red]", timeout=60_000)
    for testid in ("choice-red", "choice-green"):
        b = phone.locator(f"[data-testid={testid}]").bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= 390, f"{testid} off screen"
        assert b["y"] >= 0 and b["y"] + b["height"] <= 844, f"{testid} off screen"
    # the Frenzy Wheel takes the screen above the controls, big enough to read its boxes (read
    # once the panel's entrance, a growing scale, is over)
    phone.wait_for_timeout(500)
    wheel = phone.locator("[data-testid=frenzy-wheel] svg").bounding_box()
    assert wheel["width"] >= 250 and wheel["x"] >= 0 and wheel["x"] + wheel["width"] <= 390
    assert wheel["y"] >= 0 and wheel["y"] + wheel["height"] <= 844
    spin = phone.locator("[data-testid=spin]").bounding_box()
    assert spin["y"] >= wheel["y"] + wheel["height"], "SPIN under the wheel, in view"
    shot(phone, "phone-super-12-stars-frenzy", docs=True)
    n = rounds_played(phone)
    phone.click("[data-testid=choice-green]")
    phone.wait_for_timeout(500)
    quick_stop(phone)
    wait_round(phone, n, timeout=120_000)
    force(srv, has("lucky_stars_ended"))
    n = rounds_played(phone)
    phone.click("[data-testid=spin]")
    phone.wait_for_selector("[data-testid=lucky-grid]:not([hidden])", timeout=60_000)
    quick_stop(phone)
    wait_round(phone, n, timeout=120_000)
    shot(phone, "phone-super-12-stars-lucky-stars", docs=True)
