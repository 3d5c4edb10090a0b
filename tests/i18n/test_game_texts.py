"""Every game's rules (describe().rules, built in English from its model) are read by the games'
catalogue (src/slotlab/web/i18n/games/en.json), so the client says each one in the player's
language: a rule whose wording changed, or a new rule, fails here until the catalogue has it. The
server's default HELP texts (unfinished rounds, inactivity) are read the same way. No translation
lives in a model file, so no model hash changes with one."""

from __future__ import annotations

import re
from typing import Any

import pytest

from slotlab.games import find_game, game_ids
from slotlab.server.services.help import inactivity_text, unfinished_rounds_text
from slotlab.server.settings import Settings

from .catalogues import FAMILIES, fill, game_sentence, load, read_english


@pytest.fixture(scope="module")
def games_en() -> dict[str, str]:
    return load(FAMILIES["games"] / "en.json")


@pytest.fixture(scope="module", params=game_ids())
def desc(request: pytest.FixtureRequest) -> dict[str, Any]:
    return find_game(request.param).describe()


def test_every_rule_is_read_by_the_games_catalogue(desc: dict[str, Any],
                                                   games_en: dict[str, str]) -> None:
    prefixes = [desc["id"], desc["kind"]]
    unread = [r for r in desc["rules"] if game_sentence(games_en, prefixes, r) is None]
    assert not unread, f"{desc['id']}: rules no template reads: {unread}"


def test_a_rule_read_and_filled_in_english_is_the_rule_itself(desc: dict[str, Any],
                                                              games_en: dict[str, str]) -> None:
    """Reading loses nothing: the English template filled with what it read is the server's text."""
    prefixes = [desc["id"], desc["kind"]]
    for rule in desc["rules"]:
        keys = game_sentence(games_en, prefixes, rule) or []
        parts = [rule] if len(keys) == 1 else re.split(r"(?<=\.)\s+", rule)
        again = []
        for key, part in zip(keys, parts, strict=True):
            args = read_english(games_en[key], part)
            assert args is not None
            again.append(fill(games_en[key], args))
        assert " ".join(again) == rule


def test_a_changed_rule_is_not_read() -> None:
    games_en = {"lines.rule.max_win": "The most a round pays is {x} times the total bet."}
    rule = "The most a round pays is 5,000 times the total bet."
    assert game_sentence(games_en, ["lines"], rule) == ["lines.rule.max_win"]
    assert game_sentence(games_en, ["lines"], "A round pays at most 5,000 times the bet.") is None
    assert game_sentence(games_en, ["other"], rule) is None


@pytest.mark.parametrize("settings", [Settings(), Settings(auto_complete_after_s=7200,
                                                           session_idle_s=900)])
def test_the_servers_default_help_texts_are_read_by_the_client(settings: Settings) -> None:
    client = load(FAMILIES["client"] / "en.json")
    assert read_english(client["operator.unfinished_default"], unfinished_rounds_text(settings))
    assert read_english(client["operator.inactivity_default"], inactivity_text(settings))
