"""``/games/{game}/fight``: the game's fight read, a combatant's options, one step."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query

from dicebound.app import fights
from dicebound.app.errors import Invalid
from dicebound.app.seeds import seed_text
from dicebound.edge.fight_schemas import FightMenuOut, FightOut, FightStepDone
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.problems import PROBLEMS
from dicebound.edge.schemas import FightIn

router = APIRouter(tags=["fights"], responses=PROBLEMS)


@router.get("/games/{game}/fight", response_model=FightOut)
def fight(game: str, caller: Caller, store: StoreDep) -> Any:
    """The game's fight: its state, summary, whose turn it is with their options (each
    with its forecast and exact odds), and the open window with the menu of the one it
    asks (null: none is open). Every seat."""
    with store.read() as session:
        return fights.read_fight(session, caller, game)


@router.get("/games/{game}/fight/options", response_model=FightMenuOut)
def options(
    game: str,
    caller: Caller,
    store: StoreDep,
    who: Annotated[str, Query(min_length=1, max_length=100)],
) -> Any:
    """A combatant's options now (its turn's, or the open window's when it asks it;
    empty otherwise), each with its forecast and odds."""
    with store.read() as session:
        return fights.fight_options(session, caller, game, who)


@router.post("/games/{game}/fight", response_model=FightStepDone)
def step(
    game: str,
    body: FightIn,
    caller: Caller,
    store: StoreDep,
    idempotency_key: Annotated[str | None, Header(min_length=1, max_length=200)] = None,
) -> Any:
    """One step of the fight, in one transaction, recorded: ``start``, ``flee`` and
    ``end`` are the game master's; a player's seat may ``act``, ``pass`` and
    ``end-turn`` as its own character on its turn. A refused step answers ``ok: false``."""
    if body.seed is not None and body.faces is not None:
        raise Invalid("give a seed or faces, not both.")
    asked = body.model_dump(exclude={"seed", "faces"})
    with store.write() as session:
        return fights.act_in_fight(
            session,
            caller,
            game,
            asked,
            seed=seed_text(body.seed),
            faces=body.faces,
            idempotency_key=idempotency_key,
        )
