"""dice-sum: every rule of the page's section with forced faces, exact odds against brute
force, and every import refusal with its path."""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.dice import ForcedFaces
from dicebound.errors import DiceError, UsageError
from dicebound.kinds.base import CompileContext, KindCompiler, Rolled
from dicebound.kinds.dice_sum import (
    KIND,
    Natural,
    OpenEnded,
    SumCheck,
    SumConfig,
    SumOutcome,
    distribution,
    roll,
)
from dicebound.kinds.registry import KNOWN_KINDS, kind_compiler
from dicebound.problems import Problem
from dicebound.ruleset.model import Sheet
from oracles import bf_dice_sum, enumerate_throws
from shared_files import shared_path

D20 = SumConfig()
D20_ADV = SumConfig(advantage=True)
TWO_D6 = SumConfig(count=2, sides=6, advantage=True)
FATE = SumConfig(count=4, sides=3, faces=(-1, 0, 1))
ROLEMASTER = SumConfig(count=1, sides=100, open_ended=OpenEnded(high=96, low=5))
UNMODIFIED = SumConfig(count=1, sides=100, unmodified=frozenset({66, 100}))
D20_NATURALS = SumConfig(naturals_check="both", naturals_save="none")


# -- forced faces: one row per rule ----------------------------------------------------

ROWS: list[tuple[str, SumCheck, list[int], tuple[str, ...], int, str, tuple[tuple[str, str], ...]]]
ROWS = [
    # (id, check, faces, rolls, used, result, extras)
    ("1d20 adds the check number", SumCheck(D20, 5, 15), [10], ("10",), 10, "success", ()),
    ("total below dc fails", SumCheck(D20, 5, 15), [9], ("9",), 9, "failure", ()),
    ("2d6 adds both dice", SumCheck(TWO_D6, 1, 8), [3, 4], ("3", "4"), 7, "success", ()),
    (
        "fate 4dF: faces -, blank, + read -1, 0, 1 and add up",
        SumCheck(FATE, 3, 5),
        [1, 2, 3, 3],
        ("-1", "0", "1", "1"),
        1,
        "failure",
        (),
    ),
    (
        "fate 4dF: four plusses",
        SumCheck(FATE, 3, 5),
        [3, 3, 3, 3],
        ("1", "1", "1", "1"),
        4,
        "success",
        (),
    ),
    (
        "rolemaster up: 96 then 97 then 40 adds the chain",
        SumCheck(ROLEMASTER, 0, 100),
        [96, 97, 40],
        ("96", "97", "40"),
        233,
        "success",
        (),
    ),
    (
        "rolemaster down: 3 then 98 then 50, the chain is taken away from the 3",
        SumCheck(ROLEMASTER, 0, 0),
        [3, 98, 50],
        ("3", "98", "50"),
        3 - (98 + 50),
        "failure",
        (),
    ),
    (
        "rolemaster down: the second die does not roll down again",
        SumCheck(ROLEMASTER, 0, 0),
        [5, 4],
        ("5", "4"),
        1,
        "success",
        (),
    ),
    (
        "rolemaster up: a low die after a high one just adds",
        SumCheck(ROLEMASTER, 0, 0),
        [99, 2],
        ("99", "2"),
        101,
        "success",
        (),
    ),
    (
        "rolemaster: a middle face stops at once",
        SumCheck(ROLEMASTER, 0, 50),
        [50],
        ("50",),
        50,
        "success",
        (),
    ),
    (
        "one roll throws at most 20 dice",
        SumCheck(ROLEMASTER, 0, 0),
        [100] * 20,
        ("100",) * 20,
        2000,
        "success",
        (),
    ),
    (
        "an unmodified 66 is marked on the record",
        SumCheck(UNMODIFIED, 0, 50),
        [66],
        ("66",),
        66,
        "success",
        (("unmodified", "66"),),
    ),
    (
        "a face the ruleset does not list is not marked",
        SumCheck(UNMODIFIED, 0, 50),
        [65],
        ("65",),
        65,
        "success",
        (),
    ),
    (
        "advantage throws twice and keeps the better",
        SumCheck(D20_ADV, 9, 15, "advantage"),
        [3, 18],
        ("3", "18"),
        18,
        "success",
        (),
    ),
    (
        "disadvantage keeps the worse",
        SumCheck(D20_ADV, 9, 15, "disadvantage"),
        [3, 18],
        ("3", "18"),
        3,
        "failure",
        (),
    ),
    (
        "advantage on 2d6: the first set, then the second",
        SumCheck(TWO_D6, 0, 10, "advantage"),
        [1, 2, 6, 5],
        ("1", "2", "6", "5"),
        11,
        "success",
        (),
    ),
    (
        "naturals both: the top face is a critical success whatever the total",
        SumCheck(D20, 0, 40, naturals="both"),
        [20],
        ("20",),
        20,
        "critical_success",
        (),
    ),
    (
        "naturals both: the bottom face is a critical failure whatever the total",
        SumCheck(D20, 30, 5, naturals="both"),
        [1],
        ("1",),
        1,
        "critical_failure",
        (),
    ),
    (
        "naturals max-only: the bottom face is plain arithmetic",
        SumCheck(D20, 30, 5, naturals="max-only"),
        [1],
        ("1",),
        1,
        "success",
        (),
    ),
    (
        "naturals max-only: the top face still succeeds",
        SumCheck(D20, 0, 40, naturals="max-only"),
        [20],
        ("20",),
        20,
        "critical_success",
        (),
    ),
    (
        "naturals min-only: the top face is plain arithmetic",
        SumCheck(D20, 0, 25, naturals="min-only"),
        [20],
        ("20",),
        20,
        "failure",
        (),
    ),
    (
        "naturals min-only: the bottom face fails",
        SumCheck(D20, 30, 5, naturals="min-only"),
        [1],
        ("1",),
        1,
        "critical_failure",
        (),
    ),
    (
        "naturals none: pure arithmetic",
        SumCheck(D20, 0, 40, naturals="none"),
        [20],
        ("20",),
        20,
        "failure",
        (),
    ),
    (
        "naturals read the kept die under advantage",
        SumCheck(SumConfig(advantage=True), 0, 40, "advantage", "both"),
        [7, 20],
        ("7", "20"),
        20,
        "critical_success",
        (),
    ),
    (
        "naturals read the first die of an open-ended roll",
        SumCheck(ROLEMASTER, 0, 500, naturals="both"),
        [100, 3],
        ("100", "3"),
        103,
        "critical_success",
        (),
    ),
]


