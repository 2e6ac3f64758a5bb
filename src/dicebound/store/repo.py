"""The repository: every statement the application runs, over one open transaction.

The application (``dicebound.app``) asks for rows and hands values back; it writes no
SQL and no JSON. Each method runs one statement, built once at import as Core (the
ORM's unit of work and a statement built per call cost more than the query itself;
SQLAlchemy caches the SQL), in the caller's transaction; those every check runs are
SQL written once, run on the driver's own cursor (see "the hot path" below). Rows come back as frozen
values, nothing for the ORM to track. JSON columns read and write Python values
(``JsonText``) and times are ``datetime`` (``Timestamp``); the few texts the hot path
keys its caches by (a character's sheet and live state) are read as they are stored,
never parsed and written again (docs/design/store-and-service.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from itertools import chain
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Executable,
    Table,
    Text,
    bindparam,
    delete,
    func,
    insert,
    select,
    tuple_,
    type_coerce,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from dicebound.store.db import CONNECTION, EVENTS_CHANNEL, EVENTS_TOLD, Event
from dicebound.store.models import (
    CharacterRow,
    EventRow,
    GameRow,
    IdempotencyRow,
    MetaRow,
    RawJson,
    RecordKind,
    RecordRow,
    RulesetRow,
    SeatRow,
    SheetTextRow,
    TallyRow,
    dumps,
    stamp,
)
from dicebound.values import frozen, replace

__all__ = [
    "Event",
    "Game",
    "Kept",
    "Member",
    "NewCheck",
    "NewSheetCommand",
    "Record",
    "RecordHead",
    "Repo",
    "RulesetVersion",
    "sheet_digest",
    "snapshot_head",
    "tallies_of",
]

_ADMIN_KEY = "admin_token_hash"

_META = cast(Table, MetaRow.__table__)
_RULESETS = cast(Table, RulesetRow.__table__)
_GAMES = cast(Table, GameRow.__table__)
_CHARACTERS = cast(Table, CharacterRow.__table__)
_RECORDS = cast(Table, RecordRow.__table__)
_IDEMPOTENCY = cast(Table, IdempotencyRow.__table__)
_SEATS = cast(Table, SeatRow.__table__)
_EVENTS = cast(Table, EventRow.__table__)
_TALLIES = cast(Table, TallyRow.__table__)
_SHEET_TEXTS = cast(Table, SheetTextRow.__table__)


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
    kind: RecordKind
    created: datetime
    ask: str
    result: dict[str, Any]
    seed: str | None
    ruleset_id: str
    ruleset_version: int
    answer: dict[str, Any] | None


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


_SHEET_KEY = "sheet_digest"
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
    return f'{{"name":{dumps(name)},"{_SHEET_KEY}":"{sheet_digest(sheet)}","live":'


@frozen
class Kept:
    """What a check with an idempotency key answered, and when."""

    digest: str
    answer: dict[str, Any]
    created: datetime


def _raw(column: Any) -> Any:
    """A JSON column read as the text stored, unparsed."""
    return type_coerce(column, Text()).label(column.name)


_GAME = select(
    _GAMES.c.id,
    _GAMES.c.name,
    _GAMES.c.ruleset_id,
    _GAMES.c.ruleset_version,
    _GAMES.c.layers,
    _GAMES.c.token_hash,
)
_GAMES_ALL = _GAME.order_by(_GAMES.c.created, _GAMES.c.id)
_GAMES_OF_TOKEN = _GAMES_ALL.where(_GAMES.c.token_hash == bindparam("hash"))
_GAME_OF_TOKEN = select(_GAMES.c.id).where(_GAMES.c.token_hash == bindparam("hash")).limit(1)
_NEW_GAME = insert(_GAMES)
_NEW_TOKEN = (
    update(_GAMES).where(_GAMES.c.id == bindparam("game")).values(token_hash=bindparam("hash"))
)
_DELETE_GAME = delete(_GAMES).where(_GAMES.c.id == bindparam("game"))

_MEMBER = select(
    _CHARACTERS.c.name,
    _raw(_CHARACTERS.c.sheet),
    _raw(_CHARACTERS.c.live),
    _CHARACTERS.c.revision,
)
_THIS_MEMBER = (_CHARACTERS.c.game_id == bindparam("game"), _CHARACTERS.c.name == bindparam("who"))
_ONE_MEMBER = _MEMBER.where(*_THIS_MEMBER)
_ONE_MEMBER_LOCKED = _ONE_MEMBER.with_for_update()
_COUNT_MEMBERS = select(_CHARACTERS.c.name).where(_CHARACTERS.c.game_id == bindparam("game"))
_NEW_MEMBER = insert(_CHARACTERS)
_PUT_MEMBER = (
    update(_CHARACTERS)
    .where(*_THIS_MEMBER)
    .values(
        sheet=bindparam("sheet", type_=Text()),
        live=bindparam("live", type_=Text()),
        revision=bindparam("revision"),
        updated=bindparam("now"),
    )
)

# A record's own columns and those its text's records share, in the order the INSERT
# below (``_DRIVER_RECORDS_AND_TALLIES``, ``_sqlite_records``) takes them.
_PER_ROW = ("kind", "who", "ask", "result", "seed", "faces", "choose", "sheet")
_SHARED = ("game_id", "created", "ruleset_id", "ruleset_version", "layers")
_RECORD = select(_RECORDS).where(
    _RECORDS.c.id == bindparam("record"), _RECORDS.c.game_id == bindparam("game")
)
_RECORD_LOCKED = _RECORD.with_for_update()
_PAGE = (
    select(
        _RECORDS.c.id,
        _RECORDS.c.kind,
        _RECORDS.c.created,
        _RECORDS.c.ask,
        _RECORDS.c.result,
        _RECORDS.c.seed,
        _RECORDS.c.ruleset_id,
        _RECORDS.c.ruleset_version,
        _RECORDS.c.answer,
    )
    .where(_RECORDS.c.game_id == bindparam("game"))
    .order_by(_RECORDS.c.id.desc())
    .limit(bindparam("most"))
)
_PAGE_BEFORE = _PAGE.where(_RECORDS.c.id < bindparam("before"))
_ANSWER = (
    update(_RECORDS)
    .where(_RECORDS.c.id == bindparam("record"))
    .values(
        result=bindparam("result"),
        answer=bindparam("answer"),
        answer_sheet=bindparam("answer_sheet"),
    )
)
_ANSWER_KEEPS_SHEET = (
    update(_RECORDS)
    .where(_RECORDS.c.id == bindparam("record"))
    .values(result=bindparam("result"), answer=bindparam("answer"))
)

_THIS_KEY = (_IDEMPOTENCY.c.game_id == bindparam("game"), _IDEMPOTENCY.c.key == bindparam("key"))
_SEEN_KEY = select(_IDEMPOTENCY.c.digest, _IDEMPOTENCY.c.answer, _IDEMPOTENCY.c.created).where(
    *_THIS_KEY
)
_FORGET_KEY = delete(_IDEMPOTENCY).where(*_THIS_KEY)
_NEW_KEY = insert(_IDEMPOTENCY)
# The oldest expired keys, at most a bound per write, that no other transaction is
# deleting right now (PostgreSQL skips rows locked by another sweep, so two never wait
# on each other; SQLite writes one transaction at a time and ignores the clause).
_EXPIRED_KEYS = (
    select(_IDEMPOTENCY.c.game_id, _IDEMPOTENCY.c.key)
    .where(_IDEMPOTENCY.c.created < bindparam("cutoff"))
    .order_by(_IDEMPOTENCY.c.created)
    .limit(bindparam("most"))
    .with_for_update(skip_locked=True)
)
_SWEEP_KEYS = delete(_IDEMPOTENCY).where(
    tuple_(_IDEMPOTENCY.c.game_id, _IDEMPOTENCY.c.key).in_(_EXPIRED_KEYS)
)

_GAME_OF_SEAT = select(_SEATS.c.game_id).where(_SEATS.c.token_hash == bindparam("hash"))
_GAMES_OF_SEAT = _GAMES_ALL.where(_GAMES.c.id.in_(_GAME_OF_SEAT.scalar_subquery()))
_DELETE_SEAT = delete(_SEATS).where(
    _SEATS.c.game_id == bindparam("game"), _SEATS.c.character == bindparam("who")
)

_ADMIN_HASH = select(_META.c.value).where(_META.c.key == _ADMIN_KEY)
_STORED_VERSIONS = select(_RULESETS.c.id, _RULESETS.c.version)
_LISTING = select(
    _RULESETS.c.id, _RULESETS.c.version, _RULESETS.c.name, _RULESETS.c.kind, _RULESETS.c.packaged
).order_by(_RULESETS.c.id, _RULESETS.c.version)
_NEWEST = (
    select(_RULESETS.c.id, _RULESETS.c.version, _RULESETS.c.content)
    .where(_RULESETS.c.id == bindparam("id"))
    .order_by(_RULESETS.c.version.desc())
    .limit(1)
)
_VERSION = _NEWEST.where(_RULESETS.c.version == bindparam("version"))
_RULESET_IDS = select(_RULESETS.c.id).distinct()
_RULESET_DIGEST = select(_RULESETS.c.digest).where(
    _RULESETS.c.id == bindparam("id"), _RULESETS.c.version == bindparam("version")
)
_THIS_GAMES_EVENTS = _EVENTS.c.game_id == bindparam("game")
_EVENT_SPAN = select(func.min(_EVENTS.c.id), func.max(_EVENTS.c.id)).where(_THIS_GAMES_EVENTS)


# ── the hot path, on the driver's own cursor ─────────────────────────────────
# The statements every check runs (its game and party read and locked, lives, records,
# tallies, events and the note) go to the driver's cursor as SQL written once here:
# SQLAlchemy's execution costs some 20 µs a statement, ten times the statement's own on
# SQLite. Their values are handed over as the texts stored (stamps, JSON written), rows
# come back as the driver's tuples, and a failure becomes SQLAlchemy's own exception
# through the connection, exactly as any other statement's (``fault_of`` reads both
# alike; a connection found lost is invalidated).


@frozen
class _Sql:
    """One statement as each driver takes it (empty where that driver never runs it)."""

    sqlite: str
    postgresql: str

    @staticmethod
    def both(sql: str, postgresql_tail: str = "") -> _Sql:
        """Written with SQLite's ``:name`` parameters; PostgreSQL's ``%(name)s`` form
        derived, plus ``postgresql_tail``."""
        return _Sql(sql, re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql) + postgresql_tail)


def _pg_only(sql: str) -> _Sql:
    """A statement PostgreSQL alone runs (written in its own ``%(name)s`` form)."""
    return _Sql("", sql)


_GAME_SQL = "SELECT id, name, ruleset_id, ruleset_version, layers, token_hash FROM games"
_DRIVER_GAME = _Sql.both(f"{_GAME_SQL} WHERE id = :game")
_DRIVER_GAME_LOCKED = _Sql.both(f"{_GAME_SQL} WHERE id = :game", " FOR UPDATE")
_DRIVER_SEAT = _Sql.both("SELECT character FROM seats WHERE game_id = :game AND token_hash = :hash")
_MEMBERS_SQL = (
    "SELECT name, sheet, live, revision FROM characters WHERE game_id = :game "
    "ORDER BY position, name"
)
_DRIVER_MEMBERS = _Sql.both(_MEMBERS_SQL)
_DRIVER_MEMBERS_LOCKED = _Sql.both(_MEMBERS_SQL, " FOR UPDATE")
# the party locked, each row with the game's tallies beside it (one JSON array of
# [who, kind, n], read once for the statement)
_DRIVER_PARTY = _Sql(
    "SELECT name, sheet, live, revision, (SELECT coalesce(json_group_array("
    "json_array(who, kind, how_many)), '[]') FROM record_tallies WHERE game_id = :game) "
    "FROM characters WHERE game_id = :game ORDER BY position, name",
    "SELECT name, sheet, live, revision, (SELECT coalesce(json_agg("
    "json_build_array(who, kind, how_many)), '[]')::text FROM record_tallies "
    "WHERE game_id = %(game)s) FROM characters WHERE game_id = %(game)s "
    "ORDER BY position, name FOR UPDATE",
)
_DRIVER_KEEP_SHEET = _Sql.both(
    "INSERT INTO sheet_texts (game_id, digest, body) VALUES (:game, :digest, :body) "
    "ON CONFLICT (game_id, digest) DO NOTHING"
)
_SHEET_BODIES = select(_SHEET_TEXTS.c.digest, _SHEET_TEXTS.c.body).where(
    _SHEET_TEXTS.c.game_id == bindparam("game"),
    _SHEET_TEXTS.c.digest.in_(bindparam("digests", expanding=True)),
)
_DRIVER_SET_LIVE = _Sql.both(
    "UPDATE characters SET live = :live, revision = :revision, updated = :now "
    "WHERE game_id = :game AND name = :who"
)
_DRIVER_COUNTS = _Sql.both("SELECT who, kind, how_many FROM record_tallies WHERE game_id = :game")
_UPSERT_TALLY = (
    "ON CONFLICT (game_id, who, kind) DO UPDATE SET how_many = record_tallies.how_many + "
    "excluded.how_many"
)
_DRIVER_TALLY = _Sql.both(
    "INSERT INTO record_tallies (game_id, who, kind, how_many) VALUES (:game, :who, :kind, :n) "
    + _UPSERT_TALLY
)
_DRIVER_EVENTS_AFTER = _Sql.both(
    "SELECT id, kind, payload FROM events WHERE game_id = :game AND id > :after "
    "ORDER BY id LIMIT :most"
)
_DRIVER_NEWEST_EVENT = _Sql.both("SELECT max(id) FROM events WHERE game_id = :game")
_DRIVER_NEW_EVENT = _Sql.both(
    "INSERT INTO events (game_id, id, kind, payload, created) "
    "VALUES (:game, :id, :kind, :payload, :created)"
)
_DRIVER_FORGET_EVENTS = _Sql.both("DELETE FROM events WHERE game_id = :game AND id <= :upto")
_DRIVER_NOTIFY = _pg_only(f"SELECT pg_notify('{EVENTS_CHANNEL}', %(note)s)")
_RECORD_COLUMNS = ", ".join((*_PER_ROW, *_SHARED))
# PostgreSQL: a text's records (one JSONB array of their texts, as above) and the
# tallies they raise (one JSONB array of [who, kind, n]) in one statement, one trip.
_DRIVER_RECORDS_AND_TALLIES = _pg_only(
    "WITH made AS (INSERT INTO records ("
    + _RECORD_COLUMNS
    + ") SELECT "
    + ", ".join(f"item ->> {i}" for i in range(len(_PER_ROW)))
    + ", %(game_id)s::text, %(created)s::text, %(ruleset_id)s::text, "
    "%(ruleset_version)s::integer, %(layers)s::text "
    "FROM jsonb_array_elements(%(rows)s::jsonb) WITH ORDINALITY AS given(item, n) "
    "ORDER BY n RETURNING id), "
    "counted AS (INSERT INTO record_tallies (game_id, who, kind, how_many) "
    "SELECT %(game_id)s::text, item ->> 0, item ->> 1, (item ->> 2)::bigint "
    "FROM jsonb_array_elements(%(tallies)s::jsonb) AS given(item) "
    + _UPSERT_TALLY
    + ") SELECT id FROM made"
)
# PostgreSQL: all a text writes, in one statement (``Repo.write_text``): its records
# and the tallies they raise (as above); each record's event, its payload the record's
# id spliced before the rest of its view (``tails``, one JSONB array of texts, in
# record order), numbered after the game's newest as ``_DRIVER_EVENTS`` numbers them;
# the live states it changed (``lives``: one JSONB array of [name, live, revision]);
# the events that follow the records' (``after``: one JSONB array of [kind, payload]);
# the oldest past the kept number forgotten, and the note. One row: the records' ids,
# and the last event's id.
_DRIVER_TEXT = _pg_only(
    _DRIVER_RECORDS_AND_TALLIES.postgresql.removesuffix(" SELECT id FROM made")
    + ", newest AS (SELECT coalesce(max(id), 0) AS id FROM events "
    "WHERE game_id = %(game_id)s::text), "
    "numbered AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM made), "
    "told AS (INSERT INTO events (game_id, id, kind, payload, created) "
    "SELECT %(game_id)s::text, newest.id + numbered.n, 'record', "
    "'{\"id\":' || numbered.id || (%(tails)s::jsonb ->> (numbered.n - 1)::integer), "
    "%(created)s::text FROM newest, numbered), "
    "lived AS (UPDATE characters AS c SET live = item ->> 1, "
    "revision = (item ->> 2)::integer, updated = %(created)s::text "
    "FROM jsonb_array_elements(%(lives)s::jsonb) AS given(item) "
    "WHERE c.game_id = %(game_id)s::text AND c.name = item ->> 0), "
    "after AS (INSERT INTO events (game_id, id, kind, payload, created) "
    "SELECT %(game_id)s::text, newest.id + %(records)s::bigint + n, item ->> 0, item ->> 1, "
    "%(created)s::text FROM newest, "
    "jsonb_array_elements(%(after)s::jsonb) WITH ORDINALITY AS given(item, n)), "
    "last AS (SELECT newest.id + %(events)s::bigint AS id FROM newest), "
    "forgot AS (DELETE FROM events WHERE game_id = %(game_id)s::text "
    "AND id <= (SELECT id FROM last) - %(keep)s::bigint) "
    "SELECT (SELECT array_agg(id ORDER BY id) FROM made), id, "
    f"pg_notify('{EVENTS_CHANNEL}', %(game_id)s::text || ':' || id) FROM last"
)
# PostgreSQL: a transaction's events (one JSONB array of [kind, payload]) numbered
# after the game's newest, the oldest past the kept number forgotten, and the note, in
# one statement; the last id answered. The newest is read in the statement's own
# snapshot, taken under the game's row lock (every writer of its events holds it), so
# it is the one a SELECT before would read. The DELETE sees the table as the statement
# began: the caller takes the long way when the new events alone are more than kept.
_DRIVER_EVENTS = _pg_only(
    "WITH newest AS (SELECT coalesce(max(id), 0) AS id FROM events "
    "WHERE game_id = %(game)s::text), "
    "made AS (INSERT INTO events (game_id, id, kind, payload, created) "
    "SELECT %(game)s::text, newest.id + n, item ->> 0, item ->> 1, %(created)s::text "
    "FROM newest, jsonb_array_elements(%(rows)s::jsonb) WITH ORDINALITY AS given(item, n) "
    "RETURNING id), "
    "last AS (SELECT max(id) AS id FROM made), "
    "forgot AS (DELETE FROM events WHERE game_id = %(game)s::text "
    "AND id <= (SELECT id FROM last) - %(keep)s::bigint) "
    f"SELECT id, pg_notify('{EVENTS_CHANNEL}', %(game)s::text || ':' || id) FROM last"
)
_SQLITE_ROWS_MOST = 120  # records a statement: 5 + 8 x 120 parameters, under SQLite's 999


@lru_cache(maxsize=128)
def _sqlite_records(rows: int) -> _Sql:
    """SQLite: ``rows`` records in one INSERT, inserted in the order written; numbered
    parameters, the shared five (``_SHARED``) first, then each row's eight."""
    per = len(_PER_ROW)
    shared = ",".join(f"?{i + 1}" for i in range(len(_SHARED)))
    values = ",".join(
        "(" + ",".join(f"?{len(_SHARED) + r * per + i + 1}" for i in range(per)) + f",{shared})"
        for r in range(rows)
    )
    return _Sql(f"INSERT INTO records ({_RECORD_COLUMNS}) VALUES {values} RETURNING id", "")


