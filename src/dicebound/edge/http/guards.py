"""What keeps a slow, greedy or nosy client from hurting the service (issue 23).

- ``Guards``: the numbers (timeouts, the concurrency limit, the request rate), read
  from ``dicebound serve``'s flags, else ``DICEBOUND_*`` variables, else defaults.
- ``Guard``: all of what follows, as one ASGI layer outside FastAPI's.
- security headers: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy:
  no-referrer`` on every answer, errors and files included.
- ``Rates``: a token bucket per bearer token (by its hash) and per game its token
  belongs to, or per client address for requests without one, or with a token no one
  holds (``token_holder``); past it, 429 with ``Retry-After``. In process: N service
  processes allow N times the rate.
- ``Holds``: what one key holds open at once. Per client address as a trusted proxy
  reports it (``X-Forwarded-For``), the requests in flight (the server counts a peer's
  connections itself); per token, its streams (a game's events, ``GET /mcp``). Past
  either, 429. In process, as the rates.
- ``token_refusal``: a route that needs a token refuses a request without one (an
  admin-only route a token that is not the admin's, a game's route a token no one
  holds) before its body is read, so no one buffers a body on the service without a
  token; and a path that is not UTF-8 is refused there too (``deps.path_refusal``).
- the body's limits (``problems.read_body``), and a request cut short (503).
- every request's id (``logs.request_id``: ``X-Request-ID`` kept or made, echoed in the
  answer), its line in the access log, and its count and time in the metrics
  (``metrics.Metrics``, by route template).

The header timeout, the concurrency limit and the connections per peer address
belong to the server, not the app: ``edge/http/protocol.py``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy.exc import StatementError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match

from dicebound.app.access import NO_TOKEN, Access, Use, no_game, token_hash
from dicebound.app.errors import Refusal, Unauthorized
from dicebound.app.games import NO_ONES_TOKEN
from dicebound.edge.http.deps import TokenGames, path_refusal, request_token
from dicebound.edge.http.lane import LANE_ROUTE, CheckLane
from dicebound.edge.http.metrics import Metrics
from dicebound.edge.http.problems import (
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    answer_handled,
    problem,
    read_body,
    refusal_problem,
    replayed,
)
from dicebound.edge.logs import ACCESS, REQUEST, REQUEST_ID, request_id
from dicebound.errors import UsageError

__all__ = [
    "SECURITY_HEADERS",
    "Guard",
    "Guards",
    "Holder",
    "Holds",
    "Rates",
    "TokenBuckets",
    "address_refusal",
    "token_holder",
    "token_refusal",
]

log = logging.getLogger("dicebound.http")


@dataclass(frozen=True)
class Guards:
    """The service's limits. ``limit_concurrency``, ``limit_per_address``,
    ``streams_per_token`` and ``rate_limit`` of 0 turn them off."""

    header_timeout: float = 10.0  # seconds for a request's headers to be whole
    body_timeout: float = 30.0  # seconds for its body, once the headers are in
    limit_concurrency: int = 500  # connections and requests at once, per process
    limit_per_address: int = 64  # connections (through a proxy, requests) per client address
    streams_per_token: int = 4  # streams open at once per token: events and GET /mcp
    rate_limit: float = 50.0  # requests a second per token (burst: as many)
    shutdown_timeout: int = 8  # seconds SIGTERM waits for requests in flight

    @staticmethod
    def resolve(
        flags: Mapping[str, str | None] | None = None, environ: Mapping[str, str] | None = None
    ) -> Guards:
        """Each limit from its flag (``header_timeout`` → ``--header-timeout``), else
        its variable (``DICEBOUND_HEADER_TIMEOUT``), else the default; a value that is
        not one is refused with a sentence naming where it came from."""
        flags = flags or {}
        environ = environ if environ is not None else {}
        chosen: dict[str, Any] = {}
        for field in fields(Guards):
            flag = "--" + field.name.replace("_", "-")
            variable = "DICEBOUND_" + field.name.upper()
            given, where = flags.get(field.name), flag
            if given is None:
                given, where = environ.get(variable), variable
            if given is not None and given.strip():
                chosen[field.name] = _parse(field.name, given.strip(), where)
        return Guards(**chosen)


_WHAT = {
    "header_timeout": "a number of seconds above 0",
    "body_timeout": "a number of seconds above 0",
    "limit_concurrency": "a whole number of connections, 0 or more (0: no limit)",
    "limit_per_address": "a whole number of connections, 0 or more (0: no limit)",
    "streams_per_token": "a whole number of streams, 0 or more (0: no limit)",
    "rate_limit": "a number of requests a second, 0 or more (0: no limit)",
    "shutdown_timeout": "a whole number of seconds, 0 or more",
}


_WHOLE = ("limit_concurrency", "limit_per_address", "streams_per_token", "shutdown_timeout")


def _parse(name: str, text: str, where: str) -> float | int:
    refusal = UsageError(f'{where} must be {_WHAT[name]}; it is "{text}".')
    try:
        value: float | int = int(text) if name in _WHOLE else float(text)
    except ValueError:
        raise refusal from None
    enough = value > 0 if name in ("header_timeout", "body_timeout") else value >= 0
    if not (math.isfinite(value) and enough):
        raise refusal
    return value


# ── headers on every answer ──────────────────────────────────────────────────

SECURITY_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}
_SECURITY_RAW = [
    (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()
]


def _with_security_headers(message: Message, request: tuple[bytes, bytes]) -> None:
    """``SECURITY_HEADERS`` added to an answer's start, where it does not set them: the
    browser must never guess a type (an uploaded file read as HTML), and no page of the
    service leaks its address (which may name a game) to another site. And ``request``,
    the request's ``X-Request-ID``, for the client to quote."""
    headers = list(message.get("headers", ()))
    present = {name.lower() for name, _ in headers}
    headers += [(k, v) for k, v in _SECURITY_RAW if k not in present]
    headers.append(request)
    message["headers"] = headers


