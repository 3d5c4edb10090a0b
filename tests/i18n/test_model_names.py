"""Every name a game's model gives that a player reads (a symbol's, a paytable combination's, a
progressive pool's) has its message in the games' catalogue (js/names.js), English being the
model's name itself, so the client says it in the player's language; only Superstars' characters
and the royals, the same in every language, have none. A renamed or new symbol fails here until the
catalogue has it."""

from __future__ import annotations

from typing import Any

import pytest

from slotlab.games import find_game, game_ids

from .catalogues import CHARACTERS, FAMILIES, ROYALS, load


def model_names(desc: dict[str, Any]) -> dict[str, str]:
    """The catalogue key of every name the game's description gives -> that name."""
    gid = desc["id"]
    out = {f"symbol.{gid}.{s['id']}": str(s["name"]) for s in desc.get("symbols") or []
           if s.get("name") and s["name"] not in (*CHARACTERS, *ROYALS)}
    for row in desc.get("paytable") or []:
        if row.get("combination") is not None:
            out[f"combination.{gid}.{row['combination']}"] = str(row["label"])
    prog = desc.get("progressives") or []
    pools = prog if isinstance(prog, list) else [{"tier": k, **v} for k, v in prog.items()]
    out |= {f"pool.{gid}.{p['tier']}": str(p["name"]) for p in pools if p.get("name")}
    return out


@pytest.mark.parametrize("gid", game_ids())
def test_every_model_name_has_its_message_in_english_and_spanish(gid: str) -> None:
    names = model_names(find_game(gid).describe())
    assert names, gid
    en = load(FAMILIES["games"] / "en.json")
    es = load(FAMILIES["games"] / "es.json")
    wrong = {k: (n, en.get(k)) for k, n in names.items() if en.get(k) != n}
    assert not wrong, f"{gid}: English messages that are not the model's names: {wrong}"
    assert all(es.get(k) for k in names), gid


def test_a_renamed_symbol_is_caught() -> None:
    desc = {"id": "fruit-5x3", "symbols": [{"id": "CHERRY", "name": "Cherries"}]}
    en = load(FAMILIES["games"] / "en.json")
    assert en[next(iter(model_names(desc)))] != "Cherries"
