"""JSON-lines logs of a real ``slotlab serve`` (``SLOTLAB_LOG_FORMAT=json``): a line per request
and per round settled, tied by the request id the answer returns in ``X-Request-ID``; no line
holds a password, a session token or a seed."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

import httpx

from .. import processes
from .server_util import LiveServer, free_port


def test_requests_and_rounds_are_json_lines_with_their_request_id(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "SLOTLAB_GAMES": '["classic-3x3"]', "SLOTLAB_LOG_FORMAT": "json",
           "SLOTLAB_ARGON2_TIME_COST": "1", "SLOTLAB_ARGON2_MEMORY_KIB": "64"}
    log = tmp_path / "serve.log"
    proc = processes.start([str(Path(sys.executable).parent / "slotlab"), "serve", "--port",
                            str(port), "--db", f"sqlite:///{tmp_path / 'logs.db'}"], log, env)
    url = f"http://127.0.0.1:{port}"
    password = "correct horse " + uuid.uuid4().hex[:8]
    answers: dict[str, dict[str, object]] = {}  # request id -> the round it answered
    seeds: list[str] = []
    try:
        processes.wait_until_answers(proc, f"{url}/health/live", log)
        with httpx.Client(base_url=url, timeout=30) as c:
            name = f"p{uuid.uuid4().hex[:10]}"
            c.post("/api/players", json={"username": name, "password": password})
            token = c.post("/api/sessions", json={"username": name, "password": password}
                           ).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            gambled = False
            for i in range(60):
                rid = f"req-{i}-{uuid.uuid4().hex[:6]}"
                r = c.post("/api/games/classic-3x3/rounds", json={"bet": 5},
                           headers={**auth, "Idempotency-Key": uuid.uuid4().hex,
                                    "X-Request-ID": rid})
                assert r.status_code == 201 and r.headers["x-request-id"] == rid
                body = r.json()
                if body["status"] == "awaiting_choice":  # a gamble: settled by the choice
                    gambled = True
                    rid = f"choice-{i}"
                    r = c.post(f"/api/rounds/{body['round_id']}/choices",
                               json={"choice": "collect", "step": body["step"]},
                               headers={**auth, "Idempotency-Key": uuid.uuid4().hex,
                                        "X-Request-ID": rid})
                    assert r.status_code == 200 and r.headers["x-request-id"] == rid
                    body = r.json()
                answers[rid] = body
                seeds += c.get(f"/api/rounds/{body['round_id']}", headers=auth).json()["seeds"]
            assert gambled, "no round waited for a choice: the seed check needs one"
            own = c.get("/api/health")
            assert len(own.headers["x-request-id"]) == 32  # none sent: one is made
    finally:
        processes.stop(proc)
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]  # every line JSON
    settled = {ln["request_id"]: ln for ln in lines if ln.get("event") == "round_settled"}
    requests = {ln["request_id"]: ln for ln in lines if ln.get("event") == "request"}
    for rid, body in answers.items():
        round_line = settled[rid]
        assert (round_line["round_id"], round_line["game"], round_line["bet"],
                round_line["win"]) == (body["round_id"], "classic-3x3", 5,
                                       body["win"] + body["jackpot_win"])
        assert isinstance(round_line["player_id"], int)
        assert requests[rid]["status"] in (200, 201) and requests[rid]["path"].startswith("/api/")
    for secret in (password, token, *seeds):
        assert secret not in text
    assert any("listening on" in ln["msg"] for ln in lines)


def test_an_insane_request_id_is_replaced(server: LiveServer) -> None:
    with server.client() as c:
        for given in ("a b", "x" * 300, "<script>"):
            got = c.get("/api/health", headers={"X-Request-ID": given}).headers["x-request-id"]
            assert got != given and len(got) == 32
        assert c.get("/api/health", headers={"X-Request-ID": "lb-7f3a.1"}
                     ).headers["x-request-id"] == "lb-7f3a.1"
