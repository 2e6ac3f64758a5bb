"""``dicebound serve`` and ``dicebound db upgrade``: the service's own commands.

Imported only when one of them runs, so the rest of the command line works without
the ``[serve]`` extra installed.
"""

from __future__ import annotations

import sys
from typing import TextIO

from dicebound.errors import UsageError

__all__ = ["db_upgrade", "serve"]


def _need_extra() -> UsageError:
    return UsageError(
        "the service needs the [serve] extra: pip install 'dicebound[serve]' "
        "(FastAPI, uvicorn, SQLAlchemy, Alembic, psycopg)."
    )


def serve(db: str | None, host: str, port: int) -> int:
    """Run the HTTP service until interrupted."""
    try:
        import uvicorn

        from dicebound.edge.http import create_app
        from dicebound.store import open_store
    except ImportError as exc:  # pragma: no cover - the extra is installed in tests
        raise _need_extra() from exc
    store = open_store(db)  # migrate and fail fast, before binding the port
    sys.stderr.write(f"dicebound: store {store.dialect} at {store.engine.url!r}\n")
    app = create_app(store=store)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0


def db_upgrade(db: str | None, out: TextIO) -> int:
    """Create or migrate the store's schema, and say where it stands."""
    try:
        from dicebound.store import open_store
    except ImportError as exc:  # pragma: no cover
        raise _need_extra() from exc
    store = open_store(db)
    out.write(f"{store.engine.url!r}: schema at revision {store.revision()}.\n")
    store.close()
    return 0
