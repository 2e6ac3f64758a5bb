"""What keeps a slow, greedy or nosy client from hurting the service (issue 23).

- ``Guards``: the numbers (timeouts, the concurrency limit, the request rate), read
  from ``dicebound serve``'s flags, else ``DICEBOUND_*`` variables, else defaults.
- ``Guard``: all of what follows, as one ASGI layer outside FastAPI's.
- security headers: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy:
  no-referrer`` on every answer, errors and files included.
- ``Rates``: a token bucket per bearer token (by its hash), or per client address
  for requests without one; past it, 429 with ``Retry-After``. In process: N service
  processes allow N times the rate.
- ``token_refusal``: a route that needs a token refuses a request without one (and an
  admin-only route a token that is not the admin's) before its body is read, so no
  one buffers a body on the service without a token; and a path that is not UTF-8
  is refused there too (``deps.path_refusal``).
- the body's limits (``problems.read_body``), and a request cut short (503).

The header timeout and the concurrency limit belong to the server, not the app:
``edge/http/protocol.py``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from dicebound.app.access import NO_TOKEN, Access, Use, token_hash
from dicebound.app.errors import Refusal, Unauthorized
from dicebound.edge.http.deps import path_refusal, request_token
from dicebound.edge.http.lane import CheckLane
from dicebound.edge.http.problems import (
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    problem,
    read_body,
    refusal_problem,
    replayed,
)
from dicebound.errors import UsageError

__all__ = [
    "SECURITY_HEADERS",
    "Guard",
    "Guards",
    "Rates",
    "TokenBuckets",
    "token_refusal",
]

log = logging.getLogger("dicebound.http")


@dataclass(frozen=True)
class Guards:
    """The service's limits. ``limit_concurrency`` and ``rate_limit`` of 0 turn them off."""

    header_timeout: float = 10.0  # seconds for a request's headers to be whole
    body_timeout: float = 30.0  # seconds for its body, once the headers are in
    limit_concurrency: int = 500  # connections and requests at once, per process
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
    "rate_limit": "a number of requests a second, 0 or more (0: no limit)",
    "shutdown_timeout": "a whole number of seconds, 0 or more",
}


_WHOLE = ("limit_concurrency", "shutdown_timeout")


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


def _with_security_headers(message: Message) -> None:
    """``SECURITY_HEADERS`` added to an answer's start, where it does not set them: the
    browser must never guess a type (an uploaded file read as HTML), and no page of the
    service leaks its address (which may name a game) to another site."""
    headers = list(message.get("headers", ()))
    present = {name.lower() for name, _ in headers}
    headers += [(k, v) for k, v in _SECURITY_RAW if k not in present]
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


_UNLIMITED = ("/health",)


class Rates:
    """Past ``rate`` requests a second for one token (or one address, without a token),
    429 with ``Retry-After`` in whole seconds; ``/health`` is never limited.

    A token that is refused (401: no one's token) is charged to its address as well,
    and an address past its rate of refused tokens is refused before its next token
    is looked at: inventing a new token for each request buys no new bucket."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.buckets = TokenBuckets(rate)
        self.refused = TokenBuckets(rate)  # 401s, by address

    def refusal(self, scope: Scope) -> tuple[Response | None, str | None]:
        """The 429 for a request past its rate, else None; and the address to charge
        if the request is answered 401 (None: it sent no token)."""
        token = request_token(scope)
        client = scope.get("client")
        address = "a:" + (client[0] if client else "")
        now = time.monotonic()
        if token is None:
            wait, who = self.buckets.take(address, now), "this address"
        else:
            wait = self.refused.wait(address, now)
            who = "this address, with tokens no one holds,"
            if wait == 0.0:
                wait, who = self.buckets.take("t:" + token_hash(token), now), "this token"
        if wait > 0.0:
            rate = f"{self.rate:g} request{'' if self.rate == 1 else 's'}"
            return problem(
                429,
                f"{who} has sent more than {rate} a second; wait as Retry-After says.",
                headers={"Retry-After": str(max(1, math.ceil(wait)))},
            ), None
        return None, None if token is None else address


# ── the token before the body ────────────────────────────────────────────────


# (method, path with * for one segment) -> the use only the admin token may make there
_ADMIN_ONLY: dict[tuple[str, tuple[str, ...]], Use] = {
    ("POST", ("rulesets",)): Use.UPLOAD_RULESET,
    ("POST", ("games",)): Use.MAKE_GAME,
}
# a game's routes that take a body, or write without one, and its event stream (a
# connection held open): they answer 401 without a token (access.seat_in)
_GAME_ROUTES: set[tuple[str, tuple[str, ...]]] = {
    ("GET", ("games", "*", "events")),
    ("POST", ("games", "*", "checks")),
    ("POST", ("games", "*", "odds")),
    ("POST", ("games", "*", "records", "#", "after")),
    ("PUT", ("games", "*", "characters", "*")),
    ("PATCH", ("games", "*", "characters", "*", "live")),
    ("POST", ("games", "*", "characters", "*", "seat")),
    ("DELETE", ("games", "*", "characters", "*", "seat")),
}


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
    a token and sent none, or to an admin-only route with a token that is not the
    admin's: the same problem documents the routes give, without waiting for (and
    holding) a body that would be thrown away. Whether a game's token belongs to that
    game is still the route's to say."""
    route = (scope["method"], _shape(scope["path"]))
    action = _ADMIN_ONLY.get(route)
    if action is None and route not in _GAME_ROUTES:
        return None
    token = request_token(scope)
    if action is None:
        return Unauthorized(NO_TOKEN) if token is None else None
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
    cut short (503), the request rate (429), the token before the body (401, 403), a
    path that is not UTF-8 (422: ``deps.path_refusal``, once for every route), the body
    read within its limits (408, 413). Then a plain check goes to the fast lane
    (``lane.CheckLane``), and every other request to ``app``, FastAPI's stack, with its
    body replayed.

    One layer, not six: each was a call, and a wrapper of ``send``, on every request.
    An error of the guard itself (the store, read for the admin token's hash) is
    answered as FastAPI's last resort answers one (500, logged), and raised on."""

    def __init__(
        self, app: ASGIApp, *, rate: float, body_timeout: float, lane: CheckLane | None
    ) -> None:
        self.app = app
        self.rates = Rates(rate) if rate > 0 else None
        self.body_timeout = body_timeout
        self.lane = lane

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
        started = False
        charged: str | None = None
        rates = self.rates

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                _with_security_headers(message)
                if charged is not None and rates is not None and message["status"] == 401:
                    rates.refused.take(charged, time.monotonic())
            await send(message)

        try:
            if rates is not None and scope["path"] not in _UNLIMITED:
                refused, charged = rates.refusal(scope)
                if refused is not None:
                    await refused(scope, receive, guarded_send)
                    return
            await self._guarded(scope, receive, guarded_send)
        except asyncio.CancelledError:
            if started:
                raise
            await _cut_short(scope, receive, guarded_send)
        except Exception as exc:
            if not started:  # not from FastAPI's stack, which has answered its own
                await _last_resort(scope, receive, guarded_send, exc)
            raise

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = await token_refusal(scope) or path_refusal(scope)
        if refusal is not None:
            await refusal_problem(refusal)(scope, receive, send)
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        body = await read_body(scope, receive, send, self.body_timeout)
        if body is None:  # refused, or the client is gone
            return
        lane = self.lane
        if lane is not None and await lane.answer(scope, body, receive, send):
            return
        await self.app(scope, replayed(body, receive), send)


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
