"""Composed mechanics in the browser, with no code of the game's own, each in a test variant
of Lucky Coin Link served beside the shipped games: an expanding Lucky 7 turns its reel Wild and
the respins spin the other reels while the Wild ones stay; a Mega Coin three rows tall, filling
its reel, is drawn as one tall symbol and starts Coin Link; a Frenzy Wheel waits for the
player's colour (the server keeps the round open) and spins again on it; Golden and Silver
Stars pay by their count, and a full Coin Link grid pays its Grand; three Wheel symbols spin the
Bonus Wheel, whose segment gives its own number of free spins; a second wheel, named, whose
free spins play on reels of their own; Super 12 Stars written as a data model, its Super 10
reel starting the Frenzy Wheel. All drawn from the
round's events by the generic composed view. Desktop and phone size; screenshots go to
test-artifacts/screenshots/.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from slotlab.games.composed.game import ComposedGame
from slotlab.games.composed.model import ComposedModel
from tests.games.composed.conftest import (
    frenzy_game,
    full_raw,
    mega_game,
    seven_game,
    stars_raw,
    two_wheels_game,
    wheel_symbol_game,
)

from .conftest import shot
from .servers import Server
from .test_client import open_game, register, rounds_played
from .test_composed_game import finish, has
from .test_languages import close_dialog
from .test_superstars import serve

pytestmark = pytest.mark.browser
S12_DATA = Path(__file__).resolve().parents[2] / "examples" / "composed" / "super-12-stars.json"
GID = "lucky-seven-link"
BET = 20


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pytest.importorskip("slotlab.server.app")
    games = [seven_game(), mega_game(), frenzy_game(),
             ComposedGame(ComposedModel.from_dict(stars_raw(full_raw()))), wheel_symbol_game(),
             two_wheels_game(), ComposedGame(ComposedModel.from_file(S12_DATA))]
    with serve(tmp_path_factory.mktemp("srv-mechanics"), extra_games=games) as s:
        yield s


@pytest.fixture
def page(sized: Any) -> Any:
    return sized


def _open_with_help(page: Any, srv: Server, gid: str) -> tuple[str, str]:
    """A new player opens ``gid`` and reads PAYS / HELP: (the whole dialog, the features'
    help)."""
    register(page, srv)
    open_game(page, gid)
    page.click("[data-testid=pays]")
    page.wait_for_selector("[data-testid=pays-dialog]")
    texts = (page.inner_text("[data-testid=pays-dialog]"),
             page.inner_text("[data-testid=feature-help]"))
    close_dialog(page, "pays-dialog")
    return texts


def _replay_log(page: Any) -> str:
    """The last round replayed in RECALL, to its end: the dialog's text."""
    page.click("[data-testid=recall]")
    page.wait_for_selector("[data-testid=history-row]")
    page.locator("[data-testid=replay]").first.click()
    page.wait_for_selector("[data-testid=replay-verify]:has-text('Verified')")
    page.click("[data-testid=replay-end]")
    text: str = page.inner_text("[data-testid=recall-dialog]")
    return text


def _base_expansion_then_respins(r: Any) -> bool:
    """A base spin expands reels, and its second respin stops with a reel that did not move."""
    return has("reels_expanded", lambda e: e["stage"] == "base" and e["respins"] == 2)(r) and \
        not has("wheel_spun")(r) and not has("hold_and_win_started")(r)


