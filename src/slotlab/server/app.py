"""The FastAPI application: routers, error mapping, start-up and the static browser client."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import InterfaceError, OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from slotlab import __version__
from slotlab.operator.signing import Keyring
from slotlab.rounds import Game
from slotlab.server import fast_rounds, metrics, tracing
from slotlab.server.api_docs import document_errors
from slotlab.server.errors import ApiError
from slotlab.server.middleware import BodyLimit, SecurityHeaders
from slotlab.server.operator_wallet import OperatorWallet
from slotlab.server.ratelimit import LoginGate
from slotlab.server.request_log import RequestLog
from slotlab.server.routes import (
    admin,
    autoplay,
    demo,
    fairness,
    games,
    players,
    responsible,
    rounds,
)
from slotlab.server.services import maintenance
from slotlab.server.services.catalog import load_catalog
from slotlab.server.services.context import Services
from slotlab.server.services.integrity import IntegrityMonitor, heal_kernel_cache
from slotlab.server.services.model_figures import ModelFigures
from slotlab.server.services.rtp_watch import RtpWatch, RtpWatchCollector
from slotlab.server.settings import Settings
from slotlab.store import Database
from slotlab.store.engine import CommitFailed
from slotlab.store.model_sources import ModelSources
from slotlab.store.operator_wallet import OperatorWalletStore

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

log = logging.getLogger("slotlab.server")
WEB_DIR = Path(__file__).resolve().parent.parent / "web"
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized",
               403: "forbidden", 413: "too_large", 415: "unsupported_media_type"}


def _error(status: int, code: str, message: str) -> JSONResponse:
    metrics.error(status, code)
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def _validation_message(exc: RequestValidationError) -> tuple[int, str, str]:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return 400, "malformed_json", "the body is not valid JSON"
    if any(e.get("type") == "missing" and tuple(e.get("loc", ())) == ("body", "step")
           for e in errors):  # only a choice has a step
        return 422, "step_required", ("send the round's step with the choice ({choice, step}): "
                                      "the step the choice answers, as the round last showed it")
    parts = []
    for e in errors[:5]:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{loc or 'body'}: {e.get('msg', 'invalid')}")
    return 422, "invalid_request", "; ".join(parts) or "invalid request"


def make_operator_wallet(settings: Settings, db: Database) -> OperatorWallet:
    """The seamless-wallet adapter of ``wallet_mode=operator``, logging to the server's DB."""
    assert settings.operator_wallet_url and settings.operator_wallet_secret
    previous = settings.operator_wallet_previous_secret
    keyring = Keyring(settings.operator_wallet_secret.get_secret_value(),
                      *([previous.get_secret_value()] if previous is not None else []))
    return OperatorWallet(settings.operator_wallet_url, keyring,
                          tolerance_s=settings.operator_wallet_tolerance_s,
                          stale_after=None if settings.operator_wallet_stale_after_s is None
                          else timedelta(seconds=settings.operator_wallet_stale_after_s),
                          timeout=settings.operator_wallet_timeout_s,
                          max_attempts=settings.operator_wallet_attempts,
                          backoff=settings.operator_wallet_backoff_s,
                          idle_s=settings.operator_wallet_idle_s,
                          store=OperatorWalletStore(db))


