"""Seeded step-pool checks converge to the exact odds: a chi-square test for each of eight
characters of the Advanced Resolution ruleset, each against its own target number, with
qualities and tools placed after the roll.

Each check is thrown 4,000 times from one fixed seed, so the test is deterministic; it
fails only when the statistic's p-value is below 1e-6, far past what chance gives. The
chi-square helper is the dice-sum statistics module's.
"""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from typing import Any, cast

import pytest

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.dice import SeededDice
from dicebound.engine import prepare_check
from dicebound.kinds.step_pool import StepCheck, distribution, roll
from dicebound.tags.parse import parse_tags
from repo_paths import REPO
from stats import ALPHA, THROWS, chi_square_p

pytestmark = pytest.mark.stats

DATA = REPO / "src" / "dicebound" / "data"
RULESET = compile_ruleset(
    json.loads((DATA / "rulesets" / "advanced-resolution.json").read_text(encoding="utf-8"))
)

# (id, abilities, skills, fields, tag)
CHARACTERS: list[tuple[str, dict[str, int], dict[str, str], dict[str, int], str]] = [
    (
        "peet picks an uncommon lock",
        {"skilled": 3},
        {"lockpick": "apprentice"},
        {"agility": 1},
        'skill="Lockpick" difficulty="Uncommon" quality="agility" tool="1"',
    ),
    ("a novice sneaks past a normal guard", {"skilled": 1}, {}, {}, 'skill="Sneak" dc="4"'),
    (
        "a master duellist against a legendary foe",
        {"martial": 4},
        {"swordplay": "master"},
        {"strength": 3},
        'skill="Swordplay" difficulty="Legendary" quality="strength" tool="2"',
    ),
    (
        "a clumsy warder against a rare ward",
        {"arcane": 0},
        {"warding": "journeyman"},
        {"will": -2},
        'skill="Warding" dc="8" quality="will"',
    ),
    (
        "a haggler with a crude bargain",
        {"social": 2},
        {"haggle": "expert"},
        {"wits": 5},
        'skill="Haggle" difficulty="Crude" quality="wits" tool="4"',
    ),
    ("a raw ability check against a mythic task", {"arcane": 4}, {}, {}, 'skill="Arcane" dc="12"'),
    (
        "an apprentice blade with a fine sword",
        {"martial": 2},
        {"swordplay": "apprentice"},
        {"agility": 2},
        'skill="Swordplay" dc="7" quality="agility" tool="3"',
    ),
    (
        "a journeyman lockpick at target 5",
        {"skilled": 2},
        {"lockpick": "journeyman"},
        {"agility": 0},
        'skill="Lockpick" dc="5" quality="agility" tool="1"',
    ),
]


def _check(
    abilities: dict[str, int], skills: dict[str, str], fields: dict[str, int], tag: str
) -> StepCheck:
    build = {"abilities": abilities, "skills": skills, "saves": {}, "bonuses": {}, "fields": fields}
    who = load_character(RULESET, {"name": "Roller", "sheet": {"v": 1, "build": build}, "live": {}})
    (match,) = parse_tags(f"[skill_check: {tag}]")
    check = prepare_check(RULESET, [who], match).prepared.check
    assert isinstance(check, StepCheck)
    return check


def _observed(check: StepCheck, seed: str) -> Counter[int]:
    dice = SeededDice(seed)
    return Counter(roll(check, dice).used for _ in range(THROWS))


def _odds(check: StepCheck) -> dict[int, Fraction]:
    return {o.total: p for o, p in distribution(check).probabilities().items()}


def _p_value(observed: Counter[int], odds: dict[int, Fraction]) -> tuple[float, int]:
    """The dice-sum module's chi-square, whose keys are typed for its own outcomes."""
    return chi_square_p(cast(Any, observed), cast(Any, odds), THROWS)


@pytest.mark.parametrize(
    ("seed", "abilities", "skills", "fields", "tag"),
    [(i, *c[1:]) for i, c in enumerate(CHARACTERS)],
    ids=[c[0] for c in CHARACTERS],
)
def test_seeded_checks_fit_the_exact_odds(
    seed: int, abilities: dict[str, int], skills: dict[str, str], fields: dict[str, int], tag: str
) -> None:
    check = _check(abilities, skills, fields, tag)
    odds = _odds(check)
    if len(odds) < 2:
        pytest.fail(f"{tag} has one outcome only; pick a target the dice can miss")
    p_value, freedom = _p_value(_observed(check, f"step-pool-stats-{seed}"), odds)
    assert p_value >= ALPHA, f"p = {p_value:.3g} with {freedom} degrees of freedom"


def test_the_test_can_fail() -> None:
    # Peet's lock thrown with his picks, measured against the odds without them.
    with_picks = _check(*CHARACTERS[0][1:])
    without = _check(
        *CHARACTERS[0][1:4], 'skill="Lockpick" difficulty="Uncommon" quality="agility"'
    )
    p_value, _ = _p_value(_observed(with_picks, "power"), _odds(without))
    assert p_value < ALPHA
