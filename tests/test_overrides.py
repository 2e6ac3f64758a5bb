"""Checks that roll their own way: every rule of the page's section "Checks that roll
their own way" (resolution.overrides, Capability API 1.140), and every refusal with its
path."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from dicebound.kinds import dice_pool, dice_sum
from dicebound.kinds.base import CompileContext, KindCompiler
from dicebound.kinds.dice_pool import PoolConfig
from dicebound.kinds.dice_sum import SumConfig
from dicebound.overrides import (
    OVERRIDES,
    Override,
    compile_overrides,
    features,
    overrides_node,
    select_override,
)
from dicebound.problems import Path, Problem
from dicebound.ruleset.model import (
    Ability,
    Field,
    LadderStep,
    Sheet,
    SkillDef,
    ValueRef,
)
from dicebound.ruleset.spec import Arr, Id, Int, Node, Obj

AT: Path = ("resolution", "overrides")
CTX = CompileContext(
    sheet=Sheet(
        version=1,
        abilities=(Ability("strength", "Strength", "STR", 3, 18, 10),),
        skills=tuple(
            SkillDef(s, s.replace("_", " ").title(), "skill")
            for s in ("open_locks", "pick_pockets", "open_doors", "listen", "athletics")
        ),
        saves=(SkillDef("poison", "Poison", "save"),),
        fields=(
            Field("favored_athletics", "Favored athletics", "number", 0, 1, 0),
            Field("lucky", "Lucky", "boolean", default=False),
        ),
    )
)

SHEET_MATH = {
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [{"id": "base", "label": "Base"}],
}

# An old-school d20 game: thieves roll a d100, doors and listening a d6.
D20: dict[str, Any] = {
    "kind": "dice-sum",
    **SHEET_MATH,
    "dice": {"count": 1, "sides": 20},
    "difficultyLadder": [{"label": "Plain", "dc": 10}],
}

# exwod: 1s cancel successes, except on a favored ability.
EXWOD: dict[str, Any] = {
    "kind": "dice-pool",
    **SHEET_MATH,
    "die": {"sides": 10},
    "target": {"default": 6, "min": 6, "max": 6},
    "cancel": {"upTo": 1},
    "difficultyLadder": [{"label": "Standard", "successes": 1}],
}

THIEF = {
    "id": "thief",
    "label": "Thief skills",
    "skills": ["open_locks", "pick_pockets"],
    "set": {"dice": {"count": 1, "sides": 100}},
}
X_IN_6 = {
    "id": "x_in_6",
    "label": "X-in-6",
    "skills": ["open_doors", "listen"],
    "set": {"dice": {"count": 1, "sides": 6}},
}
FAVORED = {
    "id": "favored",
    "label": "Favored",
    "skills": ["athletics"],
    "when": {"field": "favored_athletics"},
    "set": {"cancel": None},
}


def _compile(
    raw: Any, block: Mapping[str, Any], kind: KindCompiler
) -> tuple[tuple[Override, ...], list[Problem]]:
    return compile_overrides(
        copy.deepcopy(raw),
        AT,
        resolution_block=copy.deepcopy(dict(block)),
        kind_compiler=kind,
        ctx=CTX,
    )


def _ok(raw: Any, block: Mapping[str, Any], kind: KindCompiler) -> tuple[Override, ...]:
    overrides, problems = _compile(raw, block, kind)
    assert problems == []
    return overrides


def _reader(values: Mapping[str, float]) -> Any:
    def read(ref: ValueRef) -> float:
        assert ref.name is not None
        return values[ref.name]

    return read


# -- the rules of the section ------------------------------------------------------------


def test_set_holds_resolution_keys_that_replace_the_rulesets_for_those_checks() -> None:
    thief, x_in_6 = _ok([THIEF, X_IN_6], D20, dice_sum.KIND)
    assert isinstance(thief.config, SumConfig)
    assert (thief.config.count, thief.config.sides) == (1, 100)
    assert x_in_6.config.sides == 6
    assert thief.skills == ("open_locks", "pick_pockets")
    assert thief.block["dice"] == {"count": 1, "sides": 100}
    assert thief.block["difficultyLadder"] == D20["difficultyLadder"]  # the rest stays


def test_set_replaces_a_whole_key_it_does_not_merge() -> None:
    base = {**D20, "dice": {"count": 1, "sides": 20, "faces": list(range(1, 21))}}
    (thief,) = _ok([THIEF], base, dice_sum.KIND)
    assert thief.config.faces is None and thief.config.sides == 100


def test_null_takes_a_key_away_exwod_favored_ones_do_not_cancel() -> None:
    (favored,) = _ok([FAVORED], EXWOD, dice_pool.KIND)
    assert isinstance(favored.config, PoolConfig)
    assert favored.config.cancel_up_to is None
    assert favored.removes == ("cancel",)
    assert "cancel" not in favored.block


def test_when_reads_a_field_off_the_rollers_sheet() -> None:
    (favored,) = _ok([FAVORED], EXWOD, dice_pool.KIND)
    assert favored.when == ValueRef("field", "favored_athletics")
    on = select_override([favored], "skill", "athletics", _reader({"favored_athletics": 1}))
    off = select_override([favored], "skill", "athletics", _reader({"favored_athletics": 0}))
    assert on is favored
    assert off is None  # "applies only where it is not 0"


def test_without_when_the_override_always_applies() -> None:
    overrides = _ok([THIEF], D20, dice_sum.KIND)

    def never(ref: ValueRef) -> float:
        raise AssertionError("an override without when reads nothing")

    assert select_override(overrides, "skill", "pick_pockets", never) is overrides[0]
    assert select_override(overrides, "skill", "athletics", never) is None


FIRST = {**FAVORED, "id": "first", "set": {"cancel": None}}
SECOND = {
    "id": "second",
    "label": "Steady",
    "skills": ["athletics"],
    "when": {"field": "lucky"},
    "set": {"cancel": {"upTo": 2}},
}
LAST = {"id": "last", "label": "Always", "skills": ["athletics"], "set": {"botch": {"upTo": 1}}}


@pytest.mark.parametrize(
    ("values", "want"),
    [
        ({"favored_athletics": 1, "lucky": 1}, "first"),
        ({"favored_athletics": 0, "lucky": 1}, "second"),
        ({"favored_athletics": 0, "lucky": 0}, "last"),
    ],
    ids=[
        "the first override that names the check and whose when holds wins",
        "a when that does not hold passes to the next override",
        "an override without when catches the check last",
    ],
)
def test_first_matching_override_wins(values: dict[str, float], want: str) -> None:
    overrides = _ok([FIRST, SECOND, LAST], EXWOD, dice_pool.KIND)
    chosen = select_override(overrides, "skill", "athletics", _reader(values))
    assert chosen is not None and chosen.id == want


def test_overrides_name_skills_saves_or_abilities() -> None:
    raw = [
        {
            "id": "hardy",
            "label": "Hardy",
            "saves": ["poison"],
            "abilities": ["strength"],
            "text": "Rolled on a d12.",
            "set": {"dice": {"count": 1, "sides": 12}},
        }
    ]
    (hardy,) = _ok(raw, D20, dice_sum.KIND)
    read = _reader({})
    assert select_override([hardy], "save", "poison", read) is hardy
    assert select_override([hardy], "ability", "strength", read) is hardy
    assert select_override([hardy], "skill", "poison", read) is None  # a group apart
    assert hardy.text == "Rolled on a d12."


def test_the_same_check_in_several_overrides_each_with_when_is_allowed() -> None:
    assert len(_ok([FIRST, SECOND], EXWOD, dice_pool.KIND)) == 2


def test_capability_1_140_and_the_gated_keys_an_override_sets() -> None:
    raw = [{**THIEF, "set": {"dice": {"count": 1, "sides": 100}, "openEnded": {"high": 96}}}]
    assert list(features(raw, kind_compiler=dice_sum.KIND, resolution_block=D20)) == [
        ("1.140", AT, "overrides"),
        ("1.136", (*AT, 0, "set", "openEnded"), "openEnded in an override"),
    ]
    assert list(features(None)) == []


def test_the_ruleset_own_gated_keys_are_not_named_again_under_an_override() -> None:
    base = {**D20, "dice": {"count": 1, "sides": 100}, "unmodified": [66]}
    got = list(features([THIEF], kind_compiler=dice_sum.KIND, resolution_block=base))
    assert got == [("1.140", AT, "overrides")]


def test_the_schema_of_set_lists_the_kinds_keys_and_takes_null() -> None:
    schema = overrides_node(dice_pool.KIND).schema()
    set_props = schema["items"]["properties"]["set"]["properties"]
    assert set_props["cancel"]["anyOf"][0] == {"type": "null"}
    assert set_props["difficultyLadder"] == {"not": {}}
    assert schema["items"]["properties"]["set"]["minProperties"] == 1
    assert OVERRIDES.schema()["items"]["required"] == ["id", "label", "set"]


# -- every refusal, with its path ----------------------------------------------------------


class _SymbolKind:
    """A stand-in for symbol-pool's compiler: only its name and keys matter here."""

    name = "symbol-pool"
    keys: Mapping[str, Node] = {
        "symbols": Arr(Obj({"id": Id()}, required=("id",)), lo=2),
        "dice": Arr(Obj({"id": Id()}, required=("id",)), lo=2),
        "success": Obj({"needed": Int(1, 10)}),
        "difficultyLadder": Arr(Obj({"dc": Int(0, 12)}), lo=1),
    }
    required: tuple[str, ...] = ("symbols", "dice", "difficultyLadder")

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        return LadderStep(label=str(raw.get("label", "")), dc=int(raw["dc"]))

    def compile(self, block: Mapping[str, Any], ctx: CompileContext) -> tuple[Any, list[Problem]]:
        return dict(block), []

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        return iter(())


