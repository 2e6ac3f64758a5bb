"""What every route depends on: the store and who is calling.

A route opens its own transaction (``with store.write() as session``) and returns only
after it commits, so an answer of 200 means the write is on disk; a failure to commit
is an error answer, never a success.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote_to_bytes

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from dicebound.service import Access, ServiceError
from dicebound.store import Store

__all__ = ["PATH_IS_UTF8", "Caller", "StoreDep"]

_bearer = HTTPBearer(auto_error=False, description="The admin token or a game's token.")


# Both are async: they never block, and a plain def would cost each request a trip
# through the thread pool.


async def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


async def _caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Access:
    token = credentials.credentials if credentials is not None else None
    return Access.of(token, request.app.state.admin_hash)


async def _path_is_utf8(request: Request) -> None:
    """Refuse a path whose percent-escapes are not UTF-8 (422) before any route reads
    it: the server reads each bad byte as U+FFFD, so a character put at ``/%FF`` would
    be stored under a name no one sent."""
    raw: bytes | None = request.scope.get("raw_path")
    if not raw:
        return
    try:
        unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError(
            422,
            "Unprocessable request",
            "the path is not UTF-8 text once its %-escapes are read; a name in a path is "
            "written in UTF-8, percent-encoded.",
        ) from None


Caller = Annotated[Access, Depends(_caller)]
StoreDep = Annotated[Store, Depends(_store)]
PATH_IS_UTF8 = Depends(_path_is_utf8)
"""For every route of the application (``FastAPI(dependencies=[PATH_IS_UTF8])``)."""
