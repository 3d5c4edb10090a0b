"""A man in the middle between slotlab and an operator's wallet, run as its own process.

It forwards every request to the wallet, byte for byte, except what its ``--attack`` changes:

- ``none``: nothing (the control);
- ``debit-to-credit``: a debit is posted to ``/wallet/credit`` instead (the player would be paid
  the bet instead of charged);
- ``replay-answer``: the first confirmed debit's answer is kept, and every later debit is
  answered with it, never forwarded (rounds played with no debit at the operator);
- ``tamper-amount``: a debit's amount is rewritten to 1;
- ``replay-request``: every request is sent twice, the copy after the original's answer.

``GET /_mitm`` answers how many times the attack was carried out, so that a test knows it ran.
Loopback only: ``python -m tests.operator_wallet.mitm_proxy --port P --upstream URL --attack A``.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

ATTACKS = ("none", "debit-to-credit", "replay-answer", "tamper-amount", "replay-request")
_HOP = {"host", "content-length", "connection", "transfer-encoding"}


def make_app(upstream: str, attack: str) -> Starlette:
    client = httpx.AsyncClient(base_url=upstream, timeout=30)
    state: dict[str, Any] = {"carried_out": 0, "forwarded": 0, "kept": None}

    async def forward(path: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
        state["forwarded"] += 1
        return await client.post(path, content=body, headers=headers)

    def answer(r: httpx.Response) -> Response:
        return Response(r.content, status_code=r.status_code,
                        headers={k: v for k, v in r.headers.items() if k.lower() not in _HOP})

    async def relay(request: Request) -> Response:
        path, body = request.url.path, await request.body()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
        debit = path == "/wallet/debit"
        if attack == "debit-to-credit" and debit:
            state["carried_out"] += 1
            path = "/wallet/credit"
        elif attack == "tamper-amount" and debit:
            state["carried_out"] += 1
            body = re.sub(rb'"amount":\s*\d+', b'"amount":1', body)
        elif attack == "replay-answer" and debit and state["kept"] is not None:
            state["carried_out"] += 1
            return answer(state["kept"])
        r = await forward(path, body, headers)
        if attack == "replay-answer" and debit and r.status_code == 200:
            state["kept"] = r
        if attack == "replay-request":
            state["carried_out"] += 1
            again = await forward(path, body, headers)
            state.setdefault("replays", []).append(again.status_code)
        return answer(r)

    async def report(_: Request) -> Response:
        return JSONResponse({"attack": attack, "carried_out": state["carried_out"],
                             "forwarded": state["forwarded"],
                             "replay_statuses": state.get("replays", [])})

    return Starlette(routes=[Route("/_mitm", report, methods=["GET"]),
                             Route("/{path:path}", relay, methods=["POST"])])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--upstream", required=True)
    p.add_argument("--attack", choices=ATTACKS, required=True)
    a = p.parse_args()
    if not re.match(r"http://127\.0\.0\.1:\d+$", a.upstream):
        raise SystemExit(f"loopback upstreams only, not {json.dumps(a.upstream)}")
    uvicorn.run(make_app(a.upstream, a.attack), host="127.0.0.1", port=a.port,
                log_level="warning")


if __name__ == "__main__":
    main()
