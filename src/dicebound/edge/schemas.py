"""The JSON of the service, as pydantic models: every body and every answer of the
HTTP API, and the parameters and answers of the MCP tools, which are the same.

Kept at the edge, shared by both of its transports (neither imports the other's): the
core and the application know nothing of pydantic. Field names are the JSON's
(``from`` through an alias). Requests refuse unknown keys, so a typo is a 422 naming
it rather than a silently ignored field. ``plain`` turns the application's typed
results into the JSON values these models read.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator
from pydantic_core import PydanticCustomError

from dicebound.app.errors import Invalid
from dicebound.app.limits import LIMITS
from dicebound.app.plain import plain
from dicebound.app.records import Answered
from dicebound.app.seeds import SEED_RULE, seed_text
from dicebound.edge.fight_schemas import FightMemberOut, FightRecordOut

__all__ = [
    "AfterIn",
    "AfterOut",
    "AnyRecordOut",
    "CardOffer",
    "CardOut",
    "ChangeOut",
    "CharacterOut",
    "CharacterStored",
    "CheckIn",
    "CheckOut",
    "CheckResultOut",
    "FightIn",
    "GameEntry",
    "GameIn",
    "GameMade",
    "GameOut",
    "GameToken",
    "GmOut",
    "HealthOut",
    "LiveOut",
    "LivePatch",
    "OddsIn",
    "OddsOut",
    "OfferPool",
    "PartyOut",
    "ProblemOut",
    "RecordOut",
    "RecordPage",
    "ReportOut",
    "RollIn",
    "RollOut",
    "RulesetEntry",
    "RulesetStored",
    "RulesetTried",
    "SeatOut",
    "SeatToken",
    "Seed",
    "SheetChangeOut",
    "SheetOut",
    "SheetRecordOut",
    "SpendIn",
    "VerifyOut",
    "after_json",
    "plain",
]

Critical = Literal["success", "failure", "both"] | None
Choice = Literal["open", "succeed", "fail"] | None


def after_json(answered: Answered) -> dict[str, Any]:
    """An answer after the roll as ``AfterOut`` reads it: the record, and what it paid."""
    return {**plain(answered.record), "paid": plain(answered.paid)}


class _In(BaseModel):
    """A request body: unknown keys refused, and every value strictly its type, so
    ``true`` is never read as 1 nor ``"6"`` as 6 (a typo or a confused client is told,
    not obeyed in a way it did not mean)."""

    model_config = ConfigDict(extra="forbid", strict=True)


def _seed(value: object) -> str | int:
    """A seed by the rule of every route and tool (``seeds.seed_text``)."""
    try:
        seed_text(value)
    except Invalid as exc:
        raise PydanticCustomError("seed", exc.detail.removesuffix(".")) from None
    assert isinstance(value, str | int)
    return value


Seed = Annotated[str | int, PlainValidator(_seed, json_schema_input_type=str | int)]
"""A seed in a request: checked by ``seeds.seed_text``, the one rule for seeds."""
_SEED_SAYS = f"Replays the throw: {SEED_RULE}. A fresh one is made when absent."


def _pool_value(value: object) -> int | PoolIn:
    """A pool in a live-state patch: a whole number (its value) or ``{value, temp}``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, dict):
        return PoolIn.model_validate(value)
    raise PydanticCustomError(
        "pool",
        'a pool is set with a whole number, or an object of its "value" and "temp", not {shown}',
        {"shown": json.dumps(value) if not isinstance(value, list) else "a list"},
    )


class ProblemItem(BaseModel):
    path: str
    code: str
    message: str


