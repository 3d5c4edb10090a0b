"""Checks on what a player reads: no internal id where a name belongs, no rule said twice.

Shared by the fast test of every game's describe() (tests/games/test_player_texts.py) and the
browser test of the PAYS / HELP panel and the replay (tests/browser/test_player_texts.py).

An internal id is a symbol id, a paytable combination id, a progressive pool's tier or a feature's
id (a Superstars board square or wheel segment), wherever it differs from the display name players
see for it. Symbol and combination ids are matched case-sensitively and as whole tokens, so the id
``BAR`` is caught while the name ``Bar`` is not. A feature has no name in the model; its id
passes where it is, in any case, a word of the game's names, rules or HELP page (``GONZO``,
``START``) and is caught where it is not (``MISSBANKS``, ``DICE2``). Two kinds of id cannot be
told from ordinary words by themselves, and are caught where they stand for a name:

* numeric ids (``7``, ``777``) in a count or a paytable row: ``3 × 777``, ``777 x3``, or a text
  that is the id alone;
* pool tiers (``top``, ``0`` for the first pool in a list) before "progressive": ``TOP
  progressive``, ``0 progressive``; a pool's own name ("Top Progressive") passes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Names:
    """The game's internal ids, each with the name players see for it."""

    ids: dict[str, str]  # symbol or combination id -> its display name
    pools: dict[str, str]  # pool tier -> its display name
    features: frozenset[str] = frozenset()  # feature ids that are no word of the game


def names_of(desc: dict[str, Any], vocabulary: Iterable[str] = ()) -> Names:
    """The ids and display names of a game, from its ``describe()`` (or GET /api/games/{id});
    ``vocabulary``: more texts whose words players are taught (the HELP page)."""
    ids: dict[str, str] = {}
    for s in desc.get("symbols") or []:
        ids[str(s["id"])] = str(s.get("name") or "")
    for p in desc.get("paytable") or []:
        if "combination" in p:
            ids[str(p["combination"])] = str(p.get("label") or "")
    prog = desc.get("progressives") or []
    items = prog if isinstance(prog, list) else [{"tier": t, **v} for t, v in prog.items()]
    pools = {str(p["tier"]): str(p.get("name") or "") for p in items}
    for i, tier in enumerate(list(pools)):
        pools.setdefault(str(i), pools[tier])  # a list index shown as a pool's name
    bonus: dict[str, Any] = desc["bonus"] if isinstance(desc.get("bonus"), dict) else {}
    features = {str(x) for x in desc.get("board") or [] if isinstance(x, str)}
    features |= {str(w[0]) for w in bonus.get("wheel") or []}
    features |= {str(x) for x in bonus.get("random_features") or []}
    texts = [*ids.values(), *pools.values(), *(desc.get("rules") or []), *vocabulary]
    words = {w.lower() for t in texts for w in re.findall(r"\w+", t)}
    return Names(ids, pools, frozenset(f for f in features
                                       if re.search(r"\w", f) and f.lower() not in words))


def _token(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w^]){re.escape(word)}(?![\w^])")


def ids_shown(text: str, names: Names) -> list[str]:
    """The internal ids ``text`` shows where a name belongs (empty when it shows none)."""
    shown = []
    every_name = set(names.ids.values()) | set(names.pools.values())
    for sid, name in names.ids.items():
        if sid == name or sid in every_name or not re.search(r"\w", sid):
            continue  # an id that is also a name players see, or punctuation ("-": a blank)
        if sid.isdigit():
            pattern = re.compile(rf"(?:× |x |^){re.escape(sid)}(?: ?[x×]\d|$)|^{re.escape(sid)}$")
            if pattern.search(text.strip()):
                shown.append(sid)
        elif _token(sid).search(text):
            shown.append(sid)
    shown += [f for f in sorted(names.features) if _token(f).search(text)]
    for m in re.finditer(r"(?<![\w^])(\w+) progressive\b", text, re.IGNORECASE):
        word, phrase = m.group(1), m.group(0)
        if word.lower() in {t.lower() for t in names.pools} and phrase not in names.pools.values():
            shown.append(phrase)
    return shown


def sentences(texts: Iterable[str]) -> list[str]:
    """Every sentence of ``texts``, normalised (case and spacing) for comparison."""
    out = []
    for t in texts:
        for s in re.split(r"(?<=[.!?])\s+", t):
            norm = " ".join(s.lower().split()).rstrip(".!?")
            if norm:
                out.append(norm)
    return out


def duplicate_sentences(texts: Iterable[str]) -> list[str]:
    """The sentences said more than once among ``texts`` (the rule lines of one page)."""
    return [s for s, n in Counter(sentences(texts)).items() if n > 1]


# What one page should say in one rule only: a second line on it is the same rule said twice.
TOPICS = {
    "return to player": re.compile(r"return to player", re.IGNORECASE),
    "maximum win": re.compile(r"maximum win|most a round pays", re.IGNORECASE),
    "malfunction": re.compile(r"malfunction", re.IGNORECASE),
    "highest win per line": re.compile(r"highest win(ner)? (is paid )?per (pay)?line",
                                       re.IGNORECASE),
}


def repeated_topics(texts: Iterable[str]) -> dict[str, list[str]]:
    """Topics that more than one of ``texts`` states, with the texts that state them."""
    items = list(texts)
    out = {}
    for topic, pattern in TOPICS.items():
        hits = [t for t in items if pattern.search(t)]
        if len(hits) > 1:
            out[topic] = hits
    return out
