"""The store's answer to ``/health``: one query on a connection of the probe's own, from
the event loop, without a thread or an ORM session.

A load balancer asks ``/health`` of every process every few seconds, so it should cost
the least a request can. Through the thread pool and a session it cost a process more
than a check: the thread's hand-over alone is most of a request's time. Here SQLite
answers ``SELECT 1`` on a held connection in microseconds (a statement that reads no
table never waits for a writer), and PostgreSQL on an asyncio connection of psycopg's,
whose wait holds no thread, the query sent and its answer read on the connection's
libpq object (``_select_one``); probes that come while one is in flight wait for its
answer, so many at once cost one round trip. A probe that fails drops its connection,
so the next one connects again; each waits at most ``timeout`` seconds.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import pq
from sqlalchemy.exc import StatementError

from dicebound.store import Store
from dicebound.store.db import Fault, fault_of, reason_of
from dicebound.store.listen import connect_arguments

__all__ = ["StoreDown", "StoreProbe"]


def _retrieved(flight: asyncio.Future[None]) -> None:
    if not flight.cancelled():
        flight.exception()


async def _select_one(pgconn: pq.abc.PGconn) -> None:
    """``SELECT 1`` on an idle, non-blocking libpq connection, each wait on the event
    loop's watch of its socket. ``AsyncConnection.execute`` does the same through a
    lock, a cursor and rows made of the answer: a probe of PostgreSQL cost the server
    half as much again as one of SQLite, and this takes most of that away."""
    loop = asyncio.get_running_loop()
    socket = pgconn.socket
    pgconn.send_query(b"SELECT 1")
    while pgconn.flush():  # the query not yet all sent: wait until it can be
        await _ready(loop, socket, loop.add_writer, loop.remove_writer)
    pgconn.consume_input()
    while pgconn.is_busy():
        await _ready(loop, socket, loop.add_reader, loop.remove_reader)
        pgconn.consume_input()
    failed = None
    while (result := pgconn.get_result()) is not None:
        if result.status != pq.ExecStatus.TUPLES_OK and failed is None:
            failed = result.get_error_message() or "the store refused SELECT 1"
    if failed is not None:
        raise psycopg.OperationalError(failed)


async def _ready(
    loop: asyncio.AbstractEventLoop,
    socket: int,
    watch: Callable[..., object],
    unwatch: Callable[[int], object],
) -> None:
    """Once ``socket`` is ready, as ``watch`` (the loop's ``add_reader`` or
    ``add_writer``) tells."""
    ready = loop.create_future()
    watch(socket, _settle, ready)
    try:
        await ready
    finally:
        unwatch(socket)


def _settle(ready: asyncio.Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)


class StoreDown(Exception):
    """The store did not answer the probe: why (``Fault``), and its own words."""

    def __init__(self, fault: Fault, reason: str) -> None:
        super().__init__(reason)
        self.fault = fault
        self.reason = reason


class StoreProbe:
    """``await probe.ping()`` asks the store ``SELECT 1``; used from one event loop."""

    def __init__(self, store: Store, timeout: float = 5.0) -> None:
        self._store = store
        self._timeout = timeout
        # PostgreSQL: one question in flight at a time; who asks meanwhile waits for
        # its answer (ten probes at once cost one round trip, not ten in a row)
        self._flight: asyncio.Future[None] | None = None
        self._sqlite: Any = None  # a pooled connection, held (SQLite)
        self._pg: psycopg.AsyncConnection[Any] | None = None

    async def ping(self) -> None:
        """Return once the store has answered; raise ``StoreDown`` otherwise. A held
        connection that fails is dropped and the question asked once more on a new
        one: a connection the server closed (a restart) is not the store down."""
        if self._store.is_sqlite:
            held = self._sqlite is not None
            try:
                self._ping_sqlite()
            except StoreDown:
                if not held:
                    raise
                self._ping_sqlite()
            return
        flight = self._flight
        if flight is None or flight.done():
            flight = self._flight = asyncio.ensure_future(self._ask_pg())
            flight.add_done_callback(_retrieved)  # read, if all who asked have gone
        await asyncio.shield(flight)  # one leaving early does not stop the others' answer

    async def _ask_pg(self) -> None:
        held = self._pg is not None
        try:
            await self._ping_pg()
        except StoreDown:
            if not held:
                raise
            await self._ping_pg()

    async def _ping_pg(self) -> None:
        try:
            async with asyncio.timeout(self._timeout):
                if self._pg is None:
                    self._pg = await psycopg.AsyncConnection.connect(
                        autocommit=True, **connect_arguments(self._store)
                    )
                await _select_one(self._pg.pgconn)
        except (psycopg.Error, OSError, TimeoutError) as exc:
            await self._drop_pg()
            reason = "no answer in time" if isinstance(exc, TimeoutError) else reason_of(exc)
            raise StoreDown("busy", reason) from exc

    def _ping_sqlite(self) -> None:
        try:
            if self._sqlite is None:
                self._sqlite = self._store.engine.raw_connection()
            self._sqlite.driver_connection.execute("SELECT 1").fetchone()
        except StatementError as exc:  # connecting failed
            self._drop_sqlite()
            raise StoreDown(fault_of(exc), reason_of(exc)) from exc
        except sqlite3.Error as exc:
            self._drop_sqlite()
            full = getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
            raise StoreDown("full" if full else "busy", reason_of(exc)) from exc

    def _drop_sqlite(self) -> None:
        held, self._sqlite = self._sqlite, None
        if held is not None:
            held.invalidate()

    async def _drop_pg(self) -> None:
        held, self._pg = self._pg, None
        if held is not None:
            await held.close()

    async def close(self) -> None:
        """Give the connection back (SQLite) or close it (PostgreSQL)."""
        if self._flight is not None and not self._flight.done():
            self._flight.cancel()
        held, self._sqlite = self._sqlite, None
        if held is not None:
            held.close()
        await self._drop_pg()
