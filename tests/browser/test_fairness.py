"""RECALL with provably fair seeds: the commitment shown before play, the export of a round, NEW
SEEDS revealing the server seed, and the downloaded export verified by ``slotlab verify``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slotlab.verify import verify

from .servers import Server, running
from .test_client import api, open_game, register, spin

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def fair_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("srv-fair"), provably_fair=True) as srv:
        yield srv


def test_recall_exports_a_round_that_verifies_alone(page: Any, fair_server: Any,
                                                    tmp_path: Path) -> None:
    register(page, fair_server)
    open_game(page, "crystal-star-deluxe")
    page.click("[data-testid=recall]")
    commitment = api(page, "GET", "/api/fairness")["active"]["commitment"]
    page.wait_for_selector(f"[data-testid=fairness]:has-text('{commitment}')")  # before play
    page.keyboard.press("Escape")
    spin(page)
    page.click("[data-testid=recall]")
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=fairness-round]:has-text('NEW SEEDS')")
    assert commitment in page.inner_text("[data-testid=fairness-round]")
    page.click("[data-testid=fairness-rotate]")
    # Revealed once the panel is drawn again without its NEW SEEDS button (both of its texts
    # say "revealed": the one before rotating, that the seed is revealed when seeds change).
    page.wait_for_selector("[data-testid=fairness-rotate]", state="detached")
    page.wait_for_selector("[data-testid=fairness-round]:has-text('slotlab verify')")
    with page.expect_download() as download:
        page.click("[data-testid=fairness-export]")
    path = tmp_path / "round.json"
    download.value.save_as(path)
    data: dict[str, Any] = json.loads(path.read_text())
    assert data["fairness"]["commitment"] == commitment and data["fairness"]["server_seed"]
    assert verify(data)[-1].startswith("win ")
