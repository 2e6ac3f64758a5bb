"""A game's rows read out whole (``read_game``) and written into another store
(``write_game``), as the game file holds them (``game_file``).

Reading happens in one transaction that sees one moment of the store (the caller's
``Store.read()`` on SQLite; a REPEATABLE READ transaction on PostgreSQL, where READ
COMMITTED would let a check commit between two statements). Writing happens in the
caller's write transaction, so a refusal later in it (a record that does not replay)
leaves nothing written.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, cast

from pydantic import BaseModel
from sqlalchemy import Connection, Table, insert, select, update
from sqlalchemy.orm import Session

from dicebound.store.db import CONNECTION, Store
from dicebound.store.game_file import (
    FORMAT,
    VERSION,
    FileCharacter,
    FileFight,
    FileGame,
    FileRecord,
    FileRuleset,
    FileSheetText,
    GameFile,
)
from dicebound.store.models import (
    CharacterRow,
    EventRow,
    FightRow,
    GameRow,
    RecordRow,
    RulesetRow,
    SeatRow,
    SheetTextRow,
    TallyRow,
    dumps,
    stamp,
)
from dicebound.store.repo import Game, Repo, RulesetVersion, sheet_digest

__all__ = ["read_game", "ruleset_versions", "snapshot", "when", "write_game"]

_GAMES, _CHARACTERS, _RECORDS, _SEATS, _EVENTS, _TALLIES, _SHEET_TEXTS, _RULESETS, _FIGHTS = (
    cast(Table, model.__table__)
    for model in (
        GameRow,
        CharacterRow,
        RecordRow,
        SeatRow,
        EventRow,
        TallyRow,
        SheetTextRow,
        RulesetRow,
        FightRow,
    )
)
_FILE_NAME = {"ruleset_id": "ruleset", "ruleset_version": "version"}
"""A record's columns the file names otherwise (as the record's views do)."""
_COLUMN = {name: column for column, name in _FILE_NAME.items()}


def _columns(table: Table, entry: type[BaseModel], *besides: str) -> list[Any]:
    """The columns a file's entry holds (a column added to the table later is not
    carried until the file's version says so)."""
    return [table.c[_COLUMN.get(f, f)] for f in entry.model_fields if f not in besides]


def _file_values(row: Any) -> dict[str, Any]:
    """A row's values as the file holds them: times as stamps, no game id, a record's
    ruleset as ``ruleset`` and ``version``."""
    values = {
        _FILE_NAME.get(key, key): value for key, value in row._mapping.items() if key != "game_id"
    }
    for key in ("created", "updated"):
        if key in values:
            values[key] = stamp(values[key])
    return values


@contextmanager
def snapshot(store: Store) -> Iterator[Session]:
    """A transaction that only reads, every statement seeing the same moment of the
    store: SQLite's read transaction does (WAL); on PostgreSQL, REPEATABLE READ."""
    options = {} if store.is_sqlite else {"isolation_level": "REPEATABLE READ"}
    with store.engine.connect().execution_options(**options) as connection:
        transaction = connection.begin()
        session = Session(
            connection, join_transaction_mode="rollback_only", info={CONNECTION: connection}
        )
        try:
            yield session
        finally:
            session.close()
            transaction.rollback()


def when(text: str) -> datetime:
    """A stamp of the file read back as the time it names."""
    return datetime.fromisoformat(text)


def read_game(connection: Connection, game_id: str, now: datetime) -> GameFile | None:
    """The game whole, as a game file; None when the store holds no such game."""
    game = connection.execute(select(_GAMES).where(_GAMES.c.id == game_id)).first()
    if game is None:
        return None
    seated = set(
        connection.execute(select(_SEATS.c.character).where(_SEATS.c.game_id == game_id)).scalars()
    )
    members = connection.execute(
        select(*_columns(_CHARACTERS, FileCharacter, "seat"))
        .where(_CHARACTERS.c.game_id == game_id)
        .order_by(_CHARACTERS.c.position, _CHARACTERS.c.name)
    )
    characters = [FileCharacter(**_file_values(row), seat=row.name in seated) for row in members]
    texts = connection.execute(
        select(_SHEET_TEXTS.c.digest, _SHEET_TEXTS.c.body)
        .where(_SHEET_TEXTS.c.game_id == game_id)
        .order_by(_SHEET_TEXTS.c.digest)
    )
    sheet_texts = [FileSheetText(digest=d, body=json.loads(body)) for d, body in texts]
    rows = connection.execute(
        select(*_columns(_RECORDS, FileRecord))
        .where(_RECORDS.c.game_id == game_id)
        .order_by(_RECORDS.c.id)
    )
    records = [_record_entry(row) for row in rows]
    newest = connection.execute(
        select(_EVENTS.c.id).where(_EVENTS.c.game_id == game_id).order_by(_EVENTS.c.id.desc())
    ).first()
    numbered = connection.execute(
        select(_GAMES.c.records_numbered).where(_GAMES.c.id == game_id)
    ).scalar_one()
    kept = connection.execute(
        select(*_columns(_FIGHTS, FileFight)).where(_FIGHTS.c.game_id == game_id)
    ).first()
    fight = None if kept is None else FileFight(**_file_values(kept))
    versions = {(game.ruleset_id, game.ruleset_version)} | {(r.ruleset, r.version) for r in records}
    rulesets = [_ruleset_entry(connection, rid, v) for rid, v in sorted(versions)]
    return GameFile(
        format=FORMAT,
        version=VERSION,
        exported=stamp(now),
        game=FileGame(
            id=game.id,
            name=game.name,
            ruleset=game.ruleset_id,
            version=game.ruleset_version,
            layers=list(game.layers),
            created=stamp(game.created),
            records_numbered=int(numbered),
        ),
        rulesets=rulesets,
        characters=characters,
        sheet_texts=sheet_texts,
        records=records,
        events_newest=0 if newest is None else int(newest[0]),
        fight=fight,
    )


