"""What every route depends on: the store and who is calling.

A route opens its own transaction (``with store.write() as session``) and returns only
after it commits, so an answer of 200 means the write is on disk; a failure to commit
is an error answer, never a success.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from dicebound.service import Access
from dicebound.store import Store

__all__ = ["Caller", "StoreDep", "bearer_token"]

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


Caller = Annotated[Access, Depends(_caller)]
StoreDep = Annotated[Store, Depends(_store)]


async def bearer_token(connection: HTTPConnection) -> str | None:
    """The bearer token exactly as the routes read it (``Caller``), for the middleware
    that must know it before a route runs (the rate limit, the token before the body)."""
    credentials = await _bearer(connection)
    return credentials.credentials if credentials is not None else None