def _ask(text: str) -> str:
    """The tag as the model wrote it. Kept as a JSON string; a record written before
    that (the tag as plain text, which always opens with "[") reads as it is."""
    if text.startswith('"'):
        ask: str = json.loads(text)
        return ask
    return text


def _with_ask(row: Any) -> dict[str, Any]:
    values = dict(row._mapping)
    values["ask"] = _ask(values["ask"])
    return values


def _record(row: Any) -> Record:
    return Record(**_with_ask(row))


def _cards(record: Record) -> list[dict[str, Any]]:
    """The cards a record's snapshot holds: the roller's, or the party's."""
    sheet = record.sheet
    if record.kind == "sheet":
        party = sheet.get("party") if isinstance(sheet, dict) else None
        return [card for card in party if isinstance(card, dict)] if isinstance(party, list) else []
    return [sheet] if isinstance(sheet, dict) else []


def _whole_card(card: Any, bodies: Mapping[str, Any]) -> Any:
    """A card as the record's snapshot stood: its sheet in place of its digest, in the
    same place (a digest the game does not keep is left as it is, and the card reads
    as one without a sheet)."""
    digest = card.get(_SHEET_KEY) if isinstance(card, dict) else None
    if not isinstance(digest, str) or digest not in bodies:
        return card
    return {
        ("sheet" if key == _SHEET_KEY else key): (bodies[value] if key == _SHEET_KEY else value)
        for key, value in card.items()
    }


