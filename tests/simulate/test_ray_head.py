"""`slotlab simulate --ray HOST:PORT` against a head started as an operator starts one:
`ray start --head --port=...` in its own process, with Ray's default token authentication.

Ray sends its token only to a cluster it finds by itself (``auto``), so an explicit address needs
``RAY_AUTH_MODE=token``: without it the command fails in one line that says so, with it the
result is the local run's for the seed. The head runs in a process group of its own (``--block``)
with its own home and temporary folders, on a free port, and the group is ended at the end, so
no other Ray instance on the machine is touched. Cost: about 20-40 s (the head's start).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

START_S = 120
RUN_ONLY = {"seconds", "spins_per_second", "backend", "workers", "code_version"}
SLOTLAB = [sys.executable, "-m", "slotlab.cli"]
JOB = ["simulate", "classic-3x3", "--spins", "3M", "--seed", "5", "--json"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def head() -> Iterator[tuple[str, dict[str, str]]]:
    root = Path(tempfile.mkdtemp(prefix="rayh-", dir="/tmp"))  # short: Ray's sockets live here
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    # Its token file lands in root/.ray; the compiled kernels stay where they are.
    env.update(HOME=str(root), RAY_TMPDIR=str(root),
               XDG_CACHE_HOME=os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")))
    # A token on the machine turns token authentication on for the head (Ray's ray.init() of a
    # local instance leaves one behind: that is how an operator meets this case).
    (root / ".ray").mkdir()
    (root / ".ray" / "auth_token").write_text(secrets.token_hex(32))
    port = _free_port()
    ray_cli = Path(sys.executable).with_name("ray")
    proc = subprocess.Popen(
        [str(ray_cli), "start", "--head", "--block", f"--port={port}",
         "--node-ip-address=127.0.0.1", "--num-cpus=2", "--include-dashboard=false",
         "--disable-usage-stats", f"--temp-dir={root / 'ray'}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + START_S
        while not _answers(port):
            assert proc.poll() is None, "ray start --head exited"
            assert time.monotonic() < deadline, f"the Ray head did not listen within {START_S} s"
            time.sleep(0.5)
        yield f"127.0.0.1:{port}", env
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # the head and every Ray process it started
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(root, ignore_errors=True)


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SLOTLAB, *args], env=env, capture_output=True, text=True,
                          timeout=240, check=False)


def _figures(out: str) -> dict[str, Any]:
    data = json.loads(out[out.index("{"):])
    return {k: v for k, v in data.items() if k not in RUN_ONLY}


def test_an_explicit_address_without_the_token_mode_fails_in_one_line_that_says_what_to_set(
        head: tuple[str, dict[str, str]]) -> None:
    address, env = head
    done = _run([*JOB, "--ray", address], env)
    assert done.returncode == 2
    error = [line for line in done.stdout.splitlines() if line.startswith("error:")]
    assert len(error) == 1, done.stdout
    assert f"cannot join the Ray cluster at {address}" in error[0]
    assert "RAY_AUTH_MODE=token" in error[0]


def test_an_explicit_address_with_the_token_mode_gives_the_local_result(
        head: tuple[str, dict[str, str]]) -> None:
    address, env = head
    on_ray = _run([*JOB, "--ray", address], {**env, "RAY_AUTH_MODE": "token"})
    assert on_ray.returncode == 0, on_ray.stdout[-2000:] + on_ray.stderr[-2000:]
    assert json.loads(on_ray.stdout[on_ray.stdout.index("{"):])["backend"] == "ray"
    local = _run(JOB, env)
    assert local.returncode == 0, local.stderr[-2000:]
    assert _figures(on_ray.stdout) == _figures(local.stdout)
