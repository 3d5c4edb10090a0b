"""Checkpoints: a run killed (SIGKILL, Ctrl-C) resumes from its file, and the resumed result equals
an uninterrupted run's in every figure but the timings; a checkpoint of another job is refused."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import find_game
from slotlab.simulate.checkpoint import Checkpoint, CheckpointError, JobIdentity
from slotlab.simulate.runner import RunProgress, simulate

SLOTLAB = [sys.executable, "-m", "slotlab.cli"]
GAME, BET, SEED = "fruit-5x3", 30, 5
CHUNK = 1 << 18
SPINS = 40 * CHUNK  # 40 chunks: a few seconds on two busy cores, long enough to stop midway
# What may differ between an interrupted-then-resumed run and an uninterrupted one.
TIMINGS = {"seconds", "spins_per_second", "resumed_chunks", "backend", "workers"}
# the command adds the exact RTP (a composed game's, estimated) beside the simulation
COMMAND_ONLY = {"exact_rtp", "composed_rtp"}
# Digests of the source tree: they change when anyone edits the checkout between two runs.
SOURCE = {"code_version", "simulation_code"}


def _figures(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in TIMINGS | COMMAND_ONLY | SOURCE}


@pytest.fixture(scope="module")
def uninterrupted() -> dict[str, Any]:
    """The run without any interruption, in this process, on one worker."""
    return simulate(find_game(GAME), GAME, BET, SPINS, seed=SEED, chunk_spins=CHUNK).to_json()


def _command(checkpoint: Path) -> list[str]:
    return [*SLOTLAB, "simulate", GAME, "--spins", str(SPINS), "--chunk-spins", str(CHUNK),
            "--seed", str(SEED), "--bet", str(BET), "--workers", "2", "--checkpoint",
            str(checkpoint), "--json"]


def _chunk_lines(checkpoint: Path) -> int:
    if not checkpoint.exists():
        return 0
    return max(0, checkpoint.read_bytes().count(b"\n") - 1)  # less the header


def _stop_midway(checkpoint: Path, sig: int, group: bool) -> subprocess.CompletedProcess[str]:
    """Start the command, send ``sig`` once 3 chunks are on disk, and wait for it to end; every
    process it started (its workers too) must be gone within 10 s."""
    proc = subprocess.Popen(_command(checkpoint), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _chunk_lines(checkpoint) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run wrote no checkpoint"
            time.sleep(0.005)
        if group:  # a terminal's Ctrl-C reaches the process and its workers
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        assert _chunk_lines(checkpoint) < 40, "the run ended before the signal"
        gone_by = time.monotonic() + 10
        while time.monotonic() < gone_by:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail("worker processes outlived the run")
        return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


def _resume(checkpoint: Path) -> dict[str, Any]:
    done = subprocess.run(_command(checkpoint), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_sigkilled_run_resumes_to_the_uninterrupted_result(tmp_path, uninterrupted):
    checkpoint = tmp_path / "run.ckpt"
    killed = _stop_midway(checkpoint, signal.SIGKILL, group=False)
    assert killed.returncode == -signal.SIGKILL
    kept = _chunk_lines(checkpoint)
    resumed = _resume(checkpoint)
    assert resumed["resumed_chunks"] == kept >= 3  # every complete line (a torn one has no \n)
    assert _figures(resumed) == _figures(uninterrupted)
    assert _chunk_lines(checkpoint) == 40


def test_ctrl_c_says_what_is_kept_and_the_run_resumes(tmp_path, uninterrupted):
    checkpoint = tmp_path / "run.ckpt"
    stopped = _stop_midway(checkpoint, signal.SIGINT, group=True)
    assert stopped.returncode == 130, stopped.stderr
    kept = _chunk_lines(checkpoint)
    assert f"interrupted: {kept} of 40 chunks are in {checkpoint}" in " ".join(
        stopped.stderr.split())
    assert "Traceback" not in stopped.stderr
    resumed = _resume(checkpoint)
    assert resumed["resumed_chunks"] == kept
    assert _figures(resumed) == _figures(uninterrupted)


def _small_run(path: Path, seed: int = 1, **kw: Any) -> dict[str, Any]:
    game = find_game("classic-3x3")
    return simulate(game, "classic-3x3", 5, 50_000, seed=seed, chunk_spins=10_000,
                    checkpoint=path, **kw).to_json()


def test_every_reported_chunk_is_already_on_disk(tmp_path):
    path = tmp_path / "run.ckpt"
    seen: list[tuple[int, int]] = []

    def on_progress(state: RunProgress) -> None:
        seen.append((state.chunks_done, _chunk_lines(path)))

    _small_run(path, on_progress=on_progress)
    assert seen == [(n, n) for n in range(6)]  # the start, then each of the 5 chunks


def test_a_finished_checkpoint_gives_the_result_again_without_running(tmp_path):
    path = tmp_path / "run.ckpt"
    first = _small_run(path)
    again = _small_run(path)
    assert again["resumed_chunks"] == again["chunks"] == 5
    assert _figures(again) == _figures(first)


def test_a_torn_last_line_is_dropped_and_the_chunk_run_again(tmp_path):
    whole = _small_run(tmp_path / "whole.ckpt")
    path = tmp_path / "run.ckpt"
    lines = (tmp_path / "whole.ckpt").read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:3]) + lines[3][:25])  # header, 2 chunks, a cut-off third
    resumed = _small_run(path)
    assert resumed["resumed_chunks"] == 2
    assert _figures(resumed) == _figures(whole)
    assert all(json.loads(line) for line in path.read_text().splitlines())


@pytest.mark.parametrize(("change", "says"), [
    ({"seed": 2}, "seed 1 there, 2 here"),
    ({"spins": 60_000}, "spins 50000 there, 60000 here"),
    ({"chunk_spins": 5_000}, "chunk_spins 10000 there, 5000 here"),
    ({"bet": 10}, "bet 5 there, 10 here"),
])
def test_a_checkpoint_of_another_job_is_refused(tmp_path, change, says):
    path = tmp_path / "run.ckpt"
    _small_run(path)
    before = path.read_bytes()
    args = {"seed": 1, "spins": 50_000, "chunk_spins": 10_000, "bet": 5} | change
    with pytest.raises(CheckpointError, match=says):
        simulate(find_game("classic-3x3"), "classic-3x3", args["bet"], args["spins"],
                 seed=args["seed"], chunk_spins=args["chunk_spins"], checkpoint=path)
    assert path.read_bytes() == before  # nothing lost


def test_another_models_checkpoint_is_refused_by_the_command(tmp_path):
    path = tmp_path / "run.ckpt"
    runner = CliRunner()
    first = runner.invoke(app, ["simulate", "classic-3x3", "--spins", "20k", "--checkpoint",
                                str(path), "--json"])
    assert first.exit_code == 0, first.output
    other = runner.invoke(app, ["simulate", "fruit-5x3", "--spins", "20k", "--checkpoint",
                                str(path), "--json"])
    assert other.exit_code == 2
    said = " ".join(other.output.split())  # rich wraps at the terminal's width
    classic, fruit = (find_game(g).model_hash[:12] for g in ("classic-3x3", "fruit-5x3"))
    assert f"is of another job (model_hash {classic} there, {fruit} here; bet 5 there, 30 here)" \
        in said
    assert "Traceback" not in other.output


def test_a_checkpoint_in_use_by_a_run_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    job = JobIdentity(model_hash="m", simulation_code="c", bet=1, seed=0, spins=10,
                      chunk_spins=5)
    with Checkpoint(path, job), pytest.raises(CheckpointError, match="in use by another run"):
        Checkpoint(path, job)


def test_a_damaged_checkpoint_is_refused_not_overwritten(tmp_path):
    path = tmp_path / "run.ckpt"
    _small_run(path)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(lines[0] + "not json\n" + "".join(lines[1:]))
    with pytest.raises(CheckpointError, match="line 2 is not a chunk"):
        _small_run(path)
    path.write_text("hello\n")
    with pytest.raises(CheckpointError, match="is not a slotlab checkpoint"):
        _small_run(path)
    assert path.read_text() == "hello\n"
