"""The message catalogues of the browser client (src/slotlab/web/i18n/), read the way the client
reads them (js/i18n.js, js/gametext.js): ICU-style messages, English templates that read the
server's English texts. Shared by the catalogue tests and the pseudo-locale browser test."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

WEB = Path(__file__).resolve().parents[2] / "src" / "slotlab" / "web"
I18N = WEB / "i18n"
# the two catalogue families: the client's own texts, and the games' texts
FAMILIES = {"client": I18N, "games": I18N / "games"}
# Names a model gives that are the same in every language, so the catalogue has no key for them:
# Superstars' five characters (brand names of their games) and the royals (letters, no word).
CHARACTERS = ("Starburst", "Gonzo", "Finn", "Miss Banks", "Space Wars")
ROYALS = ("A", "K", "Q", "J", "10")


def load(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and all(isinstance(v, str) for v in data.values()), path
    return data


def languages() -> dict[str, str]:
    """The languages the client offers (i18n/languages.json): code -> its own name."""
    return json.loads((I18N / "languages.json").read_text(encoding="utf-8"))


def _closing(s: str, i: int) -> int:
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "{":
            depth += 1
        elif s[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"unbalanced braces in {s!r}")


ARG = re.compile(r"^\s*(\w+)\s*(?:,\s*(\w+)\s*(?:,(.*))?)?$", re.S)
OPTION = re.compile(r"^(=?[\w-]+)\s*\{")


def placeholders(msg: str) -> set[str]:
    """The argument names a message uses (those in plural and select branches too); raises
    ValueError for a message the client's formatter cannot read."""
    names: set[str] = set()
    i = 0
    while i < len(msg):
        if msg[i] == "}":
            raise ValueError(f"unbalanced braces in {msg!r}")
        if msg[i] != "{":
            i += 1
            continue
        end = _closing(msg, i)
        m = ARG.match(msg[i + 1:end])
        if not m:
            raise ValueError(f"bad placeholder {msg[i:end + 1]!r}")
        name, kind, rest = m.groups()
        names.add(name)
        if kind in ("plural", "select"):
            rest = (rest or "").strip()
            keys = []
            while rest:
                o = OPTION.match(rest)
                if not o:
                    raise ValueError(f"bad options in {msg!r}")
                close = _closing(rest, len(o.group(0)) - 1)
                keys.append(o.group(1))
                names |= placeholders(rest[len(o.group(0)):close])
                rest = rest[close + 1:].strip()
            if "other" not in keys:
                raise ValueError(f"{kind} without an 'other' branch in {msg!r}")
        elif kind not in (None, "number"):
            raise ValueError(f"unknown placeholder type {kind!r} in {msg!r}")
        i = end + 1
    return names


def plain(template: str) -> bool:
    """True when a template has plain placeholders only ({name}), as a reading template must."""
    rest = re.sub(r"\{\w+\}", "", template)
    return "{" not in rest and "}" not in rest


def read_english(template: str, text: str) -> dict[str, str] | None:
    """The placeholders' values of ``text`` made from ``template`` (js/i18n.js readEnglish)."""
    names: list[str] = []

    def part(m: re.Match[str]) -> str:
        names.append(m.group(1))
        return r"((?:(?!\. ).)+?)"  # no sentence end in a value

    pattern = re.sub(r"\\\{(\w+)\\\}", part, re.escape(template))
    m = re.fullmatch(pattern, text, re.S)
    return dict(zip(names, m.groups(), strict=True)) if m else None


def fill(template: str, args: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: args[m.group(1)], template)


def game_sentence(games_en: dict[str, str], prefixes: list[str], text: str) -> list[str] | None:
    """The keys of the templates that read a game's English ``text`` (whole, else sentence by
    sentence, as js/gametext.js does), or None when some part is read by none."""

    def one(sentence: str) -> str | None:
        for key, template in games_en.items():
            rule = any(key.startswith(f"{p}.rule.") for p in prefixes)
            if rule and read_english(template, sentence) is not None:
                return key
        return None

    whole = one(text)
    if whole:
        return [whole]
    keys = [one(s) for s in re.split(r"(?<=\.)\s+", text)]
    return [k for k in keys if k] if all(keys) and len(keys) > 1 else None


def pseudo(catalogue: dict[str, Any]) -> dict[str, str]:
    """The pseudo-locale "qps": every message of English wrapped in ⟦…⟧, its placeholders kept,
    so that a text on the page that did not come from a catalogue stands out."""
    return {k: f"⟦{v}⟧" for k, v in catalogue.items()}
