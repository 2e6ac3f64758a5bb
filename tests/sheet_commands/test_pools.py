"""Pools: finding one by a written name (docs/design/sheet-commands.md "The live sheet",
3.4 of the contract) and ``spend``/``restore``/``damage``/``temp`` (3.5), on Marinara's
5e reference ruleset and copies of it edited for the shapes it lacks."""

from __future__ import annotations

from typing import Any

import pytest

from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.current import sheet_layout
from dicebound.sheet_commands.model import Applied, Refused
from dicebound.sheet_commands.pools import find_pool
from live_sheet_support import FIVE_E, apply, character, marinara, now_or_reason, variant

CASTER = {
    "level": 5,
    "hp_max": 31,
    "spellcasting_ability": "wis",
    "slots_max_1": 2,
    "slots_max_2": 2,
    "slots_max_3": 2,
    "pact_slots_max": 2,
}
COUNTERS = {"counters": [{"name": "Ki", "max": 5, "recharge": "short"}]}


def five_e() -> Ruleset:
    return marinara(FIVE_E)


def mira(live: object = None, lists: Any = COUNTERS) -> Character:
    return character(five_e(), CASTER, lists, live)


def with_gifts(raw: dict[str, Any]) -> None:
    """A second list whose rows are pools, so one row name can sit in two lists."""
    counters = next(lst for lst in raw["sheet"]["lists"] if lst["id"] == "counters")
    gifts = {**counters, "id": "gifts", "label": "Gifts"}
    raw["sheet"]["lists"].append(gifts)


def with_empty_pool(raw: dict[str, Any]) -> None:
    raw["sheet"]["live"]["pools"].append(
        {"id": "inspiration", "label": "Inspiration", "max": {"const": 1}, "start": "empty"}
    )


# ── 3.4 finding a pool ──────────────────────────────────────────────────────

FIND = [
    pytest.param("1st-level slots", "slots_1", id="a declared pool's label finds it"),
    pytest.param("slots_1", "slots_1", id="a key exactly"),
    pytest.param("  SLOTS_1 ", "slots_1", id="a declared key NAME-EQ: trimmed, any case"),
    pytest.param("HIT POINTS", "hp", id="a declared label NAME-EQ"),
    pytest.param("ki", "counters:ki", id="ki finds the row pool counters:ki by its label Ki"),
    pytest.param("COUNTERS:KI", "counters:ki", id="a row pool's key NAME-EQ"),
    pytest.param("Ki Points", "refused unknown-pool", id="Ki Points is unknown-pool"),
    pytest.param("", "refused unknown-pool", id="an empty name is unknown-pool"),
    pytest.param("   ", "refused unknown-pool", id="a name trimmed to nothing is unknown-pool"),
    pytest.param("slots_4", "refused unknown-pool", id="a zero-maximum pool is not there"),
    pytest.param("slot", "refused unknown-pool", id="no partial matching"),
]


@pytest.mark.parametrize(("written", "expected"), FIND)
def test_find_pool(written: str, expected: str) -> None:
    found = find_pool(sheet_layout(five_e(), mira().build), written)
    assert (found.key if not isinstance(found, Refused) else f"refused {found.reason}") == expected


def test_a_hidden_pool_is_unknown_pool() -> None:
    fighter = character(five_e(), {"level": 1, "hp_max": 12, "slots_max_1": 2})
    assert now_or_reason(apply(five_e(), fighter, "spend", pool="slots_1", amount=1)) == (
        "refused unknown-pool"
    )


def test_a_declared_pool_wins_over_a_row_pool_of_the_same_name() -> None:
    who = mira(lists={"counters": [{"name": "Hit dice", "max": 9}]})
    assert find_pool(sheet_layout(five_e(), who.build), "hit dice").key == "hit_dice"  # type: ignore[union-attr]


def test_a_key_written_exactly_then_declared_pools_before_row_pools() -> None:
    """A row named ``hp``: ``counters:hp`` is its key exactly; ``hp`` and ``HP`` are the
    declared pool, exactly and by NAME-EQ, though the row's label answers too."""
    who = mira(lists={"counters": [{"name": "hp", "max": 3}]})
    layout = sheet_layout(five_e(), who.build)
    found = [find_pool(layout, name) for name in ("counters:hp", "hp", "HP")]
    assert [f.key for f in found if not isinstance(f, Refused)] == ["counters:hp", "hp", "hp"]


def test_focus_in_two_pool_lists_is_ambiguous_while_its_key_names_one() -> None:
    rs = variant(FIVE_E, with_gifts)
    twins = character(
        rs,
        {"level": 1},
        {"counters": [{"name": "Focus", "max": 2}], "gifts": [{"name": "Focus", "max": 3}]},
    )
    assert now_or_reason(apply(rs, twins, "spend", pool="Focus", amount=1)) == (
        "refused ambiguous-pool"
    )
    assert now_or_reason(apply(rs, twins, "spend", pool="gifts:focus", amount=1)) == "2/3"


def test_two_rows_focus_and_focus_space_are_one_pool_and_the_first_row_wins() -> None:
    rs = five_e()
    same = character(
        rs, {"level": 1}, {"counters": [{"name": "Focus", "max": 2}, {"name": "focus ", "max": 9}]}
    )
    assert [p.key for p in sheet_layout(rs, same.build).pools if p.is_row] == ["counters:focus"]
    assert now_or_reason(apply(rs, same, "spend", pool="focus", amount=1)) == "1/2"


# ── 3.5 spend, restore, damage, temp ────────────────────────────────────────

