"""The values the repository hands back and takes: rows read as frozen values, and the
records of a text to write, with the texts a record's snapshot of a card is made of."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple

from dicebound.store.models import RawJson, RecordKind, dumps
from dicebound.values import frozen

__all__ = [
    "SHEET_KEY",
    "Game",
    "Kept",
    "Member",
    "NewCheck",
    "NewFightStep",
    "NewRecord",
    "NewSheetCommand",
    "Record",
    "RecordHead",
    "RulesetVersion",
    "Written",
    "record_kind",
    "sheet_digest",
    "snapshot_head",
    "tallies_of",
]


@frozen
class RulesetVersion:
    """One stored version of a ruleset, its file as it was given."""

    id: str
    version: int
    name: str
    kind: str
    packaged: bool
    digest: str
    content: str
    created: datetime


@frozen
class Game:
    """A game as read for one request."""

    id: str
    name: str
    ruleset_id: str
    ruleset_version: int
    layers: list[str]
    token_hash: str


@frozen
class Member:
    """A party member: the sheet and live state as the store keeps their texts (the
    keys of the loaded-character cache), and their revision."""

    name: str
    sheet: str
    live: str
    revision: int


@frozen
class Record:
    """One record as stored; ``ask`` is the tag as the model wrote it. A ``sheet``
    record's ``sheet`` is ``{"number", "party"}`` (``NewSheetCommand``)."""

    id: int
    number: int
    game_id: str
    kind: RecordKind
    created: datetime
    who: str
    ask: str
    result: dict[str, Any]
    seed: str | None
    faces: list[int] | None
    choose: str | None
    ruleset_id: str
    ruleset_version: int
    layers: list[str]
    sheet: dict[str, Any]
    answer: dict[str, Any] | None
    answer_sheet: dict[str, Any] | None


@frozen
class RecordHead:
    """What a page of the history shows of a record: not the sheets it keeps to
    replay it."""

    id: int
    number: int
    kind: RecordKind
    created: datetime
    ask: str
    result: dict[str, Any]
    seed: str | None
    ruleset_id: str
    ruleset_version: int
    answer: dict[str, Any] | None


class Written(NamedTuple):
    """A record as written: its id, global to the store, and its number within its
    game (from 1, gapless in the order its game's records were written)."""

    id: int
    number: int


@frozen
class NewCheck:
    """A check's record to write: ``sheet`` is the roller's character file as JSON
    text, spliced by the caller from the stored texts."""

    who: str
    ask: str
    result: Mapping[str, Any]
    seed: str | None
    faces: Sequence[int] | None
    choose: str | None
    sheet: str


@frozen
class NewSheetCommand:
    """A sheet command's record to write: ``number`` is its place among its text's
    sheet commands (from 1), ``party`` each card as it stood before the command, in
    party order, as JSON text spliced by the caller. It is thrown with nothing: no
    seed, faces or choice."""

    who: str
    ask: str
    result: Mapping[str, Any] | RawJson  # RawJson: as ``dumps`` writes it, spliced
    number: int
    party: Sequence[str]


@frozen
class NewFightStep:
    """A ``[fight:]`` step's record to write: ``seed`` the tag's own seed (or None and
    ``faces`` the faces it threw, when forced), ``fight`` the state as the step found it
    (JSON text, ``null`` before any fight) and ``party`` each card as it stood, in party
    order, as JSON text spliced by the caller: what replays it."""

    who: str
    ask: str
    result: Mapping[str, Any]
    seed: str | None
    faces: Sequence[int] | None
    fight: str
    party: Sequence[str]


NewRecord = NewCheck | NewSheetCommand | NewFightStep
"""Any record of a text to write."""


def record_kind(record: NewRecord) -> RecordKind:
    """The kind a new record is stored as."""
    if isinstance(record, NewCheck):
        return "check"
    return "sheet" if isinstance(record, NewSheetCommand) else "fight"


SHEET_KEY = "sheet_digest"
"""The key a record's snapshot of a card names its sheet by, in place of ``sheet``."""


@lru_cache(maxsize=256)
def sheet_digest(sheet: str) -> str:
    """The key a character's sheet text is kept under in its game (``sheet_texts``): its
    SHA-256, in hex."""
    return hashlib.sha256(sheet.encode("utf-8")).hexdigest()


def snapshot_head(name: str, sheet: str) -> str:
    """A card as a record keeps it (``NewCheck.sheet``, ``NewSheetCommand.party``), up
    to its live state: the card's text is this, the live state's, then ``}``. Its sheet
    (the stored text, kept in ``sheet_texts`` since it was put) is named by its digest,
    and read back whole with the record (``Repo.record``); a sheet ``null`` writes no
    key, as a character file without a sheet."""
    if sheet == "null":
        return f'{{"name":{dumps(name)},"live":'
    return f'{{"name":{dumps(name)},"{SHEET_KEY}":"{sheet_digest(sheet)}","live":'


@frozen
class Kept:
    """What a check with an idempotency key answered, and when."""

    digest: str
    answer: dict[str, Any]
    created: datetime


def tallies_of(records: Sequence[NewRecord]) -> dict[tuple[str, str], int]:
    """How many of a text's records each ``(who, kind)`` gains."""
    tallies: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.who, record_kind(record))
        tallies[key] = tallies.get(key, 0) + 1
    return tallies
