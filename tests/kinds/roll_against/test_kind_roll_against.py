"""roll-against: every rule of the page's section with forced faces, Call of Cthulhu 7e and
GURPS rulesets written for these tests, exact odds against brute force, and every import
refusal with its path."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
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
from dicebound.engine import CheckResult
from dicebound.errors import RulesetInvalid, UsageError
from dicebound.kinds.bands import band_value, compile_bands
from dicebound.kinds.base import KindCompiler, KindPlayer, Rolled
from dicebound.kinds.registry import kind_compiler, kind_player
from dicebound.kinds.roll_against import (
    KIND,
    PLAYER,
    AgainstCheck,
    AgainstConfig,
    CritRule,
    distribution,
    roll,
    roll_distribution,
)
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text
from oracles import bf_roll_against, enumerate_throws

# Call of Cthulhu 7e: 1d100 at most the skill; 01 is a critical; 100 is a fumble, and
# 96-100 when the skill is below 50; up to two bonus or penalty dice.
COC = AgainstConfig(
    critical_success=(CritRule(1, 1),),
    critical_failure=(CritRule(100, 100), CritRule(96, None, target_below=50)),
    tens_max=2,
)
# GURPS: 3d6 at most the skill. 3-4 always critical; 5 at 15+; 6 at 16+. 18 always a
# critical failure; 17 unless the skill is 16 or more; 10 or more past the skill.
GURPS = AgainstConfig(
    count=3,
    sides=6,
    critical_success=(
        CritRule(3, 4),
        CritRule(5, 5, target_at_least=15),
        CritRule(6, 6, target_at_least=16),
    ),
    critical_failure=(
        CritRule(18, None),
        CritRule(17, 17, target_below=16),
        CritRule(past_target=10),
    ),
)
AT_LEAST = AgainstConfig(
    count=1,
    sides=20,
    against="at-least",
    critical_success=(CritRule(20, 20),),
    critical_failure=(CritRule(1, 1), CritRule(past_target=10)),
)
D100_AT_LEAST_TENS = AgainstConfig(against="at-least", tens_max=2)


def test_the_kind_is_registered_and_fits_the_interface() -> None:
    compiler: KindCompiler = KIND
    player: KindPlayer = PLAYER
    assert kind_compiler("roll-against") is compiler
    assert kind_player("roll-against") is player


# -- forced faces: one row per rule ----------------------------------------------------

ROWS: list[tuple[str, AgainstCheck, list[int], tuple[str, ...], int, str, str]] = [
    # (id, check, faces, rolls, roll kept, result, dice)
    ("coc: at the skill succeeds", AgainstCheck(COC, 50), [50], ("50",), 50, "success", "1d100"),
    ("coc: over the skill fails", AgainstCheck(COC, 50), [51], ("51",), 51, "failure", "1d100"),
    ("coc: 01 is a critical", AgainstCheck(COC, 50), [1], ("1",), 1, "critical_success", "1d100"),
    (
        "a critical success always succeeds, even past the target",
        AgainstCheck(COC, 0),
        [1],
        ("1",),
        1,
        "critical_success",
        "1d100",
    ),
    (
        "coc: 100 is a fumble",
        AgainstCheck(COC, 90),
        [100],
        ("100",),
        100,
        "critical_failure",
        "1d100",
    ),
    (
        "coc: 96 is a fumble when the skill is below 50",
        AgainstCheck(COC, 49),
        [96],
        ("96",),
        96,
        "critical_failure",
        "1d100",
    ),
    (
        "coc: 96 is a plain failure when the skill is 50",
        AgainstCheck(COC, 50),
        [96],
        ("96",),
        96,
        "failure",
        "1d100",
    ),
    (
        "a critical failure always fails, even under the target",
        AgainstCheck(COC, 120),
        [100],
        ("100",),
        100,
        "critical_failure",
        "1d100",
    ),
    (
        "coc bonus die: the d100 first, then a tens die; the lower roll is kept",
        AgainstCheck(COC, 40, 1),
        [47, 3],
        ("47", "30"),
        37,
        "success",
        "1d100+1d10",
    ),
    (
        "coc two penalty dice: the worst (highest) roll is kept",
        AgainstCheck(COC, 40, -2),
        [23, 5, 10],
        ("23", "50", "0"),
        53,
        "failure",
        "1d100+2d10",
    ),
    (
        "tens: 00 with 0 reads 100, and a bonus die of 10 is a tens digit 0",
        AgainstCheck(COC, 40, 1),
        [100, 10],
        ("100", "0"),
        100,
        "critical_failure",
        "1d100+1d10",
    ),
    (
        "tens: with a ones of 0, a bonus tens of 1 reads 10 and beats 100",
        AgainstCheck(COC, 40, 1),
        [100, 1],
        ("100", "10"),
        10,
        "success",
        "1d100+1d10",
    ),
    (
        "tens: a d100 of 10 reads tens 1, ones 0; a penalty tens 0 makes it 100",
        AgainstCheck(COC, 40, -1),
        [10, 10],
        ("10", "0"),
        100,
        "critical_failure",
        "1d100+1d10",
    ),
    (
        "tens: the ones die is shared, 05 and a tens die of 10 read 05",
        AgainstCheck(COC, 40, -1),
        [5, 10],
        ("5", "0"),
        5,
        "success",
        "1d100+1d10",
    ),
    (
        "tens at least: the best roll is the highest",
        AgainstCheck(D100_AT_LEAST_TENS, 60, 2),
        [12, 7, 4],
        ("12", "70", "40"),
        72,
        "success",
        "1d100+2d10",
    ),
    (
        "tens at least: the worst roll is the lowest",
        AgainstCheck(D100_AT_LEAST_TENS, 60, -1),
        [72, 1],
        ("72", "10"),
        12,
        "failure",
        "1d100+1d10",
    ),
    (
        "gurps: 3d6 at most the skill",
        AgainstCheck(GURPS, 12),
        [4, 4, 4],
        ("4", "4", "4"),
        12,
        "success",
        "3d6",
    ),
    (
        "gurps: 3 is always a critical success",
        AgainstCheck(GURPS, 3),
        [1, 1, 1],
        ("1", "1", "1"),
        3,
        "critical_success",
        "3d6",
    ),
    (
        "gurps: 4 is always a critical success, even over a skill of 2",
        AgainstCheck(GURPS, 2),
        [1, 1, 2],
        ("1", "1", "2"),
        4,
        "critical_success",
        "3d6",
    ),
    (
        "gurps: 5 is a critical success at a skill of 15",
        AgainstCheck(GURPS, 15),
        [1, 2, 2],
        ("1", "2", "2"),
        5,
        "critical_success",
        "3d6",
    ),
    (
        "gurps: 5 is a plain success at a skill of 14",
        AgainstCheck(GURPS, 14),
        [1, 2, 2],
        ("1", "2", "2"),
        5,
        "success",
        "3d6",
    ),
    (
        "gurps: 6 is a critical success at a skill of 16",
        AgainstCheck(GURPS, 16),
        [2, 2, 2],
        ("2", "2", "2"),
        6,
        "critical_success",
        "3d6",
    ),
    (
        "gurps: 6 is a plain success at a skill of 15",
        AgainstCheck(GURPS, 15),
        [2, 2, 2],
        ("2", "2", "2"),
        6,
        "success",
        "3d6",
    ),
    (
        "gurps: 18 is always a critical failure, even under a skill of 20",
        AgainstCheck(GURPS, 20),
        [6, 6, 6],
        ("6", "6", "6"),
        18,
        "critical_failure",
        "3d6",
    ),
    (
        "gurps: 17 is a critical failure at a skill of 15",
        AgainstCheck(GURPS, 15),
        [6, 6, 5],
        ("6", "6", "5"),
        17,
        "critical_failure",
        "3d6",
    ),
    (
        "gurps: 17 is a plain failure at a skill of 16",
        AgainstCheck(GURPS, 16),
        [6, 6, 5],
        ("6", "6", "5"),
        17,
        "failure",
        "3d6",
    ),
    (
        "gurps: 10 past the skill is a critical failure",
        AgainstCheck(GURPS, 5),
        [5, 5, 5],
        ("5", "5", "5"),
        15,
        "critical_failure",
        "3d6",
    ),
    (
        "gurps: 9 past the skill is a plain failure",
        AgainstCheck(GURPS, 5),
        [5, 5, 4],
        ("5", "5", "4"),
        14,
        "failure",
        "3d6",
    ),
    (
        "at least: at the target succeeds",
        AgainstCheck(AT_LEAST, 12),
        [12],
        ("12",),
        12,
        "success",
        "1d20",
    ),
    (
        "at least: pastTarget counts under the target",
        AgainstCheck(AT_LEAST, 15),
        [5],
        ("5",),
        5,
        "critical_failure",
        "1d20",
    ),
    (
        "at least: 4 under is a plain failure",
        AgainstCheck(AT_LEAST, 15),
        [11],
        ("11",),
        11,
        "failure",
        "1d20",
    ),
]


def _result(r: Rolled) -> str:
    if r.critical_success:
        return "critical_success"
    if r.critical_failure:
        return "critical_failure"
    return "success" if r.success else "failure"


@pytest.mark.parametrize(
    ("check", "faces", "rolls", "kept", "result", "dice_text"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_forced_faces(
    check: AgainstCheck,
    faces: list[int],
    rolls: tuple[str, ...],
    kept: int,
    result: str,
    dice_text: str,
) -> None:
    dice = ForcedFaces(faces)
    r = roll(check, dice)
    assert dice.left == 0
    assert r.rolls == rolls
    assert (r.used, r.modifier, r.total) == (kept, 0, kept)
    assert _result(r) == result
    assert r.dice == dice_text
    assert r.extras == (("against", check.config.against),)
    assert r.outcome.total == kept
    assert (r.outcome.critical_success, r.outcome.critical_failure) == (
        r.critical_success,
        r.critical_failure,
    )


BOTH = AgainstConfig(
    count=1,
    sides=20,
    critical_success=(CritRule(None, 5),),
    critical_failure=(CritRule(3, 8),),
)


@pytest.mark.parametrize(
    ("target", "face", "result"),
    [
        (10, 4, "critical_success"),  # made the target: the critical success stands
        (2, 4, "critical_failure"),  # missed it: the critical failure stands
        (10, 2, "critical_success"),  # only the success rule matches
        (10, 7, "critical_failure"),  # only the failure rule matches, under the target
    ],
    ids=["both match, made", "both match, missed", "success only", "failure only"],
)
def test_a_roll_both_rules_match_keeps_its_own_side(target: int, face: int, result: str) -> None:
    r = roll(AgainstCheck(BOTH, target), ForcedFaces([face]))
    assert _result(r) == result
    assert not (r.critical_success and r.critical_failure)


def test_naturals_are_the_faces_of_a_single_die() -> None:
    d20 = AgainstConfig(count=1, sides=20)
    assert roll(AgainstCheck(d20, 10), ForcedFaces([20])).outcome.natural == "top"
    assert roll(AgainstCheck(d20, 10), ForcedFaces([1])).outcome.natural == "bottom"
    assert roll(AgainstCheck(d20, 10), ForcedFaces([7])).outcome.natural is None
    assert roll(AgainstCheck(GURPS, 10), ForcedFaces([1, 1, 1])).outcome.natural is None
    assert roll(AgainstCheck(COC, 10), ForcedFaces([1])).outcome.natural is None  # tens declared


def test_the_check_refuses_tens_it_cannot_throw() -> None:
    with pytest.raises(UsageError):
        AgainstCheck(GURPS, 10, 1)
    with pytest.raises(UsageError):
        AgainstCheck(COC, 10, 3)
    with pytest.raises(UsageError):
        AgainstConfig(count=2, sides=100, tens_max=1)


# -- exact odds ------------------------------------------------------------------------


def _key(o: Any) -> tuple[int, bool, bool, bool]:
    return (o.total, o.success, o.critical_success, o.critical_failure)


def _odds(check: AgainstCheck) -> dict[tuple[int, bool, bool, bool], Fraction]:
    return {_key(o): p for o, p in distribution(check).probabilities().items()}


def _thrown(check: AgainstCheck) -> dict[tuple[int, bool, bool, bool], Fraction]:
    return enumerate_throws(lambda dice: _key(roll(check, dice).outcome))


def _predicate(rules: tuple[CritRule, ...], against: str) -> Callable[[int, int], bool]:
    """The page's rule, written out again: faces from..to, or that far past on the
    failing side, inside whenTarget."""

    def fires(roll_: int, target: int) -> bool:
        for r in rules:
            if r.target_at_least is not None and not target >= r.target_at_least:
                continue
            if r.target_below is not None and not target < r.target_below:
                continue
            if r.past_target is not None:
                failing = roll_ - target if against == "at-most" else target - roll_
                if failing >= r.past_target:
                    return True
                continue
            low = r.low if r.low is not None else -(10**9)
            high = r.high if r.high is not None else 10**9
            if low <= roll_ <= high:
                return True
        return False

    return fires


def _oracle(check: AgainstCheck) -> dict[tuple[int, bool, bool, bool], Fraction]:
    c = check.config
    return bf_roll_against(
        count=c.count,
        sides=c.sides,
        target=check.target,
        against=c.against,
        tens=check.tens,
        critical_success=_predicate(c.critical_success, c.against),
        critical_failure=_predicate(c.critical_failure, c.against),
    )


SMALL: list[tuple[str, AgainstCheck]] = [
    ("coc 50", AgainstCheck(COC, 50)),
    ("coc 30 (96+ fumbles)", AgainstCheck(COC, 30)),
    ("coc 40, one bonus die", AgainstCheck(COC, 40, 1)),
    ("coc 40, one penalty die", AgainstCheck(COC, 40, -1)),
    ("coc 65, two bonus dice", AgainstCheck(COC, 65, 2)),
    ("coc 25, two penalty dice", AgainstCheck(COC, 25, -2)),
    ("d100 at least, two bonus dice", AgainstCheck(D100_AT_LEAST_TENS, 55, 2)),
    ("d100 at least, two penalty dice", AgainstCheck(D100_AT_LEAST_TENS, 55, -2)),
    ("gurps 12", AgainstCheck(GURPS, 12)),
    ("gurps 16", AgainstCheck(GURPS, 16)),
    ("gurps 5", AgainstCheck(GURPS, 5)),
    ("d20 at least 15", AgainstCheck(AT_LEAST, 15)),
    ("both rules on a d20", AgainstCheck(BOTH, 4)),
]


@pytest.mark.parametrize("check", [c for _, c in SMALL], ids=[i for i, _ in SMALL])
def test_distribution_equals_every_throw_of_roll(check: AgainstCheck) -> None:
    assert _odds(check) == _thrown(check)


@pytest.mark.parametrize("check", [c for _, c in SMALL], ids=[i for i, _ in SMALL])
def test_distribution_equals_the_rules_written_out(check: AgainstCheck) -> None:
    assert _odds(check) == _oracle(check)


@settings(max_examples=examples(50), deadline=None)
@given(
    count=st.integers(1, 3),
    sides=st.integers(2, 8),
    against=st.sampled_from(["at-most", "at-least"]),
    target=st.integers(-3, 26),
    low=st.one_of(st.none(), st.integers(1, 24)),
    past=st.one_of(st.none(), st.integers(1, 6)),
    below=st.one_of(st.none(), st.integers(0, 25)),
)
def test_any_small_check_matches_brute_force(
    count: int,
    sides: int,
    against: Any,
    target: int,
    low: int | None,
    past: int | None,
    below: int | None,
) -> None:
    config = AgainstConfig(
        count=count,
        sides=sides,
        against=against,
        critical_success=(CritRule(None, low),) if low is not None else (),
        critical_failure=(CritRule(past_target=past, target_below=below),) if past else (),
    )
    check = AgainstCheck(config, target)
    assert _odds(check) == _oracle(check)


def test_known_odds() -> None:
    coc = distribution(AgainstCheck(COC, 50))
    assert coc.probability_where(lambda o: o.success) == Fraction(1, 2)
    assert coc.probability_where(lambda o: o.critical_failure) == Fraction(1, 100)
    low = distribution(AgainstCheck(COC, 30))
    assert low.probability_where(lambda o: o.critical_failure) == Fraction(5, 100)
    # One bonus die, skill 50: two tens digits, keep the lower. P(roll <= 50) is 1 minus
    # P(both candidate rolls are over 50) = 1 - sum over ones of (count over 50 / 10)^2.
    bonus = distribution(AgainstCheck(COC, 50, 1))
    over = (
        sum(
            Fraction(sum(1 for t in range(10) if ((10 * t + o) or 100) > 50), 10) ** 2
            for o in range(10)
        )
        / 10
    )
    assert bonus.probability_where(lambda o: o.success) == 1 - over
    gurps = distribution(AgainstCheck(GURPS, 10))
    assert gurps.probability_where(lambda o: o.success) == Fraction(108, 216)
    # 3 and 4 (4 ways); 17 and 18 (4 ways); at 10, 10 past is 20 and never reached.
    assert gurps.probability_where(lambda o: o.critical_success) == Fraction(4, 216)
    assert gurps.probability_where(lambda o: o.critical_failure) == Fraction(4, 216)


def test_tens_dice_keep_the_roll_between_one_and_a_hundred() -> None:
    for tens in (-2, -1, 1, 2):
        dist = roll_distribution(AgainstCheck(COC, 50, tens))
        assert set(dist) == set(range(1, 101))
        assert sum(dist.probabilities().values()) == 1


def test_bonus_dice_never_lower_the_chance_of_success() -> None:
    chances = [
        distribution(AgainstCheck(COC, 45, t)).probability_where(lambda o: o.success)
        for t in (-2, -1, 0, 1, 2)
    ]
    assert chances == sorted(chances)


# -- import ------------------------------------------------------------------------------

SHEET_RAW: dict[str, Any] = {
    "version": 1,
    "abilities": [
        {"id": "dx", "label": "Dexterity", "short": "DX", "min": 3, "max": 20, "default": 10},
        {"id": "iq", "label": "Intelligence", "short": "IQ", "min": 3, "max": 20, "default": 10},
    ],
    "skills": [
        {"id": "spot_hidden", "label": "Spot Hidden"},
        {"id": "library_use", "label": "Library Use"},
        {"id": "occult", "label": "Occult", "untrained": "harder"},
        {"id": "stealth", "label": "Stealth", "ability": "dx"},
    ],
    "bonusRange": {"min": -20, "max": 100},
    "live": {
        "tracks": [
            {
                "id": "shock",
                "label": "Shock",
                "min": 0,
                "max": 2,
                "levels": [
                    {"label": "Jolted", "penalty": -2},
                    {"label": "Reeling", "penalty": -4},
                ],
                "kinds": [{"id": "shock", "label": "Shock", "severity": 0}],
            }
        ],
    },
}

COC_BLOCK: dict[str, Any] = {
    "kind": "roll-against",
    "dice": {"count": 1, "sides": 100},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [{"id": "base", "label": "Base"}],
    "against": "at-most",
    "criticalSuccess": [{"from": 1, "to": 1}],
    "criticalFailure": [{"from": 100, "to": 100}, {"from": 96, "whenTarget": {"below": 50}}],
    "tens": {"max": 2},
    "difficultyLadder": [
        {"label": "Regular", "dc": 0},
        {"label": "Hard", "dc": 0, "divide": 2},
        {"label": "Extreme", "dc": 0, "divide": 5},
    ],
}

COC_BANDS: dict[str, Any] = {
    "by": "fraction",
    "tiers": [
        {"id": "critical", "label": "Critical", "on": "critical-success", "success": True},
        {"id": "extreme", "label": "Extreme success", "atLeast": 5, "success": True},
        {"id": "hard", "label": "Hard success", "atLeast": 2, "success": True},
        {"id": "regular", "label": "Regular success", "atLeast": 1, "success": True},
        {"id": "fail", "label": "Failure"},
        {"id": "fumble", "label": "Fumble", "on": "critical-failure"},
    ],
}

GURPS_BLOCK: dict[str, Any] = {
    "kind": "roll-against",
    "dice": {"count": 3, "sides": 6},
    "abilityModifier": {"op": "identity"},
    "proficiencyTiers": [{"id": "average", "label": "Average"}],
    "penaltyFrom": "shock",
    "criticalSuccess": [
        {"from": 3, "to": 4},
        {"from": 5, "to": 5, "whenTarget": {"atLeast": 15}},
        {"from": 6, "to": 6, "whenTarget": {"atLeast": 16}},
    ],
    "criticalFailure": [
        {"from": 18},
        {"from": 17, "to": 17, "whenTarget": {"below": 16}},
        {"pastTarget": 10},
    ],
    "difficultyLadder": [
        {"label": "Routine", "dc": 4},
        {"label": "Average", "dc": 0},
        {"label": "Hard", "dc": -5},
    ],
}


def _ruleset_raw(block: Mapping[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "id": "against-test",
        "version": 1,
        "name": "Against test",
        "coverage": {"checks": True, "summary": "A ruleset written for dicebound's tests."},
        "resolution": copy.deepcopy(dict(block)),
        "sheet": copy.deepcopy(SHEET_RAW),
        "gm": {"checkGuidance": "Name the skill, and Hard or Extreme when it is."},
        **top,
    }


def _compile(block: Mapping[str, Any], **top: Any) -> Ruleset:
    return compile_ruleset(_ruleset_raw(block, **top))


def _problems(block: Mapping[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(RulesetInvalid) as caught:
        _compile(block)
    return [(p.where, p.code) for p in caught.value.problems]


def _with(block: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(block))
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


REFUSALS: list[tuple[str, dict[str, Any], dict[str, Any], str, str]] = [
    # (id, base block, changes, path, code)
    (
        "tens on a single d100 only: refused on 3d6",
        GURPS_BLOCK,
        {"tens": {"max": 1}},
        "resolution.tens",
        "tens-needs-d100",
    ),
    (
        "tens on a single d100 only: refused on 1d20",
        COC_BLOCK,
        {"dice": {"count": 1, "sides": 20}, "criticalFailure": [{"from": 20}]},
        "resolution.tens",
        "tens-needs-d100",
    ),
    ("tens.max is 1 to 10", COC_BLOCK, {"tens": {"max": 0}}, "resolution.tens.max", "too-small"),
    ("tens needs max", COC_BLOCK, {"tens": {}}, "resolution.tens", "missing-key"),
    (
        "a face above what the dice can show",
        GURPS_BLOCK,
        {"criticalFailure": [{"from": 19}]},
        "resolution.criticalFailure[0].from",
        "face-not-on-die",
    ),
    (
        "a face below what the dice can show",
        GURPS_BLOCK,
        {"criticalSuccess": [{"from": 2, "to": 4}]},
        "resolution.criticalSuccess[0].from",
        "face-not-on-die",
    ),
    (
        "to outside the dice's range",
        COC_BLOCK,
        {"criticalSuccess": [{"from": 1, "to": 101}]},
        "resolution.criticalSuccess[0].to",
        "face-not-on-die",
    ),
    (
        "from above to",
        COC_BLOCK,
        {"criticalSuccess": [{"from": 5, "to": 1}]},
        "resolution.criticalSuccess[0].from",
        "from-above-to",
    ),
    (
        "pastTarget is for a failure",
        GURPS_BLOCK,
        {"criticalSuccess": [{"pastTarget": 5}]},
        "resolution.criticalSuccess[0].pastTarget",
        "past-target-success",
    ),
    (
        "faces and pastTarget in one rule",
        GURPS_BLOCK,
        {"criticalFailure": [{"from": 17, "pastTarget": 10}]},
        "resolution.criticalFailure[0].pastTarget",
        "faces-and-past-target",
    ),
    (
        "a whenTarget no target meets",
        COC_BLOCK,
        {"criticalFailure": [{"from": 96, "whenTarget": {"atLeast": 50, "below": 50}}]},
        "resolution.criticalFailure[0].whenTarget",
        "never-fires",
    ),
    (
        "a pastTarget no roll reaches at most",
        GURPS_BLOCK,
        {"criticalFailure": [{"pastTarget": 10, "whenTarget": {"atLeast": 9}}]},
        "resolution.criticalFailure[0].pastTarget",
        "never-fires",
    ),
    (
        "a pastTarget no roll reaches at least",
        GURPS_BLOCK,
        {"against": "at-least", "criticalFailure": [{"pastTarget": 5, "whenTarget": {"below": 8}}]},
        "resolution.criticalFailure[0].pastTarget",
        "never-fires",
    ),
    (
        "a critical success on every roll",
        COC_BLOCK,
        {"criticalSuccess": [{"from": 1}]},
        "resolution.criticalSuccess[0]",
        "always-fires",
    ),
    (
        "a critical failure on every roll",
        GURPS_BLOCK,
        {"criticalFailure": [{"from": 3, "to": 18}]},
        "resolution.criticalFailure[0]",
        "always-fires",
    ),
    (
        "a rule names faces or pastTarget",
        COC_BLOCK,
        {"criticalSuccess": [{"whenTarget": {"atLeast": 50}}]},
        "resolution.criticalSuccess[0]",
        "missing-key",
    ),
    (
        "whenTarget needs atLeast or below",
        COC_BLOCK,
        {"criticalSuccess": [{"from": 1, "to": 1, "whenTarget": {}}]},
        "resolution.criticalSuccess[0].whenTarget",
        "missing-key",
    ),
    (
        "up to six rules",
        COC_BLOCK,
        {"criticalSuccess": [{"from": 1, "to": 1}] * 7},
        "resolution.criticalSuccess",
        "too-many",
    ),
    (
        "pastTarget is at least 1",
        GURPS_BLOCK,
        {"criticalFailure": [{"pastTarget": 0}]},
        "resolution.criticalFailure[0].pastTarget",
        "too-small",
    ),
    (
        "spend cannot be declared",
        COC_BLOCK,
        {"spend": [{"pool": "luck", "amount": 1, "perCheck": 1, "dice": 1}]},
        "resolution.spend",
        "spend-not-allowed",
    ),
    (
        "against is at-most or at-least",
        COC_BLOCK,
        {"against": "under"},
        "resolution.against",
        "not-allowed",
    ),
    (
        "divide is 2 to 10",
        COC_BLOCK,
        {"difficultyLadder": [{"label": "Hard", "divide": 1}]},
        "resolution.difficultyLadder[0].divide",
        "too-small",
    ),
    (
        "a ladder step's dc is -100 to 100",
        COC_BLOCK,
        {"difficultyLadder": [{"label": "Far", "dc": 101}]},
        "resolution.difficultyLadder[0].dc",
        "too-large",
    ),
    (
        "a ladder step moves the target or divides the number",
        COC_BLOCK,
        {"difficultyLadder": [{"label": "Plain"}]},
        "resolution.difficultyLadder[0]",
        "missing-key",
    ),
    (
        "dice are count and sides",
        COC_BLOCK,
        {"dice": {"sides": 100}},
        "resolution.dice",
        "missing-key",
    ),
    (
        "roll-against has no advantage",
        COC_BLOCK,
        {"advantage": True},
        "resolution.advantage",
        "unknown-key",
    ),
]


@pytest.mark.parametrize(
    ("block", "changes", "path", "code"),
    [r[1:] for r in REFUSALS],
    ids=[r[0] for r in REFUSALS],
)
def test_import_refusals(
    block: dict[str, Any], changes: dict[str, Any], path: str, code: str
) -> None:
    assert _problems(_with(block, changes)) == [(path, code)]


def test_a_refusal_names_the_value_and_the_rule() -> None:
    with pytest.raises(RulesetInvalid) as caught:
        _compile(_with(GURPS_BLOCK, {"criticalFailure": [{"from": 19}]}))
    (problem,) = caught.value.problems
    assert str(problem) == (
        "resolution.criticalFailure[0].from: 19 is not a roll 3d6 can show: it shows 3 to 18."
    )


def test_the_pages_examples_compile() -> None:
    coc = _compile(COC_BLOCK)
    assert coc.resolution.config == COC
    assert [(s.label, s.dc, s.divide) for s in coc.resolution.ladder] == [
        ("Regular", 0, None),
        ("Hard", 0, 2),
        ("Extreme", 0, 5),
    ]
    assert _compile(GURPS_BLOCK).resolution.config == GURPS


def test_defaults() -> None:
    block = {
        "kind": "roll-against",
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [{"id": "base", "label": "Base"}],
        "difficultyLadder": [{"label": "Regular", "dc": 0}],
    }
    assert _compile(block).resolution.config == AgainstConfig()


def test_capability_version() -> None:
    raw = _ruleset_raw(COC_BLOCK)
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(raw, capability_api="1.138")
    assert [(p.where, p.code) for p in caught.value.problems] == [
        ("resolution.kind", "needs-capability")
    ]
    compile_ruleset(raw, capability_api="1.139")


# -- whole checks through the engine -----------------------------------------------------

COC_RULESET = _compile(COC_BLOCK)
GURPS_RULESET = _compile(GURPS_BLOCK)


def _character(ruleset: Ruleset, name: str, build: dict[str, Any], live: Any = None) -> Character:
    raw: dict[str, Any] = {"name": name, "sheet": {"v": 1, "build": build}}
    if live is not None:
        raw["live"] = live
    return load_character(ruleset, raw)


ARMITAGE = _character(
    COC_RULESET,
    "Henry Armitage",
    {"bonuses": {"spot_hidden": 60, "library_use": 85, "occult": 45}},
)
ROGUE = _character(
    GURPS_RULESET,
    "Rogue",
    {"abilities": {"dx": 13}, "bonuses": {"stealth": 1}},
)
SHAKEN = _character(
    GURPS_RULESET,
    "Shaken",
    {"abilities": {"dx": 13}, "bonuses": {"stealth": 1}},
    {"wounds": {"shock": {"marks": ["shock"]}}},
)


def _one(ruleset: Ruleset, who: Character, tag: str, faces: list[int]) -> CheckResult:
    report = resolve_text(ruleset, [who], f"[skill_check: {tag}]", faces=faces)
    (item,) = report.items
    assert isinstance(item, CheckResult), item
    return item


ENGINE_ROWS: list[tuple[str, Ruleset, Character, str, list[int], dict[str, str]]] = [
    (
        "coc: a percentage skill is its bonus alone, and the record's dc is the target",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden"',
        [60],
        {"dc": "60", "total": "60", "result": "success", "against": "at-most", "modifier": "0"},
    ),
    (
        "coc: Hard divides the skill by 2",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" difficulty="Hard"',
        [31],
        {"dc": "30", "result": "failure"},
    ),
    (
        "coc: Extreme divides the skill by 5, rounded down",
        COC_RULESET,
        ARMITAGE,
        'skill="Library Use" difficulty="extreme"',
        [17],
        {"dc": "17", "result": "success"},
    ),
    (
        "coc: dc= moves the target",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" dc="-20"',
        [41],
        {"dc": "40", "result": "failure"},
    ),
    (
        "coc: dc= is held to -100..100",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" dc="-500"',
        [1],
        {"dc": "-40", "result": "critical_success"},
    ),
    (
        "coc: dc= and difficulty= both apply",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" difficulty="Hard" dc="5"',
        [35],
        {"dc": "35", "result": "success"},
    ),
    (
        "coc: a bonus die, the lower roll kept",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" bonus="+1"',
        [83, 2],
        {"rolls": "83|20", "used": "23", "total": "23", "bonus": "+1", "dice": "1d100+1d10"},
    ),
    (
        "coc: bonus= is held to tens.max",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" bonus="-5"',
        [21, 7, 9],
        {"rolls": "21|70|90", "total": "91", "bonus": "-2", "result": "failure"},
    ),
    (
        "coc: a fumble on 96 below 50",
        COC_RULESET,
        ARMITAGE,
        'skill="Spot Hidden" difficulty="Hard"',
        [97],
        {"dc": "30", "result": "critical_failure"},
    ),
    (
        "untrained harder reads the next harder step",
        COC_RULESET,
        _character(COC_RULESET, "Green", {"bonuses": {"occult": 40}}),
        'skill="Occult"',
        [21],
        {"dc": "20", "reason": "untrained", "result": "failure"},
    ),
    (
        "gurps: the skill is its attribute plus its bonus",
        GURPS_RULESET,
        ROGUE,
        'skill="Stealth"',
        [5, 5, 4],
        {"dc": "14", "total": "14", "result": "success", "dice": "3d6"},
    ),
    (
        "gurps: a ladder step's dc moves the target",
        GURPS_RULESET,
        ROGUE,
        'skill="Stealth" difficulty="Hard"',
        [6, 6, 5],
        {"dc": "9", "result": "critical_failure"},
    ),
    (
        "gurps: a wound penalty lowers the target",
        GURPS_RULESET,
        SHAKEN,
        'skill="Stealth"',
        [5, 5, 4],
        {"dc": "12", "penalty": "-2", "result": "failure"},
    ),
    (
        "gurps: a raw ability check is the attribute",
        GURPS_RULESET,
        ROGUE,
        'skill="DX"',
        [1, 2, 2],
        {"dc": "13", "result": "success"},
    ),
    (
        "bonus= is ignored without tens",
        GURPS_RULESET,
        ROGUE,
        'skill="Stealth" bonus="+2"',
        [4, 4, 4],
        {"rolls": "4|4|4", "dice": "3d6"},
    ),
]


@pytest.mark.parametrize(
    ("ruleset", "who", "tag", "faces", "expect"),
    [r[1:] for r in ENGINE_ROWS],
    ids=[r[0] for r in ENGINE_ROWS],
)
def test_whole_checks(
    ruleset: Ruleset, who: Character, tag: str, faces: list[int], expect: dict[str, str]
) -> None:
    record = _one(ruleset, who, tag, faces).record.as_dict()
    for key, value in expect.items():
        assert record.get(key) == value, (key, record)
    if "bonus" not in expect:
        assert "bonus" not in record


def test_odds_of_a_whole_check() -> None:
    odds = check_odds(COC_RULESET, ARMITAGE, 'skill="Spot Hidden"')
    assert odds.success == Fraction(60, 100)
    by = {o.label: o.probability for o in odds.outcomes}
    assert by["Critical success"] == Fraction(1, 100)
    assert by["Critical failure"] == Fraction(1, 100)
    assert "1d100 at most 60" in odds.title


def _coc_band(target: int, roll_: int, tens: int = 0) -> str:
    bands, problems = compile_bands(
        COC_BANDS,
        ("resolution", "outcomes"),
        kind="roll-against",
        single_die=False,
        resolution_naturals_none=True,
        against="at-most",
    )
    assert problems == [] and bands is not None
    check = AgainstCheck(COC, target)
    out = distribution(check).outcomes()
    (o,) = [x for x in out if x.total == roll_]
    value = band_value("fraction", o.total, target, kind="roll-against", against="at-most")
    band = read_band(
        bands, value=value, critical_success=o.critical_success, critical_failure=o.critical_failure
    )
    return band.id


@pytest.mark.parametrize(
    ("target", "roll_", "band"),
    [
        (60, 1, "critical"),
        (60, 12, "extreme"),  # 12 is a fifth of 60
        (60, 13, "hard"),
        (60, 30, "hard"),  # half of 60
        (60, 31, "regular"),
        (60, 60, "regular"),
        (60, 61, "fail"),
        (60, 100, "fumble"),
        (45, 96, "fumble"),  # 96+ below 50
        (45, 9, "extreme"),
    ],
    ids=lambda v: str(v),
)
def test_call_of_cthulhu_bands_read_by_fraction(target: int, roll_: int, band: str) -> None:
    assert _coc_band(target, roll_) == band


def _coc_banded() -> Ruleset:
    return _compile({**COC_BLOCK, "outcomes": COC_BANDS})


def test_call_of_cthulhu_bands_through_the_engine() -> None:
    ruleset = _coc_banded()
    armitage = _character(ruleset, "Henry Armitage", {"bonuses": {"spot_hidden": 60}})
    cases = [([12], "Extreme success"), ([30], "Hard success"), ([55], "Regular success")]
    cases += [([100], "Fumble"), ([1], "Critical"), ([61], "Failure")]
    for faces, label in cases:
        assert _one(ruleset, armitage, 'skill="Spot Hidden"', faces).outcome == label
    odds = check_odds(ruleset, armitage, 'skill="Spot Hidden"')
    by = {o.label: o.probability for o in odds.outcomes}
    assert by == {
        "Critical": Fraction(1, 100),
        "Extreme success": Fraction(11, 100),
        "Hard success": Fraction(18, 100),
        "Regular success": Fraction(30, 100),
        "Failure": Fraction(39, 100),
        "Fumble": Fraction(1, 100),
    }
