"""Scatter counting: in a window, and its exact distribution over a reel cycle."""

from __future__ import annotations

import itertools

import numpy as np

from slotlab.mechanics.scatter import convolve, window_count_weights


def test_window_counts_wrap_round_the_strip() -> None:
    strip = np.array([5, 0, 5, 0, 5, 0], dtype=np.int64)  # 4 stops + 2 repeated for the wrap
    assert window_count_weights(strip, 4, 3, 5) == [0, 2, 2, 0]


def test_convolution_equals_enumeration() -> None:
    reels = [[2, 1], [1, 3, 1], [4, 0, 2]]
    want = [0] * 6
    for ks in itertools.product(*(range(len(r)) for r in reels)):
        weight = 1
        for r, k in zip(reels, ks, strict=True):
            weight *= r[k]
        want[sum(ks)] += weight
    assert convolve(reels) == want
