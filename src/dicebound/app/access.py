"""Who is calling, and what they may do: bearer tokens, the seats they hold in a game,
and the one table of rights (``RIGHTS``).

A token is the admin's (every game), a game's own (its game master: everything in
that game) or a player's (one character's seat: what ``RIGHTS`` gives a player). Tokens
are kept only as their SHA-256 hashes; a token sent is compared with a kept hash in
constant time, and a player's is looked up by its hash in the store on every request,
so a seat revoked stops at once on every process (docs/design/store-and-service.md,
"Seats and rights").
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
from collections import Counter
from collections.abc import Mapping
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING

from dicebound.app.errors import Forbidden, NotFound, Unauthorized
from dicebound.errors import UsageError
from dicebound.store.repo import Game, Repo
from dicebound.values import frozen

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = [
    "ADMIN_TOKEN_BITS",
    "ADMIN_TOKEN_LEAST",
    "ADMIN_TOKEN_VARIETY",
    "NO_TOKEN",
    "PLAYER_MAY",
    "RIGHTS",
    "Access",
    "Admin",
    "GameMaster",
    "Player",
    "Seat",
    "Seated",
    "Use",
    "Who",
    "admin_token_hash",
    "check_admin_token",
    "ensure_admin_token",
    "game_token",
    "may",
    "no_game",
    "permit",
    "player_token",
    "seat_in",
    "storable",
    "token_game",
    "token_hash",
    "visible_game",
]

NO_TOKEN = "this needs the game's token or the admin token."
"""Why a game's route refuses a request that sent no token (``Unauthorized``)."""

ADMIN_TOKEN_LEAST = 32
ADMIN_TOKEN_VARIETY = 10  # different characters
ADMIN_TOKEN_BITS = 128  # its length times the Shannon entropy of its characters


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

    def require_admin(self, use: Use) -> None:
        """Refuse anyone but the admin, for a use ``RIGHTS`` gives the admin alone."""
        assert RIGHTS[use] is Who.ADMIN, use
        if self.token is None:
            raise Unauthorized(f"only the admin token may {use.value}, and no token was sent.")
        if not self.admin:
            raise Forbidden(_admin_only(use))

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


def player_token() -> str:
    """A new player's token: 256 random bits."""
    return "dbp_" + secrets.token_urlsafe(32)


# ── seats and rights ─────────────────────────────────────────────────────────


@frozen
class Admin:
    """The admin token (or the machine's own user): every game, every right."""


@frozen
class GameMaster:
    """A game's own token: everything in its game."""

    game: str


@frozen
class Player:
    """A player's token: the seat of one character of one game, with a player's rights."""

    game: str
    character: str


Seat = Admin | GameMaster | Player


class Use(Enum):
    """What a request asks to do. Each value completes "this asks to ..."; ``{who}`` is
    the character a use is about, where a player may make it for its own alone."""

    UPLOAD_RULESET = "upload a ruleset"
    MAKE_GAME = "make a game"
    DELETE_GAME = "delete a game"
    EXPORT_GAME = "export a game"
    IMPORT_GAME = "import a game"
    READ_GAME = "read the game"
    READ_PARTY = "read the party"
    READ_CHARACTER = "read a character"
    READ_RECORDS = "read the records"
    READ_RECORD = "read a record"
    READ_CARD = "read a record's card"
    VERIFY = "verify a record"
    FOLLOW_EVENTS = "follow the game's events"
    SEE_SEAT_CHANGE = "see {who}'s seat made or revoked"
    ANSWER_OFFER = "answer the after-roll offer of a record {who} rolled"
    EDIT_NOTES = "edit {who}'s notes"
    ASK_ODDS = "ask {who}'s odds"
    CHANGE_LIVE = "change a character's live state beyond its notes"
    PUT_CHARACTER = "put a character file"
    RUN_CHECKS = "resolve checks and sheet commands"
    READ_FIGHT = "read the fight"
    ACT_IN_FIGHT = "act in the fight for {who}"
    RUN_FIGHT = "start, flee or end a fight"
    READ_LESSON = "read the Game Master's lesson"
    READ_REPORT = "read the report of a character's chances"
    NEW_TOKEN = "make a new game-master token"
    MAKE_SEAT = "make a player's seat"
    REVOKE_SEAT = "revoke a player's seat"


