"""Outcome bands and overrides through a whole check (the page's "Outcome bands" and
"Checks that roll their own way"), with forced faces; and the odds agree."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.odds import check_odds
from dicebound.tagpass import resolve_text

RAW = json.loads((Path(__file__).parent / "cases" / "ruleset_degrees.json").read_text())
RULESET = compile_ruleset(RAW)
PLAIN = load_character(RULESET, {"name": "Ada"})  # grace 3, untrained: +3
LUCKY = load_character(
    RULESET, {"name": "Lu", "sheet": {"v": 1, "build": {"fields": {"lucky": 1}}}}
)

ROWS = [
    # (rule, character, tag, faces, outcome label, result word)
    (
        "margin 10 or more lands in the best band",
        PLAIN,
        "skill=Sneak dc=10",
        (17,),
        "Critical success",
        "critical_success",
    ),
    ("margin 0 to 9 is a success", PLAIN, "skill=Sneak dc=10", (7,), "Success", "success"),
    ("margin -1 to -9 is a failure", PLAIN, "skill=Sneak dc=10", (6,), "Failure", "failure"),
    (
        "below the last atLeast is the last band",
        PLAIN,
        "skill=Sneak dc=20",
        (2,),
        "Critical failure",
        "critical_failure",
    ),
    (
        "shift: the top face moves one band better",
        PLAIN,
        "skill=Sneak dc=25",
        (20,),
        "Success",
        "success",
    ),
    (
        "shift never moves past the best band",
        PLAIN,
        "skill=Sneak dc=10",
        (20,),
        "Critical success",
        "critical_success",
    ),
    (
        "shift: the bottom face moves one band worse",
        PLAIN,
        "skill=Sneak dc=1",
        (1,),
        "Failure",
        "failure",
    ),
    (
        "shift never moves past the worst band",
        PLAIN,
        "skill=Sneak dc=30",
        (1,),
        "Critical failure",
        "critical_failure",
    ),
    (
        "an override without when rolls its own dice",
        PLAIN,
        "skill=Climb dc=5 mode=advantage",
        (2, 5),
        "Success",
        "success",
    ),
    (
        "the first override whose when holds is used",
        LUCKY,
        "skill=Climb dc=10",
        (7,),
        "Success",
        "success",
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_band_rule(row: tuple[str, object, str, tuple[int, ...], str, str]) -> None:
    _, who, tag, faces, label, word = row
    report = resolve_text(RULESET, [who], f"[skill_check: {tag}]", faces=faces)  # type: ignore[list-item]
    assert not report.errors, report.errors
    (result,) = report.results
    assert result.outcome == label
    assert result.record.get("outcome") == label
    assert result.record.get("result") == word


def test_override_dice_show_on_the_record() -> None:
    report = resolve_text(RULESET, [LUCKY], "[skill_check: skill=Climb dc=10]", faces=(7,))
    assert report.results[0].record.get("dice") == "1d12"
    report = resolve_text(RULESET, [PLAIN], "[skill_check: skill=Climb dc=5]", faces=(4,))
    assert report.results[0].record.get("dice") == "1d6"


def test_odds_are_per_band_best_first_and_sum_to_one() -> None:
    odds = check_odds(RULESET, PLAIN, "skill=Sneak dc=15")
    assert [o.label for o in odds.outcomes] == [
        "Critical success",
        "Success",
        "Failure",
        "Critical failure",
    ]
    assert sum(o.probability for o in odds.outcomes) == 1
    # +3 vs 15: total 25+ impossible without the 20's shift; a 20 (total 23, margin 8) shifts up.
    assert odds.outcomes[0].probability == Fraction(1, 20)
    # Success: d20 12..19 -> margin 0..7 (8 faces); Critical failure: faces 2..2 (margin -10) and 1 shifted.
    assert odds.outcomes[1].probability == Fraction(8, 20)
    assert odds.success == Fraction(9, 20)


def test_gm_is_taught_the_bands_and_the_overrides() -> None:
    from dicebound.teach import gm_text

    text = gm_text(RULESET)
    assert "- Success: You do it." in text
    assert "Sure-footed (Climb): Climbs on a d6 with advantage." in text


def _with_choice() -> object:
    raw = json.loads(json.dumps(RAW))
    tiers = raw["resolution"]["outcomes"]["tiers"]
    tiers.insert(2, {"id": "cost", "label": "At a cost", "atLeast": -2, "choice": True})
    raw["resolution"].pop("overrides")
    return compile_ruleset(raw)


@pytest.mark.parametrize(
    ("choose", "success", "choice"),
    [(None, False, "open"), ("succeed", True, "succeed"), ("fail", False, "fail")],
    ids=[
        "a choice band stays open",
        "--choose succeed makes it a success",
        "--choose fail keeps it failed",
    ],
)
def test_a_choice_band_is_the_players_to_settle(
    choose: str | None, success: bool, choice: str
) -> None:
    from dicebound.engine import PlayerChoices

    ruleset = _with_choice()
    report = resolve_text(
        ruleset,
        [PLAIN],
        "[skill_check: skill=Sneak dc=12]",
        faces=(8,),  # type: ignore[arg-type]
        choices=PlayerChoices(choose=choose),  # type: ignore[arg-type]
    )
    (result,) = report.results
    assert result.outcome == "At a cost"
    assert (result.success, result.choice) == (success, choice)
    assert result.record.get("choice") == choice


def test_choose_on_a_result_with_no_open_choice_changes_nothing() -> None:
    from dicebound.engine import PlayerChoices

    ruleset = _with_choice()
    report = resolve_text(
        ruleset,
        [PLAIN],
        "[skill_check: skill=Sneak dc=10]",
        faces=(8,),  # type: ignore[arg-type]
        choices=PlayerChoices(choose="fail"),
    )
    (result,) = report.results
    assert (result.outcome, result.success, result.choice) == ("Success", True, None)


def test_an_override_with_null_takes_cancel_away_when_its_field_holds() -> None:
    """The page's exwod example: 1s that do not cancel on a favored check."""
    raw = json.loads((Path(__file__).parent / "cases" / "ruleset_lantern.json").read_text())
    raw["sheet"]["fields"] = [
        {"id": "favored_lie", "label": "Favored at lying", "type": "number", "min": 0, "max": 1}
    ]
    raw["resolution"]["overrides"] = [
        {
            "id": "favored",
            "label": "Favored",
            "skills": ["lie"],
            "when": {"field": "favored_lie"},
            "set": {"cancel": None},
        }
    ]
    ruleset = compile_ruleset(raw)
    build = {"v": 1, "build": {"abilities": {"wile": 2}, "skills": {"lie": "r1"}}}
    plain = load_character(ruleset, {"name": "Ash", "sheet": build})
    favored = load_character(
        ruleset,
        {
            "name": "Bo",
            "sheet": {"v": 1, "build": {**build["build"], "fields": {"favored_lie": 1}}},
        },
    )
    tag = "[skill_check: skill=Lie dc=1]"
    faces = (4, 1, 2)  # three dice: one success, one 1
    (cancelled,) = resolve_text(ruleset, [plain], tag, faces=faces).results
    (kept,) = resolve_text(ruleset, [favored], tag, faces=faces).results
    assert (cancelled.record.get("total"), cancelled.success) == ("0", False)
    assert (kept.record.get("total"), kept.success) == ("1", True)
