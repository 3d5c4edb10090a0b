"""The server benchmark on PostgreSQL through PgBouncer in transaction mode.

The same measurement as ``benchmarks/bench_server.py`` (its code: a real ``slotlab serve``, the
compiled load generator, the full round through the public API, every round durable), with the
server's database URL pointing at a local PgBouncer (``benchmarks/pgbouncer.py``: transaction
mode, its own configuration, a free port, ended by its pid) in front of the PostgreSQL server
of ``--pg`` (default ``$SLOTLAB_TEST_DATABASE_URL``), on a fresh database dropped after, and
``SLOTLAB_DB_POOLER=pgbouncer`` (no server-side prepared statements). PgBouncer's own CPU per
round is added to the result. Without ``pgbouncer`` installed it says so and exits 0.
Writes benchmarks/results/server_pgbouncer.json.

    .venv/bin/python benchmarks/bench_pgbouncer.py [--seconds 10] [--levels 1,8,32,128]
        [--workers 2] [--pool-size 20]
"""

from __future__ import annotations

import json
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import Any

import bench_server as bench  # sibling scripts: a script's own folder is first on sys.path
import pgbouncer as pgb

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "server_pgbouncer.json"


def main(argv: list[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    argv = list(given)
    pool_size = 20
    if "--pool-size" in argv:
        i = argv.index("--pool-size")
        pool_size = int(argv[i + 1])
        del argv[i:i + 2]
    args = bench.parse_args([*argv, "--no-sqlite"])
    if args.out == str(bench.RESULTS):
        args.out = str(RESULTS)
    if not pgb.installed():
        print("pgbouncer is not installed (apt-get install pgbouncer): nothing measured")
        return 0
    if not args.pg:
        print("no PostgreSQL URL (--pg or SLOTLAB_TEST_DATABASE_URL): nothing measured")
        return 0
    os.environ["SLOTLAB_DB_POOLER"] = "pgbouncer"
    load_at_start = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        loadgen = bench.build_loadgen(Path(tmp)) if args.client == "c" else None
        with pgb.fresh_database(args.pg) as name, pgb.running(args.pg, pool_size) as bouncer:
            cpu0 = bench.process_cpu_s(bouncer.pid)
            result: dict[str, Any] = bench.bench("postgres", bouncer.url(name), args, loadgen)
            pgbouncer_s = bench.process_cpu_s(bouncer.pid) - cpu0
    rounds = sum(level["rounds"] for level in result["levels"])
    result["via"] = {"pooler": "pgbouncer", "pool_mode": "transaction",
                     "default_pool_size": pool_size, "SLOTLAB_DB_POOLER": "pgbouncer",
                     "pgbouncer_cpu_ms_per_round": round(1000 * pgbouncer_s / max(1, rounds),
                                                         3)}
    print(f"pgbouncer cpu ms/round {result['via']['pgbouncer_cpu_ms_per_round']:.3f} "
          "(warm-up included)")
    out = {
        "what": "POST /api/games/{game}/rounds over loopback HTTP, one durable round per request,"
                " PostgreSQL through PgBouncer in transaction mode",
        "client": "benchmarks/c/loadgen.c" if args.client == "c" else "asyncio (python)",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average_at_start": load_at_start,
                    "load_average_at_end": os.getloadavg()},
        "command": " ".join(["python", "benchmarks/bench_pgbouncer.py", *given]),
        "results": [result],
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
