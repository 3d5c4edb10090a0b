"""The currencies a server offers and each one's money terms (``SLOTLAB_CURRENCIES``).

Every wallet has one ISO 4217 currency; amounts are integers in that currency's minor units
(``decimals`` digits of fraction: EUR 2, JPY 0, COP 2 per ISO 4217, 0 where the operator says
so). Per currency the operator sets each game's denomination (minor units per credit) or an
explicit bet ladder, the cash cap of a round and the play-money grant; progressive pools are
kept per game, currency and denomination. A COP ladder is its own list, not a EUR one rescaled.

``SLOTLAB_CURRENCIES`` is JSON, e.g.::

    {"EUR": {"decimals": 2, "cash_cap": 25000000},
     "COP": {"decimals": 2, "default_denomination": 1000, "cash_cap": 35000000000,
             "games": {"superstars": {"bets": [20000, 50000, 100000]}}}}

The server's own currency (``SLOTLAB_CURRENCY``) is the default for new players; when
``SLOTLAB_CURRENCIES`` does not name it, it is built from the single-currency settings
(``SLOTLAB_CURRENCY_DECIMALS``, ``SLOTLAB_DENOMINATIONS``, ``SLOTLAB_DEFAULT_DENOMINATION``,
``SLOTLAB_CASH_CAPS``), so a server configured before currencies existed runs unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from slotlab.server.errors import ApiError

if TYPE_CHECKING:
    from slotlab.server.settings import Settings

CODE = re.compile(r"[A-Z]{3}")  # the ISO 4217 alphabetic form
MAX_MINOR = 10**15  # the largest amount the API takes (schemas.MAX_AMOUNT)


class GameMoneySettings(BaseModel):
    """One game's terms in one currency: a denomination, and optionally the bets offered (minor
    units; each must be the denomination times a bet in credits the game allows)."""

    model_config = ConfigDict(extra="forbid")

    denomination: int | None = Field(None, ge=1, le=10**12)
    bets: list[int] | None = None

    @field_validator("bets")
    @classmethod
    def _ladder(cls, v: list[int] | None) -> list[int] | None:
        if v is None:
            return None
        if not v or any(b < 1 or b > MAX_MINOR for b in v) or len(set(v)) != len(v):
            raise ValueError("bets: give distinct positive amounts in minor units")
        return sorted(v)


class CurrencySettings(BaseModel):
    """One currency's entry in ``SLOTLAB_CURRENCIES``."""

    model_config = ConfigDict(extra="forbid")

    decimals: int = Field(ge=0, le=8)
    default_denomination: int = Field(1, ge=1, le=10**12)
    games: dict[str, GameMoneySettings] = {}
    cash_cap: int | None = Field(None, ge=1, le=10**18)  # max win per round, minor units
    play_money_balance: int | None = Field(None, ge=0, le=MAX_MINOR)  # None: the server's

    @model_validator(mode="after")
    def _one_way_per_game(self) -> CurrencySettings:
        for gid, g in self.games.items():
            if g.bets is not None:
                denom = g.denomination or self.default_denomination
                off = [b for b in g.bets if b % denom]
                if off:
                    raise ValueError(f"games.{gid}.bets: {off} are not multiples of the "
                                     f"denomination {denom}")
        return self


@dataclass(frozen=True)
class CurrencyTerms:
    """A currency as the server uses it (resolved from the settings)."""

    code: str
    decimals: int
    default_denomination: int = 1
    denominations: dict[str, int] = field(default_factory=dict)  # game id -> minor per credit
    ladders: dict[str, tuple[int, ...]] = field(default_factory=dict)  # game id -> bets, minor
    cash_cap: int | None = None
    play_money_balance: int = 0

    def denomination(self, game_id: str) -> int:
        return self.denominations.get(game_id, self.default_denomination)

    def ladder(self, game_id: str) -> tuple[int, ...] | None:
        """The operator's explicit bets for the game (minor units), or None: every bet the game
        allows times the denomination."""
        return self.ladders.get(game_id)

    def to_json(self) -> dict[str, int | str | None]:
        return {"currency": self.code, "decimals": self.decimals, "cash_cap": self.cash_cap}


def check_code(code: str, where: str) -> str:
    if not CODE.fullmatch(code):
        raise ValueError(f"{where}: {code!r} is not an ISO 4217 code (three capital letters, "
                         "e.g. EUR, COP, JPY)")
    return code


def resolve(default_code: str, default_decimals: int, denominations: dict[str, int],
            default_denomination: int, cash_caps: dict[str, int], play_money_balance: int,
            currencies: dict[str, CurrencySettings]) -> dict[str, CurrencyTerms]:
    """Every offered currency's terms, the default one first. A cash cap in ``cash_caps`` (the
    older setting) applies to a currency whose entry sets none."""
    check_code(default_code, "SLOTLAB_CURRENCY")
    for code in currencies:
        check_code(code, "SLOTLAB_CURRENCIES")
    for code in cash_caps:
        check_code(code, "SLOTLAB_CASH_CAPS")
    unknown_caps = sorted(set(cash_caps) - set(currencies) - {default_code})
    if unknown_caps:
        raise ValueError(f"SLOTLAB_CASH_CAPS names currencies the server does not offer: "
                         f"{unknown_caps}; offered: {sorted({default_code, *currencies})}")
    out: dict[str, CurrencyTerms] = {}
    if default_code not in currencies:
        out[default_code] = CurrencyTerms(default_code, default_decimals, default_denomination,
                                          dict(denominations), {}, cash_caps.get(default_code),
                                          play_money_balance)
    elif denominations:
        raise ValueError(f"SLOTLAB_DENOMINATIONS and SLOTLAB_CURRENCIES both set {default_code}'s "
                         f"denominations: give them in SLOTLAB_CURRENCIES.{default_code}.games")
    for code, c in sorted(currencies.items(), key=lambda kv: kv[0] != default_code):
        denoms = {gid: g.denomination for gid, g in c.games.items() if g.denomination}
        ladders = {gid: tuple(g.bets) for gid, g in c.games.items() if g.bets is not None}
        cap = c.cash_cap if c.cash_cap is not None else cash_caps.get(code)
        grant = play_money_balance if c.play_money_balance is None else c.play_money_balance
        out[code] = CurrencyTerms(code, c.decimals, c.default_denomination, denoms, ladders,
                                  cap, grant)
    return out


def not_offered(currency: str, offered: list[str]) -> ApiError:
    return ApiError(422, "currency_not_offered",
                    f"currency {currency!r} is not offered here; offered: {offered}")


def offered(settings: Settings, currency: str | None) -> CurrencyTerms:
    """The terms of a currency a player asks for (None: the default); 422
    ``currency_not_offered`` for one the server does not offer."""
    code = currency or settings.currency
    if code not in settings.offered_currencies:
        raise not_offered(code, settings.offered_currencies)
    return settings.money(code)