class ProblemOut(BaseModel):
    """An error, as RFC 9457 problem details (``application/problem+json``)."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    problems: list[ProblemItem] | None = None


class HealthOut(BaseModel):
    ok: bool
    store: Literal["sqlite", "postgresql"]
    version: str


class RulesetEntry(BaseModel):
    id: str
    version: int
    name: str
    kind: str
    packaged: bool


class RulesetStored(BaseModel):
    id: str
    version: int


class GameIn(_In):
    name: str = Field(min_length=1, max_length=200)
    ruleset: str = Field(min_length=1, max_length=100)
    version: int | None = Field(default=None, ge=0, le=2**31 - 1)
    layers: list[str] = Field(default_factory=list, max_length=50)


class GameMade(BaseModel):
    id: str
    token: str = Field(description="The game's token: shown once, stored only as a hash.")
    ruleset: str
    version: int
    layers: list[str]


class GameToken(BaseModel):
    token: str = Field(
        description="The game's new token: shown once, stored only as a hash; the old one "
        "no longer works."
    )


class SeatToken(BaseModel):
    token: str = Field(
        description="The character's player token: shown once, stored only as a hash; it "
        "replaces the seat's old one, which no longer works."
    )


class GameOut(BaseModel):
    id: str
    name: str
    ruleset: str
    version: int
    layers: list[str]
    characters: list[str]


class CharacterStored(BaseModel):
    name: str
    revision: int


class CharacterOut(BaseModel):
    name: str
    sheet: dict[str, Any] | None
    live: dict[str, Any]
    revision: int


class PoolIn(_In):
    value: int
    temp: int | None = None


PoolValue = Annotated[
    int | PoolIn, PlainValidator(_pool_value, json_schema_input_type=int | PoolIn)
]


class LivePatch(_In):
    """Live-state changes: a pool's number sets its value; the rest replace what they name."""

    pools: dict[str, PoolValue] | None = None
    tracks: dict[str, int] | None = None
    wounds: dict[str, Any] | None = None
    text: dict[str, str] | None = None
    conditions: list[str] | None = None
    states: dict[str, str] | None = None


class LiveOut(BaseModel):
    revision: int
    live: dict[str, Any]


class GmOut(BaseModel):
    text: str


class CheckIn(_In):
    text: str = Field(
        description="Game Master text with [skill_check: ...] tags and [sheet: ...] commands."
    )
    seed: Seed | None = Field(default=None, description=_SEED_SAYS)
    faces: list[int] | None = Field(default=None, description="Forced faces, in throw order.")
    choose: Literal["fail", "succeed"] | None = None


