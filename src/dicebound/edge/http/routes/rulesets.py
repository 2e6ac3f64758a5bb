"""``/rulesets`` and ``/roll``: reading needs no token, uploading the admin's."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio
import anyio.to_thread
from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from dicebound.app import rulesets
from dicebound.app.access import Use
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.problems import NOT_JSON, PROBLEMS, HttpProblem, decode_body, json_body
from dicebound.edge.schemas import (
    ProblemOut,
    RollIn,
    RollOut,
    RulesetEntry,
    RulesetStored,
    RulesetTried,
    plain,
)

router = APIRouter(tags=["rulesets"])

_T = TypeVar("_T")

_OBJECT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}


@router.get("/rulesets", response_model=list[RulesetEntry])
def list_rulesets(store: StoreDep) -> Any:
    """The packaged rulesets and those uploaded, every stored version."""
    with store.read() as session:
        return plain(rulesets.list_rulesets(session))


@router.post(
    "/rulesets",
    status_code=201,
    response_model=RulesetStored,
    responses={
        **PROBLEMS,
        **NOT_JSON,
        200: {"model": RulesetStored, "description": "Already stored"},
    },
    openapi_extra=_OBJECT_BODY,
)
async def upload_ruleset(
    request: Request, response: Response, caller: Caller, store: StoreDep
) -> Any:
    """Store a ruleset file (admin). The same id, version and content again is 200."""
    raw = await json_body(request, "ruleset")

    def work() -> tuple[dict[str, object], bool]:
        caller.require_admin(Use.UPLOAD_RULESET)
        text = decode_body(raw, "ruleset")
        with store.write() as session:
            return rulesets.put_ruleset(session, caller, text)

    answer, made = await run_in_threadpool(work)
    response.status_code = 201 if made else 200
    return answer


CHECK_SECONDS = 2.0
"""Processor seconds one ruleset check may take before it is abandoned (503). The
worst file of 256 KB takes well under one (``bench/ruleset_check.py``); a check past
this, or one whose client went away, is stopped, so no one without a token holds the
processor longer. Processor time, not time waited: a busy machine stops no check."""


CHECKS_AT_ONCE = 1
CHECKS_WAITING = 8
"""Ruleset checks run one at a time in a service process, and at most this many wait
for their turn; past that a check is refused at once (503). A check is pure Python: two
at once would only share the interpreter, and slow every other request the more (with
three of the worst running together, ``/health`` took 280 ms at the median; one at a
time, 60 ms)."""


class CheckTurns:
    """Whose turn it is to check a ruleset in this application, and how many wait."""

    def __init__(self, at_once: int, waiting: int) -> None:
        self.limiter = anyio.CapacityLimiter(at_once)
        self.most = at_once + waiting
        self.now = 0


def _turns(request: Request) -> CheckTurns:
    """The application's turns, made on first use (inside its event loop)."""
    state = request.app.state
    turns: CheckTurns | None = getattr(state, "ruleset_checks", None)
    if turns is None:
        turns = state.ruleset_checks = CheckTurns(CHECKS_AT_ONCE, CHECKS_WAITING)
    return turns


class Abandoned(Exception):
    """Raised in the checking thread, at a checkpoint, once its answer is not wanted."""


async def within_budget(
    seconds: float,
    request: Request,
    work: Callable[[Callable[[], None]], _T],
    limiter: anyio.CapacityLimiter | None = None,
) -> _T:
    """``work(checkpoint)`` in a worker thread (when ``limiter`` gives it a turn). Its
    ``checkpoint()`` raises ``Abandoned`` once the thread has used ``seconds`` of
    processor time or the client has gone away (watched every 50 ms, also while it
    waits for its turn), so the work stops there; either answers 503."""
    gone = threading.Event()
    started: list[float] = []
    done: list[_T] = []
    failed: list[Exception] = []

    def checkpoint() -> None:
        if gone.is_set():
            raise Abandoned("its client went away")
        if time.thread_time() - started[0] > seconds:
            raise Abandoned(f"it took more than {seconds:g} seconds of the processor")

    def run_work() -> _T:
        started.append(time.thread_time())
        return work(checkpoint)

    async def run(group: anyio.CancelScope) -> None:
        try:
            done.append(
                await anyio.to_thread.run_sync(run_work, abandon_on_cancel=True, limiter=limiter)
            )
        except Exception as exc:  # carried out of the group as it is
            failed.append(exc)
        group.cancel()

    async def watch(group: anyio.CancelScope) -> None:
        while not await request.is_disconnected():
            await anyio.sleep(0.05)
        gone.set()
        group.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(run, group.cancel_scope)
        group.start_soon(watch, group.cancel_scope)
    if done:
        return done[0]
    why = failed[0] if failed else Abandoned("its client went away")
    if not isinstance(why, Abandoned):
        raise why
    raise HttpProblem(
        503,
        "Unavailable",
        f"checking the ruleset was stopped: {why}. Try again, or check the file a part at a time.",
    )


@router.post(
    "/rulesets/check",
    response_model=RulesetTried,
    responses={
        **PROBLEMS,
        **NOT_JSON,
        503: {
            "model": ProblemOut,
            "description": "Past its time, its client gone, or too many checks waiting",
        },
    },
    openapi_extra=_OBJECT_BODY,
)
async def check_ruleset(request: Request) -> Any:
    """Check a ruleset file without storing it (anyone): the first 200 problems, each
    with its JSON path, line and column, and how many more; when valid, what ``gm``
    teaches from it. One at a time (``CHECKS_AT_ONCE``), abandoned past
    ``CHECK_SECONDS`` or when the client goes away."""
    raw = await json_body(request, "ruleset")
    turns = _turns(request)
    if turns.now >= turns.most:
        raise HttpProblem(
            503,
            "Unavailable",
            f"{turns.most} ruleset checks are already running or waiting here; try again "
            "in a moment.",
        )

    def work(checkpoint: Callable[[], None]) -> dict[str, object]:
        return rulesets.try_ruleset(decode_body(raw, "ruleset"), checkpoint=checkpoint)

    turns.now += 1
    try:
        return await within_budget(CHECK_SECONDS, request, work, turns.limiter)
    finally:
        turns.now -= 1


@router.get("/rulesets/{ruleset_id}", responses=PROBLEMS)
def get_ruleset(
    ruleset_id: str,
    store: StoreDep,
    version: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> Response:
    """The ruleset file as stored: the newest version, or ``?version=N``."""
    with store.read() as session:
        text = rulesets.get_ruleset(session, ruleset_id, version)
    return Response(text, media_type="application/json")


@router.post("/roll", response_model=RollOut, responses=PROBLEMS)
def roll(body: RollIn, store: StoreDep) -> dict[str, Any]:
    """Throw a symbol pool's dice by name: ``2 ability 1 proficiency vs 2 difficulty``."""
    with store.read() as session:
        return rulesets.roll_dice(session, body.ruleset, body.version, body.dice, body.seed)
