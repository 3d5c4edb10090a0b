"""Autoplay under jurisdiction profiles (issue 15, mandatory settings per market): a round
started by autoplay declares its stop conditions; the server refuses autoplay where the profile
forbids it and without the conditions it makes mandatory. Manual rounds are unaffected."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from slotlab.server.services.profiles import PROFILES

from .server_util import LiveServer, key

ROUNDS = "/api/games/instant-test/rounds"
FULL = {"rounds_left": 10, "balance_down_by": 500}


def _player_under(srv: LiveServer, jurisdiction: str) -> httpx.Client:
    c, username = srv.player()
    r = srv.admin().put(f"/api/admin/players/{username}/jurisdiction",
                        json={"jurisdiction": jurisdiction})
    assert r.status_code == 200, r.text
    return c


def _round(c: httpx.Client, autoplay: dict[str, Any] | None = None,
           headers: dict[str, str] | None = None) -> httpx.Response:
    body: dict[str, Any] = {"bet": 5}
    if autoplay is not None:
        body["autoplay"] = autoplay
    return c.post(ROUNDS, json=body, headers=headers or key())


def _refused(r: httpx.Response, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code
    return str(r.json()["error"]["message"])


def _in_run(c: httpx.Client, declared: dict[str, Any]) -> dict[str, Any]:
    """The declaration of a round of a run started on the server with the same conditions
    (where stop conditions are mandatory every autoplay round names its run)."""
    body = {"game": "instant-test", "rounds": declared.get("rounds_left"),
            **{k: v for k, v in declared.items() if k != "rounds_left"}}
    r = c.post("/api/autoplay", json=body)
    assert r.status_code == 201, r.text
    return {**declared, "run_id": r.json()["run_id"]}


def _balance(c: httpx.Client) -> int:
    return int(c.get("/api/wallet").json()["balance"])


def test_every_profile_requires_only_stops_it_offers() -> None:
    for p in PROFILES.values():
        assert set(p.autoplay_required_stops) <= set(p.autoplay_stop_conditions), p.id
        if p.autoplay_max_rounds is not None:
            assert "rounds" in p.autoplay_required_stops, p.id
        if not p.autoplay:
            assert not p.autoplay_stop_conditions and not p.autoplay_required_stops, p.id


@pytest.mark.parametrize("jurisdiction", ["on", "nj"])
def test_session_tells_the_mandatory_stops(make_server: Any, jurisdiction: str) -> None:
    c = _player_under(make_server(), jurisdiction)
    j = c.get("/api/session").json()["jurisdiction"]
    assert j["id"] == jurisdiction and j["autoplay"] is True
    assert j["autoplay_required_stops"] == ["rounds", "balance_down_by"]
    assert j["autoplay_max_rounds"] == PROFILES[jurisdiction].autoplay_max_rounds
    assert j["min_rtp"] == {"on": None, "nj": 0.83}[jurisdiction]  # R13
    assert j["session_idle_s"] == {"on": None, "nj": 15 * 60}[jurisdiction]  # R20


def test_gb_refuses_any_autoplay_round(make_server: Any) -> None:
    c = _player_under(make_server(), "gb")
    before = _balance(c)
    for declared in ({}, FULL, {"rounds_left": 1, "any_win": True}):
        _refused(_round(c, declared), 403, "autoplay_not_allowed")
    assert _balance(c) == before  # nothing was taken
    r = _round(c)  # a round the player starts is played
    assert r.status_code == 201, r.text
    assert _balance(c) == before - 5 + r.json()["win"]


def test_nj_requires_rounds_and_a_loss_limit(make_server: Any) -> None:
    c = _player_under(make_server(), "nj")
    before = _balance(c)
    message = _refused(_round(c, {}), 422, "autoplay_stop_required")
    assert "rounds" in message and "balance_down_by" in message
    message = _refused(_round(c, {"rounds_left": 10, "any_win": True}), 422,
                       "autoplay_stop_required")
    assert "balance_down_by" in message and "rounds," not in message
    _refused(_round(c, {"balance_down_by": 500}), 422, "autoplay_stop_required")
    # Over the maximum number of rounds.
    message = _refused(_round(c, {**FULL, "rounds_left": 251}), 422, "autoplay_stop_required")
    assert "at most 250 rounds" in message
    assert _balance(c) == before
    _refused(_round(c, {**FULL, "rounds_left": 250}), 422, "autoplay_run_required")
    r = _round(c, _in_run(c, {**FULL, "rounds_left": 250}))
    assert r.status_code == 201, r.text
    r = _round(c, _in_run(c, {**FULL, "any_win": True, "single_win_above": 50,
                              "balance_up_by": 100}))
    assert r.status_code == 201, r.text
    assert _round(c).status_code == 201  # manual rounds need no declaration


def test_on_caps_autoplay_at_100_rounds(make_server: Any) -> None:
    c = _player_under(make_server(), "on")
    _refused(_round(c, {**FULL, "rounds_left": 101}), 422, "autoplay_stop_required")
    assert _round(c, _in_run(c, {**FULL, "rounds_left": 100})).status_code == 201


def test_mt_makes_no_stop_mandatory(make_server: Any) -> None:
    c, _ = make_server().player()
    assert c.get("/api/session").json()["jurisdiction"]["autoplay_required_stops"] == []
    assert _round(c, {}).status_code == 201
    assert _round(c, {"rounds_left": 100_000}).status_code == 201


def test_declaration_is_validated(make_server: Any) -> None:
    c = _player_under(make_server(), "nj")
    before = _balance(c)
    for bad in ({**FULL, "rounds_left": 0}, {**FULL, "balance_down_by": -1},
                {**FULL, "balance_down_by": "500"}, {**FULL, "stop_never": True},
                {**FULL, "any_win": "yes"}):
        _refused(_round(c, bad), 422, "invalid_request")
    assert _balance(c) == before


def test_the_declaration_is_part_of_the_idempotent_request(make_server: Any) -> None:
    c = _player_under(make_server(), "nj")
    before = _balance(c)
    headers = key()
    declared = _in_run(c, FULL)
    first = _round(c, declared, headers)
    assert first.status_code == 201, first.text
    again = _round(c, declared, headers)  # a retry: the same answer, the bet taken once
    assert again.status_code == first.status_code
    assert again.json()["round_id"] == first.json()["round_id"]
    assert _balance(c) == before - 5 + first.json()["win"]
    # The same key with another declaration, or none, is another request.
    _refused(_round(c, {**declared, "rounds_left": 9}, headers), 409,
             "idempotency_key_reused")
    _refused(_round(c, None, headers), 409, "idempotency_key_reused")
    assert _balance(c) == before - 5 + first.json()["win"]
