"""Two wrong answers found by trying dicebound as a new user would, each fixed on every
kind and held here as rows:

1. A ``dc=`` of many digits is a whole number like any other: out of range, it is pulled
   back to the nearest end (it was read as "the tag names no difficulty").
2. A tag that does not resolve throws nothing, so forced faces are left over; the tag's
   error is what the user sees (exit 1), not "faces left over" (exit 2). Faces left over
   when every tag resolved stay a usage error.
"""

from __future__ import annotations

import json

import pytest

from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckFailure, CheckResult
from dicebound.errors import UsageError
from dicebound.tagpass import resolve_text
from http_api_support import cli

KINDS = [
    ("dice-sum", "dnd5e-srd", "mira", "Stealth"),
    ("dice-sum, Fate dice", "fate-core", "ines", "Athletics"),
    ("dice-sum, open-ended", "rolemaster-open", "aelith", "Climbing"),
    ("dice-pool", "wod-pool", "lucia", "Stealth"),
    ("dice-pool, shadowrun", "shadowrun-pool", "vex", "Pistols"),
    ("dice-highest", "blades", "silk", "Prowl"),
    ("roll-against", "coc7e", "eleanor", "Appraise"),
    ("symbol-pool", "genesys", "kira", "Cool"),
    ("step-pool", "advanced-resolution", "peet", "Scoundrel/Lockpick"),
]
IDS = [k[0] for k in KINDS]


def _record(ruleset_id: str, short: str, tag: str) -> dict[str, str]:
    ruleset = read_ruleset(ruleset_id)
    party = [read_character(ruleset, short)]
    report = resolve_text(ruleset, party, tag, seed="fixed")
    (item,) = report.items
    assert isinstance(item, CheckResult), getattr(item, "error", item)
    return item.record.as_dict()


def _without_dc(attrs: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in attrs.items() if k != "seed"}


@pytest.mark.parametrize(("kind", "ruleset", "character", "skill"), KINDS, ids=IDS)
@pytest.mark.parametrize(
    ("written", "like"),
    [
        ("123456789012", "999999"),  # twelve digits: above every range, like 999999
        ("1" + "0" * 40, "999999"),
        ("-123456789012", "-999999"),  # below every range
        ("+000000000000000012", "12"),  # leading zeros do not make it large
        ("12.0", "12"),
    ],
    ids=["twelve digits", "forty-one digits", "negative", "leading zeros", "a point zero"],
)
def test_a_dc_of_many_digits_is_pulled_back_to_the_nearest_end(
    kind: str, ruleset: str, character: str, skill: str, written: str, like: str
) -> None:
    got = _record(ruleset, character, f'[skill_check: skill="{skill}" dc="{written}"]')
    expected = _record(ruleset, character, f'[skill_check: skill="{skill}" dc="{like}"]')
    assert _without_dc(got) == _without_dc(expected)


@pytest.mark.parametrize(("kind", "ruleset", "character", "skill"), KINDS, ids=IDS)
def test_an_unresolved_tag_is_the_error_whatever_faces_are_left(
    kind: str, ruleset: str, character: str, skill: str
) -> None:
    compiled = read_ruleset(ruleset)
    party = [read_character(compiled, character)]
    wrong = f'[skill_check: skill="{skill}x" dc="3"]'
    report = resolve_text(compiled, party, wrong, faces=[5, 5, 5])
    (item,) = report.items
    assert isinstance(item, CheckFailure) and "is not a skill" in item.error

    out = cli(
        "check",
        "--ruleset",
        ruleset,
        "--character",
        character,
        "--faces",
        "5",
        "--json",
        wrong,
        code=1,
    )
    answer = json.loads(out)
    assert answer["results"] == [] and "is not a skill" in answer["errors"][0]["error"]
    text = cli(
        "check", "--ruleset", ruleset, "--character", character, "--faces", "5", wrong, code=1
    )
    assert "is not a skill" in text


@pytest.mark.parametrize(("kind", "ruleset", "character", "skill"), KINDS, ids=IDS)
def test_faces_left_over_when_every_tag_resolved_stay_a_usage_error(
    kind: str, ruleset: str, character: str, skill: str
) -> None:
    compiled = read_ruleset(ruleset)
    party = [read_character(compiled, character)]
    tag = f'[skill_check: skill="{skill}" dc="3"]'
    with pytest.raises(UsageError, match="left over"):
        resolve_text(compiled, party, tag, faces=[1] * 200)
