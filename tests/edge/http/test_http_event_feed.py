"""A process's feed of a game's events (docs/design/store-and-service.md "Delivery"), on
SQLite and PostgreSQL, over a real store and a stream whose connection is a stand-in:
what this process commits reaches its live streams without the feed reading the store
back (the store hands the events over as written); what another process commits is
read (woken by PostgreSQL's note, or by the note's stand-in on SQLite, where a second
store on the same file plays the other process); and whenever the events handed over
do not follow the feed's newest without a gap, reach the newest a note named, or hold
a seat made or revoked (which can take a token's rights away), the feed reads, so that
every stream still gets every event once, in commit order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from dicebound.app import events as app_events
from dicebound.app.access import Access, GameMaster, token_hash
from dicebound.edge.http.deps import AdminHash
from dicebound.edge.http.events import EventHub, _Stream
from dicebound.store import Store, open_store
from dicebound.store.models import dumps
from dicebound.store.repo import Game, Repo

TOKEN = "dbg_" + "f" * 43
GAME = Game("feedgame", "A game", "ruleset", 1, [], token_hash(TOKEN))
NOW = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
WITHIN = 10.0  # seconds a delivery may take on a loaded machine


@dataclass
class Connection:
    """A stream's connection, as the feed writes to it: what it was sent, in order (the
    body's bytes, out of HTTP/1.1's chunks)."""

    sent: bytearray = field(default_factory=bytearray)

    def write(self, data: bytes) -> None:
        size, _, rest = data.partition(b"\r\n")
        assert rest == rest[: int(size, 16)] + b"\r\n", "one whole chunk a write"
        self.sent += rest[: int(size, 16)]

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def ids(self) -> list[int]:
        return [
            int(line[4:]) for line in self.sent.decode().splitlines() if line.startswith("id: ")
        ]


def _append(store: Store, *events: tuple[str, str]) -> None:
    """A transaction of ``store`` that writes ``events`` to the game, as a use case does
    (under the game's row lock)."""
    with store.write() as session:
        repo = Repo(session)
        repo.game(GAME.id, lock=True)
        app_events.publish(repo, GAME.id, list(events))


def _record(n: int) -> tuple[str, str]:
    return "record", dumps({"id": n, "note": f'Zoë "{n}" \\ \U0001f409'})


@dataclass
class Followed:
    hub: EventHub
    connection: Connection
    stream: _Stream
    reads: list[int | None]  # the id after which each of the feed's reads asked

    async def until(self, ids: list[int]) -> None:
        """Wait until the connection has been sent exactly ``ids`` (or fail naming what it got)."""
        for _ in range(int(WITHIN / 0.01)):
            if self.connection.ids() == ids:
                return
            await asyncio.sleep(0.01)
        assert self.connection.ids() == ids

    async def settled(self) -> None:
        """Wait long enough for any round a wake-up started to be over."""
        await asyncio.sleep(0.3)


@asynccontextmanager
async def followed(store: Store) -> AsyncIterator[Followed]:
    """A hub over ``store`` with one live stream of the game's master on a stand-in
    connection, every read of its feed counted."""
    hub = EventHub(store, AdminHash(store, None), keepalive=60.0)
    await hub.start()
    reads: list[int | None] = []
    poll: Callable[..., Any] = hub.poll

    def counted(
        game_id: str, callers: Mapping[str, Access], after: int | None, recheck: bool
    ) -> Any:
        reads.append(after)
        return poll(game_id, callers, after, recheck)

    hub.poll = counted
    connection = Connection()
    stream = _Stream(hub, GAME.id, TOKEN, GameMaster(GAME.id), 0, connection)

    async def send(message: Any) -> None:  # the ASGI send: the body, unchunked
        connection.sent += message["body"]

    task = asyncio.create_task(stream.run(send, b""))
    try:
        for _ in range(int(WITHIN / 0.01)):
            if stream.live:
                break
            await asyncio.sleep(0.01)
        assert stream.live, "the stream did not catch up"
        yield Followed(hub, connection, stream, reads)
    finally:
        await hub.stop()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


@pytest.fixture
def stores(store_url: str) -> Any:
    """This process's store and another process's, on one database with the game in it."""
    ours, theirs = open_store(store_url), open_store(store_url)
    with ours.write() as session:
        Repo(session).add_game(GAME, NOW)
    try:
        yield ours, theirs
    finally:
        ours.close()
        theirs.close()


def _noted(follow: Followed, store: Store, last: int) -> None:
    """On SQLite, the other process's note as the LISTEN connection would hand it over
    (PostgreSQL sends its own)."""
    if store.is_sqlite:
        follow.hub._noted(f"{GAME.id}:{last}")


def test_this_processs_commits_reach_its_streams_without_a_read(stores: Any) -> None:
    ours, _ = stores

    async def scenario() -> None:
        async with followed(ours) as follow:
            reads = len(follow.reads)
            for n in range(1, 6):
                _append(ours, _record(n))
                await follow.until(list(range(1, n + 1)))
            _append(ours, _record(6), _record(7))  # one commit, two events
            await follow.until(list(range(1, 8)))
            await follow.settled()
            assert len(follow.reads) == reads, "the feed read back what this process wrote"
            # the frames are the ones the store keeps
            stored = b"".join(
                f"id: {e.id}\nevent: {e.kind}\ndata: {e.payload}\n\n".encode() for e in _kept(ours)
            )
            assert bytes(follow.connection.sent) == stored

    asyncio.run(scenario())


def _kept(store: Store) -> list[app_events.Event]:
    with store.read() as session:
        return Repo(session).events_after(GAME.id, 0, 100)


def test_another_processs_commits_are_read(stores: Any) -> None:
    ours, theirs = stores

    async def scenario() -> None:
        async with followed(ours) as follow:
            reads = len(follow.reads)
            _append(theirs, _record(1))
            _noted(follow, ours, 1)
            await follow.until([1])
            assert follow.reads[reads:] == [0]
            _append(ours, _record(2))  # and this process's next follows without a read
            await follow.until([1, 2])
            await follow.settled()
            assert follow.reads[reads:] == [0]

    asyncio.run(scenario())


def test_a_gap_before_this_processs_own_events_is_read_from_the_store(stores: Any) -> None:
    ours, theirs = stores

    async def scenario() -> None:
        async with followed(ours) as follow:
            reads = len(follow.reads)
            # another process commits 1, this one 2, before the feed hears of either
            # (the loop is not run in between): 2 alone does not follow 0, so the feed reads
            _append(theirs, _record(1))
            _append(ours, _record(2))
            await follow.until([1, 2])
            assert follow.reads[reads:] == [0]

    asyncio.run(scenario())


def test_events_a_note_names_past_this_processs_own_are_read(stores: Any) -> None:
    ours, theirs = stores

    async def scenario() -> None:
        async with followed(ours) as follow:
            reads = len(follow.reads)
            _append(ours, _record(1))  # this process's 1, told with its events
            _append(theirs, _record(2))  # and another's 2, noted only
            _noted(follow, ours, 2)
            await follow.until([1, 2])
            assert follow.reads[reads:], "the note named an event the feed was not handed"
            assert follow.reads[reads] in (0, 1)

    asyncio.run(scenario())


def test_a_seat_made_or_revoked_is_read_with_who_may_read_the_game(stores: Any) -> None:
    ours, _ = stores

    async def scenario() -> None:
        async with followed(ours) as follow:
            reads = len(follow.reads)
            _append(ours, ("seat", dumps({"character": "Maud", "made": True})))
            await follow.until([1])
            assert follow.reads[reads:] == [0], "a seat's event asks who may still read"

    asyncio.run(scenario())
