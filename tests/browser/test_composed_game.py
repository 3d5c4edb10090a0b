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

from .conftest import shot
from .servers import Server
from .test_client import (
    api,
    last_window,
    minor,
    money,
    open_game,
    reels_window,
    register,
    rounds_played,
    wait_round,
)
from .test_languages import close_dialog
from .test_superstars import serve
from .test_symbol_art import check_sheet, sheet

pytestmark = pytest.mark.browser
GID = "lucky-coin-link"
BET = 20  # credits: the smallest bet, where the page starts


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pytest.importorskip("slotlab.server.app")
    with serve(tmp_path_factory.mktemp("srv-composed")) as s:
        yield s


@pytest.fixture
def page(sized: Any) -> Any:
    """This module's tests run at desktop, then at phone size."""
    return sized


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
    # the model names its hold and win; the client says that name, not its generic one
    assert "Free spins ×3" in help_text and "Coin Link" in help_text
    assert "Hold & Win" not in help_text
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
    # The picture once every starting coin is on the grid (they are laid one by one after
    # the feature's intro): as many coins drawn as the Held counter says.
    page.wait_for_function(
        """() => { const g = document.querySelector('[data-testid=hold-grid]');
                   const held = document.querySelector('[data-testid=counter-held]');
                   if (!g || g.hidden || !held) return false;
                   const n = parseInt(held.dataset.value, 10);
                   return n > 0 && g.querySelectorAll('.hold-cell.held').length >= n; }""",
        timeout=120_000)
    page.wait_for_timeout(700)  # the last coin's landing flash
    shot(page, f"lucky-coin-link-hold-and-win-{page.size_name}", docs=True)
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
    # every banner shown in the round (the free spins' intro and total screens among them)
    page.evaluate("""() => { window.__banners = []; new MutationObserver(() => {
        const b = document.querySelector('[data-testid=bigwin]');
        const text = b && !b.hidden ? b.innerText.replace(/\\s+/g, ' ').trim() : '';
        if (text && text !== window.__banners.at(-1)) window.__banners.push(text); })
        .observe(document.body, {attributes: true, subtree: true, childList: true}); }""")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    # Read in the poll that sees the wheel stopped: it stays on screen for about a second.
    seen = page.wait_for_function(
        """() => { const w = document.querySelector('[data-testid=feature-wheel]');
                   if (!(w && w.dataset.state === 'stopped' && w.dataset.segment)) return null;
                   const labels = [...w.querySelectorAll('.wheel-label')];
                   return {segment: w.dataset.segment,
                           lengths: labels.map((e) => e.getComputedTextLength()),
                           wheel: w.querySelector('svg').getBoundingClientRect().width,
                           reels: document.querySelector('[data-testid=reels]')
                                    .getBoundingClientRect().width}; }""",
        timeout=120_000).json_value()
    shot(page, f"lucky-coin-link-wheel-{page.size_name}", docs=True)
    segment = seen["segment"]
    # each segment's label lies whole between the hub (r 16) and the pointer's tip (r 88),
    # centred at 54, and the wheel is drawn large: half the reel window's width at least
    lengths = seen["lengths"]
    assert lengths and all(0 < x <= 2 * (88 - 54) for x in lengths), lengths
    assert seen["wheel"] >= 0.4 * seen["reels"], seen
    counter = page.wait_for_function(
        """() => { const f = document.querySelector('[data-testid=free-spins]');
                   return f && !f.hidden && /×\\d/.test(f.innerText) && f.innerText; }""",
        timeout=120_000).json_value()
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=reels] .reel.spinning')", timeout=60_000)
    shot(page, f"lucky-coin-link-free-spins-{page.size_name}", docs=True)
    rec = finish(page, n)
    spun = next(e for e in rec["events"] if e["type"] == "wheel_spun")
    assert segment == str(spun["segment"])
    assert f"×{spun['multiplier']}" in counter
    # the intro names the spins won and their multiplier; the total screen ends them
    won = next(e for e in rec["events"] if e["type"] == "free_spins_triggered")
    banners = page.evaluate("window.__banners")
    intro = f"{won['awarded']} FREE SPINS! ALL WINS ×{won['multiplier']}"
    assert intro in banners, banners
    assert any(b.startswith("FREE SPINS WON") for b in banners[banners.index(intro):]), banners


