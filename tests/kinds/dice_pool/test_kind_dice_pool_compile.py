"""dice-pool, the compile half: every key of the page's section and of
docs/design/format.md "dice-pool", and every import refusal the section implies, with
its path."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

from dicebound.kinds.base import CompileContext
from dicebound.kinds.dice_pool import (
    KIND,
    Exact,
    FaceRule,
    PoolConfig,
    Reroll,
    Spend,
    Stance,
)
from dicebound.problems import Problem, render_path
from dicebound.ruleset.model import (
    Ability,
    Derived,
    Field,
    LivePool,
    Sheet,
    SkillDef,
    ValueRef,
)
from shared_files import shared_path


def _skill(skill_id: str) -> SkillDef:
    return SkillDef(skill_id, skill_id.title(), "skill")


SHEET = Sheet(
    version=1,
    abilities=(
        Ability("lasers", "Lasers", None, 2, 5, 3),
        Ability("nerve", "Nerve", None, 1, 5, 2),
    ),
    skills=tuple(_skill(s) for s in ("ward", "soothe", "shoot", "charm", "pilot")),
    fields=(Field("number", "Number", "number", 2, 5, 3),),
    derived=(Derived("focus", "Focus", "sum", (ValueRef("const", value=2),)),),
    pools=(
        LivePool("resolve", "Resolve", ValueRef("const", value=3)),
        LivePool("stress", "Stress", ValueRef("const", value=6), start="empty"),
        LivePool("luck", "Luck", ValueRef("const", value=3)),
    ),
)
CTX = CompileContext(SHEET)

# The page's example, which every row below starts from.
BASE: dict[str, Any] = {
    "die": {"sides": 10},
    "pool": {"min": 1, "max": 15, "abilityPlusAbility": True},
    "target": {"default": 7, "min": 5, "max": 9},
    "explode": {"from": 10, "min": 8},
    "cancel": {"upTo": 1},
    "botch": {"upTo": 1},
    "exceptional": {"successes": 5},
    "situationalDice": {"min": -3, "max": 3},
    "reroll": [{"id": "careful", "upTo": 6, "mode": "once"}],
    "difficultyLadder": [
        {"label": "Plain work", "successes": 1, "target": 6},
        {"label": "Grim", "successes": 3, "target": 8},
    ],
}


def _structure(block: Mapping[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    for key in KIND.required:
        if key not in block:
            out.append(
                Problem(("resolution",), "missing-key", f'the key "{key}" is required here.')
            )
    for key, value in block.items():
        node = KIND.keys.get(key)
        if node is not None:
            out.extend(node.check(value, ("resolution", key)))
    return out


def _import(block: Mapping[str, Any]) -> tuple[PoolConfig | None, list[Problem]]:
    """Structure first, then the kind's cross-checks, as the ruleset compiler does."""
    problems = _structure(block)
    if problems:
        return None, problems
    return KIND.compile(block, CTX)


def _with(**changes: Any) -> dict[str, Any]:
    block = dict(BASE)
    for key, value in changes.items():
        if value is None:
            block.pop(key, None)
        else:
            block[key] = value
    return block


def test_the_pages_example_compiles_to_its_config() -> None:
    config, problems = _import(BASE)
    assert problems == []
    assert config == PoolConfig(
        sides=10,
        pool_min=1,
        pool_max=15,
        target_default=7,
        target_min=5,
        target_max=9,
        ability_plus_ability=True,
        explode=FaceRule(10, 8),
        cancel_up_to=1,
        botch_up_to=1,
        exceptional=5,
        situational=(-3, 3),
        rerolls=(Reroll(6, "once", "careful"),),
    )
    assert config.max_successes == 30
    assert config.target_adjustable


def test_defaults_die_d10_and_pool_1_to_40() -> None:
    config, problems = _import(
        {
            "target": {"default": 6, "min": 6, "max": 6},
            "difficultyLadder": [{"label": "One", "successes": 1}],
        }
    )
    assert problems == []
    assert config is not None
    assert (config.sides, config.pool_min, config.pool_max) == (10, 1, 40)
    assert not config.target_adjustable
    assert config.botch_rule == "noSuccesses"


