"""The production mix on the game server: the rounds operators really run, not only the plainest.

Starts a real ``slotlab serve`` process offering the three seed games, on SQLite (a fresh file,
synchronous=FULL) and on PostgreSQL (a fresh schema; ``--pg`` or ``SLOTLAB_TEST_DATABASE_URL``),
every round durable. Each client (one keep-alive connection) plays for a ring of players, of
both halves below alike:

- half of them under the ``gb`` profile (set by the admin API): a round every 2.5 s at most per
  player, counted from the previous round's answer as a player who sees each result would
  (the client moves on to a player whose pace allows one), session figures in every
  answer, reality checks; no autoplay;
- the other half under ``mt``: each plays under an autoplay run it declared (``POST
  /api/autoplay``), every round carrying its stop conditions;
- games and bets mixed (``--mix``, weights per game; a bet drawn from the game's ladder);
  Super 12 Stars' Frenzy colour answered when a round waits for it;
- every eighth player has a Free Round Bonus package granted, and plays it out first.

Jackpot wins come at the games' own rates (no forcing: this server has no test hook). Per level
of concurrent clients: completed rounds/s, p50/p90/p99/max latency of every request (choices
included), answers by status, the CPU ms per round of each process (the server, PostgreSQL, the
load client and, in operator mode, the reference operator), their sum and the rounds/s the
machine's cores could give at that cost (its ceiling), the machine's load, the server's own
mean time per round start, and the database batches' mean size and time (the
group commit). A pacing profile limits each player, not the server, so each client holds
enough players (``--players-per-client``) to be busy. The round starts each path answered (the
batched money path and the ORM path) come from the server's /metrics. ``--operator``: the
same mix in seamless-wallet mode, every bet and win a signed call to the reference operator
(its own process and SQLite file). Writes benchmarks/results/production_mix.json.

    .venv/bin/python benchmarks/bench_production_mix.py [--seconds 10] [--levels 1,8,32,128]
        [--operator]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import bench_server as bs  # the sibling script (its folder is first on sys.path): server, CPU
import httpx
import orjson
from prometheus_client.parser import text_string_to_metric_families

from slotlab.operator.signing import Keyring, sign_request

RESULTS = bs.ROOT / "benchmarks" / "results" / "production_mix.json"
GAMES = ("crystal-star-deluxe", "super-12-stars", "superstars")
ADMIN = "bench-admin-" + uuid.uuid4().hex
PACE_S = 2.5 + 0.05  # the gb cycle, and a margin for the clocks of client and server


@dataclass
class Player:
    token: str
    name: str
    gb: bool
    game: str
    run_id: int | None = None
    free_round: tuple[int, int] | None = None  # (package id, bet)
    ready_at: float = 0.0


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    rounds: int = 0


OPERATOR_SECRET = "bench-operator-" + uuid.uuid4().hex


class ReferenceOperator:
    """The reference operator wallet (``python -m slotlab.operator.reference_wallet``), its own
    process and SQLite file, signed calls: the casino a seamless-wallet game server talks to."""

    def __init__(self, folder: Path) -> None:
        self.port = bs.free_port()
        self.url = f"http://{bs.HOST}:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slotlab.operator.reference_wallet", "--port",
             str(self.port), "--db", str(folder / "operator.db"), "--no-access-log"],
            env={**os.environ, "SLOTLAB_OPERATOR_SECRET": OPERATOR_SECRET},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:  # unsigned: refused, so it is up
                if httpx.post(f"{self.url}/wallet/balance", timeout=1).status_code == 401:
                    return
            except httpx.TransportError:
                time.sleep(0.05)
        raise RuntimeError("the reference operator did not start")

    def add_player(self, name: str, balance: int) -> None:
        body = json.dumps({"player_id": name, "balance": balance, "currency": "EUR"}).encode()
        signed = sign_request(Keyring(OPERATOR_SECRET), "POST", "/admin/players", body)
        httpx.post(f"{self.url}/admin/players", content=body, headers=signed.headers,
                   timeout=30).raise_for_status()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def alone(self, clients: int, seconds: float) -> dict[str, Any]:
        """The operator by itself: ``clients`` concurrent signed debits of one cent (each a
        new transaction, each client a player of its own), what one call takes it, how many
        it answers a second and the CPU it spends on each (a game server's round costs two).
        The probe's client is aiohttp, as the game server's: httpx's AsyncClient spent 1.4 ms
        of CPU a call here, twice the operator's own, and the probe measured itself."""
        names = [f"probe{uuid.uuid4().hex[:12]}" for _ in range(clients)]
        for name in names:
            self.add_player(name, 10**12)
        keyring = Keyring(OPERATOR_SECRET)
        latencies: list[float] = []

        async def one(c: aiohttp.ClientSession, name: str, until: float) -> None:
            while time.perf_counter() < until:
                rid = uuid.uuid4().hex
                body = json.dumps({"transaction_id": f"{rid}:debit", "round_id": rid,
                                   "player_id": name, "amount": 1, "currency": "EUR"}).encode()
                signed = sign_request(keyring, "POST", "/wallet/debit", body)
                t0 = time.perf_counter()
                async with c.post("/wallet/debit", data=body, headers={
                        **signed.headers, "Content-Type": "application/json"}) as r:
                    await r.read()
                latencies.append(time.perf_counter() - t0)
                r.raise_for_status()

        async def run() -> float:
            async with aiohttp.ClientSession(
                    self.url, connector=aiohttp.TCPConnector(limit=clients),
                    timeout=aiohttp.ClientTimeout(total=30)) as c:
                t0 = time.perf_counter()
                await asyncio.gather(*(one(c, name, t0 + seconds) for name in names))
                return time.perf_counter() - t0

        cpu0, client0 = bs.process_cpu_s(self.proc.pid), time.process_time()
        elapsed = asyncio.run(run())
        per_call = 1000 / max(1, len(latencies))
        lat = sorted(latencies)
        return {"clients": clients, "calls_per_s": round(len(lat) / elapsed, 1),
                **{f"p{p}_ms": round(1000 * bs._nearest_rank(lat, p / 100), 3)
                   for p in (50, 99)},
                "operator_cpu_ms_per_call": round(
                    (bs.process_cpu_s(self.proc.pid) - cpu0) * per_call, 3),
                "client_cpu_ms_per_call": round((time.process_time() - client0) * per_call, 3)}


def start(db_url: str, operator: ReferenceOperator | None = None) -> tuple[Any, int]:
    settings = {"SLOTLAB_ADMIN_TOKEN": ADMIN, "SLOTLAB_JURISDICTION": "mt"}
    if operator is not None:
        settings.update({"SLOTLAB_WALLET_MODE": "operator",
                         "SLOTLAB_OPERATOR_WALLET_URL": operator.url,
                         "SLOTLAB_OPERATOR_WALLET_SECRET": OPERATOR_SECRET})
    return bs.start_server(db_url, list(GAMES), settings=settings)


def players(port: int, n: int, mix: dict[str, float], rng: random.Random,
            operator: ReferenceOperator | None = None) -> list[Player]:
    """``n`` players, half gb and half mt (with an autoplay run), one in eight with a package."""
    out = []
    base = f"http://{bs.HOST}:{port}"
    with httpx.Client(base_url=base, timeout=60) as c:
        bets = {g: c.get(f"/api/games/{g}").json()["bets"] for g in GAMES}
        admin = {"Authorization": f"Bearer {ADMIN}"}
        for i in range(n):
            name = f"mix{uuid.uuid4().hex[:12]}"
            creds = {"username": name, "password": "a benchmark pass phrase"}
            c.post("/api/players", json=creds).raise_for_status()
            if operator is not None:  # the money is the operator's: the player's id is the name
                operator.add_player(name, 10**12)
            gb = i % 2 == 0
            if gb:
                c.put(f"/api/admin/players/{name}/jurisdiction", json={"jurisdiction": "gb"},
                      headers=admin).raise_for_status()
            r = c.post("/api/sessions", json=creds)
            r.raise_for_status()
            p = Player(r.json()["token"], name, gb,
                       rng.choices(list(mix), weights=list(mix.values()))[0])
            auth = {"Authorization": f"Bearer {p.token}"}
            if not gb:
                run = c.post("/api/autoplay", json={"game": p.game, "rounds": 100_000},
                             headers=auth)
                run.raise_for_status()
                p.run_id = run.json()["run_id"]
            if i % 8 == 1:
                bet = bets[p.game][0]
                g = c.post("/api/admin/free-rounds", headers=admin, json={
                    "username": name, "game": p.game, "bet": bet, "rounds": 10,
                    "expires_at": "2099-01-01T00:00:00Z"})
                g.raise_for_status()
                p.free_round = (g.json()["id"], bet)
            out.append(p)
    return out


async def _client(base: str, ring: list[Player], bets: dict[str, list[int]], deadline: float,
                  tally: Tally, rng: random.Random) -> None:
    # aiohttp, not httpx: the load client shares the server's two cores, and httpx spent more
    # CPU per round (2.2 ms) than the server did (1.6 ms); one keep-alive connection per client.
    async with aiohttp.ClientSession(
            base, connector=aiohttp.TCPConnector(limit=1),
            timeout=aiohttp.ClientTimeout(total=60)) as c:
        while time.perf_counter() < deadline:
            now = time.perf_counter()
            p = min(ring, key=lambda q: q.ready_at)
            if p.ready_at > now:
                await asyncio.sleep(p.ready_at - now)
                continue
            body: dict[str, Any] = {"bet": rng.choice(bets[p.game])}
            kind = "gb" if p.gb else "mt-autoplay"
            if p.free_round is not None:
                body = {"bet": p.free_round[1], "free_round_id": p.free_round[0]}
                kind = "free-round"
            elif p.run_id is not None:
                body["autoplay"] = {"run_id": p.run_id}
            answer = await _send(c, p, f"/api/games/{p.game}/rounds", body, tally)
            # A player sees the round's result before the next spin: gb's cycle (counted on the
            # server from the round's start, before its answer) starts over at the answer.
            p.ready_at = time.perf_counter() + (PACE_S if p.gb else 0.0)
            if answer is None:
                continue
            if answer.get("free_round", {}).get("rounds_left") == 0:
                p.free_round = None
            while answer is not None and answer.get("status") == "awaiting_choice":
                kind = "choice"
                options = answer["awaiting"]["options"]
                answer = await _send(c, p, f"/api/rounds/{answer['round_id']}/choices",
                                     {"choice": rng.choice(options), "step": answer["step"]},
                                     tally)
            if answer is not None and answer.get("status") == "completed":
                tally.rounds += 1
                tally.kinds[kind] += 1
                if answer.get("jackpot_win"):
                    tally.kinds["jackpot_won"] += 1


async def _send(c: aiohttp.ClientSession, p: Player, path: str, body: dict[str, Any],
                tally: Tally) -> dict[str, Any] | None:
    t0 = time.perf_counter()
    async with c.post(path, data=orjson.dumps(body), headers={
            "Authorization": f"Bearer {p.token}", "Idempotency-Key": uuid.uuid4().hex,
            "Content-Type": "application/json"}) as r:
        answer = orjson.loads(await r.read())
    tally.latencies.append(time.perf_counter() - t0)
    tally.statuses[r.status] += 1
    if r.status in (200, 201):
        return dict(answer)
    if r.status == 409 and answer.get("error", {}).get("code") == "free_round_used_up":
        p.free_round = None
    return None


# The database batches' figures on /metrics, and their keys here (each a whole number).
_BATCH_FIGURES = {"slotlab_db_batch_rounds_count": ("batch:count", 1),
                  "slotlab_db_batch_rounds_sum": ("batch:rounds", 1),
                  "slotlab_db_batch_seconds_sum": ("batch:us", 1_000_000)}


def server_counts(base: str) -> Counter[str]:
    """Round starts and choices answered so far, per path (fast: the batched money path;
    general: the ORM path), from the server's own /metrics: ``fast``, ``general`` (round
    starts), ``choice:fast``, ``choice:general``; and the database batches written so far:
    ``batch:count``, ``batch:rounds``, ``batch:us`` (microseconds)."""
    text = httpx.get(f"{base}/metrics", timeout=30).text
    out: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name in _BATCH_FIGURES:
                key, scale = _BATCH_FIGURES[sample.name]
                out[key] += round(sample.value * scale)
        prefix = {"slotlab_round_seconds": "", "slotlab_choice_seconds": "choice:"}.get(
            family.name)
        if prefix is None:
            continue
        for sample in family.samples:
            if sample.name.endswith("_count"):
                out[prefix + sample.labels["path"]] += int(sample.value)
            elif sample.name.endswith("_sum"):  # the server's own time, microseconds
                out[prefix + sample.labels["path"] + ":us"] += round(sample.value * 1e6)
    return out


def operator_calls(base: str) -> dict[str, dict[float, float]]:
    """The game server's signed calls to the operator so far (the batched path's), per endpoint:
    the cumulative histogram {upper bound (inf: the count) ... , -1: the sum of seconds}."""
    text = httpx.get(f"{base}/metrics", timeout=30).text
    out: dict[str, dict[float, float]] = {}
    for family in text_string_to_metric_families(text):
        if family.name == "slotlab_operator_call_seconds":
            for sample in family.samples:
                h = out.setdefault(sample.labels["endpoint"], {})
                if sample.name.endswith("_bucket"):
                    h[float(sample.labels["le"])] = sample.value
                elif sample.name.endswith("_sum"):
                    h[-1.0] = sample.value
    return out


def operator_latency(before: dict[str, dict[float, float]], after: dict[str, dict[float, float]]
                     ) -> dict[str, dict[str, float]]:
    """Per endpoint: calls, mean and p99 (the upper bound of the bucket it falls in), ms."""
    out = {}
    for endpoint, h in after.items():
        h0 = before.get(endpoint, {})
        d = {b: v - h0.get(b, 0.0) for b, v in h.items()}
        calls = d.get(float("inf"), 0.0)
        if not calls:
            continue
        p99 = next(b for b in sorted(k for k in d if k >= 0) if d[b] >= 0.99 * calls)
        out[endpoint] = {"calls": int(calls), "mean_ms": round(1000 * d[-1.0] / calls, 3),
                         "p99_ms_at_most": round(1000 * p99, 3)}
    return out


def level(port: int, ring: list[Player], clients: int, seconds: float, pid: int,
          postgres: bool, operator_pid: int | None = None) -> dict[str, Any]:
    base = f"http://{bs.HOST}:{port}"
    with httpx.Client(base_url=base, timeout=30) as c:
        bets = {g: c.get(f"/api/games/{g}").json()["bets"] for g in GAMES}
    paths0 = server_counts(base)
    calls0 = operator_calls(base)
    tally = Tally()
    # Contiguous blocks, so that each client holds both profiles' players (alternate in the
    # ring): a stride of an even client count would give half the clients only paced players.
    size = len(ring) // clients
    rings = [ring[i * size:(i + 1) * size] for i in range(clients)]
    start_t = time.perf_counter()
    cpu0 = time.process_time()

    async def run() -> None:
        await asyncio.gather(*(_client(base, rings[i], bets, start_t + seconds, tally,
                                       random.Random(i)) for i in range(clients)))

    operator0 = 0.0 if operator_pid is None else bs.process_cpu_s(operator_pid)
    with bs.Meter(pid, postgres) as meter:
        asyncio.run(run())
    operator_s = 0.0 if operator_pid is None else bs.process_cpu_s(operator_pid) - operator0
    elapsed = time.perf_counter() - start_t
    paths = server_counts(base)
    paths.subtract(paths0)
    calls = operator_latency(calls0, operator_calls(base))
    lat = sorted(tally.latencies) or [0.0]
    return _ceiling(meter.annotate({
        "concurrency": clients, "players": len(ring), "rounds": tally.rounds,
        "seconds": round(elapsed, 3), "rounds_per_s": round(tally.rounds / elapsed, 1),
        **{f"p{p}_ms": round(1000 * bs._nearest_rank(lat, p / 100), 3) for p in (50, 90, 99)},
        "max_ms": round(1000 * lat[-1], 3), "requests": len(tally.latencies),
        "status_counts": {str(k): v for k, v in sorted(tally.statuses.items())},
        "rounds_by_kind": dict(tally.kinds),
        "round_starts_by_path": {k: v for k, v in paths.items() if ":" not in k},
        # the server's own time per round start on the batched path, from its reading of the
        # request to its answer: the rest of the latency is the HTTP server's and the client's
        **({"server_ms_mean": round(paths["fast:us"] / paths["fast"] / 1000, 3)}
           if paths["fast"] else {}),
        "choices_by_path": {k[7:]: v for k, v in paths.items()
                            if k.startswith("choice:") and not k.endswith(":us")},
        **_batches(paths),
        **({"operator_calls": calls} if calls else {}),
        "client_cpu_s": time.process_time() - cpu0}), operator_s)


def _ceiling(row: dict[str, Any], operator_s: float) -> dict[str, Any]:
    """``row`` with the CPU every process spent per round (the server, PostgreSQL, the load
    client, the reference operator) summed, and the rounds/s this machine's cores could give
    at that cost were they all busy with nothing else: the most any level can reach here. And
    the same for the game server's side alone (the server and its database), as in production,
    where the load's clients and the operator run on machines of their own."""
    if operator_s:
        row["operator_cpu_ms_per_round"] = round(1000 * operator_s / max(1, row["rounds"]), 3)
    total = sum(v for k, v in row.items() if k.endswith("_cpu_ms_per_round"))
    own = row.get("server_cpu_ms_per_round", 0.0) + row.get("postgres_cpu_ms_per_round", 0.0)
    cores = len(os.sched_getaffinity(0))
    row["cpu_ms_per_round"] = round(total, 3)
    row["cpu_ceiling_rounds_per_s"] = round(1000 * cores / total, 1) if total else None
    row["server_side_cpu_ms"] = round(own, 3)
    row["server_side_ceiling_rounds_per_s"] = round(1000 * cores / own, 1) if own else None
    return row


def _batches(paths: Counter[str]) -> dict[str, float]:
    """The level's database batches: how many rounds each held and how long each took to write
    and commit, on average (the group commit's figures)."""
    count = paths["batch:count"]
    if not count:
        return {}
    return {"batch_rounds_mean": round(paths["batch:rounds"] / count, 2),
            "batch_ms_mean": round(paths["batch:us"] / count / 1000, 3)}


def bench(backend: str, db_url: str, args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="slotlab-mix-"))
    operator = ReferenceOperator(folder) if args.operator else None
    proc, port = start(db_url, operator)
    rng = random.Random(1)
    mix = dict(zip(GAMES, (float(x) for x in args.mix.split(",")), strict=True))
    levels = [int(x) for x in args.levels.split(",")]
    try:
        ring = players(port, max(levels) * args.players_per_client, mix, rng, operator)
        alone = [] if operator is None else [operator.alone(n, 5) for n in levels]
        for a in alone:
            print(f"the operator alone, {a['clients']:4} clients  {a['calls_per_s']:8.1f} "
                  f"calls/s  p50 {a['p50_ms']:7.1f} ms  p99 {a['p99_ms']:7.1f} ms  CPU per "
                  f"call: operator {a['operator_cpu_ms_per_call']} ms, probe "
                  f"{a['client_cpu_ms_per_call']} ms", flush=True)
        rows = []
        for n in levels:
            row = level(port, ring[:n * args.players_per_client], n, args.seconds, proc.pid,
                        backend == "postgresql", operator and operator.proc.pid)
            rows.append(row)
            print(f"{backend:10} {n:4} clients  {row['rounds_per_s']:8.1f} rounds/s  "
                  f"p99 {row['p99_ms']:7.1f} ms  {row['status_counts']}  "
                  f"{row['rounds_by_kind']}  paths {row['round_starts_by_path']}  "
                  f"choices {row['choices_by_path']}"
                  + (f"  server {row['server_ms_mean']} ms" if "server_ms_mean" in row else "")
                  + (f"  batches of {row['batch_rounds_mean']} rounds, {row['batch_ms_mean']} ms"
                     if "batch_rounds_mean" in row else "")
                  + (f"  operator {row['operator_calls']}" if "operator_calls" in row else "")
                  + f"  CPU per round {row['cpu_ms_per_round']} ms (ceiling "
                    f"{row['cpu_ceiling_rounds_per_s']} rounds/s; the server and its database "
                    f"{row['server_side_cpu_ms']} ms, ceiling "
                    f"{row['server_side_ceiling_rounds_per_s']})", flush=True)
        return {"backend": backend, "wallet": "operator" if operator else "internal",
                **({"operator_alone": alone} if alone else {}), "levels": rows}
    finally:
        bs.stop_server(proc)
        if operator is not None:
            operator.stop()


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seconds", type=float, default=10, help="per level")
    ap.add_argument("--levels", default="1,8,32,128", help="concurrent clients, comma-separated")
    ap.add_argument("--players-per-client", type=int, default=16)
    ap.add_argument("--mix", default="4,4,2", help="weights of " + ", ".join(GAMES))
    ap.add_argument("--pg", default=os.environ.get("SLOTLAB_TEST_DATABASE_URL"))
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--no-sqlite", action="store_true")
    ap.add_argument("--operator", action="store_true",
                    help="seamless-wallet mode against the reference operator (its own process)")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    results: dict[str, Any] = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "load_average": os.getloadavg(), "results": []}
    if not args.no_sqlite:
        with tempfile.TemporaryDirectory() as d:
            results["results"].append(bench("sqlite", f"sqlite:///{d}/mix.db", args))
    if args.pg and not args.no_pg:
        with bs.fresh_schema(args.pg) as url:
            results["results"].append(bench("postgresql", url, args))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
