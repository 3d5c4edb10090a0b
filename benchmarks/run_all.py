"""Run every benchmark in this folder, one after the other (`make bench`).

Each prints its figures and writes them to benchmarks/results/. The server benchmark runs on
SQLite, and on PostgreSQL too when SLOTLAB_BENCH_PG is set to a postgresql:// URL.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    failures = 0
    for script in sorted(HERE.glob("bench_*.py")):
        args = [sys.executable, str(script)]
        if script.name == "bench_server.py" and os.environ.get("SLOTLAB_BENCH_PG"):
            args += ["--pg", os.environ["SLOTLAB_BENCH_PG"]]
        print(f"== {script.name}", flush=True)
        failures += subprocess.run(args, check=False).returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
