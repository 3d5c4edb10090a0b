"""Provably fair rounds: the commitment before play, the client seed, derived round seeds with
an atomic counter, the reveal on rotation, the export, and ``slotlab verify`` checking a round
alone (and failing on the first wrong event, or on a reveal that does not match)."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from slotlab import fairness
from slotlab.cli import app
from slotlab.server.services import fairness as fair_service
from slotlab.verify import VerifyError, verify

from .server_util import key

GAME = "classic-3x3"  # a won round offers the gamble: a round with a choice
BET = 5  # the smallest bet, in minor units


def play_until_choice(c: Any, tries: int = 400) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rounds at the smallest bet until one waits for a choice; that one is collected.
    Returns the plain rounds and the finished choice round."""
    plain = []
    for _ in range(tries):
        r = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key())
        assert r.status_code == 201, r.text
        body = r.json()
        if body["awaiting"] is None:
            plain.append(body)
            continue
        assert "collect" in body["awaiting"]["options"]
        done = c.post(f"/api/rounds/{body['round_id']}/choices", json={"choice": "collect",
                                                                   "step": body["step"]},
                      headers=key())
        assert done.status_code == 200, done.text
        assert done.json()["status"] == "completed"
        return plain, done.json()
    raise AssertionError("no round waited for a choice")


def test_a_round_under_a_committed_seed_verifies_alone(serve_games, tmp_path: Path) -> None:
    srv = serve_games(GAME, provably_fair=True)
    c, _ = srv.player()
    before = c.get("/api/fairness").json()["active"]
    assert before["server_seed"] is None and before["next_counter"] == 0
    plain, chosen = play_until_choice(c)
    assert len(chosen["events"]) > 1
    # every start and the choice on the batched money path, their seeds from the pair
    stats = srv.app.state.fast_rounds.stats
    assert stats["served"] == len(plain) + 1 and stats["choice:served"] == 1, stats
    export = c.get(f"/api/fairness/rounds/{chosen['round_id']}").json()
    # One counter per seed, in order: the plain rounds took 0..n-1, the choice round n and n+1.
    n = len(plain)
    assert export["fairness"]["counters"] == [n, n + 1]
    assert export["fairness"]["commitment"] == before["commitment"]
    assert export["fairness"]["server_seed"] is None
    with pytest.raises(VerifyError, match="not revealed yet"):
        verify(export)
    # A rotation reveals the server seed and starts a new pair with the player's client seed.
    rotated = c.put("/api/fairness", json={"client_seed": "my lucky seed"}).json()
    revealed = rotated["revealed"]
    assert hashlib.sha256(bytes.fromhex(revealed["server_seed"])).hexdigest() == before[
        "commitment"]
    assert rotated["active"]["client_seed"] == "my lucky seed"
    assert rotated["active"]["commitment"] != before["commitment"]
    assert rotated["active"]["next_counter"] == 0
    export = c.get(f"/api/fairness/rounds/{chosen['round_id']}").json()
    path = tmp_path / "round.json"
    path.write_text(json.dumps(export))
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert f"all {len(chosen['events'])} events replay identically" in result.output
    assert f"round {chosen['round_id']} verified" in result.output
    # Every plain round of the pair verifies too.
    for r in plain[:3]:
        assert verify(c.get(f"/api/fairness/rounds/{r['round_id']}").json())
    # The next round is derived from the new pair.
    r = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key()).json()
    if r["awaiting"] is None:
        e = c.get(f"/api/fairness/rounds/{r['round_id']}").json()["fairness"]
        assert e["client_seed"] == "my lucky seed" and e["counters"] == [0]


@pytest.fixture
def revealed_export(serve_games) -> dict[str, Any]:
    srv = serve_games(GAME, provably_fair=True)
    c, _ = srv.player()
    _, chosen = play_until_choice(c)
    c.put("/api/fairness", json={})
    return dict(c.get(f"/api/fairness/rounds/{chosen['round_id']}").json())


