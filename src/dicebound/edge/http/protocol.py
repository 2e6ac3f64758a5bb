"""uvicorn's HTTP/1.1 protocols (httptools, else h11) with the guards they lack.

uvicorn times out an idle kept-alive connection, but not one that sends its headers a
byte at a time, nor one that connects and sends nothing, nor one still sending a body
after its answer went out: each would hold a connection (and a place under the
concurrency limit) for ever. ``guarded_protocol`` gives uvicorn a protocol class that
closes a connection whose headers are not whole ``header_timeout`` seconds after it
opened or after the first byte of its next request, and one still sending a body the
app no longer reads ``body_timeout`` seconds after the answer. (A body the app does
read has its own timeout, in ``problems.read_body``.) Headers past ``HEAD_BYTES`` are
refused with 431 and the connection closed: h11 counts them itself, httptools would
gather them without end, so its class counts what arrives before the headers are whole.

Past uvicorn's ``limit_concurrency`` the answer is a problem document in the service's
words, not uvicorn's plain text; and the 400 for a request that is not HTTP is one too.

One peer address may hold ``limit_per_address`` connections at once: the next is
answered 429 as it is accepted, before a byte of it is read, and closed, so one address
never takes the whole concurrency limit. A trusted proxy's (uvicorn's
``forwarded_allow_ips``) are not counted, as it speaks for many clients: each of those
is counted by its requests in flight, once uvicorn has read its address
(``guards.Guard``).

With several workers on one port (``dicebound serve --workers``), each counts its open
connections in memory they share (``Share``): a worker holding more than its share
(one more than the even split, and one) answers ``Connection: close``, so the client
connects again and the kernel deals the new connection anew. Kept-alive clients that
all connected at once (a load balancer's pool) would otherwise stay as unevenly split
as they came, one worker busy and another idle.

The two classes keep the same guards over two parsers: httptools (C, the default: a
request costs the server a fraction of h11's time) and h11 (pure Python, chosen with
``--http h11``). Every guard is tested on both.
"""

from __future__ import annotations

import asyncio
import functools
import mmap
from abc import abstractmethod
from http import HTTPStatus
from typing import Any, Literal

import h11
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from dicebound.edge.http.guards import SECURITY_HEADERS, Guards, Holds, address_refusal
from dicebound.edge.http.problems import ASGIApp, Message, Receive, Scope, Send, problem
from dicebound.errors import UsageError

__all__ = [
    "HEAD_BYTES",
    "PARSERS",
    "GuardedH11Protocol",
    "GuardedHttpToolsProtocol",
    "Share",
    "guarded_protocol",
    "parser_named",
]

HEAD_BYTES = 16_384
"""The most a request line and its headers may take (h11's own default bound)."""

Parser = Literal["httptools", "h11"]
PARSERS: tuple[Parser, ...] = ("httptools", "h11")

Wanted = Literal["headers", "body"] | None