ROYALS = {"A", "K", "Q", "J", "10"}

# Per coin value on the reels (or coin in the hold-and-win grid): its text, font size, whether
# it lies wholly inside its cell, and its cell's drawing (an SVG of shapes, not lettering).
COIN_VALUES = """(sel) => [...document.querySelectorAll(sel)].map((v) => {
    const cell = v.closest('.cell, .hold-cell'), b = v.getBoundingClientRect(),
          c = cell.getBoundingClientRect(), art = cell.querySelector('svg');
    return { testid: v.dataset.testid || cell.dataset.testid, text: v.innerText.trim(),
             px: parseFloat(getComputedStyle(v).fontSize),
             inside: b.left >= c.left - 0.5 && b.right <= c.right + 0.5
                     && b.top >= c.top - 0.5 && b.bottom <= c.bottom + 0.5,
             artShapes: art ? art.querySelectorAll('circle, path, polygon, ellipse').length : 0 };
  })"""


def test_every_symbol_is_a_picture(page: Any, srv: Server) -> None:
    """A game described by its model file alone still draws its symbols: each picture symbol
    (not a card royal, not the Wild's lettering) a drawing with no lettering on it, each one
    different, none a tile with the name written on it; named for screen readers."""
    register(page, srv)
    open_game(page, GID)
    desc, windows, glyphs = sheet(page, GID)
    check_sheet(desc, windows, glyphs)
    syms = {str(s["id"]): s for s in desc["symbols"]}
    for g in glyphs:
        sym = syms[g["symbol"]]
        if sym["name"] in ROYALS or sym.get("wild") or sym.get("scatter"):
            continue  # lettering is how these are painted (a royal, WILD, SCATTER)
        assert g["texts"] == 0, f"{sym['name']}: lettering instead of a picture ({g})"
        assert g["nonRect"] >= 6, f"{sym['name']}: barely drawn ({g})"
    drawings = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        '[data-testid=art-sheet] .cell[data-symbol]')].map((c) => [c.dataset.symbol,
        c.querySelector('svg').innerHTML]))""")
    assert len(set(drawings.values())) == len(drawings), "two symbols share a drawing"
    assert not any("medallion" in d for d in drawings.values()), "a name instead of a picture"
    shot(page.locator("[data-testid=art-sheet]"), f"symbols-{GID}-{page.size_name}")


def test_coin_values_are_legible_on_the_reels_and_in_the_grid(page: Any, srv: Server) -> None:
    """Every Coin in view shows its value (or its jackpot's name) on its face, in type of at
    least 13 px, wholly inside its cell, at desktop and phone size; the hold-and-win grid draws
    its Coins the same way."""
    register(page, srv)
    open_game(page, GID)
    srv.games[GID].force(BET, lambda r: has("coins_shown", lambda e: len(e["coins"]) >= 3)(r)
                         and has("hold_and_win_started")(r) and not has("wheel_spun")(r))
    # the reels' coin values as they are first drawn (the grid covers them later)
    page.evaluate("() => { window.__coinValues = " + COIN_VALUES + """;
        window.__coins = null; new MutationObserver(() => {
        if (!window.__coins && document.querySelector('[data-testid=reels] .coin-value'))
            window.__coins = window.__coinValues('[data-testid=reels] .coin-value'); })
        .observe(document.body, {childList: true, subtree: true}); }""")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_function(
        """() => { const g = document.querySelector('[data-testid=hold-grid]');
                   return g && !g.hidden && g.querySelector('.hold-cell.held .hc-label'); }""",
        timeout=120_000)
    shot(page, f"lucky-coin-link-coins-{page.size_name}")
    grid = page.evaluate(COIN_VALUES, "[data-testid=hold-grid] .hold-cell.coin .hc-label")
    rec = finish(page, n)
    shown = next(e for e in rec["events"] if e["type"] == "coins_shown")
    want = {f"coin-value-{c['cell'][0]}-{c['cell'][1]}":
            (c["jackpot"].upper() if c.get("jackpot") else money(c["value"]))
            for c in shown["coins"]}
    on_reels = page.evaluate("window.__coins")
    assert {v["testid"]: v["text"].upper() for v in on_reels} == {
        k: v.upper() for k, v in want.items()}
    assert grid
    for v in on_reels + grid:
        assert v["px"] >= 13, f"coin value in {v['px']} px type: {v}"
        assert v["inside"], f"coin value spills out of its cell: {v}"
        assert v["artShapes"] >= 5, f"a coin without its drawing: {v}"


def test_a_jackpot_has_its_screen_and_nothing_outlives_the_round(page: Any, srv: Server) -> None:
    """A Coin Link that holds a jackpot Coin names the jackpot and its amount on a screen of its
    own, then shows the feature's total; when the round is over the grid, its counters and the
    screens are gone."""
    register(page, srv)
    open_game(page, GID)
    srv.games[GID].force(BET, lambda r: has("hold_and_win_ended", lambda e: bool(e["jackpots"]))(r)
                         and not has("wheel_spun")(r), tries=400_000)
    # each screen is an element of its own: two alike in a row (two Mini coins) are two
    page.evaluate("""() => { window.__screens = []; const seen = new WeakSet();
        new MutationObserver(() => {
        for (const a of document.querySelectorAll('[data-testid=feature-announce]')) {
            const text = a.innerText.replace(/\\s+/g, ' ').trim();
            if (text && !seen.has(a)) { seen.add(a); window.__screens.push(text); } } })
        .observe(document.body, {subtree: true, childList: true}); }""")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=feature-announce]:has-text('JACKPOT')", timeout=240_000)
    page.wait_for_timeout(350)  # the picture once the screen's entrance (a 0.3 s pop) is over
    shot(page, f"lucky-coin-link-jackpot-{page.size_name}", docs=True)
    rec = finish(page, n)
    coins = [c for e in rec["events"] if e["type"] in ("hold_and_win_started", "respin_landed")
             for c in e["coins"] if c.get("jackpot")]
    ended = next(e for e in rec["events"] if e["type"] == "hold_and_win_ended")
    screens = page.evaluate("window.__screens")
    want = [f"{c['jackpot'].upper()} JACKPOT {money(c['value'])}" for c in coins]
    want.append(f"COIN LINK WON {money(ended['win'])}")  # the feature by the model's name
    assert [s for s in screens if "JACKPOT" in s or "COIN LINK WON" in s] == want, screens
    page.wait_for_selector("[data-testid=hold-grid]", state="hidden")
    assert page.locator("[data-testid=feature-announce]").count() == 0
    assert page.locator("[data-testid^=counter-]:visible").count() == 0


def test_any_model_symbol_gets_art_by_its_name(page: Any, srv: Server) -> None:
    """The generic set goes by a symbol's name, not by a game: animals and emblems of other
    names are pictures too, and a name with no picture is written whole on a medallion (not
    cut to four letters)."""
    register(page, srv)
    drawn = page.evaluate("""async () => {
        const { glyph } = await import('/js/symbols.js');
        const names = ['Golden Phoenix', 'White Tiger', 'Goldfish', 'Red Lantern', 'Gold Ingot',
                       'Lucky Coins', 'Mystery Box'];
        return names.map((name) => { const d = document.createElement('div');
            d.innerHTML = glyph({ id: name.toUpperCase().slice(0, 4), name });
            const svg = d.querySelector('svg');
            return { name, texts: [...svg.querySelectorAll('text')].map((t) => t.textContent),
                     shapes: svg.querySelectorAll('path, polygon, circle, ellipse').length }; });
    }""")
    pictures, named = drawn[:-1], drawn[-1]
    for g in pictures:
        assert g["texts"] == [] and g["shapes"] >= 4, g
    assert named["texts"] == ["MYSTERY BOX"], named
