"""``slotlab compile``: every kernel compiled once into numba's cache, then only loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.kernel_cache import families


def _compile(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # Its own process and cache folder: the suite's processes have their kernels loaded already.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), NUMBA_DEBUG_CACHE="1")
    return subprocess.run([sys.executable, "-m", "slotlab.cli", "compile", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_games_sharing_a_class_are_one_family() -> None:
    assert families(["crystal-star-deluxe", "classic-3x3", "fruit-5x3"]) == [
        ["crystal-star-deluxe"], ["classic-3x3", "fruit-5x3"]]


def test_compile_fills_the_cache_and_a_second_run_only_loads(tmp_path: Path) -> None:
    first = _compile(tmp_path, "crystal-star-deluxe", "--jobs", "1")
    assert first.returncode == 0, first.stderr
    assert "crystal-star-deluxe (round):" in first.stdout
    assert "[cache] data saved to" in first.stdout
    assert list(tmp_path.rglob("*.nbi")), "nothing was written to the cache folder"

    again = _compile(tmp_path, "crystal-star-deluxe")
    assert again.returncode == 0, again.stderr
    assert "[cache] data loaded from" in again.stdout
    assert "[cache] data saved to" not in again.stdout  # nothing compiled the second time


def test_an_unknown_game_is_a_usage_error_before_anything_compiles() -> None:
    result = CliRunner().invoke(app, ["compile", "crystal-star-deluxe", "no-such-game"])
    assert result.exit_code == 2
    assert "no-such-game" in result.output