def test_seed_only_keys_compile() -> None:
    block = _with(
        target={"default": 4, "min": 2, "max": 5, "from": {"field": "number"}},
        stances=[
            {"id": "lasers", "label": "Lasers", "count": "below", "skills": ["shoot", "pilot"]},
            {"id": "feelings", "label": "Feelings", "count": "above", "skills": ["charm"]},
        ],
        exact={"label": "LASER FEELINGS", "text": "Ask a question."},
        double={"min": 9},
        botch={"upTo": 1, "rule": "halfOrMore"},
        cancel=None,
        difficultyLadder=[{"label": "One", "successes": 1}],
        spend=[
            {"pool": "resolve", "amount": 1, "successes": 1, "perCheck": 2},
            {
                "pool": "luck",
                "amount": 2,
                "reroll": {"upTo": 3, "mode": "until"},
                "perCheck": "pool",
            },
        ],
    )
    config, problems = _import(block)
    assert problems == []
    assert config is not None
    assert config.target_from == ValueRef("field", "number")
    assert config.stances == (
        Stance("lasers", "Lasers", "below", ("shoot", "pilot")),
        Stance("feelings", "Feelings", "above", ("charm",)),
    )
    assert config.exact == Exact("LASER FEELINGS", "Ask a question.", True)
    assert config.double == FaceRule(None, 9)
    assert config.botch_rule == "halfOrMore"
    assert config.spend == (
        Spend("resolve", 1, 2, successes=1),
        Spend("luck", 2, "pool", reroll=Reroll(3, "until")),
    )
    assert config.max_successes == 15 * 2 * 2


def test_a_spend_per_check_may_read_the_sheet() -> None:
    block = _with(
        spend=[{"pool": "resolve", "amount": 1, "dice": 1, "perCheck": {"derived": "focus"}}]
    )
    config, problems = _import(block)
    assert problems == []
    assert config is not None
    assert config.spend[0].per_check == ValueRef("derived", "focus")


def test_ladder_steps_read_successes_and_target() -> None:
    step = KIND.ladder_step({"label": "Grim", "successes": 3, "target": 8})
    assert (step.label, step.successes, step.target, step.dc) == ("Grim", 3, 8, None)
    assert KIND.ladder_step({"label": "Awkward", "successes": 2}).target is None


