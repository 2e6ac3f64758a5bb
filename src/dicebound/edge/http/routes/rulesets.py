"""``/rulesets`` and ``/roll``: reading needs no token, uploading the admin's."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from dicebound import service
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.problems import PROBLEMS, decode_body
from dicebound.edge.http.schemas import RollIn, RollOut, RulesetEntry, RulesetStored, RulesetTried

router = APIRouter(tags=["rulesets"])

_OBJECT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}


@router.get("/rulesets", response_model=list[RulesetEntry])
def list_rulesets(store: StoreDep) -> list[dict[str, object]]:
    """The packaged rulesets and those uploaded, every stored version."""
    with store.read() as session:
        return service.list_rulesets(session)


@router.post(
    "/rulesets",
    status_code=201,
    response_model=RulesetStored,
    responses={**PROBLEMS, 200: {"model": RulesetStored, "description": "Already stored"}},
    openapi_extra=_OBJECT_BODY,
)
async def upload_ruleset(
    request: Request, response: Response, caller: Caller, store: StoreDep
) -> Any:
    """Store a ruleset file (admin). The same id, version and content again is 200."""
    raw = await request.body()

    def work() -> tuple[dict[str, object], bool]:
        caller.require_admin("upload a ruleset")
        text = decode_body(raw, "ruleset")
        with store.write() as session:
            return service.put_ruleset(session, caller, text)

    answer, made = await run_in_threadpool(work)
    response.status_code = 201 if made else 200
    return answer


@router.post(
    "/rulesets/check", response_model=RulesetTried, responses=PROBLEMS, openapi_extra=_OBJECT_BODY
)
async def check_ruleset(request: Request) -> Any:
    """Check a ruleset file without storing it (anyone): every problem with its JSON
    path, line and column; when valid, what ``gm`` teaches from it."""
    raw = await request.body()

    def work() -> dict[str, object]:
        return service.try_ruleset(decode_body(raw, "ruleset"))

    return await run_in_threadpool(work)


@router.get("/rulesets/{ruleset_id}", responses=PROBLEMS)
def get_ruleset(
    ruleset_id: str,
    store: StoreDep,
    version: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> Response:
    """The ruleset file as stored: the newest version, or ``?version=N``."""
    with store.read() as session:
        text = service.get_ruleset(session, ruleset_id, version)
    return Response(text, media_type="application/json")


@router.post("/roll", response_model=RollOut, responses=PROBLEMS)
def roll(body: RollIn, store: StoreDep) -> dict[str, Any]:
    """Throw a symbol pool's dice by name: ``2 ability 1 proficiency vs 2 difficulty``."""
    seed = None if body.seed is None else str(body.seed)
    with store.read() as session:
        return service.roll_dice(session, body.ruleset, body.version, body.dice, seed)
