"""The event streams of one service process (``GET /games/{game}/events``).

A process learns that a game has new events from the store (``Store.on_events``, after
a commit of its own, with the events that commit wrote) and, on PostgreSQL, from its
one LISTEN connection (``store/listen.py``), which hears every process's commits (a
wake-up only: the note names the newest id, nothing more). Either marks the game's
``_Feed`` dirty, and the request that committed answers at once. The feed's round
follows, a few milliseconds later (so that the answer goes out first) and at most
every ``_PACE`` seconds, its rounds held to a tenth of the time when commits come
fast, and past 30 commits a second to 0.05 ms of CPU an event they carry, up to 150
ms apart (so that a burst of commits goes out together, and 200 streams cost a commit
little however loaded the machine). When what this process committed is all that is
new (its events follow the feed's newest without a gap, and reach the newest any
wake-up named) and nobody's rights can have changed (no seat's event among them, no
"anything may have changed"), the round takes those events as handed over; else it
reads the events table once for all of this process's streams of that game
(``app.events.poll``: the events after the newest it has read, and, when a seat
changed or it was told that anything may have, which tokens may still read the game).
It formats each new event's frame once, and keeps it among its recent ones.

Then it delivers, at one write per stream. A stream that has sent everything up to the
feed's newest is *live*: the feed writes the round's frames to it directly (one bytes
object, the same for every stream whose seat is shown all of them), on the connection
under the ASGI layers (uvicorn's HTTP/1.1 connection, kept by ``keep_server_send``,
framed as HTTP/1.1's chunked coding, which is all those layers would add to a piece of
the answer). No task of the stream's runs for it. A stream that is not live (it just
opened, its client reads slowly, the feed lost track of what came between two reads,
or its connection is not one it can write: HTTP/1.0, or another server) is woken and
catches up in its own task, through the ASGI ``send``: from the feed's recent frames
(those its seat is shown: ``app.events.shown``), or, when it is further behind than
they reach, from the store (``app.events.catch_up``, which says to reload when it is
further behind than the store keeps). The feed stops writing to a client whose unsent
bytes pile up past ``_BACKLOG``: it catches up at its own pace, the ``send`` waiting
for it to read. Since ids grow in commit order and every read is "after the last id I
sent", nothing is skipped, nothing sent twice, and a lost wake-up only delays: each
feed also reads every keep-alive interval, whatever it heard.

A stream ends when its token no longer reads the game (revoked, replaced, or the game
deleted: the feed's read says so, at the next wake-up or keep-alive), when its client
goes, or when the process shuts down (``EventHub.close``, which ``dicebound serve``
calls as soon as it is told to stop, so open streams never hold the shutdown up).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence

from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from uvicorn.protocols.http.h11_impl import RequestResponseCycle as H11Cycle

from dicebound.app import events as app_events
from dicebound.app.access import Access, Seat
from dicebound.app.errors import Refusal
from dicebound.edge.http.deps import AdminHash
from dicebound.edge.http.problems import ASGIApp, Receive, Scope, Send
from dicebound.errors import UsageError
from dicebound.store import Store
from dicebound.store.models import dumps
from dicebound.store.repo import Event

try:  # uvicorn's faster parser, where it is installed
    from uvicorn.protocols.http.httptools_impl import RequestResponseCycle as HttpToolsCycle
except ImportError:  # pragma: no cover - httptools is a dependency of the service
    HttpToolsCycle = None  # type: ignore[assignment,misc]

__all__ = [
    "KEEPALIVE_SECONDS",
    "EventHub",
    "EventStream",
    "keep_server_send",
    "keepalive_seconds",
    "round_hold",
]

log = logging.getLogger("dicebound.events")

KEEPALIVE_SECONDS = 15.0
_RECENT = 512  # events a feed keeps in memory for the streams that are nearly caught up
_LISTEN_READY = 5.0  # seconds the start waits for the LISTEN connection
_KEEPALIVE = b": keep-alive\n\n"
# A feed's round (a read, then its writes) starts _SETTLE seconds after its wake-up, so
# that the request whose commit woke it has answered first, and at least _PACE seconds
# after the last round started, so that a burst of commits goes out together (what
# commits meanwhile is read with it). Its CPU time is also held to 1/_SPREAD of the
# time: each round's CPU seconds, times _SPREAD, are owed before the next may start,
# less an allowance of _ALLOWANCE seconds, so that a round after a quiet while never
# waits, and commits that come fast cost the process a small share of its time however
# many streams it writes to (bench/events.py). When commits come faster than _FAST a
# second, the rounds are further held so that each costs at most _PER_EVENT seconds of
# CPU per event it carries (a round then carries several), yet never more than _HOLD
# seconds after the one before: a commit's share of the fan-out stays small, whatever
# the machine's load, and what commits is delivered within _HOLD and a round. The
# share is a quarter of the feed's own CPU for every round's other cost, the same
# again or more: the clients' reads of what it wrote (and on one machine the kernel's
# work for them), a read of the store's server (bench/events.py: at 0.2 ms, 200
# streams slowed a check on PostgreSQL by 15 to 30%; at 0.05 ms, by a few percent).
_SETTLE, _PACE, _SPREAD, _ALLOWANCE = 0.005, 0.02, 10, 0.1
_FAST, _PER_EVENT, _HOLD = 30.0, 0.00005, 0.15
_RATE_WINDOW = 0.5  # seconds over which a feed counts the events it read (a burst is held soon)
_BACKLOG = 64 * 1024  # unsent bytes past which the feed leaves a stream to catch up itself
_SERVER_SEND = "dicebound.server_send"  # the scope's key for the server's own ``send``


def keepalive_seconds(environ: Mapping[str, str]) -> float:
    """The keep-alive interval: ``DICEBOUND_KEEPALIVE`` seconds, else 15."""
    given = environ.get("DICEBOUND_KEEPALIVE", "").strip()
    if not given:
        return KEEPALIVE_SECONDS
    try:
        seconds = float(given)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < 3600:
        raise UsageError(
            f'DICEBOUND_KEEPALIVE must be a number of seconds above 0 and under an hour; it is "{given}".'
        )
    return seconds


def keep_server_send(app: ASGIApp) -> ASGIApp:
    """``app`` with the server's own ``send`` kept in each request's scope, under every
    middleware's: a live stream's frames are written past them, which only ever look
    at an answer's start (a middleware that changed bodies, compressing them, would
    have to leave the event streams alone)."""

    async def keeping(scope: Scope, receive: Receive, send: Send) -> None:
        scope[_SERVER_SEND] = send
        await app(scope, receive, send)

    return keeping


def _connection_of(scope: Scope) -> asyncio.WriteTransport | None:
    """The connection a GET's answer, its head sent, may be written to directly as
    HTTP/1.1 chunks: uvicorn's (h11's or httptools'), where it frames the answer so (an
    HTTP/1.1 client); None for any other (its frames all go through the ASGI ``send``)."""
    cycle = getattr(scope.get(_SERVER_SEND), "__self__", None)
    if scope.get("method") != "GET":
        return None
    if isinstance(cycle, H11Cycle):
        chunked = cycle.conn.their_http_version == b"1.1"
    elif HttpToolsCycle is not None and isinstance(cycle, HttpToolsCycle):
        chunked = cycle.chunked_encoding is True
    else:
        return None
    transport: asyncio.WriteTransport = cycle.transport
    return transport if chunked else None


def round_hold(counts: deque[tuple[float, int]], began: float, read: int, cpu: float) -> float:
    """The least time from a round's start (``began``, when it read ``read`` events and
    spent ``cpu`` seconds) to the next's: none while commits come slowly; when they come
    faster than ``_FAST`` a second, enough for the next round to carry ``cpu /
    _PER_EVENT`` events, up to ``_HOLD``. ``counts`` keeps the recent rounds' (start,
    events read), for the rate."""
    counts.append((began, read))
    while counts[0][0] <= began - _RATE_WINDOW:
        counts.popleft()
    rate = sum(n for _, n in counts) / _RATE_WINDOW
    if rate <= _FAST:
        return 0.0
    return min(_HOLD, cpu / (_PER_EVENT * rate))


def _frame(event_id: int, kind: str, data: str) -> bytes:
    """One event as the stream sends it (``data`` is one line: the store's JSON has no
    raw line break)."""
    return f"id: {event_id}\nevent: {kind}\ndata: {data}\n\n".encode()


def _chunk(data: bytes) -> bytes:
    """``data`` as one chunk of HTTP/1.1's chunked transfer coding: the bytes uvicorn
    writes for an answer's piece without a length."""
    return b"%x\r\n%b\r\n" % (len(data), data)