# ── the request rate ─────────────────────────────────────────────────────────


class TokenBuckets:
    """One bucket per key, holding up to ``rate`` requests (at least 1) and refilled at
    ``rate`` a second. A bucket left alone until full is forgotten: it is as a new one,
    so the table holds only the keys seen in the last second or so."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.burst = max(rate, 1.0)
        self.refill = self.burst / rate  # seconds from empty to full
        self.buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)
        self.sweep_at = 0.0

    def take(self, key: str, now: float) -> float:
        """Take one request from ``key``'s bucket: 0.0 when allowed, else the seconds
        until one is there."""
        if now >= self.sweep_at:
            stale = now - self.refill
            self.buckets = {k: b for k, b in self.buckets.items() if b[1] > stale}
            self.sweep_at = now + self.refill
        tokens, when = self.buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        if tokens >= 1.0:
            self.buckets[key] = (tokens - 1.0, now)
            return 0.0
        self.buckets[key] = (tokens, now)
        return (1.0 - tokens) / self.rate

    def wait(self, key: str, now: float) -> float:
        """The seconds until ``key``'s bucket holds a request (0.0: it holds one now),
        taking nothing."""
        tokens, when = self.buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - when) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate


# ── whose the token is ───────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class Holder:
    """Whose a request's token is, as the guard knows it before the route: the admin's,
    a game's (its game master's or a player's seat: ``game``), or no one's (neither)."""

    admin: bool
    game: str | None

    @property
    def is_no_one(self) -> bool:
        return not self.admin and self.game is None


_HOLDER = "dicebound.holder"  # the scope's key for its token's holder, once known


async def token_holder(scope: Scope, *, strangers: bool = True) -> Holder | None:
    """Whose the request's token is: the admin's (the admin hash), else the game's it
    belongs to (``deps.TokenGames``, which reads the store for a token it does not
    hold), else no one's; None without a token. With ``strangers`` False the store is
    read only for a token found in a game lately (``TokenGames.known``): None also for
    any other. Kept in the scope once known, for the guards that ask again."""
    token = request_token(scope)
    if token is None:
        return None
    known: Holder | None = scope.get(_HOLDER)
    if known is not None:
        return known
    state = scope["app"].state
    if Access.of(token, await state.admin_hash.current()).admin:
        known = Holder(admin=True, game=None)
    else:
        games: TokenGames = state.token_games
        hashed = token_hash(token)
        if not (strangers or games.known(hashed)):
            return None
        known = Holder(admin=False, game=await games.game(hashed))
    scope[_HOLDER] = known
    return known


# ── the request rate ─────────────────────────────────────────────────────────


_UNLIMITED = ("/health", "/ready", "/metrics")  # a probe, a scrape: never limited
# whose bucket was empty, as ``Rates.refusal`` words it -> the metrics' label for it
_BUCKETS = {
    "this address": "address",
    "this address, with tokens no one holds,": "stranger-tokens",
    "this token": "token",
    "this token's game": "game",
}


class Rates:
    """Past ``rate`` requests a second for one token (or one address, without a token),
    or for one game's tokens together (its game master's and its players', whichever
    were sent: a game cannot pass its own rate by rotating its token or by its seats),
    429 with ``Retry-After`` in whole seconds, each told to ``counted`` (by bucket);
    ``/health``, ``/ready`` and ``/metrics`` are never limited.

    A token no one holds (``token_holder``) is charged to its address, not to a bucket
    of its own: inventing a new token for each request buys no new bucket. An address
    past its rate of such tokens is refused before its next token is looked up in the
    store, unless the process found that token in a game lately: a real token behind
    the same address as a flood goes on."""

    def __init__(self, rate: float, counted: Callable[[str], None] | None = None) -> None:
        self.rate = rate
        self.buckets = TokenBuckets(rate)
        self.refused = TokenBuckets(rate)  # tokens no one holds, by address
        self.counted = counted

    async def refusal(self, scope: Scope) -> Response | None:
        """The 429 for a request past its rate, else None (the request is charged)."""
        token = request_token(scope)
        client = scope.get("client")
        address = "a:" + (client[0] if client else "")
        now = time.monotonic()
        if token is None:
            wait, who = self.buckets.take(address, now), "this address"
        else:
            past = self.refused.wait(address, now)
            try:
                holder = await token_holder(scope, strangers=past == 0.0)
            except StatementError:
                # the store cannot say whose the token is: its own bucket alone, and the
                # route answers the store's fault its own way (a 503, a tool's sentence)
                wait, who = self._take(token_hash(token), None, now)
            else:
                if holder is None or holder.is_no_one:
                    wait = past or self.refused.take(address, now)
                    who = "this address, with tokens no one holds,"
                else:
                    wait, who = self._take(token_hash(token), holder.game, now)
        if wait > 0.0:
            if self.counted is not None:
                self.counted(_BUCKETS[who])
            rate = f"{self.rate:g} request{'' if self.rate == 1 else 's'}"
            return problem(
                429,
                f"{who} has sent more than {rate} a second; wait as Retry-After says.",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            )
        return None

    def _take(self, hashed: str, game: str | None, now: float) -> tuple[float, str]:
        """One request from the token's bucket and its game's (if it has one), or from
        neither: the wait of the first that holds none, and whose it is."""
        wait, who = self.buckets.wait("t:" + hashed, now), "this token"
        if wait == 0.0 and game is not None:
            wait, who = self.buckets.wait("g:" + game, now), "this token's game"
        if wait == 0.0:
            self.buckets.take("t:" + hashed, now)
            if game is not None:
                self.buckets.take("g:" + game, now)
        return wait, who


# ── what one client holds open ───────────────────────────────────────────────


class Holds:
    """How many places each key holds at once (an address's connections or requests, a
    token's streams), up to ``most``. Only keys holding a place are kept, so the table
    is no bigger than what is open."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.held: dict[str, int] = {}

    def take(self, key: str) -> bool:
        """Take a place for ``key``: False, taking nothing, when it holds ``most``."""
        count = self.held.get(key, 0)
        if count >= self.most:
            return False
        self.held[key] = count + 1
        return True

    def give_back(self, key: str) -> None:
        count = self.held.pop(key) - 1
        if count:
            self.held[key] = count


def address_refusal(most: int) -> str:
    """Why a client address is refused another connection or request (429)."""
    return (
        f"this address already holds {most} connections or requests open, the most one "
        "address may at once; close one, or retry shortly."
    )


def _address_refused(most: int) -> Response:
    return problem(429, address_refusal(most), headers={"Retry-After": "1"})


def _streams_refused(most: int) -> Response:
    """A token's streams end only when closed: no ``Retry-After`` could say when."""
    return problem(
        429,
        f"this token already holds {most} streams open (a game's events, or /mcp), the "
        "most one token may at once; close one, then retry.",
    )


def _forwarded_client(scope: Scope) -> str | None:
    """The client address of a request that names it in ``X-Forwarded-For``: the one a
    trusted proxy reported (uvicorn put it in the scope), else the peer itself, whose
    connections the server counts (``protocol._Guarded``); None without the header."""
    for name, _ in scope["headers"]:
        if name == b"x-forwarded-for":
            client = scope.get("client")
            return client[0] if client else None
    return None


async def _holding(
    holds: Holds,
    key: str,
    refused: Callable[[int], Response],
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
) -> None:
    """``app``, holding one of ``key``'s places while it runs; ``refused(most)``, the
    app not run, when ``key`` holds all it may."""
    if not holds.take(key):
        await refused(holds.most)(scope, receive, send)
        return
    try:
        await app(scope, receive, send)
    finally:
        holds.give_back(key)


# ── the token before the body ────────────────────────────────────────────────


# (method, path with * for one segment) -> the use only the admin token may make there
_ADMIN_ONLY: dict[tuple[str, tuple[str, ...]], Use] = {
    ("POST", ("rulesets",)): Use.UPLOAD_RULESET,
    ("POST", ("games",)): Use.MAKE_GAME,
}
# a game's routes that take a body, or write without one, and its event stream and
# the MCP server's (a connection held open): they answer 401 without a token
# (access.seat_in; edge/mcp.py's GET)
_GAME_ROUTES: set[tuple[str, tuple[str, ...]]] = {
    ("GET", ("games", "*", "events")),
    ("GET", ("mcp",)),
    ("POST", ("games", "*", "checks")),
    ("POST", ("games", "*", "odds")),
    ("POST", ("games", "*", "records", "#", "after")),
    ("PUT", ("games", "*", "characters", "*")),
    ("PATCH", ("games", "*", "characters", "*", "live")),
    ("POST", ("games", "*", "characters", "*", "seat")),
    ("DELETE", ("games", "*", "characters", "*", "seat")),
}


# the streams a token holds open, each counted against its ``streams_per_token``
_STREAMS = {("games", "*", "events"), ("mcp",)}


def _stream_token(scope: Scope) -> str | None:
    """The token of a request for a stream (a GET that holds its connection open); None
    for any other request, or one without a token (its route refuses it)."""
    path = scope["path"]
    if scope["method"] == "OPTIONS" or not (path == "/mcp" or path.endswith("/events")):
        return None
    return request_token(scope) if _shape(path) in _STREAMS else None


def _shape(path: str) -> tuple[str, ...]:
    """The path with its game, character and record in it as ``*`` (``#``: digits)."""
    parts = path.split("/")[1:]
    if len(parts) >= 2 and parts[0] == "games":
        parts[1] = "*"
        if len(parts) >= 4 and parts[2] == "characters":
            parts[3] = "*"
        elif len(parts) >= 4 and parts[2] == "records" and parts[3].isdigit():
            parts[3] = "#"
    return tuple(parts)


async def token_refusal(scope: Scope) -> Refusal | None:
    """Before reading a byte of the body, the refusal of a request to a route that needs
    a token and sent none, to an admin-only route with a token that is not the admin's,
    or to a game's route with a token no one holds (``token_holder``): the same problem
    documents the routes give, without waiting for (and holding) a body that would be
    thrown away. Whether a token that is someone's holds a seat in that game is still
    the route's to say."""
    route = (scope["method"], _shape(scope["path"]))
    action = _ADMIN_ONLY.get(route)
    if action is None and route not in _GAME_ROUTES:
        return None
    token = request_token(scope)
    if action is None:
        if token is None:
            return Unauthorized(NO_TOKEN)
        holder = await token_holder(scope)
        if holder is None or not holder.is_no_one:
            return None
        if route[1][0] == "games":  # as the route answers a token with no seat there
            return no_game(scope["path"].split("/")[2])
        return Unauthorized(NO_ONES_TOKEN)  # /mcp: the token is all that names its game
    try:
        admin_hash = await scope["app"].state.admin_hash.current()
        Access.of(token, admin_hash).require_admin(action)
    except Refusal as exc:
        return exc
    return None


# ── all of them, in one layer ────────────────────────────────────────────────


class Guard:
    """Every guard of the service as one ASGI layer, outside FastAPI's own (its error
    pages included), in this order: the security headers on every answer, a request
    cut short (503), the request rate (429), the requests in flight of the client
    address a trusted proxy named (429), the token before the body (401, 403), a path
    that is not UTF-8 (422: ``deps.path_refusal``, once for every route), a token's
    streams (429), the body read within its limits (408, 413). Then a plain check goes
    to the fast lane (``lane.CheckLane``), and every other request to ``app``,
    FastAPI's stack, with its body replayed.

    One layer, not six: each was a call, and a wrapper of ``send``, on every request.
    An error of the guard itself is answered as FastAPI's stack answers one: by the
    app's handler of its class (the store, read for whose a token is, failing: 503 and
    one log line, ``problems.answer_handled``), else by its last resort (500, logged),
    and then raised on.

    Around all of it: the request's id (``logs.REQUEST`` while it runs, its header on
    the answer), then its line on the access log and its count and time in
    ``metrics``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        rate: float,
        body_timeout: float,
        lane: CheckLane | None,
        per_address: int = 0,
        streams_per_token: int = 0,
        metrics: Metrics | None = None,
    ) -> None:
        self.app = app
        self.metrics = metrics if metrics is not None else Metrics("", enabled=False)
        counted = self.metrics.rate_limited_by if self.metrics.enabled else None
        self.rates = Rates(rate, counted) if rate > 0 else None
        self.body_timeout = body_timeout
        self.lane = lane
        self.addresses = Holds(per_address) if per_address > 0 else None
        self.streams = Holds(streams_per_token) if streams_per_token > 0 else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan" and self.lane is not None:
                try:
                    await self.app(scope, receive, send)
                finally:  # the app's life: the lane's threads end with it
                    self.lane.close()
                return
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        rid = request_id(_header(scope, b"x-request-id"))
        scope[REQUEST_ID] = rid
        told = REQUEST.set(rid)
        try:
            await self._answer(scope, receive, send, rid)
        finally:
            self._answered(scope, rid, time.perf_counter() - began)
            REQUEST.reset(told)

    def _answered(self, scope: Scope, rid: str, seconds: float) -> None:
        """The request's count and time, by its route's template, and its access line
        (with its game, never its query, headers or body: never a token)."""
        route = route_template(scope)
        status = scope.get(_STATUS, 0)
        self.metrics.answered(route, scope["method"], status, seconds)
        if ACCESS.isEnabledFor(logging.INFO):
            game = _game_of(scope, route)
            ms = round(seconds * 1000, 2)
            ACCESS.info(
                "%s %s %s %.2f ms%s",
                scope["method"],
                route,
                status,
                ms,
                "" if game is None else f" game={game}",
                extra={
                    "request_id": rid,
                    "method": scope["method"],
                    "route": route,
                    "status": status,
                    "duration_ms": ms,
                    "game": game,
                },
            )

    async def _answer(self, scope: Scope, receive: Receive, send: Send, rid: str) -> None:
        """The request answered through every guard."""
        started = False
        rates = self.rates
        echoed = (b"x-request-id", rid.encode("ascii"))

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                scope[_STATUS] = message["status"]
                _with_security_headers(message, echoed)
            await send(message)

        try:
            if rates is not None and scope["path"] not in _UNLIMITED:
                refused = await rates.refusal(scope)
                if refused is not None:
                    await refused(scope, receive, guarded_send)
                    return
            addresses = self.addresses
            address = _forwarded_client(scope) if addresses is not None else None
            if addresses is not None and address is not None:
                await _holding(
                    addresses,
                    address,
                    _address_refused,
                    self._guarded,
                    scope,
                    receive,
                    guarded_send,
                )
            else:
                await self._guarded(scope, receive, guarded_send)
        except asyncio.CancelledError:
            if started:
                raise
            await _cut_short(scope, receive, guarded_send)
        except Exception as exc:
            if started:  # from FastAPI's stack, which has answered its own
                raise
            if not await answer_handled(scope, receive, guarded_send, exc):
                await _last_resort(scope, receive, guarded_send, exc)
                raise

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = await token_refusal(scope) or path_refusal(scope)
        if refusal is not None:
            await refusal_problem(refusal)(scope, receive, send)
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            streams = self.streams
            token = _stream_token(scope) if streams is not None else None
            # the admin's token (the operator's, which may do anything already) may follow
            # more games at once than a player's few streams; whose a token is was read
            # for its rate and before its body (``token_holder`` keeps it in the scope)
            holder = await token_holder(scope) if token is not None else None
            if streams is not None and token is not None and not (holder and holder.admin):
                key = token_hash(token)
                await _holding(streams, key, _streams_refused, self.app, scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        body = await read_body(scope, receive, send, self.body_timeout)
        if body is None:  # refused, or the client is gone
            return
        lane = self.lane
        if lane is not None and await lane.answer(scope, body, receive, send):
            return
        await self.app(scope, replayed(body, receive), send)


_STATUS = "dicebound.status"  # the scope's key for the status its answer began with


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value)
    return None


def route_template(scope: Scope) -> str:
    """The template of the route that answered (``/games/{game}/checks``), never the
    path itself: a label of bounded values. A request refused before FastAPI routed it
    (a rate, a token) is matched against the app's routes here; one that matches none
    is ``unmatched``."""
    route = scope.get("route")
    if route is not None:
        return str(route.path)
    lane: str | None = scope.get(LANE_ROUTE)
    if lane is not None:
        return lane
    partial = None
    with suppress(KeyError, TypeError, AttributeError):
        for candidate in _every_route(scope["app"].router.routes):
            match, _ = candidate.matches(scope)
            if match == Match.FULL:
                return str(candidate.path)
            if match == Match.PARTIAL and partial is None:
                partial = str(candidate.path)
    return partial or "unmatched"


def _every_route(routes: Iterable[Any]) -> Iterator[Any]:
    """The app's routes, those of the routers it includes among them (FastAPI keeps an
    included router whole, as one entry: ``original_router``)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _every_route(inner.routes)
        else:
            yield route


