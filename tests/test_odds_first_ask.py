"""The odds at the first ask against the reference reading, exactly.

``check_odds`` answers a question it has not seen from what the ruleset keeps (the
kinds' tables of their dice, moved by the check's own numbers; each character's sheet
numbers) and reads the bands from their edges. The reference is the kind's own
``distribution`` of the prepared check, every outcome read on its own by
``read_outcome`` (``test_odds_reader.one_by_one``). They must agree as fractions on
every band, with the tables cold or already filled by other questions, on generated
questions of every packaged character: a dc, a difficulty, a bonus, a mode, a
threshold, whatever the kind reads and whatever it ignores.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.bands import SUM_BANDS, BandRules
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import prepare_check
from dicebound.errors import LimitExceeded, TagError, UsageError
from dicebound.folding import normalize
from dicebound.kinds.bands import rules_of
from dicebound.kinds.dice_pool import PoolCheck, distribution
from dicebound.kinds.dice_pool.odds import kept_distribution
from dicebound.odds import READERS_KEY, TABLES_KEY, VIEWS_KEY, check_odds
from dicebound.report import build_report
from dicebound.ruleset.model import Ruleset
from dicebound.spend import Reroll
from dicebound.tags.parse import parse_tags
from test_odds_reader import one_by_one


@cache
def _ruleset(ruleset_id: str) -> Ruleset:
    return read_ruleset(ruleset_id)


@cache
def _questions(ruleset_id: str, who: str) -> tuple[str, ...]:
    """The tags of a character's report (every check it may roll, at every ladder
    step), without their wrapper."""
    ruleset = _ruleset(ruleset_id)
    report = build_report(ruleset, read_character(ruleset, who))
    asked = [c.tag for row in report.rows for c in row.cells if c.odds is not None]
    tags = {tag[len("[skill_check: ") : -1] for tag in asked if tag}
    return tuple(sorted(tags))


CASES = [(r, who) for r in packaged_rulesets() for who in packaged_characters(r)]

_MODES = ("", ' mode="advantage"', ' mode="disadvantage"')


@st.composite
def questions(draw: st.DrawFn) -> tuple[str, str, str]:
    """A packaged character and a question of it no report asks: a report's tag with
    its dc or difficulty moved, a bonus, a threshold, a mode added."""
    ruleset_id, who = draw(st.sampled_from(CASES))
    tag = draw(st.sampled_from(_questions(ruleset_id, who)))
    ladder = _ruleset(ruleset_id).resolution.ladder
    how = draw(st.sampled_from(["dc", "difficulty", "as is"]))
    if how != "as is":
        tag = re.sub(r'\s(dc|difficulty)="[^"]*"', "", tag)
    if how == "dc":
        tag += f' dc="{draw(st.integers(-12, 130))}"'
    elif how == "difficulty":
        tag += f' difficulty="{draw(st.sampled_from([s.label for s in ladder]))}"'
    for key, low, high in (("bonus", -4, 4), ("threshold", 1, 12), ("dark", 0, 3)):
        if draw(st.booleans()):
            tag += f' {key}="{draw(st.integers(low, high))}"'
    return ruleset_id, who, tag + draw(st.sampled_from(_MODES))


def _reference(ruleset: Ruleset, who: Any, tag: str) -> dict[str, Fraction]:
    """Each outcome's chance by the kind's own distribution, read one outcome at a time
    (a prepared check of its own: no view, no table)."""
    prepared = prepare_check(ruleset, [who], parse_tags(f"[skill_check: {tag}]")[0])
    plain = one_by_one(ruleset, prepared, prepared.player.distribution(prepared.prepared.check))
    bands = ruleset.resolution.outcomes
    return {bands.band(k).label if bands is not None else k: p for k, p in plain.items()}


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(questions(), st.booleans())
def test_a_first_ask_reads_as_the_reference(case: tuple[str, str, str], cold: bool) -> None:
    ruleset_id, who, tag = case
    ruleset = _ruleset(ruleset_id)
    character = read_character(ruleset, who)  # a new value: nothing of it remembered
    if cold:
        ruleset.memo.clear()
    try:
        expected = _reference(ruleset, character, tag)
    except (TagError, LimitExceeded):
        assume(False)
        raise
    odds = check_odds(ruleset, character, tag)
    by_label = {o.label: o.probability for o in odds.outcomes}
    assert {k: p for k, p in by_label.items() if p} == expected, tag
    assert odds.success == sum((o.probability for o in odds.outcomes if o.success), Fraction(0))
    assert TABLES_KEY in ruleset.memo
    # The same question of another character value, its sheet read afresh.
    again = check_odds(ruleset, read_character(ruleset, who), tag)
    assert again == odds


@pytest.mark.parametrize(("ruleset_id", "who"), CASES)
def test_every_report_question_reads_alike_cold_and_warm(ruleset_id: str, who: str) -> None:
    """Every question of a report, asked of a ruleset that remembers nothing, then of one
    whose tables and sheet numbers every other question filled."""
    ruleset = read_ruleset(ruleset_id)
    character = read_character(ruleset, who)
    tags = _questions(ruleset_id, who)[:40]
    cold = []
    for tag in tags:
        ruleset.memo.clear()
        cold.append(check_odds(ruleset, character, tag))
    warm = [check_odds(ruleset, read_character(ruleset, who), tag) for tag in tags]
    assert warm == cold
    assert VIEWS_KEY in ruleset.memo


# -- the band edges: where a kind's band number reaches a cut ----------------------------


KINDS = ("dice-sum", "dice-pool", "dice-highest", "roll-against", "step-pool", "symbol-pool")


def _every_rules() -> list[tuple[str, BandRules]]:
    found = [(kind, rules_of(kind)) for kind in KINDS]
    assert all(r is not None for _, r in found)
    return [("no kind", SUM_BANDS), *[(k, r) for k, r in found if r is not None]]


@pytest.mark.parametrize(("kind", "rules"), _every_rules())
@settings(max_examples=examples(150), deadline=None)
@given(
    by=st.sampled_from(["margin", "total", "fraction"]),
    cuts=st.lists(st.integers(-30, 30), max_size=5),
    dc=st.integers(-40, 140),
    against=st.sampled_from(["at-most", "at-least"]),
)
def test_a_band_edge_is_where_the_number_reaches_its_cut(
    kind: str, rules: BandRules, by: Any, cuts: list[int], dc: int, against: Any
) -> None:
    """``BandRules.reach`` gives, for each cut, the edge of the totals whose ``value``
    reaches it, or None where it cannot say (then the odds read total by total)."""
    cuts = sorted(set(cuts), reverse=True)
    reached = rules.reach(by, cuts, dc, against)
    if reached is None:
        return
    edges, rising = reached
    assert len(edges) == len(cuts)
    for cut, edge in zip(cuts, edges, strict=True):
        for total in range(-60, 180):
            try:
                value = rules.value(by, total, dc, against)
            except UsageError:
                continue
            on_side = total >= edge if rising else total <= edge
            assert (value >= cut) == on_side, (kind, by, cut, dc, against, total)


# -- a dice pool's table read by each check ----------------------------------------------


@st.composite
def pool_checks(draw: st.DrawFn) -> PoolCheck:
    sides = draw(st.sampled_from([6, 10]))
    dice = draw(st.integers(0, 6))
    target = draw(st.integers(2, sides))
    explode = draw(st.sampled_from([None, sides]))
    reroll = draw(st.sampled_from([None, Reroll(1, "once"), Reroll(2, "until")]))
    botch = draw(st.sampled_from([None, 1]))
    return PoolCheck(
        sides=sides,
        dice=dice,
        target=target,
        needed=draw(st.integers(1, 5)),
        explode_from=explode,
        double_from=draw(st.sampled_from([None, sides])),
        cancel_up_to=draw(st.sampled_from([None, 1])),
        botch_up_to=botch,
        botch_rule=draw(st.sampled_from(["noSuccesses", "halfOrMore"])),
        exceptional=draw(st.sampled_from([None, 3, 5])),
        reroll=reroll,
        auto=draw(st.integers(0, 2)),
        max_extra=draw(st.integers(0, 3)) if explode is not None else 0,
    )


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(pool_checks(), min_size=1, max_size=4))
def test_a_dice_pool_reads_its_kept_dice_as_its_own(checks: list[PoolCheck]) -> None:
    """Checks sharing one table (the dice counted once, for one success needed and none
    added) read it into what each check's own distribution gives."""
    tables: dict[Any, Any] = {}
    for check in checks:
        assert kept_distribution(check, tables) == distribution(check)


