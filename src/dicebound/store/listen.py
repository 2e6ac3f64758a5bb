"""The one connection per process that LISTENs for events on PostgreSQL.

A transaction that wrote a game's events sends ``NOTIFY dicebound_events, 'game:id'``
(``Repo.announce``); PostgreSQL delivers it at commit to every connection listening,
in commit order, and never for a rollback. ``listen`` keeps one such connection (not
one of the pool's: it stays in LISTEN for the process's life) and hands each note's
text to ``on_note``. The note is only a wake-up: whoever is woken reads the events
table, so a note lost while the connection was down costs nothing but time. After
each (re)connection ``on_note(None)`` says "anything may have happened": read again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import psycopg

from dicebound.store.db import EVENTS_CHANNEL, Store, reason_of

__all__ = ["connect_arguments", "listen"]

log = logging.getLogger("dicebound.events")

_FIRST_WAIT = 0.25  # seconds before connecting again after a failure, doubled each time
_LONGEST_WAIT = 5.0


def connect_arguments(store: Store) -> dict[str, Any]:
    """psycopg's arguments for the store's own database, as SQLAlchemy would connect."""
    engine = store.engine
    _, params = engine.dialect.create_connect_args(engine.url)
    params.pop("context", None)  # SQLAlchemy's adapters, not a connection's argument
    return dict(params)


async def listen(store: Store, on_note: Callable[[str | None], None], ready: asyncio.Event) -> None:
    """LISTEN on the store's database until cancelled, connecting again whenever the
    connection fails; ``ready`` is set once listening."""
    arguments = connect_arguments(store)
    wait = _FIRST_WAIT
    while True:
        try:
            connection = await psycopg.AsyncConnection.connect(autocommit=True, **arguments)
            async with connection:
                await connection.execute(f"LISTEN {EVENTS_CHANNEL}")
                wait = _FIRST_WAIT
                on_note(None)  # what was sent before this connection listened is in the table
                ready.set()
                async for note in connection.notifies():
                    on_note(note.payload)
        except (psycopg.Error, OSError) as exc:
            log.warning("listening for events: %s; trying again in %.2f s", reason_of(exc), wait)
        await asyncio.sleep(wait)
        wait = min(wait * 2, _LONGEST_WAIT)
