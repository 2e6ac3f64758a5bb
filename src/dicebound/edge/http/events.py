"""The event streams of one service process (``GET /games/{game}/events``).

Wake-ups, never content: a process learns that a game has new events from the store
(``Store.on_events``, after a commit of its own) and, on PostgreSQL, from its one
LISTEN connection (``store/listen.py``), which hears every process's commits. Either
only marks the game's ``_Feed`` dirty. The feed then reads the events table once for
all of this process's streams of that game (``app.events.poll``): whether each token
may still read the game, and the events after the newest it has read. Each stream
sends what it has not sent from the feed's recent events (those its seat is shown:
``app.events.shown``), or, when it is further
behind than they reach (it just connected, or is slow), reads the store itself
(``app.events.catch_up``). Since ids grow in commit order and every read is "after
the last id I sent", nothing is skipped, nothing sent twice, and a lost wake-up only
delays: each feed also reads every keep-alive interval, whatever it heard.

A stream ends when its token no longer reads the game (revoked, replaced, or the game
deleted: the feed's read says so, at the next wake-up or keep-alive), or when the
process shuts down (``EventHub.close``, which ``dicebound serve`` calls as soon as it
is told to stop, so open streams never hold the shutdown up).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping

from starlette.concurrency import run_in_threadpool

from dicebound.app import events as app_events
from dicebound.app.access import Access, Seat
from dicebound.app.errors import Refusal
from dicebound.edge.http.deps import AdminHash
from dicebound.errors import UsageError
from dicebound.store import Store
from dicebound.store.models import dumps

__all__ = ["KEEPALIVE_SECONDS", "EventHub", "keepalive_seconds"]

log = logging.getLogger("dicebound.events")

KEEPALIVE_SECONDS = 15.0
_RECENT = 512  # events a feed keeps in memory for the streams that are nearly caught up
_LISTEN_READY = 5.0  # seconds the start waits for the LISTEN connection
_KEEPALIVE = b": keep-alive\n\n"


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


def _frame(event_id: int, kind: str, data: str) -> bytes:
    """One event as the stream sends it (``data`` is one line: the store's JSON has no
    raw line break)."""
    return f"id: {event_id}\nevent: {kind}\ndata: {data}\n\n".encode()


def _reload(newest: int, reason: str) -> bytes:
    return _frame(newest, "reload", dumps({"reason": reason}))


class _Feed:
    """This process's reader of one game's events, shared by its streams."""

    def __init__(self, hub: EventHub, game_id: str) -> None:
        self.hub = hub
        self.game_id = game_id
        self.streams: set[_Stream] = set()
        self.mark: int | None = None  # the newest id read (None: not read yet)
        self.floor = 0  # every event after it, up to ``mark``, is in ``recent``
        self.recent: list[tuple[int, str | None, bytes]] = []  # (id, about, frame)
        self.allowed: dict[str, bool] = {}  # by token, as of the last read
        self.dirty = asyncio.Event()
        self.dirty.set()
        self.task = asyncio.create_task(self._run(), name=f"events of {game_id}")

    def wake(self, last: int | None) -> None:
        """Events up to ``last`` (None: anything) were committed: read, unless read."""
        if last is None or self.mark is None or last > self.mark:
            self.dirty.set()

    def since(self, last: int, seat: Seat) -> list[bytes] | None:
        """The frames after ``last`` this feed holds that ``seat`` is shown; None when
        they do not reach back that far (the stream must read the store)."""
        if self.mark is None or last < self.floor:
            return None
        start = bisect.bisect_right(self.recent, last, key=lambda item: item[0])
        return [frame for _, about, frame in self.recent[start:] if app_events.shown(seat, about)]

    async def _run(self) -> None:
        hub = self.hub
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(hub.keepalive):
                    await self.dirty.wait()
            self.dirty.clear()
            try:
                admin_hash = await hub.admin_hash.current()
                callers = {s.token: Access.of(s.token, admin_hash) for s in self.streams}
                polled = await run_in_threadpool(hub.poll, self.game_id, callers, self.mark)
            except Exception as exc:  # the store failed: the streams wait, and this tries again
                log.warning("reading the events of game %s failed: %s", self.game_id, exc)
                await asyncio.sleep(min(1.0, hub.keepalive))
                self.dirty.set()
                continue
            self._take(polled)
            for stream in self.streams:
                stream.wake.set()

    def _take(self, polled: app_events.Polled) -> None:
        self.allowed = polled.allowed
        events = polled.events
        if self.mark is None or (events and events[0].id != self.mark + 1):
            # the first read, or events forgotten between two reads: what came before
            # is the store's to tell (a stream that far behind is told to reload)
            self.recent = []
            self.floor = events[0].id - 1 if events else polled.newest
        self.recent.extend(
            (e.id, app_events.about(e), _frame(e.id, e.kind, e.payload)) for e in events
        )
        if len(self.recent) > 2 * _RECENT:
            self.floor = self.recent[-_RECENT - 1][0]
            self.recent = self.recent[-_RECENT:]
        self.mark = polled.newest


class _Stream:
    """One client's stream: what it was last sent, and a wake-up from its feed."""

    def __init__(self, hub: EventHub, game_id: str, token: str, seat: Seat, last: int) -> None:
        self.hub = hub
        self.game_id = game_id
        self.token = token
        self.seat = seat
        self.last = last
        self.wake = asyncio.Event()

    async def frames(self, first: bytes) -> AsyncIterator[bytes]:
        hub = self.hub
        feed = hub.join(self)
        try:
            sent_at = time.monotonic()
            if first:
                yield first
            while not hub.closing:
                self.wake.clear()
                if feed.allowed.get(self.token) is False:
                    return  # the token no longer reads the game, or the game is gone
                frames = feed.since(self.last, self.seat)
                if frames is None:
                    frames = await self._from_store()
                    if frames is None:
                        return
                else:
                    self.last = max(self.last, feed.mark or 0)
                if frames:
                    yield b"".join(frames)
                    sent_at = time.monotonic()
                idle = hub.keepalive - (time.monotonic() - sent_at)
                try:
                    async with asyncio.timeout(max(idle, 0.0)):
                        await self.wake.wait()
                except TimeoutError:
                    yield _KEEPALIVE
                    sent_at = time.monotonic()
        finally:
            hub.leave(self, feed)

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


