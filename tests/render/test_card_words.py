"""The words a table reads on a card, on both cards (the terminal's ``lines`` and the
player's ``plain``), while the record keeps its own fields: Fate's dice and ladder, a
percentile tens die of 00, a Genesys pool whose symbols all cancelled, and points in
English."""

from __future__ import annotations

from typing import Any

import pytest

from dicebound.edge.files import read_character, read_ruleset
from dicebound.engine import CheckResult
from dicebound.record import record_from_attrs
from dicebound.render.player import CardContext, player_lines, points_of
from dicebound.render.text import render_text
from dicebound.tagpass import resolve_text
from dicebound.tags.parse import parse_tags
from dicebound.views import card_json


def _thrown(
    ruleset_id: str, character: str, tag: str, seed: str, faces: list[int] | None = None
) -> tuple[CheckResult, dict[str, Any], CardContext]:
    ruleset = read_ruleset(ruleset_id)
    roller = read_character(ruleset, f"{ruleset_id}/{character}")
    thrown = resolve_text(ruleset, [roller], tag, seed=None if faces else seed, faces=faces)
    result = thrown.results[0]
    context = CardContext(ruleset, roller, dict(parse_tags(result.ask)[0].attrs))
    card = card_json(
        result.record.attrs,
        who=result.who,
        outcome=result.outcome,
        die_marks=result.die_marks,
        context=context,
    )
    return result, card, context


def _line(lines: list[list[str]], term: str) -> str:
    return next(text for t, text in lines if t == term)


FATE = '[skill_check: skill="Athletics" difficulty="Good"]'


def test_fate_dice_read_4df_against_a_step_of_the_ladder() -> None:
    result, card, _ = _thrown("fate-core", "ines", FATE, "3")
    assert result.record.get("dice") == "4d3" and result.record.get("dc") == "3"  # unchanged
    for lines in (card["lines"], card["plain"]):
        assert _line(lines, "Dice").startswith("4dF: ")
        assert _line(lines, "Total").endswith(" against Good (+3)")
        assert "DC" not in _line(lines, "Total")


def test_fate_dice_that_all_show_plus_one_still_read_as_fate_dice() -> None:
    _, card, _ = _thrown("fate-core", "ines", FATE, "3", faces=[3, 3, 3, 3])
    assert _line(card["lines"], "Dice") == "4dF: [+] [+] [+] [+]"
    assert [d["face"] for d in card["shown"]] == ["[+]"] * 4


def test_a_fate_number_off_the_ladder_reads_as_a_signed_number() -> None:
    _, card, _ = _thrown("fate-core", "ines", '[skill_check: skill="Athletics" dc="12"]', "3")
    assert _line(card["plain"], "Total").endswith(" against +12")


def test_a_sum_of_plain_dice_keeps_its_dc() -> None:
    _, card, _ = _thrown("dnd5e-srd", "mira", '[skill_check: skill="Stealth" dc="15"]', "3")
    assert _line(card["plain"], "Total").endswith(" against DC 15")
    assert _line(card["plain"], "Dice").startswith("1d20: ")


def test_a_percentile_tens_die_of_zero_reads_00() -> None:
    tag = '[skill_check: skill="Spot Hidden" bonus="2"]'
    result, card, _ = _thrown("coc7e", "eleanor", tag, "8")
    assert result.record.rolls == ("40", "10", "0")  # the record keeps its faces
    assert _line(card["lines"], "Dice") == "1d100+2d10: 40, 10, 00"
    assert _line(card["plain"], "Dice") == "1d100+2d10: 40, 10, 00"
    assert [d["face"] for d in card["shown"]] == ["40", "10", "00"]
    assert card["shown"][1]["counted"] is True  # the 10 made the roll 10, kept


def test_a_genesys_pool_whose_symbols_all_cancel_says_so() -> None:
    tag = '[skill_check: skill="Athletics" dc="2"]'
    result, card, _ = _thrown("genesys", "kira", tag, "2")
    assert result.record.get("symbols") == ""
    assert _line(card["lines"], "Symbols") == "all symbols cancelled"
    assert _line(card["plain"], "Symbols") == "all symbols cancelled"


@pytest.mark.parametrize(
    ("n", "label", "more", "words"),
    [
        (1, "Luck", "", "1 point of Luck"),
        (1, "Luck", "more ", "1 more point of Luck"),
        (2, "Luck", "more ", "2 more points of Luck"),
        (1, "Willpower points", "", "1 Willpower point"),
        (3, "Willpower points", "more ", "3 more Willpower points"),
        (1, "Points", "", "1 point"),
    ],
)
def test_points_read_as_english(n: int, label: str, more: str, words: str) -> None:
    assert points_of(n, label, more) == words


def test_the_offer_and_an_answer_after_the_roll_count_their_points() -> None:
    tag = '[skill_check: skill="Lockpick" difficulty="Uncommon"]'
    result, card, context = _thrown("advanced-resolution", "peet", tag, "1")
    assert _line(card["plain"], "Offer") == "Sacrifice for 4 more points of Body, Mind or Luck"
    record = record_from_attrs((*result.record.attrs, ("after", "luck:1@1")))
    lines = player_lines(record, card["shown"], outcome=result.outcome, context=context)
    assert _line([list(line) for line in lines], "After") == (
        "Luck, 1 point spent after the roll to raise die 1"
    )


def test_a_spend_from_a_pool_counted_in_points_says_points_once() -> None:
    tag = '[skill_check: skill="Brawl" difficulty="Easy" spend="willpower_points:1"]'
    _, card, _ = _thrown("wod-pool", "lucia", tag, "1")
    text = " ".join(f"{term} {words}" for term, words in card["plain"])
    assert "Willpower points" in text and "points points" not in text
    assert "1 points" not in text


def test_the_terminal_card_without_the_ruleset_still_reads_fate_faces() -> None:
    result, _, _ = _thrown("fate-core", "ines", FATE, "3")
    card = render_text(result.record)
    assert "4dF: [+] [ ] [+] [ ]" in card and "against +3" in card
