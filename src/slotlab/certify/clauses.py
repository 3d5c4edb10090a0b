"""The clause map: each requirement R1-R23 of the project's standards research, the evidence
in the bundle, and whether that evidence shows it met. A clause the bundle holds no evidence for
is "not shown", never "met"."""

from __future__ import annotations

from typing import Any

from slotlab.certify.generator import family
from slotlab.certify.platform_evidence import outcome

MET, NOT_MET, NOT_SHOWN = "met", "not met", "not shown in this bundle"

REQUIREMENTS = {
    "R1": "Live outcomes from a cryptographically strong generator; two instances never share a "
          "stream",
    "R2": "Raw output passes a test battery; scaled outcomes (reel stops) pass chi-square at 99%",
    "R3": "Every virtual reel stop has probability exactly 1/n; no modulo bias",
    "R4": "Outcome distribution identical across bet levels; outcomes drawn only after the "
          "player's choices",
    "R5": "Generator failure makes the game unavailable (fail closed)",
    "R6": "Game recall: the last 10 games with every feature step",
    "R7": "Each round record: status, model, game id and version, bet, win, outcome, steps",
    "R8": "A session can be reconstructed from the records (kept 10 years)",
    "R9": "Interrupted round restored, other play blocked; better of win-so-far or refund",
    "R10": "Every round ends completed or cancelled",
    "R11": "Bet, win and rollback idempotent",
    "R12": "No wager without funds; balance never negative",
    "R13": "Minimum RTP per market",
    "R14": "RTP not lower at higher bets",
    "R15": "Theoretical RTP by exact derivation plus a simulation inside its interval",
    "R16": "Max win reachable; its odds shown",
    "R17": "GB: no autoplay; server-enforced minimum game cycle of 2.5 s",
    "R18": "GB: no turbo or slam stop; no celebration of a return <= stake",
    "R19": "GB: net position and session time shown; deposit limits",
    "R20": "Lockout after failed logins, unique session id, inactivity timeout",
    "R21": "Software integrity: digests of the game software and model checked",
    "R22": "Live RTP monitoring per game and bet level, with alerts",
    "R23": "Free play and every language version use the same math",
}


def _row(rid: str, evidence: str, status: str) -> dict[str, str]:
    return {"id": rid, "requirement": REQUIREMENTS[rid], "evidence": evidence, "status": status}


def _yes(ok: bool) -> str:
    return MET if ok else NOT_MET


def _platform(b: dict[str, Any], rid: str, more: str = "") -> dict[str, str]:
    """A requirement shown by the platform's tests run in the bundle (platform_evidence.py)."""
    text, ok = outcome(b.get("platform"), rid)
    return _row(rid, text + more, NOT_SHOWN if ok is None else _yes(ok))


def _r20(b: dict[str, Any]) -> dict[str, str]:
    """R20's lockout after 3 failed logins (N.J.A.C. 13:69O-1.4) is not what slotlab does: it
    slows a guesser instead of locking the owner out (services/login_delays.py)."""
    row = _platform(b, "R20", "; session tokens are 256-bit random (secrets.token_urlsafe(32), "
                              "services/auth.py). Not as written: no account is locked after 3 "
                              "failed logins; slotlab refuses an address's guesses (429) after "
                              "a few and slows each guess at an account instead, so a guesser "
                              "cannot lock its owner out (services/login_delays.py)")
    if row["status"] != NOT_SHOWN:
        row["status"] = NOT_MET
    return row


def _battery(die: dict[str, Any]) -> str:
    return "dieharder on the live generator's raw output: " + "; ".join(
        f"test {t['test']}: " + (f"no result ({t['error']})" if t.get("error") else
                                 f"{t['passed']} passed, {t['weak']} weak, {t['failed']} failed")
        for t in die["tests"])


