"""Live RTP monitoring and daily totals (issue 5).

Figures come from settled rounds (``completed``) that were paid for: free rounds (FRB) moved no
bet, so they are left out of the money figures and counted on their own (``free_rounds``,
``free_round_win``). ``total_win`` is the game's win plus any progressive jackpot award, the
same money the ledger credited (``win`` + ``jackpot`` entries); cancelled (refunded) rounds and
rounds still being played are not counted, nor are demo players' (play money).

Every figure is in one currency: a game played in EUR and COP has one row per currency, and
each day has its totals per currency (never EUR plus COP).

The 99 % interval: for ``n`` rounds at one bet level the observed RTP (total win / total bet) is
the mean of ``n`` returns per unit bet with standard deviation ``sd``, so it lies within
``rtp +/- z99 * sd / sqrt(n)`` with probability 99 %. ``sd`` is the game's ``sd()`` when it
returns a number (Crystal Star Deluxe: exact); otherwise (line games) it is measured once by a
200,000-round simulation (``slotlab.simulate.runner.simulate``, seed 0) and cached per game,
model and bet. Each round is held to the model it was played on: after the operator switches
RTP variants, a bet level's theoretical RTP is the bet-weighted mean of its variants' (each
listed in ``variants``) and its variance the sum of theirs. Across bet levels the interval of
the whole game weights each level by its bets:
``sd_total = sqrt(sum n_b * bet_b^2 * sd_b^2) / sum n_b * bet_b``.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from slotlab.server.services.catalog import GameEntry
from slotlab.server.services.context import Services
from slotlab.server.services.model_figures import ModelFigures, figures_key, float_or_none
from slotlab.server.services.round_view import money_of
from slotlab.store.models import COMPLETED, Player, Round, utcnow

log = logging.getLogger("slotlab.server")

Z99 = 2.5758293035489004  # two-sided 99 % normal quantile
# Demo players' rounds are play money (services/demo.py): never in a report of real money.
_REAL_MONEY = Round.player_id.not_in(select(Player.id).where(Player.demo))
# The figures of a report made outside a server (no figures process): made here, kept.
_MADE_HERE = ModelFigures(separate=False)


def _figures(rounds: int, bet: int, win: int, rtp: float | None,
             sd_money: float | None) -> dict[str, Any]:
    """Observed RTP, the 99 % interval and the alert flag. ``sd_money`` is the SD of the total
    win in minor units (sqrt of the summed variances)."""
    observed = win / bet if bet else None
    low = high = None
    if rtp is not None and sd_money is not None and bet:
        half = Z99 * sd_money / bet
        low, high = rtp - half, rtp + half
    alert = observed is not None and low is not None and high is not None and not (
        low <= observed <= high)
    return {"rounds": rounds, "total_bet": bet, "total_win": win, "observed_rtp": observed,
            "theoretical_rtp": rtp, "interval_99": None if low is None else [low, high],
            "alert": bool(alert)}


def _model_entry(ctx: Services, gid: str, variant: str | None, model_hash: str
                 ) -> GameEntry | None:
    """The offered game on the model its rounds were played on (another variant after a
    switch), so that each round is held to its own model's figures; None when unknown."""
    entry = ctx.catalog.find(gid)
    if entry is None or entry.game.model_hash == model_hash:
        return entry
    game = ctx.catalog.model(gid, variant, model_hash)
    if game is None:
        return None
    try:
        rtp = float_or_none(game.theoretical_rtp())
    except Exception:
        rtp = None
    return dataclasses.replace(entry, game=game, variant=variant or gid, rtp=rtp)


