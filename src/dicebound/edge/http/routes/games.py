"""``/games``: a game, its characters, their live state, the Game Master's text, odds."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from dicebound.app import characters, games
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.problems import NOT_JSON, PROBLEMS, json_body
from dicebound.edge.schemas import (
    CharacterOut,
    CharacterStored,
    GameEntry,
    GameIn,
    GameMade,
    GameOut,
    GameToken,
    GmOut,
    LiveOut,
    LivePatch,
    OddsIn,
    OddsOut,
    PartyOut,
    ReportOut,
    plain,
)

router = APIRouter(tags=["games"], responses=PROBLEMS)

_CHARACTER_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}


@router.post("/games", status_code=201, response_model=GameMade)
def create_game(body: GameIn, caller: Caller, store: StoreDep) -> dict[str, object]:
    """Make a game (admin), pinned to a ruleset version; its token is shown only here."""
    with store.write() as session:
        return games.create_game(
            session, caller, body.name, body.ruleset, body.version, body.layers
        )


@router.get("/games", response_model=list[GameEntry])
def list_games(caller: Caller, store: StoreDep) -> Any:
    """The games the token may see: all of them for the admin, its own for a game's."""
    with store.read() as session:
        return plain(games.list_games(session, caller))


@router.get("/games/{game}", response_model=GameOut)
def get_game(game: str, caller: Caller, store: StoreDep) -> Any:
    with store.read() as session:
        return plain(games.get_game(session, caller, game))


@router.delete("/games/{game}", status_code=204, response_class=Response)
def delete_game(game: str, caller: Caller, store: StoreDep) -> Response:
    """Delete a game (admin) and everything it holds: characters, records, keys."""
    with store.write() as session:
        games.delete_game(session, caller, game)
    return Response(status_code=204)


@router.post("/games/{game}/token", response_model=GameToken)
def new_token(game: str, caller: Caller, store: StoreDep) -> dict[str, object]:
    """A new token for the game (its own token or the admin's), shown once: the old
    one stops working at once, on every process."""
    with store.write() as session:
        return {"token": games.new_game_token(session, caller, game)}


@router.put(
    "/games/{game}/characters/{name}",
    response_model=CharacterStored,
    responses={**NOT_JSON, 201: {"model": CharacterStored, "description": "Made"}},
    openapi_extra=_CHARACTER_BODY,
)
async def put_character(
    game: str, name: str, request: Request, response: Response, caller: Caller, store: StoreDep
) -> Any:
    """Put a character file (docs/design/format.md "Characters"): 201 when new, 200 when
    replaced."""
    raw = await json_body(request, "character file")

    def work() -> characters.CharacterStored:
        with store.write() as session:
            return characters.put_character(session, caller, game, name, raw)

    stored = await run_in_threadpool(work)
    response.status_code = 201 if stored.made else 200
    response.headers["ETag"] = f'"{stored.revision}"'
    return {"name": stored.name, "revision": stored.revision}


@router.get("/games/{game}/characters/{name}", response_model=CharacterOut)
def get_character(game: str, name: str, caller: Caller, store: StoreDep, response: Response) -> Any:
    """The sheet, the live state and its revision (also the ETag, for If-Match)."""
    with store.read() as session:
        found = characters.get_character(session, caller, game, name)
    response.headers["ETag"] = f'"{found.revision}"'
    return plain(found)


@router.patch("/games/{game}/characters/{name}/live", response_model=LiveOut)
def patch_live(
    game: str,
    name: str,
    body: LivePatch,
    caller: Caller,
    store: StoreDep,
    response: Response,
    if_match: Annotated[str | None, Header(max_length=40)] = None,
) -> Any:
    """Mark harm or refill pools; ``If-Match`` must carry the revision last read."""
    # If-Match: an entity tag, weak or strong, or the bare number
    patch = body.model_dump(exclude_none=True)
    seen = if_match.strip().removeprefix("W/").strip('"') if if_match is not None else None
    with store.write() as session:
        changed = characters.patch_live(session, caller, game, name, seen, patch)
    response.headers["ETag"] = f'"{changed.revision}"'
    return plain(changed)


@router.get("/games/{game}/gm", response_model=GmOut)
def gm(
    game: str,
    caller: Caller,
    store: StoreDep,
    character: Annotated[str | None, Query(max_length=100)] = None,
    skill: Annotated[str | None, Query(max_length=100)] = None,
) -> dict[str, str]:
    """What ``dicebound gm`` prints, for the model's prompt; with a character, the
    chance at every step."""
    with store.read() as session:
        return {"text": games.gm_for_game(session, caller, game, character, skill)}


@router.post("/games/{game}/odds", response_model=OddsOut)
def odds(game: str, body: OddsIn, caller: Caller, store: StoreDep) -> dict[str, object]:
    """The exact chance of every outcome of one tag, as ``odds --json``."""
    after = (body.after.pool, body.after.points) if body.after is not None else None
    with store.read() as session:
        return games.odds_for_game(session, caller, game, body.tag, body.who, after)


@router.get("/games/{game}/party", response_model=PartyOut)
def party(game: str, caller: Caller, store: StoreDep) -> Any:
    """Every character with its live state, and each pool and track as numbers."""
    with store.read() as session:
        return {"characters": plain(games.party_of_game(session, caller, game))}


@router.get("/games/{game}/report", response_model=ReportOut)
def report(
    game: str,
    caller: Caller,
    store: StoreDep,
    character: Annotated[str | None, Query(max_length=100)] = None,
) -> dict[str, object]:
    """Every check of a character at every ladder step, exactly (``dicebound report``)."""
    with store.read() as session:
        return games.report_for_game(session, caller, game, character)
