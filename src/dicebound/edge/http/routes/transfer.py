"""``/games/{game}/export`` and ``/games/import``: a game carried between stores, for
the admin (``app.transfer``; docs/store-operations.md "A game carried between stores")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from dicebound.app import transfer
from dicebound.app.access import Use
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.problems import NOT_JSON, PROBLEMS, json_body
from dicebound.store.game_file import GameFile
from dicebound.store.transfer import snapshot

router = APIRouter(tags=["games"], responses=PROBLEMS)


class GameImported(BaseModel):
    """A game imported: its new tokens, shown only here, and its records renumbered
    (each id in the file, to its id in this store)."""

    game: str
    token: str
    seats: dict[str, str]
    records: int
    renumbered: dict[str, int]


@router.get(
    "/games/{game}/export",
    response_class=Response,
    responses={200: {"model": GameFile, "description": "The game file"}},
)
def export_game(game: str, caller: Caller, store: StoreDep) -> Response:
    """The game whole, as a game file (admin): its ruleset versions, party, records and
    the newest id of its events; never a token."""
    with snapshot(store) as session:
        file = transfer.export_game(session, caller, game, datetime.now(UTC))
    return Response(file.model_dump_json(), media_type="application/json")


@router.post(
    "/games/import",
    status_code=201,
    response_model=GameImported,
    responses=NOT_JSON,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/GameFile"}}},
        }
    },
)
async def import_game(request: Request, caller: Caller, store: StoreDep) -> Any:
    """Load a game file (admin), every record replayed before it commits; the game's
    new token and each seated player's, shown once."""
    caller.require_admin(Use.IMPORT_GAME)
    raw = await json_body(request, "game file")

    def work() -> dict[str, Any]:
        file = transfer.read_game_file(raw)
        with store.write() as session:
            imported = transfer.import_game(session, caller, file, datetime.now(UTC))
        return dict(transfer.imported_json(imported))

    return await run_in_threadpool(work)
