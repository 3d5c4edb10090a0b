"""OpenAPI says what the server does (issue 13, item 10): required headers are marked required,
every status a route answers is documented, and a stateful schemathesis run follows the
schema's links (a round started -> its record, its choice, its replay) against a live server.

Bounded: a fixed number of examples and steps (derandomised), so the run has a fixed size.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

from .server_games import make_test_games
from .server_util import (
    ADMIN_TOKEN,
    CALL_TIMEOUT_S,
    LiveServer,
    make_database,
    server_settings,
)

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
CHECKS = [not_a_server_error, status_code_conformance]


@pytest.fixture(scope="module", params=BACKENDS)
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[LiveServer, str]]:
    db = make_database(request.param, tmp_path_factory.mktemp("openapi"))
    srv = LiveServer(server_settings(db, play_money_balance=10**9), make_test_games())
    with srv:
        c, _ = srv.player()
        yield srv, c.headers["Authorization"].split()[1]
    db.cleanup()


def _openapi(srv: LiveServer) -> dict[str, Any]:
    with srv.client() as c:
        return c.get("/openapi.json").json()  # type: ignore[no-any-return]


def _bearer(path: str, token: str) -> str:
    return ADMIN_TOKEN if path.startswith("/api/admin") else token


def test_idempotency_key_is_required_where_it_is(live):
    srv, _ = live
    paths = _openapi(srv)["paths"]
    for path in ("/api/games/{game_id}/rounds", "/api/rounds/{round_id}/choices"):
        (header,) = [p for p in paths[path]["post"]["parameters"]
                     if p["name"] == "Idempotency-Key"]
        assert header["in"] == "header" and header["required"] is True, path
    # Optional where a call without it is still answered (admin money moves, grants).
    (header,) = [p for p in paths["/api/admin/players/{username}/credit"]["post"]["parameters"]
                 if p["name"] == "Idempotency-Key"]
    assert header.get("required") is not True


def _statuses(op: Any, mode: GenerationMode, url: str, bearer: str, failures: list[str]
              ) -> None:
    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=10, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case: schemathesis.Case) -> None:
        headers = {**(case.headers or {}), "Authorization": f"Bearer {bearer}"}
        try:
            response = case.call(base_url=url, headers=headers)
        except ValueError:  # the client refuses to send it (an invalid header)
            return
        try:
            case.validate_response(response, checks=CHECKS)
        except BaseExceptionGroup as e:  # a FailureGroup; collected: one report for all
            failures.append(f"{case.method} {op.path}: {response.status_code} "
                            f"({e.exceptions[0].__class__.__name__})")

    with contextlib.suppress(Unsatisfiable):  # nothing to make invalid: no inputs
        run()


def test_every_status_answered_is_documented(live):
    """Generated valid and invalid calls to every operation: each status code answered is one
    the route documents, and none is a 5xx."""
    srv, token = live
    schema = schemathesis.openapi.from_url(f"{srv.url}/openapi.json")
    schema.config.update(request_timeout=CALL_TIMEOUT_S)  # not its 10 s
    failures: list[str] = []
    for result in schema.get_all_operations():
        op = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _statuses(op, mode, srv.url, _bearer(op.path, token), failures)
    print("\n".join(sorted(set(failures))))  # shown when the test fails
    assert not failures, sorted(set(failures))


def test_stateful_run_follows_the_links(live):
    srv, _ = live
    player, _ = srv.player()  # a new player: no round left open by the other tests
    token = player.headers["Authorization"].split()[1]
    schema = schemathesis.openapi.from_url(f"{srv.url}/openapi.json")
    schema.config.update(request_timeout=CALL_TIMEOUT_S)  # not its 10 s
    # The links the schema declares: a started round leads to its record, choice and replay.
    links = _openapi(srv)["paths"]["/api/games/{game_id}/rounds"]["post"]["responses"]["201"][
        "links"]
    assert {"read_round", "create_choice", "replay_round"} <= set(links)
    seen: list[tuple[str, int]] = []

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: schemathesis.Case) -> dict[str, Any]:
            return {"base_url": srv.url,
                    "headers": {"Authorization": f"Bearer {_bearer(case.path, token)}"}}

        def after_call(self, response: Any, case: schemathesis.Case) -> None:
            seen.append((f"{case.method} {case.path}", response.status_code))

        def validate_response(self, response: Any, case: schemathesis.Case,
                              additional_checks: Any = None, **kwargs: Any) -> None:
            case.validate_response(response, checks=CHECKS)

    Machine.run(settings=settings(max_examples=40, stateful_step_count=8, deadline=None,
                                  derandomize=True, database=None,
                                  suppress_health_check=list(HealthCheck)))
    followed = {call for call, status in seen if status < 400}
    assert "POST /api/games/{game_id}/rounds" in followed
    assert followed & {"GET /api/rounds/{round_id}", "POST /api/rounds/{round_id}/choices",
                       "GET /api/rounds/{round_id}/replay"}, sorted(set(seen))