class Who(Enum):
    """The seats a use is open to."""

    EVERY_SEAT = "every seat of the game"
    OWN_CHARACTER = "the admin, the game master, and a player for its own character"
    GAME_MASTER = "the admin and the game master"
    ADMIN = "the admin alone"


RIGHTS: Mapping[Use, Who] = MappingProxyType(
    {
        Use.UPLOAD_RULESET: Who.ADMIN,
        Use.MAKE_GAME: Who.ADMIN,
        Use.DELETE_GAME: Who.ADMIN,
        Use.EXPORT_GAME: Who.ADMIN,
        Use.IMPORT_GAME: Who.ADMIN,
        Use.READ_GAME: Who.EVERY_SEAT,
        Use.READ_PARTY: Who.EVERY_SEAT,
        Use.READ_CHARACTER: Who.EVERY_SEAT,
        Use.READ_RECORDS: Who.EVERY_SEAT,
        Use.READ_RECORD: Who.EVERY_SEAT,
        Use.READ_CARD: Who.EVERY_SEAT,
        Use.VERIFY: Who.EVERY_SEAT,
        Use.FOLLOW_EVENTS: Who.EVERY_SEAT,
        Use.SEE_SEAT_CHANGE: Who.OWN_CHARACTER,
        Use.ANSWER_OFFER: Who.OWN_CHARACTER,
        Use.EDIT_NOTES: Who.OWN_CHARACTER,
        Use.ASK_ODDS: Who.OWN_CHARACTER,
        Use.CHANGE_LIVE: Who.GAME_MASTER,
        Use.PUT_CHARACTER: Who.GAME_MASTER,
        Use.RUN_CHECKS: Who.GAME_MASTER,
        Use.READ_FIGHT: Who.EVERY_SEAT,
        Use.ACT_IN_FIGHT: Who.OWN_CHARACTER,
        Use.RUN_FIGHT: Who.GAME_MASTER,
        Use.READ_LESSON: Who.GAME_MASTER,
        Use.READ_REPORT: Who.GAME_MASTER,
        Use.NEW_TOKEN: Who.GAME_MASTER,
        Use.MAKE_SEAT: Who.GAME_MASTER,
        Use.REVOKE_SEAT: Who.GAME_MASTER,
    }
)
"""Every use and the seats it is open to: the one place a right is decided. Routes and
tools name their use; ``permit`` reads this table and words the refusal."""

PLAYER_MAY = (
    "a player's seat may read the game, the party, the records, the cards and the fight, "
    "answer its own character's after-roll offer, edit its own character's notes, ask its "
    "own odds and act in the fight as its own character on its turn"
)
"""What a player may do, as every refusal of a player says it."""


def may(seat: Seat, use: Use, character: str | None = None) -> bool:
    """Whether ``RIGHTS`` lets ``seat`` make ``use``; ``character`` is whom the use is
    about, for a use a player may make for its own character alone."""
    who = RIGHTS[use]
    if isinstance(seat, Admin):
        return True
    if who is Who.ADMIN:
        return False
    if isinstance(seat, GameMaster) or who is Who.EVERY_SEAT:
        return True
    return who is Who.OWN_CHARACTER and character == seat.character


def _admin_only(use: Use) -> str:
    return f"only the admin token may {use.value}; the token sent is not it."


def permit(seat: Seat, use: Use, character: str | None = None) -> None:
    """Refuse (``Forbidden``) what ``may`` does not allow, in a sentence: for a player,
    what its seat may do and what this asks for; for a use of the admin's, who may."""
    if may(seat, use, character):
        return
    if RIGHTS[use] is Who.ADMIN or not isinstance(seat, Player):
        raise Forbidden(_admin_only(use))
    asks = use.value
    if RIGHTS[use] is Who.OWN_CHARACTER:
        whom = character if character is not None else "another character"
        asks = f"{asks.format(who=whom)}, and this seat is {seat.character}'s"
    raise Forbidden(f"{PLAYER_MAY}; this asks to {asks}.")


@frozen
class Seated:
    """A game as the caller reaches it, and the seat the caller holds there."""

    game: Game
    seat: Seat

    def allow(self, use: Use, character: str | None = None) -> Game:
        """The game, if the seat may make ``use`` (about ``character``); else ``Forbidden``."""
        permit(self.seat, use, character)
        return self.game


