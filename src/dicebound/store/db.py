"""Opening a store: the database URL, migrations, and one transaction at a time.

SQLite (the default, a file beside the service) and PostgreSQL run the same code:

- SQLite writes open with ``BEGIN IMMEDIATE``, so two writers never interleave (the
  second waits for the first, up to the busy timeout); reads open a plain deferred
  transaction. Within one process the writers also queue for their turn, first come
  first served, before asking SQLite: SQLite's own busy wait sleeps and retries, so
  under load an unlucky writer could lose the race again and again for seconds. The
  file is in WAL mode with ``synchronous=FULL``: a transaction that answered is on
  disk even if the process is killed the next instant.
- SQLite commits for several writers at once, as PostgreSQL does: a writer that finds
  others queued behind it leaves its work in the open transaction (each writer after
  the first in a savepoint of its own, so a failure undoes only its own work), and
  the writer that finds none queued commits it for all; each answers only once that
  commit is on disk. One fsync then serves many writers, where each would otherwise
  wait for the fsyncs of all those before it.
- PostgreSQL runs at READ COMMITTED; the service locks the rows a write changes
  (``SELECT ... FOR UPDATE``), so any number of processes may share one database.

Alembic migrates the schema on open, under a lock (PostgreSQL: an advisory lock;
SQLite: the immediate transaction), so processes starting together migrate once. A
store stamped by a newer dicebound is refused with a sentence, never touched.

A transaction that wrote events (``Repo.add_events``) says so when it commits: on
PostgreSQL by ``NOTIFY dicebound_events`` (sent by the database at commit, to every
process), and in this process by calling the store's listeners (``Store.on_events``)
once the commit is on disk, never before and never for a rollback: with the events
themselves, as written, so that this process need not read back what it wrote.

Errors never carry a statement's parameters (``hide_parameters``): they hold what
clients sent and whole ruleset files, which have no place in a log.
"""

from __future__ import annotations

import copy
import logging
import os
import select
import sqlite3
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import Connection, NestedTransaction, make_url
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    DisconnectionError,
    OperationalError,
    StatementError,
)
from sqlalchemy.orm import Session

from dicebound.errors import DiceboundError
from dicebound.values import frozen

__all__ = [
    "CONNECTION",
    "DEFAULT_URL",
    "EVENTS_CHANNEL",
    "EVENTS_TOLD",
    "Event",
    "Fault",
    "Store",
    "StoreError",
    "fault_of",
    "open_store",
    "reason_of",
    "store_url",
]

DEFAULT_URL = "sqlite:///dicebound.db"
_MIGRATION_LOCK = 0x0D1CEB0D  # the PostgreSQL advisory lock held while migrating
_BUSY_MS = 30_000
_BATCH_MOST = 32  # writers one SQLite commit carries at most

EVENTS_CHANNEL = "dicebound_events"
"""The PostgreSQL channel a transaction that wrote events notifies (``game:last id``)."""
EVENTS_TOLD = "dicebound.events"
"""The key of a session's ``info`` under which ``Repo`` lists ``(game, last id, events
written)`` for the store's listeners, told after the commit."""
CONNECTION = "dicebound.connection"
"""The key of a store session's ``info`` holding the connection its transaction runs
on, begun already: ``Repo`` runs its statements there, without asking the session for
it (the ORM's bookkeeping of a transaction costs more than a check's statements)."""


@frozen
class Event:
    """One event of a game's stream: its id in the game, its kind, and its ``data`` as
    the JSON text written when it happened."""

    id: int
    kind: str
    payload: str


EventsListener = Callable[[str, int | None, Sequence[Event]], None]
"""Told ``(game, last id, events)`` after a commit: ``events`` are those the transaction
wrote for that game, oldest first, ending at ``last`` (none when it only announced)."""

log = logging.getLogger("dicebound.store")


class StoreError(DiceboundError):
    """The store cannot be opened or used: a bad URL, no server, a newer schema."""


Fault = Literal["lost", "busy", "full", "refused"]

_PG_DISK_FULL = "53100"  # disk_full: "could not extend file ... No space left on device"


def reason_of(exc: BaseException) -> str:
    """The database's own words for a failure, on one line (its first): never the
    statement or its parameters, and one log line, whatever the driver adds after."""
    orig = exc.orig if isinstance(exc, StatementError) and exc.orig is not None else exc
    lines = str(orig).strip().splitlines()
    return lines[0].strip() if lines else type(orig).__name__


