"""dice-highest: every rule of the page's section with forced faces, Blades in the Dark and
Trophy Dark rulesets written for these tests, exact odds against brute force, and every
import refusal with its path."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.bands import read_band
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.dice import ForcedFaces
from dicebound.engine import CheckFailure, CheckResult
from dicebound.errors import RulesetInvalid, UsageError
from dicebound.kinds.bands import compile_bands
from dicebound.kinds.base import CompileContext, KindCompiler, KindPlayer, Rolled
from dicebound.kinds.dice_highest import (
    KIND,
    PLAYER,
    CriticalRule,
    Dark,
    HighestCheck,
    HighestConfig,
    distribution,
    roll,
)
from dicebound.kinds.registry import kind_compiler, kind_player
from dicebound.odds import check_odds
from dicebound.problems import Problem
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text
from oracles import bf_dice_highest, enumerate_throws

BLADES = HighestConfig(sides=6, pool_min=0, pool_max=6, critical=CriticalRule(2, 6))
BLADES_FAIL = HighestConfig(sides=6, pool_min=0, pool_max=6, zero_dice="fail")
TROPHY_FIGHT = HighestConfig(sides=6, pool_min=0, pool_max=6, keep=2)
TROPHY_ALL = HighestConfig(
    sides=6, pool_min=0, pool_max=6, critical=CriticalRule(2, 6), dark=Dark("Dark", 3)
)
TROPHY_LIGHT = HighestConfig(
    sides=6,
    pool_min=0,
    pool_max=6,
    critical=CriticalRule(2, 6),
    dark=Dark("Dark", 3, "Ruin rises.", "light"),
)
TROPHY_LIGHT_FAIL = HighestConfig(
    sides=6, pool_min=0, pool_max=6, zero_dice="fail", dark=Dark("Dark", 3, outcome="light")
)
FIVES = HighestConfig(sides=6, pool_min=0, pool_max=6, critical=CriticalRule(2, 5))


def test_the_kind_is_registered_and_fits_the_interface() -> None:
    compiler: KindCompiler = KIND
    player: KindPlayer = PLAYER
    assert kind_compiler("dice-highest") is compiler
    assert kind_player("dice-highest") is player


# -- forced faces: one row per rule ----------------------------------------------------

Extras = tuple[tuple[str, str], ...]
ROWS: list[tuple[str, HighestCheck, list[int], tuple[str, ...], int, str, bool, Extras]] = [
    # (id, check, faces, rolls, total, result, dark highest, extras)
    (
        "blades: three dice, the highest is read",
        HighestCheck(BLADES, 3, 4),
        [2, 5, 3],
        ("2", "5", "3"),
        5,
        "success",
        False,
        (("highest", "1"),),
    ),
    (
        "blades: a highest die below the dc fails",
        HighestCheck(BLADES, 2, 4),
        [3, 1],
        ("3", "1"),
        3,
        "failure",
        False,
        (("highest", "1"),),
    ),
    (
        "blades: one six is a plain success",
        HighestCheck(BLADES, 3, 6),
        [6, 5, 1],
        ("6", "5", "1"),
        6,
        "success",
        False,
        (("highest", "1"),),
    ),
    (
        "blades: two sixes are a critical success",
        HighestCheck(BLADES, 3, 6),
        [6, 2, 6],
        ("6", "2", "6"),
        6,
        "critical_success",
        False,
        (("highest", "1"),),
    ),
    (
        "critical face and above: a five and a six count",
        HighestCheck(FIVES, 3, 6),
        [5, 1, 6],
        ("5", "1", "6"),
        6,
        "critical_success",
        False,
        (("highest", "1"),),
    ),
    (
        "critical face and above: one five alone does not",
        HighestCheck(FIVES, 3, 4),
        [5, 1, 4],
        ("5", "1", "4"),
        5,
        "success",
        False,
        (("highest", "1"),),
    ),
    (
        "a critical success always succeeds, whatever the dc",
        HighestCheck(FIVES, 2, 6),
        [5, 5],
        ("5", "5"),
        5,
        "critical_success",
        False,
        (("highest", "1"),),
    ),
    (
        "keep 2: the two highest dice add up (trophy dark's fights)",
        HighestCheck(TROPHY_FIGHT, 3, 10),
        [6, 4, 5],
        ("6", "4", "5"),
        11,
        "success",
        False,
        (("highest", "2"),),
    ),
    (
        "keep 2 with one die: the one die is all there is",
        HighestCheck(TROPHY_FIGHT, 1, 4),
        [5],
        ("5",),
        5,
        "success",
        False,
        (("highest", "2"),),
    ),
    (
        "zero dice, lowest-of-two: throw two, keep the lower",
        HighestCheck(BLADES, 0, 4),
        [5, 2],
        ("5", "2"),
        2,
        "failure",
        False,
        (("highest", "1"), ("zeroDice", "true")),
    ),
    (
        "zero dice, lowest-of-two: two sixes are never a critical",
        HighestCheck(BLADES, 0, 6),
        [6, 6],
        ("6", "6"),
        6,
        "success",
        False,
        (("highest", "1"), ("zeroDice", "true")),
    ),
    (
        "zero dice, fail: fails without a roll",
        HighestCheck(BLADES_FAIL, 0, 1),
        [],
        (),
        0,
        "failure",
        False,
        (("highest", "1"), ("zeroDice", "true")),
    ),
    (
        "dark all: dark dice are read with the rest, recorded last",
        HighestCheck(TROPHY_ALL, 1, 4, dark=1),
        [3, 6],
        ("3", "6"),
        6,
        "success",
        True,
        (("highest", "1"), ("dark", "1"), ("darkHighest", "true")),
    ),
    (
        "dark all: a dark six beside a light six is a critical",
        HighestCheck(TROPHY_ALL, 1, 4, dark=1),
        [6, 6],
        ("6", "6"),
        6,
        "critical_success",
        False,
        (("highest", "1"), ("dark", "1")),
    ),
    (
        "darkHighest: a dark die that ties the light die does not beat it",
        HighestCheck(TROPHY_ALL, 2, 4, dark=2),
        [2, 5, 5, 1],
        ("2", "5", "5", "1"),
        5,
        "success",
        False,
        (("highest", "1"), ("dark", "2")),
    ),
    (
        "dark all: with no light dice the dark dice are the roll, not zero dice",
        HighestCheck(TROPHY_ALL, 0, 4, dark=2),
        [2, 4],
        ("2", "4"),
        4,
        "success",
        True,
        (("highest", "1"), ("dark", "2"), ("darkHighest", "true")),
    ),
    (
        "dark light: only light dice decide the total",
        HighestCheck(TROPHY_LIGHT, 1, 4, dark=1),
        [3, 6],
        ("3", "6"),
        3,
        "failure",
        True,
        (("highest", "1"), ("dark", "1"), ("darkHighest", "true"), ("darkOutcome", "light")),
    ),
    (
        "dark light: dark sixes make no critical",
        HighestCheck(TROPHY_LIGHT, 1, 4, dark=2),
        [6, 6, 6],
        ("6", "6", "6"),
        6,
        "success",
        False,
        (("highest", "1"), ("dark", "2"), ("darkOutcome", "light")),
    ),
    (
        "dark light: two light sixes are a critical",
        HighestCheck(TROPHY_LIGHT, 2, 4, dark=1),
        [6, 6, 1],
        ("6", "6", "1"),
        6,
        "critical_success",
        False,
        (("highest", "1"), ("dark", "1"), ("darkOutcome", "light")),
    ),
    (
        "dark light, no light dice: two light dice keep the lower, dark still thrown",
        HighestCheck(TROPHY_LIGHT, 0, 4, dark=1),
        [4, 2, 3],
        ("4", "2", "3"),
        2,
        "failure",
        False,
        (("highest", "1"), ("zeroDice", "true"), ("dark", "1"), ("darkOutcome", "light")),
    ),
    (
        "darkHighest counts the fallback light dice: a dark 5 beats 4 and 2",
        HighestCheck(TROPHY_LIGHT, 0, 4, dark=1),
        [4, 2, 5],
        ("4", "2", "5"),
        2,
        "failure",
        True,
        (
            ("highest", "1"),
            ("zeroDice", "true"),
            ("dark", "1"),
            ("darkHighest", "true"),
            ("darkOutcome", "light"),
        ),
    ),
    (
        "dark light, no light dice, fail: no light roll, a dark die thrown wins",
        HighestCheck(TROPHY_LIGHT_FAIL, 0, 1, dark=1),
        [1],
        ("1",),
        0,
        "failure",
        True,
        (
            ("highest", "1"),
            ("zeroDice", "true"),
            ("dark", "1"),
            ("darkHighest", "true"),
            ("darkOutcome", "light"),
        ),
    ),
]


def _result(r: Rolled) -> str:
    if r.critical_success:
        return "critical_success"
    if r.critical_failure:
        return "critical_failure"
    return "success" if r.success else "failure"


@pytest.mark.parametrize(
    ("check", "faces", "rolls", "total", "result", "dark_highest", "extras"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_forced_faces(
    check: HighestCheck,
    faces: list[int],
    rolls: tuple[str, ...],
    total: int,
    result: str,
    dark_highest: bool,
    extras: Extras,
) -> None:
    dice = ForcedFaces(faces)
    r = roll(check, dice)
    assert dice.left == 0
    assert r.rolls == rolls
    assert (r.used, r.modifier, r.total) == (total, 0, total)
    assert _result(r) == result
    assert r.outcome.dark_highest is dark_highest
    assert r.extras == extras
    assert r.resolution == "sum" and r.mode == "normal"
    assert r.dice == f"{len(faces)}d6"
    assert (r.outcome.total, r.outcome.success) == (r.total, r.success)


def test_the_check_refuses_dice_outside_its_config() -> None:
    with pytest.raises(UsageError):
        HighestCheck(BLADES, 7, 4)
    with pytest.raises(UsageError):
        HighestCheck(BLADES, 2, 4, dark=1)  # no dark dice declared
    with pytest.raises(UsageError):
        HighestCheck(TROPHY_FIGHT, 2, 13)  # two d6 add up to 12 at most
    with pytest.raises(UsageError):
        HighestConfig(pool_max=21)


# -- exact odds ------------------------------------------------------------------------


def _key(o: Any) -> tuple[int, bool, bool, bool]:
    return (o.total, o.success, o.critical_success, o.dark_highest)


def _odds(check: HighestCheck) -> dict[tuple[int, bool, bool, bool], Fraction]:
    out: dict[tuple[int, bool, bool, bool], Fraction] = {}
    for o, p in distribution(check).probabilities().items():
        out[_key(o)] = out.get(_key(o), Fraction(0)) + p
    return out


def _thrown(check: HighestCheck) -> dict[tuple[int, bool, bool, bool], Fraction]:
    return enumerate_throws(lambda dice: _key(roll(check, dice).outcome))


def _oracle(check: HighestCheck) -> dict[tuple[int, bool, bool, bool], Fraction]:
    c = check.config
    return bf_dice_highest(
        sides=c.sides,
        light=check.dice,
        dark=check.dark,
        keep=c.keep,
        zero_dice=c.zero_dice,
        critical=None if c.critical is None else (c.critical.count, c.critical.face),
        dark_outcome=c.dark.outcome if c.dark is not None else "all",
        dc=check.dc,
    )


SMALL: list[tuple[str, HighestCheck]] = [
    ("blades 1 die", HighestCheck(BLADES, 1, 4)),
    ("blades 3 dice", HighestCheck(BLADES, 3, 6)),
    ("blades 5 dice", HighestCheck(BLADES, 5, 4)),
    ("blades zero dice", HighestCheck(BLADES, 0, 4)),
    ("zero dice fail", HighestCheck(BLADES_FAIL, 0, 3)),
    ("keep 2 of 4", HighestCheck(TROPHY_FIGHT, 4, 9)),
    ("keep 2 of 1", HighestCheck(TROPHY_FIGHT, 1, 3)),
    ("keep 3 of 4 d4", HighestCheck(HighestConfig(sides=4, keep=3), 4, 7)),
    ("crit at 5 of 3", HighestCheck(FIVES, 3, 6)),
    ("dark all 2+2", HighestCheck(TROPHY_ALL, 2, 4, dark=2)),
    ("dark all 0+3", HighestCheck(TROPHY_ALL, 0, 4, dark=3)),
    ("dark light 2+2", HighestCheck(TROPHY_LIGHT, 2, 4, dark=2)),
    ("dark light 0+2", HighestCheck(TROPHY_LIGHT, 0, 4, dark=2)),
    ("dark light fail 0+2", HighestCheck(TROPHY_LIGHT_FAIL, 0, 1, dark=2)),
    ("dark light 3+0", HighestCheck(TROPHY_LIGHT, 3, 5)),
    (
        "keep 2, crit 3 at 3+, dark light, d5",
        HighestCheck(
            HighestConfig(
                sides=5, keep=2, critical=CriticalRule(3, 3), dark=Dark("D", 2, outcome="light")
            ),
            3,
            6,
            dark=2,
        ),
    ),
    (
        "keep 3, crit 2 at 4+, dark all, d4",
        HighestCheck(
            HighestConfig(sides=4, keep=3, critical=CriticalRule(2, 4), dark=Dark("D", 2)),
            2,
            5,
            dark=2,
        ),
    ),
]


@pytest.mark.parametrize("check", [c for _, c in SMALL], ids=[i for i, _ in SMALL])
def test_distribution_equals_every_throw_of_roll(check: HighestCheck) -> None:
    assert _odds(check) == _thrown(check)


@pytest.mark.parametrize("check", [c for _, c in SMALL], ids=[i for i, _ in SMALL])
def test_distribution_equals_the_rules_written_out(check: HighestCheck) -> None:
    assert _odds(check) == _oracle(check)


@settings(max_examples=examples(60), deadline=None)
@given(
    sides=st.integers(2, 5),
    light=st.integers(0, 4),
    dark=st.integers(0, 2),
    keep=st.integers(1, 3),
    zero=st.sampled_from(["lowest-of-two", "fail"]),
    crit=st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(2, 5))),
    outcome=st.sampled_from(["all", "light"]),
    dc=st.integers(1, 15),
)
def test_any_small_check_matches_brute_force(
    sides: int,
    light: int,
    dark: int,
    keep: int,
    zero: Any,
    crit: tuple[int, int] | None,
    outcome: Any,
    dc: int,
) -> None:
    critical = None if crit is None else CriticalRule(crit[0], min(crit[1], sides))
    config = HighestConfig(
        sides=sides,
        keep=keep,
        zero_dice=zero,
        critical=critical,
        dark=Dark("Dark", 2, outcome=outcome),
    )
    check = HighestCheck(config, light, min(dc, keep * sides), dark)
    assert _odds(check) == _oracle(check)


def test_known_odds() -> None:
    one = distribution(HighestCheck(BLADES, 1, 4))
    assert one.probability_where(lambda o: o.total == 6) == Fraction(1, 6)
    two = distribution(HighestCheck(BLADES, 2, 4))
    # Two dice: a critical is two sixes (1/36); at least a 4 on the higher is 1 - (1/2)^2.
    assert two.probability_where(lambda o: o.critical_success) == Fraction(1, 36)
    assert two.probability_where(lambda o: o.success) == Fraction(3, 4)
    zero = distribution(HighestCheck(BLADES, 0, 6))
    assert zero.probability_where(lambda o: o.success) == Fraction(1, 36)
    assert zero.probability_where(lambda o: o.critical_success) == 0
    fail = distribution(HighestCheck(BLADES_FAIL, 0, 1))
    assert fail.probabilities() == {fail.outcomes()[0]: Fraction(1)}
    # One light die and one dark die read "light": the dark die is strictly higher
    # in 15 of 36 throws.
    dark = distribution(HighestCheck(TROPHY_LIGHT, 1, 4, dark=1))
    assert dark.probability_where(lambda o: o.dark_highest) == Fraction(15, 36)


def test_a_big_check_is_exact_and_quick() -> None:
    config = HighestConfig(
        sides=100, keep=3, critical=CriticalRule(3, 90), dark=Dark("Dark", 10, outcome="light")
    )
    dist = distribution(HighestCheck(config, 20, 150, dark=10))
    assert sum(dist.probabilities().values()) == 1
    all_read = HighestConfig(sides=100, keep=3, critical=CriticalRule(4, 95), dark=Dark("D", 10))
    dist = distribution(HighestCheck(all_read, 20, 150, dark=10))
    # Thirty d100 read together: the three highest are all 100 with chance
    # P(at least three hundreds).
    top = dist.probability_where(lambda o: o.total == 300)
    none, one, two = (Fraction(99, 100) ** (30 - k) * Fraction(1, 100) ** k for k in range(3))
    assert top == 1 - none - 30 * one - 435 * two


def test_more_dice_never_lower_the_chance_of_success() -> None:
    chances = [
        distribution(HighestCheck(BLADES, n, 5)).probability_where(lambda o: o.success)
        for n in range(1, 7)
    ]
    assert chances == sorted(chances)


# -- import ------------------------------------------------------------------------------

SHEET_RAW: dict[str, Any] = {
    "version": 1,
    "abilities": [{"id": "grit", "label": "Grit", "min": 0, "max": 4, "default": 0}],
    "skills": [
        {"id": "prowl", "label": "Prowl"},
        {"id": "hunt", "label": "Hunt"},
        {"id": "wreck", "label": "Wreck", "ability": "grit"},
        {"id": "study", "label": "Study", "untrained": "harder"},
    ],
    "live": {
        "pools": [
            {"id": "stress", "label": "Stress", "max": {"const": 9}},
            {"id": "ruin", "label": "Ruin", "max": {"const": 6}, "start": "empty"},
        ],
        "tracks": [
            {
                "id": "harm",
                "label": "Harm",
                "min": 0,
                "max": 3,
                "levels": [
                    {"label": "Lesser", "penalty": 0},
                    {"label": "Moderate", "penalty": -1},
                    {"label": "Severe", "penalty": -2},
                ],
                "kinds": [{"id": "harm", "label": "Harm", "severity": 0}],
            }
        ],
    },
}

BLADES_BLOCK: dict[str, Any] = {
    "kind": "dice-highest",
    "die": {"sides": 6},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [{"id": f"rating_{i}", "label": str(i), "flat": i} for i in range(5)],
    "penaltyFrom": "harm",
    "pool": {"min": 0, "max": 6},
    "zeroDice": "lowest-of-two",
    "critical": {"count": 2},
    "situationalDice": {"min": -1, "max": 2},
    "difficultyLadder": [{"label": "Partial", "dc": 4}, {"label": "Full", "dc": 6}],
}

BLADES_BANDS: dict[str, Any] = {
    "by": "total",
    "tiers": [
        {"id": "critical", "label": "Critical", "on": "critical-success", "success": True},
        {"id": "full", "label": "Full success", "atLeast": 6, "success": True},
        {
            "id": "partial",
            "label": "Partial success",
            "atLeast": 4,
            "success": True,
            "text": "You do it, with a consequence.",
        },
        {"id": "bad", "label": "Bad outcome"},
    ],
}


def _ruleset_raw(block: Mapping[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "id": "highest-test",
        "version": 1,
        "name": "Highest test",
        "coverage": {"checks": True, "summary": "A ruleset written for dicebound's tests."},
        "resolution": copy.deepcopy(dict(block)),
        "sheet": copy.deepcopy(SHEET_RAW),
        "gm": {"checkGuidance": "Name the action and its position."},
        **top,
    }


def _compile(block: Mapping[str, Any], **top: Any) -> Ruleset:
    return compile_ruleset(_ruleset_raw(block, **top))


def _problems(block: Mapping[str, Any], **top: Any) -> list[tuple[str, str]]:
    with pytest.raises(RulesetInvalid) as caught:
        _compile(block, **top)
    return [(p.where, p.code) for p in caught.value.problems]


REFUSALS: list[tuple[str, dict[str, Any], str, str]] = [
    # (id, keys over the Blades block, path, code)
    (
        "pool.max above 20 is refused",
        {"pool": {"min": 0, "max": 21}},
        "resolution.pool.max",
        "pool-too-large",
    ),
    (
        "pool.min above pool.max",
        {"pool": {"min": 5, "max": 3}, "zeroDice": None},
        "resolution.pool.min",
        "min-above-max",
    ),
    ("keep is 1 to 3", {"keep": 4}, "resolution.keep", "too-large"),
    ("keep is at least 1", {"keep": 0}, "resolution.keep", "too-small"),
    (
        "zeroDice is lowest-of-two or fail",
        {"zeroDice": "reroll"},
        "resolution.zeroDice",
        "not-allowed",
    ),
    (
        "zeroDice with pool.min 1 could never apply",
        {"pool": {"min": 1, "max": 6}},
        "resolution.zeroDice",
        "never-fires",
    ),
    (
        "critical face must be a face of the die",
        {"critical": {"count": 2, "face": 7}},
        "resolution.critical.face",
        "face-not-on-die",
    ),
    (
        "critical count above the most dice read could never fire",
        {"critical": {"count": 7}},
        "resolution.critical.count",
        "never-fires",
    ),
    ("critical needs count", {"critical": {"face": 6}}, "resolution.critical", "missing-key"),
    (
        "dark needs a label and a max",
        {"dark": {"label": "Dark"}},
        "resolution.dark",
        "missing-key",
    ),
    (
        "dark.max is 1 to 10",
        {"dark": {"label": "Dark", "max": 11}},
        "resolution.dark.max",
        "too-large",
    ),
    (
        "dark.outcome is all or light",
        {"dark": {"label": "Dark", "max": 2, "outcome": "dark"}},
        "resolution.dark.outcome",
        "not-allowed",
    ),
    (
        "situationalDice needs min and max",
        {"situationalDice": {"min": -1}},
        "resolution.situationalDice",
        "missing-key",
    ),
    (
        "a ladder dc above keep times sides",
        {"difficultyLadder": [{"label": "Impossible", "dc": 7}]},
        "resolution.difficultyLadder[0].dc",
        "dc-out-of-range",
    ),
    (
        "a ladder dc below 1",
        {"difficultyLadder": [{"label": "Free", "dc": 0}]},
        "resolution.difficultyLadder[0].dc",
        "dc-out-of-range",
    ),
    (
        "spend buys dice only: no successes",
        {"spend": [{"pool": "stress", "amount": 2, "perCheck": 1, "dice": 1, "successes": 1}]},
        "resolution.spend[0].successes",
        "spend-dice-only",
    ),
    (
        "spend buys dice only: no reroll",
        {
            "spend": [
                {
                    "pool": "stress",
                    "amount": 2,
                    "perCheck": 1,
                    "dice": 1,
                    "reroll": {"upTo": 1, "mode": "once"},
                }
            ]
        },
        "resolution.spend[0].reroll",
        "spend-dice-only",
    ),
    (
        "spend names a live pool",
        {"spend": [{"pool": "stres", "amount": 2, "perCheck": 1, "dice": 1}]},
        "resolution.spend[0].pool",
        "unknown-id",
    ),
    (
        "spend from a pool that starts empty",
        {"spend": [{"pool": "ruin", "amount": 1, "perCheck": 1, "dice": 1}]},
        "resolution.spend[0].pool",
        "pool-starts-empty",
    ),
    (
        "two spend entries on one pool",
        {
            "spend": [
                {"pool": "stress", "amount": 2, "perCheck": 1, "dice": 1},
                {"pool": "stress", "amount": 1, "perCheck": 1, "dice": 1},
            ]
        },
        "resolution.spend[1].pool",
        "duplicate-pool",
    ),
    (
        "spend perCheck reads a value the sheet has",
        {"spend": [{"pool": "stress", "amount": 2, "perCheck": {"derived": "nope"}, "dice": 1}]},
        "resolution.spend[0].perCheck.derived",
        "unknown-id",
    ),
    (
        "die sides are 2 to 100",
        {"die": {"sides": 101}},
        "resolution.die.sides",
        "too-large",
    ),
    ("dice-highest has no advantage", {"advantage": True}, "resolution.advantage", "unknown-key"),
]


def _with(block: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(block))
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


@pytest.mark.parametrize(
    ("changes", "path", "code"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_import_refusals(changes: dict[str, Any], path: str, code: str) -> None:
    found = _problems(_with(BLADES_BLOCK, changes))
    assert found == [(path, code)]


def test_a_refusal_names_the_value_and_the_rule() -> None:
    with pytest.raises(RulesetInvalid) as caught:
        _compile(_with(BLADES_BLOCK, {"pool": {"min": 0, "max": 30}}))
    (problem,) = caught.value.problems
    assert str(problem) == (
        "resolution.pool.max: 30 is above 20; a dice-highest pool throws at most 20 dice."
    )


def test_combat_is_refused_beside_dice_highest() -> None:
    combat = {"kind": "attack-roll", "health": {}, "defense": {}, "initiative": {}, "economy": {}}
    assert _problems(BLADES_BLOCK, combat=combat) == [("combat", "combat-not-allowed")]


def test_a_layer_ladder_is_held_to_the_same_range() -> None:
    layer = {"id": "grim", "label": "Grim", "difficultyLadder": [{"label": "Beyond", "dc": 9}]}
    assert _problems(BLADES_BLOCK, layers=[layer]) == [
        ("layers[0].difficultyLadder[0].dc", "dc-out-of-range")
    ]


def test_the_pages_example_compiles() -> None:
    config = _compile(BLADES_BLOCK).resolution.config
    assert config == HighestConfig(
        sides=6, pool_min=0, pool_max=6, critical=CriticalRule(2, 6), situational=(-1, 2)
    )


def test_defaults() -> None:
    block = {k: v for k, v in BLADES_BLOCK.items() if k in ("kind", "abilityModifier")}
    block["proficiencyTiers"] = BLADES_BLOCK["proficiencyTiers"]
    block["difficultyLadder"] = [{"label": "Full", "dc": 6}]
    config = _compile(block).resolution.config
    assert config == HighestConfig(sides=6, pool_min=0, pool_max=20, keep=1)


def test_capability_versions() -> None:
    raw = _ruleset_raw(BLADES_BLOCK)
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(raw, capability_api="1.137")
    assert [(p.where, p.code) for p in caught.value.problems] == [
        ("resolution.kind", "needs-capability")
    ]
    compile_ruleset(raw, capability_api="1.138")
    dark = _ruleset_raw(
        _with(BLADES_BLOCK, {"dark": {"label": "Dark", "max": 3, "outcome": "all"}})
    )
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(dark, capability_api="1.148")
    (problem,) = caught.value.problems
    assert (problem.where, problem.code) == ("resolution.dark.outcome", "needs-capability")
    assert "1.149" in problem.message
    compile_ruleset(dark, capability_api="1.149")
    no_outcome = _ruleset_raw(_with(BLADES_BLOCK, {"dark": {"label": "Dark", "max": 3}}))
    compile_ruleset(no_outcome, capability_api="1.138")


def test_structure_alone_names_every_key() -> None:
    problems: list[Problem] = []
    for key, node in KIND.keys.items():
        if key in BLADES_BLOCK:
            problems.extend(node.check(BLADES_BLOCK[key], ("resolution", key)))
    assert problems == []
    config, found = KIND.compile(BLADES_BLOCK, CompileContext(_compile(BLADES_BLOCK).sheet))
    assert found == [] and config is not None


# -- whole checks through the engine -----------------------------------------------------

BLADES_RULESET = _compile(BLADES_BLOCK)


def _character(ruleset: Ruleset, name: str, build: dict[str, Any], live: Any = None) -> Character:
    raw: dict[str, Any] = {"name": name, "sheet": {"v": 1, "build": build}}
    if live is not None:
        raw["live"] = live
    return load_character(ruleset, raw)


NYX = _character(BLADES_RULESET, "Nyx", {"skills": {"prowl": "rating_2", "hunt": "rating_4"}})
CUTTER = _character(
    BLADES_RULESET,
    "Cutter",
    {"abilities": {"grit": 2}, "skills": {"wreck": "rating_1"}},
    {"wounds": {"harm": {"marks": ["harm", "harm"]}}},
)


def _one(
    text: str, faces: list[int], ruleset: Ruleset = BLADES_RULESET, party: Any = None
) -> CheckResult:
    report = resolve_text(ruleset, party or [NYX, CUTTER], text, faces=faces)
    (item,) = report.items
    assert isinstance(item, CheckResult), item
    return item


ENGINE_ROWS: list[tuple[str, str, list[int], dict[str, str]]] = [
    (
        "the sheet's number is how many dice",
        'skill="Prowl" dc="4"',
        [1, 4],
        {"dice": "2d6", "rolls": "1|4", "total": "4", "result": "success", "highest": "1"},
    ),
    (
        "difficulty= reads the dc off the ladder",
        'skill="Prowl" difficulty="full"',
        [5, 4],
        {"dc": "6", "total": "5", "result": "failure"},
    ),
    (
        "dc= above keep times sides is pulled back to 6",
        'skill="Prowl" dc="9"',
        [6, 1],
        {"dc": "6", "result": "success"},
    ),
    (
        "dc= below 1 is pulled back to 1",
        'skill="Prowl" dc="-3"',
        [1, 1],
        {"dc": "1", "result": "success"},
    ),
    (
        "two sixes are a critical success",
        'skill="Hunt" dc="6"',
        [6, 2, 6, 1],
        {"dice": "4d6", "result": "critical_success", "modifier": "0"},
    ),
    (
        "bonus= adds dice within situationalDice",
        'skill="Prowl" dc="4" bonus="+2"',
        [1, 1, 1, 4],
        {"dice": "4d6", "bonus": "+2", "result": "success"},
    ),
    (
        "bonus= above situationalDice is pulled back to its max",
        'skill="Prowl" dc="4" bonus="+5"',
        [1, 1, 1, 4],
        {"dice": "4d6", "bonus": "+2"},
    ),
    (
        "bonus= takes dice; an empty pool throws two and keeps the lower",
        'skill="Prowl" dc="4" bonus="-1" who="Cutter"',
        [6, 3],
        {"dice": "2d6", "zeroDice": "true", "total": "3", "result": "failure"},
    ),
    (
        "wounds take dice (penaltyFrom), after which the pool is held to its range",
        'skill="Wreck" dc="4" who="Cutter"',
        [4, 2],
        {"dice": "2d6", "penalty": "-1", "total": "4"},
    ),
    (
        "the pool is held to pool.max",
        'skill="Hunt" dc="4" bonus="+2"',
        [1] * 6,
        {"dice": "6d6", "bonus": "+2", "result": "failure"},
    ),
    (
        "dark= is ignored without dark dice declared",
        'skill="Prowl" dc="4" dark="2"',
        [3, 5],
        {"dice": "2d6"},
    ),
    (
        "untrained harder moves the dc one step up the ladder",
        'skill="Study" dc="4"',
        [5, 2],
        {"dc": "6", "zeroDice": "true", "reason": "untrained", "result": "failure"},
    ),
]


@pytest.mark.parametrize(
    ("tag", "faces", "expect"), [r[1:] for r in ENGINE_ROWS], ids=[r[0] for r in ENGINE_ROWS]
)
def test_whole_checks(tag: str, faces: list[int], expect: dict[str, str]) -> None:
    record = _one(f"[skill_check: {tag}]", faces).record.as_dict()
    for key, value in expect.items():
        assert record.get(key) == value, (key, record)
    assert "dark" not in record or "dark" in expect


def test_a_tag_without_a_difficulty_is_refused_without_total_bands() -> None:
    report = resolve_text(BLADES_RULESET, [NYX], '[skill_check: skill="Prowl"]', faces=[])
    (item,) = report.items
    assert isinstance(item, CheckFailure)
    assert "names no difficulty" in item.error


SPEND_RULESET = _compile(
    _with(BLADES_BLOCK, {"spend": [{"pool": "stress", "amount": 2, "perCheck": 2, "dice": 1}]})
)
SPEND_ROWS: list[
    tuple[str, str, dict[str, Any], list[int], dict[str, str], list[tuple[int, int]]]
] = [
    # (id, tag, live, faces, record, stress paid (from, to))
    (
        "spend buys dice: 2 stress is one die",
        'skill="Prowl" dc="4" spend="stress:2"',
        {},
        [1, 2, 4],
        {"dice": "3d6", "spend": "stress:2", "result": "success"},
        [(9, 7)],
    ),
    (
        "spend by the pool's label, any case",
        'skill="Prowl" dc="4" spend="STRESS:4"',
        {},
        [1, 2, 3, 4],
        {"dice": "4d6", "spend": "stress:4"},
        [(9, 5)],
    ),
    (
        "more than perCheck is clamped and only the cap is paid",
        'skill="Prowl" dc="4" spend="stress:6"',
        {},
        [1, 2, 3, 4],
        {"dice": "4d6", "spend": "stress:4"},
        [(9, 5)],
    ),
    (
        "points that are not a whole number of purchases buy nothing",
        'skill="Prowl" dc="4" spend="stress:3"',
        {},
        [1, 4],
        {"dice": "2d6"},
        [],
    ),
    (
        "a pool that cannot cover it buys nothing and pays nothing",
        'skill="Prowl" dc="4" spend="stress:2"',
        {"pools": {"stress": {"value": 1}}},
        [1, 4],
        {"dice": "2d6"},
        [],
    ),
]


@pytest.mark.parametrize(
    ("tag", "live", "faces", "expect", "paid"),
    [r[1:] for r in SPEND_ROWS],
    ids=[r[0] for r in SPEND_ROWS],
)
def test_spend_buys_dice(
    tag: str,
    live: dict[str, Any],
    faces: list[int],
    expect: dict[str, str],
    paid: list[tuple[int, int]],
) -> None:
    nyx = _character(SPEND_RULESET, "Nyx", {"skills": {"prowl": "rating_2"}}, live or None)
    result = _one(f"[skill_check: {tag}]", faces, SPEND_RULESET, [nyx])
    record = result.record.as_dict()
    for key, value in expect.items():
        assert record.get(key) == value, (key, record)
    if not paid:
        assert "spend" not in record
    assert [(c.from_, c.to) for c in result.changes] == paid
    assert all(c.pool == "stress" for c in result.changes)


def test_spend_with_no_room_in_the_pool_is_not_made() -> None:
    nyx = _character(SPEND_RULESET, "Nyx", {"skills": {"hunt": "rating_4"}})
    result = _one(
        '[skill_check: skill="Hunt" dc="4" bonus="+2" spend="stress:2"]',
        [1] * 6,
        SPEND_RULESET,
        [nyx],
    )
    assert result.record.as_dict()["dice"] == "6d6"
    assert "spend" not in result.record.as_dict() and result.changes == ()


def test_spend_per_check_pool_is_the_sheets_number() -> None:
    ruleset = _compile(
        _with(
            BLADES_BLOCK,
            {"spend": [{"pool": "stress", "amount": 1, "perCheck": "pool", "dice": 1}]},
        )
    )
    nyx = _character(ruleset, "Nyx", {"skills": {"prowl": "rating_2"}})
    result = _one('[skill_check: skill="Prowl" dc="4" spend="stress:5"]', [1] * 4, ruleset, [nyx])
    assert result.record.as_dict()["spend"] == "stress:2"
    assert result.record.as_dict()["dice"] == "4d6"


TROPHY_BLOCK = _with(
    BLADES_BLOCK,
    {
        "dark": {"label": "Dark", "max": 3, "text": "Ruin rises when a dark die is highest."},
        "situationalDice": None,
        "critical": None,
    },
)
TROPHY_LIGHT_BLOCK = _with(
    TROPHY_BLOCK,
    {"dark": {"label": "Dark", "max": 3, "outcome": "light"}},
)


def test_trophy_dark_dice_read_with_the_rest() -> None:
    ruleset = _compile(TROPHY_BLOCK)
    nyx = _character(ruleset, "Nyx", {"skills": {"prowl": "rating_1"}})
    record = _one('[skill_check: skill="Prowl" dc="4" dark="2"]', [2, 1, 5], ruleset, [nyx])
    attrs = record.record.as_dict()
    assert attrs["rolls"] == "2|1|5" and attrs["dice"] == "3d6"
    assert attrs["dark"] == "2" and attrs["darkHighest"] == "true"
    assert attrs["total"] == "5" and attrs["result"] == "success"
    assert "darkOutcome" not in attrs


def test_trophy_dark_dice_beside_the_light_ones() -> None:
    ruleset = _compile(TROPHY_LIGHT_BLOCK)
    nyx = _character(ruleset, "Nyx", {"skills": {"prowl": "rating_1"}})
    # dark="9" is held to dark.max 3.
    record = _one('[skill_check: skill="Prowl" dc="4" dark="9"]', [2, 1, 5, 6], ruleset, [nyx])
    attrs = record.record.as_dict()
    assert attrs["rolls"] == "2|1|5|6" and attrs["dark"] == "3"
    assert attrs["total"] == "2" and attrs["result"] == "failure"
    assert attrs["darkHighest"] == "true" and attrs["darkOutcome"] == "light"
    # No light dice at all: two light dice keep the lower, the dark die still thrown.
    empty = _one('[skill_check: skill="Hunt" dc="4" dark="1"]', [5, 4, 6], ruleset, [nyx])
    attrs = empty.record.as_dict()
    assert attrs["zeroDice"] == "true" and attrs["total"] == "4"
    assert attrs["rolls"] == "5|4|6" and attrs["darkHighest"] == "true"


def test_odds_of_a_whole_check() -> None:
    odds = check_odds(BLADES_RULESET, NYX, 'skill="Prowl" dc="4"')
    assert odds.success == Fraction(3, 4)
    labels = {o.label: o.probability for o in odds.outcomes}
    assert labels["Critical success"] == Fraction(1, 36)


def test_blades_bands_read_the_kept_dice() -> None:
    """The page's Blades bands read by total: the band compiler and reader on our outcomes."""
    bands, problems = compile_bands(
        BLADES_BANDS,
        ("resolution", "outcomes"),
        kind="dice-highest",
        single_die=False,
        resolution_naturals_none=True,
    )
    assert problems == [] and bands is not None

    def band(check: HighestCheck, faces: list[int]) -> str:
        out = roll(check, ForcedFaces(faces)).outcome
        return read_band(
            bands,
            value=out.total,
            critical_success=out.critical_success,
            critical_failure=out.critical_failure,
        ).id

    check = HighestCheck(BLADES, 3, 0)
    assert band(check, [6, 6, 1]) == "critical"
    assert band(check, [6, 2, 1]) == "full"
    assert band(check, [5, 4, 1]) == "partial"
    assert band(check, [3, 2, 1]) == "bad"
    assert band(HighestCheck(BLADES, 0, 0), [6, 6]) == "full"  # never a critical


def _banded() -> Ruleset:
    return _compile({**BLADES_BLOCK, "outcomes": BLADES_BANDS})


def test_blades_bands_through_the_engine() -> None:
    ruleset = _banded()
    nyx = _character(ruleset, "Nyx", {"skills": {"prowl": "rating_2"}})
    report = resolve_text(ruleset, [nyx], '[skill_check: skill="Prowl"]', faces=[5, 2])
    (item,) = report.items
    assert isinstance(item, CheckResult)
    assert item.outcome == "Partial success" and item.success
    assert item.record.as_dict()["dc"] == "0"
    crit = _one('[skill_check: skill="Prowl"]', [6, 6], ruleset, [nyx])
    assert crit.outcome == "Critical" and crit.critical == "success"
    odds = check_odds(ruleset, nyx, 'skill="Prowl"')
    by = {o.label: o.probability for o in odds.outcomes}
    assert by == {
        "Critical": Fraction(1, 36),
        "Full success": Fraction(10, 36),
        "Partial success": Fraction(16, 36),
        "Bad outcome": Fraction(9, 36),
    }
