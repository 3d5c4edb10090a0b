"""Amounts in the player's currency, in Chromium against the real server (issue 15): a COP
player's and a JPY player's balance and bets as Intl.NumberFormat writes them in the page's
locale (COP with its two decimals, JPY with none, both grouped), and large minor-unit amounts
formatted exactly (no float division: the client splits the integer with BigInt)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .conftest import unique
from .servers import Server, running
from .test_client import PASSWORD, open_game

pytestmark = pytest.mark.browser
COP_BALANCE = 35_000_000_012  # COP 350,000,000.12
JPY_BALANCE = 12_345_678  # JPY 12,345,678
CURRENCIES = {"COP": {"decimals": 2, "default_denomination": 10_000,
                      "play_money_balance": COP_BALANCE},
              "JPY": {"decimals": 0, "default_denomination": 10,
                      "play_money_balance": JPY_BALANCE}}


@pytest.fixture(scope="module")
def markets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("srv-currencies"), currencies=CURRENCIES) as srv:
        yield srv


def _log_in(page: Any, srv: Server, currency: str) -> None:
    name = unique(currency.lower())
    r = httpx.post(srv.url + "/api/players",
                   json={"username": name, "password": PASSWORD, "currency": currency})
    assert r.status_code == 201, r.text
    page.goto(srv.url + "/")
    page.fill("[data-testid=username]", name)
    page.fill("[data-testid=password]", PASSWORD)
    page.click("[data-testid=login-submit]")
    page.wait_for_selector("[data-testid=lobby]")


def _plain(text: str) -> str:
    """Intl separates a currency code from the number with a no-break space: read it as one."""
    return text.replace("\u00a0", " ").replace("\u202f", " ")


def _fmt(page: Any, minor: Any, currency: str, decimals: int, locale: str) -> str:
    return _plain(str(page.evaluate(
        """async ([m, c, d, l]) => (await import('/js/util.js')).formatMoney(m, c, d, l)""",
        [minor, currency, decimals, locale])))


def test_cop_and_jpy_balances_are_formatted_in_their_currency(page: Any, browser: Any,
                                                               markets: Server) -> None:
    _log_in(page, markets, "COP")
    page.wait_for_function(f"() => document.querySelector('[data-testid=balance]').dataset.minor"
                           f" === '{COP_BALANCE}'")
    assert _plain(page.inner_text("[data-testid=balance]")) == "COP 350,000,000.12"
    open_game(page, "classic-3x3")
    ladder = httpx.get(markets.url + "/api/games/classic-3x3?currency=COP").json()["bets"]
    shown = [f"COP {b // 100:,}.{b % 100:02d}" for b in ladder]  # e.g. COP 500.00
    assert _plain(page.inner_text("[data-testid=bet]")) in shown

    ctx = browser.new_context(viewport={"width": 1280, "height": 900})  # its own storage
    try:
        other = ctx.new_page()
        # Registered in the client, launched by the operator with ?currency=JPY.
        other.goto(markets.url + "/?currency=JPY")
        other.fill("[data-testid=username]", unique("jpy"))
        other.fill("[data-testid=password]", PASSWORD)
        other.click("[data-testid=register-submit]")
        other.wait_for_selector("[data-testid=lobby]")
        other.wait_for_function("() => document.querySelector('[data-testid=balance]')"
                                f".dataset.minor === '{JPY_BALANCE}'")
        # Grouped, and no decimals: JPY has none.
        assert _plain(other.inner_text("[data-testid=balance]")) == "¥12,345,678"
    finally:
        ctx.close()


def test_large_amounts_format_exactly(page: Any, markets: Server) -> None:
    page.goto(markets.url + "/")
    # Beyond 2^53 as a digit string or BigInt: every digit kept (a float would round them).
    assert _fmt(page, "123456789012345678901", "COP", 2, "en") == \
        "COP 1,234,567,890,123,456,789.01"
    assert _plain(page.evaluate("""async () => (await import('/js/util.js'))
        .formatMoney(9007199254740993n, 'JPY', 0, 'en')""")) == "¥9,007,199,254,740,993"
    # The largest amount the API takes (10^15 minor units), as the JSON number it arrives in.
    assert _fmt(page, 10**15 - 1, "EUR", 2, "en") == "€9,999,999,999,999.99"
    assert _fmt(page, COP_BALANCE, "COP", 2, "es-CO") == "$ 350.000.000,12"
    assert _fmt(page, -5, "EUR", 2, "en") == "-€0.05"
    assert _fmt(page, 1234567, "JPY", 0, "ja-JP") == "￥1,234,567"
    # A currency the operator runs with 0 decimals (COP as many do): no fraction shown.
    assert _fmt(page, 350_000_000, "COP", 0, "en") == "COP 350,000,000"
    # Money inputs hint at the currency's decimals.
    assert page.evaluate("""async () => {
        const u = await import('/js/util.js');
        return [u.moneyPlaceholder(2), u.moneyPlaceholder(0)];
    }""") == ["0.00", "0"]
