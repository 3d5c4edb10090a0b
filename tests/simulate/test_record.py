"""A simulation record: written and read back the same, refused when malformed or when made on
another model than the game plays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from slotlab.cli import app
from slotlab.simulate import record as records

HASH = "a" * 64


def run_output(**changes: Any) -> dict[str, Any]:
    """The fields of ``slotlab simulate --json`` a record keeps."""
    data: dict[str, Any] = {
        "game": "g", "model_hash": HASH, "seed": 7, "spins": 2_000_000_000, "bet": 30,
        "rtp": 0.9628, "ci99": [0.9625, 0.9631], "exact_rtp": 0.96282, "hit_rate": 0.36,
        "max_win_x": 890.07, "max_win_count": 1, "code_version": "v", "simulation_code": "c"}
    return {**data, **changes}


class FakeGame:
    id = "g"
    model_hash = HASH


def test_written_and_read_back_the_same(tmp_path: Path) -> None:
    rec = records.from_run(run_output(), "slotlab simulate g --spins 2000000000 --record")
    path = records.write(rec, tmp_path / records.RECORD_NAME)
    back = records.read(path, HASH)
    assert back == rec
    assert back.rtp_ci99 == (0.9625, 0.9631) and back.command.endswith("--record")
    assert back.max_win_one_in == 2_000_000_000 and back.max_win_x == 890.07
    assert back.max_win_text() == "890.1x (1 in 2,000,000,000)"
    shown = back.shown()
    assert shown["text"] == "890.1x (1 in 2,000,000,000)" and shown["one_in"] == 2_000_000_000


def test_the_largest_wins_and_the_level_they_bound_are_kept(tmp_path: Path) -> None:
    level = {"one_in": 2e9, "order": 5, "at_least_x": 610.0, "confidence": 0.99634}
    rec = records.from_run(run_output(top_wins_x=[890.07, 700.0, 650.5, 640.0, 610.0, 600.0],
                                      one_in_spins_level=level), "c")
    back = records.read(records.write(rec, tmp_path / records.RECORD_NAME), HASH)
    assert back.top_wins_x[0] == back.max_win_x and back.level_at_least_x == 610.0
    assert back.level_text() == (
        "the 1-in-2,000,000,000 win level is at least 610.0x (99.6% confidence: the run's 5th "
        "largest win; no run of this length bounds it from above)")
    assert back.shown()["level_at_least_x"] == 610.0
    assert back.shown()["level_text"] == back.level_text()
    assert records.from_run(run_output(), "c").level_text() is None  # an older record's


def test_odds_count_every_time_the_largest_win_was_reached(tmp_path: Path) -> None:
    rec = records.from_run(run_output(max_win_count=4), "c")
    assert rec.max_win_one_in == 500_000_000
    assert rec.max_win_text() == "890.1x (1 in 500,000,000)"


def test_a_record_made_on_another_model_is_refused(tmp_path: Path) -> None:
    path = records.write(records.from_run(run_output(), "c"), tmp_path / records.RECORD_NAME)
    with pytest.raises(records.RecordError, match="recorded on model aaaaaaaaaaaa"):
        records.read(path, "b" * 64)


def test_a_malformed_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / records.RECORD_NAME
    good = records.from_run(run_output(), "c").model_dump(mode="json")
    for bad in ({**good, "model_hash": "short"}, {**good, "max_win_count": 0},
                {k: v for k, v in good.items() if k != "rtp"}, {**good, "extra": 1},
                {**good, "format": "other/1"}):
        path.write_text(json.dumps(bad))
        with pytest.raises(records.RecordError, match="not a simulation record"):
            records.read(path)
    path.write_text("{")
    with pytest.raises(records.RecordError):
        records.read(path)
    with pytest.raises(records.RecordError):
        records.read(tmp_path / "missing.json")


def test_a_run_that_never_won_has_nothing_to_record() -> None:
    with pytest.raises(records.RecordError, match="no round won"):
        records.from_run(run_output(max_win_count=0), "c")


def test_a_game_shows_only_a_record_of_its_own_model(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / records.RECORD_NAME
    monkeypatch.setattr(records, "record_path", lambda game: path)
    assert records.record_for(FakeGame()) is None  # no record shipped
    records.write(records.from_run(run_output(), "c"), path)
    assert records.record_for(FakeGame()) == records.read(path)
    records.write(records.from_run(run_output(model_hash="b" * 64), "c"), path)
    assert records.record_for(FakeGame()) is None  # another model's record is never shown
    records.write(records.from_run(run_output(game="other"), "c"), path)
    assert records.record_for(FakeGame()) is None  # nor another game's


def test_simulate_record_writes_the_run_stamped_with_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    path = tmp_path / records.RECORD_NAME
    monkeypatch.setattr(records, "record_path", lambda game: path)
    runner = CliRunner()
    done = runner.invoke(app, ["simulate", "crystal-star-deluxe", "--spins", "20000", "--seed",
                               "3", "--record", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout[done.stdout.index("{"):])
    rec = records.read(path, data["model_hash"])
    assert rec.command == ("slotlab simulate crystal-star-deluxe --spins 20000 --seed 3 "
                           "--workers 1 --record")
    assert (rec.spins, rec.seed, rec.rtp, rec.max_win_x) == (20000, 3, data["rtp"],
                                                             data["max_win_x"])
    # a model file is not the game's shipped model: its run is not the game's record
    from slotlab.games.crystal_star_deluxe.model import model_path

    path.unlink()
    refused = runner.invoke(app, ["simulate", str(model_path()), "--spins", "10", "--record"])
    assert refused.exit_code == 2 and "--record needs a game id" in refused.output
    assert not path.exists()
