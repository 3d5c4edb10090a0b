"""The password pools: argon2 work on a few threads of their own, at a lower CPU priority, with
a bounded number of requests admitted at once, so that logins can neither take the workers that
play rounds nor queue without end. Logins and registrations have a pool each: a flood of one
never refuses the other (503 ``login_busy`` or ``registration_busy`` when a pool is full)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from slotlab.server.ratelimit import Refused

T = TypeVar("T")
_EMA_WEIGHT = 0.2  # of the newest check in the typical check time


def _yield_to_rounds() -> None:
    """Password threads run at a lower CPU priority (Linux sets it per thread): when the cores
    are short, rounds go first and logins wait."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)


class PasswordPool(ThreadPoolExecutor):
    def __init__(self, threads: int, backlog: int, busy_code: str = "login_busy",
                 what: str = "logins") -> None:
        super().__init__(threads, "slotlab-password", initializer=_yield_to_rounds)
        self.backlog = backlog
        self.busy_code = busy_code
        self.what = what
        self._admitted = 0
        self._lock = threading.Lock()
        self._typical_s: float | None = None

    def _enter(self, refuse: bool) -> None:
        with self._lock:
            if refuse and self._admitted >= self.backlog:
                raise self._busy()
            self._admitted += 1

    def _leave(self) -> None:
        with self._lock:
            self._admitted -= 1

    def check_room(self) -> None:
        """503 (retry in a second) when ``backlog`` requests are at their password work; asked
        before a login counts its guess, so a busy answer costs the player nothing."""
        with self._lock:
            if self._admitted >= self.backlog:
                raise self._busy()

    def _busy(self) -> Refused:
        return Refused(503, self.busy_code, f"too many {self.what} at once; retry in a second", 1)

    @contextlib.contextmanager
    def admitted(self) -> Iterator[None]:
        """One request in progress; 503 when ``backlog`` of them are."""
        self._enter(refuse=True)
        try:
            yield
        finally:
            self._leave()

    @contextlib.contextmanager
    def occupied(self) -> Iterator[None]:
        """A login that found room (:meth:`check_room`), at its password work: counted, never
        refused."""
        self._enter(refuse=False)
        try:
            yield
        finally:
            self._leave()

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        """``fn(*args)`` on the pool's threads; how long it took, queue included, goes into
        :attr:`typical_s`."""
        started = time.perf_counter()
        result = await asyncio.get_running_loop().run_in_executor(self, fn, *args)
        took = time.perf_counter() - started
        with self._lock:
            last = self._typical_s
            self._typical_s = took if last is None else last + _EMA_WEIGHT * (took - last)
        return result

    @property
    def in_progress(self) -> int:
        return self._admitted

    @property
    def typical_s(self) -> float | None:
        """How long a password check takes here lately (None: none was made yet)."""
        return self._typical_s