async def _watch_rtp(watch: RtpWatch, interval_s: float) -> None:
    """Check the live RTP every interval, so that an alert is logged without a scrape."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await anyio.to_thread.run_sync(watch.check)
        except Exception:  # the database away: the next tick tries again
            log.exception("the live RTP watch could not read the rounds")


def create_app(settings: Settings | None = None, *,
               games_override: Mapping[str, Game] | None = None,
               tracer_provider: TracerProvider | None = None) -> FastAPI:
    """The server app. ``games_override`` replaces the engine's game registry (tests, embedding);
    ``tracer_provider`` traces requests and rounds to an embedder's own OpenTelemetry provider
    (else ``SLOTLAB_TRACING`` decides, server/tracing.py)."""
    settings = settings or Settings()
    own_provider = tracer_provider is None
    provider = tracer_provider or tracing.provider_for(settings.tracing)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database(settings.database_url, busy_timeout_ms=settings.sqlite_busy_timeout_ms,
                      synchronous=settings.sqlite_synchronous, pool_size=settings.db_pool_size,
                      pooler=settings.db_pooler)
        db.migrate()
        # Fewer threads than clients: the thread holding the database write lock then gets
        # the GIL more often, which shortens the serial section under load.
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.threads
        healed = heal_kernel_cache(db)  # before the kernels load: a changed file never runs
        ctx = Services(settings, db, load_catalog(settings, games_override, ModelSources(db)))
        ctx.login_limiter = anyio.CapacityLimiter(4)
        where = make_url(db.url).render_as_string(hide_password=True)
        log.info("slotlab %s on %s; games: %s", __version__, where,
                 ", ".join(f"{e.id} ({e.game.model_hash[:12]})" for e in ctx.catalog))
        ctx.integrity = IntegrityMonitor(db, ctx.catalog, settings.certified_list,
                                         healed=healed,
                                         certified_bundles=settings.certified_bundles,
                                         jurisdiction=settings.jurisdiction)
        ctx.integrity.check(record_new=True)  # after the warm-up: the kernels are compiled
        if settings.operator_mode:
            ctx.operator = make_operator_wallet(settings, db)
        app.state.services = ctx
        app.state.fast_rounds = await fast_rounds.start(ctx)  # raises: the server stops
        ctx.round_writer = app.state.fast_rounds
        # On a worker thread: its writes (auto-completions) go to the writer on this loop.
        await anyio.to_thread.run_sync(maintenance.startup, ctx)
        sweeper = maintenance.Sweeper(ctx)
        sweeper.start()
        ctx.model_figures = ModelFigures()
        ctx.rtp_watch = RtpWatch(ctx)
        watching = asyncio.create_task(_watch_rtp(ctx.rtp_watch, settings.rtp_watch_interval_s))
        tracing.serve_with(provider)
        app.state.ready = True  # every game compiled and loaded
        try:
            yield
        finally:
            tracing.serve_with(None)
            if provider is not None and own_provider:
                provider.shutdown()  # the spans still queued are exported
            watching.cancel()
            # A sweep under way ends first: its writes may be the writer's.
            await anyio.to_thread.run_sync(sweeper.stop)
            ctx.round_writer = None
            if app.state.fast_rounds is not None:
                await app.state.fast_rounds.close()
            await anyio.to_thread.run_sync(ctx.model_figures.close)  # the figures process
            if ctx.operator is not None:
                ctx.operator.close()
            ctx.password_pool.shutdown(wait=False, cancel_futures=True)
            ctx.registration_pool.shutdown(wait=False, cancel_futures=True)
            db.dispose()

    # The API docs (/docs, /redoc) serve their scripts from the package: no CDN, no internet.
    app = FastAPIOffline(
        title="slotlab game server",
        version=__version__,
        description="Accounts, wallet ledger, rounds, history and replay. Amounts are integer "
        "minor units. Errors are {error: {code, message}}.",
        lifespan=lifespan,
    )

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        if not exc.counted:
            metrics.error(exc.status, exc.code)
        return JSONResponse(exc.body(), status_code=exc.status,
                            headers=getattr(exc, "headers", None))  # e.g. Retry-After

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(*_validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else code
        metrics.error(exc.status_code, code)
        return JSONResponse({"error": {"code": code, "message": detail}},
                            status_code=exc.status_code, headers=getattr(exc, "headers", None))

    @app.exception_handler(OperationalError)
    @app.exception_handler(InterfaceError)
    @app.exception_handler(CommitFailed)
    async def _database_down(_: Request, exc: Exception) -> JSONResponse:
        # Fail closed (R5): the transaction was rolled back, so nothing was taken or changed.
        log.error("database unavailable: %s", exc)
        return _error(503, "database_unavailable",
                      "the database is unavailable; nothing was taken or changed, retry later")

    @app.exception_handler(Exception)
    async def _crash(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return _error(500, "internal_error", "internal error; nothing was lost, retry")

    for module in (players, demo, games, rounds, autoplay, responsible, fairness, admin):
        document_errors(module.router.routes)
        app.include_router(module.router)
    # The last added runs first: every answer, a 413 included, gets the security headers.
    app.add_middleware(fast_rounds.FastRounds)  # innermost: behind the body cap and headers
    app.add_middleware(LoginGate, trusted_proxies=settings.trusted_proxies)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)
    if provider is not None:  # inside the request id's middleware: spans carry the id
        tracing.instrument(app, provider)
    app.add_middleware(RequestLog)  # outermost: every answer has its X-Request-ID

    @app.get("/api/health", tags=["meta"])
    def health() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    @app.get("/health/live", tags=["meta"])
    def live() -> dict[str, Any]:
        """The process serves requests (it listens only once its games are loaded)."""
        return {"live": True}

    @app.get("/health/ready", tags=["meta"], responses={503: {"description": "not ready"}})
    def ready(request: Request) -> JSONResponse:
        """Ready for players: every game compiled and loaded, and the database answers."""
        ctx = getattr(request.app.state, "services", None)
        if ctx is None or not getattr(request.app.state, "ready", False):
            return JSONResponse({"ready": False, "reason": "starting"}, status_code=503)
        try:
            with ctx.db.read() as s:
                s.execute(text("SELECT 1"))
        except Exception as exc:  # the database is down or unreachable: not ready
            log.warning("not ready: the database does not answer: %s", exc)
            return JSONResponse({"ready": False, "reason": "database"}, status_code=503)
        return JSONResponse({"ready": True, "games": len(ctx.catalog.entries)})

    @app.get("/metrics", tags=["meta"], include_in_schema=False)
    def prometheus_metrics(request: Request) -> Response:
        ctx = getattr(request.app.state, "services", None)
        watch = [] if ctx is None or ctx.rtp_watch is None else [RtpWatchCollector(
            ctx.rtp_watch)]
        body, content_type = metrics.exposition(ctx, watch)
        return Response(body, media_type=content_type)

    web = Path(settings.web_dir) if settings.web_dir else WEB_DIR
    if web.is_dir():  # mounted last, so the API routes win
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    return app
