"""Live seeds that fail closed (R5): when the operating system's random source fails, a round
is refused with a clear error before any bet is taken, and a choice leaves its round waiting.

A failure is the source raising, or answering with output no working generator gives (the same
byte throughout: a zeroed or stuck device). Such a seed is never used.
"""

from __future__ import annotations

import logging

from slotlab import rng
from slotlab.server.errors import ApiError

log = logging.getLogger("slotlab.server")


def rng_unavailable() -> ApiError:
    return ApiError(503, "rng_unavailable",
                    "the random number generator is unavailable; no bet was taken and no round "
                    "was changed, try again later")


def fresh_seed() -> rng.Seed:
    """A seed from the OS's CSPRNG (:func:`slotlab.rng.fresh_seed`), or 503 ``rng_unavailable``."""
    try:
        seed = rng.fresh_seed()
    except Exception:
        log.exception("the random source failed")
        raise rng_unavailable() from None
    if len(seed) != rng.SEED_BYTES or len(set(seed)) == 1:
        log.error("the random source answered %s: refused", seed.hex() or "nothing")
        raise rng_unavailable()
    return seed