REFUSALS: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = [
    # (id, block, [(path, code), ...])
    (
        "target faces must be faces of the die",
        _with(die={"sides": 6}, explode={"from": 6}, reroll=None),
        [
            ("resolution.target.default", "face-not-on-die"),
            ("resolution.target.max", "face-not-on-die"),
            ("resolution.difficultyLadder[1].target", "face-not-on-die"),
        ],
    ),
    (
        "explode faces must be faces of the die",
        _with(explode={"from": 12, "min": 11}),
        [
            ("resolution.explode.from", "face-not-on-die"),
            ("resolution.explode.min", "face-not-on-die"),
        ],
    ),
    (
        "double faces must be faces of the die",
        _with(double={"min": 11}),
        [("resolution.double.min", "face-not-on-die")],
    ),
    (
        "explode.from may not be below explode.min",
        _with(explode={"from": 8, "min": 9}),
        [("resolution.explode.from", "below-min")],
    ),
    (
        "double.from may not be below double.min",
        _with(double={"from": 8, "min": 9}),
        [("resolution.double.from", "below-min")],
    ),
    (
        "explode needs from or min",
        _with(explode={}),
        [("resolution.explode", "missing-key")],
    ),
    (
        "target default within min..max",
        _with(target={"default": 4, "min": 5, "max": 9}),
        [("resolution.target.default", "out-of-range")],
    ),
    (
        "target min may not be above max",
        _with(
            target={"default": 7, "min": 9, "max": 5},
            difficultyLadder=[{"label": "A", "successes": 1}],
        ),
        [("resolution.target.min", "min-above-max")],
    ),
    (
        "cancel.upTo below the lowest target",
        _with(cancel={"upTo": 5}),
        [("resolution.cancel.upTo", "not-below-target")],
    ),
    (
        "botch.upTo below the lowest target",
        _with(botch={"upTo": 8}),
        [("resolution.botch.upTo", "not-below-target")],
    ),
    (
        "botch.rule is noSuccesses or halfOrMore",
        _with(botch={"upTo": 1, "rule": "always"}),
        [("resolution.botch.rule", "not-allowed")],
    ),
    (
        "pool.min may not be above pool.max",
        _with(pool={"min": 5, "max": 3}),
        [("resolution.pool.min", "min-above-max")],
    ),
    (
        "pool needs min and max",
        _with(pool={"max": 3}),
        [("resolution.pool", "missing-key")],
    ),
    (
        "pool.max is at most 100",
        _with(pool={"min": 1, "max": 101}),
        [("resolution.pool.max", "too-large")],
    ),
    (
        "die sides are 2 to 100",
        _with(die={"sides": 101}),
        [("resolution.die.sides", "too-large")],
    ),
    (
        "exceptional past the most one roll can count (15, doubled for explode: 30)",
        _with(exceptional={"successes": 31}),
        [("resolution.exceptional.successes", "past-max-successes")],
    ),
    (
        "without explode the most is pool.max",
        _with(explode=None, exceptional={"successes": 16}),
        [("resolution.exceptional.successes", "past-max-successes")],
    ),
    (
        "a ladder step's successes past the most one roll can count",
        _with(explode=None, difficultyLadder=[{"label": "Legend", "successes": 16}]),
        [("resolution.difficultyLadder[0].successes", "past-max-successes")],
    ),
    (
        "a ladder step may name a target only when the target moves",
        _with(target={"default": 7, "min": 7, "max": 7}, cancel=None, botch=None),
        [
            ("resolution.difficultyLadder[0].target", "target-fixed"),
            ("resolution.difficultyLadder[1].target", "target-fixed"),
        ],
    ),
    (
        "a ladder step's target inside the target's range",
        _with(difficultyLadder=[{"label": "Sharp", "successes": 1, "target": 10}]),
        [("resolution.difficultyLadder[0].target", "out-of-range")],
    ),
    (
        "a ladder has at least one step",
        _with(difficultyLadder=[]),
        [("resolution.difficultyLadder", "too-few")],
    ),
    (
        "target is required",
        _with(target=None),
        [("resolution", "missing-key")],
    ),
    (
        "exceptional beside outcome bands could never fire",
        _with(outcomes={"tiers": []}),
        [("resolution.exceptional", "never-fires")],
    ),
    (
        "reroll.upTo runs to one below the die's sides",
        _with(reroll=[{"id": "careful", "upTo": 10, "mode": "once"}]),
        [("resolution.reroll[0].upTo", "rerolls-every-face")],
    ),
    (
        "reroll ids are unique",
        _with(
            reroll=[
                {"id": "careful", "upTo": 6, "mode": "once"},
                {"id": "careful", "upTo": 2, "mode": "until"},
            ]
        ),
        [("resolution.reroll[1].id", "duplicate-id")],
    ),
    (
        "at most six rerolls",
        _with(reroll=[{"id": f"r{i}", "upTo": 1, "mode": "once"} for i in range(7)]),
        [("resolution.reroll", "too-many")],
    ),
    (
        "reroll mode is once or until",
        _with(reroll=[{"id": "careful", "upTo": 6, "mode": "twice"}]),
        [("resolution.reroll[0].mode", "not-allowed")],
    ),
    (
        "situationalDice min is -20..0",
        _with(situationalDice={"min": 1, "max": 3}),
        [("resolution.situationalDice.min", "too-large")],
    ),
    (
        "stance ids are unique",
        _with(
            stances=[
                {"id": "lasers", "label": "Lasers", "count": "below", "skills": ["shoot"]},
                {"id": "lasers", "label": "Feelings", "count": "above", "skills": ["charm"]},
            ]
        ),
        [("resolution.stances[1].id", "duplicate-id")],
    ),
    (
        "a skill may be in one stance only",
        _with(
            stances=[
                {"id": "lasers", "label": "Lasers", "count": "below", "skills": ["shoot"]},
                {
                    "id": "feelings",
                    "label": "Feelings",
                    "count": "above",
                    "skills": ["charm", "shoot"],
                },
            ]
        ),
        [("resolution.stances[1].skills[1]", "skill-in-two-stances")],
    ),
    (
        "a stance's skills must be skills of the sheet",
        _with(stances=[{"id": "lasers", "label": "Lasers", "count": "below", "skills": ["shot"]}]),
        [("resolution.stances[0].skills[0]", "unknown-id")],
    ),
    (
        "a stance counts below or above",
        _with(stances=[{"id": "lasers", "label": "Lasers", "count": "under", "skills": ["shoot"]}]),
        [("resolution.stances[0].count", "not-allowed")],
    ),
    (
        "at most six stances",
        _with(
            stances=[
                {"id": f"s{i}", "label": "S", "count": "below", "skills": ["shoot"]}
                for i in range(7)
            ]
        ),
        [("resolution.stances", "too-many")],
    ),
    (
        "exact needs a label",
        _with(exact={"text": "Ask a question."}),
        [("resolution.exact", "missing-key")],
    ),
    (
        "target.from on a fixed target could never change it",
        _with(
            target={"default": 7, "min": 7, "max": 7, "from": {"field": "number"}},
            cancel=None,
            botch=None,
            difficultyLadder=[{"label": "A", "successes": 1}],
        ),
        [("resolution.target.from", "target-fixed")],
    ),
    (
        "target.from must name something on the sheet",
        _with(target={"default": 7, "min": 5, "max": 9, "from": {"field": "numbr"}}),
        [("resolution.target.from.field", "unknown-id")],
    ),
    (
        "target.from is a value reference with one source",
        _with(
            target={
                "default": 7,
                "min": 5,
                "max": 9,
                "from": {"field": "number", "derived": "focus"},
            }
        ),
        [("resolution.target.from", "one-source")],
    ),
    (
        "a spend names a live pool of the sheet",
        _with(spend=[{"pool": "resolv", "amount": 1, "successes": 1, "perCheck": 2}]),
        [("resolution.spend[0].pool", "unknown-id")],
    ),
    (
        "a spend's pool may not start empty",
        _with(spend=[{"pool": "stress", "amount": 1, "successes": 1, "perCheck": 2}]),
        [("resolution.spend[0].pool", "pool-starts-empty")],
    ),
    (
        "two spend entries may not name the same pool",
        _with(
            spend=[
                {"pool": "resolve", "amount": 1, "successes": 1, "perCheck": 2},
                {"pool": "resolve", "amount": 2, "dice": 1, "perCheck": 1},
            ]
        ),
        [("resolution.spend[1].pool", "duplicate-pool")],
    ),
    (
        "a spend buys successes, dice or a reroll",
        _with(spend=[{"pool": "resolve", "amount": 1, "perCheck": 2}]),
        [("resolution.spend[0]", "missing-key")],
    ),
    (
        "a spend's perCheck is 1 to 10, a value reference or pool",
        _with(spend=[{"pool": "resolve", "amount": 1, "successes": 1, "perCheck": "all"}]),
        [("resolution.spend[0].perCheck", "not-allowed")],
    ),
    (
        "a spend's perCheck number is at most 10",
        _with(spend=[{"pool": "resolve", "amount": 1, "successes": 1, "perCheck": 11}]),
        [("resolution.spend[0].perCheck", "too-large")],
    ),
    (
        "a spend's perCheck reference must name something on the sheet",
        _with(
            spend=[
                {
                    "pool": "resolve",
                    "amount": 1,
                    "successes": 1,
                    "perCheck": {"abilityScore": "nerv"},
                }
            ]
        ),
        [("resolution.spend[0].perCheck.abilityScore", "unknown-id")],
    ),
    (
        "a spend's reroll runs to one below the die's sides",
        _with(
            spend=[
                {
                    "pool": "resolve",
                    "amount": 1,
                    "reroll": {"upTo": 10, "mode": "once"},
                    "perCheck": 1,
                }
            ]
        ),
        [("resolution.spend[0].reroll.upTo", "rerolls-every-face")],
    ),
    (
        "at most four spend entries",
        _with(
            spend=[
                {"pool": p, "amount": 1, "successes": 1, "perCheck": 1}
                for p in ("resolve", "luck", "resolve", "luck", "resolve")
            ]
        ),
        [("resolution.spend", "too-many")],
    ),
    (
        "dice is not a pool key",
        _with(dice={"count": 1, "sides": 10}),
        [("resolution.dice", "unknown-key")],
    ),
]


