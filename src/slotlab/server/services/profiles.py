"""Jurisdiction profiles: what a market allows, told to the client and enforced by the server.

The server setting ``SLOTLAB_JURISDICTION`` picks the profile in force; an operator can override
it per player (``PUT /api/admin/players/{username}/jurisdiction``). The profile is in
``GET /api/session``; the server enforces ``min_cycle_ms`` (429 ``too_fast`` on a round started
sooner after the player's previous round started), marks every round response with
``celebrate`` (never true for a win that is not above the stake unless
``celebrate_small_wins``), refuses a game whose theoretical RTP is below ``min_rtp`` (Malta:
92%) and, with ``session_with_rounds``, returns the session's net position
and elapsed time with every round. Autoplay, quick stop and turbo run in the client: the
profile tells the client whether they are allowed and with which autoplay stop conditions; every
round the client starts by autoplay declares its stop conditions, and the server refuses autoplay
where the profile forbids it or without the conditions it makes mandatory (services/autoplay.py).

Where a value comes from: the R-numbers of ``shared/research/standards.md`` (and the regulation
it cites); a value it gives no figure for is slotlab's default, said so beside it.
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
    session_with_rounds: bool = False  # net position and elapsed time in every round response
    # Stop conditions autoplay must offer (the seed texts): a number of rounds, on any win, if a
    # single win exceeds an amount, if the balance increases / decreases by an amount.
    autoplay_stop_conditions: tuple[str, ...] = ()
    # Stop conditions every autoplay declaration must set (a subset of the offered ones), and
    # the most rounds one autoplay run may declare (None: no maximum; a maximum needs "rounds").
    autoplay_required_stops: tuple[str, ...] = ()
    autoplay_max_rounds: int | None = None
    # The lowest theoretical RTP (a fraction) a game may be offered at; None: no minimum. The
    # catalogue enforces it at start-up (docs/operators.md, "RTP variants").
    min_rtp: float | None = None
    # A reality-check reminder every this many seconds of a session (None: none); the next
    # round waits until the player acknowledges it (services/reality.py).
    reality_check_s: int | None = None
    # The time after which an inactive session ends (R20); None: the server's session_idle_s.
    session_idle_s: int | None = None
    # Anonymous demo play (play money, no account) may be offered (services/demo.py).
    demo: bool = True
    # Provably fair seeds (services/fairness.py) may be used: the server seed is committed before
    # play, so the outcome after each possible choice is fixed before the choice (R4's reading).
    provably_fair: bool = True
    # Every offered game must match a test lab's certified evidence bundle (R21: the software
    # that runs is the software approved), once the operator names bundles
    # (SLOTLAB_CERTIFIED_BUNDLES; services/certified_bundles.py): a game no bundle covers is
    # out of play, as is one whose critical files differ from its bundle (in every profile).
    certified_bundle: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


AUTOPLAY_STOPS = ("rounds", "any_win", "single_win_above", "balance_up_by", "balance_down_by")

PROFILES: dict[str, Profile] = {
    "mt": Profile("mt", autoplay=True, quick_stop=True, turbo=True, min_cycle_ms=0,
                  celebrate_small_wins=True, show_net_position=True,
                  autoplay_stop_conditions=AUTOPLAY_STOPS, min_rtp=0.92,
                  # R23 (RTS 6A): demo play is allowed with the same math as real play; MGA sets
                  # no age check before free play in standards.md, so demo is on.
                  demo=True,
                  # R21: only the software a lab certified runs in a regulated market.
                  certified_bundle=True),
    "gb": Profile("gb", autoplay=False, quick_stop=False, turbo=False, min_cycle_ms=2500,
                  celebrate_small_wins=False, show_net_position=True, session_with_rounds=True,
                  reality_check_s=60 * 60,
                  # R23 (RTS 6A) allows free play only with the same math; the UKGC also
                  # requires age verification before any free-to-play game (LCCP SR code 3.2.11,
                  # 2019; not an R-number of standards.md). Anonymous demo cannot verify age: off.
                  demo=False,
                  # R21: only the software a lab certified runs in a regulated market.
                  certified_bundle=True),
    # Ontario (AGCO Registrar's Standards for Internet Gaming).
    "on": Profile(
        "on",
        # R17 forbids autoplay only in GB; standards.md sets no Ontario stop conditions, so
        # mandatory rounds and loss limit, at most 100 rounds, are slotlab's default.
        autoplay=True, autoplay_stop_conditions=AUTOPLAY_STOPS,
        autoplay_required_stops=("rounds", "balance_down_by"), autoplay_max_rounds=100,
        # R18's turbo, slam stop and small-win rules are GB's; R17's 2.5 s cycle is GB's.
        quick_stop=True, turbo=True, min_cycle_ms=0, celebrate_small_wins=True,
        # R19 (GB) asks for the net position always shown; slotlab shows it in every market.
        show_net_position=True,
        # R13 lists no Ontario minimum RTP: none (slotlab's default).
        min_rtp=None,
        # R20 (AGCO 4.30) asks for an inactivity timeout without a figure: the server's
        # SLOTLAB_SESSION_IDLE_S, which the operator sets. No reality check in standards.md.
        session_idle_s=None, reality_check_s=None,
        # R23: free play with the same math as real play; standards.md sets no Ontario age
        # check before free play, so anonymous demo is on (an operator may switch it off).
        demo=True,
        # R4 (AGCO 4.26): the outcome is not decided before all player choices are made. A
        # committed server seed fixes the outcome after each choice in advance: off here.
        provably_fair=False),
    # New Jersey (N.J.A.C. 13:69O, Internet gaming; 13:69E, slot machines).
    "nj": Profile(
        "nj",
        # R17 forbids autoplay only in GB; standards.md sets no New Jersey stop conditions, so
        # mandatory rounds and loss limit, at most 250 rounds, are slotlab's default.
        autoplay=True, autoplay_stop_conditions=AUTOPLAY_STOPS,
        autoplay_required_stops=("rounds", "balance_down_by"), autoplay_max_rounds=250,
        # R17 and R18 are GB's rules: no minimum cycle, quick stop and small wins as usual.
        quick_stop=True, turbo=True, min_cycle_ms=0, celebrate_small_wins=True,
        # R19 (GB) asks for the net position always shown; slotlab shows it in every market.
        show_net_position=True,
        # R13: 83% (N.J.A.C. 13:69E-1.28A).
        min_rtp=0.83,
        # R20 (N.J.A.C. 13:69O-1.4) asks for an inactivity timeout without a figure in
        # standards.md: 15 minutes is slotlab's default. No reality check in standards.md.
        session_idle_s=15 * 60, reality_check_s=None,
        # R23: free play with the same math as real play. standards.md sets no New Jersey rule
        # on anonymous free play, and N.J.A.C. 13:69O ties internet play to a registered,
        # verified account: off is slotlab's cautious default (SLOTLAB_DEMO_ENABLED only turns
        # demo off, never on against the profile).
        demo=False,
        # R21 (N.J.A.C. 13:69O-1.1/1.5): the software checked against the approved one.
        certified_bundle=True),
}


def idle_timeout_s(profile: Profile, server_default: int) -> int:
    """The inactivity timeout in force: the profile's, else the server's setting."""
    return profile.session_idle_s or server_default


def celebrate(profile: Profile, bet: int, win: int) -> bool:
    """Whether the client may celebrate a win (a win not above the stake only where allowed)."""
    return win > bet or (profile.celebrate_small_wins and win > 0)


def below_min_rtp(profile: Profile, rtp: float | None) -> bool:
    """Whether a game at this theoretical RTP may not be offered under the profile. An unknown
    RTP is below any minimum: it cannot be shown to meet it."""
    if profile.min_rtp is None:
        return False
    return rtp is None or rtp < profile.min_rtp
