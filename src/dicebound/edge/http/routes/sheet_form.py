"""``/rulesets/{id}/sheet-form``: the form the web page edits a character in, as
``dicebound.sheet_form`` describes it; ``/rulesets/{id}/characters``, the characters
packaged for the ruleset, which a new game may start with; and
``/rulesets/{id}/characters/check``, a character file checked before it is imported.
None needs a token, as reading the ruleset does, and none stores anything."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field

from dicebound.app import rulesets
from dicebound.app.limits import LIMITS
from dicebound.edge.http.deps import StoreDep
from dicebound.edge.http.problems import NOT_JSON, PROBLEMS, decode_body, json_body
from dicebound.edge.schemas import PlacedProblem
from dicebound.packaged import data_text, packaged_characters
from dicebound.sheet_form import sheet_form, tried_character

__all__ = ["CharacterTried", "PackagedCharacter", "SheetFormOut", "router"]

router = APIRouter(tags=["rulesets"])


class FormItemOut(BaseModel):
    id: str
    label: str


class FormAbilityOut(BaseModel):
    id: str
    label: str
    min: int
    max: int
    default: int


class FormGroupOut(BaseModel):
    key: Literal["skills", "saves"] = Field(description="The build's map the group is saved in.")
    label: str
    tiers: list[FormItemOut] = Field(description="The proficiency tiers its items may take.")
    items: list[FormItemOut]


class FormValueOut(BaseModel):
    value: str
    label: str


class FormFieldOut(BaseModel):
    id: str
    label: str
    type: Literal["number", "text", "longtext", "boolean", "enum", "dice"]
    default: bool | int | float | str | None
    min: int | None = Field(description="A number's lower bound, when it is a whole number.")
    max: int | None = Field(description="A number's upper bound, when it is a whole number.")
    max_length: int | None = Field(
        description="The most characters a text, long text or dice takes."
    )
    values: list[FormValueOut] = Field(description="An enum's values, each with its label.")


class FormPoolOut(BaseModel):
    id: str
    label: str
    start: Literal["full", "empty"] = Field(
        description="What the pool holds when the character file leaves it out."
    )


class FormListOut(BaseModel):
    id: str
    label: str
    max_items: int = Field(description="The most rows the list takes.")
    columns: list[FormFieldOut] = Field(description="Each column's input, as a field's.")
    required: list[str] = Field(description="The columns every row must fill.")


class FormWoundsOut(BaseModel):
    id: str
    label: str
    kinds: list[FormItemOut] = Field(description="The kinds of harm a mark may be.")
    max: int | None = Field(description="How many marks fit; None when read from the sheet.")
    fill: Literal["sequential", "indexed"] = Field(
        description="`sequential`: marks most severe first; `indexed`: one per box, "
        '`""` a clear one.'
    )


class FormTrackOut(BaseModel):
    id: str
    label: str
    min: int
    max: int | None = Field(description="None when the maximum is read from the sheet.")


class SheetFormOut(BaseModel):
    """The Sheet tab's form: what each input takes. A saved character is still judged
    whole by ``PUT /games/{game}/characters/{name}``."""

    ruleset: str
    version: int
    sheet_version: int = Field(description="The sheet's version, the character file's `v`.")
    name_max_length: int
    abilities: list[FormAbilityOut]
    groups: list[FormGroupOut] = Field(
        description="The skills and the saves, when there are some and tiers to give them."
    )
    fields: list[FormFieldOut]
    pools: list[FormPoolOut] = Field(description="The live pools.")
    tracks: list[FormTrackOut] = Field(description="The live tracks, wound tracks left out.")
    lists: list[FormListOut] = Field(description="The build's lists of rows.")
    wounds: list[FormWoundsOut] = Field(description="The wound tracks, which take marks.")


class PackagedCharacter(BaseModel):
    key: str = Field(description="The file's name in the package (`bram`).")
    name: str = Field(description="The character's name, as the file writes it.")
    file: dict[str, Any] = Field(description="The character file, to put into a game.")


class CharacterTried(BaseModel):
    """A character file checked against a ruleset version, nothing stored."""

    ok: bool
    name: str | None = Field(description="The name the file writes, if it writes one.")
    problems: list[PlacedProblem] = Field(
        description=f"The first {LIMITS.problems_shown} problems, each at its line and column."
    )
    omitted: int = Field(description="How many more problems the file has, not listed.")


@router.get("/rulesets/{ruleset_id}/sheet-form", response_model=SheetFormOut, responses=PROBLEMS)
def get_sheet_form(
    ruleset_id: str,
    store: StoreDep,
    version: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> dict[str, Any]:
    """The form a character of this ruleset is edited in: the newest version, or
    ``?version=N``."""
    with store.read() as session:
        ruleset = rulesets.compiled_ruleset(session, ruleset_id, version)
    return sheet_form(ruleset).to_json()


@router.get(
    "/rulesets/{ruleset_id}/characters",
    response_model=list[PackagedCharacter],
    responses=PROBLEMS,
)
def get_packaged_characters(ruleset_id: str, store: StoreDep) -> list[dict[str, Any]]:
    """The characters packaged with this ruleset (none for an uploaded one), each with
    its file: what a new game may start its party with."""
    with store.read() as session:
        rulesets.get_ruleset(session, ruleset_id, None)  # an unknown ruleset is 404
    found = []
    for key in packaged_characters(ruleset_id):
        file = json.loads(data_text(f"characters/{ruleset_id}/{key}.json"))
        found.append({"key": key, "name": file["name"], "file": file})
    return found


_OBJECT_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
}


@router.post(
    "/rulesets/{ruleset_id}/characters/check",
    response_model=CharacterTried,
    responses={**PROBLEMS, **NOT_JSON},
    openapi_extra=_OBJECT_BODY,
)
async def check_character(
    ruleset_id: str,
    request: Request,
    store: StoreDep,
    version: Annotated[int | None, Query(ge=0, le=2**31 - 1)] = None,
) -> dict[str, Any]:
    """Check a character file against the ruleset's newest version, or ``?version=N``,
    without storing it: whether it loads, its name, and its problems each at its line
    and column, as ``POST /rulesets/check`` places a ruleset's."""
    raw = await json_body(request, "character file")
    LIMITS.check_character(len(raw))
    text = decode_body(raw, "character file")

    def work() -> dict[str, Any]:
        with store.read() as session:
            ruleset = rulesets.compiled_ruleset(session, ruleset_id, version)
        return tried_character(ruleset, text, LIMITS.problems_shown)

    return await run_in_threadpool(work)