HURT = {"pools": {"hp": {"value": 20}}}
BUFFERED = {"pools": {"hp": {"value": 31, "temp": 5}}}

OPS = [
    pytest.param("spend", "slots_1", 1, None, "1/2", id="spend takes the amount off: 1/2"),
    pytest.param("spend", "slots_1", 2, None, "0/2", id="spend may empty a pool"),
    pytest.param("spend", "slots_1", 3, None, "refused insufficient", id="spend more than is left"),
    pytest.param("spend", "slots_1", 0, None, "refused bad-amount", id="spend 0 is bad-amount"),
    pytest.param("spend", "hp", -1, None, "refused bad-amount", id="spend negative"),
    pytest.param("spend", "hp", 100_001, None, "refused bad-amount", id="spend over 100000"),
    pytest.param(
        "spend", "hp", 100_000, None, "refused insufficient", id="spend 100000 is an amount"
    ),
    pytest.param("spend", "hp", None, None, "refused bad-amount", id="spend without an amount"),
    pytest.param(
        "spend", "nothing", 0, None, "refused unknown-pool", id="the pool is checked first"
    ),
    pytest.param("spend", "hp", 1, BUFFERED, "30/31 +5 temp", id="spend leaves the buffer alone"),
    pytest.param("restore", "hp", 5, HURT, "25/31", id="restore adds"),
    pytest.param("restore", "hp", 50, HURT, "31/31", id="restore stops at the maximum"),
    pytest.param("restore", "hp", 1, None, "31/31", id="restore on a full pool is not refused"),
    pytest.param("restore", "hp", 0, HURT, "refused bad-amount", id="restore 0 is bad-amount"),
    pytest.param(
        "restore", "hp", 1, BUFFERED, "31/31 +5 temp", id="restore leaves the buffer alone"
    ),
    pytest.param("damage", "hp", 7, None, "24/31", id="damage takes off the value"),
    pytest.param("damage", "hp", 7, BUFFERED, "29/31", id="damage drains the buffer first"),
    pytest.param("damage", "hp", 3, BUFFERED, "31/31 +2 temp", id="the buffer absorbs it all"),
    pytest.param("damage", "hp", 99, None, "0/31", id="damage is floored at 0, not refused"),
    pytest.param("damage", "hp", 0, None, "refused bad-amount", id="damage 0 is bad-amount"),
    pytest.param("temp", "hp", 5, None, "31/31 +5 temp", id="temp sets a buffer"),
    pytest.param("temp", "hp", 3, BUFFERED, "31/31 +3 temp", id="temp replaces, not adds"),
    pytest.param("temp", "hp", 0, BUFFERED, "31/31", id="temp 0 removes the buffer"),
    pytest.param("temp", "hp", -1, None, "refused bad-amount", id="temp below 0"),
    pytest.param("temp", "hp", 100_001, None, "refused bad-amount", id="temp over 100000"),
    pytest.param("temp", "hit_dice", 2, None, "refused no-temp", id="temp on a pool without"),
    pytest.param("temp", "ki", 2, None, "refused no-temp", id="row pools never keep temp"),
    pytest.param(
        "temp", "hit_dice", -1, None, "refused bad-amount", id="the amount before no-temp"
    ),
]


@pytest.mark.parametrize(("op", "pool", "amount", "live", "expected"), OPS)
def test_pool_op(op: str, pool: str, amount: int | None, live: object, expected: str) -> None:
    assert now_or_reason(apply(five_e(), mira(live), op, pool=pool, amount=amount)) == expected


STORED = [
    pytest.param(
        None, "spend", "slots_1", 1, {"slots_1": {"value": 1}}, id="a spent pool is stored"
    ),
    pytest.param(None, "temp", "hp", 5, {"hp": {"value": 31, "temp": 5}}, id="a buffer is stored"),
    pytest.param(BUFFERED, "damage", "hp", 5, {}, id="a buffer drained, the pool full: nothing"),
    pytest.param(HURT, "restore", "hp", 11, {}, id="a pool back at its start leaves the record"),
]


@pytest.mark.parametrize(("start", "op", "pool", "amount", "pools"), STORED)
def test_pool_ops_store_sparsely(
    start: object, op: str, pool: str, amount: int, pools: dict[str, Any]
) -> None:
    outcome = apply(five_e(), mira(start), op, pool=pool, amount=amount)
    assert isinstance(outcome, Applied)
    assert outcome.character.live == mira({"pools": pools}).live


def test_an_empty_start_pool_reads_0_and_stores_nothing_at_0() -> None:
    rs = variant(FIVE_E, with_empty_pool)
    who = character(rs, {"level": 1})
    filled = apply(rs, who, "restore", pool="Inspiration", amount=1)
    assert isinstance(filled, Applied)
    assert filled.now == "1/1"
    assert dict(filled.character.live.pools) == {
        "inspiration": filled.character.live.pools["inspiration"]
    }
    spent = apply(rs, filled.character, "spend", pool="inspiration", amount=1)
    assert isinstance(spent, Applied)
    assert (spent.now, dict(spent.character.live.pools)) == ("0/1", {})


def test_a_hidden_pools_stored_value_is_carried_through_a_write() -> None:
    rs = five_e()
    fighter = character(rs, {"level": 1, "hp_max": 12}, live={"pools": {"slots_1": {"value": 0}}})
    outcome = apply(rs, fighter, "damage", pool="hp", amount=2)
    assert isinstance(outcome, Applied)
    assert outcome.character.live.pools["slots_1"].value == 0
    assert outcome.character.live.pools["hp"].value == 10
