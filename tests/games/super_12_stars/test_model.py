"""The model file: the research numbers, its hash, validation errors and the kernel arrays."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from slotlab.games.super_12_stars.model import (
    BASE,
    FREE,
    S10_FREE,
    SYMBOLS,
    ModelError,
    load_model,
    model_path,
)
from slotlab.model import canonical_json

RESEARCH = Path(__file__).parents[3].parent / "shared" / "research" / "models" / (
    "super-12-stars.v1.json")


def test_v1_holds_the_research_numbers(v1_raw):
    if not RESEARCH.exists():
        pytest.skip("the research folder is not next to the checkout")
    src = json.loads(RESEARCH.read_text())
    # The research's symbol names carry the designer's remarks in brackets; players see the
    # names without them (where each symbol lands, the rules say).
    assert v1_raw["symbols"] == {k: re.sub(r"\s*\(.*\)$", "", v).replace(
        " scatter", "").replace(" giant 1x3", "") for k, v in src["symbols"].items()}
    for key in ("grid", "lines", "line_pays_x_line_bet", "wild_only_line_pays_as",
                "golden_scatter_pays_x_total_bet", "silver_scatter_pays_x_total_bet",
                "bonus_trigger_pay_x_total_bet", "wheel_segments_x_line_bet_weight",
                "super10_reel"):
        assert v1_raw[key] == src[key], key
    assert v1_raw["reel_strips"] == {"base": src["reel_strips"]["base"],
                                     "free": src["reel_strips"]["fs"],
                                     "super10_free": src["reel_strips"]["fs2"]}
    fs, sfs = v1_raw["fs_minigame"], src["fs_minigame"]
    assert (fs["spins_weight"], fs["multiplier_weight"], fs["max_total_spins"]) == (
        sfs["spins_weight"], sfs["multiplier_weight"], sfs["max_total_spins"])
    fw, sfw = v1_raw["frenzy_wheel"], src["frenzy_wheel"]
    assert (fw["values_per_colour"], fw["weights"], fw["stop_when_total_gt"]) == (
        sfw["values_per_colour"], sfw["weights"], sfw["stop_when_total_gt"])
    ls, sls = v1_raw["lucky_stars"], src["lucky_stars"]
    for key in ("cells", "respins", "p_star_per_empty_cell", "star_values_x_total_bet_weight",
                "MINOR", "MAJOR", "GRAND"):
        assert ls[key] == sls[key], key
    assert v1_raw["max_win_cap_x"] is None  # the text has no cap


def test_hash_is_sha256_of_canonical_json(v1_raw):
    m = load_model(1)
    assert m.hash == hashlib.sha256(canonical_json(v1_raw)).hexdigest()


def test_any_change_changes_the_hash(v1_raw):
    raw = copy.deepcopy(v1_raw)
    raw["lucky_stars"]["GRAND"] = 251
    assert load_model(raw).hash != load_model(v1_raw).hash


def test_load_by_version_path_or_dict_agree(v1_raw):
    assert load_model(1).hash == load_model(model_path(1)).hash == load_model(v1_raw).hash


def test_missing_file_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "nope.json")


def test_arrays_encode_the_strips_with_the_window_wrap():
    m = load_model(1)
    for si, name in ((BASE, "base"), (FREE, "free"), (S10_FREE, "super10_free")):
        strips = getattr(m.spec.reel_strips, name)
        for r, strip in enumerate(strips):
            n = len(strip)
            assert m.lengths[si, r] == n
            codes = [SYMBOLS[c] for c in m.strips[si, r, : n + 2]]
            assert codes == strip + strip[:2]
        assert m.window(si, [0] * 5) == [s[:3] for s in strips]
    assert m.lengths.tolist() == [[60, 60, 195, 60, 60], [60, 59, 132, 59, 60],
                                  [60, 59, 132, 59, 60]]


def test_pay_unit_is_the_line_bet():
    m = load_model(1)
    assert m.golden_pays.tolist() == [0, 0, 0, 150, 750, 6000]
    assert m.silver_pays.tolist() == [0, 0, 0, 15, 30, 60, 150, 450, 1200, 3000]
    assert m.bonus_pay == 30 and (m.minor_units, m.major_units, m.grand_units) == (450, 1500,
                                                                                  7500)
    assert m.star_units.tolist() == [15, 30, 60, 90, 150, 240, 300, 450, 1500]
    assert m.s10_amount.tolist() == [90, 150, 300, 450, 750, 1500, 3000, 0, 5, 8, 10]


def test_feature_tables_keep_the_research_weights_exactly():
    m = load_model(1)
    assert m.wheel.probability(10) == Fraction(1, 2) / Fraction(199, 2)  # 0.5 of 99.5
    assert m.super10.probability(7) == Fraction(22) / Fraction(203, 2)  # 22 of 101.5
    assert m.star_values.probability(8) == Fraction(1, 200)  # 0.5 of 100
    p = Fraction("0.0585")
    assert m.lucky_cell.probability(0) == 1 - p
    for i in range(len(m.star_values.values)):
        assert m.lucky_cell.probability(i + 1) == p * m.star_values.probability(i)
    assert len(m.frenzy.values) == 20 and m.frenzy.total == 2 * m.frenzy_per_colour.total


def _edit(path: str, value: Any):
    def apply(raw: dict[str, Any]) -> None:
        *keys, last = path.split(".")
        node = raw
        for k in keys:
            node = node[int(k)] if isinstance(node, list) else node[k]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return apply


@pytest.mark.parametrize(("edit", "message"), [
    (_edit("grid", [3, 3]), "grid must be"),
    (_edit("lines.1", [1, 1, 1, 1, 1]), "same rows"),
    (_edit("lines.2", [0, 0, 3, 0, 0]), "row outside"),
    (_edit("bet.lines", 20), "30 fixed lines"),
    (_edit("bet.credits_per_line", [2, 1]), "ascending"),
    (_edit("symbols", {s: s for s in reversed(SYMBOLS)}), "symbols must be exactly"),
    (_edit("line_pays_x_line_bet.CH", [11, 25, -1]), "must not be negative"),
    (_edit("wild_only_line_pays_as", "W"), "paying symbol"),
    (_edit("silver_scatter_pays_x_total_bet", {"3": 0.55, "4": 1, "5": 2, "6": 5, "7": 15,
                                                "8": 40, "9": 100}), "whole number"),
    (_edit("golden_scatter_pays_x_total_bet", {"3": 5, "4": 25}), "each count"),
    (_edit("wheel_segments_x_line_bet_weight", [[30, 0]]), "weight must be positive"),
    (_edit("fs_minigame.multiplier_weight", [[0, 1]]), "at least 1"),
    (_edit("super10_reel", [["FRENZY", 3, 1]]), "carries no value"),
    (_edit("super10_reel", [["FS", 0, 1]]), "whole number of spins"),
    (_edit("frenzy_wheel.weights", [1, 2]), "one weight per value"),
    (_edit("frenzy_wheel.colours", ["red", "red"]), "colours differ"),
    (_edit("lucky_stars.cells", 16), "15 cells"),
    (_edit("lucky_stars.p_star_per_empty_cell", 1.5), "less than 1"),
    (_edit("reel_strips.base.2.33", "CH"), "blocks of exactly 3"),
    (_edit("reel_strips.base.1.1", "BO"), "two BO in the window"),
    (_edit("reel_strips.base.0.0", "XX"), "unknown symbols"),
    (_edit("reel_strips.base.0", ["SE", "BA"]), "at least 3 stops"),
    (_edit("reel_strips.free.2.0", "T10"), "T10 may not appear"),
])
def test_invalid_models_are_refused_with_a_clear_message(v1_raw, edit, message):
    raw = copy.deepcopy(v1_raw)
    edit(raw)
    with pytest.raises(ModelError, match=message):
        load_model(raw)
