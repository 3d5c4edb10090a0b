"""The password pool: argon2 work on a few threads of its own, at a lower CPU priority, with a
bounded number of logins admitted at once, so that logins can neither take the workers that
play rounds nor queue without end (a flood from many addresses gets 503 ``login_busy``)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

from slotlab.server.ratelimit import Refused


def _yield_to_rounds() -> None:
    """Password threads run at a lower CPU priority (Linux sets it per thread): when the cores
    are short, rounds go first and logins wait."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


class PasswordPool(ThreadPoolExecutor):
    def __init__(self, threads: int, backlog: int) -> None:
        super().__init__(threads, "slotlab-password", initializer=_yield_to_rounds)
        self.backlog = backlog
        self._admitted = 0
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def admitted(self) -> Iterator[None]:
        """One login or registration in progress; 503 ``login_busy`` (retry in a second) when
        ``backlog`` of them are. Entered before a login counts its guess, so a busy answer costs
        the player nothing."""
        with self._lock:
            if self._admitted >= self.backlog:
                raise Refused(503, "login_busy", "too many logins at once; retry in a second", 1)
            self._admitted += 1
        try:
            yield
        finally:
            with self._lock:
                self._admitted -= 1
