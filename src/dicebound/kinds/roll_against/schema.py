"""roll-against's own keys of the resolution block, as spec nodes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

from dicebound.kinds.roll_against.model import MAX_TENS, NUMBER_LIMIT, TAG_DC_RANGE
from dicebound.problem_codes import SPEND_NOT_ALLOWED
from dicebound.problems import Path, Problem
from dicebound.ruleset.spec import Arr, Custom, Enum, Int, JsonSchema, Node, Obj, Str


def _no_spend(value: object, path: Path) -> Iterator[Problem]:
    yield Problem(
        path,
        SPEND_NOT_ALLOWED,
        "a roll-against ruleset cannot declare spend; only dice-pool, dice-highest and "
        "symbol-pool checks buy with it.",
    )


_NO_SPEND_SCHEMA: JsonSchema = {"not": {}}

_NUMBER = Int(-NUMBER_LIMIT, NUMBER_LIMIT)
_RULE = Obj(
    {
        "from": _NUMBER,
        "to": _NUMBER,
        "pastTarget": Int(1, NUMBER_LIMIT),
        "whenTarget": Obj(
            {"atLeast": _NUMBER, "below": _NUMBER}, at_least_one=("atLeast", "below")
        ),
    },
    at_least_one=("from", "to", "pastTarget"),
)
_STEP = Obj(
    {"label": Str(hi=80), "dc": Int(*TAG_DC_RANGE), "divide": Int(2, 10)},
    required=("label",),
    at_least_one=("dc", "divide"),
)

KEYS: Mapping[str, Node] = MappingProxyType(
    {
        "dice": Obj({"count": Int(1, 10), "sides": Int(2, 1000)}, required=("count", "sides")),
        "against": Enum(("at-most", "at-least")),
        "criticalSuccess": Arr(_RULE, hi=6, noun="rule"),
        "criticalFailure": Arr(_RULE, hi=6, noun="rule"),
        "tens": Obj({"max": Int(1, MAX_TENS)}, required=("max",)),
        "spend": Custom(_no_spend, _NO_SPEND_SCHEMA),
        "difficultyLadder": Arr(_STEP, lo=1, hi=12, noun="step"),
    }
)
