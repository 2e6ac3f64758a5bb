"""What every route depends on: the store and who is calling.

A route opens its own transaction (``with store.write() as session``) and returns only
after it commits, so an answer of 200 means the write is on disk; a failure to commit
is an error answer, never a success.
"""

from __future__ import annotations

import threading
import time
from typing import Annotated
from urllib.parse import unquote_to_bytes

from fastapi import Depends, Request
from fastapi.security import HTTPBearer
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.types import Scope

from dicebound.app.access import Access, admin_token_hash
from dicebound.app.errors import Invalid
from dicebound.store import Store

__all__ = [
    "ADMIN_HASH_SECONDS",
    "AdminHash",
    "Caller",
    "StoreDep",
    "path_refusal",
    "request_token",
]

ADMIN_HASH_SECONDS = 2.0

_TOKEN = "dicebound.token"  # the scope's key for its bearer token, once read


def request_token(scope: Scope) -> str | None:
    """The request's bearer token, read as FastAPI's ``HTTPBearer`` reads it (the first
    ``Authorization`` header, scheme ``Bearer`` in any case), once: kept in the scope
    for the middleware and the route that ask again."""
    if _TOKEN in scope:
        token: str | None = scope[_TOKEN]
        return token
    token = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, param = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and param.strip():
                token = param.strip()
            break
    scope[_TOKEN] = token
    return token


class _Bearer(HTTPBearer):
    """Who is calling, as one dependency: the bearer token (``request_token``) read
    against the admin token's hash. A security scheme, so the API's document says how
    to send the token; one dependency, not two, so FastAPI solves one per request."""

    async def __call__(  # type: ignore[override]
        self, request: HTTPConnection
    ) -> Access:
        token = request_token(request.scope)
        if token is None:
            return Access(None, False)
        admin_hash: AdminHash = request.app.state.admin_hash
        return Access.of(token, await admin_hash.current())


_caller = _Bearer(
    scheme_name="HTTPBearer", auto_error=False, description="The admin token or a game's token."
)


class AdminHash:
    """The admin token's hash as the store keeps it, held for ``seconds`` and then read
    again: a new admin token (a process started with another ``DICEBOUND_ADMIN_TOKEN``)
    reaches every running process within that time, and the old one stops working.

    ``app.state.admin_hash`` is one of these: call it (``admin_hash()``, which may read
    the store) from a thread, or ``await admin_hash.current()`` from the event loop.
    """

    def __init__(
        self, store: Store, known: str | None, seconds: float = ADMIN_HASH_SECONDS
    ) -> None:
        self._store = store
        self._seconds = seconds
        self._hash = known
        self._read_at = time.monotonic()
        self._reading = threading.Lock()

    def _fresh(self) -> bool:
        return time.monotonic() - self._read_at < self._seconds

    def __call__(self) -> str | None:
        """The hash: the one held while it is fresh, else read from the store (one
        thread reads; the others wait for it)."""
        if self._fresh():
            return self._hash
        with self._reading:
            if not self._fresh():
                with self._store.read() as session:
                    self._hash = admin_token_hash(session)
                self._read_at = time.monotonic()
            return self._hash

    async def current(self) -> str | None:
        """The hash, without blocking the event loop when it must be read again."""
        if self._fresh():
            return self._hash
        return await run_in_threadpool(self)


# Both are async: they never block, and a plain def would cost each request a trip
# through the thread pool (the admin hash is read in one only every few seconds).


async def _store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def path_refusal(scope: Scope) -> Invalid | None:
    """A path whose percent-escapes are not UTF-8, refused (422) before any route reads
    it: the server reads each bad byte as U+FFFD, so a character put at ``/%FF`` would
    be stored under a name no one sent. (``guards.Guard`` asks, for every request.)"""
    raw: bytes | None = scope.get("raw_path")
    if not raw or b"%" not in raw:
        return None
    try:
        unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return Invalid(
            "the path is not UTF-8 text once its %-escapes are read; a name in a path is "
            "written in UTF-8, percent-encoded."
        )
    return None


Caller = Annotated[Access, Depends(_caller)]
StoreDep = Annotated[Store, Depends(_store)]