SYMBOLS: dict[str, Any] = {
    "kind": "symbol-pool",
    **SHEET_MATH,
    "symbols": [{"id": "s"}, {"id": "f"}],
    "dice": [{"id": "ability"}, {"id": "difficulty"}],
    "difficultyLadder": [{"dc": 1}],
}


def _one(**changes: Any) -> list[dict[str, Any]]:
    out = {**THIEF, **changes}
    return [{k: v for k, v in out.items() if v is not None}]


def _set(**keys: Any) -> list[dict[str, Any]]:
    return _one(set=keys)


DEGREES_SHIFT = {
    "naturals": "shift",
    "tiers": [
        {"id": "hit", "label": "Success", "atLeast": 0, "success": True},
        {"id": "miss", "label": "Failure"},
    ],
}

REFUSED: list[tuple[str, Any, dict[str, Any], KindCompiler, set[tuple[str, str]]]] = [
    # (id, overrides, the ruleset's resolution, kind, {(path, code)})
    (
        "the ids named must exist in the sheet (a skill)",
        _one(skills=["open_lock"]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].skills[0]", "unknown-id")},
    ),
    (
        "the ids named must exist in the sheet (a save)",
        _one(skills=None, saves=["poisons"]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].saves[0]", "unknown-id")},
    ),
    (
        "the ids named must exist in the sheet (an ability)",
        _one(skills=None, abilities=["strenght"]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].abilities[0]", "unknown-id")},
    ),
    (
        "each override names skills, saves or abilities",
        _one(skills=None),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0]", "missing-key")},
    ),
    (
        "each override has a label",
        _one(label=None),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0]", "missing-key")},
    ),
    (
        "override ids are unique",
        [THIEF, {**X_IN_6, "id": "thief"}],
        D20,
        dice_sum.KIND,
        {("resolution.overrides[1].id", "duplicate-id")},
    ),
    (
        "the kind cannot be changed",
        _set(kind="dice-pool"),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.kind", "locked-key")},
    ),
    *[
        (
            f"the sheet math cannot be changed: {key}",
            _set(**{key: value}),
            D20,
            dice_sum.KIND,
            {(f"resolution.overrides[0].set.{key}", "locked-key")},
        )
        for key, value in (
            ("abilityModifier", {"op": "identity"}),
            ("proficiency", {"bonus": {"derived": "pb"}}),
            ("proficiencyTiers", [{"id": "x", "label": "X"}]),
            ("penaltyFrom", "wounds"),
            ("adjust", []),
        )
    ],
    (
        "the sheet math cannot be changed: spend (a pool's own key)",
        _set(spend=[{"pool": "will", "amount": 1, "perCheck": 1, "successes": 1}]),
        EXWOD,
        dice_pool.KIND,
        {("resolution.overrides[0].set.spend", "locked-key")},
    ),
    (
        "the difficultyLadder cannot be changed",
        _set(difficultyLadder=[{"label": "Hard", "dc": 15}]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.difficultyLadder", "locked-key")},
    ),
    (
        "a symbol pool also locks its symbols",
        _set(symbols=[{"id": "s"}, {"id": "a"}]),
        SYMBOLS,
        _SymbolKind(),
        {("resolution.overrides[0].set.symbols", "locked-key")},
    ),
    (
        "a symbol pool also locks its dice",
        _set(dice=[{"id": "boost"}, {"id": "setback"}]),
        SYMBOLS,
        _SymbolKind(),
        {("resolution.overrides[0].set.dice", "locked-key")},
    ),
    (
        "set holds keys of the ruleset's own kind: a pool key on a dice-sum",
        _set(cancel={"upTo": 1}),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.cancel", "unknown-key")},
    ),
    (
        "the bands are shared, not the kind's own",
        _set(outcomes=DEGREES_SHIFT),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.outcomes", "locked-key")},
    ),
    (
        "an override cannot nest overrides",
        _set(overrides=[]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.overrides", "locked-key")},
    ),
    (
        "set is checked with the kind's key nodes",
        _set(dice={"count": 0, "sides": 6}),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.dice.count", "too-small")},
    ),
    (
        "an empty set changes nothing",
        _set(),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set", "empty-set")},
    ),
    (
        "null takes away only a key the resolution has",
        _set(advantage=None),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.advantage", "removes-nothing")},
    ),
    (
        "null cannot take away a key the kind requires",
        _set(target=None),
        EXWOD,
        dice_pool.KIND,
        {("resolution.overrides[0].set.target", "required-key")},
    ),
    (
        "checked like the ruleset's own: a face it names has to be on its dice",
        _set(dice={"count": 1, "sides": 20}, unmodified=[66]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].set.unmodified[0]", "face-not-on-die")},
    ),
    (
        "checked like the ruleset's own: a pool's botch below the target",
        _set(botch={"upTo": 6}),
        EXWOD,
        dice_pool.KIND,
        {("resolution.overrides[0].set.botch.upTo", "not-below-target")},
    ),
    (
        "checked like the ruleset's own: a pool with bands leaves exceptional out",
        _set(exceptional={"successes": 3}),
        {**EXWOD, "outcomes": {"by": "total", "tiers": DEGREES_SHIFT["tiers"]}},
        dice_pool.KIND,
        {("resolution.overrides[0].set.exceptional", "never-fires")},
    ),
    (
        "a problem the override brings at a key it does not set is reported at its set",
        _set(dice={"count": 2, "sides": 6}),
        {**D20, "dice": {"count": 1, "sides": 100}, "unmodified": [6]},
        dice_sum.KIND,
        {("resolution.overrides[0].set", "single-die-only")},
    ),
    (
        "the bands are checked against the resolution it makes: shift needs one die",
        _set(dice={"count": 2, "sides": 6}),
        {**D20, "outcomes": DEGREES_SHIFT},
        dice_sum.KIND,
        {("resolution.overrides[0].set", "single-die-only")},
    ),
    (
        "the bands are checked against the resolution it makes: shift needs naturals none",
        _set(naturals={"check": "both"}),
        {**D20, "outcomes": DEGREES_SHIFT},
        dice_sum.KIND,
        {("resolution.overrides[0].set", "naturals-not-none")},
    ),
    (
        "a check in more than one override without when is refused",
        [THIEF, {**X_IN_6, "skills": ["listen", "pick_pockets"]}],
        D20,
        dice_sum.KIND,
        {("resolution.overrides[1].skills[1]", "two-without-when")},
    ),
    (
        "an override after one without when could never apply to that check",
        [THIEF, {**FAVORED, "skills": ["open_locks"], "set": {"advantage": True}}],
        D20,
        dice_sum.KIND,
        {("resolution.overrides[1].skills[0]", "never-applies")},
    ),
    (
        "a check named twice by one override",
        _one(skills=["listen", "listen"]),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].skills[1]", "duplicate-check")},
    ),
    (
        "when is a value off the roller's sheet: an unknown field",
        _one(when={"field": "favoured_athletics"}),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].when.field", "unknown-id")},
    ),
    (
        "when is a value off the roller's sheet, not a constant",
        _one(when={"const": 1}),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].when.const", "when-not-on-sheet")},
    ),
    (
        "when is a value reference",
        _one(when={"fields": "lucky"}),
        D20,
        dice_sum.KIND,
        {
            ("resolution.overrides[0].when.fields", "unknown-key"),
            ("resolution.overrides[0].when", "one-source"),
        },
    ),
    (
        "text is one line",
        _one(text="one\ntwo"),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].text", "bad-text")},
    ),
    (
        "an unknown key of an override",
        _one(sets={"advantage": True}),
        D20,
        dice_sum.KIND,
        {("resolution.overrides[0].sets", "unknown-key")},
    ),
    (
        "overrides is a list",
        {"thief": THIEF},
        D20,
        dice_sum.KIND,
        {("resolution.overrides", "wrong-type")},
    ),
    ("overrides may not be empty", [], D20, dice_sum.KIND, {("resolution.overrides", "too-few")}),
]


