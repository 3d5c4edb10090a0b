"""A round's events made plain JSON values (``json_text.to_jsonable``, done on every round the
batched money path settles) against the standard library's round trip it replaced.

    .venv/bin/python benchmarks/bench_json_text.py [--rounds 200] [--repeats 5]

For each seed game, ``--rounds`` rounds at its lowest bet are played once; then both ways
decode every round's events, best of ``--repeats``. Prints the microseconds per round's events
and writes them to ``benchmarks/results/json_text.json``; both ways must give equal values.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from slotlab.games import find_game
from slotlab.json_text import plain, to_jsonable
from slotlab.rng import fresh_seed

GAMES = ("crystal-star-deluxe", "super-12-stars", "superstars")
RESULTS = Path(__file__).resolve().parent / "results" / "json_text.json"


def standard(events: Any) -> Any:
    """The round trip ``to_jsonable`` replaced."""
    return json.loads(json.dumps(events, default=plain))


def per_round_us(decode: Callable[[Any], Any], rounds: list[list[Any]], repeats: int
                 ) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for events in rounds:
            decode(events)
        best = min(best, time.perf_counter() - t0)
    return round(best / len(rounds) * 1e6, 2)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    rows = []
    for name in GAMES:
        game = find_game(name)
        bet = game.bets()[0]
        rounds = [list(game.play(bet, [fresh_seed()]).events) for _ in range(args.rounds)]
        if [to_jsonable(e) for e in rounds] != [standard(e) for e in rounds]:
            raise SystemExit(f"{name}: to_jsonable and the standard library differ")
        row = {"game": name, "rounds": args.rounds,
               "standard_library_us": per_round_us(standard, rounds, args.repeats),
               "orjson_us": per_round_us(to_jsonable, rounds, args.repeats)}
        print(f"{name:20} standard library {row['standard_library_us']:7.1f} us   "
              f"to_jsonable (orjson) {row['orjson_us']:6.1f} us   per round's events")
        rows.append(row)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "results": rows}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
