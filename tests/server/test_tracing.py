"""OpenTelemetry tracing (``slotlab[otel]``): a span per request and per round settled, with the
request id, game and round id, and never a token, a password or a seed; off unless configured.

The in-process tests trace a real server (uvicorn on loopback) to the SDK's in-memory exporter;
one runs ``slotlab serve`` as a process with ``SLOTLAB_TRACING=console`` and reads the spans it
prints.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from slotlab.server.settings import Settings

from .. import processes
from .server_games import make_test_games
from .server_util import (
    FAST_HASH,
    MANY_PLAYERS_ENV,
    Database,
    LiveServer,
    free_port,
    key,
    server_settings,
)

sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (  # noqa: E402
    InMemorySpanExporter,
)

PASSWORD = "correct horse 1"


def _traced(database: Database, **settings: Any) -> tuple[LiveServer, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    srv = LiveServer(server_settings(database, **settings), make_test_games(),
                     tracer_provider=provider)
    return srv, exporter


def _text(span: Any) -> str:
    return json.dumps({k: str(v) for k, v in (span.attributes or {}).items()})


@pytest.mark.parametrize("fast", [True, False], ids=["fast-path", "general-path"])
def test_a_round_gives_a_request_span_and_a_round_span_under_it(database: Database,
                                                                 fast: bool) -> None:
    srv, exporter = _traced(database, fast_rounds=fast)
    with srv:
        c, _ = srv.player(password=PASSWORD)
        token = c.headers["Authorization"].removeprefix("Bearer ")
        rid = f"trace-{uuid.uuid4().hex[:8]}"
        with c:
            r = c.post("/api/games/instant-test/rounds", json={"bet": 5},
                       headers={**key(), "X-Request-ID": rid})
            assert r.status_code == 201, r.text
            round_id = r.json()["round_id"]
            record = c.get(f"/api/rounds/{round_id}").json()
            c.get("/api/games?currency=EUR&note=do-not-keep-this")
    spans = exporter.get_finished_spans()
    (settled,) = [s for s in spans if s.name == "round settled"]
    attrs = dict(settled.attributes or {})
    assert attrs["slotlab.round_id"] == round_id and attrs["slotlab.game"] == "instant-test"
    assert attrs["slotlab.request_id"] == rid and attrs["slotlab.bet"] == 5
    assert attrs["slotlab.win"] == r.json()["win"]
    (request,) = [s for s in spans if s.parent is None
                  and (s.attributes or {}).get("slotlab.request_id") == rid]
    assert request.attributes is not None
    assert request.attributes.get("http.target", request.attributes.get("url.path")) == \
        "/api/games/instant-test/rounds"
    assert request.attributes.get("http.status_code",
                                  request.attributes.get("http.response.status_code")) == 201
    # The round's span is a child of its request's.
    assert settled.parent is not None and settled.parent.span_id == request.context.span_id
    assert settled.context.trace_id == request.context.trace_id
    # Nothing secret: the token, the password, a query string, a seed.
    everything = " ".join(_text(s) for s in spans)
    assert token not in everything and PASSWORD not in everything
    assert "do-not-keep-this" not in everything
    assert not [k for s in spans for k in (s.attributes or {}) if "seed" in k.lower()]
    seeds = record["seeds"]  # the round is over: its record shows them, its spans never
    assert seeds and all(seed not in everything for seed in seeds)


def test_tracing_is_off_unless_configured(database: Database) -> None:
    assert Settings().tracing == "off"
    with LiveServer(server_settings(database), make_test_games()) as srv:
        names = [m.cls.__name__ for m in srv.app.user_middleware]
        assert "OpenTelemetryMiddleware" not in names
        c, _ = srv.player()
        with c:
            assert c.post("/api/games/instant-test/rounds", json={"bet": 5},
                          headers=key()).status_code == 201


def _spans_printed(text: str) -> list[dict[str, Any]]:
    """The JSON objects the console exporter printed one after another."""
    decoder, spans, at = json.JSONDecoder(), [], 0
    while (start := text.find("{", at)) != -1:
        span, at = decoder.raw_decode(text, start)
        spans.append(span)
    return spans


def _serve_and_play(tmp_path: Path, tracing: dict[str, str]
                    ) -> tuple[dict[str, Any], str, str, str]:
    """A ``slotlab serve`` process traced as ``tracing`` says (``SLOTLAB_TRACING`` and the
    exporter's variables) plays one round and is stopped (its provider exports what is queued):
    the round's answer, the request id that settled it, the player's token, its stdout."""
    port = free_port()
    env = {**os.environ, **MANY_PLAYERS_ENV, **tracing, "SLOTLAB_GAMES": '["classic-3x3"]',
           **{f"SLOTLAB_{k.upper()}": str(v) for k, v in FAST_HASH.items()}}
    out, log = tmp_path / "stdout", tmp_path / "stderr"
    proc = processes.start([sys.executable, "-m", "slotlab.cli", "serve", "--port", str(port),
                            "--db", f"sqlite:///{tmp_path / 'slotlab.db'}"], log, env,
                           stdout=out)
    url = f"http://127.0.0.1:{port}"
    try:
        processes.wait_until_answers(proc, f"{url}/health/ready", log)
        with httpx.Client(base_url=url, timeout=30) as c:
            creds = {"username": "tracer1", "password": PASSWORD}
            assert c.post("/api/players", json=creds).status_code == 201
            token = c.post("/api/sessions", json=creds).json()["token"]
            r = c.post("/api/games/classic-3x3/rounds", json={"bet": 5},
                       headers={**key(), "Authorization": f"Bearer {token}",
                                "X-Request-ID": "trace-1"})
            assert r.status_code == 201, r.text
            settled_by = "trace-1"
            if r.json()["status"] == "awaiting_choice":  # a win offers the gamble: collect
                settled_by = "trace-2"
                done = c.post(f"/api/rounds/{r.json()['round_id']}/choices",
                              json={"choice": "collect", "step": r.json()["step"]},
                              headers={**key(), "Authorization": f"Bearer {token}",
                                       "X-Request-ID": settled_by})
                assert done.status_code == 200, done.text
        os.kill(proc.pid, signal.SIGINT)  # the provider's shutdown exports what is queued
        assert proc.wait(60) == 0
    finally:
        processes.kill(proc)
    return r.json(), settled_by, token, out.read_text()


def test_a_server_process_prints_its_spans_with_console_tracing(tmp_path: Path) -> None:
    played, settled_by, token, printed = _serve_and_play(tmp_path, {"SLOTLAB_TRACING": "console"})
    spans = _spans_printed(printed)
    settled = [s for s in spans if s["name"] == "round settled"]
    assert [s["attributes"]["slotlab.round_id"] for s in settled] == [played["round_id"]]
    assert settled[0]["attributes"]["slotlab.request_id"] == settled_by
    assert any(s["attributes"].get("slotlab.request_id") == "trace-1"
               and s["parent_id"] is None for s in spans)
    assert token not in printed and PASSWORD not in printed


class _OtlpReceiver(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver on loopback: each POST to /v1/traces is decoded from OTLP's
    protobuf (``ExportTraceServiceRequest``) and its spans kept, as a collector receives them."""

    def __init__(self) -> None:
        self.spans: list[Any] = []
        self.bodies: list[bytes] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                ok = (self.path == "/v1/traces"
                      and self.headers["Content-Type"] == "application/x-protobuf")
                if ok:
                    request = trace_service_pb2.ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    receiver.bodies.append(body)
                    receiver.spans += [span for rs in request.resource_spans
                                       for ss in rs.scope_spans for span in ss.spans]
                reply = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200 if ok else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


def test_a_server_process_exports_its_spans_to_an_otlp_receiver(tmp_path: Path) -> None:
    """SLOTLAB_TRACING=otlp sends the spans over the wire, as OTLP/HTTP protobuf, to the
    endpoint the standard variable names: a round's request span and its round span arrive."""
    receiver = _OtlpReceiver()
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
        played, settled_by, token, _ = _serve_and_play(tmp_path, {
            "SLOTLAB_TRACING": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint})
    finally:
        receiver.shutdown()
        receiver.server_close()

    def attrs(span: Any) -> dict[str, Any]:
        return {a.key: a.value.string_value or a.value.int_value for a in span.attributes}

    settled = [s for s in receiver.spans if s.name == "round settled"]
    assert [attrs(s)["slotlab.round_id"] for s in settled] == [played["round_id"]]
    assert attrs(settled[0])["slotlab.request_id"] == settled_by
    parent = [s for s in receiver.spans if s.span_id == settled[0].parent_span_id]
    assert parent and attrs(parent[0]).get("slotlab.request_id") == settled_by
    assert all(token.encode() not in b and PASSWORD.encode() not in b for b in receiver.bodies)


def test_tracing_asked_for_without_opentelemetry_stops_serve_with_the_install_command(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from slotlab.server import main

    # None in sys.modules is how Python itself says a module cannot be imported.
    monkeypatch.setitem(sys.modules, "opentelemetry.instrumentation.asgi", None)
    monkeypatch.setenv("SLOTLAB_TRACING", "otlp")
    with pytest.raises(main.ServeError) as refused:
        main.run("127.0.0.1", free_port(), f"sqlite:///{tmp_path / 'slotlab.db'}")
    message = str(refused.value)
    assert "\n" not in message and "pip install 'slotlab[otel]'" in message
    assert not (tmp_path / "slotlab.db").exists()  # refused before anything was touched


def test_rounds_committed_together_are_each_traced_under_their_own_request(
        tmp_path: Path) -> None:
    """On SQLite the general path commits concurrent rounds in one group commit, in the thread
    of whichever request came last: each round's span (and log line) still carries its own
    request's id and hangs under its own request's span."""
    from concurrent.futures import ThreadPoolExecutor

    from .server_util import make_database

    srv, exporter = _traced(make_database("sqlite", tmp_path), fast_rounds=False)
    with srv:
        players = [srv.player()[0] for _ in range(8)]

        def play(i: int) -> list[tuple[str, str]]:
            played = []
            for n in range(6):
                rid = f"group-{i}-{n}"
                r = players[i].post("/api/games/instant-test/rounds", json={"bet": 5},
                                    headers={**key(), "X-Request-ID": rid})
                assert r.status_code == 201, r.text
                played.append((r.json()["round_id"], rid))
            return played

        with ThreadPoolExecutor(8) as pool:
            by_round = dict(p for ps in pool.map(play, range(8)) for p in ps)
        for c in players:
            c.close()
    spans = exporter.get_finished_spans()
    requests = {(s.attributes or {}).get("slotlab.request_id"): s for s in spans
                if s.parent is None}
    settled = [s for s in spans if s.name == "round settled"]
    assert len(settled) == len(by_round) == 48
    for s in settled:
        attrs = dict(s.attributes or {})
        rid = by_round[str(attrs["slotlab.round_id"])]
        assert attrs["slotlab.request_id"] == rid
        assert s.parent is not None and s.parent.span_id == requests[rid].context.span_id
