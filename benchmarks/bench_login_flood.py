"""One player's spin throughput, quiet and during a login flood (16 loops of ``POST /api/sessions``
with unknown usernames and any password): password hashing must not stall play.

Starts a real server process (``slotlab.server.main``) on a fresh SQLite file with the default
argon2 cost, on loopback only, and alternates bounded phases of ``--seconds`` each (``--repeat``
pairs; the medians are reported):

- quiet: one player spins back to back;
- flood: the same player while 16 loops (in a process of their own) post logins; the default
  login limits answer 429 soon;
- then both again on a second server with the login limits set out of reach, so that every
  flood login is hashed: what the password pool alone keeps from the round path.

Prints the figures and writes benchmarks/results/login_flood.json.

    .venv/bin/python benchmarks/bench_login_flood.py [--seconds 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

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
                    f"Idempotency-Key: {uuid.uuid4().hex}\r\n",
                    json.dumps({"choice": "collect", "step": answer["step"]}).encode())
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


def _flood_process(port: int, seconds: float, out: Any) -> None:
    """The 16 flood loops, in a process of their own: the measured spinner keeps its own
    event loop and interpreter, so the figure is the server's, not the load generator's."""

    async def go() -> Counter[int]:
        answers: Counter[int] = Counter()
        deadline = time.perf_counter() + seconds
        await asyncio.gather(*(flooder(port, deadline, answers) for _ in range(FLOOD_LOOPS)))
        return answers

    out.put(dict(asyncio.run(go())))


async def phase(port: int, token: str, game: str, bet: int, seconds: float, flood: bool
                ) -> dict[str, object]:
    answers: dict[int, int] = {}
    proc = queue = None
    if flood:
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        proc = ctx.Process(target=_flood_process, args=(port, seconds, queue))
        proc.start()
    start = time.perf_counter()
    rounds = await spinner(port, token, game, bet, start + seconds)
    elapsed = time.perf_counter() - start
    if proc is not None and queue is not None:
        answers = queue.get(timeout=seconds + 120)
        proc.join()
    return {"rounds": rounds, "seconds": round(elapsed, 2),
            "rounds_per_s": round(rounds / elapsed, 1),
            "flood_answers": {str(k): v for k, v in sorted(answers.items())},
            "flood_logins_per_s": round(sum(answers.values()) / elapsed, 1)}


def run(game: str, seconds: float, repeat: int, extra_env: dict[str, str], label: str
        ) -> dict[str, object]:
    """Quiet and flood phases alternated ``repeat`` times on one server: the medians of each,
    so that a burst of other load on the machine moves both about alike."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(f"sqlite:///{tmp}/bench.db", game, extra_env)
        try:
            token = player_token(port)
            bet = httpx.get(f"http://127.0.0.1:{port}/api/games/{game}", timeout=60
                            ).json()["bets"][0]
            asyncio.run(phase(port, token, game, bet, 2, False))  # warm-up
            runs: dict[str, list[dict[str, object]]] = {"quiet": [], "flood": []}
            for _ in range(repeat):
                for name, flooded in (("quiet", False), ("flood", True)):
                    r = asyncio.run(phase(port, token, game, bet, seconds, flooded))
                    runs[name].append(r)
                    print(f"{label:14s} {name:6s} {r['rounds_per_s']:7.1f} rounds/s   flood "
                          f"{r['flood_logins_per_s']:7.1f} logins/s {r['flood_answers']}")
        finally:
            proc.terminate()
            proc.wait()
    quiet = statistics.median(float(str(r["rounds_per_s"])) for r in runs["quiet"])
    flood = statistics.median(float(str(r["rounds_per_s"])) for r in runs["flood"])
    ratio = round(flood / max(quiet, 1e-9), 3)
    print(f"{label:14s} median quiet {quiet:.1f}, flood {flood:.1f} rounds/s: "
          f"flood / quiet {ratio:.2f} (target >= 0.80)")
    return {"quiet_rounds_per_s": quiet, "flood_rounds_per_s": flood, "flood_vs_quiet": ratio,
            "runs": runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--repeat", type=int, default=3, help="quiet/flood pairs per server")
    ap.add_argument("--game", default="classic-3x3")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    load_at_start = os.getloadavg()
    limited = run(args.game, args.seconds, args.repeat, {}, "limits on")
    lifted = run(args.game, args.seconds, args.repeat,
                 {"SLOTLAB_LOGIN_LIMIT_PER_ADDRESS": str(10**9),
                  "SLOTLAB_LOGIN_LIMIT_PER_USERNAME": str(10**9)}, "limits lifted")
    out = {"game": args.game, "seconds": args.seconds, "repeat": args.repeat,
           "flood_loops": FLOOD_LOOPS, "target": "flood >= 0.8 x quiet",
           "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                       "loadavg_at_start": [round(x, 2) for x in load_at_start],
                       "loadavg_at_end": [round(x, 2) for x in os.getloadavg()]},
           "limits_on": limited, "limits_lifted": lifted}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
