"""The store's tables, as typed SQLAlchemy 2 models.

JSON is kept as text the service writes itself (``json.dumps``), so SQLite and
PostgreSQL hold byte-for-byte the same documents and key order is the writer's.
Times are ISO 8601 text in UTC for the same reason.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "Base",
    "CharacterRow",
    "GameRow",
    "IdempotencyRow",
    "MetaRow",
    "RecordRow",
    "RulesetRow",
]

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
    created: Mapped[str] = mapped_column(String(40))


class GameRow(Base):
    """A game, pinned to one version of a ruleset, with the layers it plays."""

    __tablename__ = "games"
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    ruleset_id: Mapped[str] = mapped_column(String(100))
    ruleset_version: Mapped[int] = mapped_column(Integer)
    layers: Mapped[str] = mapped_column(Text)
    token_hash: Mapped[str] = mapped_column(String(64))
    created: Mapped[str] = mapped_column(String(40))


class CharacterRow(Base):
    """A party member of a game: the sheet as put, the live state as play left it."""

    __tablename__ = "characters"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(100), primary_key=True)
    position: Mapped[int] = mapped_column(Integer)
    sheet: Mapped[str] = mapped_column(Text)
    live: Mapped[str] = mapped_column(Text)
    revision: Mapped[int] = mapped_column(Integer)
    updated: Mapped[str] = mapped_column(String(40))


class RecordRow(Base):
    """One resolved check: what the answer said, and what replays it."""

    __tablename__ = "records"
    id: Mapped[int] = mapped_column(RecordId, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(40), ForeignKey("games.id", ondelete="CASCADE"))
    created: Mapped[str] = mapped_column(String(40))
    who: Mapped[str] = mapped_column(String(100))
    ask: Mapped[str] = mapped_column(Text)
    result: Mapped[str] = mapped_column(Text)
    seed: Mapped[str | None] = mapped_column(Text, nullable=True)
    faces: Mapped[str | None] = mapped_column(Text, nullable=True)
    choose: Mapped[str | None] = mapped_column(String(10), nullable=True)
    ruleset_id: Mapped[str] = mapped_column(String(100))
    ruleset_version: Mapped[int] = mapped_column(Integer)
    layers: Mapped[str] = mapped_column(Text)
    sheet: Mapped[str] = mapped_column(Text)
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)
    answer_sheet: Mapped[str | None] = mapped_column(Text, nullable=True)


class IdempotencyRow(Base):
    """What a check with an ``Idempotency-Key`` answered, to answer a retry the same
    for 24 hours; older rows are deleted a few at a time as new keys are written."""

    __tablename__ = "idempotency"
    game_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64))
    answer: Mapped[str] = mapped_column(Text)
    created: Mapped[str] = mapped_column(String(40))


Index("records_by_game", RecordRow.game_id, RecordRow.id)
Index("games_by_token", GameRow.token_hash)
Index("idempotency_by_created", IdempotencyRow.created)
