"""'The maximum potential prize achieved during a simulation of 2,000 million games was 888.3
times the bet, with an occurrence probability of 1:2000000000. RTP is calculated by simulating
2,000 million spins': the game ships such a run, made on its own model, and shows it."""

from __future__ import annotations

from slotlab.games import find_game
from slotlab.simulate.record import read, record_for, record_path

PUBLISHED_MAX_X = 888.3
SPINS = 2_000_000_000


def test_the_shipped_record_is_a_2000_million_game_run_of_the_shipped_model() -> None:
    game = find_game("super-12-stars")
    rec = read(record_path(game), game.model_hash)  # refused if made on another model
    assert rec.game == game.id and rec.spins == SPINS
    assert rec.command.startswith("slotlab simulate super-12-stars --spins 2000000000 ")
    assert rec.command.endswith(" --record") and f"--seed {rec.seed}" in rec.command
    # Exact and simulated agree: the exact RTP inside the run's 99 % interval.
    exact = game.theoretical_rtp()
    assert rec.exact_rtp == exact
    low, high = rec.rtp_ci99
    assert low <= exact <= high


def test_its_largest_win_is_near_the_published_one_at_the_published_odds() -> None:
    """The model's top has the published shape: the 1-in-2e9 win within 5 % of 888.3x (v1's
    reached 1,588x), reached once in the 2,000 million rounds."""
    rec = record_for(find_game("super-12-stars"))
    assert rec is not None
    assert abs(rec.max_win_x - PUBLISHED_MAX_X) <= 0.05 * PUBLISHED_MAX_X
    assert rec.max_win_count == 1 and rec.max_win_one_in == SPINS


def test_the_published_largest_win_is_consistent_with_the_models_1_in_2e9_level() -> None:
    """The record keeps the run's 8 largest wins; by order statistics the model's 1-in-2e9 win
    level is at least the 5th largest (99.6 % confidence, ``stats.tail_level``). The published
    888.3x is at or above that bound: a model whose top is fatter (v1's) would put it below."""
    rec = record_for(find_game("super-12-stars"))
    assert rec is not None and len(rec.top_wins_x) == 8
    assert rec.top_wins_x[0] == rec.max_win_x
    assert rec.level_order == 5 and rec.level_at_least_x == rec.top_wins_x[4]
    assert rec.level_confidence is not None and rec.level_confidence > 0.99
    assert rec.level_at_least_x <= PUBLISHED_MAX_X


def test_the_game_shows_the_rtp_and_the_recorded_largest_win_with_its_odds() -> None:
    game = find_game("super-12-stars")
    rec = record_for(game)
    assert rec is not None
    desc = game.describe()
    assert desc["rtp"] == game.theoretical_rtp()  # "The RTP is shown in-game"
    shown = desc["max_win_simulated"]
    assert shown["text"] == rec.max_win_text() == f"{rec.max_win_x:,.1f}x (1 in 2,000,000,000)"
    assert shown["model_hash"] == game.model_hash
    help_text = " ".join(game.rules())
    assert (f"The largest win in a simulation of 2,000,000,000 rounds was {rec.max_win_x:,.1f} "
            "times the total bet, with an occurrence probability of 1 in 2,000,000,000"
            ) in help_text


def test_a_model_without_its_record_shows_no_simulated_figure(game) -> None:  # type: ignore[no-untyped-def]
    """v1 (the conftest's game) has no record of its own: the help keeps the bound alone."""
    assert record_for(game) is None
    assert game.describe()["max_win_simulated"] is None
    assert "largest win in a simulation" not in " ".join(game.rules())
