"""Play provably fair rounds of a game on a server in this process (a temporary SQLite file),
reveal the seed pair and write the export of the first round that won something: the round
README verifies with ``slotlab verify``.

    python examples/rounds/export_round.py super-12-stars examples/rounds/super-12-stars.json
"""

from __future__ import annotations

import json
import sys
import tempfile
import uuid
import warnings
from pathlib import Path

from slotlab.server.app import create_app
from slotlab.server.settings import Settings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def export(game: str, out: Path, tries: int = 200) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(Settings(database_url=f"sqlite:///{tmp}/fair.db", games=[game],
                                  provably_fair=True))
        with TestClient(app) as c:
            name, password = f"p{uuid.uuid4().hex[:8]}", "example-" + uuid.uuid4().hex
            c.post("/api/players", json={"username": name, "password": password})
            token = c.post("/api/sessions", json={"username": name, "password": password})
            auth = {"Authorization": f"Bearer {token.json()['token']}"}
            c.put("/api/fairness", json={"client_seed": "my own seed"}, headers=auth)
            bet = c.get(f"/api/games/{game}").json()["bets"][0]
            for _ in range(tries):
                r = c.post(f"/api/games/{game}/rounds", json={"bet": bet},
                           headers={**auth, "Idempotency-Key": uuid.uuid4().hex}).json()
                if r["awaiting"] is None and r["win"] > 0:
                    break
            c.put("/api/fairness", json={}, headers=auth)  # reveals the server seed
            data: dict[str, object] = c.get(f"/api/fairness/rounds/{r['round_id']}",
                                            headers=auth).json()
    out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


if __name__ == "__main__":
    export(sys.argv[1], Path(sys.argv[2]))
