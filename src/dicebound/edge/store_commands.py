"""``dicebound db`` commands an operator runs on a store: backup and restore (SQLite),
a game exported and imported between stores, the store pruned of what its retention
no longer keeps, and the game file's schema (docs/store-operations.md)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from dicebound.errors import DiceboundError, UsageError

__all__ = [
    "GAME_SCHEMA",
    "db_backup",
    "db_export_game",
    "db_game_schema",
    "db_import_game",
    "db_prune",
    "db_restore",
]

GAME_SCHEMA = "game.schema.json"
"""The game file's JSON Schema, in ``dicebound/data``."""


def db_backup(args: argparse.Namespace, out: TextIO) -> int:
    """A consistent copy of a live SQLite store."""
    from dicebound.store.backup import backup_sqlite

    pages = backup_sqlite(args.db, Path(args.file))
    out.write(f"backed up {pages} pages to {args.file}.\n")
    return 0


def db_restore(args: argparse.Namespace, out: TextIO) -> int:
    """A backup copied over a SQLite store no process has open."""
    from dicebound.store.backup import restore_sqlite

    revision = restore_sqlite(Path(args.file), args.db)
    out.write(f"restored {args.file} (schema revision {revision}); it is migrated on open.\n")
    return 0


def db_export_game(args: argparse.Namespace, out: TextIO) -> int:
    """A game whole, as a game file on standard output."""
    from dicebound.app.access import Access
    from dicebound.app.errors import Refusal
    from dicebound.app.transfer import export_game
    from dicebound.store import open_store
    from dicebound.store.transfer import snapshot

    store = open_store(args.db)
    try:
        with snapshot(store) as session:
            file = export_game(session, Access.local(), args.game, datetime.now(UTC))
    except Refusal as exc:
        raise DiceboundError(exc.detail) from exc
    finally:
        store.close()
    out.write(file.model_dump_json(indent=1) + "\n")
    return 0


def db_import_game(args: argparse.Namespace, out: TextIO) -> int:
    """A game file loaded into the store, every record replayed first; prints the new
    tokens, once."""
    from dicebound.app.access import Access
    from dicebound.app.errors import Refusal
    from dicebound.app.rulesets import sync_packaged_rulesets
    from dicebound.app.transfer import import_game, imported_json, read_game_file
    from dicebound.store import open_store

    try:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f'cannot read the game file "{args.file}": {exc}.') from exc
    store = open_store(args.db)
    try:
        file = read_game_file(text)
        with store.write() as session:
            sync_packaged_rulesets(session)
        with store.write() as session:
            imported = import_game(session, Access.local(), file, datetime.now(UTC))
    except Refusal as exc:
        raise DiceboundError(exc.detail) from exc
    finally:
        store.close()
    out.write(json.dumps(imported_json(imported), indent=2) + "\n")
    return 0


def db_prune(args: argparse.Namespace, out: TextIO) -> int:
    """Delete what the store's retention no longer keeps; prints how many of each."""
    import os

    from dicebound.store import open_store
    from dicebound.store.retention import Retention, prune
    from dicebound.values import replace

    retention = Retention.from_environ(os.environ)
    given = {
        "events_days": args.events_days,
        "refused_days": args.refused_days,
        "batch": args.batch,
    }
    retention = replace(retention, **{k: v for k, v in given.items() if v is not None})
    store = open_store(args.db)
    try:
        pruned = prune(store, datetime.now(UTC), retention)
    finally:
        store.close()
    out.write(json.dumps(pruned.to_json()) + "\n")
    return 0


def db_game_schema(args: argparse.Namespace, out: TextIO) -> int:
    """The game file's JSON Schema, as shipped."""
    out.write(resources.files("dicebound.data").joinpath(GAME_SCHEMA).read_text("utf-8"))
    return 0


def add_db_commands(db_sub: argparse._SubParsersAction[Any], db_help: str) -> None:
    """The operator's ``db`` subcommands, on ``dicebound db``'s parser."""
    for name, what, argument, about in (
        ("backup", "copy a live SQLite store, consistently", "file", "the backup to write"),
        (
            "restore",
            "copy a backup over a SQLite store that no process has open",
            "file",
            "a backup made by db backup",
        ),
        ("export-game", "write a game whole, as JSON, to stdout", "game", "the game's id"),
        (
            "import-game",
            "load a game file, every record replayed first; prints new tokens",
            "file",
            "a game file (db export-game's output); - reads stdin",
        ),
    ):
        command = db_sub.add_parser(name, help=what)
        command.add_argument(argument, help=about)
        command.add_argument("--db", help=db_help)
    prune = db_sub.add_parser("prune", help="delete what the store's retention no longer keeps")
    prune.add_argument("--db", help=db_help)
    for flag, kind, about in (
        ("--events-days", float, "keep events this long (DICEBOUND_KEEP_EVENTS_DAYS, 30)"),
        (
            "--refused-days",
            float,
            "keep refused sheet commands' records this long (DICEBOUND_KEEP_REFUSED_DAYS, 30)",
        ),
        ("--batch", int, "rows a batch deletes (DICEBOUND_PRUNE_BATCH, 500)"),
    ):
        prune.add_argument(flag, type=kind, help=about)
    db_sub.add_parser("game-schema", help="print the JSON Schema of a game file")


RUNNERS = {
    "backup": db_backup,
    "restore": db_restore,
    "export-game": db_export_game,
    "import-game": db_import_game,
    "prune": db_prune,
    "game-schema": db_game_schema,
}
"""What runs each of these ``db`` subcommands."""
