"""Seeds and the random streams that game kernels draw from.

This module is the only place where seeds become draws. A stream is a small ``uint64`` array
(see the ``_KIND`` ... ``_BUF`` offsets) that compiled kernels pass to :func:`next_u64`,
:func:`randbelow` and :func:`weighted_pick`. Two generators sit behind that one draw function:

* ``CHACHA20`` - the ChaCha20 block function (RFC 8439) keyed by SHA-256 of the round seed.
  Live rounds and replays use it: it is cryptographically strong, so outcomes cannot be
  predicted from past output.
* ``XOSHIRO`` - xoshiro256**, statistically strong and several times faster; simulations use it,
  one independent stream per chunk derived with ``SeedSequence(root, spawn_key=(chunk,))`` so a
  simulation's result does not depend on how chunks are spread over workers.

Bounded integers use Lemire's multiply-and-reject method on 32-bit draws, so every value in
``range(n)`` has probability exactly ``1/n`` (no modulo bias).
"""

from __future__ import annotations

import hashlib
import os
import re

import numpy as np
from numba import njit

Seed = bytes
SEED_BYTES = 32  # 256 bits, above the 128 the standards ask for

CHACHA20 = 0
XOSHIRO = 1

# Offsets in a stream array. Both generators write a buffer of BUF_WORDS outputs at a time, so
# the hot path of a draw is one load and one index update.
_KIND = 0  # which generator
_INDEX = 1  # next unread word of the buffer (BUF_WORDS = empty)
_KEY = 2  # 4 words: ChaCha key, or xoshiro state s0..s3
_COUNTER = 6  # ChaCha block counter
_BUF = 8
BUF_WORDS = 64
_X = _BUF + BUF_WORDS  # 16 words: ChaCha input block (scratch)
_W = _X + 16  # 16 words: ChaCha working block (scratch)
STREAM_WORDS = _W + 16

_M32 = np.uint64(0xFFFFFFFF)
# uint64 constants: comparing a uint64 with a plain int makes numba go through float64.
_U_XOSHIRO = np.uint64(XOSHIRO)


def fresh_seed() -> Seed:
    """A new seed from the operating system's CSPRNG (used for every live round and choice)."""
    return os.urandom(SEED_BYTES)


def parse_seed(text: str | int | bytes) -> Seed:
    """Turn user input into a seed: bytes as they are, 64 hex digits, or a decimal integer.

    >>> parse_seed(1) == (1).to_bytes(32, "little")
    True
    >>> parse_seed("ff" * 32) == b"\\xff" * 32
    True
    """
    if isinstance(text, bytes):
        if not text:
            raise ValueError("a seed must not be empty")
        return text
    if isinstance(text, int):
        if text < 0 or text >= 1 << 256:
            raise ValueError("an integer seed must be in [0, 2**256)")
        return text.to_bytes(SEED_BYTES, "little")
    text = text.strip()
    if re.fullmatch(r"[0-9a-fA-F]{64}", text):
        return bytes.fromhex(text)
    if re.fullmatch(r"\d+", text):
        return parse_seed(int(text))
    raise ValueError(f"seed {text!r} is neither a decimal integer nor 64 hex digits")


def derived_seed(seed: Seed, k: int) -> Seed:
    """The k-th seed derived from ``seed`` (SHA-256 of the seed and ``k``): lets a CLI user give
    one seed for a round with several choices."""
    return hashlib.sha256(seed + k.to_bytes(8, "little")).digest()


def chacha_stream(seed: Seed) -> np.ndarray:
    """A ChaCha20 stream keyed by SHA-256 of ``seed`` (live play and replay)."""
    state = np.zeros(STREAM_WORDS, dtype=np.uint64)
    state[_KIND] = CHACHA20
    state[_INDEX] = BUF_WORDS
    key = hashlib.sha256(seed).digest()
    state[_KEY : _KEY + 4] = np.frombuffer(key, dtype="<u8")
    return state


def xoshiro_stream(words: np.ndarray) -> np.ndarray:
    """A xoshiro256** stream from four seed words (simulation)."""
    state = np.zeros(STREAM_WORDS, dtype=np.uint64)
    state[_KIND] = XOSHIRO
    state[_KEY : _KEY + 4] = words
    state[_INDEX] = BUF_WORDS
    if not state[_KEY : _KEY + 4].any():  # the all-zero state is a fixed point
        state[_KEY] = 1
    return state


def chunk_stream(root: int, chunk: int) -> np.ndarray:
    """The simulation stream of one chunk: independent of worker count and order."""
    seq = np.random.SeedSequence(root, spawn_key=(chunk,))
    return xoshiro_stream(seq.generate_state(4, dtype=np.uint64))


@njit(cache=True, inline="always")
def _rotl32(x: np.uint64, n: int) -> np.uint64:
    return ((x << np.uint64(n)) | (x >> np.uint64(32 - n))) & _M32


@njit(cache=True, inline="always")
def _rotl64(x: np.uint64, n: int) -> np.uint64:
    return (x << np.uint64(n)) | (x >> np.uint64(64 - n))


