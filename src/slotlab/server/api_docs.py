"""OpenAPI: the error statuses every route can answer because of what it takes, documented.

A route's own errors (402 ``insufficient_funds``, 409 ``round_open``, ...) are declared on the
route. The ones that follow from its shape are added here, so no route forgets one:

- 400 (malformed JSON, a bad ``Idempotency-Key``) and 413 (a body over the size limit) where it
  takes a body or an ``Idempotency-Key``;
- 401 where it needs a player's or the admin's token, 403 where the admin's (admin calls off);
- 422 where it takes any input (path, query, header or body);
- 503 where it uses the database (every ``/api`` route but the health check): the database is
  unavailable and nothing was taken or changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute

from slotlab.server.deps import current_player, require_admin
from slotlab.server.schemas import errors

_NO_DATABASE = {"/api/health"}


def _calls(d: Dependant) -> set[Any]:
    out = {d.call}
    for sub in d.dependencies:
        out |= _calls(sub)
    return out


def _inputs(d: Dependant) -> bool:
    return bool(d.path_params or d.query_params or d.header_params or d.body_params
                or any(_inputs(sub) for sub in d.dependencies))


def _statuses(route: APIRoute) -> set[int]:
    d = route.dependant
    calls = _calls(d)
    extra = route.openapi_extra or {}
    headers = {p.get("name") for p in extra.get("parameters", [])} | {
        p.alias for p in d.header_params}
    out: set[int] = set()
    if d.body_params or "Idempotency-Key" in headers:
        out |= {400, 413}
    if current_player in calls or require_admin in calls:
        out.add(401)
    if require_admin in calls:
        out.add(403)
    if _inputs(d) or extra.get("parameters"):
        out.add(422)
    if route.path.startswith("/api/") and route.path not in _NO_DATABASE:
        out.add(503)
    return out


def document_errors(routes: Iterable[BaseRoute]) -> None:
    """Add each route's shape-given error statuses to its ``responses`` (before the router is
    included); statuses the route declares itself are kept as declared."""
    for route in routes:
        if isinstance(route, APIRoute):
            for status, spec in errors(*sorted(_statuses(route))).items():
                route.responses.setdefault(status, spec)
