"""Players' seats: the game master (or the admin) gives a character's player a token of
its own, with a player's rights (``access.RIGHTS``), and takes it back.

A seat is made and revoked here alone, in the caller's transaction, which also writes
its ``seat`` event under the game's row lock (shown only to the seats that may see it:
``app.events.shown``).
The token is shown once and kept as its hash; the store is read on every request, so
a token replaced or revoked stops as the transaction commits, on every process.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from dicebound.app import events
from dicebound.app.access import Access, Use, player_token, token_hash, visible_game
from dicebound.app.characters import member_of
from dicebound.app.errors import NotFound
from dicebound.store.repo import Repo

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

__all__ = ["make_seat", "revoke_seat"]


def make_seat(session: Session, access: Access, game_id: str, name: str) -> str:
    """A new player's token for a character of the game, shown once; it replaces the
    seat's old token, which stops as this commits."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.MAKE_SEAT, lock=True)
    member = member_of(repo, game, name, lock=True)
    token = player_token()
    repo.put_seat(game.id, member.name, token_hash(token), datetime.now(UTC))
    events.seat_event(repo, game.id, member.name, made=True)
    return token


def revoke_seat(session: Session, access: Access, game_id: str, name: str) -> None:
    """Take a character's seat back: its token stops as this commits. A character
    without a seat is refused (``NotFound``), so a revoke that found nothing says so."""
    repo = Repo(session)
    game = visible_game(repo, access, game_id, Use.REVOKE_SEAT, lock=True)
    member = member_of(repo, game, name, lock=True)
    if not repo.delete_seat(game.id, member.name):
        raise NotFound(f'"{member.name}" has no player\'s seat to revoke.')
    events.seat_event(repo, game.id, member.name, made=False)
