"""Imported before any test module: slotlab first, so that numba, whenever a test imports it,
caches its kernels in the folder keyed on the package's source (see slotlab/__init__.py), never
beside the sources where a kernel could keep the old code of a module it inlined.

The one Chromium of a test process lives here too (the browser tests and the PAR sheet's): a
second Playwright started in the process would take the first one's event loop with it when it
stops, and every later browser test of that process would fail with "connection closed"."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import slotlab  # noqa: F401

CHROMIUM = os.environ.get("SLOTLAB_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, driven by Playwright, for every test of this process that needs one."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    # Playwright's sync API refuses to start where an event loop is marked running. No loop runs
    # while a plain test runs, but one left marked by an earlier test of this process would
    # stop it: clear the stale mark.
    with contextlib.suppress(RuntimeError):
        asyncio.get_running_loop()
        asyncio.events._set_running_loop(None)
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
