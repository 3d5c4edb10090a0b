"""The bundle as one self-contained HTML page, for a lab to read (the JSON holds the same)."""

from __future__ import annotations

from html import escape
from typing import Any

from slotlab.simulate.par.html import render_table

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.2em}td,th{border:1px solid #ccc;padding:3px 7px;
vertical-align:top;text-align:left}th{background:#f3f3f3}code{font-size:12px}
.pass,.met{color:#176b2c;font-weight:600}.fail,.notmet{color:#b3261e;font-weight:600}
.notshown{color:#8a5a00}.note{color:#555;font-size:13px}.scroll{max-height:480px;overflow:auto}
td.text.long{max-width:520px}nav a{margin-right:1em}
"""


def _t(headers: list[str], rows: list[list[Any]], raw: set[int] | None = None) -> str:
    raw = raw or set()
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(
        f"<td>{v if i in raw else escape('' if v is None else str(v))}</td>"
        for i, v in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _mark(ok: bool) -> str:
    return '<span class="pass">pass</span>' if ok else '<span class="fail">FAIL</span>'


def _status(s: str) -> str:
    cls = {"met": "met", "not met": "notmet", "passed": "met", "failed": "notmet"}.get(
        s, "notshown")
    return f'<span class="{cls}">{escape(s)}</span>'


def render(b: dict[str, Any]) -> str:
    d, rm, m, g = b["digests"], b["rule_map"], b["math"], b["generator"]
    parts = [f"<h1>{escape(b['name'])} ({escape(b['game'])}): evidence bundle</h1>",
             _t(["figure", "value"], [
                 ["model hash", b["model_hash"]], ["version", b["code_version"]],
                 ["made at", b["made_at"]], ["made on", str(b["made_on"])],
                 ["seconds", b["seconds"]]]),
             '<nav><a href="#clauses">Clause map</a><a href="#digests">Digests</a>'
             '<a href="#rules">Rule map</a><a href="#math">Math</a>'
             '<a href="#generator">Generator</a><a href="#server">Server</a>'
             '<a href="#platform">Platform tests</a></nav>']
    parts.append('<section id="clauses"><h2>Clause map (R1-R23)</h2>' + _t(
        ["#", "requirement", "evidence", "status"],
        [[c["id"], c["requirement"], escape(c["evidence"]), _status(c["status"])]
         for c in b["clauses"]], raw={2, 3}) + "</section>")
    parts.append('<section id="digests"><h2>Critical files and their SHA-256 digests</h2>'
                 f"<p>Paths are relative to {escape(d['package_root'])}. Model file "
                 f"<code>{escape(d['model_file'])}</code>, model content hash "
                 f"<code>{escape(d['model_hash'])}</code>; digest of the whole list "
                 f"<code>{escape(d['set_sha256'])}</code>.</p>"
                 + _t(["how to recompute", ""], [[k, v] for k, v in d["recompute"].items()])
                 + _t(["path", "kind", "bytes", "sha256"],
                      [[f["path"], f["kind"], f["bytes"], f["sha256"]] for f in d["files"]])
                 + "</section>")
    run = rm["run"]
    rules = (f"<p>Rule text: <code>{escape(str(rm['rules_file']))}</code>. "
             + (f"Tests run now: <code>{escape(str(run.get('command')))}</code>, "
                f"{escape(str(run.get('summary', '')))}. " if run.get("ran")
                else f"Tests not run: {escape(str(run.get('why', rm.get('note', ''))))}. ")
             + f"Results: {escape(str(rm.get('counts', {})))}.</p>")
    rows = [[r["section"], r["sentence"], r["code"],
             "<br>".join(f"<code>{escape(t['test'].split('::')[-1])}</code> "
                         + _status(t["result"]) for t in r["tests"]) or escape(r["tests_text"])]
            for r in rm["rows"]]
    parts.append('<section id="rules"><h2>Rule map: each sentence, its code, its tests</h2>'
                 + rules + _t(["section", "sentence", "code", "tests (result in this run)"],
                              rows, raw={3}) + "</section>")
    checks = m["checks"]
    parts.append('<section id="math"><h2>Math</h2>'
                 f"<p>Bet {m['bet']:,} credits, {m['spins']:,} simulated rounds, seed "
                 f"{m['seed']}. Exact figures inside the simulation's 99% intervals: "
                 f"{checks['marks'] - checks['failures']} of {checks['marks']}; RTP does not "
                 f"fall at higher bets: {checks['bet_levels_do_not_fall']}.</p>"
                 + "".join(render_table(t) for t in m["tables"]) + "</section>")
    die = g["dieharder"]
    parts.append('<section id="generator"><h2>Generator</h2>' + _t(["", ""], [
        ["live", g["live"]], ["simulation", g["simulation"]], ["scaling", g["scaling"]],
        ["confidence", g["confidence"]],
        ["families", "; ".join(f"{k}: {v['failed']} of {v['tests']} fail, {v['allowed']} "
                               f"allowed: {'pass' if v['pass'] else 'FAIL'}"
                               for k, v in g.get("families", {}).items())],
        ["dieharder", die.get("note") or "; ".join(
            f"test {t['test']}: " + (f"no result ({t['error']})" if t.get("error") else
                                     f"{t['passed']} passed, {t['weak']} weak, "
                                     f"{t['failed']} failed") for t in die["tests"])]])
        + _t(["draw", "source", "bins", "draws", "chi2", "df", "99% point", "result"],
             [[t["draw"], t["source"], t["bins"], t["draws"], t["chi2"], t["df"],
               t["critical_99"], _mark(t["pass"])] for t in g["chi_square"]], raw={7})
        + _t(["sequence", "n", "lag-1 r", "99% bound", "result"],
             [[s["sequence"], s["n"], s["r"], s["bound_99"], _mark(s["pass"])]
              for s in g["serial_correlation"]], raw={4}) + "</section>")
    parts.append(_server(b))
    parts.append(_platform(b.get("platform")))
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><title>"
            f"{escape(b['name'])} evidence bundle</title><style>{_STYLE}</style></head><body>"
            + "".join(parts) + "</body></html>\n")


def _server(b: dict[str, Any]) -> str:
    keys = list(b["profiles"][0])
    out = ['<section id="server"><h2>Server</h2><h3>Jurisdiction profiles (what each '
           "enforces)</h3>",
           _t(keys, [[p[k] for k in keys] for p in b["profiles"]])]
    s = b.get("server")
    if s is None:
        out.append(f"<p>{escape(b.get('server_note', ''))}</p></section>")
        return "".join(out)
    out.append("<h3>Game-cycle times (server timestamps)</h3>"
               + _t(["figure", "ms"], [[k, v] for k, v in s["cycle_ms"].items()])
               + "<h3>Minimum game cycle under gb</h3>"
               + _t(["figure", "value"], [[k, v] for k, v in s["min_cycle_gb"].items()])
               + f"<h3>Recall sample ({s['recall']['history_rounds']} rounds in history)</h3>"
               + _t(["round", "status", "bet", "win", "steps", "choices", "ledger", "started",
                     "completed"],
                    [[r["round_id"], r["status"], r["bet"], r["win"], ", ".join(r["steps"]),
                      r["choices"], r["ledger"], r["created_at"], r["completed_at"]]
                     for r in s["recall"]["sample"]])
               + "<h3>Interrupted round</h3>"
               + _t(["figure", "value"], [[k, v] for k, v in s["interrupted_round"].items()])
               + "</section>")
    return "".join(out)


def _platform(p: dict[str, Any] | None) -> str:
    """The server's tests run for R5, R11, R12, R20, R22 and R23, each result of this run."""
    if p is None:
        return ""
    run = p["run"]
    head = (f"<p>Tests run now: <code>{escape(str(run.get('command')))}</code>, "
            f"{escape(str(run.get('summary', '')))}.</p>" if run.get("ran")
            else f"<p>Tests not run: {escape(str(run.get('why', '')))}.</p>")
    rows = [[r["clause"], escape(r["shows"]),
             "<br>".join(f"<code>{escape(t['test'])}</code> " + _status(t["result"])
                         for t in r["tests"])] for r in p["rows"]]
    return ('<section id="platform"><h2>Platform tests (the server\'s, for R5, R11, R12, R20, '
            "R22, R23)</h2>" + head + _t(["#", "what they show", "tests (result in this run)"],
                                    rows, raw={1, 2}) + "</section>")