def test_a_reel_turns_wild_and_the_respins_hold_it(page: Any, srv: Server) -> None:
    _pays, help_text = _open_with_help(page, srv, GID)
    assert "turns its whole reel Wild" in help_text
    srv.games[GID].force(BET, _base_expansion_then_respins)
    # which reels are marked expanded, and which spin, at each change of the reels
    page.evaluate("""() => { window.__expanded = new Set(); window.__spunWhileHeld = [];
        new MutationObserver(() => {
            const reels = [...document.querySelectorAll('[data-testid=reels] .reel')];
            reels.forEach((el, i) => {
                if (el.classList.contains('expanded')) window.__expanded.add(i);
                if (el.classList.contains('expanded') && el.classList.contains('spinning'))
                    window.__spunWhileHeld.push(i); }); })
          .observe(document.body, {attributes: true, subtree: true}); }""")
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=reels] .reel.expanded')", timeout=120_000)
    shot(page, f"lucky-seven-link-expanded-{page.size_name}")
    rec = finish(page, n)
    events = rec["events"]
    expanded = {r for e in events if e["type"] == "reels_expanded" for r in e["reels"]}
    assert set(page.evaluate("[...window.__expanded]")) == expanded
    assert page.evaluate("window.__spunWhileHeld") == []
    respins = [e for e in events if e["type"] == "reels_stopped" and e.get("respin")]
    assert [e["respin"] for e in respins] == [1, 2]
    # the log names the respins
    log = _replay_log(page)
    assert "turned Wild" in log and "Respin 2 of 2" in log, log
    shot(page, f"lucky-seven-link-recall-{page.size_name}")


def test_a_filled_reel_is_one_tall_coin_that_starts_coin_link(page: Any, srv: Server) -> None:
    gid = "lucky-mega-link"
    _pays, help_text = _open_with_help(page, srv, gid)
    assert "fills a whole reel" in help_text
    srv.games[gid].force(BET, lambda r: has("whole_reel_shown")(r) and not has("wheel_spun")(r))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    # the filled reel, marked, drawn as one tall glyph
    seen = page.wait_for_function(
        """() => { const reel = document.querySelector('[data-testid=reels] .reel.giant');
                   return reel && [...document.querySelectorAll('[data-testid=reels] .reel')]
                       .indexOf(reel) + ':' + reel.querySelectorAll('.glyph-giant').length; }""",
        timeout=120_000).json_value()
    shot(page, f"lucky-mega-link-filled-{page.size_name}")
    reel, tall = seen.split(":")
    assert reel == "2" and int(tall) >= 1
    rec = finish(page, n)
    started = next(e for e in rec["events"] if e["type"] == "hold_and_win_started")
    assert {(2, row) for row in range(3)} <= {tuple(c["cell"]) for c in started["coins"]}


def test_the_colour_wheel_waits_for_the_players_colour(page: Any, srv: Server) -> None:
    gid = "lucky-frenzy-link"
    register(page, srv)
    open_game(page, gid)
    srv.games[gid].force(BET, has("wheel_spun", lambda e: e["feature"] == "colour_wheel"))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=choice-Red]", timeout=120_000)
    assert page.is_visible("[data-testid=colour-wheel]")
    assert page.is_disabled("[data-testid=spin]")  # the round waits: no new bet
    shot(page, f"lucky-frenzy-link-choice-{page.size_name}")
    page.click("[data-testid=choice-Red]")
    rec = finish(page, n)
    spins = [e for e in rec["events"] if e["type"] == "colour_wheel_spun"]
    assert spins and all(e["again"] == (e["colour"] == "Red" and e["total"] <= 20)
                         for e in spins)
    assert rec["choices"] == ["Red"]  # the server kept the player's colour with the round
    ended = next(e for e in rec["events"] if e["type"] == "colour_wheel_ended")
    assert ended["win"] > 0 and rec["win"] >= ended["win"]


def test_stars_pay_by_count_and_a_full_grid_pays_its_jackpot(page: Any, srv: Server) -> None:
    gid = "lucky-full-link-stars"
    pays, help_text = _open_with_help(page, srv, gid)
    assert "Golden Star" in pays and "Silver Star" in pays
    assert "hold every cell for the grand jackpot" in help_text.lower()
    # a base spin that only the Silver Stars pay
    srv.games[gid].force(BET, lambda r: has("scatter_won", lambda e: e["symbol"] == "SILVER")(r)
                         and not has("line_won")(r) and not has("hold_and_win_started")(r)
                         and not has("wheel_spun")(r))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    rec = finish(page, n)
    won = next(e for e in rec["events"] if e["type"] == "scatter_won")
    assert rec["win"] == won["win"] > 0
    # a Coin Link that fills the grid
    srv.games[gid].force(BET, has("hold_and_win_ended", lambda e: e["full_grid"] is not None))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=message]:has-text('Every cell held')", timeout=240_000)
    shot(page, f"lucky-full-link-grand-{page.size_name}")
    rec = finish(page, n)
    ended = next(e for e in rec["events"] if e["type"] == "hold_and_win_ended")
    assert ended["full_grid"]["win"] == 2000 and "Grand" in ended["jackpots"]
    log = _replay_log(page)
    assert "with the grand jackpot for a full grid" in log.lower(), log


