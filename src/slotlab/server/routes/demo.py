"""Demo mode: anonymous play money (services/demo.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from slotlab.server.deps import ServicesDep
from slotlab.server.ratelimit import request_address
from slotlab.server.schemas import DemoOfferPublic, DemoSessionPublic, errors
from slotlab.server.services import demo

router = APIRouter(prefix="/api", tags=["demo"])


@router.get("/demo", response_model=DemoOfferPublic)
def read_demo(ctx: ServicesDep) -> dict[str, Any]:
    """Whether demo play is offered here (and if not, why), and its play-money balance."""
    return demo.offer(ctx)


@router.post("/demo", status_code=201, response_model=DemoSessionPublic,
             responses={**errors(403, 503),
                        429: {"description": "too many demo sessions from this address "
                                             "(`too_many_demo_sessions`); `Retry-After` says "
                                             "when to retry"}})
async def create_demo_session(ctx: ServicesDep, request: Request) -> dict[str, Any]:
    """A demo session: an anonymous player with a play-money wallet and a session token, which
    plays through the same endpoints as any player. 403 ``demo_disabled`` or
    ``demo_not_allowed`` where demo play is not offered."""
    address = request_address(request.scope, ctx.settings.trusted_proxies)
    return await run_in_threadpool(demo.open_session, ctx, address)
