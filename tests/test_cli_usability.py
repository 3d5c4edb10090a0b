"""What a newcomer meets first: errors in one plain line, ids never cut, missing files named."""

from __future__ import annotations

from typer.testing import CliRunner

from slotlab.cli import app
from slotlab.games import game_ids

runner = CliRunner()


def test_a_missing_model_file_is_said_not_to_exist() -> None:
    result = runner.invoke(app, ["rtp", "no/such/mine.json"])
    assert result.exit_code == 2
    assert "model file 'no/such/mine.json' does not exist" in result.output
    result = runner.invoke(app, ["rtp", "mine.json"])
    assert "does not exist" in result.output


def test_an_unknown_id_lists_the_known_games() -> None:
    result = runner.invoke(app, ["rtp", "no-such-game"])
    assert result.exit_code == 2
    assert "unknown game 'no-such-game'" in result.output and "fruit-5x3" in result.output


def test_a_bad_option_value_is_one_plain_line_not_a_panel() -> None:
    result = runner.invoke(app, ["simulate", "fruit-5x3", "--spins", "-5"])
    assert result.exit_code == 2
    assert "Invalid value for '--spins'" in result.output
    assert not any(c in result.output for c in "╭╰│")


def test_games_never_cuts_an_id_on_a_narrow_terminal() -> None:
    result = runner.invoke(app, ["games"], env={"COLUMNS": "60"})
    assert result.exit_code == 0, result.output
    for gid in game_ids():
        assert gid in result.output


def test_an_exact_rtp_over_100_percent_is_warned(tmp_path) -> None:
    import json
    from pathlib import Path

    model = json.loads((Path(__file__).parent.parent / "examples/models/fruit-5x3.json")
                       .read_text())
    model["pays"] = {s: {n: p * 10 for n, p in pays.items()} for s, pays in model["pays"].items()}
    path = tmp_path / "generous.json"
    path.write_text(json.dumps(model))
    result = runner.invoke(app, ["rtp", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert "over 100%" in result.output
    fair = runner.invoke(app, ["rtp", "fruit-5x3", "--json"])
    assert "over 100%" not in fair.output
