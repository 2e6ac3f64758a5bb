"""What the Game Master is taught (docs/design/format.md "The gm block", the
page's per-kind attributes): only
what the ruleset offers, the ladder, the bands and their text, never to write results,
and each character's sheet summary with the spends and charms they can call on."""

from __future__ import annotations

import pytest

from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.sheet import SheetView
from dicebound.sheet_commands.current import current_sheet
from dicebound.teach import gm_text, sheet_summary

# (ruleset, attribute taught) and (ruleset, attribute never taught)
OFFERED = [
    ("dnd5e-srd", 'mode="advantage"'),
    ("wod-pool", 'threshold="N"'),
    ("wod-pool", 'bonus="+N"'),
    ("shadowrun-pool", "spend="),
    ("blades", 'bonus="+N"'),
    ("trophy-dark", 'dark="N"'),
    ("coc7e", "bonus or penalty tens dice"),
    ("genesys", 'upgrade="N"'),
    ("advanced-resolution", 'quality="field"'),
    ("fate-core", 'who="Full Name": the character who rolls, by the full name the party lists'),
]
NOT_OFFERED = [
    ("pbta-2d6", 'mode="advantage"'),
    ("dnd5e-srd", "threshold="),
    ("dnd5e-srd", "bonus="),
    ("gurps", "bonus="),
    ("lasers-feelings", 'threshold="N"'),  # the target is the character's own number
    ("advanced-resolution", "spend="),  # spending there is the player's, after the roll
]


@pytest.mark.parametrize(
    ("ruleset_id", "line"), OFFERED, ids=[f"{r} teaches {a}" for r, a in OFFERED]
)
def test_an_attribute_the_ruleset_offers_is_taught(ruleset_id: str, line: str) -> None:
    text = gm_text(read_ruleset(ruleset_id))
    assert line in text


@pytest.mark.parametrize(
    ("ruleset_id", "line"), NOT_OFFERED, ids=[f"{r} never teaches {a}" for r, a in NOT_OFFERED]
)
def test_an_attribute_the_ruleset_does_not_offer_is_never_taught(
    ruleset_id: str, line: str
) -> None:
    text = gm_text(read_ruleset(ruleset_id))
    assert line not in text


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_every_packaged_ruleset_teaches_its_ladder_bands_and_the_rule_against_results(
    ruleset_id: str,
) -> None:
    ruleset = read_ruleset(ruleset_id)
    text = gm_text(ruleset)
    assert ruleset.gm.check_guidance in text
    for step in ruleset.resolution.ladder:
        assert f"- {step.label}: " in text
    if ruleset.resolution.outcomes is not None:
        for band in ruleset.resolution.outcomes.tiers:
            assert band.label in text
            if band.text:
                assert band.text in text
    assert "Never write dice" in text


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_every_packaged_character_has_a_sheet_summary(ruleset_id: str) -> None:
    ruleset = read_ruleset(ruleset_id)
    for name in packaged_characters(ruleset_id):
        character = read_character(ruleset, f"{ruleset_id}/{name}")
        text = sheet_summary(ruleset, character)
        assert text.startswith(f"{character.name}:")
        for pool in current_sheet(ruleset, character).pools:
            assert f"{pool.spec.label} ({pool.spec.key}) {pool.value}/{pool.spec.max}" in text


def test_a_pool_with_a_maximum_of_0_is_not_in_the_summary() -> None:
    # docs/design/sheet-commands.md: a pool whose maximum is 0 does not exist for the character
    ruleset = read_ruleset("rolemaster-open")
    thief = read_character(ruleset, "rolemaster-open/aelith")
    assert SheetView(ruleset, thief).pool_max("power_points") == 0
    assert "Power points" not in sheet_summary(ruleset, thief)


def test_the_summary_shows_what_sheet_summary_chooses_and_the_spends() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    text = sheet_summary(ruleset, read_character(ruleset, "dnd5e-srd/mira"))
    assert "Level 5, Class Rogue, Proficiency bonus 3, Passive Perception 15" in text
    assert "Stealth +9" in text and "Inspiration (inspiration) 1/1" in text
    ruleset = read_ruleset("wod-pool")
    (name, *_) = packaged_characters("wod-pool")
    text = sheet_summary(ruleset, read_character(ruleset, f"wod-pool/{name}"))
    assert "Checks: " in text


@pytest.mark.parametrize(
    ("ruleset_id", "label"),
    [("genesys", "- Triumph: "), ("lasers-feelings", "- LASER FEELINGS: ")],
    ids=["a symbol's text is taught", "an exact die's text is taught"],
)
def test_what_a_mark_means_at_the_table_is_taught(ruleset_id: str, label: str) -> None:
    assert label in gm_text(read_ruleset(ruleset_id))
