"""step-pool: the Advanced Resolution rule (001_37ef973b076de473.txt), row by row.

The rule's own example exactly (Sneeky Peet's lock), every step of its process with
forced faces, spending after the roll, exact odds against brute force, and every import
refusal the keys imply, with its path. Rulesets are compiled from JSON and characters
loaded from JSON, as a user's would be.
"""

from __future__ import annotations

import json
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
from dicebound.engine import CheckResult, prepare_check
from dicebound.errors import DiceError, RulesetInvalid, TagError, UsageError
from dicebound.kinds.base import KindCompiler, KindPlayer
from dicebound.kinds.registry import kind_compiler, kind_player
from dicebound.kinds.step_pool import (
    KIND,
    PLAYER,
    SpendRate,
    StepCheck,
    StepConfig,
    StepOutcome,
    best_placement,
    distribution,
    distribution_after,
    roll,
    spend_after,
)
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, Paid, SheetView, pay
from dicebound.tagpass import resolve_text
from dicebound.tags.parse import parse_tags
from oracles import bf_step_effort, bf_step_pool, enumerate_throws
from repo_paths import REPO
from shared_files import shared_path

DATA = REPO / "src" / "dicebound" / "data"
REFERENCE = DATA / "rulesets" / "advanced-resolution.json"
CHARACTERS = DATA / "characters" / "advanced-resolution"


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data


RULESET = compile_ruleset(_raw())


def _load(name: str, ruleset: Ruleset = RULESET) -> Character:
    return load_character(ruleset, json.loads((CHARACTERS / name).read_text(encoding="utf-8")))


PEET = _load("peet.json")
MAUD = _load("maud.json")


def _character(
    name: str,
    build: dict[str, Any],
    live: dict[str, Any] | None = None,
    ruleset: Ruleset = RULESET,
) -> Character:
    full: dict[str, Any] = {
        "abilities": {},
        "skills": {},
        "saves": {},
        "bonuses": {},
        "fields": {},
        "lists": {},
    }
    full.update(build)
    raw = {"name": name, "sheet": {"v": 1, "build": full}, "live": live or {}}
    return load_character(ruleset, raw)


def _edited(edit: dict[str, Any]) -> Ruleset:
    """The reference ruleset with some resolution keys replaced (None removes one)."""
    raw = _raw()
    for key, value in edit.items():
        if value is None:
            raw["resolution"].pop(key, None)
        else:
            raw["resolution"][key] = value
    return compile_ruleset(raw)


def _check(tag: str, who: Character = PEET, ruleset: Ruleset = RULESET) -> StepCheck:
    (match,) = parse_tags(f"[skill_check: {tag}]")
    check = prepare_check(ruleset, [who], match).prepared.check
    assert isinstance(check, StepCheck)
    return check


def _band(outcome: StepOutcome) -> str:
    bands = RULESET.resolution.outcomes
    assert bands is not None
    return read_band(bands, value=outcome.total).label


def _thrown(check: StepCheck, faces: list[int]) -> tuple[StepOutcome, dict[str, str]]:
    rolled = roll(check, ForcedFaces(faces))
    assert isinstance(rolled.outcome, StepOutcome)
    return rolled.outcome, dict(rolled.extras)


PEET_LOCK = 'skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"'


# -- the reference ruleset ----------------------------------------------------------------


def test_the_packaged_ruleset_is_the_reference() -> None:
    shared = shared_path("rulesets", "advanced-resolution.json")
    assert json.loads(shared.read_text(encoding="utf-8")) == _raw()


def test_the_reference_compiles_to_the_rule() -> None:
    config = RULESET.resolution.config
    assert isinstance(config, StepConfig)
    assert config.steps == (4, 6, 8, 10, 12)  # "from 1d4 to 1d12"
    assert config.training_count == 2  # "Two TRAINING DICE"
    assert (config.target_default, config.target_min, config.target_max) == (4, 2, 12)
    assert config.quality_label and config.tool_label and config.tool_max == 4
    assert config.spend == (SpendRate("body", 1), SpendRate("mind", 1), SpendRate("luck", 1))
    assert {s.label: s.dc for s in RULESET.resolution.ladder}["Uncommon"] == 6
    bands = RULESET.resolution.outcomes
    assert bands is not None and bands.by == "total"
    assert [(b.label, b.success, b.choice) for b in bands.tiers] == [
        ("Triumph", True, False),
        ("Success", True, False),
        ("Sacrifice", False, True),
        ("Botch", False, False),
    ]


def test_the_kind_is_registered_and_fits_the_interface() -> None:
    compiler: KindCompiler = KIND
    player: KindPlayer = PLAYER
    assert kind_compiler("step-pool") is compiler
    assert kind_player("step-pool") is player


def test_a_packaged_ruleset_declares_1_200() -> None:
    compile_ruleset(_raw(), capability_api="1.200")
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(_raw(), capability_api="1.199")
    assert [(p.where, p.code) for p in caught.value.problems] == [
        ("resolution.kind", "needs-capability")
    ]
    assert "1.200" in caught.value.problems[0].message


