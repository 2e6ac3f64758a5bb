"""Every packaged ruleset (all six kinds), any tag a model might write: a result or
dicebound's own error with a sentence, never another exception; an error pays nothing;
the odds of a check that resolves sum to one."""

from __future__ import annotations

import functools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import CheckFailure, PlayerChoices
from dicebound.errors import DiceboundError
from dicebound.odds import check_odds
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.tagpass import resolve_text

_KEYS = [
    "skill",
    "dc",
    "difficulty",
    "who",
    "mode",
    "with",
    "threshold",
    "bonus",
    "explode",
    "double",
    "reroll",
    "spend",
    "use",
    "dark",
    "setback",
    "upgrade",
    "upgradeOwn",
    "quality",
    "tool",
    "rolls",
    "total",
    "result",
]
_VALUES = st.one_of(
    st.sampled_from(["1", "2", "3", "6", "-2", "+2", "99", "-99", "0", "advantage", "x", ""]),
    st.integers(-200, 200).map(str),
    st.text(max_size=6),
)


@functools.cache
def _table(
    ruleset_id: str,
) -> tuple[Ruleset, tuple[Character, ...], tuple[str, ...], tuple[str, ...]]:
    ruleset = read_ruleset(ruleset_id)
    party = tuple(
        read_character(ruleset, f"{ruleset_id}/{n}") for n in packaged_characters(ruleset_id)
    )
    sheet = ruleset.sheet
    names = tuple(x.label for x in (*sheet.skills, *sheet.saves)) + tuple(
        a.label for a in sheet.abilities
    )
    steps = tuple(s.label for s in ruleset.resolution.ladder)
    return ruleset, party, names, steps


@st.composite
def asks(draw: st.DrawFn) -> tuple[str, str, list[tuple[str, str]]]:
    ruleset_id = draw(st.sampled_from(packaged_rulesets()))
    _, party, names, steps = _table(ruleset_id)
    attrs = [("skill", draw(st.sampled_from(names)))]
    if draw(st.booleans()):
        attrs.append(("difficulty", draw(st.sampled_from(steps))))
    if draw(st.booleans()):
        attrs.append(("who", draw(st.sampled_from([c.name for c in party]))))
    attrs += draw(st.lists(st.tuples(st.sampled_from(_KEYS), _VALUES), max_size=4))
    body = " ".join(f'{k}="{v}"' for k, v in attrs if '"' not in v)
    return ruleset_id, f"[skill_check: {body}]", attrs


@settings(max_examples=examples(400), deadline=None)
@given(asks(), st.integers(0, 10**6), st.sampled_from([None, "fail", "succeed"]))
def test_any_tag_on_any_kind_resolves_or_says_why(
    ask: tuple[str, str, list[tuple[str, str]]], seed: int, choose: str | None
) -> None:
    ruleset_id, tag, _ = ask
    ruleset, party, _, _ = _table(ruleset_id)
    choices = PlayerChoices(after=("luck", 3), choose=choose)  # type: ignore[arg-type]
    report = resolve_text(ruleset, party, tag, seed=str(seed), choices=choices)
    (item,) = report.items
    if isinstance(item, CheckFailure):
        assert item.error.strip()
        assert report.party == party  # nothing paid
    else:
        assert item.record.get("result") in {
            "success",
            "failure",
            "critical_success",
            "critical_failure",
        }
        assert sum(c.from_ - c.to for c in item.changes) >= 0


@settings(max_examples=examples(120), deadline=None)
@given(asks())
def test_the_odds_of_any_tag_that_resolves_sum_to_one(
    ask: tuple[str, str, list[tuple[str, str]]],
) -> None:
    ruleset_id, tag, _ = ask
    ruleset, party, _, _ = _table(ruleset_id)
    try:
        odds = check_odds(ruleset, party[0], tag)
    except DiceboundError as exc:
        assert str(exc).strip()
        return
    assert sum((o.probability for o in odds.outcomes), Fraction(0)) == 1
    assert odds.success == sum((o.probability for o in odds.outcomes if o.success), Fraction(0))
