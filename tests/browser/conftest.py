"""Fixtures for the browser tests: the real server (in a thread) and Debian's Chromium."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .servers import Server, running

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
# A page's default wait (a selector, a click): CI runs on a loaded machine have taken more than
# 30 s to show the lobby after a registration; a test's explicit waits say their own.
PAGE_WAIT_MS = 90_000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The real server with the default (mt) profile: autoplay and quick stop allowed."""
    pytest.importorskip("slotlab.server.app")
    with running(tmp_path_factory.mktemp("srv")) as srv:
        yield srv


@pytest.fixture(scope="module")
def gb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The gb profile (no autoplay, no quick stop, 2.5 s cycle); open rounds expire after 2 s."""
    pytest.importorskip("slotlab.server.app")
    with running(
        tmp_path_factory.mktemp("srv-gb"),
        jurisdiction="gb",
        min_round_interval_ms=2500,
        auto_complete_after_s=2,
        maintenance_interval_s=1,
    ) as srv:
        yield srv


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(PAGE_WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.js_errors = errors  # type: ignore[attr-defined]
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    pg = ctx.new_page()
    pg.set_default_timeout(PAGE_WAIT_MS)
    yield pg
    ctx.close()


def checked_page(browser: Any, options: dict[str, Any]) -> Iterator[Any]:
    """A page in a new context with ``options`` (``yield from`` it in a fixture); JavaScript
    errors on it fail the test."""
    ctx = browser.new_context(**options)
    pg = ctx.new_page()
    pg.set_default_timeout(PAGE_WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=list(SIZES))
def sized(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A checked page at desktop, then at phone size (a touch screen at twice the pixels);
    ``page.size_name`` says which."""
    phone = request.param == "phone"
    options = {"viewport": SIZES[request.param], "is_mobile": phone, "has_touch": phone,
               "device_scale_factor": 2 if phone else 1}
    for pg in checked_page(browser, options):
        pg.size_name = request.param
        yield pg


def doc_name(page: Any, name: str) -> str:
    """A README picture's name at a ``sized`` page's size (the phone's start with "phone-")."""
    return name if page.size_name == "desktop" else f"phone-{name}"


IN_VIEW_JS = """(e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
           && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5; }"""


def in_view(page: Any, selector: str, *, whole_text: bool = False) -> None:
    """Every element ``selector`` names is on the screen whole (its box inside the viewport);
    with ``whole_text``, none cuts its text off (no overflow hidden past its edge)."""
    els = page.locator(selector).all()
    assert els, f"{selector}: not on the page"
    for el in els:
        assert el.evaluate(IN_VIEW_JS), (selector, el.bounding_box(), page.viewport_size)
        if whole_text:
            assert el.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), (
                f"{selector}: its text is cut: {el.inner_text()!r}")


def shot(page: Any, name: str, *, docs: bool = False) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    # The README's pictures are refreshed on request only, so a test run leaves the tree clean.
    if docs and os.environ.get("SLOTLAB_UPDATE_DOC_IMAGES") == "1":
        dest = ROOT / "docs" / "images"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / f"{name}.png")
    return path


def unique(prefix: str = "p") -> str:
    return f"{prefix}{time.time_ns() % 10**12}"


_VISIBLE_TEXTS = """([root, skip]) => {
  const out = [];
  const walk = document.createTreeWalker(document.querySelector(root), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const t = n.textContent.trim();
    const el = n.parentElement;
    if (!t || !el || el.closest(skip)) continue;
    if (el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) out.push(t);
  }
  return out;
}"""


def api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """Call the API from the page with the player's token; mutating calls carry a key."""
    res = page.evaluate(
        """async ([m, p, b, key]) => {
            const t = JSON.parse(localStorage.getItem('slotlab.token'));
            const headers = {Authorization: 'Bearer ' + t, 'Content-Type': 'application/json'};
            if (m !== 'GET') headers['Idempotency-Key'] = key;
            const r = await fetch(p, {method: m, body: b ? JSON.stringify(b) : undefined, headers});
            return {status: r.status, body: r.status === 204 ? null : await r.json()};
        }""",
        [method, path, body, os.urandom(8).hex()],
    )
    assert res["status"] < 300, res
    return res["body"]


def visible_texts(page: Any, root: str = "body", skip: str = "svg") -> list[str]:
    """The texts a player sees under ``root``, leaving out those inside ``skip``."""
    texts: list[str] = page.evaluate(_VISIBLE_TEXTS, [root, skip])
    return texts
