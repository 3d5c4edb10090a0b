"""A composed model file is validated on load; every error names the field at fault."""

from __future__ import annotations

from typing import Any

import pytest

from slotlab.games import find_game, game_of_data
from slotlab.games.composed.game import ComposedGame
from slotlab.model import ModelError
from tests.games.composed.conftest import shipped_raw


def _error(change: dict[str, Any], drop: tuple[str, ...] = ()) -> str:
    raw = shipped_raw()
    raw.update(change)
    for key in drop:
        del raw[key]
    with pytest.raises(ModelError) as exc:
        game_of_data(raw, "mine.json")
    return str(exc.value)


def _hw(**changes: Any) -> dict[str, Any]:
    hw = shipped_raw()["hold_and_win"]
    hw.update(changes)
    return {"hold_and_win": hw}


def test_the_shipped_game_loads_by_id_and_by_its_family() -> None:
    game = find_game("lucky-coin-link")
    assert isinstance(game, ComposedGame) and game.family == "composed"
    assert isinstance(game_of_data(shipped_raw()), ComposedGame)


def test_the_hold_and_win_is_described_by_its_name_or_by_none() -> None:
    # the client calls the feature by the model's name; a model without one gets the generic name
    assert find_game("lucky-coin-link").describe()["hold_and_win"]["name"] == "Coin Link"
    raw = shipped_raw()
    del raw["hold_and_win"]["name"]
    assert game_of_data(raw).describe()["hold_and_win"]["name"] is None


@pytest.mark.parametrize(("change", "words"), [
    (_hw(symbol="NOPE"), ["hold_and_win.symbol", "NOPE"]),
    (_hw(symbol="DRAGON"), ["hold_and_win.symbol", "pays"]),
    (_hw(symbol="BONUS"), ["hold_and_win.symbol", "scatter"]),
    (_hw(trigger=16), ["hold_and_win.trigger", "15 cells"]),
    (_hw(name=""), ["hold_and_win.name"]),
    (_hw(name="x" * 25), ["hold_and_win.name", "24"]),
    (_hw(jackpots={"Mini": 1, "Minor": 2, "Major": 3}), ["jackpots", "Grand"]),
    (_hw(coins=[{"weight": 1, "value": 5, "jackpot": "Mini"}]), ["hold_and_win.coins.0",
                                                                 "either a value or a jackpot"]),
    (_hw(coins=[{"weight": 0, "value": 5}]), ["hold_and_win.coins.0.weight"]),
    (_hw(landing={"nothing": 1, "coin": 1, "sticky": 1}), ["hold_and_win.landing.sticky"]),
    ({"wheel": {"segments": [{"weight": 1}]}}, ["wheel.segments.0", "pays"]),
    ({"wheel": {"segments": [{"weight": 1, "pay": 5, "multiplier": 2}]}},
     ["wheel.segments.0", "multiplier"]),
    ({"strips": {"free": shipped_raw()["strips"]["free"]}}, ["strips", "base"]),
    ({"pays": {"DRAGON": {"3": 0}}}, ["pays.DRAGON", "positive"]),
    ({"family": "composed", "format": "slotlab.lines/1"}, ["format"]),
])
def test_a_bad_model_names_its_field(change: dict[str, Any], words: list[str]) -> None:
    text = _error(change)
    assert text.startswith("mine.json")
    for w in words:
        assert w in text, text


def test_a_wheel_needs_free_spins_and_its_features() -> None:
    assert "wheel" in _error({}, drop=("free_spins",))
    text = _error({}, drop=("hold_and_win",))
    assert "wheel.segments[5]" in text and "hold_and_win" in text