@pytest.mark.parametrize(
    ("raw", "block", "kind", "want"),
    [row[1:] for row in REFUSED],
    ids=[row[0] for row in REFUSED],
)
def test_refused(
    raw: Any, block: dict[str, Any], kind: KindCompiler, want: set[tuple[str, str]]
) -> None:
    overrides, problems = _compile(raw, block, kind)
    assert overrides == ()
    assert {(p.where, p.code) for p in problems} == want
    for p in problems:
        assert p.message.endswith((".", "?")), p.message


def test_unknown_ids_get_a_did_you_mean() -> None:
    _, problems = _compile(_one(skills=["open_lock"]), D20, dice_sum.KIND)
    assert problems[0].message == (
        '"open_lock" is not a skill of this sheet. Did you mean "open_locks"?'
    )


def test_a_problem_outside_set_says_where_it_stands() -> None:
    block = {**D20, "outcomes": DEGREES_SHIFT}
    _, problems = _compile(_set(dice={"count": 2, "sides": 6}), block, dice_sum.KIND)
    (problem,) = problems
    assert problem.message.startswith(
        "in the resolution this override makes, resolution.outcomes.naturals: "
    )


def test_the_rulesets_own_problems_are_left_to_the_ruleset() -> None:
    # The ruleset's own 2d6 with naturals is reported by the ruleset's compile, once.
    block = {**D20, "dice": {"count": 2, "sides": 6}, "naturals": {"check": "both"}}
    own_config, own = dice_sum.KIND.compile(block, CTX)
    assert own_config is None and own
    overrides, problems = _compile(_set(advantage=True), block, dice_sum.KIND)
    assert problems == [] and len(overrides) == 1


def test_a_key_the_override_sets_badly_is_reported_even_when_the_ruleset_shares_it() -> None:
    block = {**D20, "dice": {"count": 2, "sides": 6}, "naturals": {"check": "both"}}
    _, problems = _compile(_set(naturals={"check": "both"}), block, dice_sum.KIND)
    assert {(p.where, p.code) for p in problems} == {
        ("resolution.overrides[0].set.naturals.check", "single-die-only")
    }


def test_every_problem_of_every_override_at_once() -> None:
    raw = [
        {**THIEF, "set": {"kind": "dice-pool", "dice": {"count": 1, "sides": 100}}},
        {**X_IN_6, "skills": ["listen", "opn_doors"], "set": {"unmodified": [7]}},
    ]
    _, problems = _compile(raw, {**D20, "dice": {"count": 1, "sides": 6}}, dice_sum.KIND)
    assert {(p.where, p.code) for p in problems} == {
        ("resolution.overrides[0].set.kind", "locked-key"),
        ("resolution.overrides[1].skills[1]", "unknown-id"),
        ("resolution.overrides[1].set.unmodified[0]", "face-not-on-die"),
    }
