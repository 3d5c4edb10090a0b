"""The server benchmark and its C load generator, in short runs on SQLite (no timing asserted)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_server.py"
LEVEL_FIELDS = {"concurrency", "rounds", "requests", "seconds", "rounds_per_s", "p50_ms",
                "p90_ms", "p99_ms", "max_ms", "mean_ms", "errors", "status_counts",
                "server_cpu_ms_per_round", "client_cpu_ms_per_round", "machine_cpu_busy",
                "load_average"}

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the load generator")


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_server", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def server(bench: ModuleType, tmp_path: Path) -> Iterator[int]:
    proc, port = bench.start_server(f"sqlite:///{tmp_path / 'bench.db'}", "crystal-star-deluxe")
    yield port
    bench.stop_server(proc)


def test_benchmark_writes_every_field_with_rounds_played(tmp_path: Path) -> None:
    out = tmp_path / "server.json"
    subprocess.run([sys.executable, str(SCRIPT), "--seconds", "2", "--levels", "2", "--no-pg",
                    "--warmup", "0", "--out", str(out)], check=True, cwd=tmp_path, timeout=600)
    data = json.loads(out.read_text())
    assert data["client"] == "benchmarks/c/loadgen.c"
    assert len(data["machine"]["load_average_at_start"]) == 3
    sync = data["machine"]["fsync_ms"]  # the disk's, which durable commits wait for
    assert 0 < sync["p50"] <= sync["p90"] <= sync["max"]
    (result,) = data["results"]
    assert result["backend"] == "sqlite" and result["game"] == "crystal-star-deluxe"
    (level,) = result["levels"]
    assert set(level) >= LEVEL_FIELDS
    assert level["concurrency"] == 2
    assert level["rounds"] > 0
    assert level["status_counts"] == {"201": level["rounds"]}
    assert level["errors"] == 0
    assert level["server_cpu_ms_per_round"] > 0


def test_loadgen_plays_one_round_per_request_and_counts_refusals(
        bench: ModuleType, server: int, tmp_path: Path) -> None:
    """A good token's requests each make a round of their own (unique keys); a bad one's are
    counted as 401s, not as rounds."""
    (token,) = bench.register(server, 1)
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{token}\nnot-a-token\n")
    info = httpx.get(f"http://127.0.0.1:{server}/api/games/crystal-star-deluxe").json()
    body = json.dumps({"bet": max(info["bets"])})
    exe = bench.build_loadgen(tmp_path)
    row: dict[str, Any] = bench.c_level(exe, server, tokens,
                                        "/api/games/crystal-star-deluxe/rounds", body, 2, 1.0)
    counts = row["status_counts"]
    assert set(counts) == {"201", "401"}
    assert row["rounds"] == counts["201"] > 0
    assert row["requests"] == counts["201"] + counts["401"]
    assert row["incomplete"] == row["disconnects"] == row["unanswered"] == 0
    history = httpx.get(f"http://127.0.0.1:{server}/api/history", params={"limit": 1000},
                        headers={"Authorization": f"Bearer {token}"}).json()["rounds"]
    assert row["rounds"] < 1000, "more rounds than one history page shows"
    assert len(history) == row["rounds"]
    assert all(r["status"] == "completed" and r["bet"] == max(info["bets"]) for r in history)


def test_loadgen_refuses_too_few_tokens(bench: ModuleType, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("only-one\n")
    exe = bench.build_loadgen(tmp_path)
    r = subprocess.run([str(exe), "127.0.0.1", "1", "/", "{}", str(tokens), "2", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "has 1 tokens, 2 connections need one each" in r.stderr
