"""What a player reads names what players see: every game's PAYS / HELP panel and the RECALL
replay of its rounds, in Chromium against the real server, show no internal symbol, combination
or pool id (tests/player_texts.py says how one is told from a word) and no rule line twice.

Each game plays rounds chosen to show its texts (line wins with a wild multiplier, a gamble,
free spins, nudges, a progressive, a bonus game, a feature); the server's game wrapper finds the
seeds (servers.py). Rounds are played through the API from the page, so that the replay of each is
what is looked at; RECALL then steps it to its end, which lists the text of every event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.player_texts import duplicate_sentences, ids_shown, names_of, repeated_topics

from .conftest import api, shot, unique, visible_texts

pytestmark = pytest.mark.browser
PASSWORD = "correct-horse-battery"

Want = Callable[[Any], bool]


def _types(r: Any) -> set[str]:
    return {e["type"] for e in r.events}


def _line_win_times(r: Any) -> bool:
    return any(e["type"] == "line_won" and e.get("multiplier", 1) > 1 for e in r.events)


# (bet: index into the game's bets, the outcome wanted) per game; the first bet when not said
ROUNDS: dict[str, list[tuple[int, Want]]] = {
    "classic-3x3": [(0, _line_win_times)],
    "fruit-5x3": [(0, lambda r: "free_spins_triggered" in _types(r)), (0, _line_win_times)],
    "crystal-star-deluxe": [
        (0, lambda r: r.win > 0 and "reels_nudged" in _types(r) and _line_win_times(r)),
        (-1, lambda r: bool(r.jackpots)),
        (0, lambda r: "flat_prize_won" in _types(r)),
    ],
    "superstars": [
        (0, lambda r: {"bonus_triggered", "wheel_spun", "square_landed"} <= _types(r)),
        (0, lambda r: r.win > 0),
    ],
    "super-12-stars": [
        (0, lambda r: r.awaiting is None and len(_types(r) - {"reels_stopped", "line_won",
                                                              "round_ended"}) >= 2),
        (0, lambda r: r.awaiting is not None),  # the Frenzy Wheel: a choice in the replay
        (0, lambda r: "line_won" in _types(r)),
    ],
    "lucky-coin-link": [
        (0, lambda r: {"hold_and_win_started", "respin_landed"} <= _types(r)),
        (0, lambda r: "wheel_spun" in _types(r)),
        (0, lambda r: "line_won" in _types(r)),
    ],
}

# Every text node the player can see inside the open dialog. Words drawn in a symbol's picture
# (an SVG glyph: "WILD" on a wild, "BAR" on a bar) are artwork, not text.
RULE_LINES = """(sel) => [...document.querySelectorAll(sel + ' ul.rules li')]
  .filter((li) => li.checkVisibility()).map((li) => li.innerText.trim())"""


def play(page: Any, server: Any, gid: str, bet_index: int, want: Want) -> str:
    """Play one round of the wanted kind to its end (choices: the first option, then collect)."""
    desc = api(page, "GET", f"/api/games/{gid}")
    credits, money = desc["bets_credits"][bet_index], desc["bets"][bet_index]
    server.games[gid].force(credits, want)
    res = api(page, "POST", f"/api/games/{gid}/rounds", {"bet": money})
    step = 0
    while res.get("awaiting"):
        options = [str(o) for o in res["awaiting"]["options"]]
        # the first step gambles (or picks a colour), the next collects where it can
        others = [o for o in options if o != "collect"]
        choice = "collect" if (step or not others) and "collect" in options else others[0]
        res = api(page, "POST", f"/api/rounds/{res['round_id']}/choices",
                  {"choice": choice, "step": res["step"]})
        step += 1
    return str(res["round_id"])


def no_ids(texts: list[str], names: Any, where: str) -> None:
    shown = {t: ids for t in texts if (ids := ids_shown(t, names))}
    assert not shown, f"{where} shows internal ids: {shown}"


@pytest.fixture
def player(page: Any, server: Any) -> Any:
    page.goto(server.url + "/")
    page.fill("[data-testid=username]", unique("t"))
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=register-submit]")
    page.wait_for_selector("[data-testid=lobby]")
    return page


@pytest.mark.parametrize("gid", list(ROUNDS))
def test_pays_help_and_replays_name_what_players_see(player: Any, server: Any, gid: str) -> None:
    page = player
    assert set(ROUNDS) == set(server.games), "every offered game has its rounds here"
    page.click(f"[data-testid=game-card-{gid}]")
    page.wait_for_selector(f"[data-testid=game][data-game={gid}][data-state=idle]")
    desc = api(page, "GET", f"/api/games/{gid}")

    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog] [data-testid=paytable]")
    pays = "[data-testid=pays-dialog]"
    texts = visible_texts(page, pays)
    assert texts, "the panel shows text"
    rules = page.evaluate(RULE_LINES, pays)
    names = names_of(desc, vocabulary=rules)  # a feature is named by the words HELP teaches
    no_ids(texts, names, "PAYS / HELP")
    assert not duplicate_sentences(rules), "a rule line is said twice"
    assert not repeated_topics(rules), "one rule is said in two lines"
    shot(page, f"texts-{gid}-pays")
    page.click(f"{pays} [data-testid=dialog-close]")
    page.wait_for_selector(pays, state="detached")

    round_ids = [play(page, server, gid, bet, want) for bet, want in ROUNDS[gid]]
    page.click("[data-testid=recall]")
    for rid in round_ids:
        page.click(f"[data-testid=history-row][data-round='{rid}'] [data-testid=replay]")
        page.wait_for_selector("[data-testid=replay-reels]")
        n = len(api(page, "GET", f"/api/rounds/{rid}")["events"])
        page.click("[data-testid=replay-end]")
        page.wait_for_selector(f"[data-testid=replay-count]:text-is('Step {n} of {n}')")
        log = page.locator("[data-testid=replay-log] li")
        assert log.count() == n, "the log says every event"
        no_ids(visible_texts(page, "[data-testid=recall-dialog]"), names, f"replay {rid}")
        page.click("[data-testid=replay-back]")
        page.wait_for_selector("[data-testid=history-row]")
