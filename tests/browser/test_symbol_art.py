"""Symbol art of the three seed games, in Chromium against the real server.

Every symbol a game describes is laid out on reels built by the client's own Reels class (the
one the game page uses), in windows of the game's shape: each giant (1x3) symbol fills the
central reel of one window, the others fill the remaining cells. Each glyph must be a drawn
SVG (shapes, not a labelled tile: a rect and a text), named for the player by its aria-label.
A last window cuts giant blocks at the top and bottom of the window, and each cell must show
its own third of the tall drawing; a forced Super 10 in the game itself shows it whole. The
PAYS panel's glyphs are checked the same way. Sheets of each game's symbols are kept, at
desktop and phone size, in test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import shot
from .servers import Server
from .test_client import api, open_game, reels_window, register, rounds_played, wait_round
from .test_superstars import serve

pytestmark = pytest.mark.browser
SEED_GAMES = ("superstars", "super-12-stars", "crystal-star-deluxe")

# Lays the symbols out on Reels (js/reels.js) in windows of the game's shape, in a sheet over
# the page; returns, per window, its columns of symbol ids.
SHEET = """async (desc) => {
  const { Reels } = await import('/js/reels.js');
  const { installDefs } = await import('/js/symbols.js');
  installDefs();
  const syms = desc.symbols.filter((s) => s.id !== '-');
  const giants = syms.filter((s) => s.giant).map((s) => s.id);
  const others = syms.filter((s) => !s.giant).map((s) => s.id);
  const nr = desc.reels, nw = desc.rows, mid = Math.floor(nr / 2);
  const size = Math.min(110, Math.floor((innerWidth - 60) / nr));
  const free = nr * nw - (giants.length ? nw : 0);
  const count = Math.max(giants.length, Math.ceil(others.length / free));
  const windows = [];
  let k = 0;
  for (let w = 0; w < count; w++) {
    windows.push(Array.from({ length: nr }, (_, r) =>
      r === mid && giants.length ? Array(nw).fill(giants[w % giants.length])
        : Array.from({ length: nw }, () => others[k++ % others.length])));
  }
  if (giants.length && nr >= 3 && nw === 3) {
    // giant blocks cut by the window: [x, G, G] [G, G, x] [G, x, G2] [G, x, x] [x, x, G]
    const [g, g2 = giants[0]] = giants, x = others[0];
    const cut = [[x, g, g], [g, g, x], [g, x, g2], [g, x, x], [x, x, g]];
    windows.push(Array.from({ length: nr }, (_, r) => cut[r % cut.length]));
  }
  document.getElementById('art-sheet')?.remove();
  const sheet = document.createElement('div');
  sheet.id = 'art-sheet';
  sheet.setAttribute('data-testid', 'art-sheet');
  Object.assign(sheet.style, { position: 'absolute', top: '0', left: '0', width: '100%',
    zIndex: 1000, background: '#120a2a', display: 'flex', flexWrap: 'wrap', gap: '10px',
    padding: '10px', alignContent: 'flex-start', minHeight: '100vh', boxSizing: 'border-box' });
  for (const win of windows) {
    const reels = new Reels(desc, { testid: 'art-reels' });
    reels.setWindow(win);
    const cabinet = document.createElement('div');
    cabinet.className = 'cabinet';
    cabinet.style.width = `${nr * size + 32}px`;
    const stage = document.createElement('div');
    stage.className = 'stage';
    stage.append(reels.el);
    cabinet.append(stage);
    sheet.append(cabinet);
  }
  document.body.append(sheet);
  return windows;
}"""

# What every glyph on the sheet (or in a scope) shows: symbol id, aria-label, its drawn
# shapes, texts, and for a giant the third its cell shows.
GLYPHS = """(root) => [...root.querySelectorAll(':scope .cell[data-symbol], :scope .mini-glyph')]
  .map((cell) => {
    const svg = cell.querySelector('svg');
    if (!svg) return { symbol: cell.dataset.symbol ?? null, svg: false };
    const shapes = [...svg.querySelectorAll('path, polygon, polyline, circle, ellipse, rect')];
    const c = cell.getBoundingClientRect(), g = svg.getBoundingClientRect();
    return {
      symbol: cell.dataset.symbol ?? null,
      svg: true,
      role: svg.getAttribute('role'),
      label: svg.getAttribute('aria-label'),
      shapes: shapes.length,
      nonRect: shapes.filter((e) => e.tagName !== 'rect').length,
      texts: svg.querySelectorAll('text').length,
      giant: svg.classList.contains('glyph-giant'),
      part: c.height ? Math.round((c.top - g.top) / c.height) : null,
    };
  })"""


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pytest.importorskip("slotlab.server.app")
    from slotlab.games import offered_ids

    missing = [g for g in SEED_GAMES if g not in offered_ids()]
    if missing:
        pytest.skip(f"seed games not offered: {missing}")
    with serve(tmp_path_factory.mktemp("srv-art")) as s:
        yield s


def player_name(sym: dict[str, Any]) -> str:
    """The name a player reads: the server's name without remarks in brackets (which say where
    a symbol lands, for the designer), and a Crystal Star's arrow."""
    name = re.sub(r"\s*\(.*?\)\s*", " ", str(sym.get("name") or sym["id"])).strip()
    return f"{name}, arrow {sym['arrow']}" if sym.get("arrow") else name


