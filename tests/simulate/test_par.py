"""PAR sheets: the figures, their intervals and checks, and the three files written from them."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from openpyxl import load_workbook

from slotlab.games import find_game
from slotlab.rng import chunk_stream
from slotlab.simulate.par import compute, write_par
from slotlab.simulate.par.figures import default_chunk, play_sample
from slotlab.simulate.par.intervals import batch_means99, t99, wilson99
from slotlab.simulate.par.xlsx import sheet_names
from slotlab.simulate.runner import simulate
from slotlab.simulate.stats import ACC_COMPONENTS, ACC_WIN

SPINS = 60_000


def table(figures: dict, table_id: str) -> dict:
    return next(t for t in figures["tables"] if t["id"] == table_id)


@pytest.fixture(scope="module")
def fruit(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    game = find_game("fruit-5x3")
    out = tmp_path_factory.mktemp("par-fruit")
    paths = write_par(game, "fruit-5x3", out, 30, SPINS, seed=11, sample_rounds=20_000)
    return paths, json.loads(paths["json"].read_text())


def test_t_quantile_matches_the_table():
    # Student's t, two-sided 99 %: 4.032 (5 df), 2.750 (30 df), 2.704 (40 df), 2.626 (100 df).
    for df, value in ((5, 4.032143), (30, 2.749996), (40, 2.704459), (100, 2.625891)):
        assert t99(df) == pytest.approx(value, rel=2e-3)
    values = [t99(df) for df in (5, 10, 40, 1000, 10**6)]
    assert values == sorted(values, reverse=True)  # falls towards the normal quantile
    assert 0 < values[-1] - 2.5758293035489 < 1e-5


def test_wilson_and_batch_means_intervals():
    low, high = wilson99(0, 1000)
    assert low == 0 and 0 < high < 0.01  # sound at zero, unlike the normal interval
    low, high = wilson99(500, 1000)
    assert low < 0.5 < high and high - low == pytest.approx(2 * 2.5758 * math.sqrt(0.25 / 1000),
                                                            rel=0.01)
    # equal chunks paying the same: a zero-width interval at the mean
    assert batch_means99([10, 10, 10], [100, 100, 100], 1) == (0.1, 0.1)
    low, high = batch_means99([0, 20, 10, 10], [100] * 4, 1)
    assert low < 0.1 < high


def test_round_by_round_sample_is_the_runs_own_first_chunk():
    game = find_game("super-12-stars")
    chunk = default_chunk(SPINS)
    sample = play_sample(game, 30, 3, chunk, 1, SPINS)
    assert sample.shape[0] == chunk  # whole chunks
    whole = game.simulate_chunk(30, chunk, chunk_stream(3, 0))[0]
    assert sample[:, 0].sum() == whole[ACC_WIN]
    n = len(game.component_names())
    assert (sample[:, 2:].sum(axis=0) == whole[ACC_COMPONENTS : ACC_COMPONENTS + n]).all()


def test_fruit_figures_agree_with_the_runner_and_the_exact_report(fruit):
    _, figures = fruit
    game = find_game("fruit-5x3")
    direct = simulate(game, "fruit-5x3", 30, SPINS, seed=11, chunk_spins=default_chunk(SPINS))
    assert figures["simulation"]["rtp"] == direct.rtp
    summary = {r[0]: r for r in table(figures, "summary")["rows"]}
    exact = game.exact(30)
    assert summary["RTP"][1] == exact["rtp"] and summary["RTP"][2] == direct.rtp
    assert summary["RTP"][3:5] == list(direct.ci99)
    assert summary["feature trigger, 1 in"][1] == exact["free_spins_one_in"]
    # seed 11 at 60,000 rounds: every exact figure inside its 99 % interval
    checks = figures["checks"]
    assert checks["all_pass"] is True and checks["failures"] == 0
    assert checks["marks"] == 9  # 6 summary figures, 3 parts
    assert checks["bet_levels_do_not_fall"] is True
    split = {r[0]: r for r in table(figures, "rtp-split")["rows"]}
    assert set(split) == {"base_lines", "base_scatter", "free_spins"}
    assert sum(r[3] for r in split.values()) == pytest.approx(direct.rtp, rel=1e-12)
    bands = table(figures, "win-bands")["rows"]
    assert sum(r[2] for r in bands) == SPINS
    bets = table(figures, "bet-levels")["rows"]
    assert [r[0] for r in bets] == game.bets() and all(r[-1] is True for r in bets)
    conv = table(figures, "convergence")["rows"]
    assert conv[-1][0] == SPINS and conv[-1][1] == direct.rtp
    assert [r[0] for r in conv] == sorted(r[0] for r in conv)


def test_super_12_stars_lucky_stars_is_compared_with_all_its_kernel_parts():
    game = find_game("super-12-stars")
    figures = compute(game, "super-12-stars", 30, 20_000, seed=2, sample_rounds=5_000)
    split = {r[0]: r for r in table(figures, "rtp-split")["rows"]}
    assert split["lucky_stars"][1] == "lucky_stars_values + minor + major + grand"
    assert split["lucky_stars"][2] == game.exact(30)["components"]["lucky_stars"]["rtp"]
    features = {r[0]: r for r in table(figures, "features")["rows"]}
    assert features["feature trigger (any)"][5] == game.exact(30)["feature_rate"]


def test_bet_level_check_flags_an_rtp_that_falls(monkeypatch):
    from slotlab.simulate.par import figures as fig

    game = find_game("classic-3x3")
    real = fig.exact_report

    def falling(g, bet, bonuses, seed):  # the same game paying less at its top bet
        report = real(g, bet, bonuses, seed)
        if bet == game.bets()[-1]:
            report["rtp"], report["rtp_fraction"] = 0.5, "1/2"
        return report

    monkeypatch.setattr(fig, "exact_report", falling)
    table_, ok = fig.bet_level_table(game, "classic-3x3", 20_000, 0, 1, 1000)
    assert ok is False and table_.rows[-1][-1] is False and "FLAG" in table_.note
    assert all(r[-1] is True for r in table_.rows[:-1])


def same(got: object, want: object) -> object:
    """``got`` where it equals ``want`` as a spreadsheet keeps it: a float to the 15
    significant digits a workbook stores, anything else exactly (an int stays an int)."""
    if isinstance(want, float) and isinstance(got, float) and got == pytest.approx(want,
                                                                                 rel=1e-14):
        return got
    return want


def test_xlsx_has_a_sheet_per_table_with_numbers_as_numbers(fruit):
    paths, figures = fruit
    wb = load_workbook(paths["xlsx"])
    names = sheet_names(figures["tables"])
    assert wb.sheetnames == names
    for name in ("summary", "rtp-split", "win-bands", "model-pays", "model-strips-base",
                 "exact-line-pays-per-line"):
        assert name in wb.sheetnames
    for t, name in zip(figures["tables"], names, strict=True):
        ws = wb[name]
        assert ws.cell(1, 1).value == t["title"]
        assert [c.value for c in ws[2]][: len(t["columns"])] == t["columns"]
        for i, row in enumerate(t["rows"]):
            got = [c.value for c in ws[3 + i]][: len(row)]
            got += [None] * (len(row) - len(got))
            assert got == [same(g, v) for g, v in zip(got, row, strict=True)], (name, i)
    rtp_cell = wb["summary"].cell(3, 3).value
    assert isinstance(rtp_cell, float)
    assert rtp_cell == pytest.approx(figures["simulation"]["rtp"], rel=1e-14)
    strips = wb["model-strips-base"]
    model = find_game("fruit-5x3").model.raw
    assert [strips.cell(3 + p, 2).value for p in range(len(model["strips"]["base"][0]))] == \
        model["strips"]["base"][0]


def test_json_is_complete_and_plain(fruit):
    paths, figures = fruit
    text = paths["json"].read_text()
    assert "NaN" not in text and "Infinity" not in text
    ids = [t["id"] for t in figures["tables"]]
    assert len(ids) == len(set(ids))
    for key in ("game", "model_hash", "code_version", "seed", "spins", "bet", "checks"):
        assert key in figures
    assert figures["spins"] == SPINS and figures["seed"] == 11
    edges = np.array(figures["plots"]["feature_win_edges"])
    assert (np.diff(edges) > 0).all() and "free_spins" in figures["plots"]["feature_wins"]


def test_par_command_on_a_copy_of_a_seed_model(tmp_path):
    import shutil
    from pathlib import Path

    from typer.testing import CliRunner

    from slotlab.cli import app

    models = Path(__file__).resolve().parents[2] / "src/slotlab/games/crystal_star_deluxe/models"
    copy = tmp_path / "my-crystal.json"
    shutil.copy(models / "crystal-star-deluxe.v1.json", copy)
    out = tmp_path / "sheet"
    res = CliRunner().invoke(app, ["par", str(copy), "--out", str(out), "--spins", "20k",
                                   "--sample", "5k", "--workers", "2", "--sessions", "2k"])
    assert res.exit_code == 0, res.output
    figures = json.loads((out / "par.json").read_text())
    assert {r[2] for r in table(figures, "sessions")["rows"]} == {2_000}
    assert figures["simulation"]["workers"] == 2  # the workers load a copy of any family too
    assert figures["game"] == "crystal-star-deluxe" and figures["spins"] == 20_000
    assert figures["model_hash"] == find_game("crystal-star-deluxe").model_hash
    assert (out / "par.html").stat().st_size > 0 and (out / "par.xlsx").stat().st_size > 0
    res = CliRunner().invoke(app, ["par", str(copy), "--out", str(out), "--sessions", "0"])
    assert res.exit_code == 2 and "not a positive count" in res.output
    broken = tmp_path / "broken.json"
    broken.write_text('{"id": "x"}')
    res = CliRunner().invoke(app, ["par", str(broken), "--out", str(out)])
    assert res.exit_code == 2 and "not a valid model of any known game" in " ".join(
        res.output.split())


@pytest.mark.parametrize("game_id", ["classic-3x3", "fruit-5x3", "crystal-star-deluxe",
                                     "super-12-stars", "superstars"])
def test_every_game_gets_every_table(game_id):
    game = find_game(game_id)
    figures = compute(game, game_id, game.bets()[0], 4_000, seed=1, sample_rounds=1_000,
                      bonuses=2_000)
    ids = {t["id"] for t in figures["tables"]}
    assert {"identity", "summary", "rtp-split", "win-bands", "max-win", "features",
            "bet-levels", "feature-wins", "convergence", "model-settings"} <= ids
    summary = {r[0]: r for r in table(figures, "summary")["rows"]}
    assert summary["RTP"][1] is not None  # every game has an exact (or composed) RTP
    split = table(figures, "rtp-split")["rows"]
    assert sum(r[3] for r in split) == pytest.approx(figures["simulation"]["rtp"], rel=1e-12)
    assert len(table(figures, "bet-levels")["rows"]) == len(game.bets())
    assert any(t["id"].startswith("model-") and t["rows"] for t in figures["tables"]
               if "strip" in t["id"])  # the reel strips are in the sheet


def test_the_docs_sheets_are_whole():
    """docs/par keeps a sheet per seed game whose HTML shows its par.json's figures."""
    from html.parser import HTMLParser
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "docs" / "par"

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.tables: dict[str, list[list[object]]] = {}
            self.current: str | None = None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "table":
                self.current = a["data-table"]
                self.tables[self.current] = []
            elif tag == "tr" and self.current and a.get("class") is None:
                self.tables[self.current].append([])
            elif tag == "td" and self.current:
                self.tables[self.current][-1].append(json.loads(a["data-value"]))

    for game_id in ("crystal-star-deluxe", "super-12-stars", "superstars"):
        figures = json.loads((root / game_id / "par.json").read_text())
        assert figures["game"] == game_id and figures["seed"] == 1
        assert figures["spins"] == 1_000_000
        assert figures["model_hash"] == find_game(game_id).model_hash  # not stale
        # the RTP line of the convergence plot: Superstars' is composed, an estimate
        assert figures["plots"]["rtp_estimated"] == (game_id == "superstars")
        parser = Cells()
        parser.feed((root / game_id / "par.html").read_text(encoding="utf-8"))
        for t in figures["tables"]:
            assert [r for r in parser.tables[t["id"]] if r] == t["rows"], (game_id, t["id"])
        wb = load_workbook(root / game_id / "par.xlsx", read_only=True)
        assert wb.sheetnames == sheet_names(figures["tables"])
