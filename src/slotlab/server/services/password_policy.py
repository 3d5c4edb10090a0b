"""What a new password must not be: blank, the username, or one of the most common passwords.

The common passwords are zxcvbn's ranked list (the most frequent passwords of public breaches,
most frequent first); the top ``COMMON_TOP`` of them are refused, whatever their case and any
blanks around them. Length (8-128) is the request schema's.
"""

from __future__ import annotations

from functools import lru_cache

from zxcvbn.matching import RANKED_DICTIONARIES

from slotlab.server.errors import unprocessable

COMMON_TOP = 10_000


@lru_cache(maxsize=1)
def _common() -> frozenset[str]:
    ranked = RANKED_DICTIONARIES["passwords"]
    return frozenset(w for w, rank in ranked.items() if rank <= COMMON_TOP)


def check(password: str, username: str) -> None:
    """422 ``password_blank``, ``password_is_username`` or ``password_too_common`` for a
    password a new account may not have."""
    bare = password.strip()
    if not bare:
        raise unprocessable("password_blank", "the password is only spaces; choose another")
    if bare.casefold() == username.strip().casefold():
        raise unprocessable("password_is_username",
                            "the password is the username; choose another")
    if bare.lower() in _common():
        raise unprocessable("password_too_common",
                            f"the password is one of the {COMMON_TOP:,} most common passwords; "
                            "choose another")
