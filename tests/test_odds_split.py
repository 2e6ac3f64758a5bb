"""A check prepared in two parts reads as the check prepared whole.

``check_odds`` keeps, per character, each check's skill (``prepare_skill``: what the
check's names decide) and the distribution folded for it (by the kind's
``odds_key``), and answers every new question of the skill from them: the kind adds
what the question asks (``prepare_question``) and the bands are read at the question's
dc. Here, for every packaged character and the checks its report asks, at other dcs,
difficulties, bonuses and modes:

- the skill one question read prepares every other question of the same names exactly
  as the whole preparation of that question does (``prepare_check``), or refuses it
  with the same sentence, and where the kind reads a question without preparing its
  check (``odds_question``), it reads the key, dc, shift and summary of that check, or
  refuses it alike;
- asked in turn of one character value (so each question reads the skill and the
  folded distributions the questions before it left), the odds are those of the check
  prepared whole and read outcome by outcome.

And the usual unwrapped tag the odds read without its match (``check_attrs``) reads
as ``parse_check`` reads it, and its match made of what it read (``attrs_match``) is
``parse_check``'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import prepare_check, prepare_question, prepare_skill
from dicebound.errors import LimitExceeded, TagError
from dicebound.odds import check_odds
from dicebound.report import build_report
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import SheetView
from dicebound.tags.parse import attrs_match, check_attrs, parse_check
from test_odds_reader import one_by_one

CASES = [(r, who) for r in packaged_rulesets() for who in packaged_characters(r)]

# The open-ended d100 reads ~7,700 outcomes per check one by one: fewer of its checks.
_FEW_TAGS = {"rolemaster-open": 2}


@cache
def _ruleset(ruleset_id: str) -> Ruleset:
    return read_ruleset(ruleset_id)


def _names_of(tag: str) -> str:
    """A report tag's names (``skill=``, ``who=``, ``with=``), the question left out."""
    kept = re.findall(r'\b(?:skill|who|with)="[^"]*"', tag)
    return " ".join(kept)


@cache
def _asked(ruleset_id: str, who: str) -> tuple[str, ...]:
    """Questions of a character: the checks its report asks (their names alone), each
    at the report's difficulties and at other dcs, bonuses and modes."""
    ruleset = _ruleset(ruleset_id)
    report = build_report(ruleset, read_character(ruleset, who))
    tags = sorted(
        {c.tag[len("[skill_check: ") : -1] for r in report.rows for c in r.cells if c.tag}
    )
    names = list(dict.fromkeys(_names_of(t) for t in tags))[: _FEW_TAGS.get(ruleset_id, 6)]
    steps = [s.label for s in ruleset.resolution.ladder][:4]
    asks = [f'difficulty="{label}"' for label in steps]
    asks += ['dc="1"', 'dc="3"', 'dc="12"', 'dc="-4"', 'dc="15" bonus="2"', 'dc="2" bonus="-1"']
    asks += [f'{asks[0]} mode="advantage"', f'{asks[0]} mode="disadvantage"', 'threshold="5"']
    return tuple(f"{n} {a}" for n in names for a in asks)


@pytest.mark.parametrize(("ruleset_id", "who"), CASES)
def test_the_skill_of_one_question_prepares_every_other(ruleset_id: str, who: str) -> None:
    ruleset = _ruleset(ruleset_id)
    character = read_character(ruleset, who)
    asked = _asked(ruleset_id, who)
    assert asked
    ladder = ruleset.resolution.ladder
    skills: dict[str, Any] = {}
    for tag in asked:
        match = parse_check(tag)[0]
        attrs = dict(match.attrs)
        view = SheetView(ruleset, character)
        names = _names_of(tag)
        try:
            whole = prepare_check(ruleset, [character], match)
        except TagError as exc:
            with pytest.raises(TagError) as split:
                skill = skills.get(names) or prepare_skill(ruleset, [character], match, attrs)
                prepare_question(ruleset, skill, attrs, ladder, view)
            assert split.value.message == exc.message, tag
            if names in skills:  # the kind's question without the check refuses it alike
                try:
                    quick = _quick(ruleset, skills[names], attrs)
                except TagError as refused:
                    assert refused.message == exc.message, tag
                else:
                    assert quick is None, tag  # a kind that reads none
            continue
        if names not in skills:  # the first question of these names reads the skill
            skills[names] = prepare_skill(ruleset, [character], match, attrs, view)
        split_check = prepare_question(ruleset, skills[names], attrs, ladder, view)
        assert split_check == whole.prepared, tag
        quick = _quick(ruleset, skills[names], attrs)
        if quick is not None:  # what the odds read of it without the check made
            player = skills[names].player
            assert quick == (
                player.odds_key(split_check.check),
                split_check.dc,
                player.odds_shift(split_check.check),
                split_check.summary,
            )