def _record_entry(row: Any) -> FileRecord:
    return FileRecord(**_file_values(row))


def _ruleset_entry(connection: Connection, ruleset_id: str, version: int) -> FileRuleset:
    row = connection.execute(
        select(_RULESETS).where(_RULESETS.c.id == ruleset_id, _RULESETS.c.version == version)
    ).one()
    return FileRuleset(**_file_values(row))


def ruleset_versions(file: GameFile) -> list[RulesetVersion]:
    """The ruleset versions a file carries, as the store keeps them."""
    return [RulesetVersion(**{**r.model_dump(), "created": when(r.created)}) for r in file.rulesets]


def write_game(
    repo: Repo,
    file: GameFile,
    token_hash: str,
    seat_hashes: Mapping[str, str],
    now: datetime,
    reload_reason: str,
) -> dict[int, int]:
    """Write a game file's game into the store (its rulesets stored already): the game
    under ``token_hash``, its party, the seats named in ``seat_hashes`` (character:
    token hash), its sheets, its records (numbered anew, in the file's order) with
    their tallies, and one ``reload`` event just after the file's newest, so that ids
    go on from there and a client that followed the game elsewhere reloads. Each
    record's id in the file, to its id here."""
    connection = repo.connection
    entry = file.game
    game = Game(entry.id, entry.name, entry.ruleset, entry.version, list(entry.layers), token_hash)
    repo.add_game(game, when(entry.created))
    for member in sorted(file.characters, key=lambda c: (c.position, c.name)):
        values = member.model_dump(exclude={"seat"})
        values |= {"game_id": entry.id, "updated": when(member.updated)}
        connection.execute(insert(_CHARACTERS).values(**values))
    for name, hashed in seat_hashes.items():
        repo.put_seat(entry.id, name, hashed, now)
    digests = {text.digest: dumps(text.body) for text in file.sheet_texts}
    for member in file.characters:  # each sheet the next record will name, kept
        sheet = dumps(member.sheet)
        if sheet != "null":
            digests.setdefault(sheet_digest(sheet), sheet)
    if digests:
        connection.execute(
            insert(_SHEET_TEXTS),
            [{"game_id": entry.id, "digest": d, "body": b} for d, b in sorted(digests.items())],
        )
    made = {
        record.id: _insert_record(connection, entry.id, record)
        for record in sorted(file.records, key=lambda r: r.id)
    }
    _write_tallies(connection, entry.id, file.records)
    if file.fight is not None:
        values = file.fight.model_dump() | {"game_id": entry.id}
        values |= {"updated": when(file.fight.updated)}
        connection.execute(insert(_FIGHTS).values(**values))
    connection.execute(
        update(_GAMES)
        .where(_GAMES.c.id == entry.id)
        .values(records_numbered=max([entry.records_numbered, *(r.number for r in file.records)]))
    )
    connection.execute(
        insert(_EVENTS).values(
            game_id=entry.id,
            id=file.events_newest + 1,
            kind="reload",
            payload=dumps({"reason": reload_reason}),
            created=now,
        )
    )
    repo.announce(entry.id, file.events_newest + 1)
    return made


def _insert_record(connection: Connection, game_id: str, record: FileRecord) -> int:
    values = {_COLUMN.get(k, k): v for k, v in record.model_dump(exclude={"id"}).items()}
    values |= {"game_id": game_id, "created": when(record.created)}
    made: int = connection.execute(
        insert(_RECORDS).values(**values).returning(_RECORDS.c.id)
    ).scalar_one()
    return made


def _write_tallies(connection: Connection, game_id: str, records: Sequence[FileRecord]) -> None:
    """The counts the party view reads, from the records written (``repo.tallies_of``)."""
    counted = Counter((r.who, r.kind) for r in records)
    if counted:
        connection.execute(
            insert(_TALLIES),
            [
                {"game_id": game_id, "who": who, "kind": kind, "how_many": n}
                for (who, kind), n in sorted(counted.items())
            ],
        )
