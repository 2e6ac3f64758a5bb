"""``/games/{game}/checks`` and ``/records``: throwing, paying, the history, replays."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Path, Query, Request, Response

from dicebound.app import checks as app_checks
from dicebound.app import records as app_records
from dicebound.app.access import Access
from dicebound.app.errors import Invalid
from dicebound.app.limits import LIMITS
from dicebound.app.seeds import seed_text
from dicebound.edge.http.deps import Caller, StoreDep
from dicebound.edge.http.metrics import Metrics
from dicebound.edge.http.problems import PROBLEMS
from dicebound.edge.schemas import (
    AfterIn,
    AfterOut,
    AnyRecordOut,
    CardOut,
    CheckIn,
    CheckOut,
    RecordPage,
    VerifyOut,
    after_json,
    plain,
)
from dicebound.store import Store

router = APIRouter(tags=["checks"], responses=PROBLEMS)

RecordId = Annotated[int, Path(ge=1, le=2**62)]


def _check_out(answer: Mapping[str, Any]) -> dict[str, object]:
    """A check's answer as ``CheckOut`` writes it (its fields, in its order), built
    directly: the answer is the service's own, so pydantic's validation of it on every
    check would only cost time. A test holds the two to the same bytes."""
    return {
        "text": answer["text"],
        "results": [
            {
                "id": r["id"],
                "number": r["number"],
                "tag": r["tag"],
                "who": r["who"],
                "outcome": r["outcome"],
                "success": r["success"],
                "critical": r["critical"],
                "choice": r["choice"],
                "attrs": r["attrs"],
                "changes": [
                    {"who": c["who"], "pool": c["pool"], "from": c["from"], "to": c["to"]}
                    for c in r["changes"]
                ],
                "notes": r["notes"],
            }
            for r in answer["results"]
        ],
        "errors": [{"tag": e["tag"], "error": e["error"]} for e in answer["errors"]],
        # a command's entry that already holds exactly these fields, in this order, is
        # sent as it is (forty of them a text)
        "sheet": [
            c if tuple(c) == _SHEET_FIELDS else {field: c[field] for field in _SHEET_FIELDS}
            for c in answer["sheet"]
        ],
        "fight": answer["fight"],
    }


_SHEET_FIELDS = ("id", "number", "tag", "who", "ok", "now", "reason")
"""A sheet command's entry in ``CheckOut``, in its order."""


def resolve(
    store: Store,
    caller: Access,
    game: str,
    *,
    text: str,
    seed: str | int | None,
    faces: list[int] | None,
    choose: Literal["fail", "succeed"] | None,
    idempotency_key: str | None,
    metrics: Metrics | None = None,
) -> bytes:
    """A check's answer as the route sends it (JSON in ASCII: any text a client sent, a
    lone surrogate included, goes back as a valid escape), its transaction committed.
    The route and the fast lane (``edge/http/lane.py``) both answer with it, and count
    its checks and commands in ``metrics``."""
    try:
        if seed is not None and faces is not None:
            raise Invalid("give a seed or faces, not both.")
        with store.write() as session:
            answer = app_checks.run_checks(
                session,
                caller,
                game,
                text=text,
                seed=seed_text(seed),
                faces=faces,
                choose=choose,
                idempotency_key=idempotency_key,
            )
    except Invalid:
        if metrics is not None:
            metrics.request_refused()
        raise
    if metrics is not None:
        metrics.resolved(answer)
    return json.dumps(_check_out(answer), separators=(",", ":"), allow_nan=False).encode("ascii")


@router.post("/games/{game}/checks", response_model=CheckOut)
def checks(
    request: Request,
    game: str,
    body: CheckIn,
    caller: Caller,
    store: StoreDep,
    idempotency_key: Annotated[str | None, Header(min_length=1, max_length=200)] = None,
) -> Response:
    """Resolve every tag of a text in the order written: dice thrown, sheet applied,
    spends and charms paid, each ``[sheet:]`` command applied or refused, every record
    written, in one transaction. Each result and command carries its record's ``id``
    and its ``number`` within the game."""
    answer = resolve(
        store,
        caller,
        game,
        text=body.text,
        seed=body.seed,
        faces=body.faces,
        choose=body.choose,
        idempotency_key=idempotency_key,
        metrics=request.app.state.metrics,
    )
    return Response(answer, media_type="application/json")


@router.get("/games/{game}/records", response_model=RecordPage)
def records(
    game: str,
    caller: Caller,
    store: StoreDep,
    before: Annotated[int | None, Query(ge=1, le=2**62)] = None,
    limit: Annotated[int, Query(ge=1, le=LIMITS.records_per_page)] = 20,
) -> Any:
    """The game's records, newest first."""
    with store.read() as session:
        return plain(app_records.list_records(session, caller, game, before, limit))


@router.get("/games/{game}/records/{record_id}", response_model=AnyRecordOut)
def record(game: str, record_id: RecordId, caller: Caller, store: StoreDep) -> Any:
    """A record: a check (``kind`` "check"), a sheet command ("sheet") or a fight step
    ("fight")."""
    with store.read() as session:
        return plain(app_records.get_record(session, caller, game, record_id))


@router.post("/games/{game}/records/{record_id}/after", response_model=AfterOut)
def after(game: str, record_id: RecordId, body: AfterIn, caller: Caller, store: StoreDep) -> Any:
    """The player's answer after the roll: a step-pool raise (``pool``, ``points``), a
    Sacrifice's ``choose``, or both. Each is accepted once: a raise that opens a Sacrifice
    takes its ``choose`` in a later answer. An answer that buys nothing changes nothing.
    A sheet command's record takes no answer (422)."""
    with store.write() as session:
        answered = app_records.answer_after(
            session,
            caller,
            game,
            record_id,
            pool=body.pool,
            points=body.points,
            choose=body.choose,
        )
    return after_json(answered)


@router.get("/games/{game}/records/{record_id}/verify", response_model=VerifyOut)
def verify(game: str, record_id: RecordId, caller: Caller, store: StoreDep) -> Any:
    """Replay the record from its seed, its ruleset version and the sheet as it stood; a
    sheet command is applied again to the party as it stood."""
    with store.read() as session:
        return plain(app_records.verify_record(session, caller, game, record_id))


@router.get("/games/{game}/records/{record_id}/card", response_model=CardOut)
def card(game: str, record_id: RecordId, caller: Caller, store: StoreDep) -> dict[str, object]:
    """The record's dice card: its lines as the terminal shows them, and every face; a
    sheet command's card is its command, outcome and changes, without dice."""
    with store.read() as session:
        return app_records.record_card(session, caller, game, record_id)