def fault_of(exc: StatementError) -> Fault:
    """What a failed statement means to the caller: the connection was ``lost`` (the
    server dropped it, and the transaction with it unless it was committing), the store
    ``busy`` or unreachable, its disk ``full``, or it ``refused`` a value it cannot hold
    (a NUL in PostgreSQL text). Every edge words its refusal from this, in one place."""
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return "lost"
    orig = exc.orig
    if getattr(orig, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:  # database or disk
        return "full"
    if getattr(orig, "sqlstate", None) == _PG_DISK_FULL:
        return "full"
    if isinstance(exc, OperationalError):
        return "busy"
    return "refused"


def store_url(url: str | None) -> str:
    """The URL to open: the one given, else ``DICEBOUND_DB``, else ``./dicebound.db``.

    ``postgresql://`` and ``postgres://`` mean psycopg 3; a bare path means SQLite.
    """
    chosen = url or os.environ.get("DICEBOUND_DB") or DEFAULT_URL
    for prefix in ("postgresql://", "postgres://"):
        if chosen.startswith(prefix):
            return "postgresql+psycopg://" + chosen[len(prefix) :]
    if "://" not in chosen:
        return f"sqlite:///{chosen}"
    return chosen


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # we say BEGIN ourselves (below)
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA temp_store=MEMORY")
    cursor.close()


def _pg_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled PostgreSQL connection is handed out only if the server has said
    nothing on it while it sat idle: a server that ended the session (restarted, or
    the backend terminated) has closed its socket or sent its last word, so the socket
    reads ready. A look at the socket, where a ping is a round trip every write would
    wait for; the pool takes another connection when this one is refused."""
    try:
        ready, _, _ = select.select([dbapi_connection.pgconn.socket], [], [], 0)
    except Exception as exc:  # closed already: no socket to look at
        raise DisconnectionError(f"the connection is gone: {reason_of(exc)}") from exc
    if ready:
        raise DisconnectionError("the server closed the connection while it sat idle")


def _sqlite_begin(connection: Connection) -> None:
    """Say BEGIN on the driver's own cursor; a failure (busy past the timeout) is
    raised as SQLAlchemy raises any statement's."""
    statement = f"BEGIN {connection.get_execution_options().get('sqlite_begin', 'DEFERRED')}"
    try:
        connection.connection.dbapi_connection.execute(statement)  # type: ignore[union-attr]
    except BaseException as exc:
        connection._handle_dbapi_exception(exc, statement, (), None, None)


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", "dicebound.store:migrations")
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision this dicebound knows."""
    config = Config()
    config.set_main_option("script_location", "dicebound.store:migrations")
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


class _Turns:
    """A first-come, first-served lock: each waiter is handed the turn in order of
    arrival (a plain lock lets a thread that just let go take it again)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._busy = False
        self._waiting: deque[threading.Lock] = deque()

    def acquire(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the turn; False when it did not come."""
        with self._mutex:
            if not self._busy:
                self._busy = True
                return True
            waiter = threading.Lock()
            waiter.acquire()
            self._waiting.append(waiter)
        if waiter.acquire(timeout=timeout):
            return True  # handed over by release()
        with self._mutex:
            if waiter in self._waiting:
                self._waiting.remove(waiter)
                return False
        return True  # handed over while the wait was ending

    def release(self) -> None:
        with self._mutex:
            if self._waiting:
                self._waiting.popleft().release()  # the turn passes on; still busy
            else:
                self._busy = False

    def waiting(self) -> bool:
        """Whether anyone is queued for the turn."""
        with self._mutex:
            return bool(self._waiting)


class _Batch:
    """One SQLite transaction shared by writers queued behind each other (each in a
    savepoint); committed once, by the writer that finds no one queued behind it. Its
    connection is the store's writers' own, held from one batch to the next, and
    closed (a new one taken next time) when a batch fails."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        try:
            self.transaction = connection.begin()  # BEGIN IMMEDIATE
        except BaseException:
            connection.close()
            raise
        self.members = 0
        self.error: BaseException | None = None
        self.done = threading.Event()

    def alive(self) -> bool:
        """Whether SQLite still holds the transaction open: some errors (a full disk,
        an I/O error) make it roll back the whole transaction, not just a savepoint."""
        raw = self.connection.connection.driver_connection
        return raw is not None and bool(raw.in_transaction)

    def undo(self, savepoint: NestedTransaction | None, exc: BaseException) -> None:
        """Undo a failed writer's work: its savepoint, or the whole transaction when
        it wrote alone (``savepoint`` None). When SQLite has rolled back the whole
        transaction, the writers before it failed too: ``error`` ends the batch."""
        if savepoint is not None and self.alive():
            try:
                if savepoint.is_active:  # the session may have rolled it back itself
                    savepoint.rollback()
                return
            except Exception:  # the transaction is then given up, below
                pass
        if self.error is None:
            self.error = exc

    def finish(self) -> None:
        """Commit the members' work (or roll back when it failed), then wake them."""
        try:
            if self.error is None and self.members:
                self.transaction.commit()
            elif self.transaction.is_active:
                self.transaction.rollback()
        except Exception as exc:
            self.error = exc
        finally:
            try:
                raw = self.connection.connection.driver_connection
                if raw is not None and raw.in_transaction:
                    # a COMMIT SQLite refused (a deferred constraint) leaves the
                    # transaction open, and the next batch would begin inside it
                    raw.rollback()
                if self.error is not None:
                    self.connection.close()
            except Exception:
                self.connection.close()
                raise
            finally:
                self.done.set()


def _session(connection: Connection) -> Session:
    """A session on a connection whose transaction the store begun: ``Repo`` runs on
    the connection (``info[CONNECTION]``); the ORM, where a caller uses it, joins the
    transaction and never ends it."""
    return Session(
        connection,
        join_transaction_mode="rollback_only",
        expire_on_commit=False,
        info={CONNECTION: connection},
    )


class Store:
    """An open store: ``read()`` and ``write()`` each give one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect: Literal["sqlite", "postgresql"] = (
            "sqlite" if engine.dialect.name == "sqlite" else "postgresql"
        )
        writer = engine.execution_options(sqlite_begin="IMMEDIATE") if self.is_sqlite else engine
        self._writer = writer
        self._turns = _Turns() if self.is_sqlite else None
        self._batch: _Batch | None = None  # SQLite: the open one; only the turn touches it
        self._held: Connection | None = None  # SQLite: the writers' connection (the turn's)
        self._listeners: list[EventsListener] = []

    def on_events(self, listener: EventsListener) -> Callable[[], None]:
        """Call ``listener(game, last id, events)`` (from the writer's thread) each time a
        write of this process that wrote a game's events has committed (``events``: those
        it wrote, as the table holds them); gives the function that stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _tell(self, told: list[tuple[str, int | None, Sequence[Event]]]) -> None:
        for game, last, events in told:
            for listener in list(self._listeners):
                try:
                    listener(game, last, events)
                except Exception:  # a listener's fault is never the committed writer's
                    log.exception("an events listener failed")

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A transaction that only reads (rolled back at the end)."""
        with self.engine.connect() as connection:
            transaction = connection.begin()
            session = _session(connection)
            try:
                yield session
            finally:
                session.close()
                transaction.rollback()

    @contextmanager
    def glance(self) -> Iterator[Session]:
        """Reads outside a transaction, for a few statements that need no common
        snapshot: on PostgreSQL each sees what had committed when it began (as within a
        READ COMMITTED transaction), and none costs a BEGIN or a ROLLBACK (two of a lone
        SELECT's three trips to the server); on SQLite, ``read()``."""
        if self.is_sqlite:
            with self.read() as session:
                yield session
            return
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            session = _session(connection)
            try:
                yield session
            finally:
                session.close()

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A transaction that commits when the block ends, or leaves nothing if it raises.

        On SQLite the process's writers take turns first, and share one commit while
        they queue (see the module's docstring); a writer whose turn does not come
        within the busy timeout asks SQLite anyway, and meets its busy timeout."""
        turns = self._turns
        if turns is None or not turns.acquire(_BUSY_MS / 1000):
            with self._writer.connect() as connection, connection.begin():
                session = _session(connection)
                try:
                    yield session
                    if session.in_transaction():  # the ORM was used: flush it
                        session.commit()
                finally:
                    told = session.info.pop(EVENTS_TOLD, None)
                    session.close()
            if told:
                self._tell(told)
            return
        try:
            batch = self._batch = self._batch or _Batch(self._writer_connection())
        except BaseException:
            self._held = None
            turns.release()
            raise
        # the session flushes into the batch's transaction and never commits it; a
        # writer after the first works in a savepoint, which is all a failure undoes
        connection = batch.connection
        session = _session(connection)
        savepoint = None
        try:
            savepoint = connection.begin_nested() if batch.members else None
            yield session
            if session.in_transaction():  # the ORM was used: flush it
                session.commit()
            if savepoint is not None:
                savepoint.commit()
        except BaseException as exc:
            batch.undo(savepoint, exc)
            self._pass_turn(turns, batch)
            raise
        finally:
            told = session.info.pop(EVENTS_TOLD, None)
            session.close()
        batch.members += 1
        self._pass_turn(turns, batch)
        batch.done.wait()
        if batch.error is not None:
            raise copy.copy(batch.error) from batch.error
        if told:
            self._tell(told)

    def _writer_connection(self) -> Connection:
        """SQLite: the writers' connection, held between batches (a pool's checkout
        and check-in cost a write more than its statements); a new one after a batch
        that failed closed it."""
        held = self._held
        if held is None or held.closed or held.invalidated:
            held = self._held = self._writer.connect()
        return held

    def _pass_turn(self, turns: _Turns, batch: _Batch) -> None:
        """Leave the batch open for the writer queued next, or commit it; then the
        turn passes on."""
        if batch.error is not None or batch.members >= _BATCH_MOST or not turns.waiting():
            self._batch = None
            batch.finish()
        turns.release()

    def revision(self) -> str | None:
        with self.engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    def upgrade(self, revision: str = "head") -> None:
        """Migrate the schema to ``revision`` (the newest by default).

        Raises:
            StoreError: the store was made by a newer dicebound.
        """
        writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        with writer.connect() as connection:
            if not self.is_sqlite:
                connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _MIGRATION_LOCK})
            try:
                current = MigrationContext.configure(connection).get_current_revision()
                config = _alembic_config(connection)
                known = {s.revision for s in ScriptDirectory.from_config(config).walk_revisions()}
                if current is not None and current not in known:
                    raise StoreError(
                        f"this store's schema is at revision {current}, made by a newer "
                        f"dicebound; this one knows revisions up to {head_revision()}. "
                        "Upgrade dicebound to open it."
                    )
                command.upgrade(config, revision)
                connection.commit()
            finally:
                if not self.is_sqlite:
                    connection.execute(
                        text("SELECT pg_advisory_unlock(:k)"), {"k": _MIGRATION_LOCK}
                    )
                    connection.commit()

    def close(self) -> None:
        if self._held is not None:
            self._held.close()
            self._held = None
        self.engine.dispose()


def open_store(url: str | None = None, *, migrate: bool = True, pool_size: int = 20) -> Store:
    """Open (and by default migrate) the store at ``url`` (see ``store_url``).

    Raises:
        StoreError: a URL that names no database dicebound can use, or no server there.
    """
    chosen = store_url(url)
    try:
        parsed = make_url(chosen)
    except ArgumentError as exc:
        raise StoreError(f'"{chosen}" is not a database URL: {exc}.') from exc
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        engine = create_engine(
            parsed,
            connect_args={"timeout": _BUSY_MS / 1000, "check_same_thread": False},
            hide_parameters=True,
        )
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
    elif backend == "postgresql":
        if parsed.get_driver_name() != "psycopg":
            raise StoreError(
                f"dicebound talks to PostgreSQL through psycopg 3: write the URL as "
                f"postgresql+psycopg://..., not {parsed.drivername}://..."
            )
        engine = create_engine(
            parsed,
            pool_size=pool_size,
            max_overflow=pool_size,
            hide_parameters=True,
        )
        event.listen(engine, "checkout", _pg_checkout)
    else:
        raise StoreError(
            f"dicebound keeps its store in SQLite or PostgreSQL, not {backend} "
            "(sqlite:///path/to/file.db or postgresql+psycopg://user@host/db)."
        )
    store = Store(engine)
    if migrate:
        try:
            store.upgrade()
        except StoreError:
            engine.dispose()
            raise
        except OperationalError as exc:
            engine.dispose()
            raise StoreError(f"cannot open the store at {parsed!r}: {reason_of(exc)}") from exc
    return store
