"""The card in a player's words over every packaged ruleset: each character's first
skills at every ladder step, thrown from a few seeds, read as the card route reads them
(the roller's account of each die, the ruleset, the roller, the tag as asked). No line
and no die's words may keep the record's syntax, and a pool's counted dice (and the
successes bought) add up to what the record counted."""

from __future__ import annotations

import re

import pytest

from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.render.player import CardContext
from dicebound.tagpass import resolve_text
from dicebound.tags.parse import parse_tags
from dicebound.teach import offered_attributes
from dicebound.views import card_json

RECORD_SYNTAX = re.compile(r'\||@|="|\b[a-z]+_[a-z_]+\b|\b[a-z]+:[+\-]?\d')
SEEDS = ("1", "7", "42")


def _tags(ruleset_id: str) -> list[str]:
    """The first skills at every ladder step, plain and with each situational attribute
    the ruleset offers (a bonus either way, advantage)."""
    ruleset = read_ruleset(ruleset_id)
    skills = [s.label for s in ruleset.sheet.skills[:3]] or [
        a.label for a in ruleset.sheet.abilities[:2]
    ]
    steps = [f' difficulty="{s.label}"' for s in ruleset.resolution.ladder] or [' dc="1"']
    offered = offered_attributes(ruleset)
    extras = [""]
    if "bonus" in offered:
        extras += [' bonus="1"', ' bonus="-1"']
    if "mode" in offered:
        extras.append(' mode="advantage"')
    return [
        f'[skill_check: skill="{skill}"{step}{extra}]'
        for skill in skills
        for step in steps
        for extra in extras
    ]


@pytest.mark.parametrize("ruleset_id", packaged_rulesets())
def test_no_card_keeps_the_records_syntax(ruleset_id: str) -> None:
    ruleset = read_ruleset(ruleset_id)
    made = 0
    for short in packaged_characters(ruleset_id):
        roller = read_character(ruleset, f"{ruleset_id}/{short}")
        for tag in _tags(ruleset_id):
            for seed in SEEDS:
                report = resolve_text(ruleset, [roller], tag, seed=seed)
                for result in report.results:
                    ask = dict(parse_tags(result.ask)[0].attrs)
                    attrs = result.record.attrs
                    card = card_json(
                        attrs,
                        who=result.who,
                        outcome=result.outcome,
                        die_marks=result.die_marks,
                        context=CardContext(ruleset, roller, ask),
                    )
                    made += 1
                    where = (ruleset_id, short, tag, seed)
                    for term, text in card["plain"]:
                        assert not RECORD_SYNTAX.search(f"{term} {text}"), (where, term, text)
                    for die in card["shown"]:
                        for said in die["says"]:
                            assert not RECORD_SYNTAX.search(said["words"]), (where, said)
                    if card["shape"] == "pool" and result.die_marks:
                        counted = sum(
                            2 if "counted-twice" in [s["mark"] for s in d["says"]] else 1
                            for d in card["shown"]
                            if d["counted"]
                        )
                        auto = result.record.get_int("auto") or 0
                        total = result.record.get_int("total")
                        assert total is None or counted + auto == max(total, 0), where
    assert made >= 6 * len(SEEDS), made
