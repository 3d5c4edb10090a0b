"""Counts as people write them (``--spins 2e9``, ``2_000_000_000``, ``2G``), and the one-line error
for anything else."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.counts import CountError, parse_count


@pytest.mark.parametrize(("text", "value"), [
    ("2e9", 2_000_000_000), ("2_000_000_000", 2_000_000_000), ("2G", 2_000_000_000),
    ("2g", 2_000_000_000), ("500M", 500_000_000), ("10k", 10_000), ("1.5M", 1_500_000),
    ("2.5e3", 2500), ("1T", 10**12), ("7", 7), (" 42 ", 42), ("1E6", 1_000_000),
])
def test_a_count_in_any_usual_spelling(text: str, value: int) -> None:
    assert parse_count(text) == value


@pytest.mark.parametrize(("text", "says"), [
    ("2x", "is not a count"), ("-5", "is not a count"), ("", "is not a count"),
    ("2__0", "is not a count"), ("_2", "is not a count"), ("2e-3", "is not a count"),
    ("nan", "is not a count"), ("1.5", "is not a whole number"), ("0", "is not a positive"),
    ("1.0001k", "is not a whole number"),
])
def test_anything_else_is_refused_saying_why(text: str, says: str) -> None:
    with pytest.raises(CountError, match=says):
        parse_count(text)


def test_simulate_takes_a_count_and_refuses_a_bad_one_in_one_line() -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["simulate", "classic-3x3", "--spins", "10k", "--chunk-spins",
                               "4_000", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    assert data["spins"] == 10_000 and data["chunks"] == 3 and data["chunk_spins"] == 4000
    bad = runner.invoke(app, ["simulate", "classic-3x3", "--spins", "2x"])
    assert bad.exit_code == 2
    error = [line for line in bad.output.splitlines() if line.startswith("Error")]
    assert error == ["Error: Invalid value for '--spins': '2x' is not a count; write e.g. "
                     "2000000000, 2_000_000_000, 2e9 or 2G (k, M, G, T: thousand, million, "
                     "billion, trillion)"]


def test_every_count_option_takes_the_same_spellings(tmp_path) -> None:
    runner = CliRunner()
    out = tmp_path / "raw.bin"
    done = runner.invoke(app, ["rng", "dump", "--bytes", "1k", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert out.stat().st_size == 1000
    few = runner.invoke(app, ["rtp", "superstars", "--bonuses", "5"])
    assert few.exit_code == 2 and "'--bonuses': 5 is less than 1,000" in few.output
    bad = runner.invoke(app, ["rtp", "superstars", "--bonuses", "lots"])
    assert bad.exit_code == 2 and "'lots' is not a count" in bad.output