def clause_map(b: dict[str, Any]) -> list[dict[str, str]]:
    gen, math, srv = b["generator"], b["math"], b.get("server")
    checks = math["checks"]
    chi, ser = family(gen["chi_square"]), family(gen["serial_correlation"])
    chi_ok, serial_ok = chi["pass"], ser["pass"]
    die = gen["dieharder"]
    ran = die.get("ran", die.get("installed"))  # bundles before "ran": installed meant run
    rules = b["rule_map"]
    profiles = {p["id"]: p for p in b["profiles"]}
    gb = profiles.get("gb", {})
    rtp = math.get("theoretical_rtp")
    rows = [
        _row("R1", "generator: " + gen["live"], MET),
        _row("R2", f"generator: {len(gen['chi_square'])} chi-square tests, "
                   f"{chi['failed']} fail at 99% ({chi['allowed']} allowed for the family); "
                   f"serial correlation: {ser['failed']} of {ser['tests']} fail "
                   f"({ser['allowed']} allowed); raw battery: "
                   + (_battery(die) if ran else
                      "not run: " + (die.get("note", "") if die.get("installed") else
                                     "dieharder was not installed on the machine that made "
                                     "this bundle (install it, e.g. apt-get install "
                                     "dieharder, and make the bundle again; the whole "
                                     "battery: slotlab rng dump --bytes 1000000000 | "
                                     "dieharder -a -g 200)")),
             (_yes(chi_ok and serial_ok and not any(t["failed"] or t.get("error")
                                                    for t in die["tests"]))
              if ran else (NOT_MET if not (chi_ok and serial_ok)
                                            else NOT_SHOWN + " (raw battery)"))),
        _row("R3", "generator: scaling (" + gen["scaling"] + "); chi-square of every strip",
             _yes(chi_ok)),
        _row("R4", "math: RTP at every bet level; round contract: a choice's outcome is drawn "
                   "from a seed drawn with the choice (rounds.py, digested); with provably fair "
                   "seeds on, the committed server seed fixes it in advance, so profiles that "
                   "forbid that (on) turn them off (docs/server.md)",
             _yes(bool(checks.get("bet_levels_do_not_fall")))),
        _platform(b, "R5"),
    ]
    if srv is None:
        rows += [_row(r, "the server section was not made (--no-server)", NOT_SHOWN)
                 for r in ("R6", "R7", "R9", "R10")]
    else:
        recall = srv["recall"]["sample"]
        fields = all(r["status"] and r["model_hash"] and r["code_version"] and r["steps"]
                     for r in recall)
        rows.append(_row("R6", f"server: recall of {len(recall)} rounds with every step "
                               f"(history holds {srv['recall']['history_rounds']})",
                         _yes(len(recall) >= 10 and fields)))
        rows.append(_row("R7", "server: each recall row has status, model hash, code version, "
                               "bet, win, steps, seeds, ledger", _yes(fields)))
        it = srv["interrupted_round"]
        if it["shown"]:
            done = it["status_after"] in ("completed", "cancelled")
            rows.append(_row("R9", "server: interrupted round " + it["round_id"] + " offered "
                                   "again, other play meanwhile answered "
                                   f"{it['another_round_meanwhile']}, completed by the sweep",
                             _yes(done and it["replay_identical"])))
            rows.append(_row("R10", f"server: the interrupted round ended {it['status_after']}",
                             _yes(done)))
        else:
            rows += [_row(r, "server: " + it["why"], NOT_SHOWN) for r in ("R9", "R10")]
    rows.append(_platform(b, "R8", " (GET /api/admin/sessions/{id}); keeping the records 10 "
                                   "years is the operator's database policy: slotlab deletes "
                                   "no real-money round or ledger entry (a demo player's "
                                   "play money only)"))
    rows += [_platform(b, "R11"), _platform(b, "R12")]
    mins = {k: p["min_rtp"] for k, p in profiles.items() if p["min_rtp"] is not None}
    rows.append(_row("R13", f"theoretical RTP {rtp} against the profiles' minimums {mins}",
                     _yes(rtp is not None and all(rtp >= m for m in mins.values()))))
    rows.append(_row("R14", "math: RTP per bet level", _yes(bool(checks.get(
        "bet_levels_do_not_fall")))))
    summary: dict[str, Any] = next((t for t in math["tables"] if t["id"] == "summary"),
                                   {"rows": []})
    rtp_row: list[Any] = next((r for r in summary["rows"] if r[0] == "RTP"), [])
    rtp_ok = bool(rtp_row) and rtp_row[-1] is True
    rows.append(_row("R15", "math: exact RTP " + (f"{rtp_row[1]} inside the simulated 99% "
                            f"interval [{rtp_row[3]}, {rtp_row[4]}]" if rtp_ok else
                            "NOT inside (or not computed)")
                     + f"; of all {checks['marks']} exact figures checked, "
                       f"{checks['failures']} outside their 99% interval (about "
                       f"{checks['marks'] / 100:.1f} expected by chance)", _yes(rtp_ok)))
    mw = math.get("max_win", {})
    exact_max = mw.get("exact max win is") == "exact" and mw.get("exact odds of the max win")
    rec = math.get("record")
    rows.append(_row("R16", f"math: max win {mw.get('exact max win (x bet)')}x bet, "
                            f"{mw.get('exact max win is')}, odds "
                            f"{mw.get('exact odds of the max win')}; simulated max "
                            f"{mw.get('simulated max win (x bet)')}x bet, seen "
                            f"{mw.get('times it occurred')} times",
                     MET if exact_max or rec else NOT_SHOWN + " (the exact max win is only an "
                                                              "upper bound: its odds are not "
                                                              "derived)"))
    if rec:  # the max win the game advertises is its recorded run's: reached, with its odds
        one_in = rec["spins"] / rec["max_win_count"]
        rows[-1]["evidence"] += (
            f"; the max win the game shows is its shipped record's: {rec['max_win_x']:,.1f}x "
            f"bet, reached {rec['max_win_count']} time(s) in {rec['spins']:,} rounds "
            f"(`{rec['command']}`, model {rec['model_hash'][:16]}), shown in game with its odds "
            f"1 in {one_in:,.0f}")
        if rec.get("level_at_least_x") is not None:
            rows[-1]["evidence"] += (
                f"; the 1-in-{rec['spins']:,} win level is at least "
                f"{rec['level_at_least_x']:,.1f}x ({rec['level_confidence']:.1%} confidence, "
                "order statistics of the run's largest wins)")
    elif not exact_max:
        rows[-1]["evidence"] += (
            "; why not shown: the game's exact figures bound the max win from above (each "
            "part at its most at once) without showing a round that reaches it, so neither "
            "its reachability nor its odds are derived, and a simulation cannot show odds "
            "this small; R16 needs the exact max win of a reachable round and its odds, or a "
            "max-win cap whose odds are derived")
    if srv is None:
        rows.append(_row("R17", "profiles only: gb autoplay " + str(gb.get("autoplay")),
                         NOT_SHOWN))
    else:
        c = srv["min_cycle_gb"]
        rows.append(_row("R17", f"server under gb: autoplay {gb.get('autoplay')}; a round "
                                f"right after another answered {c['round_right_after']}, the "
                                f"next {c['gap_ms'] or 0:.0f} ms after the first",
                         _yes(c["pass"] and gb.get("autoplay") is False)))
    rows.append(_row("R18", "profile gb: quick_stop, turbo, celebrate_small_wins = "
                            f"{gb.get('quick_stop')}, {gb.get('turbo')}, "
                            f"{gb.get('celebrate_small_wins')} (the profile's flags; the "
                            "client's behaviour is not shown here)",
                     _yes(gb.get("quick_stop") is False and gb.get("turbo") is False
                          and gb.get("celebrate_small_wins") is False)))
    rows += [_platform(b, "R19", "; the client shows both figures on every screen "
                                 "(tests/browser/test_responsible_client.py, not run here)"),
             _r20(b)]
    rows.append(_row("R21", f"digests: {len(b['digests']['files'])} files and the model hash; "
                            "`slotlab certify --check` recomputes them", MET))
    rows += [_platform(b, "R22"),
             _platform(b, "R23", "; by construction: a demo round and a real one take the "
                                 "same catalogue, model and kernels, and a round request has "
                                 "no language in it (a language changes the client's texts "
                                 "only)")]
    if rules["rows"]:
        failed = rules["counts"].get("failed", 0)
        for r in rows:
            if r["id"] in ("R4", "R15") and failed:
                r["status"] = NOT_MET
                r["evidence"] += f"; {failed} rule-map tests failed"
    order = {k: i for i, k in enumerate(REQUIREMENTS)}
    return sorted(rows, key=lambda r: order[r["id"]])
