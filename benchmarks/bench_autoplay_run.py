"""What an autoplay round costs as its run grows: a long run's rounds must not cost more than
its first ones.

Starts a real ``slotlab serve`` process offering Crystal Star Deluxe on PostgreSQL (a fresh
schema; ``--pg`` or ``SLOTLAB_TEST_DATABASE_URL``) and on SQLite (a fresh file), both durable.
``--players`` players each start one autoplay run (the ``mt`` profile, a round limit far away)
and play it at the smallest bet, all at once, in segments of ``--segment`` rounds per player;
per segment: the run's length when it began, rounds/s, the server's and PostgreSQL's CPU ms per
round. Writes benchmarks/results/autoplay_run.json.

    .venv/bin/python benchmarks/bench_autoplay_run.py [--players 16] [--segments 8]
        [--segment 250]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import bench_server as bs  # the sibling script: server start, CPU meters, fresh schema
import httpx

GAME = "crystal-star-deluxe"
RESULTS = Path(__file__).parent / "results"


async def _play(c: httpx.AsyncClient, token: str, run_id: int, bet: int, rounds: int) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(rounds):
        r = await c.post(f"/api/games/{GAME}/rounds", headers={**auth,
                         "Idempotency-Key": uuid.uuid4().hex},
                         json={"bet": bet, "autoplay": {"run_id": run_id}})
        if r.status_code != 201:
            raise RuntimeError(f"round refused: {r.status_code} {r.text}")


def _runs(port: int, tokens: list[str]) -> tuple[list[int], int]:
    with httpx.Client(base_url=f"http://{bs.HOST}:{port}", timeout=60) as c:
        bet = int(c.get(f"/api/games/{GAME}").json()["bets"][0])
        ids = []
        for t in tokens:
            r = c.post("/api/autoplay", json={"game": GAME, "rounds": 100_000},
                       headers={"Authorization": f"Bearer {t}"})
            r.raise_for_status()
            ids.append(int(r.json()["run_id"]))
    return ids, bet


def bench(backend: str, db_url: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    proc, port = bs.start_server(db_url, GAME)
    rows = []
    try:
        tokens = bs.register(port, args.players)
        runs, bet = _runs(port, tokens)

        async def segment() -> None:
            limits = httpx.Limits(max_connections=args.players)
            async with httpx.AsyncClient(base_url=f"http://{bs.HOST}:{port}", timeout=60,
                                         limits=limits) as c:
                await asyncio.gather(*(_play(c, t, run, bet, args.segment)
                                       for t, run in zip(tokens, runs, strict=True)))

        for i in range(args.segments):
            meter = bs.Meter(proc.pid, backend == "postgresql")
            start = time.perf_counter()
            with meter:
                asyncio.run(segment())
            elapsed = time.perf_counter() - start
            n = args.segment * args.players
            row = {"backend": backend, "run_length_before": i * args.segment,
                   "rounds": n, "rounds_per_s": round(n / elapsed, 1),
                   "server_cpu_ms_per_round": round(meter.server_s * 1000 / n, 3)}
            if meter.postgres_s is not None:
                row["postgres_cpu_ms_per_round"] = round(meter.postgres_s * 1000 / n, 3)
            print(json.dumps(row))
            rows.append(row)
    finally:
        bs.stop_server(proc)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--players", type=int, default=16)
    ap.add_argument("--segments", type=int, default=8)
    ap.add_argument("--segment", type=int, default=250, help="rounds per player per segment")
    ap.add_argument("--pg", default=os.environ.get("SLOTLAB_TEST_DATABASE_URL"))
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS / "autoplay_run.json")
    args = ap.parse_args()
    rows: list[dict[str, Any]] = []
    if args.pg:
        with bs.fresh_schema(args.pg) as url:
            rows += bench("postgresql", url, args)
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as tmp:
            rows += bench("sqlite", f"sqlite:///{tmp}/autoplay-run.db", args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"players": args.players, "segment": args.segment,
                                    "load_average": os.getloadavg(), "rows": rows},
                                   indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
