"""One line that says why a database cannot be used, instead of the driver's traceback.

The drivers' messages are many lines long and put the cause in the middle (psycopg: "connection
failed: connection to server at ... failed: FATAL:  database "x" does not exist"); an operator
starting ``slotlab serve --db ...`` needs the cause and the URL they gave (its password hidden).
"""

from __future__ import annotations

import re

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

# (pattern in the driver's message, what it means); the first that matches says it.
_CAUSES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"failed to resolve host '([^']*)'|could not translate host name \"([^\"]*)\""),
     "no such host {0}"),
    (re.compile(r'database "([^"]*)" does not exist'), "no such database {0}"),
    # PostgreSQL names the user; PgBouncer (SCRAM) does not: the URL's user is the one.
    (re.compile(r'password authentication failed for user "([^"]*)"|SASL authentication failed'),
     "bad password for user {user}"),
    (re.compile(r"no password supplied"), "the server wants a password and the URL has none"),
    (re.compile(r'role "([^"]*)" does not exist'), "no such user {0}"),
    (re.compile(r"Connection refused"),
     "connection refused: no database server listens there (is it running?)"),
    (re.compile(r"timeout expired|timed out", re.I), "the server did not answer in time"),
    (re.compile(r"unable to open database file"),
     "cannot open the SQLite file (does its folder exist, and may this user write there?)"),
]


def hidden(url: str) -> str:
    """``url`` with its password replaced by ``***``."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def explain(url: str, exc: BaseException) -> str:
    """Why ``url``'s database refused us, in one line."""
    if isinstance(exc, NoSuchModuleError | ArgumentError):
        return f"cannot use the database URL {hidden(url)}: {exc}"
    text = str(exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc)
    for pattern, cause in _CAUSES:
        m = pattern.search(text)
        if m:
            found = next((g for g in m.groups() if g), None)
            user = found or make_url(url).username or ""
            said = cause.format(repr(found or ""), user=repr(user))
            return f"cannot use the database {hidden(url)}: {said}"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    first = lines[0] if lines else type(exc).__name__
    return f"cannot use the database {hidden(url)}: {first}"
