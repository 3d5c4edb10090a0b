"""A test lab's evidence bundle for one game (``slotlab certify``), and its check.

``make`` gathers, in one run and from the code that is installed: the critical files and their
digests, the rule map with each listed test run now, the math (exact figures against a
simulation, every bet level, the max win), the generator's tests, the server's side and the
clause map, and writes ``bundle.json`` and ``bundle.html``. ``check`` recomputes the digests of
a bundle against what is installed now.
"""

from __future__ import annotations

import json
import platform
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import slotlab
from slotlab.certify import digests, generator, platform_evidence, rule_map, server_side
from slotlab.certify.clauses import clause_map
from slotlab.certify.html import render
from slotlab.rounds import Game
from slotlab.simulate.par.figures import compute
from slotlab.simulate.record import record_for

FORMAT = "slotlab.bundle/1"
_MATH_TABLES = ("identity", "summary", "rtp-split", "max-win", "bet-levels", "features",
                "win-bands")


def math_section(game: Game, ref: str, spins: int, workers: int, bonuses: int) -> dict[str, Any]:
    bet = game.bets()[0]
    figures = compute(game, ref, bet, spins, workers=workers,  # type: ignore[arg-type]
                      sample_rounds=min(spins, 500_000), bonuses=bonuses)
    tables = [t for t in figures["tables"]
              if t["id"] in _MATH_TABLES or t["id"].startswith("exact-")]
    max_win = next((dict((str(r[0]), r[1]) for r in t["rows"]) for t in figures["tables"]
                    if t["id"] == "max-win"), {})
    shipped = record_for(game)  # the long run the game shows its largest win from, if any
    return {"bet": bet, "spins": figures["spins"], "seed": figures["seed"],
            "theoretical_rtp": game.theoretical_rtp(), "checks": figures["checks"],
            "max_win": max_win, "tables": tables,
            "record": None if shipped is None else shipped.model_dump(mode="json")}


def make(game: Game, ref: str, out: Path, spins: int, *, workers: int = 1,
         bonuses: int = 200_000, test_marker: str | None = None, stop_rounds: int = 20_000,
         draws: int = 100_000, server_rounds: int = 30, interrupt_search: int = 3000,
         server: bool = True, seed: bytes | None = None, battery: bool = True,
         log: Any = None) -> dict[str, Path]:
    """Make the bundle of ``game`` into ``out``; returns the paths of the two files."""
    say = log or (lambda _msg: None)
    started = time.time()
    family = digests.family_dir(game)
    say("digests")
    bundle: dict[str, Any] = {
        "format": FORMAT,
        "game": game.id,
        "name": game.name,
        "model_hash": game.model_hash,
        "version": slotlab.__version__,
        "code_version": slotlab.CODE_VERSION,
        "made_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "made_on": {"python": platform.python_version(), "platform": platform.platform(),
                    "source_checkout": rule_map.checkout_root() is not None},
        "digests": digests.digests(game),
    }
    say("rule map: running its tests")
    bundle["rule_map"] = rule_map.rule_map(family, test_marker)
    say(f"math: exact figures and {spins:,} simulated rounds")
    bundle["math"] = math_section(game, ref, spins, workers, bonuses)
    say("generator")
    bundle["generator"] = generator.evidence(game, stop_rounds, draws, seed, battery)
    say("platform: running the server's tests for R5, R11, R12, R20, R22 and R23")
    bundle["platform"] = platform_evidence.platform_tests(test_marker)
    bundle["profiles"] = server_side.profiles()
    if server:
        say("server: a short real run")
        bundle["server"] = server_side.run(game.id, server_rounds, interrupt_search)
    else:
        bundle["server"] = None
        bundle["server_note"] = "the server section was not made in this run (--no-server)"
    bundle["clauses"] = clause_map(bundle)
    bundle["seconds"] = round(time.time() - started, 1)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "bundle.json", "html": out / "bundle.html"}
    paths["json"].write_text(json.dumps(bundle, indent=1, allow_nan=False) + "\n",
                             encoding="utf-8")
    paths["html"].write_text(render(bundle), encoding="utf-8")
    return paths


class BundleError(ValueError):
    """A folder that holds no readable bundle."""


def read(folder: Path) -> dict[str, Any]:
    path = folder / "bundle.json" if folder.is_dir() else folder
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise BundleError(f"{path}: no bundle here (bundle.json)") from e
    except (OSError, ValueError) as e:
        raise BundleError(f"{path}: unreadable ({e})") from e
    if not isinstance(data, dict) or data.get("format") != FORMAT or "digests" not in data:
        raise BundleError(f"{path}: not a slotlab bundle (format {FORMAT!r})")
    return data


def check(folder: Path, root: Path = digests.PACKAGE
          ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The bundle and, per file, whether what is installed at ``root`` (the slotlab package)
    is what it certified."""
    bundle = read(folder)
    return bundle, digests.check(bundle["digests"], root)