def no_game(game_id: str) -> NotFound:
    """How a game's route answers a token that holds no seat there: exactly as a game
    that does not exist, so a token learns nothing of games not its own."""
    return NotFound(f'no game "{game_id}" is here.')


def token_game(repo: Repo, hashed: str) -> str | None:
    """The game a token (by its hash) is the game master's or a player's token of, or
    None. A token belongs to one game for its whole life: a new token is made, never
    moved, so a token's game, once found, is never another game's."""
    return repo.game_of_token(hashed) or repo.game_of_seat(hashed)


def seat_in(repo: Repo, access: Access, game_id: str, *, lock: bool = False) -> Seated:
    """The game and the caller's seat in it: the admin's, the game master's (the game's
    own token) or a player's (a seat's token, looked up in the store on every request).
    Any other token is answered exactly as a game that does not exist."""
    token = access.require_token()
    game = repo.game(game_id, lock=lock) if storable(game_id, 40) else None
    if game is not None:
        if access.admin:
            return Seated(game, Admin())
        hashed = token_hash(token)
        if hmac.compare_digest(hashed, game.token_hash):
            return Seated(game, GameMaster(game.id))
        character = repo.seat_of(game.id, hashed)
        if character is not None:
            return Seated(game, Player(game.id, character))
    raise no_game(game_id)


def visible_game(repo: Repo, access: Access, game_id: str, use: Use, *, lock: bool = False) -> Game:
    """The game, if the caller holds a seat in it (else 404, as if it did not exist) and
    ``RIGHTS`` lets that seat make ``use`` (else ``Forbidden``). A use a player may make
    for its own character alone needs ``seat_in`` and ``Seated.allow`` with the
    character, once it is known."""
    return seat_in(repo, access, game_id, lock=lock).allow(use)


# ── the admin token ──────────────────────────────────────────────────────────


_MAKE_ONE = (
    "so that it cannot be guessed: make one with "
    "python -c 'import secrets; print(secrets.token_urlsafe(32))'."
)


def _shannon_bits(token: str) -> float:
    """The token's length times the Shannon entropy of its characters' frequencies: an
    estimate of what a guesser must cover, low for a token of few or repeated characters
    (32 hex digits: about 116; ``secrets.token_urlsafe(32)``: 180 and more)."""
    length = len(token)
    return -sum(n * math.log2(n / length) for n in Counter(token).values())


def check_admin_token(token: str | None) -> None:
    """Refuse an admin token that could be guessed or cannot be sent, before anything
    is opened or written. None (or empty) is no token: the stored one is used, or one
    is made.

    Raises:
        UsageError: shorter than ``ADMIN_TOKEN_LEAST``, not one word of printable ASCII,
            made of fewer than ``ADMIN_TOKEN_VARIETY`` different characters, or holding
            fewer than ``ADMIN_TOKEN_BITS`` by ``_shannon_bits``.
    """
    if not token:
        return
    if len(token) < ADMIN_TOKEN_LEAST:
        count = f"{len(token)} character{'' if len(token) == 1 else 's'}"
        raise UsageError(
            f"DICEBOUND_ADMIN_TOKEN is {count} long, and an admin token needs at least "
            f"{ADMIN_TOKEN_LEAST} {_MAKE_ONE}"
        )
    if not re.fullmatch(r"[\x21-\x7e]+", token):
        raise UsageError(
            "DICEBOUND_ADMIN_TOKEN must be printable ASCII without spaces, as it is sent "
            "in an Authorization header."
        )
    variety = len(set(token))
    if variety < ADMIN_TOKEN_VARIETY:
        kinds = f"{variety} different character{'' if variety == 1 else 's'}"
        raise UsageError(
            f"DICEBOUND_ADMIN_TOKEN is made of {kinds}, and an admin token needs at least "
            f"{ADMIN_TOKEN_VARIETY} {_MAKE_ONE}"
        )
    bits = _shannon_bits(token)
    if bits < ADMIN_TOKEN_BITS:
        raise UsageError(
            f"DICEBOUND_ADMIN_TOKEN holds about {math.floor(bits)} bits by the variety of its "
            "characters (its length times their Shannon entropy), and an admin token needs "
            f"at least {ADMIN_TOKEN_BITS} {_MAKE_ONE}"
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
