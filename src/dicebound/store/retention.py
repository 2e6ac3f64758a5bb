"""Retention: what the store forgets, so that it does not grow for ever with play.

Three kinds of rows are short-lived by nature, and pruned once older than their
retention (``Retention``, docs/store-operations.md "Retention"):

- a game's events (the stream's backlog, for a client that resumes): older than
  ``events_days`` (30), except each game's newest, which keeps the game's ids going on
  from where they were (a client whose last id is older than the oldest kept is told
  to reload, ``app.events.catch_up``);
- idempotency keys: older than the 24 hours a retry is answered the same
  (``LIMITS.idempotency_hours``), after which no request reads them;
- the records of refused sheet commands (a command that changed nothing): older than
  ``refused_days`` (30); their game's tallies go down with them.

The records of checks, and of sheet commands applied, are never pruned: they are the
game's history, and each replays.

``prune`` works in small batches (``batch`` rows), each its own short write
transaction: the rows to forget are found in a read transaction first (a scan holds
no writer's lock), and each write deletes only those, so a check waits at most for
one batch's DELETE. It is run by ``dicebound db prune`` and, in a serving process,
every ``DICEBOUND_PRUNE_EVERY`` minutes (``edge/http/pruning.py``). ``now`` is given,
never read here.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, Text, bindparam, delete, func, select, tuple_, type_coerce, update

from dicebound.errors import UsageError
from dicebound.store.db import Store
from dicebound.store.models import EventRow, RecordRow, TallyRow
from dicebound.store.repo import Repo
from dicebound.values import frozen

__all__ = ["KEYS_HOURS", "Pruned", "Retention", "prune"]

KEYS_HOURS = 24
"""How long an idempotency key answers a retry the same (``LIMITS.idempotency_hours``)."""

_EVENTS = cast(Table, EventRow.__table__)
_RECORDS = cast(Table, RecordRow.__table__)
_TALLIES = cast(Table, TallyRow.__table__)

_NEWER = _EVENTS.alias("newer")
_GAMES_NEWEST = (
    select(func.max(_NEWER.c.id)).where(_NEWER.c.game_id == _EVENTS.c.game_id).scalar_subquery()
)
_OLD_EVENTS = (
    select(_EVENTS.c.game_id, _EVENTS.c.id)
    .where(_EVENTS.c.created < bindparam("cutoff"), _EVENTS.c.id < _GAMES_NEWEST)
    .order_by(_EVENTS.c.created)
    .limit(bindparam("most"))
)
_FORGET_EVENTS = delete(_EVENTS).where(
    tuple_(_EVENTS.c.game_id, _EVENTS.c.id).in_(bindparam("rows", expanding=True))
)
# A refused command's result says "ok":false (``dumps``, no spaces); the text test finds
# the few candidates, the parsed result decides.
_REFUSED = (
    select(_RECORDS.c.id, _RECORDS.c.result)
    .where(
        _RECORDS.c.kind == "sheet",
        _RECORDS.c.created < bindparam("cutoff"),
        _RECORDS.c.id > bindparam("after"),
        type_coerce(_RECORDS.c.result, Text()).like('%"ok":false%'),
    )
    .order_by(_RECORDS.c.id)
    .limit(bindparam("most"))
)
_FORGET_RECORDS = (
    delete(_RECORDS)
    .where(_RECORDS.c.id.in_(bindparam("ids", expanding=True)), _RECORDS.c.kind == "sheet")
    .returning(_RECORDS.c.game_id, _RECORDS.c.who)
)
_LOWER_TALLY = (
    update(_TALLIES)
    .where(
        _TALLIES.c.game_id == bindparam("game"),
        _TALLIES.c.who == bindparam("name"),
        _TALLIES.c.kind == "sheet",
    )
    .values(how_many=_TALLIES.c.how_many - bindparam("n"))
)


@frozen
class Retention:
    """How long each kind of short-lived row is kept, and how many rows a batch
    deletes at most."""

    events_days: float = 30.0
    refused_days: float = 30.0
    batch: int = 500

    def __post_init__(self) -> None:
        for name in ("events_days", "refused_days"):
            if not getattr(self, name) > 0:
                raise UsageError(f"a retention of {name} must be more than 0 days.")
        if not 1 <= self.batch <= 10_000:
            raise UsageError("a prune's batch must be between 1 and 10,000 rows.")

    @staticmethod
    def from_environ(environ: Mapping[str, str]) -> Retention:
        """The retention ``DICEBOUND_KEEP_EVENTS_DAYS``, ``DICEBOUND_KEEP_REFUSED_DAYS``
        and ``DICEBOUND_PRUNE_BATCH`` say, each defaulting as ``Retention`` does."""
        given: dict[str, Any] = {}
        for variable, field, kind in (
            ("DICEBOUND_KEEP_EVENTS_DAYS", "events_days", float),
            ("DICEBOUND_KEEP_REFUSED_DAYS", "refused_days", float),
            ("DICEBOUND_PRUNE_BATCH", "batch", int),
        ):
            text = environ.get(variable, "").strip()
            if not text:
                continue
            try:
                given[field] = kind(text)
            except ValueError:
                raise UsageError(f'{variable} must be a number; it is "{text}".') from None
        return Retention(**given)


@frozen
class Pruned:
    """How many rows of each kind one ``prune`` deleted."""

    events: int
    keys: int
    refused: int

    def to_json(self) -> dict[str, int]:
        return {"events": self.events, "keys": self.keys, "refused": self.refused}


def prune(store: Store, now: datetime, retention: Retention | None = None) -> Pruned:
    """Delete what ``retention`` (default: ``Retention()``) no longer keeps, as of
    ``now``, in batches."""
    retention = retention or Retention()
    events = _prune_events(store, now - timedelta(days=retention.events_days), retention.batch)
    keys = _prune_keys(store, now - timedelta(hours=KEYS_HOURS), retention.batch)
    refused = _prune_refused(store, now - timedelta(days=retention.refused_days), retention.batch)
    return Pruned(events, keys, refused)


def _prune_events(store: Store, cutoff: datetime, most: int) -> int:
    gone = 0
    while True:
        with store.read() as session:
            rows = [
                tuple(r)
                for r in Repo(session).connection.execute(
                    _OLD_EVENTS, {"cutoff": cutoff, "most": most}
                )
            ]
        if not rows:
            return gone
        with store.write() as session:
            result = Repo(session).connection.execute(_FORGET_EVENTS, {"rows": rows})
            gone += max(result.rowcount, 0)
        if len(rows) < most:
            return gone


def _prune_keys(store: Store, cutoff: datetime, most: int) -> int:
    gone = 0
    while True:
        with store.write() as session:
            swept = Repo(session).sweep(cutoff, most)
        gone += swept
        if swept < most:
            return gone


def _prune_refused(store: Store, cutoff: datetime, most: int) -> int:
    gone, after = 0, 0
    while True:
        with store.read() as session:
            found = list(
                Repo(session).connection.execute(
                    _REFUSED, {"cutoff": cutoff, "after": after, "most": most}
                )
            )
        if not found:
            return gone
        after = max(row.id for row in found)
        ids = [row.id for row in found if _refused(row.result)]
        if ids:
            with store.write() as session:
                gone += _forget_records(Repo(session), ids)
        if len(found) < most:
            return gone


def _refused(result: Any) -> bool:
    if isinstance(result, str):
        result = json.loads(result)
    return isinstance(result, dict) and result.get("ok") is False


def _forget_records(repo: Repo, ids: Sequence[int]) -> int:
    """Delete these sheet records and lower their games' tallies by as many as went."""
    deleted = list(repo.connection.execute(_FORGET_RECORDS, {"ids": list(ids)}))
    for (game, who), n in Counter((row.game_id, row.who) for row in deleted).items():
        repo.connection.execute(_LOWER_TALLY, {"game": game, "name": who, "n": n})
    return len(deleted)
