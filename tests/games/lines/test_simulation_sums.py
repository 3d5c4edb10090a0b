"""The simulation loop keeps the very sums that playing its rounds one by one gives (its
``record`` is compiled into the loop from the shared source, not called)."""

from __future__ import annotations

import numpy as np
import pytest

from slotlab.games import find_game
from slotlab.games.lines import kernel
from slotlab.rng import chunk_stream
from slotlab.simulate.stats import ACC_COMPONENTS, new_accumulators, record
from tests.games.lines.conftest import toy_game


@pytest.mark.parametrize(("game", "level"), [(find_game("fruit-5x3"), 2), (toy_game(), 5)])
def test_the_loop_keeps_the_sums_of_its_rounds_played_one_by_one(game, level) -> None:
    m, rounds = game._packed, 5_000
    bet = level * game.model.divisor
    acc, sq = new_accumulators()
    kernel.simulate_rounds(m, chunk_stream(9, 3), rounds, level, bet, acc, sq, *kernel.scratch(m))

    stream, (acc1, sq1) = chunk_stream(9, 3), new_accumulators()
    stops, window, wins = kernel.scratch(m)
    ev = np.zeros((0, kernel.EV_WIDTH), dtype=np.int64)
    for _ in range(rounds):
        win, bl, bs, fu, uncapped, triggered, _n = kernel.play_round(m, stream, False, ev, stops,
                                                                     window, wins)
        record(acc1, sq1, win * level, bet, triggered)
        acc1[ACC_COMPONENTS : ACC_COMPONENTS + 4] += np.array(
            [bl, bs, fu, win - uncapped]) * level
    assert acc.tolist() == acc1.tolist() and sq[0] == sq1[0]
    assert acc[ACC_COMPONENTS + 2] > 0  # free spins were played
