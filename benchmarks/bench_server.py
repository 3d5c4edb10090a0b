"""Loopback load on the game server: durable rounds/s, latency and server CPU per round.

Starts a real ``slotlab serve`` process on SQLite (a fresh file, WAL, synchronous=FULL: every
round durable) and on PostgreSQL (a fresh schema, dropped after; URL from ``--pg`` or
``SLOTLAB_TEST_DATABASE_URL``), registers one player per client, and plays the full round through
the public API: ``POST /api/games/{game}/rounds`` with the player's bearer token, a fresh
``Idempotency-Key`` per request and the game's largest bet (so the jackpots take their
contribution), at 1, 8, 32 and 128 concurrent keep-alive connections.

The load comes from ``benchmarks/c/loadgen.c`` (one thread, epoll), built here with the system
gcc, so that the client costs the server's cores little; ``--client python`` drives it from an
asyncio client in this process instead (it costs the server a core's share). Per level:
rounds/s (201 answers of completed rounds), p50/p90/p99/max latency, answers by status, the
server process's CPU ms per round (``/proc/<pid>/stat`` utime+stime, its child processes
included), the client's own, and how busy the whole machine was (``/proc/stat``) with the load
average, since other work may share it. On PostgreSQL the result records ``fsync`` and
``synchronous_commit`` (SHOW); they are left at their defaults. Passwords are hashed with the
cheapest argon2 settings: logins are set-up here, not what is measured.
Writes benchmarks/results/server.json.

    .venv/bin/python benchmarks/bench_server.py [--seconds 10] [--levels 1,8,32,128] [--pg URL]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
LOADGEN_SOURCE = ROOT / "benchmarks" / "c" / "loadgen.c"
RESULTS = ROOT / "benchmarks" / "results" / "server.json"
LOG = Path(tempfile.gettempdir()) / "slotlab-bench-server.log"
HOST = "127.0.0.1"
CLOCK_TICK_S = 1 / os.sysconf("SC_CLK_TCK")
Level = dict[str, Any]


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def start_server(db_url: str, game: str | list[str], workers: int | None = None,
                 fast_rounds: bool = True, settings: dict[str, str] | None = None
                 ) -> tuple[subprocess.Popen[bytes], int]:
    """``slotlab serve`` offering ``game`` (or each of a list) on a free port, once it answers
    /api/health; ``settings``: more ``SLOTLAB_*`` variables."""
    port = free_port()
    env = {**os.environ, "SLOTLAB_GAMES": json.dumps([game] if isinstance(game, str) else game),
           "SLOTLAB_FAST_ROUNDS": "true" if fast_rounds else "false",
           "SLOTLAB_PLAY_MONEY_BALANCE": str(10**12), "SLOTLAB_ACCESS_LOG": "false",
           "SLOTLAB_ARGON2_TIME_COST": "1", "SLOTLAB_ARGON2_MEMORY_KIB": "64",
           "SLOTLAB_REGISTRATION_LIMIT_PER_ADDRESS": "1000000",  # a player per client
           **(settings or {})}
    cmd = [sys.executable, "-m", "slotlab.cli", "serve", "--host", HOST, "--port", str(port),
           "--db", db_url]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    log = open(LOG, "ab")  # noqa: SIM115 - the server process writes it until it ends
    proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + 300  # numba kernels may be compiling on a cold cache
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server died; see {LOG}")
        try:
            if httpx.get(f"http://{HOST}:{port}/api/health", timeout=1).status_code == 200:
                return proc, port
        except httpx.TransportError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"server did not start; see {LOG}")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def register(port: int, n: int) -> list[str]:
    """Register and log in ``n`` new players; their bearer tokens."""
    tokens = []
    with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=60) as c:
        for _ in range(n):
            creds = {"username": f"bench{uuid.uuid4().hex[:12]}", "password": "benchmark pw"}
            c.post("/api/players", json=creds).raise_for_status()
            r = c.post("/api/sessions", json=creds)
            r.raise_for_status()
            tokens.append(r.json()["token"])
    return tokens


# --- what a level costs: CPU of the server's processes, of postgres, of the whole machine ---

def _ticks(pid: int) -> int:
    """utime + stime of ``pid`` in clock ticks (0 if it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "; comm may hold spaces
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        for task in Path(f"/proc/{p}/task").glob("*/children"):
            with contextlib.suppress(OSError):  # the task ended meanwhile
                todo += [int(c) for c in task.read_text().split()]
    return found


def process_cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and its live descendants (worker processes)."""
    return sum(_ticks(p) for p in _descendants(pid)) * CLOCK_TICK_S


def postgres_cpu_s() -> float:
    """CPU seconds of every live ``postgres`` process on this machine (others' included)."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if "(postgres)" in stat.read_text():
                total += _ticks(int(stat.parent.name))
        except OSError:
            pass
    return total * CLOCK_TICK_S


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    total = sum(values[:8])  # guest time is already inside user
    return total - idle, total


class Meter:
    """CPU spent between ``__enter__`` and ``__exit__`` by the server, postgres, the machine."""

    def __init__(self, server_pid: int, postgres: bool) -> None:
        self.server_pid, self.postgres = server_pid, postgres

    def __enter__(self) -> Meter:
        self._server = process_cpu_s(self.server_pid)
        self._pg = postgres_cpu_s() if self.postgres else 0.0
        self._machine = machine_ticks()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server_s = process_cpu_s(self.server_pid) - self._server
        self.postgres_s = postgres_cpu_s() - self._pg if self.postgres else None
        busy, total = machine_ticks()
        self.machine_busy = (busy - self._machine[0]) / max(1, total - self._machine[1])

    def annotate(self, row: Level) -> Level:
        """``row`` with the CPU figures per round added."""
        per_round = 1000 / max(1, row["rounds"])
        row["server_cpu_ms_per_round"] = round(self.server_s * per_round, 3)
        if self.postgres_s is not None:
            row["postgres_cpu_ms_per_round"] = round(self.postgres_s * per_round, 3)
        row["client_cpu_ms_per_round"] = round(row.pop("client_cpu_s") * per_round, 3)
        row["machine_cpu_busy"] = round(self.machine_busy, 3)
        row["load_average"] = [round(x, 2) for x in os.getloadavg()]
        return row


# --- the compiled client ---

def build_loadgen(folder: Path) -> Path:
    """``benchmarks/c/loadgen.c`` built with gcc into ``folder``; the executable."""
    if shutil.which("gcc") is None:
        raise RuntimeError("gcc is needed to build benchmarks/c/loadgen.c (or use --client python)")
    exe = folder / "loadgen"
    subprocess.run(["gcc", "-O2", "-Wall", "-o", str(exe), str(LOADGEN_SOURCE)], check=True,
                   capture_output=True, text=True)
    return exe


def c_level(exe: Path, port: int, tokens_file: Path, path: str, body: str, concurrency: int,
            seconds: float) -> Level:
    """One run of the C load generator; its JSON line as a dict."""
    out = subprocess.run([str(exe), HOST, str(port), path, body, str(tokens_file),
                          str(concurrency), str(seconds)], check=True, capture_output=True,
                         text=True)
    row: Level = json.loads(out.stdout)
    return row


# --- the Python client (--client python) ---

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
                  latencies: list[float], statuses: Counter[int], rounds: list[int]) -> None:
    """Play rounds back to back; a round that offers a choice is collected at once."""
    reader, writer = await asyncio.open_connection(HOST, port)
    auth = (f"Host: {HOST}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n")
    try:
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            status, data = await _request(reader, writer, f"POST {path} HTTP/1.1\r\n{auth}", body)
            latencies.append(time.perf_counter() - t0)
            statuses[status] += 1
            if status != 201:
                continue
            answer = json.loads(data)
            while answer["status"] == "awaiting_choice":
                t0 = time.perf_counter()
                status, data = await _request(
                    reader, writer,
                    f"POST /api/rounds/{answer['round_id']}/choices HTTP/1.1\r\n{auth}",
                    json.dumps({"choice": "collect", "step": answer["step"]}).encode())
                latencies.append(time.perf_counter() - t0)
                statuses[status] += 1
                answer = json.loads(data)
                if status != 200:
                    print("choice refused:", answer, file=sys.stderr)
                    break
            else:
                rounds.append(1)
    finally:
        writer.close()


def _nearest_rank(sorted_values: list[float], p: float) -> float:
    rank = math.ceil(p * len(sorted_values))  # 1-based, as the C client counts
    return sorted_values[min(max(rank, 1), len(sorted_values)) - 1]


def python_level(port: int, tokens: list[str], path: str, body: str, concurrency: int,
                 seconds: float) -> Level:
    """The same measurement from an asyncio client in this process."""
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    rounds: list[int] = []
    cpu0 = time.process_time()
    start = time.perf_counter()

    async def play() -> None:
        await asyncio.gather(*(_client(port, tokens[i], path, body.encode(), start + seconds,
                                       latencies, statuses, rounds)
                               for i in range(concurrency)))

    asyncio.run(play())
    elapsed = time.perf_counter() - start
    lat = sorted(latencies)
    return {"concurrency": concurrency, "rounds": len(rounds), "requests": len(lat),
            "seconds": round(elapsed, 3), "rounds_per_s": round(len(rounds) / elapsed, 1),
            **{f"p{p}_ms": round(1000 * _nearest_rank(lat, p / 100), 3) for p in (50, 90, 99)},
            "max_ms": round(1000 * lat[-1], 3), "mean_ms": round(1000 * sum(lat) / len(lat), 3),
            "client_cpu_s": time.process_time() - cpu0,
            "status_counts": {str(k): v for k, v in sorted(statuses.items())}}


# --- one backend ---

def postgres_settings(url: str) -> dict[str, str]:
    """The durability settings the PostgreSQL server runs with (SHOW)."""
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as c:
            return {name: str(c.execute(text(f"SHOW {name}")).scalar())
                    for name in ("fsync", "synchronous_commit", "wal_sync_method",
                                 "server_version")}
    finally:
        engine.dispose()


def print_row(backend: str, r: Level) -> None:
    others = {k: v for k, v in r["status_counts"].items() if k != "201"}
    pg = (f"  pg {r['postgres_cpu_ms_per_round']:6.2f}" if "postgres_cpu_ms_per_round" in r
          else "")
    print(f"{backend:8s} c={r['concurrency']:3d} {r['rounds_per_s']:8.1f} rounds/s  "
          f"p50 {r['p50_ms']:7.2f}  p90 {r['p90_ms']:7.2f}  p99 {r['p99_ms']:7.2f}  "
          f"max {r['max_ms']:7.2f} ms  cpu ms/round: server {r['server_cpu_ms_per_round']:5.2f}"
          f"{pg}  client {r['client_cpu_ms_per_round']:5.3f}  machine busy "
          f"{100 * r['machine_cpu_busy']:3.0f}%  load {r['load_average'][0]:.1f}"
          + (f"  other answers {others}" if others else ""), flush=True)


def bench(backend: str, db_url: str, args: argparse.Namespace, loadgen: Path | None
          ) -> dict[str, Any]:
    proc, port = start_server(db_url, args.game, args.workers, not args.general,
                              {"SLOTLAB_SPLIT_ROUND_COMMITS": "true"} if args.split else None)
    try:
        tokens = register(port, max(*args.levels, args.warmup_clients))
        info = httpx.get(f"http://{HOST}:{port}/api/games/{args.game}", timeout=60).json()
        if "bets" not in info:
            raise RuntimeError(f"server says: {info}")
        bet = args.bet or max(info["bets"])
        path, body = f"/api/games/{args.game}/rounds", json.dumps({"bet": bet})
        with tempfile.TemporaryDirectory() as tmp:
            tokens_file = Path(tmp) / "tokens"
            tokens_file.write_text("\n".join(tokens) + "\n")

            def level(concurrency: int, seconds: float) -> Level:
                if loadgen is None:
                    return python_level(port, tokens, path, body, concurrency, seconds)
                return c_level(loadgen, port, tokens_file, path, body, concurrency, seconds)

            if args.warmup > 0:
                level(args.warmup_clients, args.warmup)
            rows = []
            for concurrency in args.levels:
                with Meter(proc.pid, postgres=backend == "postgres") as meter:
                    row = level(concurrency, args.seconds)
                row["errors"] = row["requests"] - row["rounds"]
                rows.append(meter.annotate(row))
                print_row(backend, rows[-1])
        result: dict[str, Any] = {"backend": backend, "game": args.game, "bet": bet,
                                  "workers": args.workers or 1,
                                  "fast_rounds": not args.general and not args.split,
                                  "split_round_commits": args.split, "levels": rows}
        if backend == "postgres":
            result["postgres_settings"] = postgres_settings(db_url)
        return result
    finally:
        stop_server(proc)


@contextlib.contextmanager
def fresh_schema(pg: str) -> Iterator[str]:
    """The URL of a new schema of the PostgreSQL database ``pg``, dropped after."""
    from sqlalchemy import create_engine, text

    from slotlab.store import normalize_url

    schema = f"slotlab_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(normalize_url(pg), isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        sep = "&" if "?" in pg else "?"
        yield f"{normalize_url(pg)}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def bench_postgres(args: argparse.Namespace, loadgen: Path | None) -> dict[str, Any]:
    """The benchmark on a fresh schema of ``args.pg``, dropped after."""
    with fresh_schema(args.pg) as url:
        return bench("postgres", url, args, loadgen)


def fsync_ms(folder: Path, times: int = 200) -> dict[str, float]:
    """The disk's sync latency where the SQLite file lives (4 KiB written, then fsync): a
    durable commit waits for one, so SQLite's rounds/s follow it from one machine to another."""
    probe = folder / "fsync-probe"
    fd = os.open(probe, os.O_WRONLY | os.O_CREAT, 0o600)
    took = []
    try:
        for _ in range(times):
            os.write(fd, b"\0" * 4096)
            start = time.perf_counter()
            os.fsync(fd)
            took.append((time.perf_counter() - start) * 1000)
    finally:
        os.close(fd)
        probe.unlink()
    took.sort()
    return {"p50": round(took[times // 2], 3), "p90": round(took[times * 9 // 10], 3),
            "max": round(took[-1], 3)}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10, help="per level")
    ap.add_argument("--levels", default="1,8,32,128", help="concurrent clients, comma-separated")
    ap.add_argument("--game", default="crystal-star-deluxe")
    ap.add_argument("--bet", type=int, default=None, help="minor units (default: the largest)")
    ap.add_argument("--pg", default=os.environ.get("SLOTLAB_TEST_DATABASE_URL"),
                    help="PostgreSQL URL (default: $SLOTLAB_TEST_DATABASE_URL)")
    ap.add_argument("--no-pg", action="store_true", help="SQLite only")
    ap.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    ap.add_argument("--client", choices=("c", "python"), default="c",
                    help="c: benchmarks/c/loadgen.c; python: an asyncio client in this process")
    ap.add_argument("--workers", type=int, default=None,
                    help="passed to slotlab serve --workers (default: not passed)")
    ap.add_argument("--general", action="store_true",
                    help="every round on the general path (SLOTLAB_FAST_ROUNDS=false)")
    ap.add_argument("--split", action="store_true",
                    help="split commits (SLOTLAB_SPLIT_ROUND_COMMITS=true): each round's debit "
                         "committed before it is played, the app answering every request")
    ap.add_argument("--warmup", type=float, default=2, help="seconds of warm-up load first")
    ap.add_argument("--warmup-clients", type=int, default=4)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    args.levels = [int(x) for x in args.levels.split(",")]
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    load_at_start = os.getloadavg()
    print(f"load average at start {load_at_start[0]:.2f} {load_at_start[1]:.2f} "
          f"{load_at_start[2]:.2f} on {os.cpu_count()} CPUs"
          + (" (other work is running: figures are lower than on an idle machine)"
             if load_at_start[0] > 0.5 else ""), flush=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        sync = fsync_ms(Path(tmp))
        print(f"fsync of 4 KiB here: p50 {sync['p50']:.2f} ms, p90 {sync['p90']:.2f} ms",
              flush=True)
        loadgen = build_loadgen(Path(tmp)) if args.client == "c" else None
        if not args.no_sqlite:
            results.append(bench("sqlite", f"sqlite:///{tmp}/bench.db", args, loadgen))
        if args.pg and not args.no_pg:
            results.append(bench_postgres(args, loadgen))
    load_at_end = os.getloadavg()
    out = {
        "what": "POST /api/games/{game}/rounds over loopback HTTP, one durable round per request",
        "client": "benchmarks/c/loadgen.c" if args.client == "c" else "asyncio (python)",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_at_start": load_at_start,
                    "load_average_at_end": load_at_end, "fsync_ms": sync},
        "command": " ".join(["python", sys.argv[0], *(sys.argv[1:] if argv is None else argv)]),
        "results": results,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"load average at end {load_at_end[0]:.2f}; wrote {args.out}")


if __name__ == "__main__":
    main()
