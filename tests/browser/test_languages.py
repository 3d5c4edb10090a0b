"""The client in the player's language (docs/client.md, "Languages"), in Chromium against the real
server.

* Pseudo-locale: the catalogues of a language "qps", built here from English with every message
  wrapped in ⟦…⟧ (served to the page by the test: qps is no language the client ships), are
  chosen by the launch parameter ``?lang=qps``. On the login form, the lobby, every game at rest
  and after a won round, its PAYS / HELP and rules, the MENU, the BET, AUTO, RECALL (list and
  replay) and LIMITS dialogs, and the replays of the Superstars Bonus Game and of Super 12 Stars'
  features (their modules' texts), every visible text node, and every screen-reader label
  (aria-label, title), is made of catalogue messages, save what the comment above BRAND lists.
* Spanish: chosen from the MENU, the lobby and a game are in Spanish, and stay so after a reload;
  the launch parameter and the browser's language choose it too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.i18n.catalogues import CHARACTERS, FAMILIES, ROYALS, languages, load, pseudo

from .conftest import api, shot, unique, visible_texts
from .servers import Server

pytestmark = pytest.mark.browser
PASSWORD = "correct-horse-battery"

# What a page may show that comes from no catalogue, besides numbers, amounts and punctuation:
# the brand; the games' names; Superstars' five characters (brand names of their games, the same
# in every language) and the royals (A K Q J: letters, no word); the languages' own names in the
# MENU; the player's username, the wallet's currency code and the jurisdiction's id; the clock's
# AM / PM of a date (dates are the browser's own Intl formatting). Symbols, paytable combinations
# and progressive pools are said from the games' catalogue (js/names.js). Round ids and model
# hashes (class "hash") are not walked; an SVG drawing's own texts neither.
BRAND = "slotlab"
LETTER = re.compile(r"[^\W\d_]")  # what is left may hold digits, signs and symbols, no word
MARKED = re.compile(r"⟦[^⟦⟧]*⟧")

# A round that wins with the generic presentation (no feature that waits for the player).
PLAIN = {"reels_stopped", "line_won", "scatter_won", "round_ended", "reels_nudged",
         "gamble_offered", "win_capped"}


def exempt_names(page: Any, server: Server, username: str) -> list[str]:
    """The names a page may show as they are (EXEMPT above), longest first."""
    names = {BRAND, username, "AM", "PM", *CHARACTERS, *ROYALS, *languages().values()}
    wallet = api(page, "GET", "/api/wallet")
    names.add(str(wallet.get("currency") or ""))
    session = api(page, "GET", "/api/session")
    prof = session.get("jurisdiction") or {}
    if isinstance(prof, dict):
        names |= {str(prof.get(k) or "") for k in ("id", "name", "code")}
    else:
        names.add(str(prof))
    for gid in server.games:
        d = api(page, "GET", f"/api/games/{gid}")
        names.add(d["name"])
        names |= {n.upper() for n in names}
        op = d.get("operator") or {}
        names |= {str(op.get(k) or "") for k in ("name", "contact", "terms_url")}
    return sorted((n for n in names if n), key=len, reverse=True)


def foreign(texts: list[str], exempt: list[str]) -> list[str]:
    """The texts with something that is neither a catalogue message nor exempt."""
    out = []
    for text in texts:
        rest = text
        while MARKED.search(rest):
            rest = MARKED.sub("", rest)
        for name in exempt:  # a name of one or two letters (a royal) only as a word of its own
            rest = (re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "", rest) if len(name) <= 2
                    else rest.replace(name, ""))
        if LETTER.search(rest):
            out.append(text)
    return out


def test_a_text_from_no_catalogue_is_caught() -> None:
    exempt = ["Fruit Fiesta", "€", "K"]
    ok = ["⟦Win €1.00⟧", "⟦Choose ⟦a username⟧⟧", "Fruit Fiesta", "€1.00 – €5.00", "96.50%", "⟦3×⟧",
          "K ⟦x5⟧"]
    assert foreign(ok, exempt) == []
    bad = ["Win €1.00", "⟦Line 1⟧ pays", "Fiesta", "x", "Kiwi"]
    assert foreign(bad, exempt) == bad


def types(r: Any) -> set[str]:
    return {e["type"] for e in r.events}


# Rounds whose features the replay then shows step by step (the feature modules' own texts)
FEATURE_ROUNDS: dict[str, list[Callable[[Any], bool]]] = {
    "superstars": [lambda r: {"bonus_triggered", "wheel_spun", "square_landed"} <= types(r)],
    "super-12-stars": [
        lambda r: r.awaiting is None and len(types(r) - PLAIN) >= 2,
        lambda r: r.awaiting is not None,  # the Frenzy Wheel: a choice
    ],
}


def play(page: Any, server: Server, gid: str, want: Callable[[Any], bool]) -> str:
    """Play one round of the wanted kind through the API (a choice: the first option)."""
    desc = api(page, "GET", f"/api/games/{gid}")
    server.games[gid].force(desc["bets_credits"][0], want)
    res = api(page, "POST", f"/api/games/{gid}/rounds", {"bet": desc["bets"][0]})
    while res.get("awaiting"):
        choice = str(res["awaiting"]["options"][0])
        res = api(page, "POST", f"/api/rounds/{res['round_id']}/choices",
                  {"choice": choice, "step": res["step"]})
    return str(res["round_id"])


@pytest.fixture
def qps_page(page: Any) -> Iterator[Any]:
    """The page with the pseudo-locale's catalogues served at i18n/qps.json, i18n/games/qps.json."""
    def serve(body: str) -> Any:
        return lambda route: route.fulfill(status=200, content_type="application/json", body=body)

    for family, folder in FAMILIES.items():
        body = json.dumps(pseudo(load(folder / "en.json")), ensure_ascii=False)
        page.route("**/i18n/games/qps.json" if family == "games" else "**/i18n/qps.json",
                   serve(body))
    yield page


