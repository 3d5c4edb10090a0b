"""Autoplay under a jurisdiction profile.

Autoplay runs in the client, which declares the run's stop conditions with every round it starts
(``autoplay`` in the round-start body). The server refuses such a round where the profile
forbids autoplay (403 ``autoplay_not_allowed``), and where the declaration lacks a stop
condition the profile makes mandatory or declares more rounds left than its maximum (422
``autoplay_stop_required``). A round without a declaration is a manual round: untouched here.

An autoplay run is started on the server (services/autoplay_runs.py), checked here as its rounds
are; where the profile makes stop conditions mandatory every autoplay round must name its run
(422 ``autoplay_run_required``), so that the server, not the client, counts the run's rounds
and losses and stops it.
"""

from __future__ import annotations

from slotlab.server.errors import forbidden, unprocessable
from slotlab.server.schemas import AutoplayCreate
from slotlab.server.services.profiles import Profile

# The declaration's field for a stop condition named as profiles name it.
_FIELD = {"rounds": "rounds_left"}


def _is_set(declared: AutoplayCreate, stop: str) -> bool:
    value = getattr(declared, _FIELD.get(stop, stop))
    return value is not None and value is not False


def check_round(profile: Profile, declared: AutoplayCreate | None) -> None:
    """Refuse a round started by autoplay that the profile does not allow as declared."""
    if declared is None:
        return
    check_run(profile, declared)
    if profile.autoplay_required_stops and declared.run_id is None:
        raise unprocessable("autoplay_run_required",
                            f"autoplay under jurisdiction {profile.id} needs a run started on "
                            "the server (POST /api/autoplay) named by autoplay.run_id")


def check_run(profile: Profile, declared: AutoplayCreate) -> None:
    """Refuse autoplay with these stop conditions where the profile does not allow it."""
    if not profile.autoplay:
        raise forbidden("autoplay_not_allowed",
                        f"autoplay is not allowed under jurisdiction {profile.id}")
    missing = [s for s in profile.autoplay_required_stops if not _is_set(declared, s)]
    if missing:
        raise unprocessable("autoplay_stop_required",
                            f"autoplay under jurisdiction {profile.id} needs the stop "
                            f"conditions {', '.join(missing)}")
    most = profile.autoplay_max_rounds
    if most is not None and (declared.rounds_left is None or declared.rounds_left > most):
        raise unprocessable("autoplay_stop_required",
                            f"autoplay under jurisdiction {profile.id} runs at most {most} "
                            f"rounds; {declared.rounds_left or 'unlimited'} declared")
