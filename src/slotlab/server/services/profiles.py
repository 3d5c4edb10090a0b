"""Jurisdiction profiles: what a market allows, told to the client and enforced by the server.

Issue 5 extends these; the server already enforces ``min_cycle_ms`` (429 on a faster round).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Profile:
    id: str
    autoplay: bool
    quick_stop: bool
    turbo: bool
    min_cycle_ms: int  # a round may not start sooner after the previous one started
    celebrate_small_wins: bool  # celebrate a win that is not above the stake
    show_net_position: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


PROFILES: dict[str, Profile] = {
    "mt": Profile("mt", autoplay=True, quick_stop=True, turbo=True, min_cycle_ms=0,
                  celebrate_small_wins=True, show_net_position=True),
    "gb": Profile("gb", autoplay=False, quick_stop=False, turbo=False, min_cycle_ms=2500,
                  celebrate_small_wins=False, show_net_position=True),
}
