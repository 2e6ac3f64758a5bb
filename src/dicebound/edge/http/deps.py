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

from dicebound.app.access import Access, admin_token_hash, token_game
from dicebound.app.errors import Invalid
from dicebound.store import Store
from dicebound.store.repo import Repo

__all__ = [
    "ADMIN_HASH_SECONDS",
    "TOKEN_GAME_SECONDS",
    "TOKEN_KNOWN_SECONDS",
    "AdminHash",
    "Caller",
    "StoreDep",
    "TokenGames",
    "path_refusal",
    "request_token",
]

ADMIN_HASH_SECONDS = 2.0
TOKEN_GAME_SECONDS = 2.0  # how long a process holds a token's game
TOKEN_KNOWN_SECONDS = 60.0  # how long it knows a token was found in a game

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

    @property
    def held(self) -> str | None:
        """The hash last read, however old: for ``/metrics`` while the store is down."""
        return self._hash

    async def current(self) -> str | None:
        """The hash, without blocking the event loop when it must be read again."""
        if self._fresh():
            return self._hash
        return await run_in_threadpool(self)


class TokenGames:
    """The game each token belongs to (its game master's or a player's token), as the
    store says, held for ``seconds`` after it was read: the guard asks on every request
    that carries a token (a game's rate, a token no one holds refused before its body),
    and reads the store for a token once in that time, not on every request.

    A token's game never changes (``access.token_game``), so what is held is never
    wrong about which game; but a token replaced or revoked is held for up to
    ``seconds`` more, on each process, as a token of its game: charged to that game's
    rate and let through to its route, which reads the store and refuses it at once.
    A token found in no game is not held: a flood of invented tokens would fill the
    table, and the guard's rate by address bounds how often they are looked up. A token
    found in a game is ``known`` for ``known_seconds`` (read again when asked), so the
    guard still looks it up while a flood from its address stops strangers.

    Asked on the event loop only (the table is not shared with threads).
    """

    def __init__(
        self,
        store: Store,
        seconds: float = TOKEN_GAME_SECONDS,
        known_seconds: float = TOKEN_KNOWN_SECONDS,
    ) -> None:
        self._store = store
        self._seconds = seconds
        self._known_seconds = known_seconds
        self._found: dict[str, tuple[str, float]] = {}  # token hash -> (game, read at)
        self._sweep_at = 0.0

    def _read_at(self, hashed: str, now: float) -> tuple[str, float] | None:
        if now >= self._sweep_at:  # what is no longer known forgotten, now and then
            stale = now - self._known_seconds
            self._found = {k: found for k, found in self._found.items() if found[1] > stale}
            self._sweep_at = now + self._seconds
        return self._found.get(hashed)

    def known(self, hashed: str) -> bool:
        """Whether the token was found in a game within ``known_seconds``."""
        now = time.monotonic()
        found = self._read_at(hashed, now)
        return found is not None and now - found[1] < self._known_seconds

    async def game(self, hashed: str) -> str | None:
        """A token's game: the one held, else read from the store in a thread (None:
        the token is no game's)."""
        now = time.monotonic()
        found = self._read_at(hashed, now)
        if found is not None and now - found[1] < self._seconds:
            return found[0]
        game = await run_in_threadpool(self._read, hashed)
        if game is not None:
            self._found[hashed] = (game, now)
        else:
            self._found.pop(hashed, None)
        return game

    def _read(self, hashed: str) -> str | None:
        with self._store.glance() as session:
            return token_game(Repo(session), hashed)


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
