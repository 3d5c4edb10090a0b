"""Every language's catalogue has exactly the keys of English, with the same placeholders, and
every message is one the client's formatter reads (js/i18n.js); the languages the MENU offers are
the catalogues shipped. A catalogue that misses a key, has one too many or drops a placeholder
fails here, before a player sees a key instead of a text."""

from __future__ import annotations

from pathlib import Path

import pytest

from .catalogues import FAMILIES, languages, load, placeholders, plain


def differences(english: dict[str, str], other: dict[str, str]) -> list[str]:
    """What ``other`` gets wrong against English: missing and extra keys, other placeholders."""
    out = [f"missing {k}" for k in english if k not in other]
    out += [f"extra {k}" for k in other if k not in english]
    for k in english.keys() & other.keys():
        try:
            if placeholders(english[k]) != placeholders(other[k]):
                out.append(f"{k}: placeholders {sorted(placeholders(other[k]))}, "
                           f"English has {sorted(placeholders(english[k]))}")
        except ValueError as e:
            out.append(f"{k}: {e}")
    return out


def catalogue_files() -> list[Path]:
    return sorted(p for d in FAMILIES.values() for p in d.glob("*.json")
                  if p.name != "languages.json")


def test_the_menu_offers_the_shipped_languages() -> None:
    offered = set(languages())
    assert "en" in offered and "es" in offered
    for family, folder in FAMILIES.items():
        shipped = {p.stem for p in folder.glob("*.json")} - {"languages"}
        assert shipped == offered, f"{family}: catalogues {sorted(shipped)}, offered {offered}"


@pytest.mark.parametrize("path", catalogue_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_catalogue_has_every_key_of_english_and_its_placeholders(path: Path) -> None:
    english = load(path.parent / "en.json")
    other = load(path)
    assert not differences(english, other)
    for key, msg in other.items():
        assert msg.strip(), f"{key} is empty"
        placeholders(msg)  # raises on a message the formatter cannot read


def test_the_check_fails_on_a_missing_extra_or_changed_key() -> None:
    english = {"a": "Win {amount}", "b": "{n, plural, one {# spin} other {# spins}}"}
    assert differences(english, {"a": "Premio {amount}", "b": "{n, plural, other {# giros}}"}) == []
    assert differences(english, {"a": "Premio {amount}"}) == ["missing b"]
    assert differences(english, {**english, "c": "x"}) == ["extra c"]
    assert differences(english, {"a": "Premio {importe}", "b": english["b"]}) == [
        "a: placeholders ['importe'], English has ['amount']"]
    with pytest.raises(ValueError):
        placeholders("{n, plural, one {# spin}}")  # no 'other' branch
    with pytest.raises(ValueError):
        placeholders("Win {amount")


def test_templates_that_read_server_texts_have_plain_placeholders() -> None:
    """A game's rule sentences (and their parts) and the server's default HELP texts are read
    with their English messages: only {name} placeholders can be read back."""
    games = load(FAMILIES["games"] / "en.json")
    client = load(FAMILIES["client"] / "en.json")
    reading = {k: v for k, v in games.items() if ".rule." in k or ".part." in k}
    reading |= {k: v for k, v in client.items() if k.endswith("_default")}
    assert reading
    assert not [k for k, v in reading.items() if not plain(v)]
