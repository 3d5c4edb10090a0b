"""What the game's HELP page says about the operator: contact, terms, the procedure for
unfinished rounds and the inactivity timeout, built from the server's settings so that HELP
always states what the server really does."""

from __future__ import annotations

from typing import Any

from slotlab.server.services import profiles
from slotlab.server.settings import Settings


def duration_text(seconds: float) -> str:
    """``86400`` -> ``"24 hours"``: the largest unit that divides the duration exactly."""
    if seconds != int(seconds):
        return f"{seconds:g} seconds"
    s = int(seconds)
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if s >= size and s % size == 0 and not (unit == "day" and s // size < 2):
            n = s // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{s} second{'s' if s != 1 else ''}"


def unfinished_rounds_text(settings: Settings) -> str:
    if settings.unfinished_rounds_text:
        return settings.unfinished_rounds_text
    wait = duration_text(settings.auto_complete_after_s)
    return (f"A round that waits for your choice is kept for {wait}. If you come back within "
            f"that time, you are offered the same choice again; after it, the game completes "
            f"the round for you with a random choice and credits its winnings. A round "
            f"interrupted by a lost connection or a server failure is completed from where it "
            f"stopped and its winnings are credited. Rounds completed for you are shown at your "
            f"next login, and their complete replay is in your game history.")


def idle_timeout_s(settings: Settings) -> int:
    """The inactivity timeout of the server's jurisdiction profile, else of its settings."""
    return profiles.idle_timeout_s(profiles.PROFILES[settings.jurisdiction],
                                   settings.session_idle_s)


def inactivity_text(settings: Settings) -> str:
    """HELP's line on the time after which inactive gaming sessions end (R20)."""
    return (f"Inactive gaming sessions end after {duration_text(idle_timeout_s(settings))} "
            f"without activity; log in again to continue.")


def operator_help(settings: Settings) -> dict[str, Any]:
    """The ``operator`` object of ``GET /api/games/{id}`` (docs/server.md)."""
    return {
        "name": settings.operator_name,
        "contact": settings.operator_contact,
        "terms_url": settings.operator_terms_url,
        "unfinished_rounds": unfinished_rounds_text(settings),
        "auto_complete_after_s": settings.auto_complete_after_s,
        "inactivity": inactivity_text(settings),
        "inactivity_timeout_s": idle_timeout_s(settings),
    }
