"""``/games/{game}/events``: a game's events as Server-Sent Events (docs/service.md
"The event stream")."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from dicebound.app import events as app_events
from dicebound.edge.http.deps import Caller
from dicebound.edge.http.events import EventHub, EventStream
from dicebound.edge.http.problems import PROBLEMS

router = APIRouter(tags=["events"], responses=PROBLEMS)

_STREAM: dict[int | str, dict[str, Any]] = {
    200: {
        "description": (
            "A stream of `text/event-stream` events, each `id:` (per game, growing in "
            "commit order), `event:` (record, answer, character, seat or reload) and "
            "`data:` (one line of JSON); a `: keep-alive` comment every 15 seconds."
        ),
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}


@router.get("/games/{game}/events", response_class=StreamingResponse, responses=_STREAM)
async def events(
    game: str,
    request: Request,
    caller: Caller,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID", max_length=40)] = None,
    after: Annotated[str | None, Query(max_length=40)] = None,
) -> Response:
    """What happens in the game, as it happens, in commit order: records made, answers
    after the roll, characters put, patched or changed, seats made or revoked. Resume
    with ``Last-Event-ID`` (or ``?after=``, for a client that cannot set headers): every
    kept event after it comes first, or a ``reload`` event when it is older than the
    oldest kept."""
    hub: EventHub = request.app.state.events
    start = app_events.last_event_id(last_event_id if last_event_id is not None else after)
    token = caller.require_token()
    caught = await run_in_threadpool(hub.catch_up, caller, game, start)
    return EventStream(hub, game, token, caught)