def _game_of(scope: Scope, route: str) -> str | None:
    """The game a request was about: its path's, or its token's game when known."""
    if route.startswith("/games/{game}"):
        return str(scope["path"].split("/")[2])
    holder: Holder | None = scope.get(_HOLDER)
    return holder.game if holder is not None else None


async def _cut_short(scope: Scope, receive: Receive, send: Send) -> None:
    """A request cut short before it answered (uvicorn cancels what is still running
    when the graceful shutdown's time is up) answers 503 with a sentence, logged in one
    line, instead of uvicorn's plain-text 500 and a traceback. Its transaction never
    committed unless its thread finished first, and then a retry with the same
    Idempotency-Key answers what it did, paying nothing twice."""
    log.error("request cut short: %s %s", scope["method"], scope["path"])
    response = problem(
        503,
        "the service stopped before this request was done; retry it (a check "
        "retried with the same Idempotency-Key is never paid twice).",
        title="Unavailable",
        headers={"Connection": "close"},
    )
    await response(scope, receive, send)


async def _last_resort(scope: Scope, receive: Receive, send: Send, exc: Exception) -> None:
    """What FastAPI's ``ServerErrorMiddleware`` answers an error no handler takes: the
    app's handler of ``Exception`` (``problems.install_handlers``: 500, logged)."""
    handlers = scope["app"].exception_handlers
    handler = handlers.get(Exception) or handlers.get(500)
    response = await handler(Request(scope, receive), exc)
    await response(scope, receive, send)
