"""The game file: one game whole, as ``dicebound db export-game`` writes it and
``dicebound db import-game`` (or ``POST /games/import``) reads it into another store.

It holds what the game's rows hold, JSON columns as JSON and times as the store's
stamps: the game, every ruleset version it or its records were played with (the files
as given, so a record replays in a store that never saw them), the party with each
member's sheet and live state, the sheets the records name by digest, every record,
the newest id of the game's events (so a client following the game learns to
reload), and its fight, if it has one. Never a token: the store it is read into makes new ones. Idempotency keys
and the events themselves are left behind: both are short-lived by design.

These models are the file's one definition: the JSON Schema shipped in
``dicebound/data/game.schema.json`` is generated from them (``game_file_schema``), and
a file that does not match is refused before anything is written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

__all__ = [
    "FORMAT",
    "VERSION",
    "FileCharacter",
    "FileFight",
    "FileGame",
    "FileRecord",
    "FileRuleset",
    "FileSheetText",
    "GameFile",
    "game_file_schema",
]

FORMAT: Literal["dicebound-game"] = "dicebound-game"
VERSION: Literal[1] = 1
"""The file's version: raised when a reader of the older one could not read it whole."""


def _a_real_time(text: str) -> str:
    """The pattern lets through times no calendar holds (month 13, year 0): refused
    here, at reading, rather than when the store is written."""
    try:
        datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"{text} is not a time: {exc}") from None
    return text


Stamp = Annotated[
    str,
    Field(
        pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$",
        description="a time in UTC, to the microsecond, as the store keeps it",
    ),
    AfterValidator(_a_real_time),
]
Name = Annotated[str, Field(min_length=1, max_length=100)]
Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class FileGame(_Entry):
    """The game: its id (kept in the store it is read into), name, ruleset version and
    layers."""

    id: Annotated[str, Field(min_length=1, max_length=40)]
    name: Annotated[str, Field(min_length=1, max_length=200)]
    ruleset: Name
    version: Annotated[int, Field(ge=1)]
    layers: list[str]
    created: Stamp
    # the last number the game gave a record: the store it is read into goes on from
    # there, so no number is given twice, not even one of a record pruned before
    records_numbered: Annotated[int, Field(ge=0)]


class FileRuleset(_Entry):
    """One ruleset version, its file as it was given (``content``)."""

    id: Name
    version: Annotated[int, Field(ge=1)]
    name: Annotated[str, Field(max_length=200)]
    kind: Annotated[str, Field(max_length=40)]
    packaged: bool
    digest: Digest
    content: str
    created: Stamp


class FileCharacter(_Entry):
    """A party member: the sheet as put, the live state as play left it, and whether a
    player held its seat (a new seat token is made for it on import)."""

    name: Name
    position: Annotated[int, Field(ge=0)]
    sheet: Any
    live: dict[str, Any]
    revision: Annotated[int, Field(ge=1)]
    updated: Stamp
    seat: bool


class FileSheetText(_Entry):
    """A sheet the records name by its digest."""

    digest: Digest
    body: Any


class FileRecord(_Entry):
    """One record as stored: ``id`` is its id in the store it came from (the store it
    is read into numbers it anew, in the same order); ``ask`` the stored text of the
    tag; the rest as ``GET /games/{game}/records/{id}`` and replay read them."""

    id: Annotated[int, Field(ge=1)]
    number: Annotated[int, Field(ge=1)]  # within its game, kept as it was
    kind: Literal["check", "sheet", "fight"]
    created: Stamp
    who: Annotated[str, Field(max_length=100)]
    ask: str
    result: dict[str, Any]
    seed: str | None
    faces: list[int] | None
    choose: Annotated[str, Field(max_length=10)] | None
    ruleset: Name
    version: Annotated[int, Field(ge=1)]
    layers: list[str]
    sheet: dict[str, Any]
    answer: dict[str, Any] | None
    answer_sheet: dict[str, Any] | None


class FileFight(_Entry):
    """The game's fight: its state as the last step left it, and its revision."""

    state: dict[str, Any]
    revision: Annotated[int, Field(ge=1)]
    updated: Stamp


class GameFile(_Entry):
    """A game whole, for another store (see the module's docstring)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        frozen=True,
        title="A dicebound game file",
        json_schema_extra={"$schema": "https://json-schema.org/draft/2020-12/schema"},
    )

    format: Literal["dicebound-game"]
    version: Literal[1]
    exported: Stamp
    game: FileGame
    rulesets: list[FileRuleset]
    characters: list[FileCharacter]
    sheet_texts: list[FileSheetText]
    records: list[FileRecord]
    events_newest: Annotated[int, Field(ge=0)]
    fight: FileFight | None = None  # absent: the game never had one


def game_file_schema() -> dict[str, Any]:
    """The file's JSON Schema (draft 2020-12), as ``dicebound/data/game.schema.json``
    ships it."""
    return GameFile.model_json_schema()
