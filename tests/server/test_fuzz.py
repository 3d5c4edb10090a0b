"""Schemathesis over /openapi.json against a live server: no input yields a 5xx.

Every operation gets generated valid and invalid inputs (bodies, path parameters, headers), sent
with a real player token (the admin token for admin calls) so the fuzzer reaches the handlers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from .server_games import make_test_games
from .server_util import (
    ADMIN_TOKEN,
    CALL_TIMEOUT_S,
    LiveServer,
    make_database,
    server_settings,
)

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(scope="module", params=BACKENDS)
def live(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[tuple[LiveServer, str]]:
    db = make_database(request.param, tmp_path_factory.mktemp("fuzz"))
    # No growing delay for failed logins: the fuzzer guesses one name's password again and again,
    # and each login waited up to 2 s on top of its hashing, past the client's 10 s on a loaded
    # machine (the delays have their own tests).
    srv = LiveServer(server_settings(db, play_money_balance=10**9, login_delay_s=0,
                                     login_account_delay_max_s=0), make_test_games())
    with srv:
        c, _ = srv.player()
        token = c.headers["Authorization"].split()[1]
        # Something to find: a finished round and an open one.
        c.post("/api/games/instant-test/rounds", json={"bet": 1}, headers={"Idempotency-Key": "a"})
        c.post("/api/games/pick-test/rounds", json={"bet": 1}, headers={"Idempotency-Key": "b"})
        yield srv, token
    db.cleanup()


EXAMPLES = 20


def _fuzz(op: schemathesis.APIOperation, mode: GenerationMode, url: str, bearer: str,
          failures: list[str]) -> None:
    @given(case=op.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    def run(case: schemathesis.Case) -> None:
        headers = {**(case.headers or {}), "Authorization": f"Bearer {bearer}"}
        try:
            response = case.call(base_url=url, headers=headers)
        except ValueError:  # the client itself refuses to send it (e.g. an invalid header)
            return
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path}: "
                            f"{response.status_code} {response.text[:200]}")
        elif response.status_code >= 400 and response.content:
            error = response.json()["error"]
            assert error["code"] and error["message"]

    with contextlib.suppress(Unsatisfiable):  # nothing to make invalid: no inputs
        run()


def test_no_server_errors(live: tuple[LiveServer, str]) -> None:
    srv, token = live
    # Read with a generous timeout (schemathesis' own is 10 s, which a loaded machine ran past).
    schema = schemathesis.openapi.from_dict(
        httpx.get(f"{srv.url}/openapi.json", timeout=120).raise_for_status().json())
    schema.config.update(request_timeout=CALL_TIMEOUT_S)  # not its 10 s
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    for op in operations:
        bearer = ADMIN_TOKEN if op.path.startswith("/api/admin") else token
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(op, mode, srv.url, bearer, failures)
    assert not failures, failures[:10]