class Share:
    """Each worker's count of open connections, in memory the workers share (made
    before they are forked); a worker takes its place with ``join``."""

    def __init__(self, workers: int) -> None:
        self._memory = mmap.mmap(-1, 8 * workers)
        self.counts = memoryview(self._memory).cast("q")
        self.workers = workers
        self.me = -1

    def join(self, place: int) -> None:
        """This process is the worker at ``place`` (a worker started again takes the
        place of the one that ended, and none of its connections)."""
        self.me = place
        self.counts[place] = 0

    def opened(self) -> None:
        if self.me >= 0:
            self.counts[self.me] += 1

    def closed(self) -> None:
        if self.me >= 0:
            self.counts[self.me] -= 1

    def over(self) -> bool:
        """Whether this worker holds more than its share of the connections."""
        if self.me < 0:
            return False
        counts = self.counts.tolist()
        even = -(-sum(counts) // self.workers)
        return counts[self.me] > even + 1


class _Guarded(asyncio.Protocol):
    """The guard both protocols share: at most one timer, for a request's headers or
    for a body no longer read, and the answers the service gives before any app runs.
    The class using it says which the connection is waiting for (``_wanted``); it
    comes first in the class's bases, so its methods wrap uvicorn's."""

    header_timeout: float = Guards.header_timeout
    body_timeout: float = Guards.body_timeout
    share: Share | None = None
    addresses: Holds | None = None  # the connections each peer address holds (one server's)
    config: Config
    client: tuple[str, int] | None
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    _guard: asyncio.TimerHandle | None = None
    _guarding: Wanted = None
    _address: str | None = None  # the peer address this connection holds a place of

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)  # type: ignore[call-arg]
        _wrap(self)

    @abstractmethod
    def _wanted(self, kept_alive: bool) -> Wanted:
        """What the connection waits for now: each parser says, from its own state."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self.share is not None:
            self.share.opened()
        if self._admitted():
            self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.share is not None:
            self.share.closed()
        if self._address is not None and self.addresses is not None:
            self.addresses.give_back(self._address)
            self._address = None
        super().connection_lost(exc)

    def _admitted(self) -> bool:
        """Whether the peer may hold this connection: else it is answered 429 and
        closed, unread. A trusted proxy's connections are not counted."""
        addresses, client = self.addresses, self.client
        if addresses is None or client is None or self._proxy(client[0]):
            return True
        if addresses.take(client[0]):
            self._address = client[0]
            return True
        self._answer_status(429, address_refusal(addresses.most), retry_after="1")
        return False

    def _proxy(self, host: str) -> bool:
        """Whether ``host`` is a proxy uvicorn trusts to name the client it forwards."""
        app = self.config.loaded_app
        return isinstance(app, ProxyHeadersMiddleware) and host in app.trusted_hosts

    def _watch(self, *, kept_alive: bool = False) -> None:
        """Arm, keep or drop the guard for the state the connection is in. Right after
        an answer (``kept_alive``) the wait for the next request is uvicorn's
        keep-alive timeout's; the header timeout starts at its first byte."""
        if self.transport.is_closing():
            self._disarm()
            return
        wanted = self._wanted(kept_alive)
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

    def _answer_status(self, status: int, detail: str, retry_after: str | None = None) -> None:
        """Answer a problem document before any app has run, and close."""
        self._disarm()
        self.transport.write(_answer_bytes(status, detail, retry_after))
        self.transport.close()


@functools.cache
def _answer_bytes(status: int, detail: str, retry_after: str | None) -> bytes:
    """A problem document as the bytes of a whole answer, made once: a client that
    connects again and again past its address's connections costs a write each."""
    headers = (
        SECURITY_HEADERS
        if retry_after is None
        else {"Retry-After": retry_after, **SECURITY_HEADERS}
    )
    answer = problem(status, detail, headers=headers)
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}".encode("ascii")]
    lines += [name + b": " + value for name, value in answer.raw_headers]
    lines += [b"connection: close", b"", bytes(answer.body)]
    return b"\r\n".join(lines)


_NOT_HTTP = "the request is not valid HTTP/1.1."
_TOO_LONG = f"the request line and headers are over {HEAD_BYTES:,} bytes; send fewer or shorter."


class GuardedH11Protocol(_Guarded, H11Protocol):
    """``H11Protocol`` with a header timeout, a bound on an unread body, and the
    service's own answers past the concurrency limit, to headers past ``HEAD_BYTES``
    and to a request that is not HTTP. ``guarded_protocol`` makes one with the numbers
    set."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=HEAD_BYTES)

    def _wanted(self, kept_alive: bool) -> Wanted:
        theirs = self.conn.their_state
        if theirs is h11.IDLE:  # waiting for a request's headers
            return None if kept_alive else "headers"
        if theirs is h11.SEND_BODY and self.cycle is not None and self.cycle.response_complete:
            return "body"  # answered; the rest of the body is only thrown away
        return None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch(kept_alive=True)

    def send_400_response(self, msg: str) -> None:
        """h11 refused the request: too long a head (h11 gathered more than
        ``HEAD_BYTES`` without finding its end), or not HTTP/1.1 at all."""
        gathered, _ = self.conn.trailing_data
        if len(gathered) > HEAD_BYTES:
            self._answer_status(431, _TOO_LONG)
        else:
            self._answer_status(400, _NOT_HTTP)


Phase = Literal["headers", "body", "done", "idle"]


class _CloseDelimitedCycle(RequestResponseCycle):
    """An HTTP/1.0 request's answer: HTTP/1.0 has no chunks, so an answer of unknown
    length (the event stream) is sent as it comes and ended by closing the connection,
    as h11 does, where httptools' own cycle would send chunks the client cannot read."""

    unbounded = False

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start" and not self.response_started:
            names = {bytes(name).lower() for name, _ in message.get("headers", [])}
            if not names & {b"content-length", b"transfer-encoding"}:
                self.unbounded = True
                self.keep_alive = False  # "connection: close" is said, and done
                self.chunked_encoding = False
        if not self.unbounded or message["type"] != "http.response.body":
            await super().send(message)
            return
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.disconnected or self.response_complete:
            return
        body = message.get("body", b"")
        if body:
            self.transport.write(body)
        if not message.get("more_body", False):
            self.response_complete = True
            self.message_event.set()
            self.transport.close()


