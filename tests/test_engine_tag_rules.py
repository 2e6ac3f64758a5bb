"""The tag's rules, one row each, with forced faces (docs/design/format.md "The check
tag", docs/guide/tag.md "The tag a model writes"), on the packaged fifth edition ruleset.

Mira: Dexterity 17 (+3), level 5 (proficiency +3), Stealth with expertise (+6): +9.
Bram: Strength 16 (+3), level 3 (+2), Athletics proficient: +5; Survival half: +1+1.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckFailure, CheckResult
from dicebound.errors import UsageError
from dicebound.tagpass import resolve_text
from dicebound.tags.parse import parse_tags

RULESET = read_ruleset("dnd5e-srd")
MIRA = read_character(RULESET, "dnd5e-srd/mira")
BRAM = read_character(RULESET, "dnd5e-srd/bram")
PARTY = [MIRA, BRAM]


@dataclass(frozen=True)
class Row:
    rule: str
    tag: str
    faces: tuple[int, ...]
    expect: dict[str, str]


ROWS = [
    Row(
        "skill= by label",
        'skill="Stealth" dc="15"',
        (6,),
        {"skill": "Stealth", "modifier": "9", "total": "15", "result": "success"},
    ),
    Row(
        "skill= by id, any case",
        "skill=SLEIGHT_OF_HAND dc=10",
        (5,),
        {"skill": "Sleight of Hand", "modifier": "6", "total": "11"},
    ),
    Row(
        "skill= with a check suffix",
        'skill="stealth check" dc="15"',
        (5,),
        {"skill": "Stealth", "total": "14", "result": "failure"},
    ),
    Row(
        "skill= an ability by short name is a raw ability check",
        'skill="DEX" dc="10"',
        (7,),
        {"skill": "Dexterity", "modifier": "3", "total": "10"},
    ),
    Row(
        "skill= 'Dexterity check' is an ability check",
        'skill="Dexterity check" dc="10"',
        (7,),
        {"skill": "Dexterity", "modifier": "3"},
    ),
    Row(
        "skill= 'Dexterity save' is the save",
        'skill="Dexterity save" dc="10"',
        (7,),
        {"skill": "Dexterity save", "modifier": "6"},
    ),
    Row(
        "skill= 'Wisdom saving throw' is the save",
        'skill="Wisdom saving throw" dc="10"',
        (7,),
        {"skill": "Wisdom save", "modifier": "2"},
    ),
    Row("sloppy quoting: single quotes", "skill='Stealth' dc='15'", (6,), {"total": "15"}),
    Row("sloppy quoting: typographic quotes", "skill=“Stealth” dc=“15”", (6,), {"total": "15"}),
    Row("sloppy quoting: spaces around =", 'skill = "Stealth"  dc = 15', (6,), {"total": "15"}),
    Row(
        "who= names a card, any case",
        'skill="Athletics" dc="10" who="bram ironhand"',
        (5,),
        {"who": "Bram Ironhand", "modifier": "5", "total": "10"},
    ),
    Row(
        "without who= the first character rolls",
        'skill="Athletics" dc="10"',
        (5,),
        {"who": "Mira Quickfoot", "modifier": "-1"},
    ),
    Row(
        "half proficiency rounds down",
        'skill="Survival" dc="10" who="Bram Ironhand"',
        (5,),
        {"modifier": "2"},
    ),
    Row(
        "difficulty= reads the dc off the ladder",
        'skill="Stealth" difficulty="hard"',
        (11,),
        {"dc": "20", "total": "20", "result": "success"},
    ),
    Row(
        "dc= wins over difficulty=",
        'skill="Stealth" difficulty="Hard" dc="12"',
        (3,),
        {"dc": "12", "result": "success"},
    ),
    Row(
        "a dc above the range is pulled back to 40",
        'skill="Stealth" dc="99"',
        (20,),
        {"dc": "40", "result": "failure"},
    ),
    Row(
        "a dc below the range is pulled back to 1",
        'skill="Stealth" dc="-5"',
        (1,),
        {"dc": "1", "result": "success"},
    ),
    Row(
        "an unknown difficulty= beside a dc= is ignored",
        'skill="Stealth" dc="15" difficulty="Epic"',
        (6,),
        {"dc": "15"},
    ),
    Row(
        "mode=advantage throws twice and keeps the better",
        'skill="Stealth" dc="15" mode="advantage"',
        (3, 18),
        {"rolls": "3|18", "used": "18", "mode": "advantage", "total": "27"},
    ),
    Row(
        "a bare disadvantage flag keeps the worse",
        'skill="Stealth" dc="15" disadvantage',
        (3, 18),
        {"used": "3", "mode": "disadvantage", "result": "failure"},
    ),
    Row(
        "with= swaps the skill's ability",
        'skill="Stealth" dc="15" with="Wisdom"',
        (6,),
        {"with": "Wisdom", "modifier": "8"},
    ),
    Row(
        "an unknown with= is ignored",
        'skill="Stealth" dc="15" with="Luck"',
        (6,),
        {"modifier": "9"},
    ),
    Row(
        "what the model wrote as a result is ignored",
        'skill="Stealth" dc="15" rolls="20" total="99" result="critical_success" used="20"',
        (2,),
        {"rolls": "2", "total": "11", "result": "failure"},
    ),
    Row(
        "unknown attributes are ignored",
        'skill="Stealth" dc="15" flavour="sneaky"',
        (6,),
        {"result": "success"},
    ),
    Row(
        "a natural 20 is not a critical on a ruleset whose naturals are none",
        'skill="Stealth" dc="30"',
        (20,),
        {"result": "failure"},
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r.rule for r in ROWS])
def test_tag_rule(row: Row) -> None:
    report = resolve_text(RULESET, PARTY, f"[skill_check: {row.tag}]", faces=row.faces)
    assert not report.errors, report.errors
    (result,) = report.results
    attrs = result.record.as_dict()
    for key, value in row.expect.items():
        assert attrs.get(key) == value, (key, attrs)
    assert attrs["forced"] == "true"
    assert "seed" not in attrs


ERRORS = [
    (
        "an unknown skill is an error with did-you-mean",
        'skill="Stelth" dc="15"',
        'Did you mean "Stealth"',
    ),
    ("an unknown who= is an error", 'skill="Stealth" dc="15" who="Nobody"', "not a character"),
    ("no difficulty at all is an error", 'skill="Stealth"', "names no difficulty"),
    (
        "advantage and disadvantage at once is not rolled",
        'skill="Stealth" dc="10" mode="advantage" disadvantage',
        "at once",
    ),
    ("a tag without skill= is an error", 'dc="10"', "no skill="),
    ("an unterminated quote is an error", 'skill="Stealth dc=15', ""),
]


@pytest.mark.parametrize(("rule", "tag", "says"), ERRORS, ids=[e[0] for e in ERRORS])
def test_unresolvable_tag_is_an_error_and_throws_nothing(rule: str, tag: str, says: str) -> None:
    text = f"Before. [skill_check: {tag}] After."
    report = resolve_text(RULESET, PARTY, text, faces=())  # no face may be used
    assert not report.results
    (error,) = report.errors
    assert isinstance(error, CheckFailure)
    assert says in error.error
    assert error.record.get("result") is None and error.record.get("rolls") is None
    assert report.text.startswith("Before. [skill_check:") and report.text.endswith("] After.")


def test_the_text_comes_back_with_each_tag_rewritten_as_its_record() -> None:
    text = 'Mira listens. [skill_check: skill="Perception" dc="12"] Then [skill_check: skill=Athletics dc=10 who=“Bram Ironhand”] done.'
    report = resolve_text(RULESET, PARTY, text, faces=(10, 4))
    assert [r.record.get("skill") for r in report.results] == ["Perception", "Athletics"]
    tags = parse_tags(report.text)
    assert [t.get("result") for t in tags] == ["success", "failure"]
    assert report.text.startswith(
        'Mira listens. [skill_check: skill="Perception" dc="12" rolls="10"'
    )
    assert report.text.endswith(" done.")


def test_record_core_attributes_come_in_order_then_extras_then_seed() -> None:
    report = resolve_text(RULESET, PARTY, '[skill_check: skill="Stealth" dc="15"]', seed="7")
    keys = report.results[0].record.keys
    assert keys[:10] == (
        "skill",
        "dc",
        "rolls",
        "used",
        "modifier",
        "total",
        "result",
        "mode",
        "resolution",
        "dice",
    )
    assert keys[-1] == "seed"
    assert report.results[0].record.get("seed") == "7"


def test_tag_i_of_a_text_uses_seed_s_then_s_minus_i() -> None:
    text = '[skill_check: skill="Stealth" dc="15"] [skill_check: skill="Stealth" dc="15"]'
    report = resolve_text(RULESET, PARTY, text, seed="42")
    assert [r.record.get("seed") for r in report.results] == ["42", "42-1"]
    first_alone = resolve_text(
        RULESET, PARTY, '[skill_check: skill="Stealth" dc="15"]', seed="42-1"
    )
    assert report.results[1].record.get("rolls") == first_alone.results[0].record.get("rolls")


def test_a_seed_replays_the_same_record() -> None:
    text = '[skill_check: skill="Stealth" dc="15" mode=advantage]'
    one = resolve_text(RULESET, PARTY, text, seed="123")
    two = resolve_text(RULESET, PARTY, text, seed="123")
    assert one.text == two.text


def test_too_few_forced_faces_is_an_error_on_that_tag() -> None:
    report = resolve_text(
        RULESET, PARTY, '[skill_check: skill="Stealth" dc="15" mode=advantage]', faces=(4,)
    )
    (error,) = report.errors
    assert "ran out" in error.error


def test_leftover_forced_faces_are_a_usage_error() -> None:
    with pytest.raises(UsageError, match="left over"):
        resolve_text(RULESET, PARTY, '[skill_check: skill="Stealth" dc="15"]', faces=(4, 5))


def test_results_json_shape() -> None:
    report = resolve_text(RULESET, PARTY, '[skill_check: skill="Stealth" dc="15"]', faces=(20,))
    body = report.to_json()
    assert set(body) == {"results", "errors", "text", "sheet", "fight"}  # every member, always
    (result,) = body["results"]  # type: ignore[misc]
    assert set(result) == {
        "tag",
        "who",
        "outcome",
        "success",
        "critical",
        "choice",
        "attrs",
        "changes",
        "notes",
    }
    assert (
        result["outcome"] == "Success" and result["success"] is True and result["critical"] is None
    )
    assert isinstance(report.items[0], CheckResult)
