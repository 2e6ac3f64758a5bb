"""dice-pool, the play half: every rule of the page's pool section thrown with forced
faces, the tag's attributes on a pool check, and the exact odds against brute force.

Thornwatch is a Gravewatch-like ruleset written for these tests (d10, target 7 moving
5..9, tens explode, ones cancel and botch, five successes are exceptional, a point of
Resolve buys a success). Bram the Quiet: Sinew 3, Nerve 4, Warmth 2, Ward at rating 3
with a bonus of 1 (seven dice), Soothe at rating 1 (three dice), Resolve 2 of 3.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.dice import ForcedFaces
from dicebound.engine import CheckFailure
from dicebound.errors import LimitExceeded, RulesetInvalid, UsageError
from dicebound.kinds import dice_pool
from dicebound.kinds.base import KindPlayer
from dicebound.kinds.dice_pool import (
    PLAYER,
    Count,
    PoolCheck,
    PoolOutcome,
    distribution,
    face_effect,
    roll,
)
from dicebound.kinds.registry import kind_player
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.spend import Reroll
from dicebound.tagpass import resolve_text
from oracles import bf_pool_check, enumerate_throws
from thornwatch import LASERS, attrs, result, throw, warden, watch, watch_doc

# -- Thornwatch: the ruleset and the character every engine row uses ----------------------

WATCH = watch()
BRAM = warden(WATCH)


# -- the throw: every rule with forced faces ----------------------------------------------


@dataclass(frozen=True)
class ThrowRow:
    rule: str
    check: PoolCheck
    faces: tuple[int, ...]
    total: int
    result: str  # success, failure, critical_success, critical_failure
    rolls: str | None = None  # the record's rolls when it is not the faces in order
    extras: dict[str, str] = field(default_factory=dict)


def _pool(dice: int = 3, needed: int = 1, **rules: Any) -> PoolCheck:
    return PoolCheck(sides=10, dice=dice, target=rules.pop("target", 7), needed=needed, **rules)


THROWS = [
    ThrowRow("a die at or above the target counts one", _pool(3), (7, 6, 10), 2, "success"),
    ThrowRow("a die below the target counts nothing", _pool(3), (6, 5, 2), 0, "failure"),
    ThrowRow("dc is successes needed, not a target", _pool(3, 3), (9, 9, 2), 2, "failure"),
    ThrowRow(
        "cancel: a face at or below upTo takes one success away",
        _pool(3, cancel_up_to=1),
        (8, 8, 1),
        1,
        "success",
    ),
    ThrowRow(
        "cancel: the count never goes below zero",
        _pool(3, cancel_up_to=2),
        (8, 1, 2),
        0,
        "failure",
    ),
    ThrowRow(
        "cancel counts every die thrown, explosions included",
        _pool(2, explode_from=10, max_extra=15, cancel_up_to=1),
        (10, 3, 1),
        0,
        "failure",
    ),
    ThrowRow(
        "botch: no die succeeded and a face at or below upTo showed",
        _pool(3, botch_up_to=1, cancel_up_to=1),
        (1, 3, 4),
        0,
        "critical_failure",
    ),
    ThrowRow(
        "botch: a pool whose one success was cancelled away has failed, not botched",
        _pool(3, botch_up_to=1, cancel_up_to=1),
        (8, 1, 3),
        0,
        "failure",
    ),
    ThrowRow(
        "botch: successes nobody rolled do not stop one (no die succeeded)",
        _pool(3, botch_up_to=1, auto=2),
        (1, 3, 4),
        2,
        "critical_failure",
    ),
    ThrowRow(
        "halfOrMore: low faces on half the dice first thrown and none succeeded",
        _pool(4, botch_up_to=1, botch_rule="halfOrMore"),
        (1, 1, 3, 4),
        0,
        "critical_failure",
    ),
    ThrowRow(
        "halfOrMore: beside a success the result stands, with a complication",
        _pool(4, botch_up_to=1, botch_rule="halfOrMore"),
        (1, 1, 8, 4),
        1,
        "success",
        extras={"complication": "true"},
    ),
    ThrowRow(
        "halfOrMore: fewer than half is no botch at all",
        _pool(4, botch_up_to=1, botch_rule="halfOrMore"),
        (1, 3, 5, 4),
        0,
        "failure",
    ),
    ThrowRow(
        "halfOrMore: dice an explosion added are not dice first thrown",
        _pool(3, botch_up_to=1, botch_rule="halfOrMore", explode_from=10, max_extra=15),
        (1, 10, 4, 1),
        1,
        "success",
    ),
    ThrowRow(
        "exceptional: that many net successes on a check that succeeded is critical",
        _pool(4, 2, exceptional=3),
        (7, 8, 9, 2),
        3,
        "critical_success",
    ),
    ThrowRow(
        "exceptional needs a check that succeeded",
        _pool(4, 4, exceptional=3),
        (7, 8, 9, 2),
        3,
        "failure",
    ),
    ThrowRow(
        "exceptional counts net successes, after cancelling",
        _pool(4, 1, exceptional=3, cancel_up_to=1),
        (7, 8, 9, 1),
        2,
        "success",
    ),
    ThrowRow(
        "double: a face at or above from counts twice",
        _pool(2, double_from=10),
        (10, 7),
        3,
        "success",
    ),
    ThrowRow(
        "double only doubles a face that counts",
        _pool(2, double_from=5),
        (6, 7),
        2,
        "success",
    ),
    ThrowRow(
        "explode: a face at or above from rolls one more die, which may explode in turn",
        _pool(2, explode_from=10, max_extra=15),
        (10, 3, 10, 4),
        2,
        "success",
    ),
    ThrowRow(
        "explode: the chains come after the first throw, in the order of their dice",
        _pool(3, explode_from=10, max_extra=15),
        (10, 2, 10, 5, 8),
        3,
        "success",
    ),
    ThrowRow(
        "explode: extra dice are capped at pool.max on top of the pool",
        _pool(1, explode_from=10, max_extra=2),
        (10, 10, 10),
        3,
        "success",
    ),
    ThrowRow(
        "reroll once: a face at or below upTo is thrown again and the new face stands",
        _pool(2, reroll=Reroll(6, "once")),
        (3, 8, 2),
        1,
        "success",
        extras={"rerolled": "1"},
    ),
    ThrowRow(
        "reroll until: thrown again until it shows more",
        _pool(2, reroll=Reroll(6, "until")),
        (3, 8, 2, 5, 9),
        2,
        "success",
        extras={"rerolled": "1"},
    ),
    ThrowRow(
        "a face thrown again no longer counts for cancel or botch",
        _pool(2, cancel_up_to=1, botch_up_to=1, reroll=Reroll(1, "once")),
        (1, 3, 7),
        1,
        "success",
        extras={"rerolled": "1"},
    ),
    ThrowRow(
        "re-throws come after explosions; a chain's dice are thrown again too",
        _pool(2, explode_from=10, max_extra=15, reroll=Reroll(6, "once")),
        (10, 4, 3, 8, 9),
        3,
        "success",
        extras={"rerolled": "2"},
    ),
    ThrowRow(
        "a new face that explodes sets off its chain at once; its dice join the pass",
        _pool(2, explode_from=10, max_extra=15, reroll=Reroll(6, "once")),
        (2, 8, 10, 3, 7),
        3,
        "success",
        extras={"rerolled": "2"},
    ),
    ThrowRow(
        "the re-throws cap ends the pass (here 2, 100 in play)",
        _pool(2, reroll=Reroll(6, "until"), max_rethrows=2),
        (1, 2, 3, 4),
        0,
        "failure",
        extras={"rerolled": "1"},
    ),
    ThrowRow(
        "once: the re-throws cap ends the pass; a later low die stands on its first face",
        _pool(3, reroll=Reroll(6, "once"), max_rethrows=1),
        (2, 3, 8, 9),
        2,
        "success",
        extras={"rerolled": "1"},
    ),
    ThrowRow(
        "the re-throws cap is spent in the pass's order: the pool's dice before added ones",
        _pool(2, explode_from=10, max_extra=5, reroll=Reroll(6, "once"), max_rethrows=1),
        (10, 3, 4, 9),
        2,
        "success",
        extras={"rerolled": "1"},
    ),
    ThrowRow(
        "a new face's chain is inside the same explosion cap as the first throw's chains",
        _pool(2, explode_from=10, max_extra=1, reroll=Reroll(6, "once")),
        (10, 3, 2, 10, 8),
        3,
        "success",
        extras={"rerolled": "2"},
    ),
    ThrowRow(
        "the reroll= id is written when the tag's re-throw threw something",
        _pool(2, reroll=Reroll(6, "once", "careful"), reroll_id="careful"),
        (3, 8, 9),
        2,
        "success",
        extras={"rerolled": "1", "reroll": "careful"},
    ),
    ThrowRow(
        "exact: a die showing exactly the target counts one, and doubling leaves it",
        _pool(2, target=9, double_from=9, exact=True),
        (9, 10),
        3,
        "success",
        extras={"exact": "1"},
    ),
    ThrowRow(
        "exact with counts false: the exact die counts nothing",
        _pool(2, exact=False),
        (7, 8),
        1,
        "success",
        extras={"exact": "1"},
    ),
    ThrowRow(
        "exact: an exact die still explodes when its face does",
        _pool(1, target=10, explode_from=10, max_extra=15, exact=True),
        (10, 3),
        1,
        "success",
        extras={"exact": "1"},
    ),
    ThrowRow(
        "stance below: the dice under the target count",
        _pool(4, target=4, count="below"),
        (1, 3, 4, 5),
        2,
        "success",
    ),
    ThrowRow(
        "stance above: the dice over the target count",
        _pool(3, target=4, count="above"),
        (5, 6, 4),
        2,
        "success",
    ),
    ThrowRow(
        "Lasers & Feelings: the exact number counts beside the dice under it",
        _pool(3, 2, target=4, count="below", exact=True),
        (4, 2, 6),
        2,
        "success",
        extras={"exact": "1"},
    ),
    ThrowRow(
        "successes nobody rolled are added after counting and cancelling",
        _pool(2, 2, cancel_up_to=1, auto=1),
        (1, 3),
        1,
        "failure",
    ),
    ThrowRow("an empty pool fails with no roll at all", _pool(0, auto=3), (), 0, "failure", ""),
]


@pytest.mark.parametrize("row", THROWS, ids=[r.rule for r in THROWS])
def test_the_throw(row: ThrowRow) -> None:
    dice = ForcedFaces(row.faces)
    rolled = roll(row.check, dice)
    assert dice.left == 0, "every forced face is thrown"
    word = (
        "critical_success"
        if rolled.critical_success
        else "critical_failure"
        if rolled.critical_failure
        else "success"
        if rolled.success
        else "failure"
    )
    assert (rolled.total, word) == (row.total, row.result)
    assert rolled.used == rolled.total and rolled.modifier == 0
    assert rolled.resolution == "successes" and rolled.mode == "normal"
    expected_rolls = "|".join(map(str, row.faces)) if row.rolls is None else row.rolls
    assert "|".join(rolled.rolls) == expected_rolls
    assert rolled.dice == f"{len(row.faces)}d10"
    assert dict(rolled.extras) == row.extras


def test_a_face_reads_the_same_for_the_roller_and_the_odds() -> None:
    check = _pool(3, explode_from=9, double_from=10, cancel_up_to=1, botch_up_to=2, exact=True)
    assert face_effect(check, 10) == (2, 0, 0, 0, True, False)
    assert face_effect(check, 7) == (1, 0, 0, 1, False, False)
    assert face_effect(check, 1) == (0, 1, 1, 0, False, False)


def test_a_check_that_cannot_be_thrown_is_refused() -> None:
    with pytest.raises(UsageError):
        PoolCheck(sides=10, dice=2, target=11, needed=1)
    with pytest.raises(UsageError):
        PoolCheck(sides=10, dice=2, target=7, needed=1, reroll=Reroll(10, "until"))
    with pytest.raises(UsageError):
        PoolCheck(sides=10, dice=-1, target=7, needed=1)


# -- the tag on a pool check: Thornwatch and Bram ------------------------------------------


@dataclass(frozen=True)
class TagRow:
    rule: str
    tag: str
    faces: tuple[int, ...]
    expect: dict[str, str]
    absent: tuple[str, ...] = ()


SEVEN_LOW = (2, 3, 4, 5, 2, 3, 4)  # seven dice, none counting at 6 or more, no one

TAGS = [
    TagRow(
        "the sheet's number is the pool: rating 3, trade 3 and a bonus of 1 throw seven dice",
        'skill="Ward" dc="2"',
        (7, 8, 2, 3, 4, 5, 6),
        {
            "skill": "Ward",
            "dc": "2",
            "rolls": "7|8|2|3|4|5|6",
            "used": "2",
            "modifier": "0",
            "total": "2",
            "result": "success",
            "mode": "normal",
            "resolution": "successes",
            "dice": "7d10",
            "threshold": "7",
        },
        ("bonus", "with", "spend", "auto", "penalty", "explode", "rerolled", "exact"),
    ),
    TagRow(
        "cancel: a one takes a success away",
        'skill="Ward" dc="2"',
        (7, 1, 2, 3, 4, 5, 6),
        {"total": "0", "result": "failure"},
    ),
    TagRow(
        "botch: no success and a one is a critical failure",
        'skill="Ward" dc="2"',
        (1, 2, 3, 4, 5, 6, 6),
        {"total": "0", "result": "critical_failure"},
    ),
    TagRow(
        "explode: a ten rolls another die, which may explode in turn",
        'skill="Ward" dc="2"',
        (10, 2, 3, 4, 5, 6, 6, 10, 8),
        {"rolls": "10|2|3|4|5|6|6|10|8", "dice": "9d10", "total": "3"},
    ),
    TagRow(
        "exceptional: five net successes on a success are a critical success",
        'skill="Ward" dc="2"',
        (7, 8, 9, 7, 8, 2, 3),
        {"total": "5", "result": "critical_success"},
    ),
    TagRow(
        "exceptional needs a check that succeeded",
        'skill="Ward" dc="7"',
        (7, 8, 9, 7, 8, 9, 3),
        {"total": "6", "result": "failure"},
    ),
    TagRow(
        "dc= is pulled back to the most one roll could count (15, doubled: 30)",
        'skill="Ward" dc="99"',
        SEVEN_LOW,
        {"dc": "30"},
    ),
    TagRow("dc= below 1 is pulled back to 1", 'skill="Ward" dc="0"', SEVEN_LOW, {"dc": "1"}),
    TagRow(
        "difficulty= reads the step's successes and its target",
        'skill="Ward" difficulty="grim"',
        (8, 8, 8, 1, 2, 3, 4),
        {"dc": "3", "threshold": "8", "total": "2", "result": "failure"},
        ("difficulty",),
    ),
    TagRow(
        "a dc= exactly one step needs counts with that step's target",
        'skill="Ward" dc="3"',
        SEVEN_LOW,
        {"dc": "3", "threshold": "8"},
    ),
    TagRow(
        "a dc= two steps need keeps the default target",
        'skill="Ward" dc="2"',
        SEVEN_LOW,
        {"dc": "2", "threshold": "7"},
    ),
    TagRow(
        "dc= wins for the number beside difficulty=, the step still gives the target",
        'skill="Ward" difficulty="Grim" dc="1"',
        SEVEN_LOW,
        {"dc": "1", "threshold": "8"},
    ),
    TagRow(
        "a difficulty= no step answers to is ignored beside dc=",
        'skill="Ward" difficulty="Awful" dc="1"',
        SEVEN_LOW,
        {"dc": "1", "threshold": "6"},
    ),
    TagRow(
        "threshold= moves the per-die target",
        'skill="Ward" dc="1" threshold="8"',
        (8, 7, 2, 3, 4, 5, 6),
        {"threshold": "8", "total": "1"},
    ),
    TagRow(
        "threshold= is held to target.max",
        'skill="Ward" dc="1" threshold="12"',
        SEVEN_LOW,
        {"threshold": "9"},
    ),
    TagRow(
        "threshold= is held to target.min",
        'skill="Ward" dc="1" threshold="2"',
        SEVEN_LOW,
        {"threshold": "5"},
    ),
    TagRow(
        "threshold= wins over the step's target",
        'skill="Ward" difficulty="Grim" threshold="6"',
        SEVEN_LOW,
        {"dc": "3", "threshold": "6"},
    ),
    TagRow(
        "bonus= adds dice, held to situationalDice",
        'skill="Ward" dc="1" bonus="+5"',
        (*SEVEN_LOW, 2, 3, 4),
        {"bonus": "+3", "dice": "10d10"},
    ),
    TagRow(
        "bonus= takes dice away",
        'skill="Ward" dc="1" bonus="-2"',
        SEVEN_LOW[:5],
        {"bonus": "-2", "dice": "5d10"},
    ),
    TagRow(
        "bonus= that is not a whole number is ignored",
        'skill="Ward" dc="1" bonus="lots"',
        SEVEN_LOW,
        {"dice": "7d10"},
        ("bonus",),
    ),
    TagRow(
        "with= rolls a skill with another ability",
        'skill="Ward" dc="1" with="Nerve"',
        (*SEVEN_LOW, 2),
        {"with": "Nerve", "dice": "8d10"},
    ),
    TagRow(
        "with= naming the skill's own ability is not written",
        'skill="Ward" dc="1" with="sinew"',
        SEVEN_LOW,
        {"dice": "7d10"},
        ("with",),
    ),
    TagRow(
        "with= on an ability check adds a second ability (abilityPlusAbility)",
        'skill="Nerve" dc="1" with="Warmth"',
        SEVEN_LOW[:6],
        {"skill": "Nerve", "with": "Warmth", "dice": "6d10"},
    ),
    TagRow(
        "with= naming the ability checked adds nothing",
        'skill="Nerve" dc="1" with="Nerve"',
        SEVEN_LOW[:4],
        {"dice": "4d10"},
        ("with",),
    ),
    TagRow(
        "with= an unknown ability is ignored",
        'skill="Nerve" dc="1" with="Luck"',
        SEVEN_LOW[:4],
        {"dice": "4d10"},
        ("with",),
    ),
    TagRow(
        "explode= moves the explode face for one check",
        'skill="Ward" dc="1" explode="9"',
        (9, 2, 3, 4, 5, 2, 3, 3),
        {"explode": "9", "dice": "8d10", "total": "1"},
    ),
    TagRow(
        "explode= is held to the rule's min",
        'skill="Ward" dc="1" explode="5"',
        (8, 2, 3, 4, 5, 6, 6, 3),
        {"explode": "8", "dice": "8d10"},
    ),
    TagRow(
        "explode= at the rule's own face did not move it and is not written",
        'skill="Ward" dc="1" explode="10"',
        SEVEN_LOW,
        {"dice": "7d10"},
        ("explode",),
    ),
    TagRow(
        "double= is ignored where the ruleset declares no double",
        'skill="Ward" dc="1" double="9"',
        (9, 2, 3, 4, 5, 2, 3),
        {"total": "1"},
        ("double",),
    ),
    TagRow(
        "reroll= names a standing re-throw: faces at or below 6 are thrown again once",
        'skill="Ward" dc="6" reroll="careful"',
        (7, 7, 7, 7, 7, 7, 3, 8),
        {"rolls": "7|7|7|7|7|7|3|8", "total": "7", "rerolled": "1", "reroll": "careful"},
    ),
    TagRow(
        "reroll= that threw nothing is not written",
        'skill="Ward" dc="6" reroll="careful"',
        (7, 7, 7, 7, 7, 7, 8),
        {"total": "7"},
        ("reroll", "rerolled"),
    ),
    TagRow(
        "reroll= none answers to is ignored",
        'skill="Ward" dc="1" reroll="wild"',
        SEVEN_LOW,
        {"dice": "7d10"},
        ("reroll", "rerolled"),
    ),
    TagRow(
        "reroll= until: thrown again until it shows more",
        'skill="Ward" dc="7" reroll="Dogged"',
        (1, 7, 7, 7, 7, 7, 7, 2, 1, 9),
        {"rolls": "1|7|7|7|7|7|7|2|1|9", "dice": "10d10", "total": "7", "rerolled": "1"},
    ),
    TagRow(
        "mode= is ignored on a pool",
        'skill="Ward" dc="1" mode="advantage"',
        SEVEN_LOW,
        {"mode": "normal", "dice": "7d10"},
    ),
    TagRow(
        "a result the model wrote is replaced",
        'skill="Ward" dc="1" rolls="10|10" total="9" result="success"',
        SEVEN_LOW,
        {"rolls": "2|3|4|5|2|3|4", "total": "0", "result": "failure"},
    ),
    TagRow(
        "untrained harder: every die needs one more to count",
        'skill="Listen" difficulty="Awkward"',
        (8, 7, 2, 3),
        {"threshold": "8", "total": "1", "reason": "untrained", "dice": "4d10"},
    ),
    TagRow(
        "untrained by: dice off the pool",
        'skill="Barter" dc="1"',
        (7,),
        {"dice": "1d10", "reason": "untrained"},
    ),
    TagRow(
        "an ability check throws the ability's dice",
        'skill="Sinew" dc="1"',
        (7, 2, 3),
        {"skill": "Sinew", "dice": "3d10", "total": "1"},
    ),
]


@pytest.mark.parametrize("row", TAGS, ids=[r.rule for r in TAGS])
def test_the_tag(row: TagRow) -> None:
    got = attrs(result(WATCH, BRAM, row.tag, row.faces))
    assert {k: got.get(k) for k in row.expect} == row.expect
    assert [k for k in row.absent if k in got] == []


@pytest.mark.parametrize(
    ("tag", "error"),
    [
        ('skill="Ward"', "the tag names no difficulty"),
        ('skill="Ward" difficulty="Awful"', 'difficulty="Awful" names no single step'),
        ('skill="Dig" dc="1"', "cannot attempt Dig untrained"),
    ],
    ids=[
        "no dc= and no difficulty= is not rolled",
        "a difficulty= no step answers to, alone, is not rolled",
        "untrained refuse is not rolled",
    ],
)
def test_a_check_that_cannot_be_resolved_throws_nothing(tag: str, error: str) -> None:
    (item,) = throw(WATCH, BRAM, tag, ()).items
    assert isinstance(item, CheckFailure)
    assert error in item.error


def test_the_pool_is_held_to_pool_max() -> None:
    rs = watch(pool={"min": 1, "max": 8})
    got = attrs(result(rs, warden(rs), 'skill="Ward" dc="1" bonus="+3"', (2,) * 8))
    assert got["dice"] == "8d10" and got["bonus"] == "+3"


@pytest.mark.parametrize(
    ("marks", "dice", "penalty"),
    [(["tear", "knock"], 6, "-1"), (["tear", "tear", "knock"], 4, "-3"), (["tear"] * 4, 1, "-99")],
    ids=[
        "penaltyFrom: a wound's penalty is dice off the pool",
        "penaltyFrom: the lowest marked rung's penalty, not a sum",
        "penaltyFrom: the pool is floored at pool.min",
    ],
)
def test_a_wound_takes_dice_off_the_pool(marks: list[str], dice: int, penalty: str) -> None:
    hurt = warden(WATCH, live={"wounds": {"harm": {"marks": marks}}})
    got = attrs(result(WATCH, hurt, 'skill="Ward" dc="1"', (2,) * dice))
    assert (got["dice"], got["penalty"]) == (f"{dice}d10", penalty)


def test_the_pools_size_adds_everything_then_holds_it_once() -> None:
    # 7 dice, a wound of -3 and bonus -3 would go below 1 on the way, then +2 bought dice:
    # added first (7 - 3 - 3 + 2 = 3), held once: three dice, not one.
    rs = watch(spend=[{"pool": "resolve", "amount": 1, "dice": 1, "perCheck": 2}])
    hurt = warden(
        rs,
        live={"pools": {"resolve": {"value": 2}}, "wounds": {"harm": {"marks": ["tear"] * 3}}},
    )
    got = attrs(result(rs, hurt, 'skill="Ward" dc="1" bonus="-3" spend="resolve:2"', (2, 3, 4)))
    assert got["dice"] == "3d10"


def test_an_empty_pool_fails_with_no_roll_and_buys_nothing() -> None:
    rs = watch(pool={"min": 0, "max": 15})
    down = warden(
        rs,
        live={"pools": {"resolve": {"value": 2}}, "wounds": {"harm": {"marks": ["tear"] * 4}}},
    )
    item = result(rs, down, 'skill="Ward" dc="1" spend="resolve:1"', ())
    got = attrs(item)
    assert (got["rolls"], got["dice"], got["total"], got["result"]) == ("", "0d10", "0", "failure")
    assert "spend" not in got and "auto" not in got
    assert item.changes == ()


def test_adjust_rides_on_checks_made_with_its_ability() -> None:
    lit = warden(WATCH, fields={"lamp": 2})
    got = attrs(result(WATCH, lit, 'skill="Listen" dc="1"', (2,) * 6))
    assert (got["dice"], got["adjust"]) == ("6d10", "+2")
    got = attrs(result(WATCH, lit, 'skill="Ward" dc="1"', (2,) * 7))
    assert "adjust" not in got


def test_without_ability_plus_ability_with_means_nothing_on_an_ability_check() -> None:
    rs = watch(pool={"min": 1, "max": 15})
    got = attrs(result(rs, warden(rs), 'skill="Nerve" dc="1" with="Warmth"', (2,) * 4))
    assert got["dice"] == "4d10" and "with" not in got


def test_without_situational_dice_bonus_is_ignored() -> None:
    rs = watch(situationalDice=None)
    got = attrs(result(rs, warden(rs), 'skill="Ward" dc="1" bonus="+2"', (2,) * 7))
    assert got["dice"] == "7d10" and "bonus" not in got


def test_a_fixed_target_ignores_threshold() -> None:
    doc = watch_doc(target={"default": 7, "min": 7, "max": 7})
    for step in doc["resolution"]["difficultyLadder"]:
        step.pop("target", None)
    doc["sheet"]["skills"][2]["untrained"] = "normal"
    rs = compile_ruleset(doc)
    got = attrs(result(rs, warden(rs), 'skill="Ward" dc="1" threshold="5"', (6,) * 7))
    assert (got["threshold"], got["result"]) == ("7", "failure")


def test_explode_without_min_cannot_be_moved() -> None:
    rs = watch(explode={"from": 10})
    got = attrs(result(rs, warden(rs), 'skill="Ward" dc="1" explode="8"', (8, *SEVEN_LOW[1:])))
    assert got["dice"] == "7d10" and "explode" not in got


def test_explode_with_only_min_fires_only_on_a_check_that_asks() -> None:
    rs = watch(explode={"min": 10})
    got = attrs(result(rs, warden(rs), 'skill="Ward" dc="1"', (10, *SEVEN_LOW[1:])))
    assert got["dice"] == "7d10" and "explode" not in got
    got = attrs(result(rs, warden(rs), 'skill="Ward" dc="1" explode="10"', (10, *SEVEN_LOW[1:], 4)))
    assert (got["dice"], got["explode"]) == ("8d10", "10")


def test_double_moves_only_where_its_rule_has_a_min() -> None:
    rs = watch(double={"min": 9})
    bram = warden(rs)
    got = attrs(result(rs, bram, 'skill="Ward" dc="1" double="9"', (9, 9, *SEVEN_LOW[2:])))
    assert (got["double"], got["total"]) == ("9", "4")
    got = attrs(result(rs, bram, 'skill="Ward" dc="1" double="3"', (9, 9, *SEVEN_LOW[2:])))
    assert (got["double"], got["total"]) == ("9", "4")
    got = attrs(result(rs, bram, 'skill="Ward" dc="1"', (9, 9, *SEVEN_LOW[2:])))
    assert got["total"] == "2" and "double" not in got
    # a die's top face is as high as the face may be moved
    got = attrs(result(rs, bram, 'skill="Ward" dc="1" double="15"', (9, 9, *SEVEN_LOW[2:])))
    assert (got["double"], got["total"]) == ("10", "2")


def test_several_tags_throw_in_order_and_each_pays() -> None:
    text = (
        '[skill_check: skill="Ward" dc="1" spend="resolve:1"] then '
        '[skill_check: skill="Soothe" dc="1" spend="resolve:1"]'
    )
    report = resolve_text(WATCH, [BRAM], text, faces=[2] * 7 + [2] * 3)
    assert [r.record.as_dict()["auto"] for r in report.results] == ["1", "1"]
    assert [(c.from_, c.to) for r in report.results for c in r.changes] == [(2, 1), (1, 0)]
    assert report.party[0].live.pools["resolve"].value == 0


def test_the_pool_kind_is_played_and_fits_the_interface() -> None:
    player: KindPlayer = PLAYER
    assert kind_player("dice-pool") is player
    assert dice_pool.roll is roll and dice_pool.distribution is distribution


# -- other systems: a World of Darkness-like pool, a Shadowrun-like glitch, Lasers & Feelings ---

WOD: dict[str, Any] = {
    "schemaVersion": 1,
    "id": "nightcourt",
    "version": 1,
    "name": "Night Court",
    "coverage": {"checks": True, "summary": "A d10 pool whose target is the difficulty."},
    "resolution": {
        "kind": "dice-pool",
        "die": {"sides": 10},
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [{"id": "d0", "label": "None"}, {"id": "d1", "label": "1", "flat": 1}],
        "pool": {"min": 1, "max": 12},
        "target": {"default": 6, "min": 3, "max": 9},
        "explode": {"min": 10},
        "cancel": {"upTo": 1},
        "botch": {"upTo": 1, "rule": "halfOrMore"},
        "difficultyLadder": [
            {"label": "Easy", "successes": 1, "target": 4},
            {"label": "Standard", "successes": 1, "target": 6},
            {"label": "Hard", "successes": 1, "target": 8},
        ],
    },
    "sheet": {
        "version": 1,
        "abilities": [{"id": "dex", "label": "Dexterity", "min": 1, "max": 5, "default": 1}],
        "skills": [{"id": "brawl", "label": "Brawl", "ability": "dex"}],
        "lists": [
            {
                "id": "specialties",
                "label": "Specialties",
                "maxItems": 4,
                "columns": [{"id": "focus", "label": "Focus", "type": "text", "maxLength": 40}],
            }
        ],
    },
    "gm": {"checkGuidance": "Name the difficulty; one success is enough unless told."},
    "catalogs": [
        {
            "id": "specialties",
            "label": "Specialties",
            "feeds": ["specialties"],
            "entries": [
                {
                    "id": "brawl-grappling",
                    "label": "Brawl: Grappling",
                    "rows": [{"list": "specialties", "values": {"focus": "Grappling"}}],
                    "mechanics": {"kind": "utility", "check": {"explode": 10}},
                }
            ],
        }
    ],
}


def _nightcourt() -> tuple[Ruleset, Character]:
    rs = compile_ruleset(WOD)
    raw = {
        "name": "Ines",
        "sheet": {
            "v": 1,
            "build": {
                "abilities": {"dex": 3},
                "skills": {"brawl": "d1"},
                "lists": {
                    "specialties": [
                        {"focus": "Grappling", "_catalog": "specialties/brawl-grappling"}
                    ]
                },
            },
        },
    }
    return rs, load_character(rs, raw)


@pytest.mark.parametrize(
    ("tag", "faces", "expect"),
    [
        (
            'skill="Brawl" difficulty="Hard"',
            (10, 1, 1, 3),
            {"threshold": "8", "total": "0", "result": "failure", "complication": "true"},
        ),
        (
            'skill="Brawl" difficulty="Hard"',
            (1, 1, 3, 5),
            {"total": "0", "result": "critical_failure"},
        ),
        (
            'skill="Brawl" difficulty="Easy"',
            (10, 4, 2, 3),
            {"threshold": "4", "total": "2", "dice": "4d10", "result": "success"},
        ),
        (
            'skill="Brawl" difficulty="Easy" use="grappling"',
            (10, 4, 2, 3, 7),
            {"total": "3", "dice": "5d10", "use": "Brawl: Grappling", "explode": "10"},
        ),
        (
            'skill="Brawl" difficulty="Easy" use="Brawl: Grappling" explode="10"',
            (10, 4, 2, 3, 10, 1),
            {"total": "2", "rolls": "10|4|2|3|10|1", "explode": "10"},
        ),
    ],
    ids=[
        "halfOrMore: two ones on four dice beside a cancelled ten is a complication",
        "halfOrMore: two ones on four dice and no success is a botch",
        "tens do not explode without a specialty (explode.min alone)",
        "a specialty entry makes tens explode on its check, for free",
        "the specialty's face outranks the tag's; a chain explodes in turn",
    ],
)
def test_a_world_of_darkness_like_pool(
    tag: str, faces: tuple[int, ...], expect: dict[str, str]
) -> None:
    rs, ines = _nightcourt()
    got = attrs(result(rs, ines, tag, faces))
    assert {k: got.get(k) for k in expect} == expect


SHADOW: dict[str, Any] = {
    "schemaVersion": 1,
    "id": "neon-hustle",
    "version": 1,
    "name": "Neon Hustle",
    "coverage": {"checks": True, "summary": "Buckets of d6 hitting on fives and sixes."},
    "resolution": {
        "kind": "dice-pool",
        "die": {"sides": 6},
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [{"id": "s0", "label": "0"}, {"id": "s3", "label": "3", "flat": 3}],
        "pool": {"min": 0, "max": 20},
        "target": {"default": 5, "min": 5, "max": 5},
        "botch": {"upTo": 1, "rule": "halfOrMore"},
        "difficultyLadder": [{"label": "Average", "successes": 2}],
    },
    "sheet": {
        "version": 1,
        "abilities": [{"id": "agility", "label": "Agility", "min": 0, "max": 6, "default": 3}],
        "skills": [{"id": "sneak", "label": "Sneaking", "ability": "agility"}],
    },
    "gm": {"checkGuidance": "Name the skill; hits are fives and sixes."},
}


@pytest.mark.parametrize(
    ("faces", "expect"),
    [
        ((5, 6, 1, 1, 1, 2), {"total": "2", "result": "success", "complication": "true"}),
        ((1, 1, 1, 2, 3, 4), {"total": "0", "result": "critical_failure"}),
        ((5, 6, 1, 1, 2, 2), {"total": "2", "result": "success"}),
    ],
    ids=[
        "a glitch: half the dice ones beside hits stands, with a complication",
        "a critical glitch: half the dice ones and no hit",
        "fewer than half the dice ones is no glitch",
    ],
)
def test_a_shadowrun_like_glitch(faces: tuple[int, ...], expect: dict[str, str]) -> None:
    rs = compile_ruleset(SHADOW)
    runner = load_character(
        rs,
        {
            "name": "Kestrel",
            "sheet": {"v": 1, "build": {"abilities": {"agility": 3}, "skills": {"sneak": "s3"}}},
        },
    )
    got = attrs(result(rs, runner, 'skill="Sneaking" difficulty="Average"', faces))
    assert {k: got.get(k) for k in expect} == expect
    assert ("complication" in got) == ("complication" in expect)


def _zee(rs: Ruleset, number: int = 3) -> Character:
    skills = dict.fromkeys(("shoot", "fix", "charm", "pilot"), "expert")
    build = {"fields": {"number": number}, "skills": skills}
    return load_character(rs, {"name": "Zee", "sheet": {"v": 1, "build": build}})


@pytest.mark.parametrize(
    ("tag", "faces", "expect"),
    [
        ('skill="Shoot" dc="1"', (2, 5), {"threshold": "3", "total": "1", "dice": "2d6"}),
        ('skill="Charm" dc="1"', (2, 5), {"threshold": "3", "total": "1"}),
        ('skill="Shoot" dc="1"', (3, 4), {"total": "1", "exact": "1", "result": "success"}),
        ('skill="Charm" dc="2"', (3, 4), {"total": "2", "exact": "1", "result": "success"}),
        ('skill="Shoot" dc="1" threshold="5"', (4, 5), {"threshold": "3", "total": "0"}),
        ('skill="Shoot" dc="1"', (6, 1), {"total": "1", "dice": "2d6", "result": "success"}),
        ('skill="Fix" dc="2" bonus="1"', (1, 2, 6), {"total": "2", "dice": "3d6"}),
        ('skill="Pilot" dc="1"', (6, 1, 1), {"total": "0", "dice": "3d6", "result": "failure"}),
        (
            'skill="Pilot" dc="1"',
            (2, 1),
            {"total": "0", "dice": "2d6", "result": "critical_failure"},
        ),
    ],
    ids=[
        "target.from: the character's number is the target; a Lasers stance counts below it",
        "a Feelings stance counts above it",
        "exact: rolling the number is LASER FEELINGS, one success, exact=1",
        "exact counts on the Feelings side too, beside a die over the number",
        "threshold= never moves a target read off the sheet",
        "a stance leaves out explode, cancel and botch",
        "bonus= adds a die for being prepared",
        "a skill in no stance counts at or above, with explode and cancel",
        "a skill in no stance botches",
    ],
)
def test_lasers_and_feelings(tag: str, faces: tuple[int, ...], expect: dict[str, str]) -> None:
    rs = compile_ruleset(LASERS)
    got = attrs(result(rs, _zee(rs), tag, faces))
    assert {k: got.get(k) for k in expect} == expect


def test_target_from_is_held_to_the_targets_range() -> None:
    doc = copy.deepcopy(LASERS)
    doc["sheet"]["fields"][0].update(min=1, max=6)
    rs = compile_ruleset(doc)
    for number, target in ((1, "2"), (6, "5")):
        got = attrs(result(rs, _zee(rs, number), 'skill="Shoot" dc="1"', (2, 2)))
        assert got["threshold"] == target


def test_gravewatch_plays_unchanged(marinara_dir: Path) -> None:
    rs = compile_ruleset(json.loads((marinara_dir / "gravewatch.json").read_text()))
    warden_ = load_character(
        rs,
        {
            "name": "Bram the Quiet",
            "sheet": {
                "v": 1,
                "build": {
                    "abilities": {"sinew": 3, "nerve": 4, "warmth": 2},
                    "skills": {"ward": "rating_3"},
                    "bonuses": {"ward": 1},
                    "fields": {"watch": "night"},
                    "lists": {
                        "charms": [
                            {"name": "Steady Hand", "_catalog": "charms/steady-hand"},
                        ]
                    },
                },
            },
            "live": {"pools": {"resolve": {"value": 2}}},
        },
    )
    # Ward rolls with Nerve: 4 + 3 + 1 = 8 dice; Steady Hand for 2 Resolve throws the ones
    # again and adds two successes.
    item = result(
        rs,
        warden_,
        'skill="Ward" dc="2" who="Bram the Quiet" use="Steady Hand" spend="resolve:2"',
        (1, 2, 3, 4, 5, 6, 6, 10, 2, 7),
    )
    got = attrs(item)
    assert got["dice"] == "10d10" and got["total"] == "4"
    assert (got["use"], got["auto"], got["spend"], got["rerolled"]) == (
        "Steady Hand",
        "2",
        "resolve:2",
        "1",
    )
    assert [(c.pool, c.from_, c.to) for c in item.changes] == [("resolve", 2, 0)]


# -- import: the refusals a ruleset meets beyond the pool block itself ----------------------


def _with_entry_check(check: dict[str, Any], **resolution: Any) -> dict[str, Any]:
    doc = watch_doc(**resolution)
    doc["catalogs"] = [
        {
            "id": "charms",
            "label": "Charms",
            "feeds": ["charms"],
            "entries": [
                {
                    "id": "odd",
                    "label": "Odd",
                    "rows": [{"list": "charms", "values": {"name": "Odd"}}],
                    "mechanics": {"kind": "utility", "check": check},
                }
            ],
        }
    ]
    return doc


REFUSED = [
    (
        "an entry's explode needs the rule to have a min",
        _with_entry_check({"explode": 9}, explode={"from": 10}),
        "catalogs[0].entries[0].mechanics.check.explode",
        "rule-has-no-min",
    ),
    (
        "an entry's explode is held to the rule's min",
        _with_entry_check({"explode": 7}),
        "catalogs[0].entries[0].mechanics.check.explode",
        "outside-rule",
    ),
    (
        "an entry's threshold lies inside the target's range",
        _with_entry_check({"threshold": 4}),
        "catalogs[0].entries[0].mechanics.check.threshold",
        "outside-target",
    ),
    (
        "an entry's re-throw runs to one below the die's top face",
        _with_entry_check({"reroll": {"upTo": 10, "mode": "until"}}),
        "catalogs[0].entries[0].mechanics.check.reroll.upTo",
        "rerolls-every-face",
    ),
    (
        "an entry's check says something",
        _with_entry_check({}),
        "catalogs[0].entries[0].mechanics.check",
        None,
    ),
    (
        "untrained harder needs a target that moves",
        {
            **watch_doc(
                target={"default": 7, "min": 7, "max": 7},
                difficultyLadder=[{"label": "Plain", "successes": 1}],
            ),
        },
        "sheet.skills[2].untrained",
        "never-harder",
    ),
    (
        "a pool has no dice-sum keys: advantage",
        watch_doc(advantage=True),
        "resolution.advantage",
        None,
    ),
    (
        "a spend's pool is a live pool of the sheet",
        watch_doc(spend=[{"pool": "grit", "amount": 1, "successes": 1, "perCheck": 1}]),
        "resolution.spend[0].pool",
        "unknown-id",
    ),
]


@pytest.mark.parametrize(
    ("doc", "path", "code"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_the_ruleset_refuses(doc: dict[str, Any], path: str, code: str | None) -> None:
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(doc)
    from dicebound.problems import render_path

    found = [(render_path(p.path), p.code) for p in caught.value.problems]
    assert any(p == path and (code is None or c == code) for p, c in found), found


# -- odds: exact, against brute force ----------------------------------------------------


def _thrown(check: PoolCheck) -> dict[tuple[Any, ...], Fraction]:
    """The odds by running ``roll`` on every face sequence it can throw."""

    def run(dice: Any) -> tuple[Any, ...]:
        rolled = roll(check, dice)
        extras = dict(rolled.extras)
        return (
            rolled.total,
            rolled.success,
            rolled.critical_success,
            rolled.critical_failure,
            extras.get("complication") == "true",
            int(extras.get("exact", "0")),
        )

    return enumerate_throws(run)


def _odds(check: PoolCheck) -> dict[tuple[Any, ...], Fraction]:
    return {tuple(o): p for o, p in distribution(check).probabilities().items()}


def _small(dice: int = 3, needed: int = 1, **rules: Any) -> PoolCheck:
    return PoolCheck(
        sides=rules.pop("sides", 6),
        dice=dice,
        target=rules.pop("target", 4),
        needed=needed,
        **rules,
    )


ODDS = [
    ("a plain pool", _small(3)),
    ("cancel and a noSuccesses botch", _small(3, cancel_up_to=1, botch_up_to=1)),
    ("a halfOrMore botch", _small(4, botch_up_to=2, botch_rule="halfOrMore")),
    ("double and exceptional", _small(3, 2, double_from=6, exceptional=4)),
    ("explosion chains and their cap", _small(2, explode_from=5, max_extra=3)),
    (
        "explosions, cancel and botch",
        _small(2, explode_from=6, max_extra=2, cancel_up_to=1, botch_up_to=1),
    ),
    ("a re-throw once", _small(3, reroll=Reroll(2, "once"))),
    ("a re-throw until, with its cap", _small(2, reroll=Reroll(3, "until"), max_rethrows=3)),
    (
        "re-throws after explosions",
        _small(2, explode_from=6, max_extra=2, reroll=Reroll(2, "once")),
    ),
    (
        "an exploding face that is thrown again, both caps binding",
        _small(
            2,
            sides=4,
            target=3,
            explode_from=3,
            max_extra=2,
            reroll=Reroll(3, "until"),
            max_rethrows=2,
        ),
    ),
    (
        "both caps binding, re-throws forgotten once they cannot reach theirs",
        _small(
            3,
            sides=4,
            target=3,
            explode_from=4,
            max_extra=2,
            reroll=Reroll(2, "once"),
            max_rethrows=2,
            cancel_up_to=1,
            botch_up_to=1,
        ),
    ),
    (
        "both caps binding with a halfOrMore botch and doubles",
        _small(
            3,
            sides=4,
            target=2,
            explode_from=3,
            double_from=4,
            max_extra=2,
            reroll=Reroll(1, "once"),
            max_rethrows=3,
            botch_up_to=1,
            botch_rule="halfOrMore",
        ),
    ),
    ("a stance below with exact", _small(3, 2, count="below", exact=True)),
    ("a stance above with exact that does not count", _small(3, count="above", exact=False)),
    ("bought successes and dice", _small(4, 3, auto=1, cancel_up_to=1, exceptional=4)),
    ("an empty pool", _small(0, auto=2)),
]


@pytest.mark.parametrize("check", [r[1] for r in ODDS], ids=[r[0] for r in ODDS])
def test_the_odds_equal_brute_force(check: PoolCheck) -> None:
    odds = _odds(check)
    assert sum(odds.values()) == 1
    assert odds == _thrown(check)
    assert odds == bf_pool_check(check)


@st.composite
def small_checks(draw: st.DrawFn) -> PoolCheck:
    sides = draw(st.integers(2, 4))
    target = draw(st.integers(2, sides))
    below = st.none() | st.integers(1, target - 1)
    counts: tuple[Count, ...] = ("at-least", "at-least", "below", "above")
    count = draw(st.sampled_from(counts))
    stance = count != "at-least"
    explode = None if stance else draw(st.none() | st.integers(2, sides))
    rethrow = draw(
        st.none() | st.builds(Reroll, st.integers(1, sides - 1), st.sampled_from(["once", "until"]))
    )
    return PoolCheck(
        sides=sides,
        dice=draw(st.integers(0, 3)),
        target=target,
        needed=draw(st.integers(1, 4)),
        count=count,
        explode_from=explode,
        double_from=None if stance else draw(st.none() | st.integers(2, sides)),
        cancel_up_to=None if stance else draw(below),
        botch_up_to=None if stance else draw(below),
        botch_rule=draw(st.sampled_from(["noSuccesses", "halfOrMore"])),
        exceptional=draw(st.none() | st.integers(1, 5)),
        exact=draw(st.none() | st.booleans()),
        reroll=rethrow,
        auto=draw(st.integers(0, 2)),
        max_extra=draw(st.integers(0, 2)) if explode is not None else 0,
        max_rethrows=draw(st.integers(0, 2)),
    )


@settings(max_examples=examples(60), deadline=None)
@given(small_checks())
def test_any_small_pool_matches_brute_force(check: PoolCheck) -> None:
    odds = _odds(check)
    assert sum(odds.values()) == 1
    assert odds == _thrown(check)
    assert odds == bf_pool_check(check)


def test_the_odds_of_a_big_exploding_pool_are_quick_and_whole() -> None:
    check = PoolCheck(
        sides=10,
        dice=15,
        target=7,
        needed=3,
        explode_from=10,
        cancel_up_to=1,
        botch_up_to=1,
        exceptional=5,
        reroll=Reroll(6, "until"),
        max_extra=15,
    )
    dist = distribution(check)
    assert sum(dist.probabilities().values()) == 1
    # With every die thrown again until it shows 7 or more, only the re-throw cap can
    # leave a die below seven.
    assert dist.probability_where(lambda o: o.total >= 15) > Fraction(99, 100)


def test_the_re_throw_cap_is_exact() -> None:
    # One die thrown again until it shows 7 or more fails only when all 101 throws are low.
    check = PoolCheck(sides=10, dice=1, target=7, needed=1, reroll=Reroll(6, "until"))
    failing = distribution(check).probability_where(lambda o: not o.success)
    assert failing == Fraction(6, 10) ** 101


def test_odds_past_the_state_cap_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dice_pool.odds, "MAX_ODDS_STATES", 10)
    with pytest.raises(LimitExceeded):
        distribution(PoolCheck(sides=10, dice=8, target=7, needed=1, cancel_up_to=1, exact=True))


def test_the_odds_of_a_tag_read_the_same_check() -> None:
    odds = check_odds(WATCH, BRAM, 'skill="Ward" difficulty="Grim" spend="resolve:1"')
    assert sum(o.probability for o in odds.outcomes) == 1
    prepared_check = PoolCheck(
        sides=10,
        dice=7,
        target=8,
        needed=3,
        explode_from=10,
        cancel_up_to=1,
        botch_up_to=1,
        exceptional=5,
        auto=1,
        max_extra=15,
    )
    dist = distribution(prepared_check)
    assert odds.success == dist.probability_where(lambda o: o.success)
    assert "7d10, 8+ a die, 3 successes needed, 1 bought" in odds.title


def test_margin_is_net_successes_minus_those_needed() -> None:
    check = _pool(3, 2)
    assert PLAYER.margin(check, PoolOutcome(5, True, False, False)) == 3
    assert PLAYER.margin(check, PoolOutcome(0, False, False, True)) == -2
