"""The serving process's own prune (``edge/http/pruning.py``): every
``DICEBOUND_PRUNE_EVERY`` minutes, with the retention of its environment; the clock
and the wait between prunes passed in, so nothing sleeps."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from dicebound.edge.http.pruning import prune_every, prune_settings, pruning
from dicebound.errors import UsageError
from dicebound.store import Store
from dicebound.store.retention import Retention
from events_support import stored_events
from transfer_support import played_game


def test_the_serving_process_prunes_every_so_often(service: TestClient, store_url: str) -> None:
    store: Store = service.app.state.store  # type: ignore[attr-defined]
    game = played_game(service, texts=1)
    held = stored_events(store_url, game.id)
    later = datetime.now(UTC) + timedelta(days=31)
    waits: list[float] = []

    async def run() -> None:
        second = asyncio.Event()

        async def wait(seconds: float) -> None:
            waits.append(seconds)
            if len(waits) == 2:  # the first prune is done: stop here
                second.set()
                await asyncio.Event().wait()

        async with pruning(store, (90.0, Retention()), clock=lambda: later, wait=wait):
            await asyncio.wait_for(second.wait(), timeout=60)

    asyncio.run(run())
    assert waits == [90.0, 90.0]
    assert stored_events(store_url, game.id) == held[-1:]


def test_how_often_is_read_from_the_environment() -> None:
    assert prune_every({}) == 3600.0
    assert prune_every({"DICEBOUND_PRUNE_EVERY": "5"}) == 300.0
    assert prune_every({"DICEBOUND_PRUNE_EVERY": "0"}) is None
    for bad in ("-1", "hourly", "nan"):
        with pytest.raises(UsageError, match="DICEBOUND_PRUNE_EVERY must be minutes"):
            prune_every({"DICEBOUND_PRUNE_EVERY": bad})
    assert prune_settings({"DICEBOUND_KEEP_EVENTS_DAYS": "3"}) == (3600.0, Retention(3.0))


def test_no_prune_runs_when_switched_off(service: TestClient, store_url: str) -> None:
    store: Store = service.app.state.store  # type: ignore[attr-defined]
    game = played_game(service, texts=1)
    held = stored_events(store_url, game.id)

    async def wait(seconds: float) -> None:  # pragma: no cover - never called
        raise AssertionError("no prune is waited for when switched off")

    async def run() -> None:
        async with pruning(store, (None, Retention()), wait=wait):
            await asyncio.sleep(0)

    asyncio.run(run())
    assert stored_events(store_url, game.id) == held
