"""Every statement the repository runs, built once at import: Core statements for the
cold paths, and the hot path's SQL written once for each driver's own cursor."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import (
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

from dicebound.store.db import EVENTS_CHANNEL
from dicebound.store.models import (
    CharacterRow,
    EventRow,
    GameRow,
    IdempotencyRow,
    MetaRow,
    RecordRow,
    RulesetRow,
    SeatRow,
    SheetTextRow,
    TallyRow,
)
from dicebound.values import frozen

ADMIN_KEY = "admin_token_hash"

META = cast(Table, MetaRow.__table__)
RULESETS = cast(Table, RulesetRow.__table__)
GAMES = cast(Table, GameRow.__table__)
CHARACTERS = cast(Table, CharacterRow.__table__)
RECORDS = cast(Table, RecordRow.__table__)
IDEMPOTENCY = cast(Table, IdempotencyRow.__table__)
SEATS = cast(Table, SeatRow.__table__)
EVENTS = cast(Table, EventRow.__table__)
TALLIES = cast(Table, TallyRow.__table__)
SHEET_TEXTS = cast(Table, SheetTextRow.__table__)


def raw_json(column: Any) -> Any:
    """A JSON column read as the text stored, unparsed."""
    return type_coerce(column, Text()).label(column.name)


GAME = select(
    GAMES.c.id,
    GAMES.c.name,
    GAMES.c.ruleset_id,
    GAMES.c.ruleset_version,
    GAMES.c.layers,
    GAMES.c.token_hash,
)
GAMES_ALL = GAME.order_by(GAMES.c.created, GAMES.c.id)
GAMES_OF_TOKEN = GAMES_ALL.where(GAMES.c.token_hash == bindparam("hash"))
GAME_OF_TOKEN = select(GAMES.c.id).where(GAMES.c.token_hash == bindparam("hash")).limit(1)
NEW_GAME = insert(GAMES)
NEW_TOKEN = (
    update(GAMES).where(GAMES.c.id == bindparam("game")).values(token_hash=bindparam("hash"))
)
DELETE_GAME = delete(GAMES).where(GAMES.c.id == bindparam("game"))

MEMBER = select(
    CHARACTERS.c.name,
    raw_json(CHARACTERS.c.sheet),
    raw_json(CHARACTERS.c.live),
    CHARACTERS.c.revision,
)
THIS_MEMBER = (CHARACTERS.c.game_id == bindparam("game"), CHARACTERS.c.name == bindparam("who"))
ONE_MEMBER = MEMBER.where(*THIS_MEMBER)
ONE_MEMBER_LOCKED = ONE_MEMBER.with_for_update()
COUNT_MEMBERS = select(CHARACTERS.c.name).where(CHARACTERS.c.game_id == bindparam("game"))
NEW_MEMBER = insert(CHARACTERS)
PUT_MEMBER = (
    update(CHARACTERS)
    .where(*THIS_MEMBER)
    .values(
        sheet=bindparam("sheet", type_=Text()),
        live=bindparam("live", type_=Text()),
        revision=bindparam("revision"),
        updated=bindparam("now"),
    )
)

# A record's own columns and those its text's records share, in the order the INSERT
# below (``DRIVER_RECORDS_AND_TALLIES``, ``sqlite_records``) takes them.
PER_ROW = ("kind", "who", "ask", "result", "seed", "faces", "choose", "sheet")
SHARED = ("game_id", "created", "ruleset_id", "ruleset_version", "layers")
RECORD = select(RECORDS).where(
    RECORDS.c.id == bindparam("record"), RECORDS.c.game_id == bindparam("game")
)
RECORD_LOCKED = RECORD.with_for_update()
PAGE = (
    select(
        RECORDS.c.id,
        RECORDS.c.number,
        RECORDS.c.kind,
        RECORDS.c.created,
        RECORDS.c.ask,
        RECORDS.c.result,
        RECORDS.c.seed,
        RECORDS.c.ruleset_id,
        RECORDS.c.ruleset_version,
        RECORDS.c.answer,
    )
    .where(RECORDS.c.game_id == bindparam("game"))
    .order_by(RECORDS.c.id.desc())
    .limit(bindparam("most"))
)
PAGE_BEFORE = PAGE.where(RECORDS.c.id < bindparam("before"))
ANSWER = (
    update(RECORDS)
    .where(RECORDS.c.id == bindparam("record"))
    .values(
        result=bindparam("result"),
        answer=bindparam("answer"),
        answer_sheet=bindparam("answer_sheet"),
    )
)
ANSWER_KEEPS_SHEET = (
    update(RECORDS)
    .where(RECORDS.c.id == bindparam("record"))
    .values(result=bindparam("result"), answer=bindparam("answer"))
)

THIS_KEY = (IDEMPOTENCY.c.game_id == bindparam("game"), IDEMPOTENCY.c.key == bindparam("key"))
SEEN_KEY = select(IDEMPOTENCY.c.digest, IDEMPOTENCY.c.answer, IDEMPOTENCY.c.created).where(
    *THIS_KEY
)
FORGET_KEY = delete(IDEMPOTENCY).where(*THIS_KEY)
NEW_KEY = insert(IDEMPOTENCY)
# The oldest expired keys, at most a bound per write, that no other transaction is
# deleting right now (PostgreSQL skips rows locked by another sweep, so two never wait
# on each other; SQLite writes one transaction at a time and ignores the clause).
EXPIRED_KEYS = (
    select(IDEMPOTENCY.c.game_id, IDEMPOTENCY.c.key)
    .where(IDEMPOTENCY.c.created < bindparam("cutoff"))
    .order_by(IDEMPOTENCY.c.created)
    .limit(bindparam("most"))
    .with_for_update(skip_locked=True)
)
SWEEP_KEYS = delete(IDEMPOTENCY).where(
    tuple_(IDEMPOTENCY.c.game_id, IDEMPOTENCY.c.key).in_(EXPIRED_KEYS)
)

GAME_OF_SEAT = select(SEATS.c.game_id).where(SEATS.c.token_hash == bindparam("hash"))
GAMES_OF_SEAT = GAMES_ALL.where(GAMES.c.id.in_(GAME_OF_SEAT.scalar_subquery()))
DELETE_SEAT = delete(SEATS).where(
    SEATS.c.game_id == bindparam("game"), SEATS.c.character == bindparam("who")
)

ADMIN_HASH = select(META.c.value).where(META.c.key == ADMIN_KEY)
STORED_VERSIONS = select(RULESETS.c.id, RULESETS.c.version)
LISTING = select(
    RULESETS.c.id, RULESETS.c.version, RULESETS.c.name, RULESETS.c.kind, RULESETS.c.packaged
).order_by(RULESETS.c.id, RULESETS.c.version)
NEWEST = (
    select(RULESETS.c.id, RULESETS.c.version, RULESETS.c.content)
    .where(RULESETS.c.id == bindparam("id"))
    .order_by(RULESETS.c.version.desc())
    .limit(1)
)
VERSION = NEWEST.where(RULESETS.c.version == bindparam("version"))
RULESET_IDS = select(RULESETS.c.id).distinct()
RULESET_DIGEST = select(RULESETS.c.digest).where(
    RULESETS.c.id == bindparam("id"), RULESETS.c.version == bindparam("version")
)
THIS_GAMES_EVENTS = EVENTS.c.game_id == bindparam("game")
EVENT_SPAN = select(func.min(EVENTS.c.id), func.max(EVENTS.c.id)).where(THIS_GAMES_EVENTS)


# ── the hot path, on the driver's own cursor ─────────────────────────────────
# The statements every check runs (its game and party read and locked, lives, records,
# tallies, events and the note) go to the driver's cursor as SQL written once here:
# SQLAlchemy's execution costs some 20 µs a statement, ten times the statement's own on
# SQLite. Their values are handed over as the texts stored (stamps, JSON written), rows
# come back as the driver's tuples, and a failure becomes SQLAlchemy's own exception
# through the connection, exactly as any other statement's (``fault_of`` reads both
# alike; a connection found lost is invalidated).


@frozen
class Sql:
    """One statement as each driver takes it (empty where that driver never runs it)."""

    sqlite: str
    postgresql: str

    @staticmethod
    def both(sql: str, postgresql_tail: str = "") -> Sql:
        """Written with SQLite's ``:name`` parameters; PostgreSQL's ``%(name)s`` form
        derived, plus ``postgresql_tail``."""
        return Sql(sql, re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql) + postgresql_tail)


def pg_only(sql: str) -> Sql:
    """A statement PostgreSQL alone runs (written in its own ``%(name)s`` form)."""
    return Sql("", sql)


GAME_SQL = "SELECT id, name, ruleset_id, ruleset_version, layers, token_hash FROM games"
DRIVER_GAME = Sql.both(f"{GAME_SQL} WHERE id = :game")
DRIVER_GAME_LOCKED = Sql.both(f"{GAME_SQL} WHERE id = :game", " FOR UPDATE")
DRIVER_SEAT = Sql.both("SELECT character FROM seats WHERE game_id = :game AND token_hash = :hash")
MEMBERS_SQL = (
    "SELECT name, sheet, live, revision FROM characters WHERE game_id = :game "
    "ORDER BY position, name"
)
DRIVER_MEMBERS = Sql.both(MEMBERS_SQL)
DRIVER_MEMBERS_LOCKED = Sql.both(MEMBERS_SQL, " FOR UPDATE")
# the party locked, each row with the game's tallies beside it (one JSON array of
# [who, kind, n], read once for the statement)
DRIVER_PARTY = Sql(
    "SELECT name, sheet, live, revision, (SELECT coalesce(json_group_array("
    "json_array(who, kind, how_many)), '[]') FROM record_tallies WHERE game_id = :game), "
    "(SELECT state FROM fights WHERE game_id = :game), "
    "(SELECT revision FROM fights WHERE game_id = :game) "
    "FROM characters WHERE game_id = :game ORDER BY position, name",
    "SELECT name, sheet, live, revision, (SELECT coalesce(json_agg("
    "json_build_array(who, kind, how_many)), '[]')::text FROM record_tallies "
    "WHERE game_id = %(game)s), (SELECT state FROM fights WHERE game_id = %(game)s), "
    "(SELECT revision FROM fights WHERE game_id = %(game)s) "
    "FROM characters WHERE game_id = %(game)s ORDER BY position, name FOR UPDATE",
)
DRIVER_KEEP_SHEET = Sql.both(
    "INSERT INTO sheet_texts (game_id, digest, body) VALUES (:game, :digest, :body) "
    "ON CONFLICT (game_id, digest) DO NOTHING"
)
SHEET_BODIES = select(SHEET_TEXTS.c.digest, SHEET_TEXTS.c.body).where(
    SHEET_TEXTS.c.game_id == bindparam("game"),
    SHEET_TEXTS.c.digest.in_(bindparam("digests", expanding=True)),
)
DRIVER_FIGHT = Sql.both("SELECT state, revision FROM fights WHERE game_id = :game")
DRIVER_PUT_FIGHT = Sql.both(
    "INSERT INTO fights (game_id, state, revision, updated) VALUES (:game, :state, 1, :now) "
    "ON CONFLICT (game_id) DO UPDATE SET state = excluded.state, "
    "revision = fights.revision + 1, updated = excluded.updated RETURNING revision"
)
DRIVER_SET_LIVE = Sql.both(
    "UPDATE characters SET live = :live, revision = :revision, updated = :now "
    "WHERE game_id = :game AND name = :who"
)
DRIVER_COUNTS = Sql.both("SELECT who, kind, how_many FROM record_tallies WHERE game_id = :game")
UPSERT_TALLY = (
    "ON CONFLICT (game_id, who, kind) DO UPDATE SET how_many = record_tallies.how_many + "
    "excluded.how_many"
)
DRIVER_TALLY = Sql.both(
    "INSERT INTO record_tallies (game_id, who, kind, how_many) VALUES (:game, :who, :kind, :n) "
    + UPSERT_TALLY
)
DRIVER_EVENTS_AFTER = Sql.both(
    "SELECT id, kind, payload FROM events WHERE game_id = :game AND id > :after "
    "ORDER BY id LIMIT :most"
)
DRIVER_NEWEST_EVENT = Sql.both("SELECT max(id) FROM events WHERE game_id = :game")
DRIVER_NEW_EVENT = Sql.both(
    "INSERT INTO events (game_id, id, kind, payload, created) "
    "VALUES (:game, :id, :kind, :payload, :created)"
)
DRIVER_FORGET_EVENTS = Sql.both("DELETE FROM events WHERE game_id = :game AND id <= :upto")
DRIVER_NOTIFY = pg_only(f"SELECT pg_notify('{EVENTS_CHANNEL}', %(note)s)")
# a record's own columns, then its number in its game, then those its text's share
RECORD_COLUMNS = ", ".join((*PER_ROW, "number", *SHARED))
# SQLite: the numbers a text's records take in their game (``records.number``), the
# game's last given raised by as many: the last one before them answered. The game's
# row is locked by this UPDATE if not before, so two texts never take the same.
DRIVER_TAKE_NUMBERS = Sql(
    "UPDATE games SET records_numbered = records_numbered + :count WHERE id = :game "
    "RETURNING records_numbered - :count",
    "",
)
# PostgreSQL: a text's records (one JSONB array of their texts, as above), each
# numbered on from the game's last (as ``DRIVER_TAKE_NUMBERS`` takes them), and the
# tallies they raise (one JSONB array of [who, kind, n]) in one statement, one trip.
DRIVER_RECORDS_AND_TALLIES = pg_only(
    "WITH taken AS (UPDATE games SET records_numbered = records_numbered + "
    "jsonb_array_length(%(rows)s::jsonb) WHERE id = %(game_id)s::text "
    "RETURNING records_numbered - jsonb_array_length(%(rows)s::jsonb) AS base), "
    "made AS (INSERT INTO records ("
    + RECORD_COLUMNS
    + ") SELECT "
    + ", ".join(f"item ->> {i}" for i in range(len(PER_ROW)))
    + ", taken.base + given.n, %(game_id)s::text, %(created)s::text, %(ruleset_id)s::text, "
    "%(ruleset_version)s::integer, %(layers)s::text "
    "FROM taken, jsonb_array_elements(%(rows)s::jsonb) WITH ORDINALITY AS given(item, n) "
    "ORDER BY given.n RETURNING id, number), "
    "counted AS (INSERT INTO record_tallies (game_id, who, kind, how_many) "
    "SELECT %(game_id)s::text, item ->> 0, item ->> 1, (item ->> 2)::bigint "
    "FROM jsonb_array_elements(%(tallies)s::jsonb) AS given(item) "
    + UPSERT_TALLY
    + ") SELECT id, number FROM made ORDER BY id"
)
# PostgreSQL: all a text writes, in one statement (``Repo.write_text``): its records
# and the tallies they raise (as above); each record's event, its payload the record's
# id and number spliced before the rest of its view (``tails``, one JSONB array of
# texts, in record order), numbered after the game's newest as ``DRIVER_EVENTS`` numbers them;
# the live states it changed (``lives``: one JSONB array of [name, live, revision]);
# the events that follow the records' (``after``: one JSONB array of [kind, payload]);
# the oldest past the kept number forgotten, and the note. One row: the records' ids,
# their numbers, and the last event's id.
DRIVER_TEXT = pg_only(
    DRIVER_RECORDS_AND_TALLIES.postgresql.removesuffix(" SELECT id, number FROM made ORDER BY id")
    + ", newest AS (SELECT coalesce(max(id), 0) AS id FROM events "
    "WHERE game_id = %(game_id)s::text), "
    "numbered AS (SELECT id, number, row_number() OVER (ORDER BY id) AS n FROM made), "
    "told AS (INSERT INTO events (game_id, id, kind, payload, created) "
    "SELECT %(game_id)s::text, newest.id + numbered.n, 'record', "
    "'{\"id\":' || numbered.id || ',\"number\":' || numbered.number "
    "|| (%(tails)s::jsonb ->> (numbered.n - 1)::integer), "
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
    "SELECT (SELECT array_agg(id ORDER BY id) FROM made), "
    "(SELECT array_agg(number ORDER BY id) FROM made), id, "
    f"pg_notify('{EVENTS_CHANNEL}', %(game_id)s::text || ':' || id) FROM last"
)
# PostgreSQL: a transaction's events (one JSONB array of [kind, payload]) numbered
# after the game's newest, the oldest past the kept number forgotten, and the note, in
# one statement; the last id answered. The newest is read in the statement's own
# snapshot, taken under the game's row lock (every writer of its events holds it), so
# it is the one a SELECT before would read. The DELETE sees the table as the statement
# began: the caller takes the long way when the new events alone are more than kept.
DRIVER_EVENTS = pg_only(
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
SQLITE_ROWS_MOST = 120  # records a statement: 6 + 8 x 120 parameters, under SQLite's 999


@lru_cache(maxsize=128)
def sqlite_records(rows: int) -> Sql:
    """SQLite: ``rows`` records in one INSERT, inserted in the order written; numbered
    parameters, the shared five (``SHARED``) first, then the number before the first
    record's (each record's is it plus its place), then each row's eight."""
    per, base = len(PER_ROW), len(SHARED) + 1
    shared = ",".join(f"?{i + 1}" for i in range(len(SHARED)))
    values = ",".join(
        "("
        + ",".join(f"?{base + r * per + i + 1}" for i in range(per))
        + f",?{base} + {r + 1},{shared})"
        for r in range(rows)
    )
    sql = f"INSERT INTO records ({RECORD_COLUMNS}) VALUES {values} RETURNING id, number"
    return Sql(sql, "")