def _reload(newest: int, reason: str) -> bytes:
    return _frame(newest, "reload", dumps({"reason": reason}))


Recent = tuple[int, str | None, bytes]  # (id, the character a seat event is about, frame)


class _Feed:
    """This process's reader of one game's events, shared by its streams, and the
    writer of its live streams."""

    def __init__(self, hub: EventHub, game_id: str) -> None:
        self.hub = hub
        self.game_id = game_id
        self.streams: set[_Stream] = set()
        self.mark: int | None = None  # the newest id read (None: not read yet)
        self.floor = 0  # every event after it, up to ``mark``, is in ``recent``
        self.recent: list[Recent] = []
        self.allowed: dict[str, bool] = {}  # by token, as of the last read that asked
        self.recheck = True  # whether the next read asks again who may read the game
        self.heard = 0  # the newest id any wake-up named
        self.own: list[Event] = []  # events this process committed, not yet taken
        self.counts: deque[tuple[float, int]] = deque()  # (a round's start, events read)
        self.dirty = asyncio.Event()
        self.dirty.set()
        self.task = asyncio.create_task(self._run(), name=f"events of {game_id}")

    def wake(self, last: int | None, events: Sequence[Event] = ()) -> None:
        """Events up to ``last`` were committed (None: anything may have changed, the
        game's token or the game itself), ``events`` among them by this process: read,
        unless read or handed over."""
        if last is None:
            self.recheck = True
        else:
            self.heard = max(self.heard, last)
            if self.mark is not None and last <= self.mark:
                return
            if events and len(self.own) < _RECENT:  # past that, the store tells the rest
                self.own.extend(events)
        self.dirty.set()

    def _handed(self) -> app_events.Polled | None:
        """What this process's own commits handed over, as a read would find it, when
        they are all that is new: every id after ``mark`` up to the newest any wake-up
        named, none missing, and no need to ask who may read the game (asked, or a seat
        changed); else None (read the store)."""
        mark, own = self.mark, self.own
        self.own = []
        if self.recheck or mark is None:
            return None
        new = sorted((e for e in own if e.id > mark), key=lambda e: e.id)
        newest = new[-1].id if new else mark
        if newest < self.heard or any(
            e.id != mark + n or e.kind == "seat" for n, e in enumerate(new, start=1)
        ):
            return None
        return app_events.Polled(None, tuple(new), newest)

    def since(self, last: int, seat: Seat) -> list[bytes] | None:
        """The frames after ``last`` this feed holds that ``seat`` is shown; None when
        they do not reach back that far (the stream must read the store)."""
        if self.mark is None or last < self.floor:
            return None
        start = bisect.bisect_right(self.recent, last, key=lambda item: item[0])
        return [frame for _, about, frame in self.recent[start:] if app_events.shown(seat, about)]

    async def _run(self) -> None:
        hub = self.hub
        began = owed = -_ALLOWANCE  # owed: when the rounds so far are paid for
        hold = 0.0  # the least time between two rounds' starts, as commits come now
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(hub.keepalive):
                    await self.dirty.wait()
            if self.dirty.is_set():
                now = time.monotonic()
                wait = max(_SETTLE, began + max(_PACE, hold) - now, owed - _ALLOWANCE - now)
                await asyncio.sleep(wait)
            else:  # a keep-alive's read asks who may read the game, whatever it heard
                self.recheck = True
            began = time.monotonic()
            self.dirty.clear()
            handed = self._handed()
            if handed is not None:
                polled, cpu = handed, 0.0
            else:
                recheck, self.recheck = self.recheck, False
                try:
                    admin_hash = await hub.admin_hash.current()
                    tokens = {s.token for s in self.streams}
                    callers = {token: Access.of(token, admin_hash) for token in tokens}
                    polled, cpu = await run_in_threadpool(
                        hub.poll, self.game_id, callers, self.mark, recheck
                    )
                except Exception as exc:  # the store failed: the streams wait; try again
                    log.warning("reading the events of game %s failed: %s", self.game_id, exc)
                    self.recheck = self.recheck or recheck
                    await asyncio.sleep(min(1.0, hub.keepalive))
                    self.dirty.set()
                    continue
            cpu -= time.thread_time()
            before = self.mark
            fresh = self._take(polled)
            self._deliver(before, fresh)
            cpu += time.thread_time()
            owed = max(owed, began) + _SPREAD * cpu
            hold = round_hold(self.counts, began, len(polled.events), cpu)

    def _take(self, polled: app_events.Polled) -> list[Recent] | None:
        """Keep what a read found; the events new to ``recent``, or None when what came
        between the last read and this one is no longer known (the first read, or
        events forgotten between two reads)."""
        if polled.allowed is not None:
            self.allowed = polled.allowed
        events = polled.events
        fresh: list[Recent] | None = [
            (e.id, app_events.about(e), _frame(e.id, e.kind, e.payload)) for e in events
        ]
        if self.mark is None or (events and events[0].id != self.mark + 1):
            # what came before is the store's to tell (a stream that far behind is told
            # to reload)
            self.recent = []
            self.floor = events[0].id - 1 if events else polled.newest
            fresh = None
        self.recent.extend(fresh if fresh is not None else [])
        if len(self.recent) > 2 * _RECENT:
            self.floor = self.recent[-_RECENT - 1][0]
            self.recent = self.recent[-_RECENT:]
        self.mark = polled.newest
        return fresh

    def _deliver(self, before: int | None, fresh: list[Recent] | None) -> None:
        """Write the new frames to every live stream that had everything up to
        ``before``, its token still reading the game; wake every other stream (it
        catches up, or ends)."""
        allowed, mark = self.allowed, self.mark
        plain = b""
        if fresh and all(about is None for _, about, _ in fresh):
            plain = _chunk(b"".join(frame for _, _, frame in fresh))
        by_seat: dict[Seat, bytes] = {}
        now = time.monotonic()
        for stream in self.streams:
            transport = stream.transport
            if stream.live and transport is not None:
                if fresh is None or stream.last != before or allowed.get(stream.token) is False:
                    stream.live = False
                elif not fresh:
                    continue
                elif transport.is_closing() or transport.get_write_buffer_size() > _BACKLOG:
                    stream.live = False
                else:
                    data = plain or by_seat.get(stream.seat)
                    if data is None:
                        shown = [f for _, about, f in fresh if app_events.shown(stream.seat, about)]
                        data = by_seat[stream.seat] = _chunk(b"".join(shown)) if shown else b""
                    if data:
                        transport.write(data)
                        stream.sent_at = now
                    stream.last = mark or 0
                    continue
            stream.wake.set()


