"""The live progress bar of a simulation: rounds done, rounds/s, ETA, running RTP and its 99 %
interval, fed by the runner's :class:`~slotlab.simulate.runner.RunProgress` reports."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from slotlab.simulate.runner import RunProgress

_PREFIXES = ((10**12, "T"), (10**9, "G"), (10**6, "M"), (10**3, "k"))


def short_count(n: float) -> str:
    """``1234567`` as ``1.23M``: the progress bar's counts, in the suffixes ``--spins`` takes."""
    for size, prefix in _PREFIXES:
        if n >= size:
            return f"{n / size:.3g}{prefix}"
    return f"{n:.0f}"


def rtp_text(progress: RunProgress) -> str:
    """``RTP 96.281% ±0.012% (99%)``: the running RTP and the half-width of its 99 % interval."""
    if not progress.spins_done:
        return "RTP -"
    low, high = progress.ci99
    return f"RTP {progress.rtp:.3%} ±{(high - low) / 2:.3%} (99%)"


class _RoundsColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{short_count(task.completed)}/{short_count(task.total or 0)} rounds")


class _RateColumn(ProgressColumn):
    """Rounds per second over the last half minute (rich's own estimate), resumed ones apart."""

    def render(self, task: Task) -> Text:
        speed = task.speed
        return Text("- rounds/s" if speed is None else f"{short_count(speed)} rounds/s")


class SimulationProgress:
    """``with SimulationProgress(...) as bar: simulate(..., on_progress=bar.update)``."""

    def __init__(self, description: str, console: Console, disable: bool = False) -> None:
        self.description = description
        # The figures first: on a narrow terminal the bar, then the description, make way.
        columns: list[ProgressColumn | str] = [
            _RoundsColumn(), _RateColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            TextColumn("{task.fields[rtp]}")]
        if console.width >= 100:
            columns.insert(0, TextColumn("{task.description}"))
        if console.width >= 125:
            columns.insert(1, BarColumn())
        self.progress = Progress(*columns, console=console, transient=True, disable=disable)
        self._task: TaskID | None = None

    def update(self, state: RunProgress) -> None:
        if self._task is None:  # the first report: the chunks resumed from a checkpoint
            description = self.description + (
                f" (resumed {short_count(state.spins_resumed)})" if state.spins_resumed else "")
            self._task = self.progress.add_task(description, total=state.spins_total,
                                                completed=state.spins_done, rtp=rtp_text(state))
        else:
            self.progress.update(self._task, completed=state.spins_done, rtp=rtp_text(state))

    def __enter__(self) -> SimulationProgress:
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.progress.stop()