class GuardedHttpToolsProtocol(_Guarded, HttpToolsProtocol):
    """uvicorn's ``HttpToolsProtocol`` with the same guards as ``GuardedH11Protocol``.

    httptools says where a request stands only through its callbacks, so this class
    keeps the phase itself: ``headers`` (from the connection or a request's first byte
    to its blank line), ``body`` (until the request is whole), ``done`` (whole, the
    answer not yet out), ``idle`` (answered: waiting for the next request). Bytes that
    arrive in ``headers`` or ``idle`` and leave the headers unfinished count towards
    ``HEAD_BYTES``: a kept-alive connection's first read of a request counts from the
    next, so a head may pass the bound by at most one read before it is refused."""

    _phase: Phase = "headers"
    _head_bytes = 0

    def _wanted(self, kept_alive: bool) -> Wanted:
        phase = self._phase
        if phase == "headers" or (phase == "idle" and not kept_alive):
            return "headers"
        if phase == "body" and self.cycle is not None and self.cycle.response_complete:
            return "body"
        return None

    def data_received(self, data: bytes) -> None:
        counted = self._phase in ("headers", "idle")
        super().data_received(data)
        if self.transport.is_closing():
            self._disarm()
            return
        if self._phase in ("headers", "idle"):
            self._head_bytes = self._head_bytes + len(data) if counted else 0
            if self._head_bytes > HEAD_BYTES:
                self._answer_status(431, _TOO_LONG)
                return
        self._watch()

    # the parser's callbacks: where the request stands

    def on_message_begin(self) -> None:
        self._phase = "headers"
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        self._phase = "body"
        self._head_bytes = 0
        super().on_headers_complete()
        if self.scope["http_version"] == "1.0" and self.cycle is not None:
            self.cycle.__class__ = _CloseDelimitedCycle

    def on_message_complete(self) -> None:
        answered = self.cycle is not None and self.cycle.response_complete
        self._phase = "idle" if answered else "done"
        super().on_message_complete()

    def on_response_complete(self) -> None:
        if self._phase == "done":
            self._phase = "idle"
        super().on_response_complete()
        self._watch(kept_alive=True)

    def send_400_response(self, msg: str) -> None:
        """httptools refused the request: not HTTP/1.1."""
        self._answer_status(400, _NOT_HTTP)


def _wrap(protocol: Any) -> None:
    """Take the concurrency limit from uvicorn (its plain-text 503) to ``_limited``, and
    put the app behind ``_balanced`` where workers share the port."""
    limit = protocol.limit_concurrency
    if limit is not None:
        protocol.limit_concurrency = None
        protocol.app = _limited(protocol.app, limit, protocol.connections, protocol.tasks)
    if protocol.share is not None:
        protocol.app = _balanced(protocol.app, protocol.share)


_CLOSE = (b"connection", b"close")


def _balanced(app: ASGIApp, share: Share) -> ASGIApp:
    """``app``, answering ``Connection: close`` while this worker holds more than its
    share of the connections."""

    async def balanced(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not share.over():
            await app(scope, receive, send)
            return

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), _CLOSE]
            await send(message)

        await app(scope, receive, closing)

    return balanced


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


def parser_named(name: str, where: str = "--http") -> Parser:
    """The parser ``name`` names (from ``where``: the flag or its variable), refused
    with a sentence when it is neither."""
    for parser in PARSERS:
        if name == parser:
            return parser
    raise UsageError(f'{where} must be httptools or h11; it is "{name}".')


def guarded_protocol(
    guards: Guards, parser: Parser = "httptools", share: Share | None = None
) -> type[asyncio.Protocol]:
    """The protocol class for ``uvicorn.Config(http=...)`` with ``guards``' timeouts and
    connections per address (its own count of them: one class, one server), and the
    workers' ``share`` where several share the port."""
    base = GuardedHttpToolsProtocol if parser == "httptools" else GuardedH11Protocol
    per_address = guards.limit_per_address
    numbers = {
        "header_timeout": guards.header_timeout,
        "body_timeout": guards.body_timeout,
        "share": share,
        "addresses": Holds(per_address) if per_address > 0 else None,
    }
    return type(f"Guarded{base.__name__}", (base,), numbers)