def games_report(ctx: Services) -> dict[str, Any]:
    with ctx.db.read() as s:
        rows = s.execute(
            select(Round.game_id, Round.currency, Round.variant, Round.model_hash, Round.bet,
                   Round.bet_credits, func.count(), func.coalesce(func.sum(Round.bet), 0),
                   func.coalesce(func.sum(Round.win + Round.jackpot_win), 0),
                   func.coalesce(func.sum(Round.jackpot_win), 0))
            .where(Round.status == COMPLETED, Round.free_round_id.is_(None), _REAL_MONEY)
            .group_by(Round.game_id, Round.currency, Round.variant, Round.model_hash, Round.bet,
                      Round.bet_credits)
            .order_by(Round.game_id, Round.currency, Round.bet)
        ).all()
        free = dict(
            ((g, c), (int(n), int(w))) for g, c, n, w in s.execute(
                select(Round.game_id, Round.currency, func.count(),
                       func.coalesce(func.sum(Round.win + Round.jackpot_win), 0))
                .where(Round.status == COMPLETED, Round.free_round_id.is_not(None), _REAL_MONEY)
                .group_by(Round.game_id, Round.currency)).all())
    by_game: dict[tuple[str, str], list[Any]] = {}
    for row in rows:
        by_game.setdefault((row[0], row[1]), []).append(row[:1] + row[2:])
    # Each level's model and its figures, made before any is needed (in the server's figures
    # process: here, an exact report or a simulation would stall every round of this process).
    models = {(gid, variant, model_hash): _model_entry(ctx, gid, variant or gid, model_hash)
              for gid, _, variant, model_hash, *_ in rows}
    figures = (ctx.model_figures or _MADE_HERE).of(
        (model, int(row[5])) for row in rows
        if (model := models[row[0], row[2], row[3]]) is not None and model.game.model_hash)
    games = []
    offered = {(e.id, e.currency) for e in ctx.catalog.every_currency()}
    for gid, currency in sorted(set(by_game) | set(free) | offered):
        entry = ctx.catalog.find(gid)
        # Per bet level, summed over the models (variants) its rounds were played on.
        acc: dict[tuple[int, int], dict[str, Any]] = {}
        variants: dict[tuple[str, str], dict[str, Any]] = {}
        for _, variant, model_hash, bet, credits, n, tb, tw, jw in by_game.get((gid, currency),
                                                                                []):
            n, tb, tw, jw, bet, credits = int(n), int(tb), int(tw), int(jw), int(bet), int(credits)
            model = models[gid, variant, model_hash]
            variant = variant or gid
            rtp = sd = source = None
            made = None if model is None else figures.get(figures_key(model, credits))
            if made is not None:
                rtp, (sd, source) = made
            lv = acc.setdefault((bet, credits), {"n": 0, "tb": 0, "tw": 0, "jw": 0,
                                                 "var": 0.0, "exp": 0.0, "sd_n": 0.0,
                                                 "source": source})
            lv["n"], lv["tb"], lv["tw"], lv["jw"] = lv["n"] + n, lv["tb"] + tb, lv["tw"] + tw, \
                lv["jw"] + jw
            lv["var"] = None if lv["var"] is None or sd is None else lv["var"] + n * (
                bet * sd) ** 2
            lv["exp"] = None if lv["exp"] is None or rtp is None else lv["exp"] + rtp * tb
            lv["sd_n"] = None if lv["sd_n"] is None or sd is None else lv["sd_n"] + n * sd ** 2
            v = variants.setdefault((variant, model_hash), {
                "variant": variant, "model_hash": model_hash, "rounds": 0, "total_bet": 0,
                "total_win": 0, "exp": 0.0,
                "current": entry is not None and entry.game.model_hash == model_hash})
            v["rounds"], v["total_bet"], v["total_win"] = (v["rounds"] + n, v["total_bet"] + tb,
                                                           v["total_win"] + tw)
            v["exp"] = None if v["exp"] is None or rtp is None else v["exp"] + rtp * tb
        levels = []
        var_sum: float | None = 0.0
        exp_win: float | None = 0.0
        n_all = bet_all = win_all = jp_all = 0
        for (bet, credits), lv in sorted(acc.items()):
            n, tb, tw, jw = lv["n"], lv["tb"], lv["tw"], lv["jw"]
            rtp = None if lv["exp"] is None or not tb else lv["exp"] / tb
            sd = None if lv["sd_n"] is None or not n else math.sqrt(lv["sd_n"] / n)
            sd_money = None if lv["var"] is None else math.sqrt(lv["var"])
            levels.append({"bet": bet, "bet_credits": credits, **_figures(
                n, tb, tw, rtp, sd_money), "jackpot_win": jw, "sd": sd,
                "sd_source": None if sd is None else lv["source"]})
            n_all, bet_all, win_all, jp_all = n_all + n, bet_all + tb, win_all + tw, jp_all + jw
            var_sum = None if var_sum is None or sd_money is None else var_sum + sd_money ** 2
            exp_win = None if exp_win is None or rtp is None else exp_win + rtp * tb
        rtp_all = (exp_win / bet_all if exp_win is not None and bet_all
                   else (entry.rtp if entry is not None else None))
        sd_all = None if var_sum is None or not bet_all else math.sqrt(var_sum)
        fr_n, fr_w = free.get((gid, currency), (0, 0))
        games.append({"game": gid, **money_of(ctx, currency),
                      "offered": (gid, currency) in offered,
                      "variant": None if entry is None else entry.variant,
                      **_figures(n_all, bet_all, win_all, rtp_all, sd_all),
                      "jackpot_win": jp_all, "free_rounds": fr_n, "free_round_win": fr_w,
                      "bets": levels,
                      "variants": [{**{k: x for k, x in v.items() if k != "exp"},
                                    "observed_rtp": v["total_win"] / v["total_bet"]
                                    if v["total_bet"] else None,
                                    "theoretical_rtp": None if v["exp"] is None
                                    or not v["total_bet"] else v["exp"] / v["total_bet"]}
                                   for v in variants.values()]})
    return {"generated_at": utcnow().isoformat(), "z": Z99, "games": games,
            "alerts": [{"game": g["game"], "currency": g["currency"], "bet": lv["bet"]}
                       for g in games for lv in g["bets"] if lv["alert"]]}