class _Stream:
    """One client's stream: what it was last sent, its connection when the feed may
    write to it directly, and a wake-up from its feed."""

    def __init__(
        self,
        hub: EventHub,
        game_id: str,
        token: str,
        seat: Seat,
        last: int,
        transport: asyncio.WriteTransport | None,
    ) -> None:
        self.hub = hub
        self.game_id = game_id
        self.token = token
        self.seat = seat
        self.last = last  # the newest event id sent, or passed over (not shown to the seat)
        self.transport = transport
        self.live = False  # the feed writes its frames (it has every one up to the feed's mark)
        self.gone = False  # its client went
        self.sent_at = time.monotonic()
        self.wake = asyncio.Event()

    async def run(self, send: Send, first: bytes) -> None:
        """Send ``first``, then follow the feed until the stream ends."""
        hub = self.hub
        feed = hub.join(self)
        try:
            if first:
                await self._send(send, first)
            while not (hub.closing or self.gone):
                self.wake.clear()
                if feed.allowed.get(self.token) is False:
                    return  # the token no longer reads the game, or the game is gone
                if not self.live and feed.mark is not None:
                    frames = feed.since(self.last, self.seat)
                    if frames is None:  # further behind than the feed reaches
                        frames = await self._from_store()
                        if frames is None:
                            return
                        if frames:
                            await self._send(send, b"".join(frames))
                            continue
                    else:
                        self.last = max(self.last, feed.mark)
                        if frames:
                            await self._send(send, b"".join(frames))
                            continue  # the feed may have read more meanwhile
                        # caught up, with no wait since: the feed writes what comes next
                        transport = self.transport
                        self.live = transport is not None and not transport.is_closing()
                idle = hub.keepalive - (time.monotonic() - self.sent_at)
                if idle <= 0:
                    await self._send(send, _KEEPALIVE)
                    continue
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(idle):
                        await self.wake.wait()
        finally:
            self.live = False
            hub.leave(self, feed)

    async def _send(self, send: Send, data: bytes) -> None:
        """A piece of the answer through the ASGI ``send`` (which waits while the
        client's unread bytes are many)."""
        await send({"type": "http.response.body", "body": data, "more_body": True})
        self.sent_at = time.monotonic()

    async def _from_store(self) -> list[bytes] | None:
        """What the store holds after ``last``, or a reload; None when the token no
        longer reads the game."""
        access = Access.of(self.token, await self.hub.admin_hash.current())
        try:
            caught = await run_in_threadpool(self.hub.catch_up, access, self.game_id, self.last)
        except Refusal:
            return None
        if caught.reload is not None:
            self.last = caught.newest
            return [_reload(caught.newest, caught.reload)]
        if caught.events:
            self.last = caught.events[-1].id
        return [_frame(e.id, e.kind, e.payload) for e in caught.events]


