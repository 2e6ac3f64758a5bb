"""``dicebound serve`` and ``dicebound db upgrade``: the service's own commands.

Imported only when one of them runs, so the rest of the command line works without
the ``[serve]`` extra installed.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import FrameType
from typing import TextIO

from dicebound.errors import DiceboundError, UsageError

__all__ = ["db_new_game", "db_upgrade", "mcp_stdio", "serve"]


_EXTRA = {"fastapi", "uvicorn", "pydantic", "sqlalchemy", "alembic", "psycopg", "mcp", "starlette"}


def _need_extra(missing: ModuleNotFoundError) -> UsageError:
    """The extra is missing: say how to install it. Any other missing module is a bug
    and is raised as it is."""
    if (missing.name or "").split(".")[0] not in _EXTRA:
        raise missing
    return UsageError(
        "the service needs the [serve] extra: pip install 'dicebound[serve]' "
        "(FastAPI, uvicorn, SQLAlchemy, Alembic, psycopg, mcp)."
    )


def _plain_logging() -> None:
    """One line per log record on standard error. Set before the MCP SDK's server is
    built, which otherwise installs a rich handler that wraps each message to the
    terminal's width and prints every traceback over dozens of lines."""
    logging.basicConfig(
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )


def serve(db: str | None, host: str, port: int, limits: Mapping[str, str | None]) -> int:
    """Run the HTTP service until interrupted. ``limits`` are the flags of ``Guards``'
    fields (None where not given: the ``DICEBOUND_*`` variable, else the default)."""
    try:
        import uvicorn

        from dicebound.app.access import check_admin_token
        from dicebound.edge.http import create_app
        from dicebound.edge.http.guards import Guards
        from dicebound.edge.http.protocol import guarded_protocol
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover - the extra is installed in tests
        raise _need_extra(exc) from exc
    guards = Guards.resolve(limits, os.environ)  # refused before the store is touched
    # a sentence here, not uvicorn's traceback from the app's start-up
    check_admin_token(os.environ.get("DICEBOUND_ADMIN_TOKEN"))
    _plain_logging()
    store = open_store(db)  # migrate and fail fast, before binding the port
    sys.stderr.write(f"dicebound: store {store.dialect} at {store.engine.url!r}\n")
    app = create_app(store=store, guards=guards)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=guarded_protocol(guards),
        limit_concurrency=guards.limit_concurrency or None,
        server_header=False,  # no need to tell the world which server and version to aim at
        timeout_graceful_shutdown=guards.shutdown_timeout,
    )

    class Server(uvicorn.Server):
        """Ends the event streams as soon as it is told to stop: its graceful shutdown
        waits for every answer to finish, and a stream would not."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            hub = getattr(app.state, "events", None)
            if hub is not None:
                hub.close_soon()
            super().handle_exit(sig, frame)

    Server(config).run()
    return 0


def db_upgrade(db: str | None, out: TextIO) -> int:
    """Create or migrate the store's schema, and say where it stands."""
    try:
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise _need_extra(exc) from exc
    store = open_store(db)
    out.write(f"{store.engine.url!r}: schema at revision {store.revision()}.\n")
    store.close()
    return 0


def db_new_game(args: argparse.Namespace, out: TextIO) -> int:
    """Make a game (and put its characters) in one transaction, as the machine's own
    user, and print it as JSON with its token: the way to a first game without the
    HTTP service, for ``dicebound mcp``."""
    try:
        from dicebound.app import characters, games
        from dicebound.app.access import Access
        from dicebound.app.errors import Refusal
        from dicebound.app.rulesets import sync_packaged_rulesets
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise _need_extra(exc) from exc
    files = []
    for where in args.character:
        try:
            files.append((where, Path(where).read_bytes()))
        except OSError as exc:
            raise UsageError(f'cannot read the character file "{where}": {exc.strerror}.') from exc
    store = open_store(args.db)
    local = Access.local()
    try:
        with store.write() as session:
            sync_packaged_rulesets(session)
            made = games.create_game(
                session, local, args.name, args.ruleset, args.version, args.layer
            )
            names = []
            for where, raw in files:
                name = _character_name(where, raw)
                characters.put_character(session, local, str(made["id"]), name, raw)
                names.append(name)
    except Refusal as exc:
        lines = [exc.detail, *(f"  {p}" for p in exc.problems)]
        raise DiceboundError("\n".join(lines)) from exc
    finally:
        store.close()
    out.write(json.dumps({**made, "characters": names}, indent=2) + "\n")
    return 0


def _character_name(where: str, raw: bytes) -> str:
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str):
        raise UsageError(f'the character file "{where}" has no "name" to put it under.')
    return name


def mcp_stdio(db: str | None, game: str) -> int:
    """Serve the MCP tools over stdio for one game of the store. Standard output is the
    protocol's, so everything else goes to standard error."""
    try:
        from dicebound.app.access import Access
        from dicebound.app.errors import Refusal
        from dicebound.app.games import get_game
        from dicebound.app.rulesets import sync_packaged_rulesets
        from dicebound.edge.mcp import run_stdio
        from dicebound.store import open_store
    except ModuleNotFoundError as exc:  # pragma: no cover
        raise _need_extra(exc) from exc
    _plain_logging()
    store = open_store(db)
    try:
        with store.write() as session:
            sync_packaged_rulesets(session)
            get_game(session, Access.local(), game)  # fail fast
        run_stdio(store, game)
    except Refusal as exc:
        raise UsageError(
            f"{exc.detail} (dicebound mcp --game ID names a game of the store)"
        ) from exc
    finally:
        store.close()
    return 0
