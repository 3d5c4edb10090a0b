"""The server works with no internet (its API docs included) and says at start-up what it is."""

from __future__ import annotations

import logging
import re

import httpx
import pytest


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_api_docs_load_their_scripts_from_the_server_itself(server, page: str) -> None:
    html = httpx.get(server.url + page).text
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert assets, html
    for url in assets:
        assert not url.startswith(("http://", "https://", "//")), url
        assert httpx.get(server.url + url).status_code == 200, url


def test_start_up_log_names_version_database_and_games(make_server, caplog) -> None:
    with caplog.at_level(logging.INFO, logger="slotlab.server"):
        srv = make_server()
    lines = [r.getMessage() for r in caplog.records if r.name == "slotlab.server"]
    assert "a first start compiles their kernels" in lines[0]  # said before the long wait
    line = next(m for m in lines if "games: " in m)
    assert "slotlab " in line and "games: " in line
    assert "pick-test (" in line  # each game with its model hash
    assert srv.settings.database_url.split("://")[0] in line