def _result(r: Rolled) -> str:
    if r.critical_success:
        return "critical_success"
    if r.critical_failure:
        return "critical_failure"
    return "success" if r.success else "failure"


@pytest.mark.parametrize(
    ("check", "faces", "rolls", "used", "result", "extras"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_forced_faces(
    check: SumCheck,
    faces: list[int],
    rolls: tuple[str, ...],
    used: int,
    result: str,
    extras: tuple[tuple[str, str], ...],
) -> None:
    dice = ForcedFaces(faces)
    r = roll(check, dice)
    assert dice.left == 0, "every forced face is consumed, and no more"
    assert r.rolls == rolls
    assert r.used == used
    assert r.modifier == check.modifier
    assert r.total == used + check.modifier
    assert _result(r) == result
    assert r.extras == extras
    assert r.mode == check.mode
    assert r.resolution == "sum"
    assert r.dice == f"{check.config.count}d{check.config.sides}"
    # The same faces land in the distribution, with a chance above 0.
    out = SumOutcome(
        r.total,
        _natural(check, faces),
        int(extras[0][1]) if extras else None,
        r.success,
        r.critical_success,
        r.critical_failure,
    )
    assert distribution(check).probability(out) > 0


def _natural(check: SumCheck, faces: list[int]) -> Natural:
    cfg = check.config
    if cfg.count != 1:
        return None
    first = faces[0]
    if check.mode != "normal":
        other = faces[1]
        keep_first = first >= other if check.mode == "advantage" else first <= other
        first = first if keep_first else other
    return "top" if first == cfg.sides else "bottom" if first == 1 else None


@pytest.mark.parametrize(
    ("group", "result"),
    [("skill", "critical_success"), ("ability", "critical_success"), ("save", "failure")],
    ids=[
        "a skill check reads naturals.check",
        "an ability check too",
        "a save reads naturals.save",
    ],
)
def test_naturals_for_checks_and_saves(group: Any, result: str) -> None:
    check = SumCheck(D20_NATURALS, 0, 40, naturals=D20_NATURALS.natural_rule(group))
    assert _result(roll(check, ForcedFaces([20]))) == result


def test_forced_faces_that_run_out_or_miss_the_die_are_errors() -> None:
    with pytest.raises(DiceError):
        roll(SumCheck(ROLEMASTER, 0, 0), ForcedFaces([97]))
    with pytest.raises(DiceError):
        roll(SumCheck(D20, 0, 10), ForcedFaces([21]))


def test_advantage_needs_a_ruleset_that_honours_it() -> None:
    with pytest.raises(UsageError, match="advantage"):
        SumCheck(D20, 0, 10, "advantage")


# -- exact odds ------------------------------------------------------------------------


def _odds(check: SumCheck) -> dict[tuple[int, bool, bool, bool, int | None], Fraction]:
    out: dict[tuple[int, bool, bool, bool, int | None], Fraction] = {}
    for o, p in distribution(check).probabilities().items():
        key = (o.total, o.success, o.critical_success, o.critical_failure, o.unmodified)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def _thrown(check: SumCheck) -> dict[tuple[int, bool, bool, bool, int | None], Fraction]:
    def run(dice: Any) -> tuple[int, bool, bool, bool, int | None]:
        r = roll(check, dice)
        mark = int(r.extras[0][1]) if r.extras else None
        return (r.total, r.success, r.critical_success, r.critical_failure, mark)

    return enumerate_throws(run)


SMALL: list[tuple[str, SumCheck, dict[str, Any]]] = [
    ("1d20+5 vs 15", SumCheck(D20, 5, 15), {"modifier": 5, "dc": 15}),
    (
        "1d20+5 advantage vs 15",
        SumCheck(D20_ADV, 5, 15, "advantage"),
        {"modifier": 5, "dc": 15, "mode": "advantage"},
    ),
    (
        "1d20-1 disadvantage vs 12, naturals both",
        SumCheck(D20_ADV, -1, 12, "disadvantage", "both"),
        {"modifier": -1, "dc": 12, "mode": "disadvantage", "naturals": "both"},
    ),
    (
        "2d6+1 advantage vs 8",
        SumCheck(TWO_D6, 1, 8, "advantage"),
        {"count": 2, "sides": 6, "modifier": 1, "dc": 8, "mode": "advantage"},
    ),
    (
        "fate 4dF+3 vs 5",
        SumCheck(FATE, 3, 5),
        {"count": 4, "sides": 3, "faces": (-1, 0, 1), "modifier": 3, "dc": 5},
    ),
    (
        "1d6 faces 1,1,2,2,3,3 naturals both",
        SumCheck(SumConfig(1, 6, faces=(1, 1, 2, 2, 3, 3)), 0, 3, naturals="both"),
        {"sides": 6, "faces": (1, 1, 2, 2, 3, 3), "dc": 3, "naturals": "both"},
    ),
    (
        "d10 open-ended high 10 low 1, all 20 dice",
        SumCheck(SumConfig(1, 10, open_ended=OpenEnded(10, 1)), 0, 6, naturals="min-only"),
        {"sides": 10, "high": 10, "low": 1, "dc": 6, "naturals": "min-only"},
    ),
    (
        "d100 open-ended 96/5 with a 3-dice cap, unmodified 66",
        SumCheck(
            SumConfig(1, 100, open_ended=OpenEnded(96, 5), unmodified=frozenset({66}), max_chain=3),
            10,
            90,
        ),
        {
            "sides": 100,
            "high": 96,
            "low": 5,
            "cap": 3,
            "unmodified": (66,),
            "modifier": 10,
            "dc": 90,
        },
    ),
    (
        "d6 open-ended high only, advantage",
        SumCheck(SumConfig(1, 6, open_ended=OpenEnded(high=6), advantage=True), 0, 7, "advantage"),
        {"sides": 6, "high": 6, "dc": 7, "mode": "advantage"},
    ),
    (
        "dF open-ended low only on the minus face",
        SumCheck(SumConfig(1, 3, faces=(-1, 0, 1), open_ended=OpenEnded(low=-1)), 0, 0),
        {"sides": 3, "faces": (-1, 0, 1), "low": -1, "dc": 0},
    ),
]


@pytest.mark.parametrize(("check", "rules"), [r[1:] for r in SMALL], ids=[r[0] for r in SMALL])
def test_distribution_equals_every_throw_of_roll(check: SumCheck, rules: dict[str, Any]) -> None:
    assert _odds(check) == _thrown(check)


@pytest.mark.parametrize(("check", "rules"), [r[1:] for r in SMALL], ids=[r[0] for r in SMALL])
def test_distribution_equals_the_rules_written_out(check: SumCheck, rules: dict[str, Any]) -> None:
    assert _odds(check) == bf_dice_sum(**rules)


def test_known_odds() -> None:
    success = distribution(SumCheck(D20_ADV, 5, 15, "advantage")).probability_where(
        lambda o: o.success
    )
    assert success == Fraction(319, 400)
    fate = distribution(SumCheck(FATE, 3, 5))
    assert fate.probability_where(lambda o: o.success) == Fraction(15, 81)
    rolemaster = distribution(SumCheck(ROLEMASTER, 0, 0))
    assert sum(rolemaster.probabilities().values()) == 1
    # Past 100 only through a first die of 96-100 that rolls on: a first f needs a next die
    # above 100 - f, which 96, 97, 98, 99 and 100 of the 100 faces are.
    assert rolemaster.probability_where(lambda o: o.total > 100) == Fraction(
        96 + 97 + 98 + 99 + 100, 100 * 100
    )


def test_rolemaster_odds_cover_the_full_chain() -> None:
    # The longest chain up: twenty dice of 100, a chance of 1/100**20.
    top = distribution(SumCheck(ROLEMASTER, 0, 0)).probability_where(lambda o: o.total == 2000)
    assert top == Fraction(1, 100**20)
    bottom = distribution(SumCheck(ROLEMASTER, 0, 0)).probability_where(lambda o: o.total < -1800)
    assert bottom > 0


@settings(max_examples=examples(30), deadline=None)
@given(
    sides=st.integers(2, 6),
    count=st.integers(1, 2),
    modifier=st.integers(-3, 3),
    dc=st.integers(-2, 12),
    mode=st.sampled_from(["normal", "advantage", "disadvantage"]),
    naturals=st.sampled_from(["none", "both", "max-only", "min-only"]),
    data=st.data(),
)
def test_any_small_check_matches_brute_force(
    sides: int,
    count: int,
    modifier: int,
    dc: int,
    mode: Any,
    naturals: Any,
    data: st.DataObject,
) -> None:
    faces = tuple(data.draw(st.lists(st.integers(-2, 4), min_size=sides, max_size=sides)))
    config = SumConfig(count, sides, faces=faces, advantage=True)
    check = SumCheck(config, modifier, dc, mode, naturals if count == 1 else "none")
    odds = _odds(check)
    assert sum(odds.values()) == 1
    assert odds == _thrown(check)


def test_a_harder_dc_never_raises_the_chance_of_success() -> None:
    chances = [
        distribution(SumCheck(ROLEMASTER, 0, dc)).probability_where(lambda o: o.success)
        for dc in range(-50, 300, 25)
    ]
    assert chances == sorted(chances, reverse=True)


# -- import ------------------------------------------------------------------------------

SHEET = Sheet(version=1)
CTX = CompileContext(SHEET)
LADDER = [{"label": "Hard", "dc": 10}]


def _structure(block: Mapping[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    for key, value in block.items():
        node = KIND.keys.get(key)
        if node is not None:
            out.extend(node.check(value, ("resolution", key)))
    return out


def _import(block: Mapping[str, Any]) -> tuple[SumConfig | None, list[Problem]]:
    """Structure first, then the kind's cross-checks, as the ruleset compiler does."""
    problems = _structure(block)
    if problems:
        return None, problems
    return KIND.compile(block, CTX)


REFUSALS: list[tuple[str, dict[str, Any], str, str]] = [
    # (id, block, path, code)
    (
        "naturals need a single die: refused for 2d6",
        {"dice": {"count": 2, "sides": 6}, "naturals": {"check": "both"}},
        "resolution.naturals.check",
        "single-die-only",
    ),
    (
        "naturals on saves need a single die too",
        {"dice": {"count": 3, "sides": 6}, "naturals": {"check": "none", "save": "min-only"}},
        "resolution.naturals.save",
        "single-die-only",
    ),
    (
        "faces: one value per face",
        {"dice": {"count": 4, "sides": 3, "faces": [-1, 0, 1, 2]}},
        "resolution.dice.faces",
        "faces-count",
    ),
    (
        "openEnded is a single die that rolls on",
        {"dice": {"count": 2, "sides": 10}, "openEnded": {"high": 10}},
        "resolution.openEnded",
        "single-die-only",
    ),
    (
        "openEnded high must be a face of the die",
        {"dice": {"count": 1, "sides": 20}, "openEnded": {"high": 96}},
        "resolution.openEnded.high",
        "face-not-on-die",
    ),
    (
        "openEnded low must be a face of the die",
        {"dice": {"count": 1, "sides": 100}, "openEnded": {"high": 96, "low": 0}},
        "resolution.openEnded.low",
        "face-not-on-die",
    ),
    (
        "openEnded bounds read face values: Fate has no face 2",
        {"dice": {"count": 1, "sides": 3, "faces": [-1, 0, 1]}, "openEnded": {"high": 2}},
        "resolution.openEnded.high",
        "face-not-on-die",
    ),
    (
        "openEnded low must be below high",
        {"dice": {"count": 1, "sides": 100}, "openEnded": {"high": 50, "low": 50}},
        "resolution.openEnded.low",
        "low-not-below-high",
    ),
    (
        "openEnded high on the lowest face would always roll on",
        {"dice": {"count": 1, "sides": 6}, "openEnded": {"high": 1}},
        "resolution.openEnded.high",
        "always-fires",
    ),
    (
        "openEnded low on the highest face would always roll down",
        {"dice": {"count": 1, "sides": 6}, "openEnded": {"low": 6}},
        "resolution.openEnded.low",
        "always-fires",
    ),
    (
        "openEnded needs high or low",
        {"dice": {"count": 1, "sides": 100}, "openEnded": {}},
        "resolution.openEnded",
        "missing-key",
    ),
    (
        "unmodified faces of a single die",
        {"dice": {"count": 2, "sides": 6}, "unmodified": [6]},
        "resolution.unmodified",
        "single-die-only",
    ),
    (
        "unmodified faces must be on the die",
        {"dice": {"count": 1, "sides": 100}, "unmodified": [66, 101]},
        "resolution.unmodified[1]",
        "face-not-on-die",
    ),
    (
        "openEnded belongs beside dice, not inside it",
        {"dice": {"count": 1, "sides": 100, "openEnded": {"high": 96}}},
        "resolution.dice.openEnded",
        "misplaced-key",
    ),
    (
        "dice count is 1 to 10",
        {"dice": {"count": 11, "sides": 6}},
        "resolution.dice.count",
        "too-large",
    ),
    (
        "dice sides are 2 to 1000",
        {"dice": {"count": 1, "sides": 1}},
        "resolution.dice.sides",
        "too-small",
    ),
    (
        "dice needs count and sides",
        {"dice": {"sides": 6}},
        "resolution.dice",
        "missing-key",
    ),
    (
        "naturals take none, both, max-only or min-only",
        {"naturals": {"check": "always"}},
        "resolution.naturals.check",
        "not-allowed",
    ),
    (
        "advantage is true or false",
        {"advantage": "yes"},
        "resolution.advantage",
        "wrong-type",
    ),
    (
        "a ladder step's dc is -100 to 1000",
        {"difficultyLadder": [{"label": "Absurd", "dc": 1001}]},
        "resolution.difficultyLadder[0].dc",
        "too-large",
    ),
    (
        "a ladder has 1 to 12 steps",
        {"difficultyLadder": []},
        "resolution.difficultyLadder",
        "too-few",
    ),
    (
        "a ladder step needs a label",
        {"difficultyLadder": [{"dc": 10}]},
        "resolution.difficultyLadder[0]",
        "missing-key",
    ),
    (
        "a face is worth -1000 to 1000",
        {"dice": {"count": 1, "sides": 2, "faces": [0, 1001]}},
        "resolution.dice.faces[1]",
        "too-large",
    ),
]


@pytest.mark.parametrize(
    ("block", "path", "code"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_import_refusals(block: dict[str, Any], path: str, code: str) -> None:
    block = {"difficultyLadder": LADDER, **block}
    config, problems = _import(block)
    assert config is None
    assert [(p.where, p.code) for p in problems] == [(path, code)], problems
    assert all(p.message.endswith(".") for p in problems)


def test_a_refusal_names_the_value_and_the_rule() -> None:
    _, problems = _import(
        {
            "dice": {"count": 1, "sides": 100},
            "openEnded": {"high": 50, "low": 60},
            "difficultyLadder": LADDER,
        }
    )
    assert problems[0].message == (
        "60 is not below high 50; a face at or below low rolls down and one at or above high "
        "rolls up, so low must be the lower."
    )


ACCEPTED: list[tuple[str, dict[str, Any], SumConfig]] = [
    ("the default is 1d20", {}, SumConfig()),
    (
        "the page's 2d6 example",
        {"dice": {"count": 2, "sides": 6}, "advantage": False},
        SumConfig(count=2, sides=6),
    ),
    (
        "2d6 may say naturals none",
        {"dice": {"count": 2, "sides": 6}, "naturals": {"check": "none", "save": "none"}},
        SumConfig(count=2, sides=6),
    ),
    (
        "Fate's four Fudge dice",
        {"dice": {"count": 4, "sides": 3, "faces": [-1, 0, 1]}},
        FATE,
    ),
    (
        "Rolemaster's open-ended percentile roll",
        {"dice": {"count": 1, "sides": 100}, "openEnded": {"high": 96, "low": 5}},
        ROLEMASTER,
    ),
    (
        "an unmodified 66 and 100",
        {"dice": {"count": 1, "sides": 100}, "unmodified": [66, 100]},
        UNMODIFIED,
    ),
    (
        "5e: advantage and naturals",
        {"advantage": True, "naturals": {"check": "both", "save": "max-only"}},
        SumConfig(advantage=True, naturals_check="both", naturals_save="max-only"),
    ),
]


@pytest.mark.parametrize(
    ("block", "expected"), [r[1:] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED]
)
def test_import_accepts(block: dict[str, Any], expected: SumConfig) -> None:
    config, problems = _import({"difficultyLadder": LADDER, **block})
    assert problems == []
    assert config == expected


@pytest.mark.parametrize("name", ["ember-roads.json", "ruleset-5e-2014.example.json"])
def test_marinara_dice_sum_rulesets_compile(name: str) -> None:
    block = json.loads(shared_path("marinara", name).read_text())["resolution"]
    config, problems = _import(block)
    assert problems == []
    assert config is not None
    steps = [KIND.ladder_step(s) for s in block["difficultyLadder"]]
    assert all(step.dc is not None for step in steps)


def test_ladder_step_reads_the_dc() -> None:
    step = KIND.ladder_step({"label": "Hard", "dc": 20})
    assert (step.label, step.dc, step.successes) == ("Hard", 20, None)


@pytest.mark.parametrize(
    ("block", "features"),
    [
        ({"dice": {"count": 1, "sides": 20}}, []),
        (
            {"dice": {"count": 4, "sides": 3, "faces": [-1, 0, 1]}},
            [("1.136", "resolution.dice.faces")],
        ),
        (
            {"dice": {"count": 1, "sides": 100}, "openEnded": {"high": 96}, "unmodified": [66]},
            [("1.136", "resolution.openEnded"), ("1.136", "resolution.unmodified")],
        ),
    ],
    ids=["plain dice need nothing", "dice.faces is 1.136", "openEnded and unmodified are 1.136"],
)
def test_capability_features(block: dict[str, Any], features: list[tuple[str, str]]) -> None:
    from dicebound.problems import render_path

    assert [(v, render_path(p)) for v, p, _ in KIND.features(block)] == features


def test_registry_knows_all_six_kinds() -> None:
    assert set(KNOWN_KINDS) == {
        "dice-sum",
        "dice-pool",
        "dice-highest",
        "roll-against",
        "symbol-pool",
        "step-pool",
    }
    built: KindCompiler | None = kind_compiler("dice-sum")
    assert built is KIND
    assert kind_compiler("dice-pool") is not None
    assert "difficultyLadder" in KIND.keys
    assert not {
        "abilityModifier",
        "proficiency",
        "proficiencyTiers",
        "penaltyFrom",
        "adjust",
        "kind",
    } & set(KIND.keys)
    assert "spend" not in KIND.keys, "a dice-sum ruleset cannot declare spend"
