"""``/rulesets/{id}/sheet-form``: the form the web page edits a character in, as
``dicebound.sheet_form`` describes it. Reading it needs no token, as reading the
ruleset does."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from dicebound.app import rulesets
from dicebound.edge.http.deps import StoreDep
from dicebound.edge.http.problems import PROBLEMS
from dicebound.sheet_form import sheet_form

__all__ = ["SheetFormOut", "router"]

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
    pools: list[FormItemOut] = Field(description="The live pools.")
    tracks: list[FormTrackOut] = Field(description="The live tracks, wound tracks left out.")


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
