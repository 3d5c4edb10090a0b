"""OpenTelemetry tracing, optional (``pip install 'slotlab[otel]'``) and off unless configured.

``SLOTLAB_TRACING=otlp`` exports spans by OTLP over HTTP (the exporter reads the standard
``OTEL_EXPORTER_OTLP_*`` variables: endpoint, headers, timeout), ``console`` prints them as JSON
on standard output, ``off`` (the default) loads nothing of OpenTelemetry. An embedding
application may hand :func:`slotlab.server.app.create_app` a tracer provider of its own.

Spans: one per request, from OpenTelemetry's own ASGI instrumentation, inside the request-id
middleware so that each carries ``slotlab.request_id``; its URL attributes keep the path only
(no query string). One per round settled (``round settled``), a child of the request's span
where the round settles in the request's thread or task, with the request id, game, round id,
currency, bet, win and player id. No span carries a header, a token, a password or a seed: a
round's seeds are only in its record once it is over, and spans name rounds by id.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any, Literal

from slotlab.server.request_log import REQUEST_ID

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer

log = logging.getLogger("slotlab.server")
Mode = Literal["off", "otlp", "console"]
INSTALL_HINT = "pip install 'slotlab[otel]'"

# The tracer of the app serving in this process (None: tracing off); rounds settle deep in the
# services, which have no handle on the app.
_tracer: Tracer | None = None


class TracingUnavailable(RuntimeError):
    """Tracing asked for, but OpenTelemetry's SDK is not installed."""


def require(mode: Mode) -> None:
    """TracingUnavailable, with the install command, when ``mode`` needs a part of
    OpenTelemetry that is not installed (checked before the server starts)."""
    if mode == "off":
        return
    modules = ["opentelemetry.sdk.trace", "opentelemetry.instrumentation.asgi"]
    if mode == "otlp":
        modules.append("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as e:
            raise TracingUnavailable(f"SLOTLAB_TRACING={mode} needs {name}, not installed: "
                                     f"{INSTALL_HINT}") from e


def provider_for(mode: Mode) -> TracerProvider | None:
    """A tracer provider exporting as ``mode`` says; None when tracing is off."""
    if mode == "off":
        return None
    require(mode)
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        ConsoleSpanExporter,
        SpanExporter,
    )

    from slotlab import __version__

    exporter: SpanExporter
    if mode == "console":
        exporter = ConsoleSpanExporter()
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    provider = TracerProvider(resource=Resource.create(
        {"service.name": "slotlab", "service.version": __version__}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def instrument(app: Any, provider: TracerProvider) -> None:
    """Add OpenTelemetry's ASGI middleware to ``app`` (call it just before the request-id
    middleware is added, so that it runs inside it)."""
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware

    app.add_middleware(OpenTelemetryMiddleware, tracer_provider=provider,
                       server_request_hook=_request_started,
                       exclude_spans=["receive", "send"])  # one span per request, not per chunk


def _request_started(span: Span, scope: dict[str, Any]) -> None:
    if not span.is_recording():
        return
    rid = REQUEST_ID.get()
    if rid is not None:
        span.set_attribute("slotlab.request_id", rid)
    # The path alone: a client may put anything in a query string.
    path = str(scope.get("path", ""))
    attributes = getattr(span, "attributes", None) or {}
    for name in ("http.target", "url.path"):
        if name in attributes:
            span.set_attribute(name, path)
    if "http.url" in attributes:
        span.set_attribute("http.url", str(attributes["http.url"]).split("?", 1)[0])
    if "url.query" in attributes:
        span.set_attribute("url.query", "")


def serve_with(provider: TracerProvider | None) -> None:
    """The tracer of the app starting in this process (None: tracing off)."""
    global _tracer
    _tracer = provider.get_tracer("slotlab.server") if provider is not None else None


def round_settled(game: str, currency: str, bet: int, win: int, *, round_id: str,
                  player_id: int, kind: str) -> None:
    """A span for a round settled and durable (nothing when tracing is off)."""
    tracer = _tracer
    if tracer is None:
        return
    attributes: dict[str, str | int] = {
        "slotlab.game": game, "slotlab.round_id": round_id, "slotlab.currency": currency,
        "slotlab.bet": bet, "slotlab.win": win, "slotlab.player_id": player_id,
        "slotlab.kind": kind}
    rid = REQUEST_ID.get()
    if rid is not None:
        attributes["slotlab.request_id"] = rid
    with tracer.start_as_current_span("round settled", attributes=attributes):
        pass