class EventStream(Response):
    """The answer of ``GET /games/{game}/events``: from where ``caught`` (its first
    read, made before the answer started) left it, its missed events or a reload
    first, then every event as it comes, until the stream ends."""

    media_type = "text/event-stream"

    def __init__(self, hub: EventHub, game_id: str, token: str, caught: app_events.CaughtUp):
        self.status_code = 200
        self.background = None
        self.init_headers({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
        self.hub = hub
        self.game_id = game_id
        self.token = token
        self.caught = caught

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caught = self.caught
        if caught.reload is not None:
            first = _reload(caught.newest, caught.reload)
            last = caught.newest
        else:
            first = b"".join(_frame(e.id, e.kind, e.payload) for e in caught.events)
            last = caught.events[-1].id if caught.events else caught.newest
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        connection = _connection_of(scope)  # known once the head went out
        stream = _Stream(self.hub, self.game_id, self.token, caught.seat, last, connection)
        watch = asyncio.create_task(_until_gone(receive, stream))
        try:
            await stream.run(send, first)
        finally:
            watch.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _until_gone(receive: Receive, stream: _Stream) -> None:
    """Mark ``stream`` gone (and wake it) once its client disconnects."""
    while (await receive())["type"] != "http.disconnect":
        pass
    stream.gone = True
    stream.live = False
    stream.wake.set()


class EventHub:
    """Every event stream of this process, one ``_Feed`` per game streamed."""

    def __init__(
        self,
        store: Store,
        admin_hash: AdminHash,
        keepalive: float,
        counted: Callable[[int, int], None] | None = None,
    ) -> None:
        self.store = store
        self.admin_hash = admin_hash
        self.keepalive = keepalive
        self.closing = False
        self.feeds: dict[str, _Feed] = {}
        self.streams = 0  # open now, in every feed
        self.counted = counted  # told (streams, games followed) as either changes
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unhook: Callable[[], None] | None = None
        self._listener: asyncio.Task[None] | None = None

    # ── the process's life ───────────────────────────────────────────────────

    async def start(self) -> None:
        """Hear this process's commits, and on PostgreSQL every process's (waiting a
        little for the LISTEN connection; without it, streams are still served from
        the store at each keep-alive, and it keeps trying)."""
        self._loop = asyncio.get_running_loop()
        self._unhook = self.store.on_events(self._committed)
        if self.store.is_sqlite:
            return
        from dicebound.store.listen import listen  # psycopg, PostgreSQL only

        ready = asyncio.Event()
        self._listener = asyncio.create_task(listen(self.store, self._noted, ready))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(_LISTEN_READY):
                await ready.wait()
        if not ready.is_set():
            log.warning("no LISTEN connection yet: events reach this process late")

    def close(self) -> None:
        """End every stream now (the process is stopping); new ones end at once."""
        self.closing = True
        for feed in self.feeds.values():
            for stream in feed.streams:
                stream.live = False
                stream.wake.set()

    def close_soon(self) -> None:
        """``close``, from any thread (a signal handler's)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.close)

    async def stop(self) -> None:
        """Close, stop listening, and end every feed's reader."""
        self.close()
        if self._unhook is not None:
            self._unhook()
            self._unhook = None
        tasks = [f.task for f in self.feeds.values()]
        if self._listener is not None:
            tasks.append(self._listener)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.feeds.clear()

    # ── wake-ups ─────────────────────────────────────────────────────────────

    def _committed(self, game_id: str, last: int | None, events: Sequence[Event]) -> None:
        """A write of this process committed ``events`` (called from its thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._wake, game_id, last, events)

    def _noted(self, note: str | None) -> None:
        """A NOTIFY ``game:last`` (None: the connection is new, anything may be new)."""
        if note is None:
            for feed in self.feeds.values():
                feed.wake(None)
            return
        game_id, _, last = note.rpartition(":")
        self._wake(game_id, int(last) if last.isdigit() else None)

    def _wake(self, game_id: str, last: int | None, events: Sequence[Event] = ()) -> None:
        feed = self.feeds.get(game_id)
        if feed is not None:
            feed.wake(last, events)

    # ── streams ──────────────────────────────────────────────────────────────

    def join(self, stream: _Stream) -> _Feed:
        feed = self.feeds.get(stream.game_id)
        if feed is None:
            feed = self.feeds[stream.game_id] = _Feed(self, stream.game_id)
        feed.streams.add(stream)
        self.streams += 1
        if self.counted is not None:
            self.counted(self.streams, len(self.feeds))
        return feed

    def leave(self, stream: _Stream, feed: _Feed) -> None:
        if stream in feed.streams:
            self.streams -= 1
        feed.streams.discard(stream)
        if not feed.streams and self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]
            feed.task.cancel()
        if self.counted is not None:
            self.counted(self.streams, len(self.feeds))

    # ── the store, from a worker thread ──────────────────────────────────────

    def poll(
        self, game_id: str, callers: Mapping[str, Access], after: int | None, recheck: bool
    ) -> tuple[app_events.Polled, float]:
        """A feed's read, and the CPU seconds it took this thread."""
        started = time.thread_time()
        with self.store.glance() as session:
            polled = app_events.poll(session, game_id, callers, after, recheck=recheck)
        return polled, time.thread_time() - started

    def catch_up(self, access: Access, game_id: str, after: int | None) -> app_events.CaughtUp:
        with self.store.read() as session:
            return app_events.catch_up(session, access, game_id, after)
