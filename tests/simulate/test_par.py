"""PAR sheets: exact and simulated figures side by side, with plots."""

from __future__ import annotations

import json

from slotlab.games import find_game
from slotlab.simulate.par import write_par_sheet
from slotlab.simulate.runner import simulate


def test_par_sheet_has_figures_tables_and_plots(tmp_path):
    game = find_game("classic-3x3")
    path = write_par_sheet(game, "classic-3x3", 5, 200_000, tmp_path, seed=4)
    text = path.read_text()
    assert game.model_hash in text and "line pays (per line)" in text
    for plot in ("win-distribution.png", "rtp-convergence.png", "rtp-split.png"):
        assert (tmp_path / plot).read_bytes()[:4] == b"\x89PNG"
        assert f"]({plot})" in text
    data = json.loads((tmp_path / "par.json").read_text())
    direct = simulate(game, "classic-3x3", 5, 200_000, seed=4, chunk_spins=data["chunk_spins"])
    assert data["simulation"]["rtp"] == direct.rtp
    assert data["exact"]["rtp"] == game.exact(5)["rtp"]
    spins = [n for n, _ in data["convergence"]]
    assert spins == sorted(spins) and spins[-1] == 200_000
