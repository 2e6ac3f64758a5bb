"""A game's events: what its stream (``GET /games/{game}/events``) sends, written in the
same transaction as the change each tells of, and read back from the store by every
process that streams them (docs/design/store-and-service.md "Events").

Writing: a use case that changed a game hands its events to ``publish`` once, at its
end, in the order they happened (a text's records in text order, then each fight
step's ``fight`` event, then each character whose live state it changed: those are
written with the records and the live states, ``Repo.write_text``). It holds the game's row lock already (every write takes it
first), so ``Repo.add_events`` numbers them after the game's newest and the ids of a
game grow in commit order. Each event's ``data`` is written then, as the routes would
answer it at that moment: a record as ``GET /games/{game}/records/{id}``, a character as
one member of ``GET /games/{game}/party``. Nothing is read back later to build it, so a
client that resumes an hour on reads what happened, not what is.

Reading: ``catch_up`` says where a stream starts (and whether the client must reload,
its last id being older than the oldest kept), and ``poll`` is the one read a process
makes for all its streams of a game when woken: who may still read it, and what is new.
A seat made or revoked is sent only to the seats that may see it (``shown``: the admin,
the game master, and the player of that character), so a player never learns of the
other players' seats.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal

from dicebound.app.access import Access, Seat, Use, may, seat_in, visible_game
from dicebound.app.errors import Invalid, Refusal
from dicebound.app.games import party_member
from dicebound.app.limits import LIMITS
from dicebound.app.plain import plain_json
from dicebound.store.models import dumps
from dicebound.store.repo import Event, Game, Member, Repo
from dicebound.values import frozen

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from dicebound.ruleset.model import Ruleset

__all__ = [
    "CaughtUp",
    "Event",
    "EventKind",
    "Item",
    "Polled",
    "about",
    "answer_item",
    "catch_up",
    "character_items",
    "counted_items",
    "last_event_id",
    "poll",
    "publish",
    "record_item",
    "seat_event",
    "shown",
]

EventKind = Literal["record", "answer", "character", "seat", "reload", "fight"]

Item = tuple[EventKind, str]
"""An event to write: its kind and its ``data`` as JSON text."""


# ── writing, in the change's own transaction ─────────────────────────────────


def publish(repo: Repo, game_id: str, items: Sequence[Item]) -> None:
    """Append a transaction's events to its game's, in order, keeping the newest
    ``LIMITS.events_kept``; every process is told once it commits. The caller holds the
    game's row lock (``visible_game(..., lock=True)``)."""
    if items:
        repo.add_events(game_id, items, datetime.now(UTC), LIMITS.events_kept)


def record_item(view: object) -> Item:
    """A record made (a check thrown, a sheet command applied or refused), as
    ``app.records`` reads it (a ``RecordView`` or a ``SheetRecordView``)."""
    return "record", plain_json(view)


def answer_item(view: object) -> Item:
    """A record as it reads after the player's answer after the roll (its
    ``RecordView``)."""
    return "answer", plain_json(view)


def character_items(repo: Repo, ruleset: Ruleset, game: Game, rows: Sequence[Member]) -> list[Item]:
    """Characters put, patched or changed by play, each as the party view reads them
    now (``rows``: their stored texts and revision as this transaction leaves them)."""
    if not rows:
        return []
    counts = repo.record_counts(game.id, [*(row.name for row in rows), "party"])
    return counted_items(ruleset, game, rows, counts)


def counted_items(
    ruleset: Ruleset, game: Game, rows: Sequence[Member], counts: Mapping[tuple[str, str], int]
) -> list[Item]:
    """``character_items`` with the game's record counts as this transaction leaves
    them given (``Repo.record_counts``), not read."""
    return [("character", plain_json(party_member(ruleset, game, row, counts))) for row in rows]


def seat_event(repo: Repo, game_id: str, character: str, made: bool) -> None:
    """A character's player seat made (``made``) or revoked, in the transaction that
    did it, under the game's row lock."""
    publish(repo, game_id, [("seat", dumps({"character": character, "made": made}))])


# ── reading, for the streams ─────────────────────────────────────────────────