class ChangeOut(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    who: str
    pool: str
    from_: int = Field(alias="from")
    to: int


_NUMBER = "Its place in the game's history: 1 for the game's first record, then one more for each record written. ids are the store's, counted over every game."


class CheckResultOut(BaseModel):
    id: int
    number: int = Field(description=_NUMBER)
    tag: str
    who: str
    outcome: str
    success: bool
    critical: Critical
    choice: Choice
    attrs: dict[str, str]
    changes: list[ChangeOut]
    notes: list[str] = Field(
        description="Each attribute value the ruleset did not know, said: the check was "
        "rolled without it."
    )


class CheckErrorOut(BaseModel):
    tag: str
    error: str


class SheetOut(BaseModel):
    """A ``[sheet:]`` command of the text, applied (``ok``, ``now``) or refused
    (``reason``), with the id of its record."""

    id: int | None = Field(
        description="Its record's id; null past the text's 40th command (refused too-many, "
        "never recorded)."
    )
    number: int | None = Field(description=_NUMBER + " Null where the id is.")
    tag: str = Field(description="The command as written back, with its outcome.")
    who: str = Field(description='A card\'s name, "party", or as written when nobody was found.')
    ok: bool
    now: str | None
    reason: str | None = Field(description="Why it was refused: one of the fixed reasons.")


class CheckOut(BaseModel):
    text: str
    results: list[CheckResultOut]
    errors: list[CheckErrorOut]
    sheet: list[SheetOut] = Field(
        description="Every [sheet:] command, in text order (empty when the text held none)."
    )
    fight: FightMemberOut = Field(
        description="Every [fight:] step, in text order, and the game's fight after the text."
    )


class FightIn(_In):
    """One step of the game's fight, as a ``[fight:]`` tag would ask it."""

    op: Literal["start", "act", "pass", "end-turn", "flee", "end"]
    who: str | None = Field(default=None, min_length=1, max_length=100)
    option: str | None = Field(default=None, min_length=1, max_length=120)
    targets: list[str] | None = Field(default=None, max_length=12)
    pay: str | None = Field(default=None, min_length=1, max_length=120)
    mode: str | None = Field(default=None, min_length=1, max_length=120)
    style: str | None = Field(default=None, min_length=1, max_length=120)
    window: str | None = Field(default=None, min_length=1, max_length=40)
    party: str | None = Field(
        default=None, min_length=1, max_length=1000, description="start: names, ','-joined."
    )
    enemies: str | None = Field(
        default=None, min_length=1, max_length=1000, description="start: the opponents."
    )
    seed: Seed | None = Field(default=None, description="Replays the step's dice.")
    faces: list[int] | None = Field(default=None, description="Forced faces, in throw order.")


class RecordOut(BaseModel):
    """A check's record."""

    id: int
    number: int = Field(description=_NUMBER)
    kind: Literal["check"]
    created: str
    tag: str
    attrs: dict[str, str]
    who: str
    outcome: str
    success: bool
    critical: Critical
    choice: Choice
    offer: str | None
    changes: list[ChangeOut]
    seed: str | None
    ruleset: str
    version: int
    answered: dict[str, Any] | None = None
    notes: list[str] = Field(
        description="What the check's answer said of each attribute value the ruleset did not know."
    )


class SheetChangeOut(BaseModel):
    """One thing a sheet command changed: ``what`` names it (``pool hp``, ``wounds
    harm``, ``condition poisoned``...), ``from`` and ``to`` are its values as the sheet
    reads them."""

    model_config = ConfigDict(populate_by_name=True)

    who: str
    what: str
    from_: Any = Field(alias="from")
    to: Any


class SheetRecordOut(BaseModel):
    """A ``[sheet:]`` command's record, applied or refused."""

    id: int
    number: int = Field(description=_NUMBER)
    kind: Literal["sheet"]
    created: str
    who: str
    tag: str = Field(description="The command as written back, with its outcome.")
    ask: str = Field(description="The command as the Game Master wrote it.")
    ok: bool
    now: str | None
    reason: str | None
    changes: list[SheetChangeOut]
    ruleset: str
    version: int


AnyRecordOut = Annotated[RecordOut | SheetRecordOut | FightRecordOut, Field(discriminator="kind")]
"""A record of any kind, told apart by ``kind``."""


class RecordPage(BaseModel):
    records: list[AnyRecordOut]
    next: int | None = Field(description="Pass as ?before= for the next page; null on the last.")


class AfterIn(_In):
    pool: str | None = Field(default=None, min_length=1, max_length=100)
    points: int | None = Field(default=None, ge=1, le=1_000_000)
    choose: Literal["fail", "succeed"] | None = None


class AfterOut(RecordOut):
    paid: list[ChangeOut]


class Difference(BaseModel):
    field: str
    stored: Any = None
    replayed: Any = None


class VerifyOut(BaseModel):
    verified: bool
    differences: list[Difference]


class SpendIn(_In):
    pool: str = Field(min_length=1, max_length=100)
    points: int = Field(ge=1, le=1_000_000)


class OddsIn(_In):
    tag: str
    who: str | None = Field(
        default=None,
        max_length=100,
        description="The character's exact name; if absent, the first of the party (a "
        "player's own character, with a player's token).",
    )
    after: SpendIn | None = None


class OutcomeOddsOut(BaseModel):
    label: str
    success: bool
    critical: Critical
    probability: str = Field(description='An exact fraction: "num/den", "0" or "1".')


class OddsOut(BaseModel):
    outcomes: list[OutcomeOddsOut]
    success: str


class RollIn(_In):
    ruleset: str = Field(min_length=1, max_length=100)
    version: int | None = Field(default=None, ge=0, le=2**31 - 1)
    dice: str
    seed: Seed | None = Field(default=None, description=_SEED_SAYS)


class RollOut(BaseModel):
    """What ``dicebound roll --json`` prints: every die by name, the symbols, the seed."""

    model_config = ConfigDict(extra="allow")

    text: str
    seed: str
    success: bool


class SeatOut(BaseModel):
    """Whose token lists the game: ``admin``, ``game-master``, or ``player`` with the
    character whose seat it holds."""

    kind: Literal["admin", "game-master", "player"]
    character: str | None


class GameEntry(BaseModel):
    id: str
    name: str
    ruleset: str
    version: int
    layers: list[str]
    seat: SeatOut


class PoolState(BaseModel):
    key: str
    label: str
    value: int
    max: int


class TrackState(BaseModel):
    id: str
    label: str
    value: int
    min: int
    max: int


class WoundState(BaseModel):
    id: str
    label: str
    marks: list[str] = Field(description='Each mark by its kind\'s label; "" a clear box.')
    boxes: int
    overflow: int
    penalty: int


class SheetState(BaseModel):
    """A character's pools and tracks as numbers (a full pool reads as its maximum)."""

    pools: list[PoolState]
    tracks: list[TrackState]
    wounds: list[WoundState]
    conditions: list[str]


class RecordCounts(BaseModel):
    """Records about one character: checks rolled, sheet commands (their own or the
    party's)."""

    checks: int
    sheet: int


class PartyMember(BaseModel):
    name: str
    revision: int
    live: dict[str, Any]
    state: SheetState
    records: RecordCounts


class PartyOut(BaseModel):
    characters: list[PartyMember]


class ReportStep(BaseModel):
    label: str
    ask: str


class ReportOutcome(BaseModel):
    label: str
    success: bool
    critical: Critical
    choice: bool
    colour: str = Field(description="The band's colour (#rrggbb): greens succeed, reds fail.")


class ReportCell(BaseModel):
    tag: str | None
    not_rolled: str | None
    probabilities: list[str] = Field(description="Each band's exact chance, in `outcomes` order.")
    success: str | None


class ReportRow(BaseModel):
    group: str
    id: str
    label: str
    not_rolled: str | None
    cells: list[ReportCell]


class ReportOut(BaseModel):
    """What ``dicebound report`` prints, as numbers: each check at each ladder step."""

    ruleset: str
    character: str
    kind: str
    steps: list[ReportStep]
    outcomes: list[ReportOutcome]
    rows: list[ReportRow]
    attributes: list[str] = Field(
        default_factory=list,
        description="The tag attributes the ruleset's checks take (skill, dc, mode, ...).",
    )


class CardDie(BaseModel):
    face: str
    die: str | None = Field(description="The die's name, for a symbol pool.")
    marks: list[str] = Field(description="kept, dropped, dark, hit: what the record says.")


class CardSays(BaseModel):
    mark: str = Field(
        description="counted, counted-twice, not-counted, cancels, cancelled, exploded, "
        "added, rethrown, thrown-again, exact, kept, dropped, dark, reached, below, raised "
        "or symbols."
    )
    words: str = Field(description="The same in a player's words.")


class CardSymbol(BaseModel):
    id: str
    label: str
    glyph: str = Field(description="A shape for the symbol, told apart without colour.")


class CardShown(BaseModel):
    """A die as the page shows it: its final face, and what happened to it in words."""

    face: str = Field(description="The final face (a step-pool die with its raise added).")
    was: str | None = Field(description="The face before a raise, or null.")
    die: str | None = Field(description="The die's name (a symbol die, a step-pool die).")
    marks: list[str] = Field(description="As in `dice`, a raise as the record writes it.")
    counted: bool | None = Field(
        description="Whether it counts toward the result; null where a die does not say."
    )
    says: list[CardSays]
    symbols: list[CardSymbol] | None = Field(
        default=None, description="A symbol die's symbols (never its face number)."
    )
    role: str | None = Field(
        default=None,
        description="A symbol die's part: pool, pool-upgrade, difficulty, "
        "difficulty-upgrade, boost or setback.",
    )


class CardPart(BaseModel):
    amount: str = Field(description="Signed: +3, −1.")
    label: str


class CardBand(BaseModel):
    label: str
    text: str = Field(description="The band's own text, empty when it has none.")


class OfferPool(BaseModel):
    pool: str
    label: str
    points: int = Field(description="The fewest points of this pool that buy the band.")


class CardOffer(BaseModel):
    band: str = Field(description="The band one more EFFORT reaches.")
    pools: list[OfferPool] = Field(description="Only the pools the roller can pay from.")


class CardOut(BaseModel):
    """A record's dice card: the lines the terminal shows, every face thrown, and the
    raise still on offer."""

    id: int
    number: int = Field(description=_NUMBER)
    title: str
    lines: list[list[str]]
    dice: list[CardDie]
    seed: str | None
    offer: CardOffer | None = None
    shape: str | None = Field(
        default=None,
        description="sum, against, highest, pool, step, symbol or sparse; null on a sheet card.",
    )
    plain: list[list[str]] | None = Field(
        default=None,
        description="The lines in a player's words, [term, text], with no record syntax.",
    )
    shown: list[CardShown] | None = Field(
        default=None, description="Every die as the page shows it, in throw order."
    )
    modifier: list[CardPart] | None = Field(
        default=None, description="The parts of the sheet's number, where they add up."
    )
    band: CardBand | None = None


class PlacedProblem(ProblemItem):
    line: int
    column: int


class RulesetTried(BaseModel):
    """``validate --json`` with each problem's line and column, and ``gm`` when valid."""

    ok: bool
    problems: list[PlacedProblem] = Field(
        description=f"The first {LIMITS.problems_shown} problems, in the order their places come "
        "in the file."
    )
    omitted: int = Field(description="How many more problems the file has, not listed.")
    notes: list[str]
    id: str | None
    version: int | None
    name: str | None
    gm: str | None