class EventHub:
    """Every event stream of this process, one ``_Feed`` per game streamed."""

    def __init__(self, store: Store, admin_hash: AdminHash, keepalive: float) -> None:
        self.store = store
        self.admin_hash = admin_hash
        self.keepalive = keepalive
        self.closing = False
        self.feeds: dict[str, _Feed] = {}
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

    def _committed(self, game_id: str, last: int | None) -> None:
        """A write of this process committed (called from its thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._wake, game_id, last)

    def _noted(self, note: str | None) -> None:
        """A NOTIFY ``game:last`` (None: the connection is new, anything may be new)."""
        if note is None:
            for feed in self.feeds.values():
                feed.wake(None)
            return
        game_id, _, last = note.rpartition(":")
        self._wake(game_id, int(last) if last.isdigit() else None)

    def _wake(self, game_id: str, last: int | None) -> None:
        feed = self.feeds.get(game_id)
        if feed is not None:
            feed.wake(last)

    # ── streams ──────────────────────────────────────────────────────────────

    def stream(self, game_id: str, token: str, caught: app_events.CaughtUp) -> AsyncIterator[bytes]:
        """The frames of one client's stream, from where ``caught`` (its first read,
        made before the answer started) left it: its missed events or a reload first."""
        if caught.reload is not None:
            first = _reload(caught.newest, caught.reload)
            last = caught.newest
        else:
            first = b"".join(_frame(e.id, e.kind, e.payload) for e in caught.events)
            last = caught.events[-1].id if caught.events else caught.newest
        return _Stream(self, game_id, token, caught.seat, last).frames(first)

    def join(self, stream: _Stream) -> _Feed:
        feed = self.feeds.get(stream.game_id)
        if feed is None:
            feed = self.feeds[stream.game_id] = _Feed(self, stream.game_id)
        feed.streams.add(stream)
        return feed

    def leave(self, stream: _Stream, feed: _Feed) -> None:
        feed.streams.discard(stream)
        if not feed.streams and self.feeds.get(feed.game_id) is feed:
            del self.feeds[feed.game_id]
            feed.task.cancel()

    # ── the store, from a worker thread ──────────────────────────────────────

    def poll(
        self, game_id: str, callers: Mapping[str, Access], after: int | None
    ) -> app_events.Polled:
        with self.store.read() as session:
            return app_events.poll(session, game_id, callers, after)

    def catch_up(self, access: Access, game_id: str, after: int | None) -> app_events.CaughtUp:
        with self.store.read() as session:
            return app_events.catch_up(session, access, game_id, after)