def test_wheel_symbols_spin_the_wheel_and_its_segment_gives_the_free_spins(
        page: Any, srv: Server) -> None:
    gid = "lucky-wheel-link"
    _pays, help_text = _open_with_help(page, srv, gid)
    assert "3 or more Wheel symbols anywhere spin the Bonus wheel" in help_text, help_text
    assert "6 free spins ×2" in help_text, help_text
    srv.games[gid].force(BET, has("wheel_spun", lambda e: e["feature"] == "free_spins"))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=feature-wheel]", timeout=120_000)
    shot(page, f"lucky-wheel-link-wheel-{page.size_name}")
    rec = finish(page, n)
    window = rec["events"][0]["window"]
    assert sum(col.count("WHEEL") for col in window) >= 3
    started = next(e for e in rec["events"] if e["type"] == "free_spins_triggered")
    assert (started["awarded"], started["multiplier"]) == (6, 2)


def test_a_second_wheel_is_shown_by_its_name_and_its_free_spins_on_their_own_reels(
        page: Any, srv: Server) -> None:
    """Lucky Two Wheels: HELP lists both wheels and what spins each; three Wheel symbols spin
    the Lucky Wheel, drawn under its name, whose 5 free spins play on reels of their own."""
    gid = "lucky-two-wheels"
    _pays, help_text = _open_with_help(page, srv, gid)
    assert "3 or more Wheel symbols anywhere spin the Lucky Wheel" in help_text, help_text
    assert "Bonus wheel, spun when scatters award free spins" in help_text, help_text
    srv.games[gid].force(BET, has("wheel_spun", lambda e: e["wheel"] == 1
                                  and e["feature"] == "free_spins"))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=feature-wheel]", timeout=120_000)
    assert "Lucky Wheel" in page.inner_text("[data-testid=wheel-panel]")
    shot(page, f"lucky-two-wheels-wheel-{page.size_name}")
    rec = finish(page, n)
    started = next(e for e in rec["events"] if e["type"] == "free_spins_triggered")
    assert (started["awarded"], started["strips"]) == (5, "lucky_free")
    log = _replay_log(page)
    assert "Lucky Wheel: 5 free spins" in log, log


def test_super_12_stars_as_data_plays_its_wheels_and_the_frenzy(page: Any, srv: Server) -> None:
    """Super 12 Stars' data model in the generic view: HELP names its three wheels and what
    spins each; a full Super 10 spins the Super 10 Stars wheel, drawn under its name, which
    starts the Frenzy Wheel; the round waits for the colour and pays the total times the bet."""
    gid = "super-12-stars-data"
    _pays, help_text = _open_with_help(page, srv, gid)
    for said in ("3 or more Wheel symbols anywhere spin the Wheel",
                 "3 or more Super 10 symbols anywhere spin the Super 10 Stars",
                 "TV, spun when scatters award free spins"):
        assert said in help_text, help_text
    srv.games[gid].force(30, has("wheel_spun", lambda e: e["wheel"] == 2
                                 and e["feature"] == "colour_wheel"))
    n = rounds_played(page)
    page.click("[data-testid=spin]")
    page.wait_for_selector("[data-testid=feature-wheel]", timeout=120_000)
    assert "Super 10 Stars" in page.inner_text("[data-testid=wheel-panel]")
    page.wait_for_selector("[data-testid=choice-red]", timeout=120_000)
    assert "Frenzy Wheel" in page.inner_text("[data-testid=colour-wheel-panel]")
    shot(page, f"super-12-stars-data-frenzy-{page.size_name}")
    page.click("[data-testid=choice-red]")
    rec = finish(page, n)
    ended = next(e for e in rec["events"] if e["type"] == "colour_wheel_ended")
    assert ended["win"] == ended["total"] * 30 and rec["win"] >= ended["win"]
