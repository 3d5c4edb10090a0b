"""Checkpoints: a simulation's finished chunks kept on disk as they complete, so that a run stopped
by Ctrl-C, ``kill -9`` or a lost machine resumes where it stopped.

The file is JSON Lines: a header naming the job, then one line per finished chunk with its
running sums. The header is written to a temporary file and renamed into place; each chunk line is
appended and fsynced before the chunk counts as done. A crash can therefore leave at most a torn
last line, which reading drops. Chunks are keyed by index and merged in index order, so a resumed
run's figures are those of an uninterrupted one.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import numpy as np

from slotlab.simulate.stats import ACC_SIZE, ACC_SPINS

FORMAT = "slotlab-simulation-checkpoint/1"

Chunk = tuple[np.ndarray, np.ndarray]


class CheckpointError(ValueError):
    """A checkpoint that cannot be used for this job; the message says why in one line."""


@dataclass(frozen=True)
class JobIdentity:
    """What fixes a simulation's figures: a checkpoint resumes only the job it was written for.

    ``simulation_code`` is the digest of the code that computes the figures (the random streams,
    mechanics, games and the runner); an edit elsewhere (server, CLI) does not change a result and
    does not refuse a resume.
    """

    model_hash: str
    simulation_code: str
    bet: int
    seed: int
    spins: int
    chunk_spins: int


class Checkpoint:
    """An open checkpoint file: the chunks it holds, and :meth:`add` for each one finished."""

    def __init__(self, path: Path, job: JobIdentity, info: dict[str, Any] | None = None) -> None:
        self.path = path
        self.job = job
        self.chunks: dict[int, Chunk] = {}
        if not path.exists():
            self._create(info or {})
        self._file: IO[str] = path.open("r+", encoding="utf-8")
        try:
            self._lock()
            good_bytes = self._read()
        except BaseException:
            self._file.close()
            raise
        self._file.truncate(good_bytes)  # drop a torn last line before appending
        self._file.seek(good_bytes)

    def add(self, index: int, chunk: Chunk) -> None:
        """Record a finished chunk; on return it is on disk."""
        acc, sq = chunk
        line = {"chunk": index, "acc": [int(x) for x in acc], "sq": [float(x) for x in sq]}
        self._file.write(json.dumps(line) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self.chunks[index] = chunk

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not on POSIX: no guard against two runs sharing a file
            return
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise CheckpointError(f"checkpoint {self.path} is in use by another run") from exc

    def _create(self, info: dict[str, Any]) -> None:
        header = {"format": FORMAT, "job": asdict(self.job), **info}
        temporary = self.path.with_name(self.path.name + ".tmp")
        with temporary.open("w", encoding="utf-8") as out:
            out.write(json.dumps(header) + "\n")
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)  # the rename itself survives a lost machine
        finally:
            os.close(directory)

    def _read(self) -> int:
        """Load the header and chunks; returns the length of the file's complete lines."""
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        complete = lines[:-1]  # the part after the last newline is torn (or empty)
        if not complete:
            raise CheckpointError(f"{self.path} is not a slotlab checkpoint (no header line)")
        self._check_header(complete[0])
        good = len(complete[0]) + 1
        for number, raw in enumerate(complete[1:], start=2):
            try:
                index, chunk = self._parse_chunk(raw)
            except (ValueError, KeyError, TypeError) as exc:
                if number == len(complete):  # a last line cut short by a crash
                    break
                raise CheckpointError(f"{self.path} line {number} is not a chunk: {exc}") from exc
            self.chunks.setdefault(index, chunk)
            good += len(raw) + 1
        return good

    def _check_header(self, raw: bytes) -> None:
        try:
            header = json.loads(raw)
            theirs = header["job"]
            assert header["format"] == FORMAT
        except (ValueError, KeyError, TypeError, AssertionError) as exc:
            raise CheckpointError(f"{self.path} is not a slotlab checkpoint") from exc
        ours = asdict(self.job)
        differ = [f"{key} {_short(theirs.get(key))} there, {_short(value)} here"
                  for key, value in ours.items() if theirs.get(key) != value]
        if differ:
            raise CheckpointError(f"checkpoint {self.path} is of another job "
                                  f"({'; '.join(differ)}); give another --checkpoint file or "
                                  "delete this one")

    def _parse_chunk(self, raw: bytes) -> tuple[int, Chunk]:
        line = json.loads(raw)
        index = int(line["chunk"])
        acc = np.array(line["acc"], dtype=np.int64)
        sq = np.array(line["sq"], dtype=np.float64)
        plan_chunks = -(-self.job.spins // self.job.chunk_spins)
        expected = min(self.job.chunk_spins, self.job.spins - index * self.job.chunk_spins)
        if not 0 <= index < plan_chunks or acc.shape != (ACC_SIZE,) or sq.shape != (1,):
            raise ValueError(f"chunk {index} does not fit the job")
        if acc[ACC_SPINS] != expected:
            raise ValueError(f"chunk {index} holds {acc[ACC_SPINS]} spins, not {expected}")
        return index, (acc, sq)


def _short(value: object) -> str:
    """A job field for a message: digests cut to 12 characters, as elsewhere in slotlab."""
    return value[:12] if isinstance(value, str) else repr(value)


def chunks_kept(path: Path) -> int:
    """How many finished chunks a checkpoint file holds (its complete lines but the header)."""
    if not path.exists():
        return 0
    return max(0, path.read_bytes().count(b"\n") - 1)