# -- the rule's own example, exactly --------------------------------------------------------


def test_peets_lock_is_the_rules_example() -> None:
    check = _check(PEET_LOCK)
    # "Peet's TALENT ... is 1d10", "his additional dice are 2d6", "the lock is a TN6".
    assert (check.talent, check.training, check.dice, check.target) == (10, 6, (10, 6, 6), 6)
    # "His Agility QUALITY MODIFIER is a 1", "picks ... of Uncommon WORKMANSHIP ... +1".
    assert (check.quality, check.quality_field, check.tool) == (1, "agility", 1)
    # "The d10 comes up a 5, and one of the d6 is a 1, but the last d6 ... on a 6."
    outcome, extras = _thrown(check, [5, 1, 6])
    # The 6 counts; the agility +1 turns the 5 into a 6; the picks' +1 would only make
    # the 1 a 2, so they go unused: "2 EFFORT, and that results in a SUCCESS".
    assert outcome.total == 2 and _band(outcome) == "Success"
    assert extras["quality"] == "agility:+1@1"
    assert extras["tool"] == "+1"
    assert extras["effort"] == "2"
    assert extras["raises"] == "+1|0|0"
    # "He could also spend 5 points of LUCK or BODY (or ... MIND)."
    assert extras["offer"] == "Triumph: 5 from body, mind or luck"

    # Spending luck:5 turns the 1 into a 6: a Triumph, and Luck falls by 5.
    view = SheetView(RULESET, PEET)
    after = spend_after(check, outcome, "luck", 5, view)
    assert after.cost == ("luck", 5)
    assert after.outcome.total == 3 and _band(after.outcome) == "Triumph"
    assert dict(after.extras)["after"] == "luck:5@2"
    assert dict(after.extras)["raises"] == "+1|+5|0"
    assert "offer" not in dict(after.extras)
    paid = pay(RULESET, PEET, [after.cost])
    assert isinstance(paid, Paid)
    assert [(c.pool, c.from_, c.to) for c in paid.changes] == [("luck", 6, 1)]

    # luck:4 cannot close the 1's gap of 5: nothing is paid and it stays a Success.
    short = spend_after(check, outcome, "luck", 4, view)
    assert short.cost is None
    assert short.outcome.total == 2 and _band(short.outcome) == "Success"
    assert short.rolled.extras == roll(check, ForcedFaces([5, 1, 6])).extras
    assert "5" in short.message


def test_peets_lock_through_the_engine() -> None:
    report = resolve_text(RULESET, [PEET], f"[skill_check: {PEET_LOCK}]", faces=[5, 1, 6])
    (item,) = report.items
    assert isinstance(item, CheckResult)
    assert (item.outcome, item.success, item.choice) == ("Success", True, None)
    attrs = item.record.as_dict()
    assert (attrs["dc"], attrs["rolls"], attrs["dice"], attrs["total"]) == (
        "6",
        "5|1|6",
        "1d10+2d6",
        "2",
    )
    assert attrs["resolution"] == "successes" and attrs["modifier"] == "0"
    assert attrs["offer"] == "Triumph: 5 from body, mind or luck"


def test_the_odds_of_peets_lock_are_exact() -> None:
    odds = check_odds(RULESET, PEET, PEET_LOCK)
    by = {o.label: o.probability for o in odds.outcomes}
    expected = bf_step_pool((10, 6, 6), 6, quality=1, tool=1)
    assert by == {
        "Triumph": expected.get(3, Fraction(0)),
        "Success": expected[2],
        "Sacrifice": expected[1],
        "Botch": expected[0],
    }
    assert odds.success == by["Triumph"] + by["Success"]


# -- the process, step by step, with forced faces ------------------------------------------

ALL_POOLS = (SpendRate("body", 1), SpendRate("mind", 1), SpendRate("luck", 1))
BASE = StepCheck(StepConfig(spend=ALL_POOLS), talent=10, training=6, target=6)

