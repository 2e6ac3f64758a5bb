"""Migrated stores, made once per test process and handed out fresh, so a test that
needs a store at the newest schema does not pay for every migration again.

Migrating a new store (eleven Alembic revisions) costs about 0.2 s on SQLite and, with
``CREATE DATABASE`` and ``DROP DATABASE``, several seconds of PostgreSQL's time, and
two thousand tests ask for one. Here:

- **SQLite**: one store per process is migrated into a folder of its own; each test gets
  a copy of its file (a few milliseconds).
- **PostgreSQL**: one template database per process is migrated; a test gets a database
  copied from it (``CREATE DATABASE ... TEMPLATE``) or, cheaper still, one an earlier
  test of this process used, emptied again: every table but ``alembic_version``
  truncated, its identities restarted. A database is only reused when its schema is the
  template's exactly (its columns, indexes and revision); one a test changed (a
  downgrade, a table of its own) is dropped instead.

A test that needs a store with no schema at all (the migrations' own tests) asks for
an empty one (``store_url_for(..., migrated=False)``, or the ``empty_store`` mark on a
test that takes ``store_url``).
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

__all__ = ["drop_templates", "migrated_postgres_database", "migrated_sqlite_store"]

_FINGERPRINT = """
SELECT
  (SELECT md5(string_agg(table_name || '.' || column_name || ':' || data_type || ':'
                         || coalesce(column_default, ''), ',' ORDER BY table_name, column_name))
     FROM information_schema.columns WHERE table_schema = 'public')
  || (SELECT md5(string_agg(indexdef, ',' ORDER BY indexdef))
     FROM pg_indexes WHERE schemaname = 'public')
  || (SELECT coalesce(string_agg(version_num, ','), '') FROM alembic_version)
"""
_TABLES = """
SELECT tablename FROM pg_tables
 WHERE schemaname = 'public' AND tablename <> 'alembic_version' ORDER BY tablename
"""
_OTHERS = """
SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid()
"""


class _Templates:
    """This process's migrated stores: the SQLite file, the PostgreSQL template and the
    databases kept for reuse."""

    def __init__(self) -> None:
        self.sqlite_file: Path | None = None
        self.pg_template: str | None = None
        self.pg_fingerprint: str | None = None
        self.pg_spare: list[str] = []
        self.pg_made: set[str] = set()


_HELD = _Templates()


def _libpq(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(drivername="postgresql")
    if database is not None:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


def _sqlalchemy(url: str, database: str) -> str:
    return make_url(url).set(database=database).render_as_string(hide_password=False)


def migrated_sqlite_store(path: Path) -> str:
    """A SQLite store at ``path``, at the newest schema; its URL."""
    from dicebound.store import open_store

    if _HELD.sqlite_file is None:
        folder = Path(tempfile.mkdtemp(prefix="dicebound-test-template-"))
        atexit.register(shutil.rmtree, folder, True)
        made = folder / "template.db"
        open_store(f"sqlite:///{made}").close()
        _HELD.sqlite_file = made
    shutil.copyfile(_HELD.sqlite_file, path)
    return f"sqlite:///{path}"


def _fingerprint(connection: psycopg.Connection[tuple[str]]) -> str:
    row = connection.execute(_FINGERPRINT).fetchone()
    return str(row[0]) if row else ""


def _template(admin_url: str) -> str:
    """This process's migrated template database (made on first use)."""
    from dicebound.store import open_store

    if _HELD.pg_template is None:
        name = f"dicebound_tpl_{os.getpid()}_{secrets.token_hex(3)}"
        with psycopg.connect(_libpq(admin_url), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        _HELD.pg_made.add(name)
        open_store(_sqlalchemy(admin_url, name)).close()
        with psycopg.connect(_libpq(admin_url, name), autocommit=True) as conn:
            _HELD.pg_fingerprint = _fingerprint(conn)
        _HELD.pg_template = name
    return _HELD.pg_template


def _emptied(admin_url: str, name: str) -> bool:
    """Empty a database a test used, for the next: False (and nothing reused) when its
    schema is no longer the template's or it cannot be emptied at once."""
    try:
        with psycopg.connect(_libpq(admin_url, name), autocommit=True, connect_timeout=5) as conn:
            conn.execute("SET lock_timeout = '3s'")
            conn.execute(_OTHERS)
            if _fingerprint(conn) != _HELD.pg_fingerprint:
                return False
            tables = [row[0] for row in conn.execute(_TABLES).fetchall()]
            if tables:
                listed = ", ".join(f'"{table}"' for table in tables)
                conn.execute(f"TRUNCATE {listed} RESTART IDENTITY CASCADE")
            return True
    except psycopg.Error:
        return False


def _drop(admin_url: str, name: str) -> None:
    with psycopg.connect(_libpq(admin_url), autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _HELD.pg_made.discard(name)


@contextmanager
def migrated_postgres_database(admin_url: str) -> Iterator[str]:
    """A PostgreSQL database at the newest schema and with no rows, for one test; its
    URL. Kept for this process's next test afterwards when its schema is unchanged."""
    template = _template(admin_url)
    if _HELD.pg_spare:
        name = _HELD.pg_spare.pop()
    else:
        name = f"dicebound_t_{secrets.token_hex(6)}"
        with psycopg.connect(_libpq(admin_url), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        _HELD.pg_made.add(name)
    try:
        yield _sqlalchemy(admin_url, name)
    finally:
        if _emptied(admin_url, name):
            _HELD.pg_spare.append(name)
        else:
            _drop(admin_url, name)


def drop_templates(admin_url: str) -> None:
    """Drop every database this process made (at the end of the run)."""
    for name in sorted(_HELD.pg_made):
        with suppress(psycopg.Error):
            _drop(admin_url, name)
    _HELD.pg_spare.clear()
    _HELD.pg_template = None
