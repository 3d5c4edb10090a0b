"""FastAPI dependencies as named Annotated types."""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from slotlab.server.errors import ApiError, unauthorized
from slotlab.server.services import auth
from slotlab.server.services.auth import Auth
from slotlab.server.services.context import Services

_bearer = HTTPBearer(auto_error=False, description="a player token, or the admin token")


# Dependencies that do no I/O are async, so they run on the event loop instead of taking a
# trip through the thread pool.


async def get_services(request: Request) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


ServicesDep = Annotated[Services, Depends(get_services)]
Bearer = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def _token(creds: HTTPAuthorizationCredentials | None) -> str:
    if creds is None or not creds.credentials:
        raise unauthorized("send Authorization: Bearer <token>")
    token = creds.credentials
    if len(token) > 200 or not token.isascii():
        raise unauthorized()
    return token


async def current_player(ctx: ServicesDep, creds: Bearer) -> Auth:
    token = _token(creds)
    known = auth.cached_auth(ctx, token)
    if known is not None:
        return known
    return await run_in_threadpool(auth.authenticate, ctx, token)


async def require_admin(ctx: ServicesDep, creds: Bearer) -> None:
    secret = ctx.settings.admin_token
    if secret is None:
        raise ApiError(403, "admin_disabled", "admin calls are off: SLOTLAB_ADMIN_TOKEN is unset")
    if not hmac.compare_digest(_token(creds).encode(), secret.get_secret_value().encode()):
        raise unauthorized("not the admin token", "not_admin")


CurrentPlayer = Annotated[Auth, Depends(current_player)]
Admin = Depends(require_admin)
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(alias="Idempotency-Key", description="unique per intended request; retries reuse it"),
]
# Where the key is required: the route reads it (a missing key is 400
# ``missing_idempotency_key``, not a validation error) and ``openapi_extra`` documents it.
RequiredIdempotencyKeyHeader = Annotated[
    str | None, Header(alias="Idempotency-Key", include_in_schema=False)]
IDEMPOTENCY_KEY_REQUIRED: dict[str, Any] = {"parameters": [{
    "name": "Idempotency-Key", "in": "header", "required": True,
    "description": "unique per intended request; retries reuse it",
    "schema": {"type": "string", "minLength": 1, "maxLength": 200,
               "pattern": "^[!-~]([ -~]*[!-~])?$"}}]}