# (id, check, faces, EFFORT, record quality, record tool, record raises)
PLACEMENT_ROWS: list[tuple[str, StepCheck, list[int], int, str | None, str | None, str | None]] = [
    ("dice that match or beat the TN count", BASE, [6, 6, 5], 2, None, None, None),
    ("a die above the TN counts once", BASE, [10, 1, 1], 1, None, None, None),
    (
        "the quality modifier raises one die only",
        StepCheck(BASE.config, 10, 6, 6, quality=1, quality_field="agility"),
        [5, 5, 5],
        1,
        "agility:+1@1",
        None,
        "+1|0|0",
    ),
    (
        "the tool raises another die",
        StepCheck(BASE.config, 10, 6, 6, quality=1, quality_field="agility", tool=1),
        [5, 5, 5],
        2,
        "agility:+1@1",
        "+1@2",
        "+1|+1|0",
    ),
    (
        "no one die takes two modifiers",
        StepCheck(BASE.config, 10, 6, 6, quality=1, quality_field="agility", tool=1),
        [4, 1, 1],
        0,
        "agility:+1",
        "+1",
        None,
    ),
    (
        "a raise that reaches no TN is not applied",
        StepCheck(BASE.config, 10, 6, 6, tool=1),
        [1, 6, 6],
        2,
        None,
        "+1",
        None,
    ),
    (
        "a raise never goes on a die that already counts",
        StepCheck(BASE.config, 10, 6, 6, quality=3, quality_field="agility"),
        [9, 6, 2],
        2,
        "agility:+3",
        None,
        None,
    ),
    (
        "each raise goes where it makes the most EFFORT",
        StepCheck(BASE.config, 10, 6, 6, quality=2, quality_field="agility", tool=1),
        [5, 4, 1],
        2,
        "agility:+2@2",
        "+1@1",
        "+1|+2|0",
    ),
    (
        "a negative quality is never applied",
        StepCheck(BASE.config, 10, 6, 6, quality=-1, quality_field="will"),
        [6, 5, 5],
        1,
        "will:-1",
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("check", "faces", "effort", "quality", "tool", "raises"),
    [r[1:] for r in PLACEMENT_ROWS],
    ids=[r[0] for r in PLACEMENT_ROWS],
)
def test_raises_after_the_roll(
    check: StepCheck,
    faces: list[int],
    effort: int,
    quality: str | None,
    tool: str | None,
    raises: str | None,
) -> None:
    outcome, extras = _thrown(check, faces)
    assert outcome.total == effort
    assert extras.get("quality") == quality
    assert extras.get("tool") == tool
    assert extras.get("raises") == raises
    assert extras["effort"] == str(effort)
    assert outcome.faces == tuple(faces)
    assert effort == bf_step_effort(faces, check.target, check.quality, check.tool)[0]


@pytest.mark.parametrize(
    ("faces", "band"),
    [
        ([1, 1, 1], "Botch"),
        ([6, 1, 1], "Sacrifice"),
        ([6, 6, 1], "Success"),
        ([6, 6, 6], "Triumph"),
    ],
    ids=["zero EFFORT is a botch", "one a sacrifice", "two a success", "three a triumph"],
)
def test_effort_reads_the_rules_results(faces: list[int], band: str) -> None:
    outcome, _ = _thrown(BASE, faces)
    assert _band(outcome) == band


def test_a_sacrifice_leaves_the_choice_open() -> None:
    # "in the case of a SACRIFICE, the PLAYER decides": success waits on the choice.
    report = resolve_text(
        RULESET, [PEET], '[skill_check: skill="Lockpick" dc="6"]', faces=[6, 1, 1]
    )
    (item,) = report.items
    assert isinstance(item, CheckResult)
    assert (item.outcome, item.success, item.choice) == ("Sacrifice", False, "open")


def test_the_talent_die_is_thrown_first_then_the_training_dice() -> None:
    check = _check('skill="Lockpick" dc="6"')
    outcome, _ = _thrown(check, [10, 6, 6])  # a d10 face 10 first, then the d6s
    assert outcome.total == 3
    with pytest.raises(DiceError):
        roll(check, ForcedFaces([5, 7, 1]))  # a second die of 7 faces: it is a d6


# (id, build, tag, talent, training)
DICE_ROWS: list[tuple[str, dict[str, Any], str, int, int]] = [
    ("affinity 0 picks the first step", {"abilities": {"skilled": 0}}, "Lockpick", 4, 4),
    ("affinity 4 picks the fifth step", {"abilities": {"skilled": 4}}, "Lockpick", 12, 4),
    (
        "untrained throws the first step",
        {"abilities": {"skilled": 2}, "skills": {"lockpick": "untrained"}},
        "Lockpick",
        8,
        4,
    ),
    (
        "apprentice throws 2d6",
        {"abilities": {"skilled": 2}, "skills": {"lockpick": "apprentice"}},
        "Lockpick",
        8,
        6,
    ),
    (
        "journeyman throws 2d8",
        {"abilities": {"skilled": 2}, "skills": {"lockpick": "journeyman"}},
        "Lockpick",
        8,
        8,
    ),
    (
        "expert throws 2d10",
        {"abilities": {"skilled": 2}, "skills": {"lockpick": "expert"}},
        "Lockpick",
        8,
        10,
    ),
    (
        "master throws 2d12",
        {"abilities": {"skilled": 2}, "skills": {"lockpick": "master"}},
        "Lockpick",
        8,
        12,
    ),
    (
        "an ability check throws untrained training dice",
        {"abilities": {"skilled": 3}, "skills": {"lockpick": "master"}},
        "Skilled",
        10,
        4,
    ),
    (
        "a bonus raises the training number",
        {
            "abilities": {"skilled": 2},
            "skills": {"lockpick": "apprentice"},
            "bonuses": {"lockpick": 2},
        },
        "Lockpick",
        8,
        10,
    ),
    (
        "a number past the last step is held to it",
        {"abilities": {"skilled": 2}, "skills": {"lockpick": "master"}, "bonuses": {"lockpick": 5}},
        "Lockpick",
        8,
        12,
    ),
    (
        "a number below the first step is held to it",
        {
            "abilities": {"skilled": 2},
            "skills": {"lockpick": "apprentice"},
            "bonuses": {"lockpick": -4},
        },
        "Lockpick",
        8,
        4,
    ),
]


@pytest.mark.parametrize(
    ("build", "name", "talent", "training"),
    [r[1:] for r in DICE_ROWS],
    ids=[r[0] for r in DICE_ROWS],
)
def test_the_sheet_picks_the_dice(
    build: dict[str, Any], name: str, talent: int, training: int
) -> None:
    who = _character("Tester", build)
    check = _check(f'skill="{name}" dc="6"', who)
    assert (check.talent, check.training) == (talent, training)
    assert check.dice == (talent, training, training)


def test_with_swaps_the_talent_ability() -> None:
    who = _character("Tester", {"abilities": {"skilled": 0, "martial": 4}})
    check = _check('skill="Lockpick" with="Martial" dc="6"', who)
    assert check.talent == 12
    report = resolve_text(
        RULESET, [who], '[skill_check: skill="Lockpick" with="Martial" dc="6"]', faces=[1, 1, 1]
    )
    (item,) = report.items
    assert isinstance(item, CheckResult)
    assert item.record.as_dict()["with"] == "Martial"


def test_untrained_rules_move_the_target_and_the_training_dice() -> None:
    raw = _raw()
    raw["sheet"]["skills"][0]["untrained"] = "harder"  # lockpick
    raw["sheet"]["skills"][1]["untrained"] = {"by": 2}  # sneak
    ruleset = compile_ruleset(raw)
    who = _character("Tester", {"abilities": {"skilled": 1}}, ruleset=ruleset)
    harder = _check('skill="Lockpick" difficulty="Normal"', who, ruleset)
    assert harder.target == 6  # one step up the ladder from Normal (4): Uncommon
    by = _check('skill="Sneak" difficulty="Normal"', who, ruleset)
    assert (by.target, by.training) == (4, 8)  # untrained 0, by 2: the third step


# (id, tag, target)
TARGET_ROWS = [
    ("dc= is the target", 'dc="8"', 8),
    ("dc= above the range is held to its max", 'dc="20"', 12),
    ("dc= below the range is held to its min", 'dc="0"', 2),
    ("difficulty= reads a workmanship step", 'difficulty="Rare"', 8),
    ("difficulty= in any case", 'difficulty="mythic"', 12),
    ("dc= wins over difficulty=", 'dc="3" difficulty="Rare"', 3),
    ("no difficulty reads the default target", "", 4),
]


@pytest.mark.parametrize(
    ("tag", "target"), [r[1:] for r in TARGET_ROWS], ids=[r[0] for r in TARGET_ROWS]
)
def test_the_target_number(tag: str, target: int) -> None:
    assert _check(f'skill="Lockpick" {tag}').target == target


def test_a_difficulty_no_step_answers_to_is_refused() -> None:
    with pytest.raises(TagError, match="names no single step"):
        _check('skill="Lockpick" difficulty="Uncomon"')


# (id, tag, quality field, quality, tool)
ASK_ROWS: list[tuple[str, str, str | None, int, int]] = [
    ("quality by field id", 'quality="agility"', "agility", 1, 0),
    ("quality by field label", 'quality="Body/Agility"', "agility", 1, 0),
    ("quality in any case", 'quality="WITS"', "wits", 1, 0),
    ("a negative quality is read as it stands", 'quality="will"', "will", -1, 0),
    ("a record's quality reads back as its field", 'quality="agility:+1@1"', "agility", 1, 0),
    ("tool is a whole number", 'tool="3"', None, 0, 3),
    ("tool above max is held to it", 'tool="9"', None, 0, 4),
    ("a negative tool is held to 0", 'tool="-2"', None, 0, 0),
    ("a tool that is not a number is ignored", 'tool="fine picks"', None, 0, 0),
    ("a record's tool reads back as its number", 'tool="+2@3"', None, 0, 2),
]


@pytest.mark.parametrize(
    ("tag", "field", "quality", "tool"), [r[1:] for r in ASK_ROWS], ids=[r[0] for r in ASK_ROWS]
)
def test_quality_and_tool_asks(tag: str, field: str | None, quality: int, tool: int) -> None:
    check = _check(f'skill="Lockpick" dc="6" {tag}')
    assert (check.quality_field, check.quality, check.tool) == (field, quality, tool)


def test_an_unknown_quality_is_refused_with_a_suggestion() -> None:
    with pytest.raises(TagError) as caught:
        _check('skill="Lockpick" dc="6" quality="agilty"')
    assert 'Did you mean "agility"?' in caught.value.message
    report = resolve_text(
        RULESET, [PEET], '[skill_check: skill="Lockpick" quality="agilty"]', seed=1
    )
    # Nothing thrown or paid: the tag is written back with the ask only.
    assert not report.results
    assert report.text == '[skill_check: skill="Lockpick" quality="agilty"]'


def test_a_quality_that_is_not_a_number_field_is_refused() -> None:
    raw = _raw()
    raw["sheet"]["fields"].append(
        {"id": "trade", "label": "Trade", "type": "text", "maxLength": 40}
    )
    ruleset = compile_ruleset(raw)
    who = _character("Tester", {}, ruleset=ruleset)
    with pytest.raises(TagError, match="a text field"):
        _check('skill="Lockpick" dc="6" quality="trade"', who, ruleset)


def test_what_the_ruleset_does_not_offer_is_ignored() -> None:
    ruleset = _edited({"afterRoll": {"spend": [{"pool": "luck", "rate": 1}]}})
    who = _character("Tester", {"fields": {"agility": 2}}, ruleset=ruleset)
    check = _check('skill="Lockpick" dc="6" quality="nonsense" tool="3"', who, ruleset)
    assert (check.quality_field, check.quality, check.tool) == (None, 0, 0)


# -- spending after the roll -----------------------------------------------------------------

VIEW = SheetView(RULESET, PEET)


def _spend(
    check: StepCheck, faces: list[int], pool: str, points: int, view: SheetView = VIEW
) -> Any:
    outcome, _ = _thrown(check, faces)
    return spend_after(check, outcome, pool, points, view)


def test_spending_places_every_raise_afresh() -> None:
    # Agility +5 first goes on the 5 (it needs 1); luck:1 can pay for that 1 only if the
    # quality moves to the other die, which needs 5: both then count.
    check = StepCheck(BASE.config, 10, 6, 6, quality=5, quality_field="agility")
    outcome, extras = _thrown(check, [5, 1, 2])
    assert (outcome.total, extras["quality"]) == (1, "agility:+5@1")
    after = spend_after(check, outcome, "luck", 1, VIEW)
    assert after.cost == ("luck", 1)
    assert after.outcome.total == 2
    assert dict(after.extras)["quality"] == "agility:+5@2"
    assert dict(after.extras)["after"] == "luck:1@1"


def test_spending_pays_the_fewest_points() -> None:
    after = _spend(BASE, [3, 5, 6], "body", 5)
    assert after.cost == ("body", 1)  # the 5 needs 1, the 3 needs 3
    assert dict(after.extras)["after"] == "body:1@2"


def test_spending_pays_only_when_the_effort_rises() -> None:
    after = _spend(BASE, [6, 6, 6], "luck", 5)
    assert after.cost is None and after.outcome.total == 3
    assert "no raise can add EFFORT" in after.message


def test_spending_is_held_to_what_the_pool_holds() -> None:
    view = SheetView(RULESET, MAUD)  # Maud holds 2 luck
    after = _spend(BASE, [3, 1, 1], "luck", 5, view)
    assert after.cost is None
    assert "holds 2" in after.message
    assert _spend(BASE, [4, 1, 1], "luck", 5, view).cost == ("luck", 2)


def test_a_rate_multiplies_the_points() -> None:
    config = StepConfig(spend=(SpendRate("mind", 2),))
    check = StepCheck(config, 10, 6, 6)
    assert _spend(check, [4, 1, 1], "mind", 3).cost is None  # +2 costs 4
    paid = _spend(check, [4, 1, 1], "mind", 4)
    assert paid.cost == ("mind", 4) and dict(paid.extras)["raises"] == "+2|0|0"


def test_a_pool_is_named_in_any_case() -> None:
    assert _spend(BASE, [5, 1, 1], "LUCK", 1).cost == ("luck", 1)


def test_spend_refusals() -> None:
    outcome, _ = _thrown(BASE, [5, 1, 1])
    with pytest.raises(TagError, match='Did you mean "luck"'):
        spend_after(BASE, outcome, "lucky", 1, VIEW)
    with pytest.raises(TagError, match="1 or more"):
        spend_after(BASE, outcome, "luck", 0, VIEW)
    spent = spend_after(BASE, outcome, "luck", 1, VIEW)
    with pytest.raises(TagError, match="one spend"):
        spend_after(BASE, spent.outcome, "body", 5, VIEW)
    with pytest.raises(UsageError):
        spend_after(BASE, StepOutcome(1, True), "luck", 1, VIEW)
    bare = StepCheck(StepConfig(), 10, 6, 6)  # a ruleset without afterRoll.spend
    bare_outcome, _ = _thrown(bare, [5, 1, 1])
    with pytest.raises(TagError, match="no spending"):
        spend_after(bare, bare_outcome, "luck", 1, VIEW)


# (id, holdings, faces, offer)
OFFER_ROWS: list[tuple[str, tuple[tuple[str, int], ...], list[int], str | None]] = [
    (
        "every pool that holds enough",
        (("body", 10), ("mind", 10), ("luck", 6)),
        [5, 1, 6],
        "Success: 1 from body, mind or luck",
    ),
    (
        "only the pools that hold enough",
        (("body", 10), ("mind", 0), ("luck", 2)),
        [1, 1, 6],
        "Success: 5 from body",
    ),
    ("no pool holds enough", (("body", 3), ("mind", 3), ("luck", 3)), [1, 1, 6], None),
    ("no better band is left", (("body", 10), ("mind", 10), ("luck", 6)), [6, 6, 6], None),
]


@pytest.mark.parametrize(
    ("holdings", "faces", "offer"), [r[1:] for r in OFFER_ROWS], ids=[r[0] for r in OFFER_ROWS]
)
def test_the_record_offers_the_next_band(
    holdings: tuple[tuple[str, int], ...], faces: list[int], offer: str | None
) -> None:
    check = StepCheck(
        RULESET.resolution.config, 10, 6, 6, holdings=holdings, bands=RULESET.resolution.outcomes
    )
    _, extras = _thrown(check, faces)
    assert extras.get("offer") == offer


def test_offers_group_pools_by_cost() -> None:
    config = StepConfig(spend=(SpendRate("luck", 2), SpendRate("body", 1)))
    check = StepCheck(config, 10, 6, 6, holdings=(("luck", 10), ("body", 10)))
    _, extras = _thrown(check, [1, 1, 4])
    assert extras["offer"] == "1 EFFORT: 2 from body, 4 from luck"  # no bands: the EFFORT


@settings(max_examples=examples(300), deadline=None)
@given(
    faces=st.lists(st.integers(1, 12), min_size=3, max_size=5),
    target=st.integers(2, 12),
    quality=st.integers(-2, 5),
    tool=st.integers(0, 4),
    points=st.integers(1, 12),
)
def test_spending_matches_the_brute_force(
    faces: list[int], target: int, quality: int, tool: int, points: int
) -> None:
    config = StepConfig(training_count=len(faces) - 1, target_max=12, spend=(SpendRate("body", 1),))
    check = StepCheck(config, 12, 12, target, quality=quality, quality_field="agility", tool=tool)
    outcome, _ = _thrown(check, faces)
    free = bf_step_effort(faces, target, quality, tool)
    assert outcome.total == free[0]
    after = spend_after(check, outcome, "body", points, VIEW)
    best = bf_step_effort(faces, target, quality, tool, min(points, 10))
    assert after.outcome.total == best[0]
    expected_cost = ("body", best[1]) if best[0] > free[0] else None
    assert after.cost == expected_cost


# -- exact odds -------------------------------------------------------------------------------

# (id, dice sides in throw order, target, quality, tool, spend most)
ODDS_ROWS: list[tuple[str, tuple[int, ...], int, int, int, int]] = [
    ("peet's lock", (10, 6, 6), 6, 1, 1, 0),
    ("no raises at all", (8, 8, 8), 5, 0, 0, 0),
    ("a big quality", (4, 6, 6), 6, 4, 0, 0),
    ("a tool and a negative quality", (12, 4, 4), 4, -1, 2, 0),
    ("a target above every face", (6, 4, 4), 8, 3, 4, 0),
    ("three training dice", (6, 8, 8, 8), 7, 1, 2, 0),
    ("one training die", (12, 4), 3, 2, 1, 0),
    ("the target is the lowest", (4, 4, 4), 2, 1, 1, 0),
    ("a spend of up to 5", (10, 6, 6), 6, 1, 1, 5),
    ("a spend of up to 2, no free raise", (8, 8, 8), 7, 0, 0, 2),
    ("a spend beside a big tool", (6, 4, 4, 4), 6, 2, 4, 3),
]


@pytest.mark.parametrize(
    ("dice", "target", "quality", "tool", "most"),
    [r[1:] for r in ODDS_ROWS],
    ids=[r[0] for r in ODDS_ROWS],
)
def test_odds_equal_the_brute_force(
    dice: tuple[int, ...], target: int, quality: int, tool: int, most: int
) -> None:
    steps = tuple(sorted(set(dice)))
    config = StepConfig(
        steps=steps, training_count=len(dice) - 1, target_max=12, spend=(SpendRate("luck", 1),)
    )
    check = StepCheck(config, dice[0], dice[1], target, quality, "agility", tool)
    dist = distribution_after(check, "luck", most, most) if most else distribution(check)
    got = {o.total: p for o, p in dist.probabilities().items()}
    assert got == bf_step_pool(dice, target, quality, tool, most)
    assert sum(got.values()) == 1


@settings(max_examples=examples(40), deadline=None)
@given(
    talent=st.sampled_from((2, 3, 4, 6)),
    training=st.sampled_from((2, 3, 4, 6)),
    count=st.integers(1, 2),
    target=st.integers(2, 8),
    quality=st.integers(-1, 4),
    tool=st.integers(0, 3),
    most=st.integers(0, 6),
)
def test_any_small_check_equals_the_brute_force(
    talent: int, training: int, count: int, target: int, quality: int, tool: int, most: int
) -> None:
    config = StepConfig(
        steps=tuple(sorted({talent, training})),
        training_count=count,
        target_max=8,
        spend=(SpendRate("luck", 1),),
    )
    check = StepCheck(config, talent, training, target, quality, "agility", tool)
    got = {
        o.total: p for o, p in distribution_after(check, "luck", most, most).probabilities().items()
    }
    assert got == bf_step_pool(check.dice, target, quality, tool, most)


@pytest.mark.parametrize(
    ("dice", "target", "quality", "tool"),
    [r[1:5] for r in ODDS_ROWS[:8]],
    ids=[r[0] for r in ODDS_ROWS[:8]],
)
def test_odds_equal_what_roll_does(
    dice: tuple[int, ...], target: int, quality: int, tool: int
) -> None:
    config = StepConfig(steps=tuple(sorted(set(dice))), training_count=len(dice) - 1, target_max=12)
    check = StepCheck(config, dice[0], dice[1], target, quality, "agility", tool)
    thrown = enumerate_throws(lambda d: roll(check, d).outcome)
    assert thrown == distribution(check).probabilities()


def test_the_odds_of_a_spend_follow_the_rate_and_the_pool() -> None:
    config = StepConfig(spend=(SpendRate("luck", 2),))
    check = StepCheck(config, 10, 6, 6)
    # 5 points at rate 2 buy +2, and a pool of 3 holds back a spend of 9 to +1.
    assert distribution_after(check, "luck", 5, 10) == distribution_after(check, "luck", 4, 4)
    assert distribution_after(check, "luck", 9, 3) == distribution_after(check, "luck", 2, 2)
    assert distribution_after(check, "luck", 1, 10) == distribution(check)
    with pytest.raises(TagError):
        distribution_after(check, "body", 5, 5)


def test_the_largest_check_stays_fast() -> None:
    # Seven d20s against 21 with every raise at +20: the walk keeps only a few deficits.
    config = StepConfig(
        steps=(4, 20), training_count=6, target_max=100, spend=(SpendRate("luck", 1),)
    )
    check = StepCheck(config, 20, 20, 15, quality=8, quality_field="agility", tool=20)
    dist = distribution_after(check, "luck", 100, 100)
    assert sum(dist.probabilities().values()) == 1


@settings(max_examples=examples(60), deadline=None)
@given(
    quality=st.integers(0, 4),
    tool=st.integers(0, 4),
    target=st.integers(2, 12),
)
def test_a_better_quality_never_lowers_the_effort(quality: int, tool: int, target: int) -> None:
    def at_least(q: int, e: int) -> Fraction:
        check = StepCheck(StepConfig(), 8, 6, target, q, "agility", tool)
        return distribution(check).probability_where(lambda o: o.total >= e)

    for effort in range(1, 4):
        assert at_least(quality + 1, effort) >= at_least(quality, effort)


def test_best_placement_prefers_the_first_die_and_the_quality() -> None:
    assert best_placement([1, 1, 0], 1, 1) == (2, 0, 1, None)
    assert best_placement([2, 1], 1, 0) == (1, 1, None, None)
    assert best_placement([0, 0], 3, 3, 3) == (0, None, None, None)


def test_a_thrown_outcome_equals_its_distribution_outcome() -> None:
    outcome, _ = _thrown(BASE, [6, 6, 1])
    assert outcome == StepOutcome(2, True)
    assert outcome in distribution(BASE)


def test_checks_refuse_what_cannot_be_thrown() -> None:
    with pytest.raises(UsageError):
        StepCheck(StepConfig(), 1, 6, 6)
    with pytest.raises(UsageError):
        StepCheck(StepConfig(), 6, 6, 6, tool=-1)
    with pytest.raises(UsageError):
        StepConfig(steps=(6, 4))
    with pytest.raises(UsageError):
        StepConfig(steps=(5,))
    with pytest.raises(UsageError):
        StepConfig(training_count=7)


# -- import refusals ---------------------------------------------------------------------------

R = "resolution"

# (id, change to the resolution block, expected (path, code) problems)
REFUSAL_ROWS: list[tuple[str, dict[str, Any], set[tuple[str, str]]]] = [
    (
        "steps not ascending",
        {"steps": [4, 8, 6]},
        {(f"{R}.steps[2]", "not-ascending")},
    ),
    (
        "a step repeated",
        {"steps": [4, 6, 6, 8]},
        {(f"{R}.steps[2]", "not-ascending")},
    ),
    ("a step that is not a die size", {"steps": [4, 5, 8]}, {(f"{R}.steps[1]", "not-a-die")}),
    ("no steps", {"steps": []}, {(f"{R}.steps", "too-few")}),
    (
        "training count above 6",
        {"training": {"label": "T", "count": 7}},
        {(f"{R}.training.count", "too-large")},
    ),
    (
        "training count below 1",
        {"training": {"label": "T", "count": 0}},
        {(f"{R}.training.count", "too-small")},
    ),
    ("no talent", {"talent": None}, {(R, "missing-key")}),
    (
        "target default outside min..max",
        {"target": {"default": 13, "min": 2, "max": 12}},
        {(f"{R}.target.default", "outside-target")},
    ),
    (
        "target min above max",
        {"target": {"default": 6, "min": 8, "max": 6}},
        {(f"{R}.target.min", "min-above-max")},
    ),
    (
        "a target of 1 always counts",
        {"target": {"default": 4, "min": 1, "max": 12}},
        {(f"{R}.target.min", "too-small")},
    ),
    (
        "a ladder dc outside the target range",
        {"difficultyLadder": [{"label": "Crude", "dc": 2}, {"label": "Divine", "dc": 14}]},
        {(f"{R}.difficultyLadder[1].dc", "outside-target")},
    ),
    (
        "a spend pool that is not a live pool",
        {"afterRoll": {"spend": [{"pool": "bodie", "rate": 1}]}},
        {(f"{R}.afterRoll.spend[0].pool", "unknown-id")},
    ),
    (
        "two spend entries on one pool",
        {"afterRoll": {"spend": [{"pool": "luck", "rate": 1}, {"pool": "luck", "rate": 2}]}},
        {(f"{R}.afterRoll.spend[1].pool", "duplicate-pool")},
    ),
    (
        "a rate of 0",
        {"afterRoll": {"spend": [{"pool": "luck", "rate": 0}]}},
        {(f"{R}.afterRoll.spend[0].rate", "too-small")},
    ),
    ("an empty afterRoll", {"afterRoll": {}}, {(f"{R}.afterRoll", "missing-key")}),
    (
        "a tool with max 0",
        {"afterRoll": {"tool": {"label": "Tool", "max": 0}}},
        {(f"{R}.afterRoll.tool.max", "too-small")},
    ),
    (
        "resolution.spend beside step-pool",
        {"spend": [{"pool": "luck", "amount": 1, "perCheck": 1, "dice": 1}]},
        {(f"{R}.spend", "misplaced-key")},
    ),
    (
        "adjust beside step-pool",
        {"adjust": [{"value": {"const": 1}}]},
        {(f"{R}.adjust", "not-for-kind")},
    ),
    (
        "bands read by margin",
        {
            "outcomes": {
                "by": "margin",
                "tiers": [
                    {"id": "won", "label": "Won", "atLeast": 0, "success": True},
                    {"id": "lost", "label": "Lost"},
                ],
            }
        },
        {(f"{R}.outcomes.by", "by-not-for-kind")},
    ),
]


@pytest.mark.parametrize(
    ("edit", "expected"), [r[1:] for r in REFUSAL_ROWS], ids=[r[0] for r in REFUSAL_ROWS]
)
def test_import_refusals(edit: dict[str, Any], expected: set[tuple[str, str]]) -> None:
    with pytest.raises(RulesetInvalid) as caught:
        _edited(edit)
    assert {(p.where, p.code) for p in caught.value.problems} == expected


def test_refusal_sentences_name_the_value_and_the_rule() -> None:
    with pytest.raises(RulesetInvalid) as caught:
        _edited({"afterRoll": {"spend": [{"pool": "bodie", "rate": 1}]}})
    assert caught.value.problems[0].message == (
        '"bodie" is not a live pool of this ruleset. Did you mean "body"?'
    )
    with pytest.raises(RulesetInvalid) as caught:
        _edited({"steps": [4, 5, 8]})
    assert caught.value.problems[0].message == (
        "5 is not a die size; a step is a die of 2, 3, 4, 6, 8, 10, 12 or 20 sides."
    )


def test_a_spend_pool_that_starts_empty_is_refused() -> None:
    raw = _raw()
    raw["sheet"]["live"]["pools"].append(
        {"id": "strain", "label": "Strain", "max": {"const": 5}, "start": "empty"}
    )
    raw["resolution"]["afterRoll"]["spend"].append({"pool": "strain", "rate": 1})
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(raw)
    assert [(p.where, p.code) for p in caught.value.problems] == [
        (f"{R}.afterRoll.spend[3].pool", "pool-starts-empty")
    ]


def test_a_layer_ladder_is_held_to_the_target_range() -> None:
    raw = _raw()
    raw["layers"] = [
        {"id": "grim", "label": "Grim", "difficultyLadder": [{"label": "Dire", "dc": 13}]}
    ]
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(raw)
    assert [(p.where, p.code) for p in caught.value.problems] == [
        ("layers[0].difficultyLadder[0].dc", "outside-target")
    ]


def test_every_refusal_is_collected_at_once() -> None:
    edit = {"steps": [4, 3, 7], "target": {"default": 20, "min": 2, "max": 12}}
    with pytest.raises(RulesetInvalid) as caught:
        _edited(edit)
    assert [(p.where, p.code) for p in caught.value.problems] == [
        (f"{R}.steps[1]", "not-ascending"),
        (f"{R}.steps[2]", "not-a-die"),
        (f"{R}.target.default", "outside-target"),
    ]