def test_a_tampered_record_fails_on_the_first_wrong_event(revealed_export, tmp_path) -> None:
    assert verify(revealed_export)
    events = revealed_export["round"]["events"]
    assert len(events) >= 3
    events[1] = {**events[1], "win": events[1].get("win", 0) + 1, "tampered": True}
    events[2] = {**events[2], "tampered": True}
    path = tmp_path / "round.json"
    path.write_text(json.dumps(revealed_export))
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 1
    assert f"event 2 of {len(events)} differs" in result.output  # the first wrong one only
    assert "event 3" not in result.output


def test_a_changed_win_fails(revealed_export) -> None:
    revealed_export["round"]["win_credits"] += 1
    with pytest.raises(VerifyError, match="the win differs"):
        verify(revealed_export)


def test_a_reveal_that_does_not_match_its_commitment_fails(revealed_export, tmp_path) -> None:
    revealed_export["fairness"]["server_seed"] = "ab" * 32
    path = tmp_path / "round.json"
    path.write_text(json.dumps(revealed_export))
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 1
    assert "does not match its commitment" in result.output


def test_a_seed_not_derived_from_the_pair_fails(revealed_export) -> None:
    revealed_export["fairness"]["counters"][0] += 1
    with pytest.raises(VerifyError, match="seed 0 is not HMAC-SHA256"):
        verify(revealed_export)


def test_a_file_that_is_no_export_is_refused(tmp_path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{}")
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 2 and "not a round export" in result.output


def test_the_counter_never_gives_one_seed_twice(serve_games) -> None:
    srv = serve_games(GAME, provably_fair=True)
    c, _ = srv.player()
    pid = c.get("/api/session").json()["player"]["id"]
    seeds: list[bytes] = []
    lock = threading.Lock()

    def draw() -> None:
        for _ in range(20):
            s = fair_service.round_seed(srv.ctx, pid, None)
            with lock:
                seeds.append(s)

    threads = [threading.Thread(target=draw) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seeds)) == 120
    active = c.get("/api/fairness").json()["active"]
    assert active["next_counter"] == 120
    rotated = c.put("/api/fairness", json={}).json()["revealed"]
    server_seed = bytes.fromhex(rotated["server_seed"])
    assert sorted(seeds) == sorted(fairness.derive(server_seed, rotated["client_seed"], k)
                                   for k in range(120))


def test_off_where_the_profile_forbids_it_and_unless_the_server_offers_it(serve_games) -> None:
    srv = serve_games(GAME, provably_fair=True, jurisdiction="on")
    c, _ = srv.player()
    r = c.get("/api/fairness")
    assert r.status_code == 403 and r.json()["error"]["code"] == "provably_fair_off"
    assert "R4" in r.json()["error"]["message"]
    played = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key())
    assert played.status_code == 201
    off = serve_games(GAME)
    c2, _ = off.player()
    assert c2.get("/api/fairness").status_code == 403


def test_a_bad_client_seed_is_refused_and_changes_nothing(serve_games) -> None:
    srv = serve_games(GAME, provably_fair=True)
    c, _ = srv.player()
    before = c.get("/api/fairness").json()["active"]
    r = c.put("/api/fairness", json={"client_seed": "x" * 65})
    assert r.status_code == 422
    assert c.get("/api/fairness").json()["active"] == before


def test_rotation_waits_for_a_round_that_waits_for_a_choice(serve_games) -> None:
    srv = serve_games(GAME, provably_fair=True)
    c, _ = srv.player()
    for _ in range(400):
        body = c.post(f"/api/games/{GAME}/rounds", json={"bet": BET}, headers=key()).json()
        if body["awaiting"] is not None:
            break
    else:
        raise AssertionError("no round waited for a choice")
    r = c.put("/api/fairness", json={})
    assert r.status_code == 409 and r.json()["error"]["code"] == "round_awaiting_choice"


def test_the_shipped_example_round_verifies_and_its_tampered_copy_does_not() -> None:
    from slotlab.verify import load
    example = load(Path(__file__).parents[2] / "examples" / "rounds" / "super-12-stars.json")
    assert verify(example)[-1].startswith("win ")
    example["round"]["events"][0]["stops"][0] += 1
    with pytest.raises(VerifyError, match="event 1 of"):
        verify(example)
