"""Every game's own texts (describe(): rules, paytable labels, names; the operator's HELP texts)
name what players see, never internal ids, and say no rule twice. The browser test
(tests/browser/test_player_texts.py) checks the same on the pages themselves."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from slotlab.games import find_game, game_ids
from slotlab.games.crystal_star_deluxe.game import CrystalStarDeluxe
from slotlab.games.crystal_star_deluxe.model import load_model
from slotlab.server.services.help import operator_help
from slotlab.server.settings import Settings
from tests.player_texts import (
    duplicate_sentences,
    ids_shown,
    names_of,
    repeated_topics,
)


def player_texts(d: dict[str, Any]) -> list[str]:
    """What PAYS / HELP shows of a description, as text."""
    prog = d.get("progressives") or []
    return [
        d["name"],
        *d["rules"],
        *(str(p.get("label") or "") for p in d["paytable"]),
        *(str(s["name"]) for s in d["symbols"]),
        *(str(p.get("name") or "") for p in prog),
    ]


@pytest.fixture(scope="module", params=game_ids())
def desc(request: pytest.FixtureRequest) -> dict[str, Any]:
    return find_game(request.param).describe()


def test_texts_name_symbols_combinations_and_pools(desc: dict[str, Any]) -> None:
    names = names_of(desc)
    shown = {t: ids_shown(t, names) for t in player_texts(desc)}
    assert not {t: ids for t, ids in shown.items() if ids}


def test_every_symbol_combination_and_pool_has_a_display_name(desc: dict[str, Any]) -> None:
    names = names_of(desc)
    assert all(names.ids.values()) and all(names.pools.values())


def test_no_rule_is_said_twice(desc: dict[str, Any]) -> None:
    op = operator_help(Settings())
    texts = [*desc["rules"], op["unfinished_rounds"], op["inactivity"]]
    assert not duplicate_sentences(texts)
    assert not repeated_topics(texts)


def test_the_check_catches_the_ids_players_were_shown() -> None:
    """The texts of issue 14, with the names of the games they came from."""
    crystal = names_of(find_game("crystal-star-deluxe").describe())
    classic = names_of(find_game("classic-3x3").describe())
    assert ids_shown("Line 2: 3 × ANY7 × 3 pays 30.", crystal) == ["ANY7"]
    assert ids_shown("777 x3", crystal) == ["777"]
    assert ids_shown("2BAR x3", crystal) == ["2BAR"]
    assert ids_shown("0 progressive: resets to 20,000.", crystal) == ["0 progressive"]
    assert ids_shown("TOP progressive jackpot won on line 9", crystal) == ["TOP progressive"]
    assert ids_shown("Three Crystal Stars on payline 9 award the Top Progressive.", crystal) == []
    assert ids_shown("Line 2: 3 × Triple Seven pays 30; on the top row.", crystal) == []
    assert ids_shown("WILD substitutes for SEVEN, BAR3, BAR2, BAR1, CHERRY.", classic) == [
        "WILD", "SEVEN", "BAR3", "BAR2", "BAR1", "CHERRY"]
    assert ids_shown("Double Diamond substitutes for Red Seven and Cherry.", classic) == []
    assert duplicate_sentences(["A rule. Misuse voids all pays.", "Misuse voids all pays."])
    assert repeated_topics(["The most a round pays is 10 times.", "Maximum win: 10x."])


def test_crystal_labels_from_the_model_are_what_the_check_reads() -> None:
    """A model whose legend shows ids fails the check; one without pool names gets names."""
    raw = copy.deepcopy(load_model(1).raw)
    raw["combo_legend"]["S3"] = "777 x3"
    for p in raw["progressives"]:
        p.pop("name")
    d = CrystalStarDeluxe(load_model(raw)).describe()
    assert [p["name"] for p in d["progressives"]] == ["Top Progressive", "Bottom Progressive"]
    assert ids_shown(d["paytable"][0]["label"], names_of(d)) == ["777"]