# The screen-reader labels of what is shown (a wheel's drawing says what it is in its own label).
_LABELS = """() => [...document.querySelectorAll("[aria-label], [title]")]
  .filter((el) => el.getClientRects().length && (!el.closest("svg") || el.matches("svg.wheel-svg")))
  .flatMap((el) => [el.getAttribute("aria-label"), el.getAttribute("title")])
  .filter((s) => s && s.trim())"""


def check(page: Any, exempt: list[str], where: str) -> None:
    texts = visible_texts(page, skip="svg, .hash, script, style, noscript")
    assert texts, where
    bad = foreign(texts, exempt)
    assert not bad, f"{where}: texts not from the catalogue: {bad}"
    bad = foreign(page.evaluate(_LABELS), exempt)
    assert not bad, f"{where}: screen-reader labels not from the catalogue: {bad}"


# The game's dialogs, in this order (BET collects a win offered for a gamble first): the button,
# the dialog, what shows it is filled in, and its name in a failure.
DIALOGS = [("pays", "pays-dialog", " [data-testid=rules] li", "PAYS / HELP"),
           ("menu", "menu-dialog", "", "MENU"),
           ("bet-settings", "bet-dialog", "", "BET"),
           ("auto", "auto-dialog", "", "AUTO")]


def close_dialog(page: Any, testid: str) -> None:
    page.click(f"[data-testid={testid}] [data-testid=dialog-close]")
    page.wait_for_selector(f"[data-testid={testid}]", state="detached")


def test_every_visible_text_comes_from_the_catalogue(qps_page: Any, server: Server) -> None:
    page = qps_page
    page.goto(server.url + "/?lang=qps")
    page.wait_for_selector("[data-testid=login]")
    page.wait_for_load_state("networkidle")  # what the welcome screen adds when it has asked
    assert page.evaluate("document.documentElement.lang") == "qps"
    check(page, [BRAND, *languages().values()], "login")
    name = unique("q")
    page.fill("[data-testid=username]", name)
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=register-submit]")
    page.wait_for_selector("[data-testid=lobby]")
    exempt = exempt_names(page, server, name)
    page.wait_for_function(  # every thumbnail drawn (from each game's description)
        f"() => document.querySelectorAll('.thumb[data-reels]').length === {len(server.games)}")
    page.wait_for_load_state("networkidle")
    check(page, exempt, "lobby")
    assert page.inner_text("h1.lobby-title") == "⟦Choose a game⟧"  # the pseudo-locale's own
    shot(page, "qps-lobby")

    for gid in server.games:
        page.click(f"[data-testid=game-card-{gid}]")
        page.wait_for_selector(f"[data-testid=game][data-game={gid}][data-state=idle]")
        check(page, exempt, f"{gid} at rest")

        desc = api(page, "GET", f"/api/games/{gid}")
        server.games[gid].force(desc["bets_credits"][0], lambda r: r.win > 0 and {
            e["type"] for e in r.events} <= PLAIN)
        page.click("[data-testid=spin]")
        page.wait_for_selector("[data-testid=game][data-state=offered], "
                               "[data-testid=game][data-rounds='1'][data-state=idle]")
        check(page, exempt, f"{gid} after a win")
        shot(page, f"qps-{gid}-win")

        for button, dialog, ready, label in DIALOGS:
            page.click(f"[data-testid={button}]")
            page.wait_for_selector(f"[data-testid={dialog}]{ready}")
            check(page, exempt, f"{gid} {label}")
            close_dialog(page, dialog)

        page.click("[data-testid=recall]")
        page.wait_for_selector("[data-testid=history-row]")
        check(page, exempt, f"{gid} RECALL")
        page.click("[data-testid=history-row] [data-testid=replay] >> nth=0")
        page.wait_for_selector("[data-testid=replay-reels]")
        page.click("[data-testid=replay-end]")
        page.wait_for_selector("[data-testid=replay-verify].ok")
        check(page, exempt, f"{gid} replay")
        close_dialog(page, "recall-dialog")

        page.click("[data-testid=lobby]")
        page.wait_for_selector("[data-testid=lobby]")

    for gid, wants in FEATURE_ROUNDS.items():
        page.click(f"[data-testid=game-card-{gid}]")
        page.wait_for_selector(f"[data-testid=game][data-game={gid}][data-state=idle]")
        for rid in [play(page, server, gid, want) for want in wants]:
            page.click("[data-testid=recall]")
            page.click(f"[data-testid=history-row][data-round='{rid}'] [data-testid=replay]")
            page.wait_for_selector("[data-testid=replay-reels]")
            page.click("[data-testid=replay-end]")
            page.wait_for_selector("[data-testid=replay-verify].ok")
            check(page, exempt, f"{gid} replay of {rid}")
            shot(page, f"qps-{gid}-feature-replay")
            close_dialog(page, "recall-dialog")
        page.click("[data-testid=lobby]")
        page.wait_for_selector("[data-testid=lobby]")

    page.click("[data-testid^=game-card] >> nth=0")
    page.click("[data-testid=menu]")
    page.click("[data-testid=menu-limits]")
    page.wait_for_selector("[data-testid=limits-dialog] [data-testid=limits-rule]")
    check(page, exempt, "LIMITS")


