"""The C program of the whole-command benchmark plays the very game `slotlab simulate` plays: the
same figures for the same seed (no timing asserted)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from slotlab.cli import app

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_simulate_vs_c.py"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the C program")


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_simulate_vs_c", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("level", "threads"), [(1, 2), (2, 1)])
def test_the_c_program_gives_slotlabs_figures(bench: ModuleType, tmp_path: Path, level: int,
                                              threads: int) -> None:
    model = "fruit-5x3"  # 5x3, 30 lines, wild x2, scatter, free spins x3 with retriggers
    exe = bench.build_c(model, tmp_path)
    spins, seed, chunk = 300_000, 7, 70_000  # a last chunk shorter than the others
    c = subprocess.run([str(exe), str(spins), str(seed), str(threads), str(chunk), str(level)],
                       check=True, capture_output=True, text=True).stdout
    bet = json.loads(c)["bet"]
    result = CliRunner().invoke(app, ["simulate", model, "--spins", str(spins), "--seed",
                                      str(seed), "--chunk-spins", str(chunk), "--bet", str(bet),
                                      "--json"])
    assert result.exit_code == 0, result.output
    slotlab = bench.figures_slotlab(result.stdout)
    assert bench.figures_c(c) == slotlab
    assert slotlab["feature_rate"] > 0 and slotlab["max_win"] > 0  # free spins were played
