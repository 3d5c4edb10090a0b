"""The server's side of a bundle (R6-R10, R17): the jurisdiction profiles and what each
enforces, and a short real run of the server (in this process, on a temporary SQLite file):
game-cycle times from the server's own round timestamps, the minimum cycle refused and then met
under the GB profile, a recall sample with every feature step, and an interrupted round (one
left waiting for a player's choice) completed by the server's sweep."""

from __future__ import annotations

import itertools
import tempfile
import time
import uuid
import warnings
from datetime import datetime
from pathlib import Path
from statistics import median
from typing import Any

with warnings.catch_warnings():  # starlette's note on its httpx transport, not ours to act on
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient
from slotlab.server.app import create_app
from slotlab.server.services.profiles import PROFILES
from slotlab.server.settings import Settings

ADMIN = "certify-admin-token-" + "x" * 16
ABANDON_S = 2.0  # a round waiting this long for its player is completed by the server


def profiles() -> list[dict[str, Any]]:
    return [p.to_json() for p in PROFILES.values()]


def _client(db: Path, **settings: Any) -> TestClient:
    app = create_app(Settings(database_url=f"sqlite:///{db}", admin_token=ADMIN,
                              maintenance_interval_s=3600, **settings))
    return TestClient(app)


def _player(c: TestClient) -> dict[str, str]:
    name, password = f"lab{uuid.uuid4().hex[:8]}", "certify-" + uuid.uuid4().hex
    c.post("/api/players", json={"username": name, "password": password}).raise_for_status()
    r = c.post("/api/sessions", json={"username": name, "password": password})
    r.raise_for_status()
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _round(c: TestClient, auth: dict[str, str], game: str, bet: int) -> Any:
    return c.post(f"/api/games/{game}/rounds", json={"bet": bet},
                  headers={**auth, "Idempotency-Key": uuid.uuid4().hex})


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def run(game_id: str, rounds: int, search: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = _played(Path(tmp) / "mt.db", game_id, rounds, search)
        out["min_cycle_gb"] = _gb_cycle(Path(tmp) / "gb.db", game_id)
    return out


def _played(db: Path, game_id: str, rounds: int, search: int) -> dict[str, Any]:
    with _client(db, games=[game_id], jurisdiction="mt", auto_complete_after_s=ABANDON_S,
                 open_round_grace_s=0) as c:
        auth = _player(c)
        bet = c.get(f"/api/games/{game_id}").json()["bets"][0]
        played, waiting = [], None
        # Rounds back to back; the first that waits for a choice is left waiting (the player
        # gone) and ends the run: no other round can start meanwhile.
        for i in range(rounds + search):
            r = _round(c, auth, game_id, bet)
            r.raise_for_status()
            body = r.json()
            if i < rounds:
                played.append(body)
            if body["awaiting"] is not None:
                waiting = body
                break
        starts = [_t(b["created_at"]) for b in played]
        cycles = [(b - a).total_seconds() * 1000 for a, b in itertools.pairwise(starts)]
        within = [(_t(b["completed_at"]) - _t(b["created_at"])).total_seconds() * 1000
                  for b in played if b["completed_at"]]
        history = c.get("/api/history", headers=auth).json()["rounds"]
        recall = [c.get(f"/api/rounds/{h['round_id']}", headers=auth).json()
                  for h in history[:10]]
        interrupted = _interrupt(c, auth, waiting, search)
    return {
        "rounds_played": len(played),
        "cycle_ms": {"between_round_starts_median": round(median(cycles), 1) if cycles else None,
                     "between_round_starts_min": round(min(cycles), 1) if cycles else None,
                     "start_to_completion_median": round(median(within), 1) if within else None,
                     "source": "created_at and completed_at of each round, as the server "
                               "recorded them (mt profile: no minimum cycle)"},
        "recall": {"history_rounds": len(history), "sample": [_recall_row(r) for r in recall]},
        "interrupted_round": interrupted,
    }


def _recall_row(rec: dict[str, Any]) -> dict[str, Any]:
    return {"round_id": rec["round_id"], "status": rec["status"], "model_hash": rec["model_hash"],
            "code_version": rec["code_version"], "bet": rec["bet"], "win": rec["win"],
            "steps": [e["type"] for e in rec["events"]], "seeds": len(rec["seeds"] or []),
            "choices": rec["choices"], "ledger": [(e["kind"], e["amount"]) for e in rec["ledger"]],
            "created_at": rec["created_at"], "completed_at": rec["completed_at"]}


def _interrupt(c: TestClient, auth: dict[str, str], waiting: dict[str, Any] | None,
               search: int) -> dict[str, Any]:
    if waiting is None:
        return {"shown": False,
                "why": f"no round of this game waited for a player's choice in {search:,} "
                       "rounds (a game without choices finishes every round in its one "
                       "request, committed whole)"}
    rid = waiting["round_id"]
    offered = c.get("/api/rounds/open", headers=auth)
    blocked = _round(c, auth, waiting["game"], waiting["bet_credits"]).status_code
    time.sleep(ABANDON_S + 0.2)  # the player does not come back
    swept = c.post("/api/admin/maintenance", headers={"Authorization": f"Bearer {ADMIN}"}).json()
    rec = c.get(f"/api/rounds/{rid}", headers=auth).json()
    replay = c.get(f"/api/rounds/{rid}/replay", headers=auth).json()
    return {"shown": True, "round_id": rid, "awaiting": waiting["awaiting"],
            "offered_again_as_open_round": offered.status_code == 200
            and offered.json().get("round_id") == rid,
            "another_round_meanwhile": blocked, "abandoned_after_s": ABANDON_S,
            "sweep": swept, "status_after": rec["status"], "outcome": rec["outcome"],
            "choices_after": rec["choices"], "auto_seeds": rec["auto_seeds"] is not None,
            "win": rec["win"], "replay_identical": replay["identical"]}


def _gb_cycle(db: Path, game_id: str) -> dict[str, Any]:
    with _client(db, games=[game_id], jurisdiction="gb", min_round_interval_ms=2500) as c:
        auth = _player(c)
        bet = c.get(f"/api/games/{game_id}").json()["bets"][0]
        first = _round(c, auth, game_id, bet)
        waiting = first.json().get("awaiting") if first.status_code == 201 else None
        if waiting:  # finish it: the next round is then refused for its pace alone
            options = waiting["options"]
            c.post(f"/api/rounds/{first.json()['round_id']}/choices",
                   json={"choice": "collect" if "collect" in options else options[0],
                         "step": first.json()["step"]},
                   headers={**auth, "Idempotency-Key": uuid.uuid4().hex}).raise_for_status()
        too_soon = _round(c, auth, game_id, bet)
        time.sleep(2.6)
        second = _round(c, auth, game_id, bet)
        gap = None
        if first.status_code == 201 and second.status_code == 201:
            gap = (_t(second.json()["created_at"]) - _t(first.json()["created_at"])
                   ).total_seconds() * 1000
        return {"profile": "gb", "min_cycle_ms": PROFILES["gb"].min_cycle_ms,
                "round_right_after": too_soon.status_code,
                "round_right_after_error": too_soon.json().get("error", {}).get("code")
                if too_soon.status_code != 201 else None,
                "round_after_2.6_s": second.status_code, "gap_ms": gap,
                "pass": too_soon.status_code == 429 and gap is not None and gap >= 2500}