def test_spanish_from_the_menu_stays_after_a_reload(page: Any, server: Server) -> None:
    page.goto(server.url + "/")
    page.fill("[data-testid=username]", unique("es"))
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=register-submit]")
    page.wait_for_selector("[data-testid=lobby]")
    assert page.inner_text("h1.lobby-title") == "Choose a game"
    page.click("[data-testid=game-card-fruit-5x3]")
    page.wait_for_selector("[data-testid=game][data-state=idle]")
    assert page.inner_text("[data-testid=spin]").strip().endswith("SPIN")

    page.click("[data-testid=menu]")
    with page.expect_navigation():
        page.select_option("[data-testid=menu-language]", "es")
    page.wait_for_selector("[data-testid=game][data-game=fruit-5x3][data-state=idle]")
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.inner_text("[data-testid=spin]").strip().endswith("GIRAR")
    assert page.inner_text("[data-testid=pays]") == "PREMIOS / AYUDA"
    page.click("[data-testid=pays]")
    rules = page.inner_text("[data-testid=pays-dialog] [data-testid=rules]")
    d = api(page, "GET", "/api/games/fruit-5x3")
    lines, reels, rows = len(d["lines"]), d["reels"], d["rows"]
    assert f"{lines} líneas de pago fijas en {reels} rodillos x {rows} filas." in rules
    x = int(d["max_win_x"])  # Spanish groups thousands with dots, from five digits (CLDR)
    most = f"{x:,}".replace(",", ".") if x >= 10_000 else str(x)
    assert f"Lo máximo que paga una ronda es {most} veces la apuesta total." in rules
    assert "paylines" not in rules and "total bet" not in rules
    shot(page, "es-fruit-5x3-pays")
    close_dialog(page, "pays-dialog")
    page.click("[data-testid=lobby]")
    page.wait_for_selector("[data-testid=lobby]")
    assert page.inner_text("h1.lobby-title") == "Elige un juego"
    assert page.inner_text("[data-testid=logout]") == "CERRAR SESIÓN"

    page.reload()
    page.wait_for_selector("[data-testid=lobby]")
    assert page.inner_text("h1.lobby-title") == "Elige un juego"
    shot(page, "es-lobby")


@pytest.mark.parametrize(("locale", "query", "welcome"), [
    ("es-CO", "", "Bienvenido a slotlab"),  # the browser's language
    ("en-GB", "?lang=es", "Bienvenido a slotlab"),  # the operator's launch parameter
    ("es-ES", "?lang=en", "Welcome to slotlab"),  # the launch parameter before the browser's
    ("fr-FR", "", "Welcome to slotlab"),  # a language the client has not: English
])
def test_the_launch_parameter_else_the_browsers_language(browser: Any, server: Server,
                                                         locale: str, query: str,
                                                         welcome: str) -> None:
    ctx = browser.new_context(locale=locale)
    try:
        pg = ctx.new_page()
        pg.goto(server.url + "/" + query)
        pg.wait_for_selector("[data-testid=login]")
        assert pg.inner_text("[data-testid=login] h1") == welcome
    finally:
        ctx.close()
