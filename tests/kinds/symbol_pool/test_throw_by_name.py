"""Throwing a symbol pool's dice by name (the page; issue 6): the text it reads, what a
throw comes to with forced faces, its exact odds against brute force, and the clear
errors for text it cannot read and for rulesets of other kinds."""

from __future__ import annotations

import copy
import json
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from test_kind_symbol_pool import (
    ABILITY,
    BOOST,
    CHALLENGE,
    DIFFICULTY,
    GENESYS,
    GENESYS_BLOCK,
    PROFICIENCY,
    SYMBOLS,
    _ruleset_raw,
)

from dicebound.compiler import compile_ruleset
from dicebound.dice import ForcedFaces, SeededDice
from dicebound.errors import DiceError, UsageError
from dicebound.kinds.symbol_pool import parse_details
from dicebound.kinds.symbol_pool.throw import MAX_THROWN, DiceAsk, read_dice
from dicebound.throw import roll_json, throw_by_name, throw_odds
from oracles import bf_symbol_pool

READ_ROWS: list[tuple[str, str, tuple[str, ...], str]] = [
    # (id, text, die ids in throw order, the dice as given back)
    (
        "the page's example",
        "2 ability 1 proficiency vs 2 difficulty",
        ("ability", "ability", "proficiency", "difficulty", "difficulty"),
        "2 ability 1 proficiency vs 2 difficulty",
    ),
    (
        "a missing count means one",
        "ability vs challenge",
        ("ability", "challenge"),
        "1 ability vs 1 challenge",
    ),
    (
        "labels in any case",
        "2 ABILITY 1 Boost",
        ("ability", "ability", "boost"),
        "2 ability 1 boost",
    ),
    (
        "a plural s is tolerated",
        "2 boosts 3 setbacks",
        ("boost",) * 2 + ("setback",) * 3,
        "2 boost 3 setback",
    ),
    ("a plural ies is tolerated", "2 abilities", ("ability", "ability"), "2 ability"),
    (
        "commas, plus signs and 'and' read as spaces",
        "1 ability, 1 proficiency + 1 boost and 1 setback",
        ("ability", "proficiency", "boost", "setback"),
        "1 ability 1 proficiency 1 boost 1 setback",
    ),
    ("a count may carry an x", "3x difficulty", ("difficulty",) * 3, "3 difficulty"),
    (
        "versus and v. read as vs",
        "ability versus difficulty",
        ("ability", "difficulty"),
        "1 ability vs 1 difficulty",
    ),
    (
        "v. is vs too",
        "ability v. difficulty",
        ("ability", "difficulty"),
        "1 ability vs 1 difficulty",
    ),
    ("vs first: every die opposes", "vs 2 difficulty", ("difficulty",) * 2, "vs 2 difficulty"),
    ("vs last is only read", "2 ability vs", ("ability", "ability"), "2 ability"),
    (
        "dice are thrown in the order written, across vs",
        "1 difficulty 1 ability vs 1 boost",
        ("difficulty", "ability", "boost"),
        "1 difficulty 1 ability vs 1 boost",
    ),
    ("a zero count names no die", "0 boost 1 ability", ("ability",), "1 ability"),
    ("the same die named twice", "1 ability 1 ability", ("ability", "ability"), "2 ability"),
]


@pytest.mark.parametrize(
    ("text", "thrown", "given_back"),
    [row[1:] for row in READ_ROWS],
    ids=[row[0] for row in READ_ROWS],
)
def test_reading_dice(text: str, thrown: tuple[str, ...], given_back: str) -> None:
    ask = read_dice(GENESYS, text)
    assert ask.thrown == thrown
    assert ask.text == given_back