def last_event_id(text: str | None) -> int | None:
    """The id a client last read (``Last-Event-ID``, or ``?after=``): a whole number,
    or None when it sent none."""
    if text is None or not text.strip():
        return None
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        raise Invalid(
            f'the last event id "{value[:40]}" is not one this service sent: an event id is '
            "a whole number, 0 or more."
        )
    return int(value)


def about(event: Event) -> str | None:
    """The character a ``seat`` event is about; None for every other kind (every seat
    is sent those)."""
    if event.kind != "seat":
        return None
    character: str = json.loads(event.payload)["character"]
    return character


def shown(seat: Seat, character: str | None) -> bool:
    """Whether a stream of ``seat`` is sent an event ``about`` ``character``: a seat
    made or revoked only where ``Use.SEE_SEAT_CHANGE`` lets that seat see it."""
    return character is None or may(seat, Use.SEE_SEAT_CHANGE, character)


@frozen
class CaughtUp:
    """Where a stream stands after reading the store: the events after the client's
    last (oldest first) that its seat is shown, or why it must reload instead; the
    game's newest id; and the seat the stream's token holds (it never changes: a seat
    replaced or revoked is a token that no longer reads the game)."""

    events: tuple[Event, ...]
    reload: str | None
    newest: int
    seat: Seat


def catch_up(session: Session, access: Access, game_id: str, after: int | None) -> CaughtUp:
    """What a client that last read event ``after`` (None: none, it starts now) is
    owed: every kept event after it, or a reload when events after it are no longer
    kept, or when it names an event this game never had. Refused as any read of the
    game is (a token that is not one of its seats)."""
    repo = Repo(session)
    seated = seat_in(repo, access, game_id)
    game, seat = seated.allow(Use.FOLLOW_EVENTS), seated.seat
    span = repo.event_span(game.id)
    oldest, newest = span if span is not None else (None, 0)
    if after is None:
        return CaughtUp((), None, newest, seat)
    if after > newest:
        reason = (
            f"event {after} is newer than this game's newest ({newest}): reload the game, "
            "then read on from here."
        )
        return CaughtUp((), reason, newest, seat)
    if oldest is not None and after < oldest - 1:
        reason = (
            f"the events after {after} are no longer kept (the oldest kept is {oldest}): "
            "reload the game, then read on from here."
        )
        return CaughtUp((), reason, newest, seat)
    kept = repo.events_after(game.id, after, LIMITS.events_kept)
    return CaughtUp(tuple(e for e in kept if shown(seat, about(e))), None, newest, seat)


@frozen
class Polled:
    """One read for every stream of a game in a process: which callers (by key) may
    still read the game (None: not asked), and the events after the one asked (oldest
    first)."""

    allowed: dict[str, bool] | None
    events: tuple[Event, ...]
    newest: int


def poll(
    session: Session,
    game_id: str,
    callers: Mapping[str, Access],
    after: int | None,
    *,
    recheck: bool = True,
) -> Polled:
    """The game's events after ``after`` (None: none, only the newest id), and whether
    each caller may still read the game (its token revoked, or the game deleted: no):
    asked when ``recheck``, and whenever a seat was made or revoked after ``after`` (a
    seat made again replaces its player's token), the one event that takes a token's
    rights away. Whoever replaces a game's token or deletes the game announces it
    without an event (``Repo.announce(game, None)``), for the caller to ``recheck``."""
    repo = Repo(session)
    if after is None:
        span = repo.event_span(game_id)
        events: tuple[Event, ...] = ()
        newest = span[1] if span is not None else 0
    else:
        events = tuple(repo.events_after(game_id, after, LIMITS.events_kept))
        newest = events[-1].id if events else after
    allowed = None
    if recheck or after is None or any(e.kind == "seat" for e in events):
        allowed = {key: _may_read(repo, access, game_id) for key, access in callers.items()}
    return Polled(allowed, events, newest)


def _may_read(repo: Repo, access: Access, game_id: str) -> bool:
    try:
        visible_game(repo, access, game_id, Use.FOLLOW_EVENTS)
    except Refusal:
        return False
    return True