def daily_report(ctx: Services, days: int) -> dict[str, Any]:
    """Totals per UTC day, game and currency for the last ``days`` days (today included); each
    day's money totals per currency."""
    today = utcnow().date()
    start = datetime.combine(today - timedelta(days=days - 1), datetime.min.time(), tzinfo=UTC)
    with ctx.db.read() as s:
        if s.get_bind().dialect.name == "postgresql":
            day = func.date(func.timezone("UTC", Round.completed_at))
        else:  # SQLite keeps naive UTC text
            day = func.date(Round.completed_at)
        rows = s.execute(
            select(day.label("day"), Round.game_id, Round.currency, func.count(),
                   func.coalesce(func.sum(Round.bet), 0),
                   func.coalesce(func.sum(Round.win + Round.jackpot_win), 0))
            .where(Round.status == COMPLETED, Round.free_round_id.is_(None),
                   Round.completed_at >= start, _REAL_MONEY)
            .group_by(day, Round.game_id, Round.currency)
        ).all()
    out: dict[str, list[dict[str, Any]]] = {}
    for d, gid, currency, n, tb, tw in rows:
        key = d.isoformat() if isinstance(d, date) else str(d)
        out.setdefault(key, []).append({"game": gid, **money_of(ctx, currency),
                                        "rounds": int(n), "total_bet": int(tb),
                                        "total_win": int(tw),
                                        "observed_rtp": int(tw) / int(tb) if tb else None})
    result = []
    for i in range(days):
        d = (today - timedelta(days=i)).isoformat()
        games = sorted(out.get(d, []), key=lambda g: (g["game"], g["currency"]))
        totals: dict[str, dict[str, Any]] = {}
        for g in games:
            t = totals.setdefault(g["currency"], {"currency": g["currency"],
                                                  "decimals": g["decimals"], "rounds": 0,
                                                  "total_bet": 0, "total_win": 0})
            for k in ("rounds", "total_bet", "total_win"):
                t[k] += g[k]
        result.append({"date": d, "rounds": sum(g["rounds"] for g in games),
                       "currencies": sorted(totals.values(), key=lambda t: t["currency"]),
                       "games": games})
    return {"days": result}
