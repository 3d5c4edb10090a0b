"""1 against 2 server processes (``slotlab serve --workers``) on PostgreSQL, measured in turns.

On a machine that other work shares, the load drifts from one minute to the next, so two
benchmark runs one after the other compare the drift as much as the servers. This starts both
servers at once (a fresh PostgreSQL schema each, dropped after; ``--via-pgbouncer``: a fresh
database each behind one local PgBouncer in transaction mode, ``benchmarks/pgbouncer.py``) and
plays the same load on them in alternating slices (A B A B ...; the idle one costs nothing),
with ``benchmarks/bench_server.py``'s compiled load generator and meters: the full Crystal Star
Deluxe round through the public API, every round durable. Per server: the median and the sum
of its slices' rounds/s, p99 and CPU per round; and the ratio of the medians, with the machine's
load during the run. Writes benchmarks/results/server_workers.json (``--out``).

    .venv/bin/python benchmarks/bench_workers.py [--workers 1,2] [--clients 32] [--slices 8]
        [--slice-seconds 5] [--via-pgbouncer]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bench_server as bench  # sibling scripts: a script's own folder is first on sys.path
import pgbouncer as pgb

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def _schema(pg: str) -> Iterator[str]:
    """A fresh schema of ``pg`` as a server URL, dropped after."""
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


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    rates = [r["rounds_per_s"] for r in rows]
    return {"slices": len(rows), "rounds": sum(r["rounds"] for r in rows),
            "median_rounds_per_s": round(statistics.median(rates), 1),
            "rounds_per_s_each_slice": rates,
            "median_p99_ms": round(statistics.median(r["p99_ms"] for r in rows), 1),
            "median_server_cpu_ms_per_round": round(statistics.median(
                r["server_cpu_ms_per_round"] for r in rows), 3),
            # every postgres process on the machine, others' work included
            "median_postgres_cpu_ms_per_round": round(statistics.median(
                r["postgres_cpu_ms_per_round"] for r in rows), 3),
            "errors": sum(r["requests"] - r["rounds"] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--workers", default="1,2", help="the two servers' --workers")
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--slices", type=int, default=8, help="slices per server")
    ap.add_argument("--slice-seconds", type=float, default=5)
    ap.add_argument("--seconds", type=float, default=None, help="the same as --slice-seconds")
    ap.add_argument("--game", default="crystal-star-deluxe")
    ap.add_argument("--pg", default=os.environ.get("SLOTLAB_TEST_DATABASE_URL"))
    ap.add_argument("--via-pgbouncer", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.seconds is not None:
        args.slice_seconds = args.seconds
    from slotlab.store import normalize_url

    workers = [int(w) for w in args.workers.split(",")]
    if not args.pg:
        print("no PostgreSQL URL (--pg or SLOTLAB_TEST_DATABASE_URL): nothing measured")
        return 0
    if args.via_pgbouncer and not pgb.installed():
        print("pgbouncer is not installed (apt-get install pgbouncer): nothing measured")
        return 0
    name = "server_workers_pgbouncer.json" if args.via_pgbouncer else "server_workers.json"
    out_path = Path(args.out or HERE / "results" / name)
    load_at_start = os.getloadavg()
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        if args.via_pgbouncer:
            bouncer = stack.enter_context(pgb.running(args.pg))
            os.environ["SLOTLAB_DB_POOLER"] = "pgbouncer"
            urls = [bouncer.url(stack.enter_context(pgb.fresh_database(args.pg)))
                    for _ in workers]
        else:
            urls = [stack.enter_context(_schema(args.pg)) for _ in workers]
        loadgen = bench.build_loadgen(Path(tmp))
        servers = []
        for w, url in zip(workers, urls, strict=True):
            proc, port = bench.start_server(url, args.game, w)
            stack.callback(bench.stop_server, proc)
            tokens = bench.register(port, args.clients)
            tokens_file = Path(tmp) / f"tokens-{port}"
            tokens_file.write_text("\n".join(tokens) + "\n")
            servers.append((w, proc, port, tokens_file))
        import httpx

        info = httpx.get(f"http://127.0.0.1:{servers[0][2]}/api/games/{args.game}",
                         timeout=60).json()
        path, body = f"/api/games/{args.game}/rounds", json.dumps({"bet": max(info["bets"])})
        for _, _, port, tokens_file in servers:  # warm-up, not counted
            bench.c_level(loadgen, port, tokens_file, path, body, min(4, args.clients), 2.0)
        rows: dict[int, list[dict[str, Any]]] = {i: [] for i in range(len(servers))}
        for n in range(args.slices):
            order = range(len(servers)) if n % 2 == 0 else reversed(range(len(servers)))
            for i in order:
                w, proc, port, tokens_file = servers[i]
                with bench.Meter(proc.pid, postgres=True) as meter:
                    row = bench.c_level(loadgen, port, tokens_file, path, body, args.clients,
                                        args.slice_seconds)
                rows[i].append(meter.annotate(row))
                print(f"slice {n + 1} --workers {w}: {row['rounds_per_s']:8.1f} rounds/s  p99 "
                      f"{row['p99_ms']:7.1f} ms  load {row['load_average'][0]:.1f}", flush=True)
    result = {f"workers_{w}": _summary(rows[i]) for i, (w, *_) in enumerate(servers)}
    first, second = (result[f"workers_{w}"]["median_rounds_per_s"] for w in workers[:2])
    ratio = round(second / first, 3) if first else None
    out = {"what": "POST /api/games/{game}/rounds, one durable round per request, the servers "
                   "measured in alternating slices", "game": args.game, "clients": args.clients,
           "slice_seconds": args.slice_seconds, "via": "pgbouncer" if args.via_pgbouncer
           else "direct", "postgres_settings": bench.postgres_settings(normalize_url(args.pg)),
           "load_average_at_start": load_at_start, "load_average_at_end": os.getloadavg(),
           "cpus": os.cpu_count(), "results": result, "ratio_of_medians": ratio,
           "command": " ".join(["python", "benchmarks/bench_workers.py",
                                *(sys.argv[1:] if argv is None else argv)])}
    for w in workers:
        r = result[f"workers_{w}"]
        print(f"--workers {w}: median {r['median_rounds_per_s']} rounds/s, p99 "
              f"{r['median_p99_ms']} ms, cpu ms/round: server "
              f"{r['median_server_cpu_ms_per_round']}, postgres "
              f"{r['median_postgres_cpu_ms_per_round']}; {r['errors']} errors")
    print(f"ratio of medians ({workers[1]} / {workers[0]} workers): {ratio}; load average "
          f"{load_at_start[0]:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
