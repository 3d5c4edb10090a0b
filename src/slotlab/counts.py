"""Counts written the way people write them: ``2e9``, ``2_000_000_000``, ``2G``, ``500M``, ``10k``.

>>> parse_count("2e9") == parse_count("2_000_000_000") == parse_count("2G") == 2_000_000_000
True
>>> parse_count("1.5M")
1500000
"""

from __future__ import annotations

import re
from decimal import Decimal

# Decimal suffixes (counts have no milli, so ``m`` is mega as well).
_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_COUNT = re.compile(r"(?P<number>\d+(?:_\d+)*(?:\.\d+)?(?:e\+?\d+)?)(?P<suffix>[kmgt])?",
                    re.IGNORECASE)


class CountError(ValueError):
    """Text that is not a positive whole count; the message says what is accepted."""


def parse_count(text: str) -> int:
    """The positive whole number ``text`` writes, or :class:`CountError`."""
    match = _COUNT.fullmatch(text.strip())
    if match is None:
        raise CountError(f"{text!r} is not a count; write e.g. 2000000000, 2_000_000_000, 2e9 "
                         "or 2G (k, M, G, T: thousand, million, billion, trillion)")
    value = Decimal(match["number"].replace("_", ""))
    if match["suffix"]:
        value *= _SUFFIXES[match["suffix"].lower()]
    if value != value.to_integral_value():
        raise CountError(f"{text!r} is not a whole number ({value:f})")
    if value < 1:
        raise CountError(f"{text!r} is not a positive count")
    return int(value)
