"""The maintenance sweeper thread: a server that stops waits for a sweep under way.

Closing the database under a running sweep cuts it off mid-transaction; a test dropping its
schema meanwhile waited on the sweep's open transaction while the sweep's next statement waited
behind the drop, for ever (seen on PostgreSQL)."""

from __future__ import annotations

import threading
import time
from typing import Any

from slotlab.server.services import maintenance


def test_a_server_stopping_waits_for_the_sweep_under_way(make_server, monkeypatch) -> None:
    swept = threading.Event()  # a sweep began on the sweeper's thread (start-up sweeps too)
    ended: list[str] = []

    def slow_sweep(ctx: Any) -> dict[str, int]:
        here = threading.current_thread().name
        if here == "slotlab-sweeper":
            swept.set()
            time.sleep(1.0)
        with ctx.db.write():  # the database is still open: the stop waited
            ended.append(here)
        return {}

    monkeypatch.setattr(maintenance, "sweep", slow_sweep)
    srv = make_server(maintenance_interval_s=0.05)
    assert swept.wait(60), "the sweeper never swept"
    srv.__exit__()
    assert "slotlab-sweeper" in ended, "the server stopped before its sweep ended"
