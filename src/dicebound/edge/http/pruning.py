"""The serving process prunes its store every ``DICEBOUND_PRUNE_EVERY`` minutes (60 by
default; 0 never, for a store pruned by ``dicebound db prune`` from a timer), with the
retention its environment says (``store.retention``). Each prune runs in a thread, in
small batches, so a check waits at most for one batch; several processes on one store
each prune, and what one deletes the next finds gone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime

from dicebound.errors import UsageError
from dicebound.store.db import Store
from dicebound.store.retention import Retention, prune

__all__ = ["prune_every", "prune_settings", "pruning"]

log = logging.getLogger("dicebound.retention")

_DEFAULT_MINUTES = 60.0


def prune_every(environ: Mapping[str, str]) -> float | None:
    """Seconds between prunes (``DICEBOUND_PRUNE_EVERY``, in minutes); None: never."""
    text = environ.get("DICEBOUND_PRUNE_EVERY", "").strip()
    try:
        minutes = float(text) if text else _DEFAULT_MINUTES
    except ValueError:
        minutes = -1.0
    if not minutes >= 0:
        raise UsageError(f'DICEBOUND_PRUNE_EVERY must be minutes, 0 or more; it is "{text}".')
    return minutes * 60 if minutes > 0 else None


def prune_settings(environ: Mapping[str, str]) -> tuple[float | None, Retention]:
    """How often to prune and what to keep, read before the service starts, so that a
    bad value stops it with a sentence."""
    return prune_every(environ), Retention.from_environ(environ)


def _now() -> datetime:
    return datetime.now(UTC)


@asynccontextmanager
async def pruning(
    store: Store,
    settings: tuple[float | None, Retention],
    *,
    clock: Callable[[], datetime] = _now,
    wait: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> AsyncIterator[None]:
    """Prune ``store`` every so often while the block runs, as ``settings`` say
    (``prune_settings``; ``wait`` between, ``clock`` for the time); a prune that fails
    is logged, and the next one tried."""
    every, retention = settings
    if every is None:
        yield
        return

    async def loop() -> None:
        while True:
            await wait(every)
            try:
                pruned = await asyncio.to_thread(prune, store, clock(), retention)
            except Exception:
                log.exception("pruning the store failed; trying again in %.0f s", every)
                continue
            if pruned.events or pruned.keys or pruned.refused:
                log.info("pruned the store: %s", pruned.to_json())

    task = asyncio.create_task(loop())
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task
