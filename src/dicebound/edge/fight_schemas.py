"""The shapes of a game's fight on the service (``/games/{game}/fight``), of a fight
step in a check's answer, and of a fight step's record: the OpenAPI document's, and the
MCP tools' inputs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "FightMemberOut",
    "FightMenuOut",
    "FightOut",
    "FightRecordOut",
    "FightStepDone",
    "FightStepOut",
]

_NUMBER = "Its place in the game's history, from 1."


class FightStepOut(BaseModel):
    """A ``[fight:]`` step, resolved (``ok``) or refused (``reason``), with its record's
    id (null past the text's 40th fight tag: refused too-many, never recorded)."""

    id: int | None
    number: int | None = Field(description=_NUMBER + " Null where the id is.")
    tag: str = Field(description="The tag written back, with its outcome.")
    op: str | None
    who: str | None = Field(description="The chooser's name, when the step has one.")
    ok: bool
    reason: str | None = Field(description="Why it was refused: one of the fixed reasons.")
    message: str | None = Field(description="A sentence, for a reason that needs one.")
    events: list[dict[str, Any]]
    changes: list[dict[str, Any]] = Field(description="Each sheet change, {who, what, from, to}.")
    faces: list[int] = Field(description="Every face the step threw, in order.")


class FightMemberOut(BaseModel):
    """A text's fight steps and the fight after the text (null when the game has none)."""

    steps: list[FightStepOut]
    state: dict[str, Any] | None
    summary: dict[str, Any] | None


class FightMenuOut(BaseModel):
    """A combatant's options now (its turn's, or the open window's when it asks it;
    empty otherwise), each with its forecast and odds."""

    who: str
    options: list[dict[str, Any]]


class FightOut(BaseModel):
    """The game's fight (all null before its first), its revision (raised on every
    change; 0 before the first), its summary, whose turn it is with their options, and
    the open window (null when none is open): its id, kind, what opened it, whom it
    asks and that one's options."""

    fight: dict[str, Any] | None
    revision: int
    summary: dict[str, Any] | None
    current: FightMenuOut | None
    window: dict[str, Any] | None


class FightStepDone(FightStepOut):
    """A step sent to ``POST /games/{game}/fight``: the step, and the fight after it."""

    state: dict[str, Any] | None
    summary: dict[str, Any] | None


class FightRecordOut(BaseModel):
    """A ``[fight:]`` step's record. ``fight`` names the fight (``id``); read alone, it
    also holds the state the step found (``before``), which ``verify`` replays it on."""

    model_config = ConfigDict(populate_by_name=True)

    id: int
    number: int = Field(description=_NUMBER)
    kind: Literal["fight"]
    created: str
    who: str | None
    tag: str
    ask: str = Field(description="The tag as the Game Master wrote it.")
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
