"""Spending to change a roll (the page's "Spending to change a roll"): ``spend="pool:N"``
on a check, read against ``resolution.spend``; all or nothing, clamped to ``perCheck``.

Thornwatch and Bram come from the pool play tests: one point of Resolve buys one
success, twice a check at most; Bram holds 2 Resolve of 3, and throws seven dice for
Ward and three for Soothe.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_kind_dice_pool_play import attrs, result, throw, warden, watch

from dicebound.engine import CheckFailure
from dicebound.ruleset.model import ValueRef
from dicebound.sheet import SheetView
from dicebound.spend import (
    Purchase,
    Reroll,
    Spend,
    SpendAsk,
    buy,
    find_pool,
    parse_spend,
    per_check_limit,
)

WATCH = watch()
BRAM = warden(WATCH)
LOW7 = (2, 3, 4, 5, 2, 3, 4)  # seven dice, no success at 7, no one


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("resolve:2", SpendAsk("resolve", 2)),
        ("Resolve : +3", SpendAsk("Resolve", 3)),
        ("tokens:lucky coin:1", None),
        ("resolve:2.0", SpendAsk("resolve", 2)),
        ("resolve:0", None),
        ("resolve:-1", None),
        ("resolve:1.5", None),
        ("resolve", None),
        (":2", None),
        (None, None),
    ],
    ids=[
        "pool:N",
        "any case, spaces and a plus sign",
        "a pool name holding a colon is not pool:N",
        "a whole number written with .0",
        "N is at least 1",
        "a negative N is nothing",
        "a fraction of a point is nothing",
        "no points",
        "no pool",
        "no spend= at all",
    ],
)
def test_parse_spend(text: str | None, expected: SpendAsk | None) -> None:
    assert parse_spend(text) == expected


def test_a_pool_is_found_by_id_or_label_in_any_case() -> None:
    view = SheetView(WATCH, BRAM)
    assert find_pool(view, "resolve") == "resolve"
    assert find_pool(view, "RESOLVE") == "resolve"
    assert find_pool(view, "Blood") == "blood"
    assert find_pool(view, "luck") is None


def test_a_list_rows_pool_is_found_by_its_name() -> None:
    bram = warden(WATCH, lists={"tokens": [{"kind": "coin", "title": "Lucky Coin", "uses": 1}]})
    view = SheetView(WATCH, bram)
    assert find_pool(view, "lucky coin") == "tokens:lucky coin"
    assert find_pool(view, "tokens:Lucky Coin") == "tokens:lucky coin"


@pytest.mark.parametrize(
    ("per_check", "grit", "number", "limit"),
    [
        (2, 0, 7, 2),
        (ValueRef("field", "grit"), 3, 7, 3),
        (ValueRef("field", "grit"), 150, 7, 100),
        (ValueRef("field", "grit"), 0, 7, 0),
        (ValueRef("const", value=2.9), 0, 7, 2),
        ("pool", 0, 7, 7),
        ("pool", 0, -2, 0),
    ],
    ids=[
        "perCheck a number from 1 to 10",
        "perCheck a value off the roller's sheet",
        "a value off the sheet is held to 100",
        "a value off the sheet may come to 0",
        "a value off the sheet is rounded down",
        'perCheck "pool": the sheet\'s number for the check',
        'perCheck "pool" is never below 0',
    ],
)
def test_per_check_limit(per_check: Any, grit: int, number: int, limit: int) -> None:
    view = SheetView(WATCH, warden(WATCH, fields={"grit": grit}))
    rule = Spend("resolve", 1, per_check, successes=1)
    assert per_check_limit(rule, view, number) == limit


RULES = (
    Spend("resolve", 1, 2, successes=1),
    Spend("blood", 2, 3, dice=1, reroll=Reroll(1, "once")),
)


@pytest.mark.parametrize(
    ("ask", "committed", "expected"),
    [
        (SpendAsk("resolve", 1), {}, Purchase("resolve", 1, 1, successes=1)),
        (SpendAsk("Resolve", 5), {}, Purchase("resolve", 2, 2, successes=2)),
        (SpendAsk("blood", 4), {}, Purchase("blood", 2, 4, dice=2, reroll=Reroll(1, "once"))),
        (SpendAsk("blood", 3), {}, None),
        (SpendAsk("blood", 8), {}, None),
        (SpendAsk("resolve", 2), {"resolve": 1}, None),
        (SpendAsk("resolve", 1), {"resolve": 1}, Purchase("resolve", 1, 1, successes=1)),
        (SpendAsk("ichor", 1), {}, None),
        (SpendAsk("luck", 1), {}, None),
    ],
    ids=[
        "one point, one purchase",
        "more than perCheck is clamped and only the cap is paid",
        "every amount points buy one purchase; the re-throw is bought once",
        "points that are not a whole number of purchases buy nothing",
        "a pool that cannot cover the clamped payment buys nothing",
        "what the check already owes on the pool counts against it",
        "what is left after it still buys",
        "a pool no spend entry names buys nothing",
        "a name no pool answers to buys nothing",
    ],
)
def test_buy(ask: SpendAsk, committed: dict[str, int], expected: Purchase | None) -> None:
    # Bram: Resolve 2, Blood 4 (full).
    view = SheetView(WATCH, BRAM)
    assert buy(RULES, ask, view, sheet_number=7, committed=committed) == expected


# -- on a check ---------------------------------------------------------------------------


def test_a_point_buys_a_success_added_after_counting_and_is_paid_after_the_throw() -> None:
    item = result(WATCH, BRAM, 'skill="Ward" dc="2" spend="resolve:1"', (7, 1, 2, 3, 4, 5, 6))
    got = attrs(item)
    # One seven, cancelled by the one, then the success nobody rolled: 1 of 2 needed.
    assert (got["total"], got["result"], got["spend"], got["auto"]) == (
        "1",
        "failure",
        "resolve:1",
        "1",
    )
    assert [(c.who, c.pool, c.from_, c.to) for c in item.changes] == [
        ("Bram the Quiet", "resolve", 2, 1)
    ]


def test_the_pool_is_named_by_its_label_in_any_case() -> None:
    got = attrs(result(WATCH, BRAM, 'skill="Ward" dc="2" spend="RESOLVE:2"', LOW7))
    assert (got["spend"], got["auto"], got["result"]) == ("resolve:2", "2", "success")


def test_more_than_per_check_is_clamped_and_only_the_cap_is_paid() -> None:
    full = warden(WATCH, live={})
    item = result(WATCH, full, 'skill="Ward" dc="2" spend="resolve:3"', LOW7)
    assert (attrs(item)["spend"], attrs(item)["auto"]) == ("resolve:2", "2")
    assert [(c.from_, c.to) for c in item.changes] == [(3, 1)]


@pytest.mark.parametrize(
    ("tag", "resolve"),
    [
        ('skill="Ward" dc="1" spend="resolve:2"', 1),
        ('skill="Ward" dc="1" spend="resolve:1"', 0),
        ('skill="Ward" dc="1" spend="blood:1"', 2),
        ('skill="Ward" dc="1" spend="resolve"', 2),
        ('skill="Ward" dc="1" spend="resolve:two"', 2),
    ],
    ids=[
        "all or nothing: a pool that cannot cover it buys nothing",
        "an empty pool buys nothing",
        "a pool no spend entry names is ignored",
        "spend= without points is ignored",
        "spend= with points that are not a number is ignored",
    ],
)
def test_a_spend_that_buys_nothing_pays_nothing(tag: str, resolve: int) -> None:
    bram = warden(WATCH, live={"pools": {"resolve": {"value": resolve}}})
    item = result(WATCH, bram, tag, LOW7)
    got = attrs(item)
    assert "spend" not in got and "auto" not in got
    assert item.changes == ()
    # the roll is exactly the one it would have been
    assert attrs(result(WATCH, bram, 'skill="Ward" dc="1"', LOW7))["total"] == got["total"]


def test_points_that_are_not_a_whole_number_of_purchases_buy_nothing() -> None:
    rs = watch(spend=[{"pool": "resolve", "amount": 2, "successes": 1, "perCheck": 2}])
    full = warden(rs, live={})
    item = result(rs, full, 'skill="Ward" dc="1" spend="resolve:3"', LOW7)
    assert "spend" not in attrs(item) and item.changes == ()
    item = result(rs, full, 'skill="Ward" dc="1" spend="resolve:2"', LOW7)
    assert (attrs(item)["spend"], attrs(item)["auto"]) == ("resolve:2", "1")


@pytest.mark.parametrize(
    ("grit", "points", "paid"),
    [(2, 4, 2), (0, 4, None), (150, 4, 4)],
    ids=[
        "perCheck read off the sheet: Grit 2 buys two",
        "a limit of 0 buys nothing and pays nothing",
        "a limit held to 100 lets every point offered buy",
    ],
)
def test_per_check_read_off_the_rollers_sheet(grit: int, points: int, paid: int | None) -> None:
    rs = watch(
        spend=[{"pool": "blood", "amount": 1, "successes": 1, "perCheck": {"field": "grit"}}]
    )
    bram = warden(rs, fields={"grit": grit})
    item = result(rs, bram, f'skill="Ward" dc="1" spend="blood:{points}"', LOW7)
    if paid is None:
        assert "spend" not in attrs(item) and item.changes == ()
    else:
        assert attrs(item)["spend"] == f"blood:{paid}"
        assert [(c.from_, c.to) for c in item.changes] == [(4, 4 - paid)]


def test_per_check_pool_is_the_sheets_number_before_wounds_and_bonus_dice() -> None:
    rs = watch(spend=[{"pool": "blood", "amount": 1, "dice": 1, "perCheck": "pool"}])
    hurt = warden(rs, live={"wounds": {"harm": {"marks": ["tear"] * 3}}})
    # Soothe is 3 dice on the sheet; the wound takes 3 off and bonus= 1 more, but the limit
    # stays 3: 3 - 3 - 1 + 3 bought = 2 dice.
    item = result(rs, hurt, 'skill="Soothe" dc="1" bonus="-1" spend="blood:4"', (7, 2))
    got = attrs(item)
    assert (got["dice"], got["spend"], got["penalty"]) == ("2d10", "blood:3", "-3")
    assert "auto" not in got


def test_bought_dice_are_thrown_with_the_pool_inside_its_range() -> None:
    rs = watch(
        pool={"min": 1, "max": 8},
        spend=[{"pool": "blood", "amount": 1, "dice": 1, "perCheck": 3}],
    )
    item = result(rs, warden(rs), 'skill="Ward" dc="1" spend="blood:3"', (2,) * 8)
    assert (attrs(item)["dice"], attrs(item)["spend"]) == ("8d10", "blood:3")


def test_a_reroll_is_bought_once_however_many_purchases() -> None:
    rs = watch(
        spend=[
            {
                "pool": "blood",
                "amount": 1,
                "successes": 1,
                "reroll": {"upTo": 1, "mode": "once"},
                "perCheck": 3,
            }
        ]
    )
    # Two ones thrown again once each (not thrice): the new faces stand, even a one.
    item = result(
        rs, warden(rs), 'skill="Ward" dc="4" spend="blood:3"', (1, 1, 7, 2, 3, 4, 5, 1, 8)
    )
    got = attrs(item)
    assert (got["rolls"], got["rerolled"], got["auto"]) == ("1|1|7|2|3|4|5|1|8", "2", "3")
    # 7 and 8 count, the one thrown up again cancels one: 1 + 3 bought = 4 of 4.
    assert (got["total"], got["result"]) == ("4", "success")
    assert "reroll" not in got


@pytest.mark.parametrize(
    ("spend_reroll", "tag", "faces", "expect", "absent"),
    [
        (
            {"upTo": 1, "mode": "once"},
            'reroll="careful"',
            (6, 7, 7, 7, 7, 7, 7, 9),
            {"rerolled": "1", "reroll": "careful"},
            (),
        ),
        (
            {"upTo": 6, "mode": "until"},
            'reroll="careful"',
            (6, 7, 7, 7, 7, 7, 7, 5, 9),
            {"rerolled": "1"},
            ("reroll",),
        ),
        (
            {"upTo": 6, "mode": "once"},
            'reroll="careful"',
            (6, 7, 7, 7, 7, 7, 7, 9),
            {"rerolled": "1", "reroll": "careful"},
            (),
        ),
    ],
    ids=[
        "one re-throw a check: the tag's reaches more faces and is thrown",
        "until over once where they reach the same faces: the spend's is thrown",
        "the same re-throw twice is the tag's",
    ],
)
def test_one_re_throw_a_check(
    spend_reroll: dict[str, Any],
    tag: str,
    faces: tuple[int, ...],
    expect: dict[str, str],
    absent: tuple[str, ...],
) -> None:
    rs = watch(spend=[{"pool": "blood", "amount": 1, "reroll": spend_reroll, "perCheck": 1}])
    got = attrs(result(rs, warden(rs), f'skill="Ward" dc="6" spend="blood:1" {tag}', faces))
    assert {k: got.get(k) for k in expect} == expect
    assert [k for k in absent if k in got] == []


def test_nothing_is_paid_when_the_check_cannot_be_resolved() -> None:
    report = throw(WATCH, BRAM, 'skill="Wrestle" dc="1" spend="resolve:1"', ())
    (item,) = report.items
    assert isinstance(item, CheckFailure)
    assert report.party == (BRAM,)


def test_nothing_is_paid_when_the_throw_fails() -> None:
    report = throw(WATCH, BRAM, 'skill="Ward" dc="1" spend="resolve:1"', (7, 7))
    (item,) = report.items
    assert isinstance(item, CheckFailure) and "ran out" in item.error
    assert report.party == (BRAM,)
