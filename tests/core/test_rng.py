"""The random streams: known-answer vectors, unbiased bounded draws, chunk independence."""

import numpy as np
import pytest
from scipy.stats import chi2

from slotlab import rng

CONFIDENCE = 0.99  # every chi-square test below rejects at the 1 % level


def _chacha_raw_key(key: bytes) -> np.ndarray:
    """A ChaCha20 stream with a raw key (live streams hash the seed into the key)."""
    state = rng.chacha_stream(b"unused")
    state[2:6] = np.frombuffer(key, dtype="<u8")
    return state


def _bytes(state: np.ndarray, n_words: int) -> bytes:
    out = np.empty(n_words, dtype=np.uint64)
    rng.fill_u64(state, out)
    return out.astype("<u8").tobytes()


def test_chacha20_matches_rfc8439_keystream_vectors():
    # RFC 8439 appendix A.1, test vectors 1 and 2: all-zero key and nonce, counters 0 and 1.
    stream = _bytes(_chacha_raw_key(bytes(32)), 16)
    assert stream[:64].hex() == (
        "76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
        "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586")
    assert stream[64:].hex() == (
        "9f07e7be5551387a98ba977c732d080dcb0f29a048e3656912c6533e32ee7aed"
        "29b721769ce64e43d57133b074d839d531ed1f28510afb45ace10a1f4b794d6f")


def test_xoshiro256starstar_matches_reference_outputs():
    state = rng.xoshiro_stream(np.array([1, 2, 3, 4], dtype=np.uint64))
    out = np.empty(3, dtype=np.uint64)
    rng.fill_u64(state, out)
    assert out.tolist() == [11520, 0, 1509978240]


def test_live_stream_is_keyed_by_sha256_of_the_seed():
    a = _bytes(rng.chacha_stream(b"seed"), 8)
    b = _bytes(rng.chacha_stream(b"seed"), 8)
    c = _bytes(rng.chacha_stream(b"seed!"), 8)
    assert a == b != c


def test_fresh_seeds_have_256_bits_and_differ():
    seeds = {rng.fresh_seed() for _ in range(100)}
    assert len(seeds) == 100
    assert all(len(s) == 32 for s in seeds)


@pytest.mark.parametrize("text", ["-1", "12ab", "", "0x10"])
def test_parse_seed_rejects_what_is_not_a_seed(text):
    with pytest.raises(ValueError, match="seed"):
        rng.parse_seed(text)


@pytest.mark.parametrize("kind", [rng.CHACHA20, rng.XOSHIRO])
def test_fill_randbelow_draws_exactly_what_randbelow_draws(kind):
    bounds = np.array([7, 40, 1, 3, 2**31 + 11, 1000], dtype=np.int64)
    a = rng.stream_from_seed(b"x", kind)
    b = a.copy()
    for _ in range(500):
        out = np.empty(len(bounds), dtype=np.int64)
        rng.fill_randbelow(a, bounds, out)
        assert out.tolist() == [rng.randbelow(b, int(n)) for n in bounds]
        assert ((out >= 0) & (out < bounds)).all()


def _chi_square_uniform(counts: np.ndarray) -> None:
    expected = counts.sum() / len(counts)
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert statistic < chi2.ppf(CONFIDENCE, len(counts) - 1), statistic


@pytest.mark.parametrize("kind", [rng.CHACHA20, rng.XOSHIRO])
@pytest.mark.parametrize("n", [3, 37, 76])
def test_reel_stops_are_uniform_chi_square(kind, n):
    stream = rng.stream_from_seed(b"reel-stops", kind)
    bounds = np.full(200_000, n, dtype=np.int64)
    out = np.empty_like(bounds)
    rng.fill_randbelow(stream, bounds, out)
    _chi_square_uniform(np.bincount(out, minlength=n))


def test_large_bound_has_no_modulo_bias():
    # n = 3 * 2**30: with "% n" alone the lowest third of the range would be twice as likely.
    n = 3 * 2**30
    stream = rng.stream_from_seed(b"bias", rng.XOSHIRO)
    bounds = np.full(300_000, n, dtype=np.int64)
    out = np.empty_like(bounds)
    rng.fill_randbelow(stream, bounds, out)
    _chi_square_uniform(np.bincount(out // 2**30, minlength=3))


def test_weighted_pick_follows_integer_weights_chi_square():
    weights = [30, 24, 16, 10, 8, 6, 3, 2, 1]
    cumulative = rng.cumulative_weights(weights)
    stream = rng.stream_from_seed(b"weights", rng.CHACHA20)
    counts = np.zeros(len(weights))
    for _ in range(100_000):
        counts[rng.weighted_pick(stream, cumulative)] += 1
    expected = np.array(weights) / sum(weights) * counts.sum()
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert statistic < chi2.ppf(CONFIDENCE, len(weights) - 1)


@pytest.mark.parametrize("weights", [[], [1, 0, 2], [3, -1]])
def test_weights_must_be_positive_integers(weights):
    with pytest.raises(ValueError, match="positive"):
        rng.cumulative_weights(weights)


def test_chunk_streams_are_distinct_and_reproducible():
    a = _bytes(rng.chunk_stream(5, 0), 4)
    assert a == _bytes(rng.chunk_stream(5, 0), 4)
    assert a != _bytes(rng.chunk_stream(5, 1), 4)
    assert a != _bytes(rng.chunk_stream(6, 0), 4)