@pytest.mark.parametrize(
    ("block", "expected"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_import_refusals(block: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    if "dice" in block:
        # Keys a pool does not take are the ruleset compiler's to refuse (strict object).
        assert "dice" not in KIND.keys
        return
    config, problems = _import(block)
    assert config is None
    assert sorted((p.where, p.code) for p in problems) == sorted(expected), problems
    assert all(p.message.endswith((".", "?")) for p in problems)


def test_a_refusal_names_the_value_and_the_rule() -> None:
    _, problems = _import(_with(cancel={"upTo": 8}))
    assert [p.message for p in problems] == [
        "8 is not below the lowest target 5; a face that counts as a success cannot also cancel."
    ]
    _, problems = _import(_with(exceptional={"successes": 31}))
    assert problems[0].message == (
        "31 is more than one roll can count (30: pool.max 15, doubled because dice explode)."
    )


def test_gravewatch_compiles() -> None:
    doc = json.loads(shared_path("marinara", "gravewatch.json").read_text())
    block = doc["resolution"]
    sheet = Sheet(
        version=1,
        skills=tuple(_skill(s["id"]) for s in doc["sheet"]["skills"]),
        pools=tuple(
            LivePool(
                p["id"],
                p["label"],
                ValueRef("derived", "resolve_max"),
                start=p.get("start", "full"),
            )
            for p in doc["sheet"]["live"]["pools"]
        ),
    )
    problems = _structure(block)
    assert problems == []
    config, problems = KIND.compile(block, CompileContext(sheet))
    assert problems == []
    assert config is not None
    assert config.max_successes == 30  # Gravewatch's (docs/design/format.md "dice-pool")
    assert config.spend == (Spend("resolve", 1, 2, successes=1),)
    assert [KIND.ladder_step(s).target for s in block["difficultyLadder"]] == [6, None, 8, 9]
    assert {v for v, _, _ in KIND.features(block)} == {"1.24", "1.37", "1.38"}


@pytest.mark.parametrize(
    ("block", "features"),
    [
        (
            {"target": {"default": 7, "min": 7, "max": 7}},
            [("1.24", "resolution.kind")],
        ),
        (
            _with(botch={"upTo": 1, "rule": "halfOrMore"}, double={"from": 10}),
            [
                ("1.24", "resolution.kind"),
                ("1.37", "resolution.explode.min"),
                ("1.37", "resolution.pool.abilityPlusAbility"),
                ("1.37", "resolution.botch.rule"),
                ("1.38", "resolution.reroll"),
            ],
        ),
        (
            {
                "target": {"default": 4, "min": 2, "max": 5, "from": {"field": "number"}},
                "stances": [],
                "exact": {"label": "X"},
                "spend": [
                    {"pool": "a", "amount": 1, "successes": 1, "perCheck": 1},
                    {
                        "pool": "b",
                        "amount": 1,
                        "reroll": {"upTo": 1, "mode": "once"},
                        "perCheck": "pool",
                    },
                    {"pool": "c", "amount": 1, "dice": 1, "perCheck": {"derived": "focus"}},
                ],
            },
            [
                ("1.24", "resolution.kind"),
                ("1.38", "resolution.spend[1].reroll"),
                ("1.38", "resolution.spend[1].perCheck"),
                ("1.38", "resolution.spend[2].perCheck"),
                ("1.38", "resolution.spend[2]"),
                ("1.137", "resolution.target.from"),
                ("1.137", "resolution.stances"),
                ("1.137", "resolution.exact"),
            ],
        ),
    ],
    ids=[
        "a pool ruleset is 1.24",
        "explode.min, abilityPlusAbility, botch.rule are 1.37; reroll 1.38",
        "spend's reroll, a perCheck not a number, a third entry 1.38; from, stances, exact 1.137",
    ],
)
def test_capability_features(block: dict[str, Any], features: list[tuple[str, str]]) -> None:
    assert [(v, render_path(p)) for v, p, _ in KIND.features(block)] == features
