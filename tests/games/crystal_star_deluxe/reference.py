"""A slow pure-Python twin of the Crystal Star Deluxe rules, written from the rule text alone.

It reads the model's JSON (strings, not the kernel's arrays) and shares no code with the kernel,
so agreement between the two is evidence that both implement the rules as written.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any


def ref_play(raw: dict[str, Any], stops: tuple[int, int, int], line_bet: int) -> dict[str, Any]:
    """One play from top-row ``stops``: totals and the list of (stage, kind, line, amount)."""
    symbols = raw["symbols"]
    strips = raw["reel_strips"]
    lines = raw["lines"]
    max_lb = raw["bet"]["credits_per_line"][-1]
    is_max = line_bet == max_lb
    ts = raw["three_stars"]
    top_line = ts["top_line"]
    pays = raw["line_pays_x_line_bet"]
    members = raw["combo_symbols"]
    cap = raw["multiplier_cap"]

    def is_star(s: str) -> bool:
        return symbols[s]["base"] == "STAR"

    def window(pos: list[int]) -> list[list[str]]:
        return [[strips[r][(pos[r] + k) % len(strips[r])] for k in range(3)] for r in range(3)]

    # Where each reel's Star lands and how it will move.
    plan = []
    for r in range(3):
        col = window(list(stops))[r]
        rows = [k for k in range(3) if is_star(col[k])]
        assert len(rows) <= 1
        if not rows:
            plan.append((0, 0))
        elif rows[0] == 0:
            plan.append((+1, 2))  # top row: down, twice
        elif rows[0] == 2:
            plan.append((-1, 2))  # bottom row: up, twice
        else:
            arrow = symbols[col[1]]["arrow"]
            plan.append((+1 if arrow == "down" else -1, 1))  # middle: arrow, once
    out: dict[str, Any] = {"lines": 0, "flat": 0, "top": 0, "bottom": 0, "events": []}
    pos = list(stops)
    for stage in range(3):
        if stage:
            movers = [r for r in range(3) if plan[r][1] >= stage]
            if not movers:
                break
            for r in movers:  # a Star moving down one row = the reel's top stop goes back one
                pos[r] = (pos[r] - plan[r][0]) % len(strips[r])
        w = window(pos)
        for li, rows in enumerate(lines, 1):
            cells = [w[r][rows[r]] for r in range(3)]
            if any(symbols[c]["base"] == "BLANK" for c in cells):
                continue
            if all(is_star(c) for c in cells):
                if li == top_line:
                    if not is_max:
                        prize = ts["below_max_bet_x_line_bet"]["top_line"] * line_bet
                    elif not out["top"]:
                        out["top"] = 1
                        out["events"].append((stage, "top", li, 0))
                        continue
                    else:
                        prize = ts["max_bet"]["subsequent_top_line_x_line_bet"] * line_bet
                elif not is_max:
                    prize = ts["below_max_bet_x_line_bet"]["other_lines"] * line_bet
                elif not out["bottom"]:
                    out["bottom"] = 1
                    out["events"].append((stage, "bottom", li, 0))
                    continue
                else:
                    prize = ts["max_bet"]["subsequent_other_lines_credits"]
                out["flat"] += prize
                out["events"].append((stage, "flat", li, prize))
                continue
            bases = {symbols[c]["base"] for c in cells if not is_star(c)}
            best = max(
                (pays[c] for c, mem in members.items() if bases <= set(mem)), default=0
            )
            if best:
                mult = 1
                for c in cells:
                    if not is_star(c):
                        mult *= symbols[c].get("multiplier", 1)
                win = best * min(mult, cap) * line_bet
                out["lines"] += win
                out["events"].append((stage, "line", li, win))
    return out


def ref_full_cycle(raw: dict[str, Any], line_bet: int) -> dict[str, Any]:
    """Exact figures by brute force: RTP (progressives at reset), hit rate, variance, max win."""
    strips = raw["reel_strips"]
    resets = {p["tier"]: p["reset_credits"] for p in raw["progressives"]}
    bet = line_bet * len(raw["lines"])
    wins: Counter[int] = Counter()
    parts = Counter()
    for a in range(len(strips[0])):
        for b in range(len(strips[1])):
            for c in range(len(strips[2])):
                res = ref_play(raw, (a, b, c), line_bet)
                prog = res["top"] * resets["top"] + res["bottom"] * resets["bottom"]
                wins[res["lines"] + res["flat"] + prog] += 1
                parts["lines"] += res["lines"]
                parts["flat_prizes"] += res["flat"]
                parts["progressives"] += prog
    n = sum(wins.values())
    rtp = Fraction(sum(w * k for w, k in wins.items()), n * bet)
    var = Fraction(sum(w * w * k for w, k in wins.items()), n * bet * bet) - rtp * rtp
    return {
        "rtp": rtp,
        "variance": var,
        "hit_rate": Fraction(sum(k for w, k in wins.items() if w > 0), n),
        "max_win": max(wins),
        "components": {k: Fraction(v, n * bet) for k, v in parts.items()},
    }
