"""The service's application: ``create_app(store_url)`` for uvicorn and the tests.

Opening the app refuses a weak ``DICEBOUND_ADMIN_TOKEN`` before touching anything,
opens the store (migrating it), stores the packaged rulesets' versions it lacks, and
settles the admin token: ``DICEBOUND_ADMIN_TOKEN`` when set, else the stored one, else
a new one printed once on standard error. The admin token's hash is then read from the
store every few seconds (``AdminHash``), so a new one reaches every running process.
Its event streams (``EventHub``) start listening with it and end before it stops.
Its limits (the body timeout, the request rate, the requests in flight per client
address behind a proxy, the streams per token) are ``guards``, else read from the
environment; so is whether FastAPI reports each request to OpenTelemetry
(``DICEBOUND_TELEMETRY``, off unless asked), and whether it counts what
``GET /metrics`` tells (``DICEBOUND_METRICS``, on unless turned off).

``/health`` says the process and its store answer; ``/ready`` says too that the
store's schema is the one this process was built for (``SchemaWatch``), for a load
balancer taking a process in or out of its pool during an upgrade.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TextIO

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.telemetry import TelemetryConfig
from sqlalchemy.exc import SQLAlchemyError

from dicebound.app.access import Access, check_admin_token, ensure_admin_token
from dicebound.app.errors import Unauthorized
from dicebound.app.rulesets import sync_packaged_rulesets
from dicebound.app.version import dicebound_version
from dicebound.edge.environ import switched_on
from dicebound.edge.http.deps import AdminHash, TokenGames, request_token
from dicebound.edge.http.docs_page import DOCS_HEADERS, docs_page
from dicebound.edge.http.events import EventHub, keep_server_send, keepalive_seconds
from dicebound.edge.http.guards import Guard, Guards
from dicebound.edge.http.lane import CheckLane
from dicebound.edge.http.metrics import CONTENT_TYPE, Metrics
from dicebound.edge.http.probe import StoreDown, StoreProbe
from dicebound.edge.http.problems import (
    AsciiJSONResponse,
    ASGIApp,
    install_handlers,
    problem,
    refusal_problem,
    store_unavailable,
)
from dicebound.edge.http.pruning import prune_settings, pruning
from dicebound.edge.http.routes import (
    checks,
    events,
    fights,
    games,
    rulesets,
    seats,
    sheet_form,
    transfer,
)
from dicebound.edge.mcp import build_server, http_routes, seat_of_http_request
from dicebound.edge.schemas import HealthOut, ProblemOut
from dicebound.edge.web import PAGE_HEADERS, STATIC
from dicebound.store import Store, open_store
from dicebound.store.db import head_revision, reason_of

__all__ = ["SchemaWatch", "create_app", "prepare_store", "telemetry_config"]

STORE_DOWN: dict[int | str, dict[str, object]] = {
    503: {
        "model": ProblemOut,
        "content": {"application/problem+json": {}},
        "description": "The store does not answer",
    }
}


def telemetry_config(environ: Mapping[str, str]) -> TelemetryConfig:
    """FastAPI's OpenTelemetry settings: its own defaults (a span, a metric and error
    logs per request, to the providers an operator configured) when
    ``DICEBOUND_TELEMETRY`` is ``on``; else off. Off is the default: when on, FastAPI
    asks for the three providers on every request even where none is configured (no
    OpenTelemetry SDK is installed with dicebound), a sixth of what its own stack
    costs a ``/health``."""
    if switched_on(environ, "DICEBOUND_TELEMETRY"):
        return {}
    return {"tracing": False, "metrics": False, "logs": False}


def prepare_store(store: Store, *, admin_token: str | None, say: TextIO) -> str:
    """Packaged rulesets in, the admin token settled; gives the admin token's hash.
    Safe when several processes start on one store at once: every write says ON
    CONFLICT (see ``app.rulesets.sync_packaged_rulesets`` and
    ``app.access.ensure_admin_token``)."""
    with store.write() as session:
        sync_packaged_rulesets(session)
        admin_hash, made = ensure_admin_token(session, admin_token)
    if made is not None:
        say.write(
            f"dicebound: made the admin token (shown once, only its hash is kept):\n  {made}\n"
        )
        say.flush()
    return admin_hash


METRICS_TOKEN = "the metrics are the admin's: send the admin token."
"""Why ``/metrics`` refuses a request without the admin token (401, whatever it sent)."""


class SchemaWatch:
    """Whether the store's schema is at this process's newest revision, read at most
    every ``seconds`` (a revision changes only when someone migrates the store, and a
    load balancer asks every few seconds): the sentence why not, else None."""

    def __init__(self, store: Store, seconds: float = 2.0) -> None:
        self.store = store
        self.seconds = seconds
        self.head = head_revision()
        self._read_at = -seconds
        self._behind: str | None = None

    async def behind(self) -> str | None:
        now = time.monotonic()
        if now - self._read_at >= self.seconds:
            revision = await asyncio.to_thread(self.store.revision)
            self._read_at = now
            self._behind = (
                None
                if revision == self.head
                else f"the store's schema is at revision {revision}, not {self.head}, the one "
                "this process serves; migrate it with the matching dicebound (dicebound db "
                "upgrade), or run that version."
            )
        return self._behind


class _App(FastAPI):
    """FastAPI behind the service's guards (``guards.Guard``: outside everything, its
    error pages included, where a middleware added the usual way sits inside the one
    that answers 500), with the fast lane of checks, and the server's own ``send``
    kept for the event streams (``keep_server_send``)."""

    guards = Guards()

    def build_middleware_stack(self) -> ASGIApp:
        guard = Guard(
            super().build_middleware_stack(),
            rate=self.guards.rate_limit,
            body_timeout=self.guards.body_timeout,
            lane=CheckLane(),
            per_address=self.guards.limit_per_address,
            streams_per_token=self.guards.streams_per_token,
            metrics=self.state.metrics,
        )
        return keep_server_send(guard)


def create_app(
    store_url: str | None = None,
    *,
    store: Store | None = None,
    say: TextIO | None = None,
    guards: Guards | None = None,
) -> FastAPI:
    """The application over the store at ``store_url`` (see ``dicebound.store.store_url``),
    or over an open ``store``, with ``guards`` (default: ``Guards.resolve`` from the
    environment)."""
    guards = guards if guards is not None else Guards.resolve(environ=os.environ)
    version = dicebound_version()
    keepalive = keepalive_seconds(os.environ)
    telemetry = telemetry_config(os.environ)
    prune = prune_settings(os.environ)
    metrics = Metrics(version, enabled=switched_on(os.environ, "DICEBOUND_METRICS", default=True))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        admin_token = os.environ.get("DICEBOUND_ADMIN_TOKEN")
        check_admin_token(admin_token)  # before any store is opened or migrated
        opened = store if store is not None else open_store(store_url)
        try:
            known = prepare_store(opened, admin_token=admin_token, say=say or sys.stderr)
            app.state.store = opened
            app.state.probe = StoreProbe(opened)
            app.state.schema = SchemaWatch(opened)
            metrics.process_started(opened.engine)
            app.state.healthy = json.dumps(
                {"ok": True, "store": opened.dialect, "version": version}, separators=(",", ":")
            ).encode("ascii")
            app.state.admin_hash = AdminHash(opened, known)
            app.state.token_games = TokenGames(opened)
            hub = app.state.events = EventHub(
                opened, app.state.admin_hash, keepalive, metrics.streams_open
            )
            await hub.start()
            # What lives as long as the app (its routes, the compiled packaged rulesets) is
            # left out of the collector's full passes: a request that makes many objects (a
            # ruleset check of 100,000 problems) no longer pays for a scan of all of it.
            gc.freeze()
            try:
                async with tools.session_manager.run(), pruning(opened, prune):
                    yield
            finally:
                await hub.stop()
                await app.state.probe.close()
        finally:
            gc.unfreeze()
            if store is None:
                opened.close()

    app = _App(
        telemetry=telemetry,
        title="dicebound",
        version=version,
        summary="Resolve tabletop role-playing checks from a game's ruleset, over HTTP.",
        lifespan=lifespan,
        default_response_class=AsciiJSONResponse,
        docs_url=None,  # our own page below, not Swagger UI from a CDN
        redoc_url=None,
    )
    app.guards = guards
    app.state.metrics = metrics
    install_handlers(app)
    tools = build_server(seat_of_http_request(app.state))
    app.router.routes.extend(http_routes(tools, app.state))

    @app.get("/health", response_model=HealthOut, tags=["service"], responses=STORE_DOWN)
    async def health(request: Request) -> Response:
        """The service answers and its store does (one query), or 503."""
        state = request.app.state
        try:
            await state.probe.ping()
        except StoreDown as exc:
            return store_unavailable(exc.fault, exc.reason)
        return Response(state.healthy, media_type="application/json")

    @app.get("/ready", response_model=HealthOut, tags=["service"], responses=STORE_DOWN)
    async def ready(request: Request) -> Response:
        """This process can serve: its store answers and its schema is the revision this
        process was built for. Else 503, which takes it out of a load balancer's pool."""
        state = request.app.state
        try:
            await state.probe.ping()
            behind = await state.schema.behind()
        except StoreDown as exc:
            state.metrics.store_fault(exc.fault)
            return store_unavailable(exc.fault, exc.reason)
        except SQLAlchemyError as exc:
            state.metrics.store_fault("busy")
            return store_unavailable("busy", reason_of(exc))
        if behind is not None:
            return problem(503, behind, title="Unavailable", headers={"Retry-After": "5"})
        return Response(state.healthy, media_type="application/json")

    @app.get(
        "/metrics",
        tags=["service"],
        response_class=Response,
        responses={
            200: {"content": {CONTENT_TYPE: {}}, "description": "Prometheus' text format"},
            401: {"model": ProblemOut, "content": {"application/problem+json": {}}},
        },
    )
    async def scrape(request: Request) -> Response:
        """Every series this service counts, in Prometheus' text format, for the admin
        token alone (401 for any other, or none), the store down included. Under
        ``--workers`` each process answers for all of them."""
        state = request.app.state
        try:
            admin_hash = await state.admin_hash.current()
        except SQLAlchemyError:  # the store is down: the scrape says so, by the hash held
            admin_hash = state.admin_hash.held
        if not Access.of(request_token(request.scope), admin_hash).admin:
            return refusal_problem(Unauthorized(METRICS_TOKEN))
        return Response(state.metrics.exposition(), media_type=CONTENT_TYPE)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        """The web page: play, author, balance and sheets, on this API."""
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    docs: list[str] = []

    @app.get("/docs", include_in_schema=False)
    def reference() -> HTMLResponse:
        """The API's reference, drawn from the OpenAPI document (no script, no CDN)."""
        if not docs:
            docs.append(docs_page(app.openapi()))
        return HTMLResponse(docs[0], headers=DOCS_HEADERS)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(checks.router)
    app.include_router(rulesets.router)
    app.include_router(sheet_form.router)
    app.include_router(transfer.router)  # /games/import before /games/{game}
    app.include_router(games.router)
    app.include_router(seats.router)
    app.include_router(fights.router)
    app.include_router(events.router)
    return app
