"""Backups of a SQLite store, made while it serves, and restored only into a store no
process has open.

``backup_sqlite`` copies the store with SQLite's online backup API in one step: it
reads one snapshot of the database (a WAL read transaction) while writers go on, so
the copy holds exactly the transactions committed when it began, every acknowledged
check among them, and none half. The copy is written beside its destination and
renamed over it, so a reader of the destination never sees half a backup.

``restore_sqlite`` copies a backup over a store only when no connection of any process
has the store open: it asks SQLite for the file in EXCLUSIVE locking mode, which a
WAL database grants only when no other connection holds it open (an idle serving
process keeps its pooled connections open, so a stopped service is the only one that
lets go), and holds that lock for the whole copy, so no process opens it half
restored. A backup that is no dicebound store, or one made by a newer dicebound, is
refused before anything is touched.

PostgreSQL is backed up and restored with its own tools (``pg_dump``,
``pg_restore``): docs/store-operations.md gives the commands.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url

from dicebound.store.db import StoreError, head_revision, store_url

__all__ = ["StoreInUse", "backup_sqlite", "restore_sqlite", "sqlite_file"]

_PG_TOOLS = (
    "a PostgreSQL store is backed up and restored with pg_dump and pg_restore "
    "(docs/store-operations.md gives the commands)"
)


class StoreInUse(StoreError):
    """A restore refused: some process has the store open."""


def sqlite_file(url: str | None) -> Path:
    """The file of a SQLite store's URL (``store_url``); refused for any other store."""
    parsed = make_url(store_url(url))
    if parsed.get_backend_name() != "sqlite":
        raise StoreError(f"this command backs up a SQLite store; {_PG_TOOLS}.")
    if not parsed.database or parsed.database == ":memory:":
        raise StoreError("a store in memory has no file to back up or restore.")
    return Path(parsed.database)


def _known_revisions() -> set[str]:
    """Every schema revision this dicebound knows."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", "dicebound.store:migrations")
    return {script.revision for script in ScriptDirectory.from_config(config).walk_revisions()}


def _revision(connection: sqlite3.Connection) -> str | None:
    """The dicebound schema revision a SQLite file is at; None when it is no store."""
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.DatabaseError:
        return None
    return None if row is None else str(row[0])


def backup_sqlite(url: str | None, destination: Path) -> int:
    """Copy the live store at ``url`` to ``destination`` (replaced whole, at the end);
    the number of pages copied."""
    source_path = sqlite_file(url)
    if not source_path.is_file():
        raise StoreError(f'no SQLite store is at "{source_path}".')
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True, timeout=30)
    try:
        if _revision(source) is None:
            raise StoreError(f'"{source_path}" is not a dicebound store.')
        target = sqlite3.connect(partial)
        try:
            source.backup(target)  # pages=-1: one step, one snapshot
            pages = int(target.execute("PRAGMA page_count").fetchone()[0])
            ok = target.execute("PRAGMA quick_check").fetchone()[0]
        finally:
            target.close()
    finally:
        source.close()
    if ok != "ok":  # pragma: no cover - SQLite copied a page it cannot read
        partial.unlink(missing_ok=True)
        raise StoreError(f"the backup fails SQLite's check: {ok}.")
    os.replace(partial, destination)
    return pages


def restore_sqlite(backup: Path, url: str | None) -> str:
    """Copy ``backup`` over the store at ``url``, unless a process has it open
    (``StoreInUse``); the schema revision restored."""
    target_path = sqlite_file(url)
    if not backup.is_file():
        raise StoreError(f'no backup is at "{backup}".')
    source = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
    try:
        revision = _revision(source)
        if revision is None:
            raise StoreError(f'"{backup}" is not a dicebound store (no schema revision).')
        if revision not in _known_revisions():
            raise StoreError(
                f'"{backup}" was made by a newer dicebound (schema revision {revision}; '
                f"this one knows revisions up to {head_revision()}): upgrade dicebound first."
            )
        target = sqlite3.connect(target_path, timeout=0, isolation_level=None)
        try:
            target.execute("PRAGMA locking_mode=EXCLUSIVE")
            try:
                target.execute("BEGIN EXCLUSIVE")
                target.execute("COMMIT")  # the lock stays: EXCLUSIVE locking mode
            except sqlite3.OperationalError as exc:
                raise StoreInUse(
                    f'the store "{target_path}" is in use by another process ({exc}): '
                    "stop every dicebound serving it, then restore."
                ) from exc
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()
    return revision
