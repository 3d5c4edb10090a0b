"""Provably fair seeds: what a player needs to check a round alone.

A player has a seed pair: a server seed (32 random bytes) that stays secret while in use, its
commitment ``SHA-256(server seed)`` shown before any round, a client seed the player may set, and
a counter. Every seed a round uses (its first, and one more with each choice) is

    HMAC-SHA256(key = server seed, message = "<client seed>:<counter>")

with the counter advanced once per seed. When the player rotates the pair, the server seed is
revealed; anyone can then check that it hashes to the commitment and recompute every seed played
under it. This module holds the derivation and the check; the server keeps the pairs
(``server/services/fairness.py``) and ``slotlab verify`` replays a round from its export.
"""

from __future__ import annotations

import hashlib
import hmac

FORMAT = "slotlab.fair-round/1"
SERVER_SEED_BYTES = 32
MAX_CLIENT_SEED = 64


def commitment(server_seed: bytes) -> str:
    """The hex SHA-256 a player sees before playing under ``server_seed``."""
    return hashlib.sha256(server_seed).hexdigest()


def derive(server_seed: bytes, client_seed: str, counter: int) -> bytes:
    """The round seed number ``counter`` of a seed pair."""
    if counter < 0:
        raise ValueError("the counter is never negative")
    message = f"{client_seed}:{counter}".encode()
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def check_client_seed(text: str) -> str:
    """A client seed as a player may set it: 1-64 printable ASCII characters, no colon-free rule
    needed (the counter is the part after the last colon)."""
    if not 1 <= len(text) <= MAX_CLIENT_SEED or not all(" " <= c <= "~" for c in text):
        raise ValueError(f"a client seed is 1 to {MAX_CLIENT_SEED} printable ASCII characters")
    return text


def find_counter(server_seed: bytes, client_seed: str, seed: bytes, below: int) -> int | None:
    """The counter under which a pair derived ``seed`` (searching ``range(below)``), or None."""
    for k in range(below):
        if hmac.compare_digest(derive(server_seed, client_seed, k), seed):
            return k
    return None