def test_multi_word_labels_and_ids_with_underscores() -> None:
    block = copy.deepcopy(GENESYS_BLOCK)
    block["dice"][4] = {"id": "boost_die", "label": "Blue Boost", "faces": BOOST}
    block["boost"]["die"] = "boost_die"
    ruleset = compile_ruleset(_ruleset_raw(block))
    assert read_dice(ruleset, "2 blue boosts").thrown == ("boost_die", "boost_die")
    assert read_dice(ruleset, "boost_die, Boost-Die").thrown == ("boost_die", "boost_die")


BAD_ROWS: list[tuple[str, str, str]] = [
    # (id, text, words the error must hold)
    ("a misspelt die, with a did you mean", "2 abilty", '"abilty" is not a die of Symbols test'),
    ("the did you mean names the die", "2 profiency", 'Did you mean "proficiency"?'),
    ("the error lists the dice", "1 wild", "its dice are ability, proficiency, difficulty"),
    ("a count at the end counts no die", "2 ability 3", '"3" at the end'),
    ("vs twice", "ability vs difficulty vs setback", "writes vs twice"),
    ("no dice at all", "", "names no dice"),
    ("only a zero count", "0 ability", "names no dice"),
    ("only vs", "vs", "names no dice"),
    ("too many of one name", "21 ability", "more than 20"),
    ("too many dice", "20 ability 20 boost 1 setback", f"more than {MAX_THROWN} dice"),
    ("two counts in a row", "2 3 ability", '"3" is not a die'),
]


@pytest.mark.parametrize(("text", "words"), [r[1:] for r in BAD_ROWS], ids=[r[0] for r in BAD_ROWS])
def test_text_that_cannot_be_read(text: str, words: str) -> None:
    with pytest.raises(UsageError) as caught:
        read_dice(GENESYS, text)
    assert words in str(caught.value)


def test_only_a_symbol_pool_throws_dice_by_name() -> None:
    raw = _ruleset_raw(GENESYS_BLOCK)
    raw["resolution"] = {
        "kind": "dice-sum",
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [{"id": "untrained", "label": "Untrained"}],
        "difficultyLadder": [{"label": "Hard", "dc": 15}],
    }
    summed = compile_ruleset(raw)
    for call in (
        lambda: read_dice(summed, "1 ability"),
        lambda: throw_by_name(summed, "1 ability", ForcedFaces([1])),
        lambda: throw_odds(summed, "1 ability"),
    ):
        with pytest.raises(UsageError) as caught:
            call()
        assert "only a symbol-pool ruleset throws its dice by name" in str(caught.value)
        assert "dice-sum" in str(caught.value)


THROW_ROWS: list[tuple[str, str, list[int], str, int, bool, Any]] = [
    # (id, text, faces, symbols, net successes, success, critical)
    (
        "the page's example",
        "2 ability 1 proficiency vs 2 difficulty",
        [2, 4, 6, 2, 1],
        "2s 1a",
        2,
        True,
        None,
    ),
    ("cancelling leaves nothing", "ability vs difficulty", [7, 8], "", 0, False, None),
    ("a triumph counts a success and remains", "proficiency", [12], "1s 1t", 1, True, "success"),
    (
        "a triumph cancelled stays marked",
        "proficiency vs difficulty",
        [12, 2],
        "1t",
        0,
        False,
        "success",
    ),
    ("both markers", "proficiency vs challenge", [12, 12], "1t 1d", 0, False, "both"),
    ("a despair on a success", "2 ability vs challenge", [4, 2, 12], "2s 1d", 2, True, "failure"),
]


@pytest.mark.parametrize(
    ("text", "faces", "symbols", "net", "success", "critical"),
    [r[1:] for r in THROW_ROWS],
    ids=[r[0] for r in THROW_ROWS],
)
def test_throwing(
    text: str, faces: list[int], symbols: str, net: int, success: bool, critical: Any
) -> None:
    thrown = throw_by_name(GENESYS, text, ForcedFaces(faces))
    assert thrown.rolls == tuple(faces)
    assert thrown.symbols == symbols
    assert thrown.successes == net and thrown.success == success
    assert thrown.critical == critical
    assert thrown.needed == 1
    details = parse_details(thrown.symbol_details)
    assert len(details.faces) == len(faces)


