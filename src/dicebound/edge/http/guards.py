"""What keeps a slow, greedy or nosy client from hurting the service (issue 23).

- ``Guards``: the numbers (timeouts, the concurrency limit, the request rate), read
  from ``dicebound serve``'s flags, else ``DICEBOUND_*`` variables, else defaults.
- ``SecurityHeaders``: ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy:
  no-referrer`` on every answer, errors and files included.
- ``RateLimit``: a token bucket per bearer token (by its hash), or per client address
  for requests without one; past it, 429 with ``Retry-After``. In process: N service
  processes allow N times the rate.
- ``TokenFirst``: a route that needs a token refuses a request without one (and an
  admin-only route a token that is not the admin's) before its body is read, so no
  one buffers a body on the service without a token; and a path that is not UTF-8
  is refused there too (``deps.path_refusal``).

The header timeout and the concurrency limit belong to the server, not the app:
``edge/http/protocol.py``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from dicebound.app.access import NO_TOKEN, Access, Use, token_hash
from dicebound.app.errors import Refusal, Unauthorized
from dicebound.edge.http.deps import path_refusal, request_token
from dicebound.edge.http.problems import (
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    problem,
    refusal_problem,
)
from dicebound.errors import UsageError

__all__ = [
    "SECURITY_HEADERS",
    "Guards",
    "RateLimit",
    "SecurityHeaders",
    "TokenFirst",
]


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


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every answer that does not set them itself: the
    browser must never guess a type (an uploaded file read as HTML), and no page of the
    service leaks its address (which may name a game) to another site."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in _SECURITY_RAW if k not in present]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with)


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


class RateLimit:
    """Past ``rate`` requests a second for one token (or one address, without a token),
    429 with ``Retry-After`` in whole seconds; ``/health`` is never limited.

    A token that is refused (401: no one's token) is charged to its address as well,
    and an address past its rate of refused tokens is refused before its next token
    is looked at: inventing a new token for each request buys no new bucket."""

    def __init__(self, app: ASGIApp, *, rate: float) -> None:
        self.app = app
        self.rate = rate
        self.buckets = TokenBuckets(rate) if rate > 0 else None
        self.refused = TokenBuckets(rate) if rate > 0 else None  # 401s, by address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.buckets is None
            or self.refused is None
            or scope["type"] != "http"
            or scope["path"] in _UNLIMITED
        ):
            await self.app(scope, receive, send)
            return
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
            await self._refuse(scope, receive, send, who, wait)
            return
        if token is None:
            await self.app(scope, receive, send)
            return
        refused = self.refused

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                refused.take(address, time.monotonic())
            await send(message)

        await self.app(scope, receive, watched)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, who: str, wait: float
    ) -> None:
        rate = f"{self.rate:g} request{'' if self.rate == 1 else 's'}"
        response = problem(
            429,
            f"{who} has sent more than {rate} a second; wait as Retry-After says.",
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )
        await response(scope, receive, send)


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


class TokenFirst:
    """Refuses, before reading a byte of the body, a request to a route that needs a
    token and sent none, or to an admin-only route with a token that is not the
    admin's: the same problem documents the routes give, without waiting for (and
    holding) a body that would be thrown away. Whether a game's token belongs to that
    game is still the route's to say. A path that is not UTF-8 is refused here too,
    once for every route (a dependency of each would cost every request its solving)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._refusal(scope) or path_refusal(scope)
            if refusal is not None:
                await refusal_problem(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    async def _refusal(self, scope: Scope) -> Refusal | None:
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
