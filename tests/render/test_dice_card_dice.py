"""The dice card's faces: every die thrown, in throw order, with what happened to it.

The pool's roller says it as it throws (forced faces fix each row): a die at or over
the target counts (``hit``), twice at the double face (``doubled``); a low face
``cancels``; a die that sets off added dice ``exploded`` and each added die is
``added``; a face thrown again is ``rethrown`` (it no longer counts) and its new face
``thrown-again``. The record says the rest: kept and dropped dice of an advantage or of
the highest dice, dark dice, the name of each symbol die.
"""

from __future__ import annotations

import pytest

from dicebound.dice import ForcedFaces
from dicebound.kinds.dice_pool import PoolCheck, roll
from dicebound.record import record_from_attrs
from dicebound.render.text import card_dice
from dicebound.spend import Reroll
from dicebound.views import card_json


def _pool(dice: int, **rules: object) -> PoolCheck:
    return PoolCheck(sides=10, dice=dice, target=7, needed=1, **rules)  # type: ignore[arg-type]


POOL_MARKS = [
    (
        "a die at or over the target counts; one under it is bare",
        _pool(3),
        (7, 6, 10),
        [["hit"], [], ["hit"]],
    ),
    (
        "a face at the double face counts twice",
        _pool(2, double_from=10),
        (10, 8),
        [["doubled"], ["hit"]],
    ),
    (
        "a low face cancels a success",
        _pool(3, cancel_up_to=1),
        (8, 8, 1),
        [["hit"], ["hit"], ["cancels"]],
    ),
    (
        "an exploding die adds dice, to the end of the chain",
        _pool(2, explode_from=10, max_extra=15),
        (10, 4, 10, 3),
        [["exploded", "hit"], [], ["added", "exploded", "hit"], ["added"]],
    ),
    (
        "a face thrown again no longer counts; its new face does",
        _pool(2, reroll=Reroll(6, "once")),
        (3, 8, 9),
        [["rethrown"], ["hit"], ["thrown-again", "hit"]],
    ),
    (
        "re-throws come after explosions; a chain's dice are thrown again too",
        _pool(2, explode_from=10, max_extra=15, reroll=Reroll(6, "once")),
        (10, 4, 3, 8, 9),
        [
            ["exploded", "hit"],
            ["rethrown"],
            ["added", "rethrown"],
            ["thrown-again", "hit"],
            ["thrown-again", "hit"],
        ],
    ),
    (
        "an exact face counts as exact, not as a hit",
        _pool(2, exact=True),
        (7, 8),
        [["hit", "exact"], ["hit"]],
    ),
]


@pytest.mark.parametrize(
    ("rule", "check", "faces", "marks"), POOL_MARKS, ids=[row[0] for row in POOL_MARKS]
)
def test_the_pool_roller_says_what_happened_to_each_die(
    rule: str, check: PoolCheck, faces: tuple[int, ...], marks: list[list[str]]
) -> None:
    rolled = roll(check, ForcedFaces(faces))
    assert list(rolled.rolls) == [str(f) for f in faces]
    assert [list(m) for m in rolled.marks] == marks


RECORD_DICE = [
    (
        "advantage: the better set is kept, the other dropped",
        [
            ("rolls", "4|17"),
            ("used", "17"),
            ("mode", "advantage"),
            ("total", "17"),
            ("dice", "1d20"),
        ],
        [("4", None, ("dropped",)), ("17", None, ("kept",))],
    ),
    (
        "disadvantage keeps the worse",
        [
            ("rolls", "4|17"),
            ("used", "4"),
            ("mode", "disadvantage"),
            ("total", "4"),
            ("dice", "1d20"),
        ],
        [("4", None, ("kept",)), ("17", None, ("dropped",))],
    ),
    (
        "the highest die is kept, a dark die is marked dark",
        [("rolls", "2|5|6"), ("total", "6"), ("highest", "1"), ("dark", "1"), ("dice", "3d6")],
        [("2", None, ("dropped",)), ("5", None, ("dropped",)), ("6", None, ("dark", "kept"))],
    ),
    (
        "a symbol die is named",
        [("rolls", "3|7"), ("thrown", "ability|difficulty"), ("symbols", "1s"), ("total", "1")],
        [("3", "ability", ()), ("7", "difficulty", ())],
    ),
    (
        "a step-pool die raised after the roll says by how much",
        [
            ("rolls", "5|9|6"),
            ("raises", "0|0|+2"),
            ("effort", "2"),
            ("total", "2"),
            ("resolution", "successes"),
            ("dice", "1d12+2d10"),
        ],
        [("5", None, ()), ("9", None, ()), ("6", None, ("raised +2",))],
    ),
    (
        "Fate dice read as their symbols",
        [("rolls", "-1|0|1|1"), ("total", "1"), ("dice", "4dF")],
        [("[−]", None, ()), ("[ ]", None, ()), ("[+]", None, ()), ("[+]", None, ())],
    ),
]


@pytest.mark.parametrize(
    ("rule", "attrs", "dice"), RECORD_DICE, ids=[row[0] for row in RECORD_DICE]
)
def test_the_record_says_which_dice_stand(
    rule: str, attrs: list[tuple[str, str]], dice: list[tuple[str, str | None, tuple[str, ...]]]
) -> None:
    record = record_from_attrs([("skill", "Test"), ("dc", "10"), *attrs, ("result", "success")])
    assert card_dice(record) == dice


def test_a_card_joins_the_records_marks_and_the_rollers() -> None:
    attrs = [
        ("skill", "Ward"),
        ("dc", "1"),
        ("rolls", "10|4|3"),
        ("total", "1"),
        ("resolution", "successes"),
        ("result", "success"),
        ("dice", "3d10"),
    ]
    card = card_json(
        attrs, who="Bram", outcome="Success", die_marks=[("exploded", "hit"), (), ("added",)]
    )
    assert card["dice"] == [
        {"face": "10", "die": None, "marks": ["exploded", "hit"]},
        {"face": "4", "die": None, "marks": []},
        {"face": "3", "die": None, "marks": ["added"]},
    ]
    assert card["title"].startswith("Ward") and ["Seed", "1"] not in card["lines"]
    # marks that do not fit the dice (a record of another throw) are not shown
    wrong = card_json(attrs, who="Bram", outcome="Success", die_marks=[("hit",)])
    assert [d["marks"] for d in wrong["dice"]] == [[], [], []]