# -- names folded ------------------------------------------------------------------------

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


@settings(max_examples=examples(500), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aZ9 _-.\tſKﬁé")), max_size=14) | st.text(max_size=10))
def test_a_name_folds_as_the_pattern_folds_it(name: str) -> None:
    """``normalize``'s quick way for plain words gives what the folding pattern gives."""
    assert normalize(name) == " ".join(_NOT_ALNUM.sub(" ", name.casefold()).split())


def test_a_folded_distribution_is_kept_per_config_for_every_character() -> None:
    """A new character whose check throws what another's did (the same key) reads the
    distribution that other folded, at its own dc: no second reader is made, and the
    answer is the one worked afresh."""
    ruleset = read_ruleset("fate-core")
    first, second = (read_character(ruleset, "ines") for _ in range(2))
    assert first is not second
    check_odds(ruleset, first, 'skill="Investigate" difficulty="Great"')
    (config_odds,) = ruleset.memo[READERS_KEY].values()
    readers = dict(config_odds.readers)
    assert len(readers) == 1
    odds = check_odds(ruleset, second, 'skill="Investigate" difficulty="Fair"')
    assert config_odds.readers == readers  # read off the first character's fold
    ruleset.memo.clear()
    assert check_odds(ruleset, second, 'skill="Investigate" difficulty="Fair"') == odds


# A dice-sum fold is the dice's own, moved by the modifier (``odds_shift``): checks of
# every modifier share it, whether the bands read the margin, the total or the natural.
SHIFTED = [
    ("fate-core", "ines", 'skill="Investigate" difficulty="Great"', 'skill="Athletics" dc="2"'),
    ("pbta-2d6", "wren", 'skill="Force" difficulty="Roll the move"', 'skill="Charm" dc="7"'),
    ("pbta-2d6", "tollan", 'skill="Steel" dc="7"', 'skill="Strange" dc="9"'),  # by total
    # a natural 20 or 1 moves the degree a step (``naturals: "shift"``): a group per face
    ("pf2e-degrees", "oduya", 'skill="Athletics" difficulty="Expert"', 'skill="Arcana" dc="18"'),
]


@pytest.mark.parametrize(("ruleset_id", "who", "first", "second"), SHIFTED)
def test_a_dice_sum_fold_is_read_at_every_modifier(
    ruleset_id: str, who: str, first: str, second: str
) -> None:
    """The second check's modifier differs from the first's; it reads the first's fold
    moved, no second reader is made, and the answer is the one worked afresh and the
    reference's."""
    ruleset = read_ruleset(ruleset_id)
    character = read_character(ruleset, who)
    check_odds(ruleset, character, first)
    (config_odds,) = ruleset.memo[READERS_KEY].values()
    readers = dict(config_odds.readers)
    odds = check_odds(ruleset, character, second)
    shifts = [
        prepare_check(ruleset, [character], parse_tags(f"[skill_check: {t}]")[0])
        for t in (first, second)
    ]
    assert shifts[0].prepared.check.modifier != shifts[1].prepared.check.modifier
    assert config_odds.readers == readers  # read off the first check's fold, moved
    assert {o.label: o.probability for o in odds.outcomes if o.probability} == _reference(
        ruleset, character, second
    )
    ruleset.memo.clear()
    assert check_odds(ruleset, character, second) == odds