def _quick(ruleset: Ruleset, skill: Any, attrs: dict[str, str]) -> Any:
    """The kind's ``odds_question`` of a question of a prepared skill."""
    ladder = ruleset.resolution.ladder
    return skill.player.odds_question(skill.config, skill.part, ruleset, attrs, ladder)


def _whole(ruleset: Ruleset, character: Any, tag: str) -> dict[str, Fraction] | None:
    """The odds of the check prepared whole, read outcome by outcome (None: the check
    cannot be prepared or is past a cap)."""
    try:
        prepared = prepare_check(ruleset, [character], parse_check(tag)[0])
        dist = prepared.player.distribution(prepared.prepared.check)
    except (TagError, LimitExceeded):
        return None
    plain = one_by_one(ruleset, prepared, dist)
    bands = ruleset.resolution.outcomes
    return {bands.band(k).label if bands is not None else k: p for k, p in plain.items()}


def _in_turn(ruleset_id: str, who: str, tags: Sequence[str]) -> int:
    """Ask ``tags`` in turn of one character of a ruleset of its own (nothing remembered
    yet), each answer checked against its check prepared whole; how many were answered."""
    ruleset = read_ruleset(ruleset_id)
    character = read_character(ruleset, who)
    answered = 0
    for tag in tags:
        expected = _whole(ruleset, character, tag)
        if expected is None:
            with pytest.raises((TagError, LimitExceeded)):
                check_odds(ruleset, character, tag)
            continue
        odds = check_odds(ruleset, character, tag)
        by_label = {o.label: o.probability for o in odds.outcomes if o.probability}
        assert by_label == expected, tag
        assert odds.success == sum((o.probability for o in odds.outcomes if o.success), Fraction(0))
        answered += 1
    return answered


@pytest.mark.parametrize(("ruleset_id", "who"), CASES)
def test_questions_asked_in_turn_read_as_each_prepared_whole(ruleset_id: str, who: str) -> None:
    assert _in_turn(ruleset_id, who, _asked(ruleset_id, who))


# Dice-sum reads a question without its check made (``odds_question``) once the skill has
# read a check of its key: characters of its banded rulesets, the open-ended d100 aside.
_QUICK_CASES = [
    (r, who)
    for r, who in CASES
    if _ruleset(r).resolution.kind == "dice-sum"
    and _ruleset(r).resolution.outcomes is not None
    and r not in _FEW_TAGS
]
_MODES = st.sampled_from(["", ' mode="advantage"', ' mode="disadvantage"', " advantage"])


@settings(max_examples=examples(60), deadline=None)
@given(st.sampled_from(_QUICK_CASES), st.data())
def test_questions_read_without_their_check_read_as_each_prepared_whole(
    case: tuple[str, str], data: st.DataObject
) -> None:
    ruleset_id, who = case
    names = data.draw(st.sampled_from(sorted({_names_of(t) for t in _asked(ruleset_id, who)})))
    steps = [s.label for s in _ruleset(ruleset_id).resolution.ladder] + ["Nowhere"]
    asked = st.one_of(
        st.sampled_from(steps).map(lambda label: f'difficulty="{label}"'),
        st.integers(-5, 45).map(lambda dc: f'dc="{dc}"'),
    )
    questions = st.lists(st.tuples(asked, _MODES).map("".join), min_size=2, max_size=5)
    _in_turn(ruleset_id, who, [f"{names} {q}" for q in data.draw(questions)])


# -- the usual unwrapped tag, read without its match -------------------------------------

_PIECES = st.sampled_from(
    ['skill="Stealth"', 'dc="15"', 'difficulty="Hard"', "mode=advantage", 'Skill="x"',
     'skill="Climb"', ", ", " ", "  ,", "]", "[", "advantage", 'who="Bram"', 'a-b_1="v"',
     'x = "spaced"', '"', "'q'", "dc='3'", "\t", "é", 'with="Strength"']
)  # fmt: skip


@given(st.lists(_PIECES, max_size=6).map(" ".join))
def test_check_attrs_reads_as_parse_check(tag: str) -> None:
    attrs = check_attrs(tag)
    if attrs is None:
        return
    matches = parse_check(tag)
    assert len(matches) == 1
    match = matches[0]
    assert match.error is None
    assert match.duplicates == ()
    assert attrs == dict(match.attrs)
    assert list(attrs.items()) == list(match.attrs)
    assert attrs_match(tag, attrs) == match  # the whole match, made without a second read


def test_check_attrs_reads_the_usual_tag() -> None:
    assert check_attrs('skill="Investigate" difficulty="Great"') == {
        "skill": "Investigate",
        "difficulty": "Great",
    }
    assert check_attrs('skill="A" skill="B"') is None  # written twice: parse_check says how
    assert check_attrs('Skill="A"') is None
    assert check_attrs('[skill_check: skill="A"]') is None