def test_a_throw_as_json() -> None:
    thrown = throw_by_name(
        GENESYS, "2 ability 1 proficiency vs 2 difficulty", ForcedFaces([2, 4, 6, 2, 1])
    )
    body = thrown.to_json()
    assert body["thrown"] == ["ability", "ability", "proficiency", "difficulty", "difficulty"]
    assert body["rolls"] == [2, 4, 6, 2, 1]
    assert body["net"] == {"s": 2, "a": 1}
    assert body["text"] == (
        "2 ability 1 proficiency vs 2 difficulty: 2 Success, 1 Advantage. Success."
    )
    assert body["critical"] is None and body["success"] is True
    json.dumps(body)


def test_roll_json_replays_from_its_seed() -> None:
    first = roll_json(GENESYS, "2 ability 1 proficiency vs 2 difficulty", seed=42)
    again = roll_json(GENESYS, "2 ability 1 proficiency vs 2 difficulty", seed="42")
    assert first == again and first["seed"] == "42"
    assert first["rolls"] == [3, 7, 11, 1, 1]  # SeededDice("42"), one draw a die
    json.dumps(first)


def test_needed_comes_from_success_needed() -> None:
    block = copy.deepcopy(GENESYS_BLOCK)
    block["success"]["needed"] = 2
    ruleset = compile_ruleset(_ruleset_raw(block))
    thrown = throw_by_name(ruleset, "1 ability", ForcedFaces([2]))
    assert thrown.needed == 2 and not thrown.success
    assert throw_odds(ruleset, "1 ability").success == Fraction(1, 8)  # only "ss"


def test_forced_faces_a_die_lacks_are_a_dice_error() -> None:
    with pytest.raises(DiceError):
        throw_by_name(GENESYS, "1 ability", ForcedFaces([9]))


ODDS_ROWS: list[tuple[str, list[Any]]] = [
    (
        "2 ability 1 proficiency vs 2 difficulty",
        [ABILITY, ABILITY, PROFICIENCY, DIFFICULTY, DIFFICULTY],
    ),
    ("proficiency vs challenge", [PROFICIENCY, CHALLENGE]),
    ("3 boost", [BOOST] * 3),
]


@pytest.mark.parametrize(("text", "dice"), ODDS_ROWS, ids=[r[0] for r in ODDS_ROWS])
def test_odds_equal_brute_force(text: str, dice: list[Any]) -> None:
    odds = throw_odds(GENESYS, text)
    brute = bf_symbol_pool(dice, SYMBOLS, "s", 1, "t", "d")
    assert odds.success == sum(p for k, p in brute.items() if k[1])
    by_net: dict[int, Fraction] = {}
    for (net, _, _, _), p in brute.items():
        by_net[net] = by_net.get(net, Fraction(0)) + p
    assert dict(odds.successes) == by_net
    assert odds.marked_success == sum(p for k, p in brute.items() if k[2])
    assert odds.marked_failure == sum(p for k, p in brute.items() if k[3])
    body = odds.to_json()
    assert body["dice"] == read_dice(GENESYS, text).text
    json.dumps(body)


def test_the_odds_match_many_seeded_throws_roughly() -> None:
    """A quick sanity check beside the chi-square tests: 2,000 throws land within a few
    standard deviations of the exact chance of success."""
    text = "2 ability 1 proficiency vs 2 difficulty"
    p = float(throw_odds(GENESYS, text).success)
    wins = Counter(
        throw_by_name(GENESYS, text, SeededDice(f"by-name-{i}")).success for i in range(2000)
    )
    sd = (2000 * p * (1 - p)) ** 0.5
    assert abs(wins[True] - 2000 * p) < 5 * sd


def test_dice_ask_text() -> None:
    assert DiceAsk(("ability", "boost"), 1).text == "1 ability vs 1 boost"
    assert DiceAsk(("ability",)).text == "1 ability"
