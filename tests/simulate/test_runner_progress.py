"""The runner's progress reports and the live bar drawn from them."""

from __future__ import annotations

import io
import math

import pytest
from rich.console import Console

from slotlab.games import find_game
from slotlab.simulate.progress import SimulationProgress, rtp_text, short_count
from slotlab.simulate.runner import RunProgress, simulate


def test_reports_count_up_to_the_result_and_its_interval():
    seen: list[RunProgress] = []
    result = simulate(find_game("fruit-5x3"), "fruit-5x3", 30, 100_000, seed=2, workers=2,
                      chunk_spins=10_000, on_progress=seen.append)
    assert [s.chunks_done for s in seen] == list(range(11))  # the start, then every chunk
    assert [s.spins_done for s in seen] == [10_000 * n for n in range(11)]
    last = seen[-1]
    assert last.total_win == result.total_win and last.rtp == result.rtp
    assert all(math.isclose(a, b) for a, b in zip(last.ci99, result.ci99, strict=True))


@pytest.mark.parametrize("width", [160, 80])
def test_the_bar_shows_rounds_rate_eta_and_the_running_rtp(width: int) -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=width)
    bar = SimulationProgress("simulating fruit-5x3", console)
    with bar:
        simulate(find_game("fruit-5x3"), "fruit-5x3", 30, 200_000, seed=2,
                 chunk_spins=20_000, on_progress=bar.update)
        console.print(bar.progress.make_tasks_table(bar.progress.tasks))
    shown = out.getvalue()
    for part in ("200k/200k rounds", "rounds/s", "ETA", "RTP ", "% (99%)"):
        assert part in shown, shown  # whole, not cut, on an 80-column terminal too
    assert ("simulating fruit-5x3" in shown) == (width >= 100)


def test_texts():
    assert [short_count(n) for n in (999, 1000, 1_500_000, 2e9, 3.2e12)] == [
        "999", "1k", "1.5M", "2G", "3.2T"]
    state = RunProgress(bet=10, spins_total=100, spins_done=100, spins_resumed=0,
                        chunks_total=1, chunks_done=1, chunks_rerun=0, total_win=950,
                        sum_sq=200.0)
    # mean 0.95, sd sqrt(2 - 0.9025) = 1.0476, half-width 2.5758 * 1.0476 / 10 = 0.2699
    assert rtp_text(state) == "RTP 95.000% ±26.985% (99%)"