def check_glyph(g: dict[str, Any], sym: dict[str, Any]) -> None:
    where = f"{sym['id']} ({sym.get('name')})"
    assert g["svg"] and g["role"] == "img", f"{where}: no SVG image"
    assert g["label"] == player_name(sym), f"{where}: aria-label {g['label']!r}"
    assert "(" not in g["label"], f"{where}: a designer's remark in the name"
    # drawn: at least two shapes, one of them not a rect (a labelled tile is a rect and a text)
    assert g["shapes"] >= 2 and g["nonRect"] >= 1, f"{where}: not drawn ({g})"


def sheet(page: Any, gid: str) -> tuple[dict[str, Any], list[Any], list[dict[str, Any]]]:
    desc = api(page, "GET", f"/api/games/{gid}")
    windows = page.evaluate(SHEET, desc)
    glyphs = page.eval_on_selector("[data-testid=art-sheet]", GLYPHS)
    return desc, windows, glyphs


def check_sheet(desc: dict[str, Any], windows: list[Any], glyphs: list[dict[str, Any]]) -> None:
    syms = {str(s["id"]): s for s in desc["symbols"]}
    shown = [sid for win in windows for col in win for sid in col]
    assert [g["symbol"] for g in glyphs] == shown
    drawn = {s for s in syms if s != "-"}
    assert drawn <= set(shown), f"not on the sheet: {drawn - set(shown)}"
    for g in glyphs:
        check_glyph(g, syms[g["symbol"]])
    # a giant shows its thirds in order: whole in a full column, the right thirds where cut
    giants = {s for s, d in syms.items() if d.get("giant")}
    i = 0
    for win in windows:
        for col in win:
            cells = glyphs[i : i + len(col)]
            i += len(col)
            for row, g in enumerate(cells):
                assert g["giant"] == (col[row] in giants)
                if g["giant"]:
                    assert g["part"] == expected_part(col, row, giants), (col, row, g["part"])


def expected_part(col: list[str], row: int, giants: set[str]) -> int:
    """The third of a 1x3 block a cell shows: blocks are exactly three stops long, so a run
    touching the top of the window (and shorter than three) is a block's lower end."""
    start = row
    while start > 0 and col[start - 1] in giants:
        start -= 1
    end = row
    while end + 1 < len(col) and col[end + 1] in giants:
        end += 1
    first = 3 - (end - start + 1) if start == 0 and end - start + 1 < 3 else 0
    return first + row - start


@pytest.mark.parametrize("gid", SEED_GAMES)
def test_every_symbol_is_drawn_and_named_desktop(page: Any, srv: Server, gid: str) -> None:
    register(page, srv)
    open_game(page, gid)
    # the game's own reels: every visible glyph drawn and named
    syms = {str(s["id"]): s for s in api(page, "GET", f"/api/games/{gid}")["symbols"]}
    for g in page.eval_on_selector("[data-testid=reels]", GLYPHS):
        if g["symbol"] != "-":
            check_glyph(g, syms[g["symbol"]])
    shot(page, f"symbols-{gid}-in-game")
    # the PAYS panel's glyphs too
    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog] .mini-glyph svg")
    minis = page.eval_on_selector("[data-testid=pays-dialog]", GLYPHS)
    assert minis
    for g in minis:
        assert g["svg"] and g["role"] == "img" and g["label"], g
        assert g["shapes"] >= 2 and g["nonRect"] >= 1, g
    page.click("[data-testid=dialog-close]")
    desc, windows, glyphs = sheet(page, gid)
    check_sheet(desc, windows, glyphs)
    shot(page.locator("[data-testid=art-sheet]"), f"symbols-{gid}-desktop")


@pytest.mark.parametrize("gid", SEED_GAMES)
def test_every_symbol_is_drawn_and_named_phone(phone: Any, srv: Server, gid: str) -> None:
    register(phone, srv)
    open_game(phone, gid)
    desc, windows, glyphs = sheet(phone, gid)
    check_sheet(desc, windows, glyphs)
    shot(phone.locator("[data-testid=art-sheet]"), f"symbols-{gid}-phone")


def test_a_super_10_in_view_is_one_tall_symbol(page: Any, srv: Server) -> None:
    """A forced round lands the Super 10 on the central reel: its three cells show the top,
    middle and bottom of the one drawing, on the game's own reels."""
    gid, bet, centre = "super-12-stars", 30, 2

    def super10(r: Any) -> bool:
        return any(e["type"] == "super10_spun" and e["outcome"] == "direct" for e in r.events)

    register(page, srv)
    open_game(page, gid)
    srv.games[gid].force(bet, super10, tries=400_000)
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    wait_round(page, n, timeout=120_000)
    window = reels_window(page)
    assert window[centre] == ["T10"] * 3
    glyphs = page.eval_on_selector(f"[data-testid=reels] [data-testid=reel-{centre}]", GLYPHS)
    assert [(g["symbol"], g["giant"], g["part"]) for g in glyphs] == [
        ("T10", True, 0),
        ("T10", True, 1),
        ("T10", True, 2),
    ]
    shot(page.locator("[data-testid=reels]"), "symbols-super-12-stars-super10-in-game")
