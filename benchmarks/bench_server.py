"""Loopback load on the game server: rounds/s and p50/p99 latency at concurrency 1, 8 and 32.

Starts a real server process (``slotlab.server.main.run``) on SQLite (a fresh file, WAL,
synchronous=FULL: every round durable) and on PostgreSQL (a fresh schema; URL from
``--pg`` or ``SLOTLAB_TEST_DATABASE_URL``), registers one player per client, and drives
``POST /api/games/{game}/rounds`` with a lean asyncio HTTP/1.1 keep-alive client running on the
same machine. Every request carries a fresh Idempotency-Key. Writes benchmarks/results/server.json.

    .venv/bin/python benchmarks/bench_server.py [--seconds 10] [--game crystal-star-deluxe]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "server.json"
LOG = Path(tempfile.gettempdir()) / "slotlab-bench-server.log"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db_url: str, game: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "SLOTLAB_GAMES": json.dumps([game]),
           "SLOTLAB_PLAY_MONEY_BALANCE": str(10**12), "SLOTLAB_ACCESS_LOG": "false"}
    log = open(LOG, "ab")  # noqa: SIM115 - the server process writes it until it ends
    proc = subprocess.Popen(
        [sys.executable, "-m", "slotlab.server.main", "127.0.0.1", str(port), db_url],
        env=env, stdout=log, stderr=log)
    for _ in range(12000):
        if proc.poll() is not None:
            raise RuntimeError(f"server died; see {LOG}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc, port
        except httpx.TransportError:
            time.sleep(0.01)
    raise RuntimeError("server did not start")


def register(port: int, n: int) -> list[str]:
    tokens = []
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
        for _ in range(n):
            name = f"bench{uuid.uuid4().hex[:12]}"
            c.post("/api/players", json={"username": name, "password": "benchmark pw"})
            tokens.append(c.post("/api/sessions", json={"username": name,
                                                        "password": "benchmark pw"}
                                 ).json()["token"])
    return tokens


async def _request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: str,
                   body: bytes) -> tuple[int, bytes]:
    writer.write((head + f"Content-Length: {len(body)}\r\n"
                  f"Idempotency-Key: {uuid.uuid4().hex}\r\n\r\n").encode() + body)
    status_line = await reader.readline()
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return int(status_line.split()[1]), await reader.readexactly(length)


async def _client(port: int, token: str, path: str, body: bytes, deadline: float,
                  latencies: list[float], errors: list[int], rounds: list[int]) -> None:
    """Play rounds back to back; a round that offers a gamble is collected at once."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    auth = (f"Host: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n")
    try:
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            status, data = await _request(reader, writer, f"POST {path} HTTP/1.1\r\n{auth}", body)
            latencies.append(time.perf_counter() - t0)
            if status != 201:
                errors.append(status)
                continue
            answer = json.loads(data)
            while answer["status"] == "awaiting_choice":
                t0 = time.perf_counter()
                status, data = await _request(
                    reader, writer,
                    f"POST /api/rounds/{answer['round_id']}/choices HTTP/1.1\r\n{auth}",
                    b'{"choice": "collect"}')
                latencies.append(time.perf_counter() - t0)
                answer = json.loads(data)
                if status != 200:
                    errors.append(status)
                    print("choice refused:", answer, file=sys.stderr)
                    break
            else:
                rounds.append(1)
    finally:
        writer.close()


async def run_level(port: int, tokens: list[str], path: str, bet: int, concurrency: int,
                    seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    errors: list[int] = []
    rounds: list[int] = []
    body = json.dumps({"bet": bet}).encode()
    start = time.perf_counter()
    deadline = start + seconds
    await asyncio.gather(*(_client(port, tokens[i], path, body, deadline, latencies, errors,
                                   rounds) for i in range(concurrency)))
    elapsed = time.perf_counter() - start
    lat = sorted(latencies)
    return {
        "concurrency": concurrency,
        "rounds": len(rounds),
        "requests": len(lat),
        "seconds": round(elapsed, 2),
        "rounds_per_s": round(len(rounds) / elapsed, 1),
        "p50_ms": round(1000 * lat[len(lat) // 2], 2),
        "p99_ms": round(1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))], 2),
        "mean_ms": round(1000 * statistics.fmean(lat), 2),
        "errors": len(errors),
    }


def bench(backend: str, db_url: str, game: str, bet: int | None, seconds: float,
          levels: list[int]) -> dict[str, object]:
    proc, port = start_server(db_url, game)
    try:
        tokens = register(port, max(*levels, 4))
        info = httpx.get(f"http://127.0.0.1:{port}/api/games/{game}", timeout=60).json()
        if "bets" not in info:
            raise RuntimeError(f"server says: {info}")
        bet = bet or info["bets"][0]
        path = f"/api/games/{game}/rounds"
        asyncio.run(run_level(port, tokens, path, bet, 4, 2))  # warm-up
        rows = [asyncio.run(run_level(port, tokens, path, bet, c, seconds)) for c in levels]
        for r in rows:
            print(f"{backend:8s} c={r['concurrency']:3d} {r['rounds_per_s']:8.1f} rounds/s  "
                  f"p50 {r['p50_ms']:7.2f} ms  p99 {r['p99_ms']:7.2f} ms  errors {r['errors']}")
        return {"backend": backend, "game": game, "bet": bet, "levels": rows}
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--game", default="crystal-star-deluxe")
    ap.add_argument("--bet", type=int, default=None, help="minor units (default: smallest)")
    ap.add_argument("--pg", default=os.environ.get("SLOTLAB_TEST_DATABASE_URL"))
    ap.add_argument("--levels", default="1,8,32")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    args = ap.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    load_at_start = os.getloadavg()
    results = []
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as tmp:
            results.append(bench("sqlite", f"sqlite:///{tmp}/bench.db", args.game, args.bet,
                                 args.seconds, levels))
    if args.pg:
        from sqlalchemy import create_engine, text

        from slotlab.store import normalize_url

        schema = f"slotlab_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(normalize_url(args.pg), isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
        try:
            sep = "&" if "?" in args.pg else "?"
            url = f"{normalize_url(args.pg)}{sep}options=-csearch_path%3D{schema}"
            results.append(bench("postgres", url, args.game, args.bet, args.seconds, levels))
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    out = {
        "what": "POST /api/games/{game}/rounds over loopback HTTP, one durable round per request",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_at_start": load_at_start,
                    "load_average_at_end": os.getloadavg()},
        "command": "python " + " ".join(sys.argv),
        "results": results,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