@njit(cache=True)
def _chacha_block(state: np.ndarray, offset: int) -> None:
    """Write one ChaCha20 block (8 words) at buffer word ``offset``; the nonce is zero.

    The working words live in the stream's scratch area, not in a new array: kernels compiled
    without numba's reference counting can then draw from a live stream too.
    """
    x, w = _X, _W
    state[x + 0] = 0x61707865
    state[x + 1] = 0x3320646E
    state[x + 2] = 0x79622D32
    state[x + 3] = 0x6B206574
    for i in range(4):
        k = state[_KEY + i]
        state[x + 4 + 2 * i] = k & _M32
        state[x + 5 + 2 * i] = k >> np.uint64(32)
    c = state[_COUNTER]
    state[x + 12] = c & _M32
    state[x + 13] = c >> np.uint64(32)
    state[x + 14] = 0
    state[x + 15] = 0
    for i in range(16):
        state[w + i] = state[x + i]
    for _ in range(10):  # 20 rounds = 10 double rounds
        for a, b, cc, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                            (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
            a, b, cc, d = w + a, w + b, w + cc, w + d
            state[a] = (state[a] + state[b]) & _M32
            state[d] = _rotl32(state[d] ^ state[a], 16)
            state[cc] = (state[cc] + state[d]) & _M32
            state[b] = _rotl32(state[b] ^ state[cc], 12)
            state[a] = (state[a] + state[b]) & _M32
            state[d] = _rotl32(state[d] ^ state[a], 8)
            state[cc] = (state[cc] + state[d]) & _M32
            state[b] = _rotl32(state[b] ^ state[cc], 7)
    for i in range(8):
        lo = (state[w + 2 * i] + state[x + 2 * i]) & _M32
        hi = (state[w + 2 * i + 1] + state[x + 2 * i + 1]) & _M32
        state[_BUF + offset + i] = lo | (hi << np.uint64(32))
    state[_COUNTER] = c + np.uint64(1)


@njit(cache=True)
def _refill(state: np.ndarray) -> None:
    """Fill the whole buffer with fresh output of the stream's generator."""
    if state[_KIND] == _U_XOSHIRO:
        s0 = state[_KEY]
        s1 = state[_KEY + 1]
        s2 = state[_KEY + 2]
        s3 = state[_KEY + 3]
        for i in range(BUF_WORDS):
            state[_BUF + i] = _rotl64(s1 * np.uint64(5), 7) * np.uint64(9)
            t = s1 << np.uint64(17)
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = _rotl64(s3, 45)
        state[_KEY] = s0
        state[_KEY + 1] = s1
        state[_KEY + 2] = s2
        state[_KEY + 3] = s3
    else:
        for block in range(BUF_WORDS // 8):
            _chacha_block(state, 8 * block)
    state[_INDEX] = 0


@njit(cache=True, inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """The next 64 random bits of a stream."""
    i: np.int64 | int = np.int64(state[_INDEX])  # int64: uint64 + int64 would go via float64
    if i >= BUF_WORDS:
        _refill(state)
        i = 0
    state[_INDEX] = i + 1
    word: np.uint64 = state[_BUF + i]
    return word


@njit(cache=True, inline="always")
def randbelow(state: np.ndarray, n: int) -> int:
    """A uniform integer in ``range(n)``, ``1 <= n < 2**32``, without bias (Lemire 2019)."""
    un = np.uint64(n)
    m = (next_u64(state) >> np.uint64(32)) * un
    low = m & _M32
    if low < un:
        threshold = (np.uint64(0x100000000) - un) % un
        while low < threshold:
            m = (next_u64(state) >> np.uint64(32)) * un
            low = m & _M32
    return int(m >> np.uint64(32))


@njit(cache=True)
def fill_randbelow(state: np.ndarray, bounds: np.ndarray, out: np.ndarray) -> None:
    """``out[i] = randbelow(state, bounds[i])`` for every ``i``, in one call.

    The same draws as calling :func:`randbelow` in turn, but the buffer index stays in a
    register: a kernel calling a function per draw pays array reference counting each time.
    """
    i: np.int64 | int = np.int64(state[_INDEX])
    for k in range(bounds.shape[0]):
        un = np.uint64(bounds[k])
        while True:
            if i >= BUF_WORDS:
                _refill(state)
                i = 0
            m = (state[_BUF + i] >> np.uint64(32)) * un
            i += 1
            low = m & _M32
            if low >= un or low >= (np.uint64(0x100000000) - un) % un:
                break
        out[k] = np.int64(m >> np.uint64(32))
    state[_INDEX] = i


@njit(cache=True)
def weighted_pick(state: np.ndarray, cumulative: np.ndarray) -> int:
    """Index ``i`` with probability ``weight[i] / total``, given cumulative integer weights.

    ``cumulative`` is ``int64[k]`` with ``cumulative[-1]`` the total weight.
    """
    r = randbelow(state, cumulative[-1])
    i = 0
    while cumulative[i] <= r:
        i += 1
    return i


def cumulative_weights(weights: list[int] | np.ndarray) -> np.ndarray:
    """Cumulative int64 weights for :func:`weighted_pick`; every weight must be positive."""
    w = np.asarray(weights, dtype=np.int64)
    if w.size == 0 or (w <= 0).any():
        raise ValueError("weights must be a non-empty list of positive integers")
    if int(w.sum()) >= 1 << 32:
        raise ValueError("the total weight must be below 2**32")
    return np.cumsum(w)


@njit(cache=True)
def fill_u64(state: np.ndarray, out: np.ndarray) -> None:
    """Write raw generator output into ``out`` (``uint64[n]``) for external test batteries."""
    for i in range(out.shape[0]):
        out[i] = next_u64(state)


def stream_from_seed(seed: Seed, kind: int = CHACHA20) -> np.ndarray:
    """A stream of the given kind keyed by ``seed``."""
    if kind == CHACHA20:
        return chacha_stream(seed)
    digest = hashlib.sha256(seed).digest()
    return xoshiro_stream(np.frombuffer(digest, dtype="<u8").copy())
