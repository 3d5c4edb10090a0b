"""The PAR sheet's HTML in a real Chromium (Debian's, through Playwright): every section and
table renders with the figures of par.json, the plots load, and nothing is fetched from a
network (the file opens offline)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from slotlab.games import find_game
from slotlab.simulate.par import write_par
from slotlab.simulate.par.html import SECTIONS

SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("game_id", ["super-12-stars", "crystal-star-deluxe"])
def test_par_html_renders_offline_with_the_json_figures(browser: Any, tmp_path: Path,
                                                         game_id: str) -> None:
    game = find_game(game_id)
    paths = write_par(game, game_id, tmp_path, game.bets()[0], 20_000, seed=5,
                      sample_rounds=5_000, sessions=500)
    figures = json.loads(paths["json"].read_text())
    html = paths["html"].read_text()
    assert "<script" not in html and "http://" not in html and "https://" not in html

    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, offline=True)
    requests: list[str] = []
    ctx.on("request", lambda r: requests.append(r.url))
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(paths["html"].as_uri())
    page.wait_for_load_state("load")

    for sid, heading in SECTIONS:
        section = page.locator(f"section#{sid}")
        assert section.count() == 1, sid
        assert section.locator("h2").inner_text() == heading
        assert section.is_visible()
    banner = page.locator("#checks").inner_text()
    assert "99% interval" in banner and "higher bets" in banner

    images = page.evaluate("""() => [...document.images].map(i => ({
        id: i.closest('figure').id, ok: i.complete && i.naturalWidth > 0,
        w: i.naturalWidth, src: i.src.slice(0, 22)}))""")
    assert {i["id"] for i in images} == {"plot-convergence", "plot-win-distribution",
                                         "plot-rtp-share", "plot-feature-wins",
                                         "plot-session-broke", "plot-session-results"}
    assert all(i["ok"] and i["w"] >= 400 and i["src"] == "data:image/png;base64,"
               for i in images), images

    shown = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
        'table[data-table]')].map(t => [t.dataset.table, {
          head: [...t.tHead.rows[0].cells].map(c => c.textContent),
          rows: [...t.tBodies[0].rows].map(r => [...r.cells].map(c => JSON.parse(c.dataset.value)))
        }]))""")
    assert list(shown) == [t["id"] for t in sorted(
        figures["tables"], key=lambda t: [s for s, _ in SECTIONS].index(t["section"]))]
    for t in figures["tables"]:
        assert shown[t["id"]] == {"head": t["columns"], "rows": t["rows"]}, t["id"]
    rtp_cell = page.locator("table[data-table=summary] tbody tr").first.locator("td").nth(2)
    assert rtp_cell.inner_text() == f"{figures['simulation']['rtp']:,.6g}"

    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"par-{game_id}.png"), full_page=False)
    ctx.close()
    assert not errors
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