class Repo:
    """The statements of one transaction (a ``Store.read()`` or ``Store.write()``
    session); locks taken here (``lock=True``: ``SELECT ... FOR UPDATE``) are held
    until it ends."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._connection: Connection | None = None
        self._dbapi: Any = None  # the driver's own connection, once asked
        self._postgresql = False

    @property
    def connection(self) -> Connection:
        if self._connection is None:
            held = self.session.info.get(CONNECTION)
            self._connection = held if held is not None else self.session.connection()
            self._postgresql = self._connection.dialect.name == "postgresql"
        return self._connection

    def _driver(
        self, sql: _Sql, params: Mapping[str, Any] | Sequence[Any], *, many: bool = False
    ) -> Any:
        """Run a hot-path statement on the driver's own cursor (``many``: once per
        parameter set); the cursor, its rows unread. A failure is raised as
        SQLAlchemy raises any statement's."""
        connection = self.connection
        if self._dbapi is None:
            self._dbapi = connection.connection.dbapi_connection
        text = sql.postgresql if self._postgresql else sql.sqlite
        cursor = self._dbapi.cursor()
        try:
            if many:
                cursor.executemany(text, params)
            else:
                cursor.execute(text, params)
        except BaseException as exc:
            connection._handle_dbapi_exception(exc, text, params, cursor, None)
        return cursor

    def _rows(self, sql: _Sql, params: Mapping[str, Any] | Sequence[Any]) -> list[Any]:
        cursor = self._driver(sql, params)
        try:
            rows: list[Any] = cursor.fetchall()
        finally:
            cursor.close()
        return rows

    def _do(
        self, sql: _Sql, params: Mapping[str, Any] | Sequence[Any], *, many: bool = False
    ) -> None:
        self._driver(sql, params, many=many).close()

    def _run(
        self, statement: Executable, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> CursorResult[Any]:
        return self.connection.execute(statement, params)

    def _insert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        """An INSERT that can say ON CONFLICT, in the store's own dialect."""
        if self.connection.dialect.name == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)

    # ── the admin token ──────────────────────────────────────────────────────

    def admin_hash(self) -> str | None:
        """The admin token's hash as the store keeps it (None before the first start)."""
        found: str | None = self._run(_ADMIN_HASH, {}).scalar()
        return found

    def set_admin_hash(self, value: str) -> None:
        """Keep ``value`` as the admin token's hash, whatever was kept before."""
        upsert = self._insert(_META).values(key=_ADMIN_KEY, value=value)
        self._run(upsert.on_conflict_do_update(index_elements=["key"], set_={"value": value}), {})

    def keep_admin_hash(self, value: str) -> None:
        """Keep ``value`` unless a hash is kept already (another process's, just now)."""
        keep = self._insert(_META).values(key=_ADMIN_KEY, value=value)
        self._run(keep.on_conflict_do_nothing(index_elements=["key"]), {})

    # ── rulesets ─────────────────────────────────────────────────────────────

    def stored_versions(self) -> set[tuple[str, int]]:
        return {(r.id, r.version) for r in self._run(_STORED_VERSIONS, {})}

    def keep_rulesets(self, versions: Sequence[RulesetVersion]) -> bool:
        """Store ruleset versions, skipping any the store holds already: another
        process may be storing the same one at this moment, and it is waited for, never
        a unique-key failure. Whether the (one) version given was stored now."""
        keep = self._insert(_RULESETS).on_conflict_do_nothing(index_elements=["id", "version"])
        rows = [_ruleset_values(v) for v in versions]
        if len(rows) == 1:
            return self._run(keep.returning(_RULESETS.c.version), rows[0]).first() is not None
        self._run(keep, rows)
        return True

    def rulesets(self) -> list[Any]:
        """Every stored version (id, version, name, kind, packaged), by id and version."""
        return list(self._run(_LISTING, {}))

    def ruleset(self, ruleset_id: str, version: int | None) -> tuple[str, int, str] | None:
        """(id, version, content) of the newest version, or of ``version``."""
        if version is None:
            row = self._run(_NEWEST, {"id": ruleset_id}).first()
        else:
            row = self._run(_VERSION, {"id": ruleset_id, "version": version}).first()
        return (row.id, row.version, row.content) if row is not None else None

    def ruleset_ids(self) -> list[str]:
        return list(self._run(_RULESET_IDS, {}).scalars())

    def ruleset_digest(self, ruleset_id: str, version: int) -> str:
        digest: str = self._run(
            _RULESET_DIGEST, {"id": ruleset_id, "version": version}
        ).scalar_one()
        return digest

    # ── games ────────────────────────────────────────────────────────────────

    def game(self, game_id: str, *, lock: bool = False) -> Game | None:
        rows = self._rows(_DRIVER_GAME_LOCKED if lock else _DRIVER_GAME, {"game": game_id})
        if not rows:
            return None
        found, name, ruleset_id, version, layers, token = rows[0]
        return Game(found, name, ruleset_id, version, json.loads(layers), token)

    def games(self, token_hash: str | None) -> list[Game]:
        """Every game (None), or those of a token's hash; oldest first."""
        if token_hash is None:
            rows = self._run(_GAMES_ALL, {})
        else:
            rows = self._run(_GAMES_OF_TOKEN, {"hash": token_hash})
        return [Game(**row._mapping) for row in rows]

    def game_of_token(self, token_hash: str) -> str | None:
        found: str | None = self._run(_GAME_OF_TOKEN, {"hash": token_hash}).scalar()
        return found

    def games_of_seat(self, token_hash: str) -> list[Game]:
        """The game a player's token (by its hash) has a seat in: none or one."""
        return [Game(**row._mapping) for row in self._run(_GAMES_OF_SEAT, {"hash": token_hash})]

    def add_game(self, game: Game, created: datetime) -> None:
        values = {
            "id": game.id,
            "name": game.name,
            "ruleset_id": game.ruleset_id,
            "ruleset_version": game.ruleset_version,
            "layers": game.layers,
            "token_hash": game.token_hash,
            "created": created,
        }
        self._run(_NEW_GAME, values)

    def set_game_token(self, game_id: str, token_hash: str) -> None:
        self._run(_NEW_TOKEN, {"game": game_id, "hash": token_hash})

    def delete_game(self, game_id: str) -> None:
        """The game, and by ON DELETE CASCADE its characters (with their seats), records
        and keys."""
        self._run(_DELETE_GAME, {"game": game_id})

    # ── characters ───────────────────────────────────────────────────────────

    def members(self, game_id: str, *, lock: bool = False) -> list[Member]:
        """The party in the order its members were put."""
        rows = self._rows(_DRIVER_MEMBERS_LOCKED if lock else _DRIVER_MEMBERS, {"game": game_id})
        return [Member(name, sheet, live, revision) for name, sheet, live, revision in rows]

    def party(self, game_id: str) -> tuple[list[Member], dict[tuple[str, str], int]]:
        """The party locked (``members(..., lock=True)``) and the game's record counts
        (``record_counts``), in one statement: the counts stay as read while the game's
        row lock is held, as every writer of records holds it. No members, no counts."""
        rows = self._rows(_DRIVER_PARTY, {"game": game_id})
        members = [Member(name, sheet, live, revision) for name, sheet, live, revision, _ in rows]
        counts = {(w, k): int(n) for w, k, n in json.loads(rows[0][4])} if rows else {}
        return members, counts

    def member(self, game_id: str, name: str, *, lock: bool = False) -> Member | None:
        statement = _ONE_MEMBER_LOCKED if lock else _ONE_MEMBER
        row = self._run(statement, {"game": game_id, "who": name}).first()
        return Member(**row._mapping) if row is not None else None

    def add_member(self, game_id: str, name: str, sheet: str, live: str, now: datetime) -> None:
        """A new member, last of the party, at revision 1 (``sheet`` and ``live`` as the
        JSON texts to store)."""
        position = len(self._run(_COUNT_MEMBERS, {"game": game_id}).all())
        values = {
            "game_id": game_id,
            "name": name,
            "position": position,
            "sheet": RawJson(sheet),
            "live": RawJson(live),
            "revision": 1,
            "updated": now,
        }
        self._run(_NEW_MEMBER, values)
        self._keep_sheet(game_id, sheet)

    def put_member(
        self, game_id: str, name: str, sheet: str, live: str, revision: int, now: datetime
    ) -> None:
        """Replace a member's sheet and live state (their stored texts)."""
        params = {"game": game_id, "who": name, "sheet": sheet, "live": live}
        self._run(_PUT_MEMBER, {**params, "revision": revision, "now": now})
        self._keep_sheet(game_id, sheet)

    def _keep_sheet(self, game_id: str, sheet: str) -> None:
        """Keep a member's sheet text under its digest, once per game, for the records
        that will name it (``snapshot_head``)."""
        if sheet != "null":
            params = {"game": game_id, "digest": sheet_digest(sheet), "body": sheet}
            self._do(_DRIVER_KEEP_SHEET, params)

    def set_live(self, game_id: str, name: str, live: str, revision: int, now: datetime) -> None:
        """A member's live state (the JSON text to store) after a payment or a change,
        at ``revision``."""
        self.set_lives(game_id, [(name, live, revision)], now)

    def set_lives(self, game_id: str, lives: Sequence[tuple[str, str, int]], now: datetime) -> None:
        """``set_live`` for several members at once, each ``(name, live, revision)``:
        one call (the driver sends them together)."""
        if lives:
            when = stamp(now)
            params = [
                {"game": game_id, "who": name, "live": live, "revision": revision, "now": when}
                for name, live, revision in lives
            ]
            if len(params) == 1:
                self._do(_DRIVER_SET_LIVE, params[0])
            else:
                self._do(_DRIVER_SET_LIVE, params, many=True)

    # ── records ──────────────────────────────────────────────────────────────

    def add_records(
        self, game: Game, created: datetime, records: Sequence[NewCheck | NewSheetCommand]
    ) -> list[int]:
        """Write the records of one text and raise their tallies: on PostgreSQL in one
        statement, on SQLite in one per 120 records and one for the tallies; their ids,
        in the order given (ids grow in that order). ``write_text`` writes their events
        with them."""
        if not records:
            return []
        created_text = stamp(created)
        rows = [_record_texts(record) for record in records]
        tallies = tallies_of(records)
        if self.connection.dialect.name == "postgresql":
            params = _pg_record_params(game, created_text, rows, tallies)
            made = self._rows(_DRIVER_RECORDS_AND_TALLIES, params)
        else:
            layers = dumps(list(game.layers))
            shared = [game.id, created_text, game.ruleset_id, game.ruleset_version, layers]
            made = []
            for at in range(0, len(rows), _SQLITE_ROWS_MOST):
                part = rows[at : at + _SQLITE_ROWS_MOST]
                made += self._rows(
                    _sqlite_records(len(part)), [*shared, *chain.from_iterable(part)]
                )
            params_many = [
                {"game": game.id, "who": w, "kind": k, "n": n} for (w, k), n in tallies.items()
            ]
            self._do(_DRIVER_TALLY, params_many, many=True)
        ids = sorted(row[0] for row in made)
        assert len(ids) == len(rows)
        return ids

    def write_text(
        self,
        game: Game,
        created: datetime,
        lives: Sequence[tuple[str, str, int]],
        records: Sequence[NewCheck | NewSheetCommand],
        told: Sequence[str],
        after: Sequence[tuple[str, str]],
        keep: int,
    ) -> list[int]:
        """All one text writes: ``set_lives``, then ``add_records`` with each record's
        event (``told``), then the events that follow them (``after``), appended as
        ``add_events`` appends; the records' ids. On PostgreSQL in one statement; on
        SQLite the records' events and the others in one."""
        if not records:
            self.set_lives(game.id, lives, created)
            if after:
                self.add_events(game.id, after, created, keep)
            return []
        if self.connection.dialect.name != "postgresql" or len(told) + len(after) > keep:
            self.set_lives(game.id, lives, created)
            ids = self.add_records(game, created, records)
            payloads = [("record", f'{{"id":{i}{tail}') for i, tail in zip(ids, told, strict=True)]
            self._append_events(game.id, [*payloads, *after], stamp(created), keep)
            return ids
        rows = [_record_texts(record) for record in records]
        params = {
            **_pg_record_params(game, stamp(created), rows, tallies_of(records)),
            "tails": dumps(list(told)),
            "lives": dumps([list(life) for life in lives]),
            "after": dumps([list(item) for item in after]),
            "records": len(records),
            "events": len(records) + len(after),
            "keep": keep,
        }
        row = self._rows(_DRIVER_TEXT, params)[0]
        ids = [int(i) for i in row[0]]
        assert len(ids) == len(records)
        payloads = [("record", f'{{"id":{i}{tail}') for i, tail in zip(ids, told, strict=True)]
        self._written(game.id, int(row[1]), [*payloads, *after])
        return ids

    def record(self, game_id: str, record_id: int, *, lock: bool = False) -> Record | None:
        """A record as written, each card of its snapshot with its sheet whole."""
        statement = _RECORD_LOCKED if lock else _RECORD
        row = self._run(statement, {"record": record_id, "game": game_id}).first()
        if row is None:
            return None
        record = _record(row)
        cards = _cards(record)
        digests = sorted({d for card in cards if isinstance(d := card.get(_SHEET_KEY), str)})
        if not digests:
            return record
        read = self._run(_SHEET_BODIES, {"game": game_id, "digests": digests})
        bodies = {row.digest: json.loads(row.body) for row in read}
        if record.kind == "sheet":
            party = [_whole_card(card, bodies) for card in record.sheet["party"]]
            return replace(record, sheet={**record.sheet, "party": party})
        return replace(record, sheet=_whole_card(record.sheet, bodies))

    def records(self, game_id: str, before: int | None, most: int) -> list[RecordHead]:
        """At most ``most`` records of a game, newest first, those before ``before``."""
        if before is None:
            rows = self._run(_PAGE, {"game": game_id, "most": most})
        else:
            rows = self._run(_PAGE_BEFORE, {"game": game_id, "most": most, "before": before})
        return [RecordHead(**_with_ask(row)) for row in rows]

    def record_counts(
        self, game_id: str, who: Sequence[str] | None = None
    ) -> dict[tuple[str, str], int]:
        """How many records a game holds per ``(who, kind)``: a sheet command for the
        whole party is counted under ``party``. ``who``: only those about these names.
        Read from the tallies ``add_records`` keeps, a few rows however long the game."""
        rows = self._rows(_DRIVER_COUNTS, {"game": game_id})
        wanted = None if who is None else set(who)
        return {(name, kind): int(n) for name, kind, n in rows if wanted is None or name in wanted}

    def answer_record(
        self,
        record_id: int,
        result: Mapping[str, Any],
        answer: Mapping[str, Any],
        answer_sheet: Mapping[str, Any] | None,
    ) -> None:
        """A record after the player's answer; ``answer_sheet`` None keeps the one it has."""
        params = {"record": record_id, "result": result, "answer": answer}
        if answer_sheet is None:
            self._run(_ANSWER_KEEPS_SHEET, params)
        else:
            self._run(_ANSWER, {**params, "answer_sheet": answer_sheet})

    # ── players' seats ───────────────────────────────────────────────────────

    def seat_of(self, game_id: str, token_hash: str) -> str | None:
        """The character whose seat in ``game_id`` a token (by its hash) holds, or None."""
        rows = self._rows(_DRIVER_SEAT, {"game": game_id, "hash": token_hash})
        found: str | None = rows[0][0] if rows else None
        return found

    def game_of_seat(self, token_hash: str) -> str | None:
        """The game a player's token (by its hash) has its seat in, or None."""
        found: str | None = self._run(_GAME_OF_SEAT, {"hash": token_hash}).scalar()
        return found

    def put_seat(self, game_id: str, character: str, token_hash: str, now: datetime) -> None:
        """Give a character's seat a new token (by its hash), replacing any it had."""
        values = {"game_id": game_id, "character": character, "token_hash": token_hash}
        upsert = self._insert(_SEATS).values(**values, created=now)
        self._run(
            upsert.on_conflict_do_update(
                index_elements=["game_id", "character"],
                set_={"token_hash": token_hash, "created": upsert.excluded.created},
            ),
            {},
        )

    def delete_seat(self, game_id: str, character: str) -> bool:
        """Revoke a character's seat; whether it had one."""
        deleted = self._run(_DELETE_SEAT, {"game": game_id, "who": character})
        return deleted.rowcount > 0

    # ── idempotency keys ─────────────────────────────────────────────────────

    def kept(self, game_id: str, key: str) -> Kept | None:
        row = self._run(_SEEN_KEY, {"game": game_id, "key": key}).first()
        return Kept(**row._mapping) if row is not None else None

    def forget(self, game_id: str, key: str) -> None:
        self._run(_FORGET_KEY, {"game": game_id, "key": key})

    def keep(
        self, game_id: str, key: str, digest: str, answer: Mapping[str, Any], now: datetime
    ) -> None:
        """Keep a check's answer under its key."""
        values = {"game_id": game_id, "key": key, "digest": digest, "created": now}
        self._run(_NEW_KEY, {**values, "answer": answer})

    def sweep(self, cutoff: datetime, most: int) -> None:
        """Delete at most ``most`` keys older than ``cutoff``, so the table stays bounded."""
        self._run(_SWEEP_KEYS, {"cutoff": cutoff, "most": most})

    # ── events ───────────────────────────────────────────────────────────────

    def event_span(self, game_id: str) -> tuple[int, int] | None:
        """The oldest and the newest id of the events a game keeps; None when none."""
        oldest, newest = cast(tuple[Any, Any], self._run(_EVENT_SPAN, {"game": game_id}).one())
        return None if newest is None else (int(oldest), int(newest))

    def add_events(
        self, game_id: str, events: Sequence[tuple[str, str]], now: datetime, keep: int
    ) -> int:
        """Append ``(kind, payload)`` events to a game's, ids following its newest, and
        forget all but the newest ``keep``; the last id given. Ids follow commit order
        only when the caller holds the game's row lock (``game(..., lock=True)``)."""
        return self._append_events(game_id, events, stamp(now), keep)

    def _append_events(
        self, game_id: str, events: Sequence[tuple[str, str]], when: str, keep: int
    ) -> int:
        """``add_events``, the time written already."""
        if self.connection.dialect.name == "postgresql" and len(events) <= keep:
            params = {
                "game": game_id,
                "rows": dumps([[kind, payload] for kind, payload in events]),
                "created": when,
                "keep": keep,
            }
            last: int = self._rows(_DRIVER_EVENTS, params)[0][0]
            self._written(game_id, last, events)
            return last
        newest: int = self._rows(_DRIVER_NEWEST_EVENT, {"game": game_id})[0][0] or 0
        last = newest + len(events)
        upto = last - keep
        rows = [
            {"game": game_id, "id": newest + i, "kind": kind, "payload": payload, "created": when}
            for i, (kind, payload) in enumerate(events, start=1)
        ]
        if len(rows) == 1:
            self._do(_DRIVER_NEW_EVENT, rows[0])
        else:
            self._do(_DRIVER_NEW_EVENT, rows, many=True)
        if upto > 0:
            self._do(_DRIVER_FORGET_EVENTS, {"game": game_id, "upto": upto})
        if self.connection.dialect.name == "postgresql":  # the note, the long way
            self._do(_DRIVER_NOTIFY, {"note": f"{game_id}:{last}"})
        self._written(game_id, last, events)
        return last

    def events_after(self, game_id: str, after: int, most: int) -> list[Event]:
        """At most ``most`` of a game's events after id ``after``, oldest first."""
        rows = self._rows(_DRIVER_EVENTS_AFTER, {"game": game_id, "after": after, "most": most})
        return [Event(int(i), kind, payload) for i, kind, payload in rows]

    def announce(self, game_id: str, last: int | None) -> None:
        """Say, once this transaction commits, that a game's events changed (``last``:
        its newest event now; None: the game itself changed, as when deleted): to every
        process through PostgreSQL's NOTIFY, which is sent at commit and never if the
        transaction rolls back, and to this process through the store
        (``Store.on_events``). The note carries no content: listeners read the table."""
        if self.connection.dialect.name == "postgresql":
            self._do(_DRIVER_NOTIFY, {"note": f"{game_id}:{'' if last is None else last}"})
        self.session.info.setdefault(EVENTS_TOLD, []).append((game_id, last, ()))

    def _written(self, game_id: str, last: int, events: Sequence[tuple[str, str]]) -> None:
        """Keep the events just written (``last`` the id of the last of them) for the
        store's listeners of this process, told once the transaction commits (PostgreSQL's
        note was sent with them)."""
        first = last - len(events) + 1
        rows = tuple(Event(first + i, kind, payload) for i, (kind, payload) in enumerate(events))
        self.session.info.setdefault(EVENTS_TOLD, []).append((game_id, last, rows))


