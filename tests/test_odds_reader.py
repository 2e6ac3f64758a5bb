"""The odds' band reader against the plain one: every outcome read by ``read_outcome``.

``check_odds`` reads a distribution into bands by thresholds over each group's sorted
totals (``dicebound.odds.read_weights``), and a dice-sum check straight from its set
distribution (``folded``), never building an outcome per total. Both must give exactly
what reading every outcome of the kind's ``distribution`` one by one gives: on every
check of every packaged character at every ladder step (with advantage and
disadvantage where the ruleset has them), and on generated bands of every kind.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.dist import Dist
from dicebound.edge.files import (
    packaged_characters,
    packaged_rulesets,
    read_character,
    read_ruleset,
)
from dicebound.engine import PreparedCheck, prepare_check, read_outcome
from dicebound.errors import RulesetInvalid, TagError
from dicebound.odds import check_odds, read_weights
from dicebound.report import build_report
from dicebound.ruleset.model import Ruleset
from dicebound.tags.parse import parse_tags
from kind_samples import ruleset_of_kind


def one_by_one(ruleset: Ruleset, prepared: PreparedCheck, dist: Dist[Any]) -> dict[str, Fraction]:
    """Every outcome read on its own, the weights summed per band: the plain reading."""
    weights: dict[str, int] = {}
    for outcome, weight in dist.items():
        reading = read_outcome(ruleset, prepared, outcome)
        key = reading.band_id or reading.label
        weights[key] = weights.get(key, 0) + weight
    return {key: Fraction(w, dist.total) for key, w in weights.items()}


def _shares(weights: dict[str, int]) -> dict[str, Fraction]:
    total = sum(weights.values())
    return {key: Fraction(w, total) for key, w in weights.items() if w}


def _prepare(ruleset: Ruleset, character: Any, tag: str) -> PreparedCheck:
    return prepare_check(ruleset, [character], parse_tags(f"[skill_check: {tag}]")[0])


def assert_reads_alike(ruleset: Ruleset, prepared: PreparedCheck, tag: str) -> None:
    check = prepared.prepared.check
    dist = prepared.player.distribution(check)
    plain = one_by_one(ruleset, prepared, dist)
    assert _shares(read_weights(ruleset, prepared, dist)) == plain, tag
    folded = getattr(prepared.player, "folded", None)
    if folded is not None and ruleset.resolution.outcomes is not None:
        weights = read_weights(ruleset, prepared, None, folded(check))
        assert sum(weights.values()) == dist.total, tag
        assert _shares(weights) == plain, tag


# -- every packaged check --------------------------------------------------------------

# The open-ended d100 reads ~7,700 outcomes per check one by one (about 0.07 s): its
# characters are checked on their first rows only, at every step.
_FEW_ROWS = {"rolemaster-open": 3}


def _packaged_tags(ruleset: Ruleset, who: str) -> list[tuple[Any, str]]:
    character = read_character(ruleset, who)
    report = build_report(ruleset, character)
    rows = report.rows[: _FEW_ROWS.get(ruleset.id, len(report.rows))]
    tags = [_inner(c.tag) for row in rows for c in row.cells if c.odds is not None and c.tag]
    modes = getattr(ruleset.resolution.config, "advantage", False)
    extra = (
        [f'{t} mode="{m}"' for t in tags for m in ("advantage", "disadvantage")] if modes else []
    )
    return [(character, t) for t in [*tags, *extra]]


def _inner(tag: str) -> str:
    """A report cell's tag without its ``[skill_check: ...]`` wrapper."""
    assert tag.startswith("[skill_check: ") and tag.endswith("]"), tag
    return tag[len("[skill_check: ") : -1]


CASES = [(r, who) for r in packaged_rulesets() for who in packaged_characters(r)]


@pytest.mark.parametrize(("ruleset_id", "who"), CASES)
def test_every_packaged_check_reads_as_one_by_one(ruleset_id: str, who: str) -> None:
    ruleset = read_ruleset(ruleset_id)
    asked = _packaged_tags(ruleset, who)
    assert asked
    for character, tag in asked:
        prepared = _prepare(ruleset, character, tag)
        assert_reads_alike(ruleset, prepared, tag)
        odds = check_odds(ruleset, character, tag)
        plain = one_by_one(ruleset, prepared, prepared.player.distribution(prepared.prepared.check))
        by_label = {o.label: o.probability for o in odds.outcomes}
        bands = ruleset.resolution.outcomes
        for key, p in plain.items():
            label = bands.band(key).label if bands is not None else key
            assert by_label[label] == p, (tag, key)
        assert sum(by_label.values()) == 1


