"""Soak: real server processes killed with SIGKILL every few seconds under load, reconciled to
the cent after every restart, on SQLite and PostgreSQL.

    python benchmarks/soak.py                      # 30 minutes per database, 16 clients
    python benchmarks/soak.py --seconds 45 --db sqlite

Each cycle starts ``slotlab serve`` on a fresh port (the same database throughout), runs
``--clients`` players on Fruit Fiesta (gamble choices included) and Crystal Star Deluxe (its
progressives), and kills the process with SIGKILL after a random 2-6 seconds of play. Every
request a kill cut short is sent again, with its idempotency key, once the server is back: it
must be answered as the first time (the same round) or refused in words, and move money once.
After every restart:

- ``GET /api/admin/audit`` is ok (every balance equals its ledger, none negative, pools add up);
- no round is left ``open`` (start-up recovery played every debited round);
- every round a client was told was created still exists;
- every round ties to its ledger entries: a completed round's entries sum to its win plus its
  jackpot win minus its bet (no bet for a free round), a cancelled round's to zero, a round
  waiting for a choice to minus its bet.

Loopback only, bounded by ``--seconds``/``--minutes`` (past them only for the cycles
``--min-kills`` still asks); it stops by itself. Figures are printed
and written to ``benchmarks/results/soak.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

RESULTS = Path(__file__).parent / "results"
ADMIN_TOKEN = "soak-admin-token-" + uuid.uuid4().hex
GAMES = {"fruit-5x3": 30, "crystal-star-deluxe": 9}  # game -> bet (minor units)
CHOICES = ("red", "black", "collect", "collect")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Ledger:
    """What the clients saw: rounds created, requests cut short by a kill, answers to retries."""

    seen: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    rounds: int = 0
    choices: int = 0
    retried: int = 0
    retry_same: int = 0
    errors: list[str] = field(default_factory=list)


class Server:
    def __init__(self, db_url: str) -> None:
        self.db_url = db_url
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> None:
        port = _free_port()
        env = {**os.environ, "SLOTLAB_ADMIN_TOKEN": ADMIN_TOKEN,
               "SLOTLAB_GAMES": json.dumps(list(GAMES)),
               "SLOTLAB_PLAY_MONEY_BALANCE": str(10**9),
               "SLOTLAB_ARGON2_TIME_COST": "1", "SLOTLAB_ARGON2_MEMORY_KIB": "64",
               "SLOTLAB_REGISTRATION_LIMIT_PER_ADDRESS": "1000000"}  # every player from here
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slotlab.cli", "serve", "--port", str(port),
             "--db", self.db_url], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 600  # a cold kernel cache compiles on the first start
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"server died at start-up: {err[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/health", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _players(url: str, n: int) -> list[tuple[str, str]]:
    """``n`` new players and their tokens (sessions live in the database: they outlive kills)."""
    out = []
    with httpx.Client(base_url=url, timeout=30) as c:
        for i in range(n):
            name = f"soak{i}-{uuid.uuid4().hex[:8]}"
            c.post("/api/players", json={"username": name, "password": "soak pass 1"})
            while True:
                r = c.post("/api/sessions", json={"username": name, "password": "soak pass 1"})
                if r.status_code != 429:  # login attempts are rate-limited per address
                    break
                time.sleep(float(r.headers.get("Retry-After", "1")))
            r.raise_for_status()
            out.append((name, r.json()["token"]))
    return out


class Player(threading.Thread):
    """One client: plays until the server dies; keeps the request a kill cut short."""

    def __init__(self, name: str, token: str, book: Ledger, rng: random.Random) -> None:
        super().__init__(daemon=True)
        self.name, self.token, self.book, self.rng = name, token, book, rng
        self.pending: tuple[str, dict[str, Any], str] | None = None  # path, body, key
        self.url = ""

    def _send(self, c: httpx.Client, path: str, body: dict[str, Any], key: str) -> httpx.Response:
        self.pending = (path, body, key)
        r = c.post(path, json=body, headers={"Idempotency-Key": key})
        self.pending = None
        if r.status_code >= 500:
            with self.book.lock:
                self.book.errors.append(f"{path} -> {r.status_code} {r.text[:200]}")
        return r

    def _record(self, r: httpx.Response, choice: bool) -> None:
        if r.status_code in (200, 201):
            with self.book.lock:
                self.book.seen.add(r.json()["round_id"])
                if choice:
                    self.book.choices += 1
                else:
                    self.book.rounds += 1

    def resume(self, c: httpx.Client) -> None:
        """Send again, with the same key, what the kill cut short: answered once, not twice."""
        if self.pending is None:
            return
        path, body, key = self.pending
        first = c.post(path, json=body, headers={"Idempotency-Key": key})
        again = c.post(path, json=body, headers={"Idempotency-Key": key})
        with self.book.lock:
            self.book.retried += 1
            if first.status_code >= 500 or first.status_code != again.status_code or (
                    first.status_code in (200, 201)
                    and first.json()["round_id"] != again.json()["round_id"]):
                self.book.errors.append(f"retry of {path}: {first.status_code} then "
                                        f"{again.status_code}")
            else:
                self.book.retry_same += 1
        self._record(first, "choices" in path)
        self.pending = None

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30,
                          headers={"Authorization": f"Bearer {self.token}"}) as c:
            try:
                self.resume(c)
                while True:
                    open_round = c.get("/api/rounds/open")
                    if open_round.status_code == 200:
                        rid, step = open_round.json()["round_id"], open_round.json()["step"]
                        options = open_round.json()["awaiting"]["options"]
                        choice = self.rng.choice([o for o in CHOICES if o in options] or options)
                        self._record(self._send(c, f"/api/rounds/{rid}/choices",
                                                {"choice": choice, "step": step},
                                                uuid.uuid4().hex), True)
                        continue
                    game = self.rng.choice(list(GAMES))
                    self._record(self._send(c, f"/api/games/{game}/rounds",
                                            {"bet": GAMES[game]}, uuid.uuid4().hex), False)
            except httpx.TransportError:
                return  # the server was killed


def _reconcile(db_url: str, book: Ledger) -> dict[str, int]:
    """The money checks straight on the database (the server's own audit is checked too)."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as c:
            statuses = dict(c.execute(text("SELECT id, status FROM rounds")).all())
            untied = c.execute(text(
                "SELECT r.id FROM rounds r LEFT JOIN (SELECT round_id, SUM(amount) s FROM "
                "ledger_entries GROUP BY round_id) l ON l.round_id = r.id WHERE COALESCE(l.s, 0) "
                "<> CASE WHEN r.status = 'cancelled' THEN 0 "
                "WHEN r.status = 'completed' THEN r.win + r.jackpot_win "
                "  - CASE WHEN r.free_round_id IS NULL THEN r.bet ELSE 0 END "
                "ELSE -r.bet END")).scalars().all()
            money = c.execute(text(
                "SELECT COALESCE(SUM(balance), 0) FROM wallets")).scalar_one()
            ledger = c.execute(text(
                "SELECT COALESCE(SUM(amount), 0) FROM ledger_entries")).scalar_one()
    finally:
        engine.dispose()
    problems = []
    if untied:
        problems.append(f"rounds not tied to their ledger entries: {untied[:3]}")
    if "open" in statuses.values():
        problems.append("a debited round was left unplayed")
    missing = [r for r in book.seen if r not in statuses]
    if missing:
        problems.append(f"rounds a client saw created are gone: {missing[:3]}")
    if money != ledger:
        problems.append(f"wallets hold {money}, the ledger says {ledger}")
    book.errors.extend(problems)
    return {"rounds": len(statuses), "money": int(money)}


def soak(db_url: str, seconds: float, clients: int, seed: int, min_kills: int = 0
         ) -> dict[str, Any]:
    server = Server(db_url)
    try:
        return _soak(server, db_url, seconds, clients, seed, min_kills)
    finally:  # whatever happens, no server process is left behind
        server.kill()


def _soak(server: Server, db_url: str, seconds: float, clients: int, seed: int,
          min_kills: int) -> dict[str, Any]:
    rng = random.Random(seed)
    book = Ledger()
    server.start()
    players = [Player(n, p, book, random.Random(rng.random()))
               for n, p in _players(server.url, clients)]
    started = time.monotonic()
    kills = 0
    audits_ok = 0
    # At least ``min_kills`` cycles whatever the time: on a busy machine a restart alone can
    # take most of a short run.
    while time.monotonic() - started < seconds or kills < min_kills:
        threads = []
        for p in players:  # a fresh thread per cycle, keeping each player's cut request
            t = Player(p.name, p.token, book, p.rng)
            t.pending, t.url = p.pending, server.url
            threads.append((p, t))
            t.start()
        time.sleep(rng.uniform(2, 6))
        server.kill()
        kills += 1
        for p, t in threads:
            t.join(60)
            p.pending = t.pending
        server.start()  # start-up recovery runs here
        audit = httpx.get(f"{server.url}/api/admin/audit", timeout=60,
                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).json()
        if audit.get("ok"):
            audits_ok += 1
        else:
            book.errors.append(f"audit after kill {kills}: {audit}")
        figures = _reconcile(db_url, book)
    # The last cycle's cut requests are answered too, then the final reconciliation.
    for p in players:
        p.url = server.url
        with httpx.Client(base_url=server.url, timeout=30,
                          headers={"Authorization": f"Bearer {p.token}"}) as c:
            p.resume(c)
    figures = _reconcile(db_url, book)
    server.kill()
    elapsed = time.monotonic() - started
    return {"seconds": round(elapsed, 1), "clients": clients, "kills": kills,
            "audits_ok": audits_ok, "rounds_seen": book.rounds, "choices_seen": book.choices,
            "rounds_in_database": figures["rounds"], "retried_requests": book.retried,
            "retries_answered_once": book.retry_same, "money_in_wallets": figures["money"],
            "problems": book.errors[:20], "ok": not book.errors and audits_ok == kills}


def _databases(which: str, pg: str | None, tmp: Path) -> list[tuple[str, str, Any]]:
    out: list[tuple[str, str, Any]] = []
    if which in ("sqlite", "both"):
        out.append(("sqlite", f"sqlite:///{tmp / 'soak.db'}", None))
    if which in ("postgres", "both"):
        if not pg:
            raise SystemExit("--pg URL (or SLOTLAB_BENCH_PG) is needed for PostgreSQL")
        schema = f"soak_{uuid.uuid4().hex[:10]}"
        base = pg.replace("postgresql://", "postgresql+psycopg://", 1) \
            if pg.startswith("postgresql://") else pg
        admin = create_engine(base, isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE SCHEMA "{schema}"'))
        sep = "&" if "?" in base else "?"
        out.append(("postgres", f"{base}{sep}options=-csearch_path%3D{schema}",
                    (admin, schema)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0, help="per database")
    ap.add_argument("--seconds", type=float, help="per database (overrides --minutes)")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    ap.add_argument("--pg", default=os.environ.get("SLOTLAB_BENCH_PG"))
    ap.add_argument("--seed", type=int, default=0, help="the kill timings' random seed")
    ap.add_argument("--min-kills", type=int, default=0,
                    help="kill at least this often, past the time if need be")
    ap.add_argument("--out", type=Path, default=RESULTS / "soak.json")
    args = ap.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else args.minutes * 60
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, url, cleanup in _databases(args.db, args.pg, Path(tmp)):
            try:
                results[name] = soak(url, seconds, args.clients, args.seed, args.min_kills)
            finally:
                if cleanup is not None:
                    admin, schema = cleanup
                    with admin.connect() as c:
                        c.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
                    admin.dispose()
            r = results[name]
            print(f"{name}: {r['seconds']} s, {r['clients']} clients, {r['kills']} kills, "
                  f"{r['rounds_seen']} rounds and {r['choices_seen']} choices answered, "
                  f"{r['retried_requests']} cut requests retried "
                  f"({r['retries_answered_once']} answered once), "
                  f"{'reconciled to the cent' if r['ok'] else 'PROBLEMS: ' + str(r['problems'])}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if all(r["ok"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
