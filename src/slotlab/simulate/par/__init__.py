"""PAR sheets: a game's exact figures beside a simulation, for a math designer and an auditor.

``write_par`` writes three files into a folder, all from the same figures
(:func:`figures.compute`): ``par.html`` (self-contained, plots embedded), ``par.xlsx`` (one sheet
per table, the model's paytable, strips and feature tables included) and ``par.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from slotlab.games.contract import AnyGame
from slotlab.simulate.par.figures import BONUSES, SAMPLE_ROUNDS, compute
from slotlab.simulate.par.html import render
from slotlab.simulate.par.plots import plots
from slotlab.simulate.par.xlsx import write_workbook
from slotlab.simulate.session import SESSIONS

__all__ = ["BONUSES", "SAMPLE_ROUNDS", "SESSIONS", "compute", "write_par"]


def write_par(game: AnyGame, game_ref: str, out: Path, bet: int, spins: int,
              seed: int = 0, workers: int = 1, sample_rounds: int = SAMPLE_ROUNDS,
              bonuses: int = BONUSES, chunk_spins: int | None = None,
              sessions: int = SESSIONS) -> dict[str, Path]:
    """Compute and write the PAR sheet of ``game`` at ``bet``; returns the files by kind."""
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[str, Any] = compute(game, game_ref, bet, spins, seed=seed, workers=workers,
                                      sample_rounds=sample_rounds, bonuses=bonuses,
                                      chunk_spins=chunk_spins, sessions=sessions)
    paths = {"html": out / "par.html", "xlsx": out / "par.xlsx", "json": out / "par.json"}
    paths["json"].write_text(json.dumps(figures, indent=1, allow_nan=False) + "\n")
    paths["html"].write_text(render(figures, plots(figures)), encoding="utf-8")
    write_workbook(figures, paths["xlsx"])
    return paths
