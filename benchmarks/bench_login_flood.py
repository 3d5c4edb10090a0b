"""One player's spin throughput, quiet and during a login flood (16 loops of ``POST /api/sessions``
with unknown usernames and any password): password hashing must not stall play.

Starts a real server process (``slotlab.server.main``) on a fresh SQLite file with the default
argon2 cost, on loopback only, and runs three bounded phases of ``--seconds`` each:

- quiet: one player spins back to back;
- flood: the same player while 16 loops post logins (the default login limits answer 429 soon);
- flood, limits lifted: a second server with the login limits set out of reach, so that every
  flood login is hashed: what the password pool alone keeps from the round path.

Prints the figures and writes benchmarks/results/login_flood.json.

    .venv/bin/python benchmarks/bench_login_flood.py [--seconds 10] [--game classic-3x3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "login_flood.json"
LOG = Path(tempfile.gettempdir()) / "slotlab-bench-login-flood.log"
FLOOD_LOOPS = 16


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db_url: str, game: str, extra_env: dict[str, str]
                 ) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "SLOTLAB_GAMES": json.dumps([game]),
           "SLOTLAB_PLAY_MONEY_BALANCE": str(10**12), **extra_env}
    log = open(LOG, "ab")  # noqa: SIM115 - the server process writes it until it ends
    proc = subprocess.Popen(
        [sys.executable, "-m", "slotlab.server.main", "127.0.0.1", str(port), db_url],
        env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + 900  # a cold kernel cache compiles first
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server died; see {LOG}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return proc, port
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def player_token(port: int) -> str:
    name = f"bench{uuid.uuid4().hex[:12]}"
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
        c.post("/api/players", json={"username": name, "password": "benchmark pw"})
        r = c.post("/api/sessions", json={"username": name, "password": "benchmark pw"})
        return str(r.json()["token"])


async def _call(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: str,
                body: bytes) -> tuple[int, bytes]:
    writer.write((head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body)
    status_line = await reader.readline()
    length = 0
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return int(status_line.split()[1]), await reader.readexactly(length)


async def spinner(port: int, token: str, game: str, bet: int, deadline: float) -> int:
    """Rounds played back to back until ``deadline``; a gamble offered is collected."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (f"Host: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n")
    rounds = 0
    try:
        while time.perf_counter() < deadline:
            status, data = await _call(
                reader, writer, f"POST /api/games/{game}/rounds HTTP/1.1\r\n{head}"
                f"Idempotency-Key: {uuid.uuid4().hex}\r\n", json.dumps({"bet": bet}).encode())
            if status != 201:
                raise RuntimeError(f"spin refused: {status} {data[:200]!r}")
            answer = json.loads(data)
            while answer["status"] == "awaiting_choice":
                status, data = await _call(
                    reader, writer,
                    f"POST /api/rounds/{answer['round_id']}/choices HTTP/1.1\r\n{head}"
                    f"Idempotency-Key: {uuid.uuid4().hex}\r\n", b'{"choice": "collect"}')
                answer = json.loads(data)
            rounds += 1
    finally:
        writer.close()
    return rounds


async def flooder(port: int, deadline: float, answers: Counter[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = "Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
    try:
        while time.perf_counter() < deadline:
            body = json.dumps({"username": f"x{uuid.uuid4().hex[:16]}",
                               "password": "any password"}).encode()
            status, _ = await _call(reader, writer, f"POST /api/sessions HTTP/1.1\r\n{head}",
                                    body)
            answers[status] += 1
    finally:
        writer.close()


async def phase(port: int, token: str, game: str, bet: int, seconds: float, flood: bool
                ) -> dict[str, object]:
    answers: Counter[int] = Counter()
    start = time.perf_counter()
    deadline = start + seconds
    loops = [flooder(port, deadline, answers) for _ in range(FLOOD_LOOPS)] if flood else []
    rounds, *_ = await asyncio.gather(spinner(port, token, game, bet, deadline), *loops)
    elapsed = time.perf_counter() - start
    return {"rounds": rounds, "seconds": round(elapsed, 2),
            "rounds_per_s": round(rounds / elapsed, 1),
            "flood_answers": {str(k): v for k, v in sorted(answers.items())},
            "flood_logins_per_s": round(sum(answers.values()) / elapsed, 1)}


def run(game: str, seconds: float, extra_env: dict[str, str], phases: list[tuple[str, bool]]
        ) -> dict[str, dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(f"sqlite:///{tmp}/bench.db", game, extra_env)
        try:
            token = player_token(port)
            bet = httpx.get(f"http://127.0.0.1:{port}/api/games/{game}", timeout=60
                            ).json()["bets"][0]
            asyncio.run(phase(port, token, game, bet, 2, False))  # warm-up
            out = {}
            for label, flood in phases:
                out[label] = asyncio.run(phase(port, token, game, bet, seconds, flood))
                r = out[label]
                print(f"{label:24s} {r['rounds_per_s']:7.1f} rounds/s   flood "
                      f"{r['flood_logins_per_s']:7.1f} logins/s {r['flood_answers']}")
            return out
        finally:
            proc.terminate()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--game", default="classic-3x3")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    load_at_start = os.getloadavg()
    limited = run(args.game, args.seconds, {}, [("quiet", False), ("flood", True)])
    unlimited = run(args.game, args.seconds,
                    {"SLOTLAB_LOGIN_LIMIT_PER_ADDRESS": str(10**9),
                     "SLOTLAB_LOGIN_LIMIT_PER_USERNAME": str(10**9)},
                    [("quiet, limits lifted", False), ("flood, limits lifted", True)])

    def ratio(flood: dict[str, object], quiet: dict[str, object]) -> float:
        return round(float(flood["rounds_per_s"]) / max(float(quiet["rounds_per_s"]), 1e-9), 3)

    summary = {"flood_vs_quiet": ratio(limited["flood"], limited["quiet"]),
               "flood_vs_quiet_limits_lifted": ratio(unlimited["flood, limits lifted"],
                                                     unlimited["quiet, limits lifted"]),
               "target": ">= 0.8"}
    print(f"flood / quiet: {summary['flood_vs_quiet']:.2f} (limits on), "
          f"{summary['flood_vs_quiet_limits_lifted']:.2f} (limits lifted); target >= 0.80")
    out = {"game": args.game, "seconds": args.seconds, "flood_loops": FLOOD_LOOPS,
           "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                       "loadavg_at_start": [round(x, 2) for x in load_at_start]},
           "phases": {**limited, **unlimited}, "summary": summary}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
