"""The slotlab command, run as a user would (through typer's runner)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from slotlab.cli import app

runner = CliRunner()


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_games_lists_every_game_with_its_version():
    games = json.loads(run("games", "--json"))
    ids = {g["id"] for g in games}
    assert {"fruit-5x3", "classic-3x3"} <= ids
    fruit = next(g for g in games if g["id"] == "fruit-5x3")
    assert fruit["grid"] == "5x3" and fruit["lines"] == 30 and len(fruit["model_hash"]) == 64


def test_play_is_the_same_for_the_same_inputs_byte_for_byte():
    first = run("play", "fruit-5x3", "--bet", "60", "--seed", "42", "--json")
    assert first == run("play", "fruit-5x3", "--bet", "60", "--seed", "42", "--json")
    assert first != run("play", "fruit-5x3", "--bet", "60", "--seed", "43", "--json")
    result = json.loads(first)
    assert result["bet"] == 60 and result["events"][0]["type"] == "reels_stopped"


def test_play_with_choices_continues_the_round():
    # find a seed whose round offers the gamble, then collect it
    for seed in range(200):
        first = json.loads(run("play", "classic-3x3", "--seed", str(seed), "--json"))
        if first["awaiting"]:
            break
    done = json.loads(run("play", "classic-3x3", "--seed", str(seed), "--choice", "collect",
                          "--json"))
    assert done["awaiting"] is None and done["win"] == first["win"]


def test_play_rejects_a_bad_bet_or_seed_with_a_clear_message():
    result = runner.invoke(app, ["play", "fruit-5x3", "--bet", "31", "--seed", "1"])
    assert result.exit_code == 2 and "not allowed" in result.output
    result = runner.invoke(app, ["play", "fruit-5x3", "--seed", "xyz"])
    assert result.exit_code == 2 and "seed" in result.output
    result = runner.invoke(app, ["play", "no-such-game", "--seed", "1"])
    assert result.exit_code == 2 and "unknown game" in result.output


def test_rtp_json_has_the_documented_keys():
    report = json.loads(run("rtp", "fruit-5x3", "--json"))
    for key in ("model_hash", "rtp", "rtp_fraction", "hit_rate", "sd", "max_win", "seconds",
                "spins", "components", "tables"):
        assert key in report
    num, den = map(int, report["rtp_fraction"].split("/"))
    assert abs(num / den - report["rtp"]) < 1e-12
    assert "RTP split" in run("rtp", "classic-3x3")


def test_simulate_json_is_reproducible_and_has_the_documented_keys():
    args = ("simulate", "classic-3x3", "--spins", "20000", "--seed", "5", "--json")
    a = json.loads(run(*args))
    b = json.loads(run(*args))
    for key in ("model_hash", "rtp", "ci99", "spins", "hit_rate", "sd", "max_win", "seconds",
                "spins_per_second", "volatility_index_90", "feature_rate"):
        assert key in a
    assert a["spins"] == 20000 and a["rtp"] == b["rtp"] and a["ci99"][0] < a["rtp"] < a["ci99"][1]


def test_simulate_labels_a_composed_rtp_estimated_and_an_exact_one_exact():
    # Superstars' RTP is composed (its Bonus Game's part simulated): never called exact
    composed = run("simulate", "superstars", "--spins", "20000", "--seed", "5")
    assert "composed rtp (estimated)" in composed and "exact rtp" not in composed
    assert "exact rtp" in run("simulate", "classic-3x3", "--spins", "20000", "--seed", "5")
    # and so in JSON: composed_rtp, never exact_rtp
    data = json.loads(run("simulate", "superstars", "--spins", "20000", "--seed", "5", "--json"))
    assert "composed_rtp" in data and "exact_rtp" not in data
    data = json.loads(run("simulate", "classic-3x3", "--spins", "20000", "--seed", "5", "--json"))
    assert "exact_rtp" in data and "composed_rtp" not in data


def test_rng_dump_writes_exactly_the_bytes_asked(tmp_path):
    out = tmp_path / "raw.bin"
    run("rng", "dump", "--bytes", "1001", "--seed", "9", "--out", str(out))
    data = out.read_bytes()
    assert len(data) == 1001
    run("rng", "dump", "--bytes", "1001", "--seed", "9", "--kind", "xoshiro", "--out", str(out))
    assert out.read_bytes() != data


def test_a_bad_model_file_is_reported(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "slotlab.lines/1"}')
    result = runner.invoke(app, ["rtp", str(bad)])
    assert result.exit_code == 2 and "invalid model" in result.output


def test_simulate_freezes_the_heap_before_its_report() -> None:
    # the collections at exit then skip numba's objects; the figures are those of a run before
    import gc

    gc.unfreeze()
    try:
        data = json.loads(run("simulate", "classic-3x3", "--spins", "20000", "--seed", "5",
                              "--json"))
        assert gc.get_freeze_count() > 0 and data["spins"] == 20000
    finally:
        gc.unfreeze()
