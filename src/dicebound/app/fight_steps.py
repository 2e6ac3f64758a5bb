"""A ``[fight:]`` step as the service keeps it: its record (what the step said, and the
fight and party it found, so ``verify`` replays it), how a caller reads that record,
its ``fight`` event, and its entry in an answer.

Every step of a text is recorded, refused ones included, but those past the text's
``MAX_FIGHT_TAGS`` (refused ``too-many``: answered, stored as nothing), as sheet
commands past theirs are. A record keeps the tag's own seed, or the faces it threw when
the faces were forced, and replays alone: the same tag, the same fight, the same party.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from dicebound.errors import DiceboundError
from dicebound.replay import Difference
from dicebound.sheet import Character
from dicebound.store.models import dumps
from dicebound.store.repo import NewFightStep, Record, RecordHead
from dicebound.tagpass import resolve_text
from dicebound.tagpass.families.fight import MAX_FIGHT_TAGS
from dicebound.tagpass.report import FightPlace, fight_step_json
from dicebound.values import frozen

if TYPE_CHECKING:
    from dicebound.fight.tag import FightStep
    from dicebound.ruleset.model import Ruleset
    from dicebound.tagpass.report import CheckReport

__all__ = [
    "FIGHT_KEPT_FIELDS",
    "FightRecordView",
    "compare_fight",
    "fight_event",
    "fight_record",
    "fight_record_view",
    "recorded_steps",
    "replay_fight",
]

FIGHT_KEPT_FIELDS = ("tag", "op", "who", "ok", "reason", "message", "events", "changes", "faces")
"""What a fight step's record keeps of the step, and what its replay must equal."""


@frozen
class FightRecordView:
    """A ``[fight:]`` step's record as a caller reads it: the tag as written (``ask``)
    and as written back (``tag``), resolved (``ok``) or refused (``reason``), its
    events, the sheet changes it made and the faces it threw; ``fight`` names the fight
    (``id``) and, read alone, holds the state the step found (``before``)."""

    id: int
    number: int
    kind: Literal["fight"]
    created: datetime
    who: str | None
    tag: str
    ask: str
    op: str | None
    ok: bool
    reason: str | None
    message: str | None
    events: list[dict[str, Any]]
    changes: list[dict[str, Any]]
    faces: list[int]
    seed: str | None
    ruleset: str
    version: int
    fight: dict[str, Any]


def _fight_id(state: Mapping[str, Any] | None) -> str | None:
    found = None if state is None else state.get("id")
    return found if isinstance(found, str) else None


def fight_record(
    entry: Mapping[str, Any],
    step: FightStep,
    place: FightPlace,
    ask: str,
    card: Callable[[Character], str],
    forced: bool,
) -> NewFightStep:
    """A step's record: its entry, the fight it belongs to, and what replays it (the
    fight and party it found, as texts; ``card`` writes a card whole)."""
    assert place.fight is not None  # the pass was asked to record fights
    result = {**entry, "fight": _fight_id(step.fight)}
    return NewFightStep(
        who=entry["who"] or "",
        ask=ask,
        result=result,
        seed=None if forced else place.seed,
        faces=list(step.faces) if forced else None,
        fight=place.fight,
        party=[card(member) for member in place.party],
    )


def fight_record_view(row: Record | RecordHead) -> FightRecordView:
    """A fight step's record as a caller reads it; a whole record (``Record``) adds the
    fight it found."""
    result = row.result
    fight: dict[str, Any] = {"id": result.get("fight")}
    if isinstance(row, Record):
        fight["before"] = row.sheet.get("fight")
    return FightRecordView(
        id=row.id,
        number=row.number,
        kind="fight",
        created=row.created,
        who=result["who"],
        tag=result["tag"],
        ask=row.ask,
        op=result["op"],
        ok=result["ok"],
        reason=result["reason"],
        message=result["message"],
        events=result["events"],
        changes=result["changes"],
        faces=result["faces"],
        seed=row.seed,
        ruleset=row.ruleset_id,
        version=row.ruleset_version,
        fight=fight,
    )


def fight_event(step: FightStep) -> tuple[Literal["fight"], str]:
    """The ``fight`` event after a step's record: where the fight stands and what the
    step did."""
    state = step.fight
    payload = {
        "fight": _fight_id(state),
        "ok": step.ok,
        "outcome": None if state is None else state["outcome"],
        "round": None if state is None else state["round"],
        "turn": None if state is None else state["turn"],
        "window": None if state is None else state.get("window"),
        "events": step.events,
    }
    return "fight", dumps(payload)


def recorded_steps(report: CheckReport) -> list[bool]:
    """Whether each step of a text is recorded: all but those past ``MAX_FIGHT_TAGS``."""
    return [n <= MAX_FIGHT_TAGS for n in range(1, len(report.fight_steps) + 1)]


def replay_fight(ruleset: Ruleset, row: Record, party: Sequence[Character]) -> dict[str, Any] | str:
    """A fight step's record played again: its tag alone, on the fight and the party it
    found, from its seed or the faces it threw; the step's entry, or why it could not
    be played."""
    before = row.sheet.get("fight")
    seed, faces = (row.seed, None) if row.seed is not None else (None, row.faces or [])
    try:
        report = resolve_text(ruleset, party, row.ask, seed=seed, faces=faces, fight=before)
    except DiceboundError as exc:
        return f"the step could not be played again ({exc})."
    if len(report.fight_steps) != 1:
        return "the record's tag is not one fight step."
    written, step = report.fight_steps[0]
    return fight_step_json(written, step)


def compare_fight(stored: Mapping[str, Any], replayed: Mapping[str, Any] | str) -> list[Difference]:
    """The fields of a kept fight step that its replay does not equal; a replay that
    could not be made differs in its tag."""
    if isinstance(replayed, str):
        return [Difference("tag", stored.get("tag"), replayed)]
    return [
        Difference(key, stored.get(key), replayed.get(key))
        for key in FIGHT_KEPT_FIELDS
        if stored.get(key) != replayed.get(key)
    ]
