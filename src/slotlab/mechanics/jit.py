"""numba's ``njit`` with ``_nrt=False`` (no reference counting), typed.

Functions called (not inlined) with many arrays are compiled without reference counting: they
allocate nothing, their callers keep the arrays alive, and the atomic count updates of every array
argument would cost more than their work. numba's type stubs do not list ``_nrt``; this keeps the
decorated functions' own signatures for the type checker.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from numba import njit

F = TypeVar("F", bound=Callable[..., Any])


def njit_no_nrt(**options: Any) -> Callable[[F], F]:
    """``njit(_nrt=False, **options)``."""
    return cast(Callable[[F], F], njit(_nrt=False, **options))  # type: ignore[call-overload]
