"""The PAR sheet as one self-contained HTML file: tables and base64 PNG plots, no script, no
external resource, so it opens offline and can be archived or mailed as it is."""

from __future__ import annotations

import base64
import json
from html import escape
from string import Template
from typing import Any

from slotlab.simulate.par.tables import Cell

# (section id, heading) in page order; every table names the section it belongs to.
SECTIONS = [
    ("identity", "Identity"),
    ("summary", "Exact and simulated figures"),
    ("split", "RTP split by feature"),
    ("bands", "Win distribution"),
    ("maxwin", "Max win"),
    ("features", "Feature triggers"),
    ("bets", "RTP per bet level"),
    ("featurewins", "Feature wins"),
    ("sessions", "A player's session"),
    ("plots", "Plots"),
    ("convergence", "Convergence"),
    ("exact", "Exact PAR tables"),
    ("model", "Model: paytable, strips and feature tables"),
]

PAGE = Template("""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>PAR sheet: $name</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 1200px;
       padding: 0 1rem; color: #1c2430; }
h1 { margin-bottom: .2rem; } h2 { border-bottom: 2px solid #3b6ea8; padding-bottom: .2rem;
margin-top: 2.2rem; } h3 { margin: 1.2rem 0 .3rem; font-size: 1rem; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #c9d2de; padding: .2rem .5rem; text-align: right;
         vertical-align: top; }
th { background: #eef2f7; } td:first-child, th:first-child { text-align: left; }
td.text { text-align: left; white-space: nowrap; }
td.long { white-space: normal; max-width: 48rem; overflow-wrap: anywhere; }
.pass { color: #176b2c; font-weight: 600; white-space: nowrap; }
.fail { color: #b3261e; font-weight: 700; white-space: nowrap; }
.note { color: #566173; font-size: .9em; margin: -.6rem 0 1rem; }
.banner { padding: .6rem 1rem; border-radius: 6px; margin: 1rem 0; font-weight: 600; }
.banner.ok { background: #e3f4e7; } .banner.bad { background: #fbe4e2; }
figure { margin: 1rem 0; } figure img { max-width: 100%; border: 1px solid #c9d2de; }
.scroll { max-height: 32rem; overflow: auto; display: inline-block; }
nav a { margin-right: .8rem; }
</style></head><body>
<h1>PAR sheet: $name</h1>
<p>Game <code>$game</code>, model <code>$model_hash</code>, $code_version, seed $seed,
$spins rounds at a total bet of $bet credits.</p>
<div id="checks" class="banner $banner_class">$banner</div>
<nav>$nav</nav>
$body
</body></html>
""")


def fmt(value: Cell) -> str:
    """A cell as shown: pass marks, thousands separators, six significant digits."""
    if value is None:
        return "&ndash;"
    if isinstance(value, bool):
        return '<span class="pass">&#10003; pass</span>' if value else \
            '<span class="fail">&#10007; FAIL</span>'
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return escape(str(value))
        return f"{value:,.6g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.6g}"
    return escape(value)


def render_table(table: dict[str, Any], heading: str = "") -> str:
    """One table with its title (left out where the section's heading says it already)."""
    head = "".join(f"<th>{escape(c)}</th>" for c in table["columns"])
    body = []
    for row in table["rows"]:
        cells = []
        for value in row:
            cls = "" if not isinstance(value, str) else (
                ' class="text long"' if len(value) > 60 else ' class="text"')
            data = escape(json.dumps(value), quote=True)
            cells.append(f'<td{cls} data-value="{data}">{fmt(value)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    note = f'<p class="note">{escape(table["note"])}</p>' if table.get("note") else ""
    scroll = len(table["rows"]) > 30
    inner = (f'<table id="t-{escape(table["id"])}" data-table="{escape(table["id"])}">'
             f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
    if scroll:
        inner = f'<div class="scroll">{inner}</div>'
    title = "" if table["title"] == heading else f"<h3>{escape(table['title'])}</h3>"
    return f"{title}{inner}{note}"


def render(figures: dict[str, Any], plots: dict[str, tuple[str, bytes]]) -> str:
    """The whole page for ``figures`` (from :func:`figures.compute`) and its ``plots``."""
    headings = dict(SECTIONS)
    by_section: dict[str, list[str]] = {}
    for table in figures["tables"]:
        by_section.setdefault(table["section"], []).append(
            render_table(table, headings.get(table["section"], "")))
    by_section["plots"] = [
        f'<figure id="{pid}"><img alt="{escape(caption)}" src="data:image/png;base64,'
        f'{base64.b64encode(png).decode()}"><figcaption>{escape(caption)}</figcaption></figure>'
        for pid, (caption, png) in plots.items()]
    parts, nav = [], []
    for sid, heading in SECTIONS:
        if sid in by_section:
            nav.append(f'<a href="#{sid}">{escape(heading)}</a>')
            parts.append(f'<section id="{sid}"><h2>{escape(heading)}</h2>'
                         + "".join(by_section[sid]) + "</section>")
    checks = figures["checks"]
    ok = checks["all_pass"] and checks["bet_levels_do_not_fall"]
    marks = checks["marks"]
    banner = (f"Every exact figure ({marks}) lies inside its simulated 99% interval"
              if checks["all_pass"] else
              f"{checks['failures']} of {marks} exact figures outside their simulated 99% "
              f"interval (about {marks / 100:.1f} expected by chance alone)")
    banner += ("; the RTP does not fall at higher bets" if checks["bet_levels_do_not_fall"]
               else "; FLAG: the RTP falls at a higher bet")
    identity = {r[0]: r[1] for r in next(t for t in figures["tables"]
                                         if t["id"] == "identity")["rows"]}
    return PAGE.substitute(
        name=escape(str(identity["name"])), game=escape(figures["game"]),
        model_hash=escape(figures["model_hash"]), code_version=escape(figures["code_version"]),
        seed=figures["seed"], spins=f"{figures['spins']:,}", bet=figures["bet"],
        banner_class="ok" if ok else "bad", banner=escape(banner), nav="".join(nav),
        body="\n".join(parts))
