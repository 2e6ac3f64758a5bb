"""The store's tables, as typed SQLAlchemy 2 models.

JSON is kept as text written by ``JsonText`` (``json.dumps``, ASCII, no spaces), so
SQLite and PostgreSQL hold byte-for-byte the same documents and key order is the
writer's. Times are fixed-width ISO 8601 text in UTC (``Timestamp``) for the same
reason, and so that comparing the texts compares the times. Both types change only
what Python sees: the columns and the bytes stored are those of the migrations.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any, Literal

from sqlalchemy import (
    BigInteger,
    Boolean,
    Dialect,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "Base",
    "CharacterRow",
    "EventRow",
    "FightRow",
    "GameRow",
    "IdempotencyRow",
    "JsonText",
    "MetaRow",
    "RawJson",
    "RecordKind",
    "RecordRow",
    "RulesetRow",
    "SeatRow",
    "SheetTextRow",
    "TallyRow",
    "Timestamp",
]


class RawJson(str):
    """JSON text already written as ``JsonText`` writes it (a record's sheet spliced
    from the stored sheet's text): stored as it is, not written again."""

    __slots__ = ()


_ENCODE = json.JSONEncoder(separators=(",", ":")).encode  # json.dumps makes one per call


def dumps(value: object) -> str:
    """JSON as the store keeps it: ASCII only, so any text a client sent (a NUL, a lone
    surrogate) is kept as an escape that every database accepts."""
    encoded: str = _ENCODE(value)
    return encoded


class JsonText(TypeDecorator[Any]):
    """A JSON document kept as text (``dumps``). Python's None is SQL NULL when the
    column may be null (``nullable=True``), else the JSON ``null``."""

    impl = Text
    cache_ok = True

    def __init__(self, nullable: bool = False) -> None:
        super().__init__()
        self.nullable = nullable

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if isinstance(value, RawJson):
            return str(value)
        if value is None and self.nullable:
            return None
        return dumps(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        return None if value is None else json.loads(value)


@lru_cache(maxsize=64)  # a text's records and events all carry its one time
def stamp(when: datetime) -> str:
    """A time as the store keeps it: fixed-width ISO 8601 in UTC, to the microsecond."""
    return when.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


class Timestamp(TypeDecorator[datetime]):
    """A time in UTC kept as ``stamp`` text (String(40)), so that comparing the texts
    compares the times."""

    impl = String
    cache_ok = True

    def __init__(self) -> None:
        super().__init__(40)

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> str | None:
        return None if value is None else stamp(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> datetime | None:
        return None if value is None else datetime.fromisoformat(value)


RecordId = BigInteger().with_variant(Integer(), "sqlite")  # SQLite autoincrements INTEGER only


class Base(DeclarativeBase):
    pass


class MetaRow(Base):
    """Settings of the store itself: the admin token's hash."""

    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class RulesetRow(Base):
    """One version of a ruleset, packaged or uploaded. Never changed once stored."""

    __tablename__ = "rulesets"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(40))
    packaged: Mapped[bool] = mapped_column(Boolean)
    digest: Mapped[str] = mapped_column(String(64))
    content: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(Timestamp())


class GameRow(Base):
    """A game, pinned to one version of a ruleset, with the layers it plays."""

    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    ruleset_id: Mapped[str] = mapped_column(String(100))
    ruleset_version: Mapped[int] = mapped_column(Integer)
    layers: Mapped[list[str]] = mapped_column(JsonText())
    token_hash: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(Timestamp())
    # the last number given to a record of this game (``RecordRow.number``), raised
    # under the game's row lock in the transaction that writes them
    records_numbered: Mapped[int] = mapped_column(BigInteger, server_default="0")


class CharacterRow(Base):
    """A party member of a game: the sheet as put, the live state as play left it."""

    __tablename__ = "characters"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    sheet: Mapped[Any] = mapped_column(JsonText())
    live: Mapped[dict[str, Any]] = mapped_column(JsonText())
    revision: Mapped[int] = mapped_column(Integer)
    updated: Mapped[datetime] = mapped_column(Timestamp())


RecordKind = Literal["check", "sheet", "fight"]
"""A check thrown, a ``[sheet:]`` command applied or refused, or a ``[fight:]`` step."""


class RecordRow(Base):
    """One resolved tag: what the answer said, and what replays it. A ``check`` keeps its
    seed (or faces), choice, answers and the roller's character file in ``sheet``; a
    ``sheet`` command keeps none of those, and in ``sheet`` its number in its text and
    the party as it stood (``{"number", "party"}``)."""

    __tablename__ = "records"
    id: Mapped[int] = mapped_column(RecordId, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(40), ForeignKey("games.id", ondelete="CASCADE"))
    # its place in its game's history, from 1, gapless as written (the id is global)
    number: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(10), server_default="check")
    created: Mapped[datetime] = mapped_column(Timestamp())
    who: Mapped[str] = mapped_column(String(100))
    ask: Mapped[str] = mapped_column(Text)
    result: Mapped[dict[str, Any]] = mapped_column(JsonText())
    seed: Mapped[str | None] = mapped_column(Text, nullable=True)
    faces: Mapped[list[int] | None] = mapped_column(JsonText(nullable=True), nullable=True)
    choose: Mapped[str | None] = mapped_column(String(10), nullable=True)
    ruleset_id: Mapped[str] = mapped_column(String(100))
    ruleset_version: Mapped[int] = mapped_column(Integer)
    layers: Mapped[list[str]] = mapped_column(JsonText())
    sheet: Mapped[dict[str, Any]] = mapped_column(JsonText())
    answer: Mapped[dict[str, Any] | None] = mapped_column(JsonText(nullable=True), nullable=True)
    answer_sheet: Mapped[dict[str, Any] | None] = mapped_column(
        JsonText(nullable=True), nullable=True
    )


class FightRow(Base):
    """A game's fight (one per game): its state as the last step left it, and a revision
    raised on every change, written under the game's row lock with the party it changed."""

    __tablename__ = "fights"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    state: Mapped[dict[str, Any]] = mapped_column(JsonText())
    revision: Mapped[int] = mapped_column(Integer)
    updated: Mapped[datetime] = mapped_column(Timestamp())


class IdempotencyRow(Base):
    """What a check with an ``Idempotency-Key`` answered, to answer a retry the same
    for 24 hours; older rows are deleted a few at a time as new keys are written."""

    __tablename__ = "idempotency"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))
    answer: Mapped[dict[str, Any]] = mapped_column(JsonText())
    created: Mapped[datetime] = mapped_column(Timestamp())