def test_the_remembered_odds_are_the_same_value() -> None:
    ruleset = read_ruleset("dnd5e-srd")
    character = read_character(ruleset, "bram")
    first = check_odds(ruleset, character, 'skill="Athletics" dc="15" mode="advantage"')
    again = check_odds(ruleset, character, 'skill="Athletics" dc="15" mode="advantage"')
    assert again is first
    other = read_character(ruleset, "bram")  # an equal character, another value
    assert check_odds(ruleset, other, 'skill="Athletics" dc="15" mode="advantage"') == first


# -- generated bands -------------------------------------------------------------------

ASH = {
    "name": "Ash",
    "sheet": {
        "v": 1,
        "build": {
            "abilities": {"grit": 3, "wits": 2},
            "skills": {"climb": "trained"},
            "saves": {"endure": "trained"},
        },
    },
}

SUM_DICE: list[dict[str, Any]] = [
    {"dice": {"count": 1, "sides": 20}, "advantage": True},
    {"dice": {"count": 2, "sides": 6}},
    {"dice": {"count": 1, "sides": 10}, "openEnded": {"high": 9, "low": 2}},
    {"dice": {"count": 4, "sides": 3, "faces": [-1, 0, 1]}},
]


@st.composite
def tiers(draw: st.DrawFn, fraction: bool, on_bands: bool) -> list[dict[str, Any]]:
    count = draw(st.integers(2, 5))
    low = 1 if fraction else -14
    cuts = sorted(draw(st.sets(st.integers(low, 14), min_size=count - 1, max_size=count - 1)))
    cuts.reverse()
    succeeding = draw(st.integers(1, count - 1))
    out: list[dict[str, Any]] = []
    if on_bands and draw(st.booleans()):
        out.append({"id": "crit", "label": "Crit", "on": "critical-success"})
    for i in range(count):
        band: dict[str, Any] = {"id": f"b{i}", "label": f"Band {i}", "success": i < succeeding}
        if i < count - 1:
            band["atLeast"] = cuts[i]
        if draw(st.booleans()):
            band["critical"] = True
        out.append(band)
    if on_bands and draw(st.booleans()):
        out.append({"id": "fumble", "label": "Fumble", "on": "critical-failure"})
    return out


@st.composite
def banded(draw: st.DrawFn) -> tuple[Ruleset, str]:
    kind = draw(st.sampled_from(["dice-sum", "dice-pool", "dice-highest", "roll-against"]))
    resolution: dict[str, Any] = {}
    by = draw(st.sampled_from(["margin", "total"]))
    if kind == "dice-sum":
        resolution.update(draw(st.sampled_from(SUM_DICE)))
        single = resolution["dice"]["count"] == 1
        naturals = draw(st.sampled_from(["none", "both", "max-only", "min-only"]))
        shift = single and naturals == "none" and draw(st.booleans())
        resolution["naturals"] = {"check": naturals, "save": naturals}
    elif kind == "roll-against":
        resolution["dice"] = draw(
            st.sampled_from([{"count": 3, "sides": 6}, {"count": 1, "sides": 100}])
        )
        resolution["criticalSuccess"] = [{"from": 1, "to": 3}]
        resolution["criticalFailure"] = [{"from": 17, "to": 18}]
        by = draw(st.sampled_from(["margin", "total", "fraction"]))
        shift = False
    else:
        shift = False
    outcomes: dict[str, Any] = {"by": by, "tiers": draw(tiers(by == "fraction", True))}
    if shift:
        outcomes["naturals"] = "shift"
    resolution["outcomes"] = outcomes
    try:
        ruleset = compile_ruleset(ruleset_of_kind(kind, **resolution))
    except RulesetInvalid:
        assume(False)
        raise
    extra = draw(st.sampled_from(["", ' mode="advantage"', ' mode="disadvantage"']))
    dc = draw(st.integers(-6, 24))
    return ruleset, f'skill="Climb" dc="{dc}"{extra}'


@settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)
@given(banded())
def test_generated_bands_read_as_one_by_one(case: tuple[Ruleset, str]) -> None:
    ruleset, tag = case
    character = load_character(ruleset, ASH)
    try:
        prepared = _prepare(ruleset, character, tag)
    except TagError:
        assume(False)
        raise
    assert_reads_alike(ruleset, prepared, tag)
