"""The model file: schema, content hash, and the facts of the seed text it must carry."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest

from slotlab.games.crystal_star_deluxe.model import load_model, model_path
from slotlab.model import ModelError, canonical_json


def test_v1_is_the_research_model_plus_the_progressive_numbers(v1_raw):
    # The repository's checkout sits beside ../shared, which holds the research model.
    source = model_path(1).parents[6] / "shared/research/models/crystal-star-deluxe.v1.json"
    if not source.exists():
        pytest.skip("the research folder is not beside this checkout")
    research = json.loads(source.read_text())
    for key in ("grid", "lines", "bet", "line_pays_x_line_bet", "multiplier_cap",
                "reel_strips"):
        assert v1_raw[key] == research[key], key
    # the legend is the players' names of the same combinations ("Triple Seven" for "777 x3")
    assert set(v1_raw["combo_legend"]) == set(research["combo_legend"])
    assert {p["tier"]: (p["reset_credits"], p["rate"]) for p in v1_raw["progressives"]} == {
        "top": (20000, "1/250"), "bottom": (1500, "3/1000")
    }


def test_hash_is_sha256_of_canonical_json(v1_raw):
    model = load_model(1)
    expected = hashlib.sha256(
        json.dumps(v1_raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    assert model.hash == expected == hashlib.sha256(canonical_json(v1_raw)).hexdigest()


def test_any_change_changes_the_hash(v1_raw):
    raw = copy.deepcopy(v1_raw)
    raw["line_pays_x_line_bet"]["S3"] = 101
    assert load_model(raw).hash != load_model(v1_raw).hash


def test_load_by_version_path_or_dict_agree(v1_raw):
    assert load_model(1).hash == load_model(model_path(1)).hash == load_model(v1_raw).hash


def test_multipliers_on_the_strips_are_those_the_rules_make_available():
    # "2X multipliers are available on 777, 7, and Double Bar symbols. 3X multipliers are
    # available on 77, 7 and Single Bar symbols. 5X multipliers are available on 777, Double
    # Bar and Single Bar symbols."
    model = load_model(1)
    spec = model.spec
    on_strips = {s for strip in spec.reel_strips for s in strip}
    available = {
        (spec.symbols[s].base, spec.symbols[s].multiplier)
        for s in on_strips if spec.symbols[s].multiplier > 1
    }
    assert available == {
        ("777", 2), ("7", 2), ("2BAR", 2),
        ("77", 3), ("7", 3), ("1BAR", 3),
        ("777", 5), ("2BAR", 5), ("1BAR", 5),
    }
    # Reel 2 carries no 5X symbol, so the largest product on a line is 5 x 3 x 5 = 75.
    assert not any(spec.symbols[s].multiplier == 5 for s in spec.reel_strips[1])


def test_lines_follow_the_rule_text(v1_raw):
    lines = v1_raw["lines"]
    assert len(lines) == 9
    assert lines[0] == [1, 1, 1] and lines[1] == [0, 0, 0] and lines[2] == [2, 2, 2]
    assert lines[8] == [1, 2, 1]
    assert v1_raw["three_stars"]["top_line"] == 9


def _broken(v1_raw, edit):
    raw = copy.deepcopy(v1_raw)
    edit(raw)
    return raw


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r["reel_strips"][0].__setitem__(1, "STAR^"), "fewer than 3 apart"),
        (lambda r: r["reel_strips"][1].__setitem__(1, "8BAR"), "unknown symbols"),
        (lambda r: r.__setitem__("grid", [5, 3]), "grid must be"),
        (lambda r: r["progressives"][0].__setitem__("rate", "a lot"), "not a fraction"),
        (lambda r: r["progressives"].pop(), "exactly the tiers"),
        (lambda r: r["symbols"]["STAR^"].__setitem__("multiplier", 2), "no multiplier"),
        (lambda r: r["lines"].append([1, 1, 1]), "same rows"),
        (lambda r: r["lines"][0].__setitem__(0, 3), "outside"),
        (lambda r: r["bet"].__setitem__("max_bet_credits", 50), "max_bet_credits"),
        (lambda r: r["combo_symbols"].__setitem__("S3", ["999"]), "base symbols"),
        (lambda r: r.__setitem__("surprise", 1), "Extra inputs"),
        (lambda r: r["reel_strips"].pop(), "3 reel strips"),
    ],
)
def test_invalid_models_are_refused_with_a_clear_message(v1_raw, edit, message):
    with pytest.raises(ModelError, match=message):
        load_model(_broken(v1_raw, edit))


def test_missing_file_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "nope.json")
