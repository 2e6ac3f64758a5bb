"""The repository: every statement the application runs, over one open transaction.

The application (``dicebound.app``) asks for rows and hands values back; it writes no
SQL and no JSON. Each method runs one statement, built once at import as Core (the
ORM's unit of work and a statement built per call cost more than the query itself;
SQLAlchemy caches the SQL), in the caller's transaction; those every check runs are
SQL written once, run on the driver's own cursor (``statements``: "the hot path").
Rows come back as frozen values (``values``), nothing for the ORM to track. JSON
columns read and write Python values (``JsonText``) and times are ``datetime``
(``Timestamp``); the few texts the hot path keys its caches by (a character's sheet and live state) are read as they are stored,
never parsed and written again (docs/design/store-and-service.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import chain
from typing import Any, cast

from sqlalchemy import Connection, Executable, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from dicebound.store.db import CONNECTION, EVENTS_TOLD, Event
from dicebound.store.models import RawJson, dumps, stamp
from dicebound.store.repo.rows import (
    pg_record_params,
    record_of,
    record_texts,
    ruleset_values,
    snapshot_cards,
    whole_card,
    with_ask,
)
from dicebound.store.repo.statements import (
    ADMIN_HASH,
    ADMIN_KEY,
    ANSWER,
    ANSWER_KEEPS_SHEET,
    COUNT_MEMBERS,
    DELETE_GAME,
    DELETE_SEAT,
    DRIVER_COUNTS,
    DRIVER_EVENTS,
    DRIVER_EVENTS_AFTER,
    DRIVER_FIGHT,
    DRIVER_FORGET_EVENTS,
    DRIVER_GAME,
    DRIVER_GAME_LOCKED,
    DRIVER_KEEP_SHEET,
    DRIVER_MEMBERS,
    DRIVER_MEMBERS_LOCKED,
    DRIVER_NEW_EVENT,
    DRIVER_NEWEST_EVENT,
    DRIVER_NOTIFY,
    DRIVER_PARTY,
    DRIVER_PUT_FIGHT,
    DRIVER_RECORDS_AND_TALLIES,
    DRIVER_SEAT,
    DRIVER_SET_LIVE,
    DRIVER_TAKE_NUMBERS,
    DRIVER_TALLY,
    DRIVER_TEXT,
    EVENT_SPAN,
    FORGET_KEY,
    GAME_OF_SEAT,
    GAME_OF_TOKEN,
    GAMES_ALL,
    GAMES_OF_SEAT,
    GAMES_OF_TOKEN,
    LISTING,
    META,
    NEW_GAME,
    NEW_KEY,
    NEW_MEMBER,
    NEW_TOKEN,
    NEWEST,
    ONE_MEMBER,
    ONE_MEMBER_LOCKED,
    PAGE,
    PAGE_BEFORE,
    PUT_MEMBER,
    RECORD,
    RECORD_LOCKED,
    RULESET_DIGEST,
    RULESET_IDS,
    RULESETS,
    SEATS,
    SEEN_KEY,
    SHEET_BODIES,
    SQLITE_ROWS_MOST,
    STORED_VERSIONS,
    SWEEP_KEYS,
    VERSION,
    Sql,
    sqlite_records,
)
from dicebound.store.repo.values import (
    SHEET_KEY,
    Game,
    Kept,
    Member,
    NewCheck,
    NewFightStep,
    NewRecord,
    NewSheetCommand,
    Record,
    RecordHead,
    RulesetVersion,
    Written,
    sheet_digest,
    snapshot_head,
    tallies_of,
)
from dicebound.values import replace

__all__ = [
    "Event",
    "Game",
    "Kept",
    "Member",
    "NewCheck",
    "NewFightStep",
    "NewRecord",
    "NewSheetCommand",
    "Record",
    "RecordHead",
    "Repo",
    "RulesetVersion",
    "Written",
    "sheet_digest",
    "snapshot_head",
    "tallies_of",
]


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
        self, sql: Sql, params: Mapping[str, Any] | Sequence[Any], *, many: bool = False
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

    def _rows(self, sql: Sql, params: Mapping[str, Any] | Sequence[Any]) -> list[Any]:
        cursor = self._driver(sql, params)
        try:
            rows: list[Any] = cursor.fetchall()
        finally:
            cursor.close()
        return rows

    def _do(
        self, sql: Sql, params: Mapping[str, Any] | Sequence[Any], *, many: bool = False
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
        found: str | None = self._run(ADMIN_HASH, {}).scalar()
        return found

    def set_admin_hash(self, value: str) -> None:
        """Keep ``value`` as the admin token's hash, whatever was kept before."""
        upsert = self._insert(META).values(key=ADMIN_KEY, value=value)
        self._run(upsert.on_conflict_do_update(index_elements=["key"], set_={"value": value}), {})

    def keep_admin_hash(self, value: str) -> None:
        """Keep ``value`` unless a hash is kept already (another process's, just now)."""
        keep = self._insert(META).values(key=ADMIN_KEY, value=value)
        self._run(keep.on_conflict_do_nothing(index_elements=["key"]), {})

    # ── rulesets ─────────────────────────────────────────────────────────────

    def stored_versions(self) -> set[tuple[str, int]]:
        return {(r.id, r.version) for r in self._run(STORED_VERSIONS, {})}

    def keep_rulesets(self, versions: Sequence[RulesetVersion]) -> bool:
        """Store ruleset versions, skipping any the store holds already: another
        process may be storing the same one at this moment, and it is waited for, never
        a unique-key failure. Whether the (one) version given was stored now."""
        keep = self._insert(RULESETS).on_conflict_do_nothing(index_elements=["id", "version"])
        rows = [ruleset_values(v) for v in versions]
        if len(rows) == 1:
            return self._run(keep.returning(RULESETS.c.version), rows[0]).first() is not None
        self._run(keep, rows)
        return True

    def rulesets(self) -> list[Any]:
        """Every stored version (id, version, name, kind, packaged), by id and version."""
        return list(self._run(LISTING, {}))

    def ruleset(self, ruleset_id: str, version: int | None) -> tuple[str, int, str] | None:
        """(id, version, content) of the newest version, or of ``version``."""
        if version is None:
            row = self._run(NEWEST, {"id": ruleset_id}).first()
        else:
            row = self._run(VERSION, {"id": ruleset_id, "version": version}).first()
        return (row.id, row.version, row.content) if row is not None else None

    def ruleset_ids(self) -> list[str]:
        return list(self._run(RULESET_IDS, {}).scalars())

    def ruleset_digest(self, ruleset_id: str, version: int) -> str:
        digest: str = self._run(RULESET_DIGEST, {"id": ruleset_id, "version": version}).scalar_one()
        return digest

    # ── games ────────────────────────────────────────────────────────────────

    def game(self, game_id: str, *, lock: bool = False) -> Game | None:
        rows = self._rows(DRIVER_GAME_LOCKED if lock else DRIVER_GAME, {"game": game_id})
        if not rows:
            return None
        found, name, ruleset_id, version, layers, token = rows[0]
        return Game(found, name, ruleset_id, version, json.loads(layers), token)

    def games(self, token_hash: str | None) -> list[Game]:
        """Every game (None), or those of a token's hash; oldest first."""
        if token_hash is None:
            rows = self._run(GAMES_ALL, {})
        else:
            rows = self._run(GAMES_OF_TOKEN, {"hash": token_hash})
        return [Game(**row._mapping) for row in rows]

    def game_of_token(self, token_hash: str) -> str | None:
        found: str | None = self._run(GAME_OF_TOKEN, {"hash": token_hash}).scalar()
        return found

    def games_of_seat(self, token_hash: str) -> list[Game]:
        """The game a player's token (by its hash) has a seat in: none or one."""
        return [Game(**row._mapping) for row in self._run(GAMES_OF_SEAT, {"hash": token_hash})]

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
        self._run(NEW_GAME, values)

    def set_game_token(self, game_id: str, token_hash: str) -> None:
        self._run(NEW_TOKEN, {"game": game_id, "hash": token_hash})

    def delete_game(self, game_id: str) -> None:
        """The game, and by ON DELETE CASCADE its characters (with their seats), records
        and keys."""
        self._run(DELETE_GAME, {"game": game_id})

    # ── characters ───────────────────────────────────────────────────────────

    def members(self, game_id: str, *, lock: bool = False) -> list[Member]:
        """The party in the order its members were put."""
        rows = self._rows(DRIVER_MEMBERS_LOCKED if lock else DRIVER_MEMBERS, {"game": game_id})
        return [Member(name, sheet, live, revision) for name, sheet, live, revision in rows]

    def party(
        self, game_id: str
    ) -> tuple[list[Member], dict[tuple[str, str], int], tuple[dict[str, Any], int] | None]:
        """The party locked (``members(..., lock=True)``), the game's record counts
        (``record_counts``) and its fight (``fight``), in one statement: the counts and
        the fight stay as read while the game's row lock is held, as every writer of
        them holds it. No members, no counts (and the fight read on its own)."""
        rows = self._rows(DRIVER_PARTY, {"game": game_id})
        members = [Member(*row[:4]) for row in rows]
        if not rows:
            return members, {}, self.fight(game_id)
        counts = {(w, k): int(n) for w, k, n in json.loads(rows[0][4])}
        state, revision = rows[0][5], rows[0][6]
        fight = None if state is None else (json.loads(state), int(revision))
        return members, counts, fight

    def member(self, game_id: str, name: str, *, lock: bool = False) -> Member | None:
        statement = ONE_MEMBER_LOCKED if lock else ONE_MEMBER
        row = self._run(statement, {"game": game_id, "who": name}).first()
        return Member(**row._mapping) if row is not None else None

    def add_member(self, game_id: str, name: str, sheet: str, live: str, now: datetime) -> None:
        """A new member, last of the party, at revision 1 (``sheet`` and ``live`` as the
        JSON texts to store)."""
        position = len(self._run(COUNT_MEMBERS, {"game": game_id}).all())
        values = {
            "game_id": game_id,
            "name": name,
            "position": position,
            "sheet": RawJson(sheet),
            "live": RawJson(live),
            "revision": 1,
            "updated": now,
        }
        self._run(NEW_MEMBER, values)
        self._keep_sheet(game_id, sheet)

    def put_member(
        self, game_id: str, name: str, sheet: str, live: str, revision: int, now: datetime
    ) -> None:
        """Replace a member's sheet and live state (their stored texts)."""
        params = {"game": game_id, "who": name, "sheet": sheet, "live": live}
        self._run(PUT_MEMBER, {**params, "revision": revision, "now": now})
        self._keep_sheet(game_id, sheet)

    def _keep_sheet(self, game_id: str, sheet: str) -> None:
        """Keep a member's sheet text under its digest, once per game, for the records
        that will name it (``snapshot_head``)."""
        if sheet != "null":
            params = {"game": game_id, "digest": sheet_digest(sheet), "body": sheet}
            self._do(DRIVER_KEEP_SHEET, params)

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
                self._do(DRIVER_SET_LIVE, params[0])
            else:
                self._do(DRIVER_SET_LIVE, params, many=True)

    # ── the fight ────────────────────────────────────────────────────────────

    def fight(self, game_id: str) -> tuple[dict[str, Any], int] | None:
        """The game's fight (its state and revision), or None when it never had one. Read
        under the game's row lock, as every writer of the fight holds it."""
        rows = self._rows(DRIVER_FIGHT, {"game": game_id})
        if not rows:
            return None
        state, revision = rows[0]
        return json.loads(state), int(revision)

    def put_fight(self, game_id: str, state: Mapping[str, Any], now: datetime) -> int:
        """Keep the game's fight (the one it had, replaced), its revision raised; the
        revision now."""
        params = {"game": game_id, "state": dumps(state), "now": stamp(now)}
        revision: int = self._rows(DRIVER_PUT_FIGHT, params)[0][0]
        return revision

    # ── records ──────────────────────────────────────────────────────────────

    def add_records(
        self, game: Game, created: datetime, records: Sequence[NewRecord]
    ) -> list[Written]:
        """Write the records of one text and raise their tallies: on PostgreSQL in one
        statement, on SQLite in one per 120 records and one for the tallies; their ids
        and numbers, in the order given (both grow in that order). Each takes the next
        number of its game (``games.records_numbered``, raised here under the game's row
        lock, never counted from the rows). ``write_text`` writes their events with
        them."""
        if not records:
            return []
        created_text = stamp(created)
        rows = [record_texts(record) for record in records]
        tallies = tallies_of(records)
        if self.connection.dialect.name == "postgresql":
            params = pg_record_params(game, created_text, rows, tallies)
            made = self._rows(DRIVER_RECORDS_AND_TALLIES, params)
        else:
            layers = dumps(list(game.layers))
            shared = [game.id, created_text, game.ruleset_id, game.ruleset_version, layers]
            (base,) = self._rows(DRIVER_TAKE_NUMBERS, {"game": game.id, "count": len(rows)})[0]
            made = []
            for at in range(0, len(rows), SQLITE_ROWS_MOST):
                part = rows[at : at + SQLITE_ROWS_MOST]
                values = [*shared, base + at, *chain.from_iterable(part)]
                made += self._rows(sqlite_records(len(part)), values)
            params_many = [
                {"game": game.id, "who": w, "kind": k, "n": n} for (w, k), n in tallies.items()
            ]
            self._do(DRIVER_TALLY, params_many, many=True)
        written = sorted(Written(int(i), int(number)) for i, number in made)
        assert len(written) == len(rows)
        return written

    def write_text(
        self,
        game: Game,
        created: datetime,
        lives: Sequence[tuple[str, str, int]],
        records: Sequence[NewRecord],
        told: Sequence[str],
        after: Sequence[tuple[str, str]],
        keep: int,
    ) -> list[Written]:
        """All one text writes: ``set_lives``, then ``add_records`` with each record's
        event (``told``: each its view after its id and number), then the events that
        follow them (``after``), appended as ``add_events`` appends; the records' ids and
        numbers. On PostgreSQL in one statement; on SQLite the records' events and the
        others in one."""
        if not records:
            self.set_lives(game.id, lives, created)
            if after:
                self.add_events(game.id, after, created, keep)
            return []
        if self.connection.dialect.name != "postgresql" or len(told) + len(after) > keep:
            self.set_lives(game.id, lives, created)
            written = self.add_records(game, created, records)
            payloads = _record_events(written, told)
            self._append_events(game.id, [*payloads, *after], stamp(created), keep)
            return written
        rows = [record_texts(record) for record in records]
        params = {
            **pg_record_params(game, stamp(created), rows, tallies_of(records)),
            "tails": dumps(list(told)),
            "lives": dumps([list(life) for life in lives]),
            "after": dumps([list(item) for item in after]),
            "records": len(records),
            "events": len(records) + len(after),
            "keep": keep,
        }
        row = self._rows(DRIVER_TEXT, params)[0]
        written = [Written(int(i), int(n)) for i, n in zip(row[0], row[1], strict=True)]
        assert len(written) == len(records)
        self._written(game.id, int(row[2]), [*_record_events(written, told), *after])
        return written

    def record(self, game_id: str, record_id: int, *, lock: bool = False) -> Record | None:
        """A record as written, each card of its snapshot with its sheet whole."""
        statement = RECORD_LOCKED if lock else RECORD
        row = self._run(statement, {"record": record_id, "game": game_id}).first()
        if row is None:
            return None
        record = record_of(row)
        cards = snapshot_cards(record)
        digests = sorted({d for card in cards if isinstance(d := card.get(SHEET_KEY), str)})
        if not digests:
            return record
        read = self._run(SHEET_BODIES, {"game": game_id, "digests": digests})
        bodies = {row.digest: json.loads(row.body) for row in read}
        if record.kind in ("sheet", "fight"):
            party = [whole_card(card, bodies) for card in record.sheet["party"]]
            return replace(record, sheet={**record.sheet, "party": party})
        return replace(record, sheet=whole_card(record.sheet, bodies))

    def records(self, game_id: str, before: int | None, most: int) -> list[RecordHead]:
        """At most ``most`` records of a game, newest first, those before ``before``."""
        if before is None:
            rows = self._run(PAGE, {"game": game_id, "most": most})
        else:
            rows = self._run(PAGE_BEFORE, {"game": game_id, "most": most, "before": before})
        return [RecordHead(**with_ask(row)) for row in rows]

    def record_counts(
        self, game_id: str, who: Sequence[str] | None = None
    ) -> dict[tuple[str, str], int]:
        """How many records a game holds per ``(who, kind)``: a sheet command for the
        whole party is counted under ``party``. ``who``: only those about these names.
        Read from the tallies ``add_records`` keeps, a few rows however long the game."""
        rows = self._rows(DRIVER_COUNTS, {"game": game_id})
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
            self._run(ANSWER_KEEPS_SHEET, params)
        else:
            self._run(ANSWER, {**params, "answer_sheet": answer_sheet})

    # ── players' seats ───────────────────────────────────────────────────────

    def seat_of(self, game_id: str, token_hash: str) -> str | None:
        """The character whose seat in ``game_id`` a token (by its hash) holds, or None."""
        rows = self._rows(DRIVER_SEAT, {"game": game_id, "hash": token_hash})
        found: str | None = rows[0][0] if rows else None
        return found

    def game_of_seat(self, token_hash: str) -> str | None:
        """The game a player's token (by its hash) has its seat in, or None."""
        found: str | None = self._run(GAME_OF_SEAT, {"hash": token_hash}).scalar()
        return found

    def put_seat(self, game_id: str, character: str, token_hash: str, now: datetime) -> None:
        """Give a character's seat a new token (by its hash), replacing any it had."""
        values = {"game_id": game_id, "character": character, "token_hash": token_hash}
        upsert = self._insert(SEATS).values(**values, created=now)
        self._run(
            upsert.on_conflict_do_update(
                index_elements=["game_id", "character"],
                set_={"token_hash": token_hash, "created": upsert.excluded.created},
            ),
            {},
        )

    def delete_seat(self, game_id: str, character: str) -> bool:
        """Revoke a character's seat; whether it had one."""
        deleted = self._run(DELETE_SEAT, {"game": game_id, "who": character})
        return deleted.rowcount > 0

    # ── idempotency keys ─────────────────────────────────────────────────────

    def kept(self, game_id: str, key: str) -> Kept | None:
        row = self._run(SEEN_KEY, {"game": game_id, "key": key}).first()
        return Kept(**row._mapping) if row is not None else None

    def forget(self, game_id: str, key: str) -> None:
        self._run(FORGET_KEY, {"game": game_id, "key": key})

    def keep(
        self, game_id: str, key: str, digest: str, answer: Mapping[str, Any], now: datetime
    ) -> None:
        """Keep a check's answer under its key."""
        values = {"game_id": game_id, "key": key, "digest": digest, "created": now}
        self._run(NEW_KEY, {**values, "answer": answer})

    def sweep(self, cutoff: datetime, most: int) -> int:
        """Delete at most ``most`` keys older than ``cutoff``, so the table stays
        bounded; how many went."""
        return max(self._run(SWEEP_KEYS, {"cutoff": cutoff, "most": most}).rowcount, 0)

    # ── events ───────────────────────────────────────────────────────────────

    def event_span(self, game_id: str) -> tuple[int, int] | None:
        """The oldest and the newest id of the events a game keeps; None when none."""
        oldest, newest = cast(tuple[Any, Any], self._run(EVENT_SPAN, {"game": game_id}).one())
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
            last: int = self._rows(DRIVER_EVENTS, params)[0][0]
            self._written(game_id, last, events)
            return last
        newest: int = self._rows(DRIVER_NEWEST_EVENT, {"game": game_id})[0][0] or 0
        last = newest + len(events)
        upto = last - keep
        rows = [
            {"game": game_id, "id": newest + i, "kind": kind, "payload": payload, "created": when}
            for i, (kind, payload) in enumerate(events, start=1)
        ]
        if len(rows) == 1:
            self._do(DRIVER_NEW_EVENT, rows[0])
        else:
            self._do(DRIVER_NEW_EVENT, rows, many=True)
        if upto > 0:
            self._do(DRIVER_FORGET_EVENTS, {"game": game_id, "upto": upto})
        if self.connection.dialect.name == "postgresql":  # the note, the long way
            self._do(DRIVER_NOTIFY, {"note": f"{game_id}:{last}"})
        self._written(game_id, last, events)
        return last

    def events_after(self, game_id: str, after: int, most: int) -> list[Event]:
        """At most ``most`` of a game's events after id ``after``, oldest first."""
        rows = self._rows(DRIVER_EVENTS_AFTER, {"game": game_id, "after": after, "most": most})
        return [Event(int(i), kind, payload) for i, kind, payload in rows]

    def announce(self, game_id: str, last: int | None) -> None:
        """Say, once this transaction commits, that a game's events changed (``last``:
        its newest event now; None: the game itself changed, as when deleted): to every
        process through PostgreSQL's NOTIFY, which is sent at commit and never if the
        transaction rolls back, and to this process through the store
        (``Store.on_events``). The note carries no content: listeners read the table."""
        if self.connection.dialect.name == "postgresql":
            self._do(DRIVER_NOTIFY, {"note": f"{game_id}:{'' if last is None else last}"})
        self.session.info.setdefault(EVENTS_TOLD, []).append((game_id, last, ()))

    def _written(self, game_id: str, last: int, events: Sequence[tuple[str, str]]) -> None:
        """Keep the events just written (``last`` the id of the last of them) for the
        store's listeners of this process, told once the transaction commits (PostgreSQL's
        note was sent with them)."""
        first = last - len(events) + 1
        rows = tuple(Event(first + i, kind, payload) for i, (kind, payload) in enumerate(events))
        self.session.info.setdefault(EVENTS_TOLD, []).append((game_id, last, rows))


def _record_events(written: Sequence[Written], told: Sequence[str]) -> list[tuple[str, str]]:
    """Each record's event: its id and number spliced before the rest of its view."""
    return [
        ("record", f'{{"id":{made.id},"number":{made.number}{tail}')
        for made, tail in zip(written, told, strict=True)
    ]
