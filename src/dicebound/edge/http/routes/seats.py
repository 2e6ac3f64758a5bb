"""``/games/{game}/characters/{name}/seat``: a player's token made, replaced, revoked."""

from __future__ import annotations

from fastapi import APIRouter, Response

from dicebound.app import seats
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.problems import PROBLEMS
from dicebound.edge.schemas import SeatToken

router = APIRouter(tags=["seats"], responses=PROBLEMS)


@router.post("/games/{game}/characters/{name}/seat", status_code=201, response_model=SeatToken)
def make_seat(game: str, name: str, caller: Caller, store: StoreDep) -> dict[str, object]:
    """A player's token for the character (the game master or the admin), shown once: a
    new one replaces the old, which stops at once on every process."""
    with store.write() as session:
        return {"token": seats.make_seat(session, caller, game, name)}


@router.delete("/games/{game}/characters/{name}/seat", status_code=204, response_class=Response)
def revoke_seat(game: str, name: str, caller: Caller, store: StoreDep) -> Response:
    """Revoke the character's player token (the game master or the admin): it stops at
    once on every process."""
    with store.write() as session:
        seats.revoke_seat(session, caller, game, name)
    return Response(status_code=204)
