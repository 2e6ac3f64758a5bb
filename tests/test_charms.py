"""A charm that changes a roll (the page's "A charm that changes a roll";
docs/design/format.md "Mechanics" and "Which row a name means"):
``use="Name"`` matched against the roller's catalog rows, its ``mechanics.check``
applied, its cost paid; all or nothing.

Thornwatch (from the pool play tests) with a catalog of charms and a double rule; Bram
has picked some of them. Resolve 6 of 6; Blood 1 and Ichor 4, both of the group "vitae".
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dicebound.character import load_character
from dicebound.charms import MAX_ENTRY_STEPS, EntryEffect, find_entry, use_entry
from dicebound.compiler import compile_ruleset
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from dicebound.spend import Reroll, SpendAsk
from thornwatch import LASERS, attrs, result, warden, watch_doc


def _entry(
    entry_id: str, label: str, rows: list[dict[str, Any]], mechanics: dict[str, Any]
) -> dict[str, Any]:
    return {"id": entry_id, "label": label, "rows": rows, "mechanics": mechanics}


def _charm(name: str) -> list[dict[str, Any]]:
    return [{"list": "charms", "values": {"name": name}}]


def _utility(**mechanics: Any) -> dict[str, Any]:
    return {"kind": "utility", **mechanics}


RESOLVE_1 = [{"pool": "resolve", "amount": 1}]

ENTRIES = [
    _entry(
        "steady-hand",
        "Steady Hand",
        _charm("Steady Hand"),
        _utility(
            cost=RESOLVE_1,
            perCostStep={"flat": 1},
            check={"reroll": {"upTo": 1, "mode": "once"}, "successes": 1},
        ),
    ),
    _entry(
        "grave-sight",
        "Grave Sight",
        _charm("Grave Sight"),
        _utility(cost=RESOLVE_1, check={"explode": 8}),
    ),
    _entry("keen-eye", "Keen Eye", _charm("Hawk Eye"), _utility(check={"threshold": 6})),
    _entry(
        "many-hands",
        "Many Hands",
        _charm("Many Hands"),
        _utility(cost=[{"pool": "resolve", "amount": 2}], check={"dice": 2}),
    ),
    _entry(
        "blood-rite",
        "Blood Rite",
        _charm("Blood Rite"),
        _utility(
            cost=[{"pool": "vitae", "amount": 2}], perCostStep={"flat": 1}, check={"successes": 1}
        ),
    ),
    _entry(
        "lucky-coin",
        "Lucky Coin",
        [
            {"list": "tokens", "values": {"kind": "coin", "title": "Lucky Coin", "uses": 1}},
            {"list": "charms", "values": {"name": "Coin Trick"}},
        ],
        _utility(check={"successes": 1}),
    ),
    _entry("sermon", "Sermon", _charm("Sermon"), _utility(cost=RESOLVE_1)),
    _entry("twin-a", "Twin Star", _charm("Twin"), _utility(check={"successes": 1})),
    _entry("twin-b", "Twin Moon", _charm("Twin"), _utility(check={"successes": 2})),
    _entry("double-dare", "Double Dare", _charm("Double Dare"), _utility(check={"double": 9})),
    _entry(
        "patience",
        "Patience",
        _charm("Patience"),
        _utility(check={"reroll": {"upTo": 6, "mode": "until"}}),
    ),
    _entry(
        "second-look",
        "Second Look",
        _charm("Second Look"),
        _utility(check={"reroll": {"upTo": 3, "mode": "once"}}),
    ),
    _entry(
        "ward-sigil",
        "Sigil of Warding",
        [{"list": "sigils", "values": {"power": 1, "sigil": "Ward Sigil"}}],
        _utility(check={"successes": 1}),
    ),
]


def charmed_doc() -> dict[str, Any]:
    doc = watch_doc(double={"min": 9})
    doc["sheet"]["lists"][0]["maxItems"] = 20
    doc["sheet"]["live"]["pools"][0]["max"] = {"const": 6}
    doc["sheet"]["lists"].append(
        {
            "id": "sigils",
            "label": "Sigils",
            "maxItems": 4,
            "columns": [
                {"id": "power", "label": "Power", "type": "number", "min": 0, "max": 3},
                {"id": "sigil", "label": "Sigil", "type": "text", "maxLength": 40},
            ],
        }
    )
    doc["catalogs"] = [
        {
            "id": "charms",
            "label": "Charms",
            "feeds": ["charms", "tokens", "sigils"],
            "entries": ENTRIES,
        },
        {"id": "relics", "label": "Relics", "feeds": ["charms"], "asset": "catalogs/relics.json"},
    ]
    return doc


RS = compile_ruleset(charmed_doc())


def _row(list_id: str, entry: dict[str, Any]) -> dict[str, Any]:
    (row,) = [r for r in entry["rows"] if r["list"] == list_id]
    return {**row["values"], "_catalog": f"charms/{entry['id']}"}


PICKED: tuple[str, ...] = (
    "steady-hand",
    "grave-sight",
    "keen-eye",
    "many-hands",
    "blood-rite",
    "sermon",
)
PICKED += ("twin-a", "twin-b", "double-dare", "patience", "second-look")


def bram(
    ruleset: Ruleset = RS,
    *,
    picked: tuple[str, ...] = PICKED,
    pools: dict[str, int] | None = None,
    extra_rows: dict[str, list[dict[str, Any]]] | None = None,
) -> Character:
    by_id = {e["id"]: e for e in ENTRIES}
    lists: dict[str, list[dict[str, Any]]] = {
        "charms": [_row("charms", by_id[p]) for p in picked if p in by_id],
        "tokens": [],
        "sigils": [],
    }
    for key, rows in (extra_rows or {}).items():
        lists[key] = lists.get(key, []) + rows
    values = {"resolve": 6, "blood": 1, "ichor": 4} if pools is None else pools
    live = {"pools": {k: {"value": v} for k, v in values.items()}}
    return warden(ruleset, lists=lists, live=live)


BRAM = bram()
COIN = [
    _row("tokens", ENTRIES[5]),
]
COIN_TRICK = [_row("charms", ENTRIES[5])]
LOW7 = (2, 3, 4, 5, 2, 3, 4)


# -- finding the entry --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "entry_id"),
    [
        ("Steady Hand", "steady-hand"),
        ("steady hand", "steady-hand"),
        ("Hawk Eye", "keen-eye"),
        ("KEEN EYE", "keen-eye"),
        ("Twin", None),
        ("Twin Star", "twin-a"),
        ("Lantern Flare", None),
        ("", None),
    ],
    ids=[
        "the displayed name (gm.sheetSummary's nameColumn)",
        "in any case",
        "a row's displayed name differs from its entry's label",
        "the entry's label answers too",
        "a name two different entries answer to does nothing",
        "the label of one of them does",
        "a name no row answers to does nothing",
        "an empty name does nothing",
    ],
)
def test_find_entry(name: str, entry_id: str | None) -> None:
    found = find_entry(SheetView(RS, BRAM), name)
    assert (found[1].id if found else None) == entry_id


def test_a_row_pools_list_shows_its_pools_name_column() -> None:
    view = SheetView(RS, bram(picked=(), extra_rows={"tokens": COIN}))
    found = find_entry(view, "lucky coin")
    assert found is not None and found[0] == "charms/lucky-coin"
    assert find_entry(view, "coin") is None  # the kind column is not the name


def test_a_list_without_a_name_column_shows_its_first_text_column() -> None:
    sigil = {"power": 1, "sigil": "Ward Sigil", "_catalog": "charms/ward-sigil"}
    view = SheetView(RS, bram(picked=(), extra_rows={"sigils": [sigil]}))
    found = find_entry(view, "ward sigil")
    assert found is not None and found[1].label == "Sigil of Warding"


def test_an_entry_the_character_has_not_picked_does_nothing() -> None:
    view = SheetView(RS, bram(picked=("keen-eye",)))
    assert find_entry(view, "Steady Hand") is None
    assert use_entry(view, "Steady Hand") is None


def test_an_entry_whose_catalog_cannot_be_read_does_nothing() -> None:
    bone = {"name": "Old Bone", "_catalog": "relics/old-bone"}
    view = SheetView(RS, bram(picked=(), extra_rows={"charms": [bone]}))
    assert find_entry(view, "Old Bone") is None


def test_an_entry_without_a_check_does_nothing() -> None:
    assert use_entry(SheetView(RS, BRAM), "Sermon") is None


# -- what it buys and what it costs ---------------------------------------------------------


def test_steps_buy_dice_and_successes_again_but_never_the_re_throw() -> None:
    use = use_entry(SheetView(RS, BRAM), "Steady Hand", SpendAsk("resolve", 3))
    assert use is not None
    assert use.steps == 3 and use.claims_spend
    assert use.effect == EntryEffect(successes=3, reroll=Reroll(1, "once"))
    assert use.costs == (("resolve", 3),)


@pytest.mark.parametrize(
    ("name", "spend", "steps", "costs"),
    [
        ("Steady Hand", None, 1, (("resolve", 1),)),
        ("Blood Rite", SpendAsk("ichor", 3), None, None),
        ("Blood Rite", SpendAsk("ichor", 4), 2, (("ichor", 4),)),
        ("Blood Rite", None, 1, (("ichor", 2),)),
        ("Blood Rite", SpendAsk("blood", 2), None, None),
        ("Many Hands", SpendAsk("resolve", 5), 1, (("resolve", 2),)),
        ("Many Hands", SpendAsk("resolve", 1), None, None),
        ("Grave Sight", SpendAsk("blood", 1), 1, (("resolve", 1),)),
    ],
    ids=[
        "without spend= an entry is bought at one step",
        "points that are not a whole number of steps buy nothing",
        "spend= naming a pool of the cost's group pays from that pool",
        "a group pays from the first pool in it that can afford the cost",
        "a named pool of the group that cannot cover it buys nothing",
        "an entry that does not scale is bought once however much was offered",
        "an offer below its price buys nothing",
        "a spend= for another pool is not the entry's",
    ],
)
def test_use_entry(
    name: str,
    spend: SpendAsk | None,
    steps: int | None,
    costs: tuple[tuple[str, int], ...] | None,
) -> None:
    use = use_entry(SheetView(RS, BRAM), name, spend)
    if steps is None:
        assert use is None
    else:
        assert use is not None and (use.steps, use.costs) == (steps, costs)


def test_steps_are_capped_at_five_and_only_the_cap_is_paid() -> None:
    rich = bram(pools={"resolve": 6, "blood": 1, "ichor": 4})
    use = use_entry(SheetView(RS, rich), "Steady Hand", SpendAsk("resolve", 9))
    assert use is not None
    assert (use.steps, use.costs, use.effect.successes) == (MAX_ENTRY_STEPS, (("resolve", 5),), 5)


def test_a_list_row_counter_the_entry_wrote_pays_one() -> None:
    coin = bram(picked=(), extra_rows={"tokens": COIN, "charms": COIN_TRICK})
    use = use_entry(SheetView(RS, coin), "Coin Trick")
    assert use is not None and use.counters == ("tokens:lucky coin",)
    assert use.payments == (("tokens:lucky coin", 1),)
    spent = bram(
        picked=(),
        extra_rows={"tokens": COIN, "charms": COIN_TRICK},
        pools={"resolve": 6, "blood": 1, "ichor": 4, "tokens:lucky coin": 0},
    )
    assert use_entry(SheetView(RS, spent), "Coin Trick") is None


def test_what_the_check_already_owes_counts() -> None:
    view = SheetView(RS, BRAM)
    assert use_entry(view, "Many Hands", committed={"resolve": 4}) is not None
    assert use_entry(view, "Many Hands", committed={"resolve": 5}) is None


# -- on a check ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tag", "faces", "expect", "changes"),
    [
        (
            'skill="Ward" dc="2" use="Steady Hand" spend="resolve:2"',
            (1, 7, 2, 3, 4, 5, 6, 8),
            {
                "total": "4",
                "use": "Steady Hand",
                "spend": "resolve:2",
                "auto": "2",
                "rerolled": "1",
            },
            [("resolve", 6, 4)],
        ),
        (
            'skill="Ward" dc="2" use="steady hand"',
            (1, 7, 2, 3, 4, 5, 6, 1),
            {
                "total": "1",
                "use": "Steady Hand",
                "spend": "resolve:1",
                "auto": "1",
                "rerolled": "1",
            },
            [("resolve", 6, 5)],
        ),
        (
            'skill="Ward" dc="1" use="Grave Sight" explode="9"',
            (8, 2, 3, 4, 5, 2, 3, 4),
            {"explode": "8", "dice": "8d10", "use": "Grave Sight", "spend": "resolve:1"},
            [("resolve", 6, 5)],
        ),
        (
            'skill="Ward" difficulty="Grim" threshold="9" use="Hawk Eye"',
            LOW7,
            {"dc": "3", "threshold": "6", "use": "Keen Eye"},
            [],
        ),
        (
            'skill="Ward" dc="1" use="Many Hands" spend="resolve:5"',
            (2,) * 9,
            {"dice": "9d10", "spend": "resolve:2", "use": "Many Hands"},
            [("resolve", 6, 4)],
        ),
        (
            'skill="Ward" dc="3" use="Blood Rite" spend="resolve:2"',
            LOW7,
            {"spend": "ichor:2,resolve:2", "auto": "3", "result": "success"},
            [("ichor", 4, 2), ("resolve", 6, 4)],
        ),
        (
            'skill="Ward" dc="1" use="Double Dare" double="10"',
            (9, 9, 4, 5, 2, 3, 4),
            {"double": "9", "total": "4"},
            [],
        ),
        (
            'skill="Ward" dc="6" use="Patience" reroll="careful"',
            (6, 7, 7, 7, 7, 7, 7, 5, 9),
            {"rerolled": "1", "total": "7"},
            [],
        ),
        (
            'skill="Ward" dc="6" use="Second Look" reroll="careful"',
            (6, 7, 7, 7, 7, 7, 7, 5),
            {"rerolled": "1", "reroll": "careful", "total": "6"},
            [],
        ),
    ],
    ids=[
        "perCostStep: two points buy two steps; the ones are thrown again once",
        "without spend= one step, one point",
        "an entry's explode face outranks the tag's",
        "an entry's threshold outranks the tag's and the step's",
        "an entry that adds dice and does not scale is bought once",
        "spend= for another pool buys from resolution.spend beside the entry",
        "an entry's double face outranks the tag's",
        "one re-throw a check: until over once where they reach the same faces",
        "the one reaching more faces is thrown: the tag's",
    ],
)
def test_a_charm_on_a_check(
    tag: str, faces: tuple[int, ...], expect: dict[str, str], changes: list[tuple[str, int, int]]
) -> None:
    item = result(RS, BRAM, tag, faces)
    got = attrs(item)
    assert {k: got.get(k) for k in expect} == expect
    assert [(c.pool, c.from_, c.to) for c in item.changes] == changes
    if "reroll" not in expect:
        assert "reroll" not in got


def test_a_list_row_counter_is_paid_on_the_check() -> None:
    coin = bram(picked=(), extra_rows={"tokens": COIN, "charms": COIN_TRICK})
    item = result(RS, coin, 'skill="Ward" dc="1" use="Coin Trick"', LOW7)
    got = attrs(item)
    assert (got["use"], got["auto"], got["result"]) == ("Lucky Coin", "1", "success")
    assert "spend" not in got
    assert [(c.pool, c.from_, c.to) for c in item.changes] == [("tokens:lucky coin", 1, 0)]


@pytest.mark.parametrize(
    ("character", "tag"),
    [
        (bram(picked=("keen-eye",)), 'skill="Ward" dc="1" use="Grave Sight"'),
        (
            bram(pools={"resolve": 0, "blood": 1, "ichor": 4}),
            'skill="Ward" dc="1" use="Grave Sight"',
        ),
        (BRAM, 'skill="Ward" dc="1" use="Blood Rite" spend="ichor:3"'),
        (bram(picked=("keen-eye",)), 'skill="Ward" dc="1" use="Steady Hand" spend="resolve:2"'),
        (BRAM, 'skill="Ward" dc="1" use="Lantern Flare" spend="resolve:1"'),
        (BRAM, 'skill="Ward" dc="1" use="Twin"'),
        (BRAM, 'skill="Ward" dc="1" use="Sermon" spend="resolve:1"'),
        (BRAM, 'skill="Ward" dc="1" use="Blood Rite" spend="blood:2"'),
    ],
    ids=[
        "an entry the character has not picked does nothing",
        "a cost the pool cannot cover: nothing applied, nothing paid",
        "points that are not a whole number of steps: nothing",
        "spend= beside an entry not picked buys no resolution.spend either",
        "spend= beside a name no entry answers to buys nothing",
        "a name two entries answer to: nothing",
        "an entry with no check: nothing, not even its cost or the spend beside it",
        "a pool of the group too low for the steps named: nothing",
    ],
)
def test_a_charm_that_does_nothing_at_all(character: Character, tag: str) -> None:
    item = result(RS, character, tag, (8, 2, 3, 4, 5, 2, 3))
    got = attrs(item)
    assert [k for k in ("use", "spend", "auto", "explode", "rerolled") if k in got] == []
    assert item.changes == ()
    assert got["dice"] == "7d10"


def test_a_charm_on_an_empty_pool_is_not_applied_or_paid() -> None:
    doc = charmed_doc()
    doc["resolution"]["pool"] = {"min": 0, "max": 15}
    rs = compile_ruleset(doc)
    down = bram(rs)
    down = load_character(
        rs,
        {
            "name": down.name,
            "sheet": {
                "v": 1,
                "build": {
                    "abilities": {"sinew": 0, "nerve": 4, "warmth": 2},
                    "lists": {"charms": [_row("charms", ENTRIES[1])]},
                },
            },
        },
    )
    item = result(rs, down, 'skill="Sinew" dc="1" use="Grave Sight"', ())
    assert (attrs(item)["dice"], item.changes) == ("0d10", ())
    assert "use" not in attrs(item)


def test_an_entrys_threshold_moves_even_a_target_read_off_the_sheet() -> None:
    doc = copy.deepcopy(LASERS)
    doc["sheet"]["lists"] = [
        {
            "id": "gear",
            "label": "Gear",
            "maxItems": 3,
            "columns": [{"id": "name", "label": "Name", "type": "text", "maxLength": 40}],
        }
    ]
    doc["catalogs"] = [
        {
            "id": "gear",
            "label": "Gear",
            "feeds": ["gear"],
            "entries": [
                _entry(
                    "scope",
                    "Scope",
                    [{"list": "gear", "values": {"name": "Scope"}}],
                    _utility(check={"threshold": 5}),
                )
            ],
        }
    ]
    rs = compile_ruleset(doc)
    zee = load_character(
        rs,
        {
            "name": "Zee",
            "sheet": {
                "v": 1,
                "build": {
                    "fields": {"number": 3},
                    "skills": {"shoot": "expert"},
                    "lists": {"gear": [{"name": "Scope", "_catalog": "gear/scope"}]},
                },
            },
        },
    )
    got = attrs(result(rs, zee, 'skill="Shoot" dc="2" use="Scope"', (4, 2)))
    assert (got["threshold"], got["total"], got["use"]) == ("5", "2", "Scope")
