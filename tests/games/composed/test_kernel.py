"""The compiled rounds (simulation) and the traced rounds (play and replay) are the same rules
with the same draws: from one stream they give the same win, component by component, round by
round, and leave the stream at the same place."""

from __future__ import annotations

import numpy as np

from slotlab.games.composed import kernel
from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.round import COMPONENTS, Tables, play_round
from slotlab.rng import chunk_stream
from tests.games.composed.conftest import variant


def _same_rounds(game: ComposedGame, rounds: int, seed: int) -> int:
    """Play ``rounds`` both ways from equal streams; returns how many started a feature."""
    t = Tables(game.model)
    fz = kernel.pack_features(game.model)
    scratch = kernel.scratch(t.packed, fz)
    a, b = chunk_stream(seed, 0), chunk_stream(seed, 0)
    parts = np.zeros(len(COMPONENTS), dtype=np.int64)
    features = 0
    for i in range(rounds):
        tally = play_round(t, a, 1, None)
        feature = kernel.play_round(t.packed, fz, b, parts, scratch)
        assert [tally.parts[c] for c in COMPONENTS] == parts.tolist(), f"round {i}"
        assert tally.feature == feature
        assert np.array_equal(a, b), f"round {i}: the streams moved apart"
        features += feature
    return features


def test_kernel_and_traced_rounds_agree(game: ComposedGame) -> None:
    assert _same_rounds(game, 20_000, 7) > 300


def test_they_agree_on_a_capped_game_without_a_wheel(game: ComposedGame) -> None:
    g = variant(max_win_x=3, wheel=None)
    assert _same_rounds(g, 5_000, 8) > 50


def test_simulate_chunk_is_the_kernel(game: ComposedGame) -> None:
    acc, _sq = game.simulate_chunk(20, 2_000, chunk_stream(9, 0))
    t = Tables(game.model)
    stream = chunk_stream(9, 0)
    total = sum(sum(play_round(t, stream, 1, None).parts.values()) for _ in range(2_000))
    assert acc[0] == 2_000 and acc[1] == total
