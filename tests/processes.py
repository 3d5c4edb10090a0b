"""Processes a test starts (a game server, the reference operator, a proxy, Prometheus): started
with their output in a file, awaited until they answer, stopped.

Their output goes to a file, never to a pipe: a pipe nobody reads while the process runs fills
at 64 KiB, and the process then stalls on its next log line, a test's hang that shows up only
when a run logs more than usual (a loaded machine's warnings)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import httpx
import pytest

# A server's start-up, polled: a cold kernel cache compiles its games first (minutes on a
# loaded machine); a process that fails to start fails the test at once with its output.
START_S = 240


def start(argv: Sequence[str], log: Path, env: Mapping[str, str] | None = None,
          cwd: Path | None = None, stdout: Path | None = None) -> subprocess.Popen[bytes]:
    """``argv`` started, its stdout and stderr written to ``log`` (its stdout to ``stdout``
    instead, where a test reads what it prints apart from its logs)."""
    with log.open("ab") as err, (stdout or log).open("ab") as out:  # the child has its copies
        return subprocess.Popen(list(argv), env=env, cwd=cwd, stdout=out, stderr=err)


def output(log: Path) -> str:
    """The end of a process's output, for a failure's message."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return text[-20_000:]


def answered(response: httpx.Response) -> bool:
    return response.status_code == 200


def wait_until_answers(proc: subprocess.Popen[bytes], url: str, log: Path,
                       ready: Callable[[httpx.Response], bool] = answered,
                       within_s: float = START_S) -> None:
    """Poll ``GET url`` until ``proc`` answers it as ``ready`` wants (by default 200); fail
    with its output if it exits first, or (killing it) if it takes longer than ``within_s``."""
    deadline = time.monotonic() + within_s
    while True:
        if proc.poll() is not None:
            pytest.fail(f"{url}: the process exited ({proc.returncode}) before it answered:\n"
                        f"{output(log)}")
        try:
            if ready(httpx.get(url, timeout=5)):
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            kill(proc)
            pytest.fail(f"{url}: no answer within {within_s} s:\n{output(log)}")
        time.sleep(0.1)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """A process a test started, stopped as Ctrl-C stops it (killed after 30 s)."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def kill(proc: subprocess.Popen[bytes]) -> None:
    """A process a test started, killed as a crash kills it (SIGKILL: nothing runs after)."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