def tallies_of(records: Sequence[NewCheck | NewSheetCommand]) -> dict[tuple[str, str], int]:
    """How many of a text's records each ``(who, kind)`` gains."""
    tallies: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.who, "check" if isinstance(record, NewCheck) else "sheet")
        tallies[key] = tallies.get(key, 0) + 1
    return tallies


def _pg_record_params(
    game: Game,
    created: str,
    rows: Sequence[Sequence[str | None]],
    tallies: Mapping[tuple[str, str], int],
) -> dict[str, Any]:
    """The parameters of PostgreSQL's one statement for a text's records and tallies."""
    return {
        "game_id": game.id,
        "created": created,
        "ruleset_id": game.ruleset_id,
        "ruleset_version": game.ruleset_version,
        "layers": dumps(list(game.layers)),
        "rows": dumps(rows),
        "tallies": dumps([[w, k, n] for (w, k), n in tallies.items()]),
    }


def _record_texts(record: NewCheck | NewSheetCommand) -> list[str | None]:
    """One record's own columns (``_PER_ROW``), as the texts stored: its JSON written."""
    if isinstance(record, NewCheck):
        faces = dumps(list(record.faces)) if record.faces else None
        return [
            "check",
            record.who,
            dumps(record.ask),
            dumps(record.result),
            record.seed,
            faces,
            record.choose,
            record.sheet,
        ]
    sheet = f'{{"number":{int(record.number)},"party":[{",".join(record.party)}]}}'
    result = record.result if isinstance(record.result, RawJson) else dumps(record.result)
    return ["sheet", record.who, dumps(record.ask), result, None, None, None, sheet]


def _ruleset_values(version: RulesetVersion) -> dict[str, object]:
    return {
        "id": version.id,
        "version": version.version,
        "name": version.name,
        "kind": version.kind,
        "packaged": version.packaged,
        "digest": version.digest,
        "content": version.content,
        "created": version.created,
    }
