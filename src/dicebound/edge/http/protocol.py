"""uvicorn's HTTP/1.1 protocol (h11) with the guards it lacks (issue 23).

uvicorn times out an idle kept-alive connection, but not one that sends its headers a
byte at a time, nor one that connects and sends nothing, nor one still sending a body
after its answer went out: each would hold a connection (and a place under the
concurrency limit) for ever. ``guarded_protocol`` gives uvicorn a protocol class that
closes a connection whose headers are not whole ``header_timeout`` seconds after it
opened or after the first byte of its next request, and one still sending a body the
app no longer reads ``body_timeout`` seconds after the answer. (A body the app does
read has its own timeout, in ``BodyLimit``.)

Past uvicorn's ``limit_concurrency`` the answer is a problem document in the service's
words, not uvicorn's plain text; and the 400 for a request that is not HTTP is one too.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from dicebound.edge.http.guards import SECURITY_HEADERS, Guards
from dicebound.edge.http.problems import ASGIApp, Receive, Scope, Send, problem

__all__ = ["GuardedH11Protocol", "guarded_protocol"]


class GuardedH11Protocol(H11Protocol):
    """``H11Protocol`` with a header timeout, a bound on an unread body, and the
    service's own answers past the concurrency limit and to a request that is not
    HTTP. ``guarded_protocol`` makes one with the numbers set."""

    header_timeout: float = Guards.header_timeout
    body_timeout: float = Guards.body_timeout

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._guard: asyncio.TimerHandle | None = None
        self._guarding: str | None = None  # "headers" or "body"
        limit = self.limit_concurrency
        if limit is not None:  # checked by the app below, not by uvicorn's plain 503
            self.limit_concurrency = None
            self.app = _limited(self.app, limit, self.connections, self.tasks)

    # the guard: at most one timer, for the headers or for an unread body

    def _watch(self, *, kept_alive: bool = False) -> None:
        """Arm, keep or drop the guard for the state the connection is in. Right after
        an answer (``kept_alive``) the wait for the next request is uvicorn's
        keep-alive timeout's; the header timeout starts at its first byte."""
        if self.transport.is_closing():
            self._disarm()
            return
        theirs = self.conn.their_state
        if theirs is h11.IDLE:  # waiting for a request's headers
            wanted: str | None = None if kept_alive else "headers"
        elif theirs is h11.SEND_BODY and self.cycle is not None and self.cycle.response_complete:
            wanted = "body"  # answered; the rest of the body is only thrown away
        else:
            wanted = None
        if wanted == self._guarding:
            return  # a running timer is never pushed back by more bytes
        self._disarm()
        if wanted is not None:
            seconds = self.header_timeout if wanted == "headers" else self.body_timeout
            self._guard = self.loop.call_later(seconds, self._expire)
            self._guarding = wanted

    def _disarm(self) -> None:
        if self._guard is not None:
            self._guard.cancel()
        self._guard, self._guarding = None, None

    def _expire(self) -> None:
        self._guard, self._guarding = None, None
        if not self.transport.is_closing():
            self.transport.close()

    # uvicorn's protocol, watched

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch(kept_alive=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request that is not HTTP/1.1: a problem document, then the connection closed."""
        answer = problem(400, "the request is not valid HTTP/1.1.", headers=SECURITY_HEADERS)
        headers = [*answer.raw_headers, (b"connection", b"close")]
        events = (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=bytes(answer.body)),
            h11.EndOfMessage(),
        )
        self.transport.write(b"".join(self.conn.send(event) or b"" for event in events))
        self.transport.close()


def _limited(app: ASGIApp, limit: int, connections: Any, tasks: Any) -> ASGIApp:
    """``app`` behind uvicorn's own test (connections open, or requests running, at the
    limit: this request's task is already counted), answering in the service's words."""

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (len(connections) >= limit or len(tasks) > limit):
            response = problem(
                503,
                f"the service is at its limit of {limit} connections at once; retry shortly.",
                headers={"Retry-After": "1", **SECURITY_HEADERS},
            )
            await response(scope, receive, send)
            return
        await app(scope, receive, send)

    return limited


def guarded_protocol(guards: Guards) -> type[GuardedH11Protocol]:
    """The protocol class for ``uvicorn.Config(http=...)`` with ``guards``' timeouts."""

    class Guarded(GuardedH11Protocol):
        header_timeout = guards.header_timeout
        body_timeout = guards.body_timeout

    return Guarded