class SeatRow(Base):
    """A player's seat: the one token (kept as its hash) that plays one character of a
    game, with the rights ``app/access.py`` gives a player. It goes with its character."""

    __tablename__ = "seats"
    __table_args__ = (
        ForeignKeyConstraint(
            ["game_id", "character"],
            ["characters.game_id", "characters.name"],
            ondelete="CASCADE",
        ),
    )
    game_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    character: Mapped[str] = mapped_column(String(100), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(Timestamp())


class EventRow(Base):
    """One thing that happened in a game, as its event stream sends it: ``id`` counts
    per game in commit order (given under the game's row lock), ``payload`` is the
    ``data`` line's JSON as written then. The newest 1000 of a game are kept."""

    __tablename__ = "events"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(10))
    payload: Mapped[str] = mapped_column(Text)
    created: Mapped[datetime] = mapped_column(Timestamp())


class TallyRow(Base):
    """How many records of a kind a game holds about one name (``party`` for a sheet
    command to the whole party): raised in the transaction that writes them, so counting
    reads these few rows, never the history."""

    __tablename__ = "record_tallies"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    who: Mapped[str] = mapped_column(String(100), primary_key=True)
    kind: Mapped[str] = mapped_column(String(10), primary_key=True)
    how_many: Mapped[int] = mapped_column(BigInteger)


class SheetTextRow(Base):
    """A character's sheet as a game's records keep it: written once per game under its
    digest (``repo.sheet_digest``) when the sheet is put, and named by that digest in
    each record's snapshot of the card, where the whole sheet stood before. Never
    changed; it goes with its game."""

    __tablename__ = "sheet_texts"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    body: Mapped[str] = mapped_column(Text)


Index("records_by_game", RecordRow.game_id, RecordRow.id)
Index("records_by_number", RecordRow.game_id, RecordRow.number, unique=True)
Index("games_by_token", GameRow.token_hash)
Index("idempotency_by_created", IdempotencyRow.created)
Index("seats_by_token", SeatRow.token_hash, unique=True)
