"""Who is calling, and what they may see: bearer tokens, the admin token, a game's own.

Tokens are kept only as their SHA-256 hashes; a token sent is compared with a kept
hash in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TYPE_CHECKING

from dicebound.app.errors import Forbidden, NotFound, Unauthorized
from dicebound.errors import UsageError
from dicebound.store.repo import Game, Repo
from dicebound.values import frozen

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = [
    "ADMIN_TOKEN_LEAST",
    "NO_TOKEN",
    "Access",
    "admin_token_hash",
    "check_admin_token",
    "ensure_admin_token",
    "game_token",
    "storable",
    "token_hash",
    "visible_game",
]

NO_TOKEN = "this needs the game's token or the admin token."
"""Why a game's route refuses a request that sent no token (``Unauthorized``)."""

ADMIN_TOKEN_LEAST = 32


def token_hash(token: str) -> str:
    """How a token is kept: SHA-256 (tokens are 256 random bits, so no slow hash is needed)."""
    return hashlib.sha256(token.encode("utf-8", errors="replace")).hexdigest()


@frozen
class Access:
    """Who is calling: the bearer token as sent (or None) and whether it is the admin's."""

    token: str | None
    admin: bool

    @staticmethod
    def of(token: str | None, admin_hash: str | None) -> Access:
        """Read a bearer token against the admin token's hash, in constant time."""
        if token is None:
            return Access(None, False)
        is_admin = admin_hash is not None and hmac.compare_digest(token_hash(token), admin_hash)
        return Access(token, is_admin)

    @staticmethod
    def local() -> Access:
        """The machine's own user (``dicebound mcp`` over stdio): whoever can open the
        store itself may already do everything in it."""
        return Access("", True)

    def require_admin(self, action: str) -> None:
        """Refuse anyone but the admin; ``action`` completes "only the admin token may"."""
        if self.token is None:
            raise Unauthorized(f"only the admin token may {action}, and no token was sent.")
        if not self.admin:
            raise Forbidden(f"only the admin token may {action}; the token sent is not it.")

    def require_token(self) -> str:
        """The token sent; refused when none was."""
        if self.token is None:
            raise Unauthorized(NO_TOKEN)
        return self.token


def storable(name: str, most: int = 100) -> bool:
    """Whether a name from a path could be stored at all (else nothing has it)."""
    return 0 < len(name) <= most and name.isprintable()


def game_token() -> str:
    """A new game token: 256 random bits."""
    return "dbg_" + secrets.token_urlsafe(32)


def visible_game(repo: Repo, access: Access, game_id: str, *, lock: bool = False) -> Game:
    """The game, if the caller may see it: the admin, or this game's own token.

    Any other token is answered exactly as a game that does not exist.
    """
    token = access.require_token()
    game = repo.game(game_id, lock=lock) if storable(game_id, 40) else None
    allowed = game is not None and (
        access.admin or hmac.compare_digest(token_hash(token), game.token_hash)
    )
    if game is None or not allowed:
        raise NotFound(f'no game "{game_id}" is here.')
    return game


# ── the admin token ──────────────────────────────────────────────────────────


def check_admin_token(token: str | None) -> None:
    """Refuse an admin token that could be guessed or cannot be sent, before anything
    is opened or written. None (or empty) is no token: the stored one is used, or one
    is made.

    Raises:
        UsageError: shorter than ``ADMIN_TOKEN_LEAST``, or not one word of printable ASCII.
    """
    if not token:
        return
    if len(token) < ADMIN_TOKEN_LEAST:
        count = f"{len(token)} character{'' if len(token) == 1 else 's'}"
        raise UsageError(
            f"DICEBOUND_ADMIN_TOKEN is {count} long, and an admin token needs at least "
            f"{ADMIN_TOKEN_LEAST} so that it cannot be guessed: make one with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'."
        )
    if not re.fullmatch(r"[\x21-\x7e]+", token):
        raise UsageError(
            "DICEBOUND_ADMIN_TOKEN must be printable ASCII without spaces, as it is sent "
            "in an Authorization header."
        )


def admin_token_hash(session: Session) -> str | None:
    """The admin token's hash as the store keeps it now (None before the first start)."""
    return Repo(session).admin_hash()


def ensure_admin_token(session: Session, from_env: str | None) -> tuple[str, str | None]:
    """The admin token's hash, and the token itself when this call made it.

    ``DICEBOUND_ADMIN_TOKEN`` (``from_env``) wins and its hash is stored; without it the
    first start makes a token, stores only its hash, and returns it once to be printed.
    Processes starting together on one store may all call this at once: each write
    says ON CONFLICT, so none fails, and only the process whose token was kept prints it.
    """
    check_admin_token(from_env)
    repo = Repo(session)
    stored = repo.admin_hash()
    if from_env:
        wanted = token_hash(from_env)
        if stored != wanted:
            repo.set_admin_hash(wanted)
        return wanted, None
    if stored is not None:
        return stored, None
    made = "dba_" + secrets.token_urlsafe(32)
    repo.keep_admin_hash(token_hash(made))
    kept = repo.admin_hash()
    assert kept is not None
    return kept, made if kept == token_hash(made) else None
