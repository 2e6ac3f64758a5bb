"""Using a catalog entry (docs/design/sheet-commands.md "Using a catalog entry"): which
entry a name means, its price (cost terms, groups, ``pool=``, counters) and paying it all
or nothing. On Marinara's 5e reference ruleset with a spellbook catalog and a Second
Wind feature added to a copy of it, since the file ships neither."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, Row, frozen_map
from dicebound.sheet_commands.current import current_sheet
from dicebound.sheet_commands.model import Applied
from dicebound.sheet_commands.resolve import resolve_sheet_text
from dicebound.values import replace
from live_sheet_support import FIVE_E, apply, character, now_or_reason, variant


def _spell(ident: str, label: str, level: int, cost: list[dict[str, Any]]) -> dict[str, Any]:
    mechanics: dict[str, Any] = {"kind": "attack"}
    if cost:
        mechanics["cost"] = cost
    return {
        "id": ident,
        "label": label,
        "rows": [{"list": "spells", "values": {"name": label, "level": level}}],
        "mechanics": mechanics,
    }


SPELLBOOK = {
    "id": "spellbook",
    "label": "Spellbook",
    "feeds": ["spells"],
    "entries": [
        _spell("fireball", "Fireball", 3, [{"pool": "slots", "amount": 1}]),
        _spell("magic-missile", "Magic Missile", 1, [{"pool": "slots_1", "amount": 1}]),
        _spell("light", "Light", 0, []),
        _spell(
            "twin-bolt",
            "Twin Bolt",
            1,
            [{"pool": "slots", "amount": 1}, {"pool": "slots", "amount": 1}],
        ),
        _spell(
            "blood-rite",
            "Blood Rite",
            2,
            [{"pool": "hp", "amount": 5}, {"pool": "pact_slots", "amount": 1}],
        ),
    ],
}
SECOND_WIND = {
    "id": "second-wind",
    "label": "Second Wind",
    "rows": [
        {"list": "features", "values": {"name": "Second Wind"}},
        {"list": "counters", "values": {"name": "Second Wind", "max": 1, "recharge": "short"}},
    ],
    "mechanics": {"kind": "heal", "cost": [{"pool": "hit_dice", "amount": 1}]},
}
TOMES = {"id": "tomes", "label": "Tomes", "feeds": ["spells"], "asset": "catalogs/tomes.json"}


def with_catalogs(raw: dict[str, Any]) -> None:
    raw["catalogs"].append(SPELLBOOK)
    raw["catalogs"].append(TOMES)
    feats = next(c for c in raw["catalogs"] if c["id"] == "feats")
    feats["entries"].append(SECOND_WIND)


@functools.cache
def five_e() -> Ruleset:
    return variant(FIVE_E, with_catalogs)


CASTER = {
    "level": 5,
    "hp_max": 31,
    "spellcasting_ability": "wis",
    "slots_max_1": 2,
    "slots_max_2": 2,
    "slots_max_3": 2,
    "pact_slots_max": 2,
}
FIGHTER = {"level": 5, "hp_max": 44}


def picked(ident: str, name: str, level: int = 1) -> dict[str, Any]:
    return {"name": name, "level": level, "_catalog": f"spellbook/{ident}"}


SPELLS = [
    picked("fireball", "Fireball", 3),
    picked("magic-missile", "Magic Missile"),
    picked("light", "Light", 0),
    picked("twin-bolt", "Twin Bolt"),
    picked("blood-rite", "Blood Rite", 2),
]
WIND = {
    "features": [{"name": "Second Wind", "_catalog": "feats/second-wind"}],
    "counters": [
        {"name": "Second Wind", "max": 1, "recharge": "short", "_catalog": "feats/second-wind"}
    ],
}


def mira(live: object = None, fields: dict[str, Any] = CASTER, **lists: Any) -> Character:
    rows = {"spells": SPELLS, **WIND, **lists}
    return character(five_e(), fields, {k: v for k, v in rows.items() if v is not None}, live)


def used(who: Character, name: str, pool: str | None = None) -> str:
    attrs = {"name": name} if pool is None else {"name": name, "pool": pool}
    return now_or_reason(apply(five_e(), who, "use", **attrs))


SPENT_1 = {"pools": {"slots_1": {"value": 0}}}
NO_SLOTS = {"pools": {"slots_1": {"value": 0}, "slots_2": {"value": 0}, "slots_3": {"value": 0}}}

# ── 6.1 which entry a name means ────────────────────────────────────────────

ENTRIES = [
    pytest.param({}, "Fireball", "1st-level slots 1/2", id="a picked row answers to its name"),
    pytest.param({}, "  fireBALL ", "1st-level slots 1/2", id="NAME-EQ: trimmed, any case"),
    pytest.param({}, "Fire ball", "refused unknown-entry", id="no folding: Fire ball is unknown"),
    pytest.param({}, "Fireb", "refused unknown-entry", id="no partial matching"),
    pytest.param({}, "", "refused unknown-entry", id="an empty name is unknown-entry"),
    pytest.param(
        {"spells": [picked("fireball", "Big Boom", 3)]},
        "big boom",
        "1st-level slots 1/2",
        id="a renamed row answers to its display name",
    ),
    pytest.param(
        {"spells": [picked("fireball", "Big Boom", 3)]},
        "Fireball",
        "1st-level slots 1/2",
        id="a renamed row is still found through its entry's label",
    ),
    pytest.param(
        {"spells": [{"name": "Shield", "level": 1}]},
        "Shield",
        "refused unknown-entry",
        id="a hand-written row without a marker never matches",
    ),
    pytest.param(
        {"spells": [picked("fireball", "Zap", 3), picked("magic-missile", "Zap")]},
        "zap",
        "refused ambiguous-entry",
        id="rows of two different entries are ambiguous-entry",
    ),
    pytest.param(
        {"spells": [picked("fireball", "Magic Missile", 3), picked("magic-missile", "Bolt")]},
        "Magic Missile",
        "refused ambiguous-entry",
        id="one row by its name and another by its entry's label are ambiguous-entry",
    ),
    pytest.param(
        {},
        "Second Wind",
        "Hit dice 4/5, Second Wind 0/1",
        id="a feature row and its counter row are one entry, not ambiguous",
    ),
    pytest.param(
        {"features": [{"name": "Rally", "_catalog": "feats/second-wind"}], "counters": None},
        "rally",
        "Hit dice 4/5",
        id="a list with no summary column and no pools is shown by its first text column",
    ),
    pytest.param(
        {"spells": [{"name": "Wish", "level": 9, "_catalog": "tomes/wish"}]},
        "Wish",
        "refused unknown-entry",
        id="an entry its catalogs do not hold (kept in an asset) is unknown-entry",
    ),
    pytest.param(
        {
            "spells": [
                {"name": "Wish", "level": 9, "_catalog": "tomes/wish"},
                picked("light", "Wish"),
            ]
        },
        "Wish",
        "refused ambiguous-entry",
        id="markers are counted before asking whether the catalogs hold them",
    ),
]


@pytest.mark.parametrize(("lists", "name", "expected"), ENTRIES)
def test_which_entry_a_name_means(lists: dict[str, Any], name: str, expected: str) -> None:
    assert used(mira(**lists), name) == expected


def test_a_row_in_a_hidden_list_still_answers() -> None:
    """A fighter's spells list is hidden (no spellcasting ability), yet Fireball is found:
    what refuses it is that no slot of its family is there."""
    fighter = mira(fields=FIGHTER)
    assert (used(fighter, "Fireball"), used(fighter, "Zzz")) == (
        "refused insufficient",
        "refused unknown-entry",
    )


def summary_column(column: str) -> Any:
    def edit(raw: dict[str, Any]) -> None:
        with_catalogs(raw)
        spells = next(
            item for item in raw["gm"]["sheetSummary"]["lists"] if item["list"] == "spells"
        )
        spells["nameColumn"] = column

    return edit


def tagged_counters(raw: dict[str, Any]) -> None:
    """A text column before the counters' pool name column."""
    with_catalogs(raw)
    counters = next(lst for lst in raw["sheet"]["lists"] if lst["id"] == "counters")
    counters["columns"].insert(0, {"id": "tag", "label": "Tag", "type": "text", "maxLength": 20})


COLUMNS = [
    pytest.param(
        summary_column("notes"),
        "spells",
        "Boom",
        "1st-level slots 1/2",
        id="the GM sheet summary's nameColumn shows the row",
    ),
    pytest.param(
        summary_column("notes"),
        "spells",
        "Kaboom",
        "refused unknown-entry",
        id="then the list's first text column does not",
    ),
    pytest.param(
        summary_column("notes"),
        "spells",
        "Fireball",
        "1st-level slots 1/2",
        id="and the entry's label still does",
    ),
    pytest.param(
        tagged_counters,
        "counters",
        "Gust",
        "Hit dice 4/5, Gust 0/1",
        id="a pool list is shown by its pool nameColumn",
    ),
    pytest.param(
        tagged_counters,
        "counters",
        "Gale",
        "refused unknown-entry",
        id="not by a text column before it",
    ),
]


@pytest.mark.parametrize(("edit", "where", "name", "expected"), COLUMNS)
def test_the_display_name_column(edit: Any, where: str, name: str, expected: str) -> None:
    rs = variant(FIVE_E, edit)
    rows = {
        "spells": [{**picked("fireball", "Kaboom", 3), "notes": "Boom"}],
        "counters": [{"tag": "Gale", "name": "Gust", "max": 1, "_catalog": "feats/second-wind"}],
    }
    who = character(rs, CASTER, {where: rows[where]})
    assert now_or_reason(apply(rs, who, "use", name=name)) == expected


# ── 6.2 the price, 6.3 paying it ────────────────────────────────────────────

PRICES = [
    pytest.param(
        {},
        "Fireball",
        "3rd-level slots",
        "3rd-level slots 1/2",
        id='Fireball (cost 1 from group slots) with pool="3rd-level slots" spends slot 3',
    ),
    pytest.param(
        {},
        "Magic Missile",
        "2nd-level slots",
        "2nd-level slots 1/2",
        id="Magic Missile (cost 1 from slots_1, in group slots) with 2nd-level slots works",
    ),
    pytest.param(
        {},
        "Magic Missile",
        " slots_3 ",
        "3rd-level slots 1/2",
        id="pool= names a declared pool by its key, NAME-EQ; nothing checks it is higher",
    ),
    pytest.param(
        {},
        "Fireball",
        "Hit points",
        "refused bad-pool",
        id="bad-pool: Fireball with Hit points (no group)",
    ),
    pytest.param(
        {},
        "Fireball",
        "Pact Magic slots",
        "refused bad-pool",
        id="bad-pool: Fireball with Pact Magic slots (another group)",
    ),
    pytest.param(
        {},
        "Fireball",
        "Nothing at all",
        "refused bad-pool",
        id="bad-pool: Fireball with Nothing at all (no pool)",
    ),
    pytest.param(
        {},
        "Light",
        "1st-level slots",
        "refused bad-pool",
        id="bad-pool: a no-cost entry with any pool",
    ),
    pytest.param(
        {},
        "Second Wind",
        "Hit dice",
        "refused bad-pool",
        id="bad-pool: Second Wind (cost on hit_dice, which has no group) with Hit dice",
    ),
    pytest.param(
        {},
        "Twin Bolt",
        "2nd-level slots",
        "refused bad-pool",
        id="bad-pool: an entry with two cost terms",
    ),
    pytest.param(
        {},
        "Fireball",
        "4th-level slots",
        "refused bad-pool",
        id="bad-pool: a pool of the family with maximum 0 is not there",
    ),
    pytest.param(
        {},
        "Fireball",
        "Second Wind",
        "refused bad-pool",
        id="bad-pool: a list row's pool is never an upcast",
    ),
    pytest.param(
        {"pools": {"slots_3": {"value": 0}}},
        "Fireball",
        "3rd-level slots",
        "refused insufficient",
        id="an upcast pays the named pool or nothing: no climbing on",
    ),
    pytest.param(
        {},
        "Fireball",
        None,
        "1st-level slots 1/2",
        id="a group pays from its first pool, in declaration order, that can afford it",
    ),
    pytest.param(
        SPENT_1,
        "Fireball",
        None,
        "2nd-level slots 1/2",
        id="an empty first pool is passed for the next that can afford it",
    ),
    pytest.param(
        NO_SLOTS,
        "Fireball",
        None,
        "refused insufficient",
        id="none can afford it: the first pool is charged anyway and its spend refused",
    ),
    pytest.param(
        {},
        "Twin Bolt",
        None,
        "1st-level slots 1/2, 1st-level slots 0/2",
        id="two terms on one family: the running total lets the first pool pay both",
    ),
    pytest.param(
        {"pools": {"slots_1": {"value": 1}}},
        "Twin Bolt",
        None,
        "1st-level slots 0/2, 2nd-level slots 1/2",
        id="two terms on one family: the second does not read the starting value",
    ),
    pytest.param(
        {"pools": {"hp": {"value": 31, "temp": 5}}},
        "Blood Rite",
        None,
        "Hit points 26/31 +5 temp, Pact Magic slots 1/2",
        id="each part says its spend's now; a spend leaves the buffer alone",
    ),
    pytest.param(
        {"pools": {"hp": {"value": 3}}},
        "Blood Rite",
        None,
        "refused insufficient",
        id="the first refused part refuses the whole use",
    ),
    pytest.param(
        {"pools": {"pact_slots": {"value": 0}}},
        "Blood Rite",
        None,
        "refused insufficient",
        id="a later refused part refuses the whole use",
    ),
    pytest.param(
        {},
        "Second Wind",
        None,
        "Hit dice 4/5, Second Wind 0/1",
        id="Second Wind: its cost, then one use of the counter row it made",
    ),
    pytest.param(
        {"pools": {"counters:second wind": {"value": 0}}},
        "Second Wind",
        None,
        "refused insufficient",
        id="a spent counter refuses the use",
    ),
    pytest.param(
        {"pools": {"hit_dice": {"value": 0}}},
        "Second Wind",
        None,
        "refused insufficient",
        id="an unaffordable cost refuses before the counter is spent",
    ),
    pytest.param(
        {},
        "Light",
        None,
        "Light: no cost",
        id="a cantrip (no cost, no counters) says <entry label>: no cost",
    ),
]


@pytest.mark.parametrize(("live", "name", "pool", "expected"), PRICES)
def test_the_price(live: dict[str, Any], name: str, pool: str | None, expected: str) -> None:
    assert used(mira(live), name, pool) == expected


COUNTERS = [
    pytest.param(
        [{"name": "Second Wind", "max": 0, "_catalog": "feats/second-wind"}],
        "refused insufficient",
        id="a counter row with no pool (maximum 0) is insufficient: never a free use",
    ),
    pytest.param(
        [
            {"name": "Second Wind", "max": 1, "_catalog": "feats/second-wind"},
            {"name": " second wind", "max": 3, "_catalog": "feats/second-wind"},
        ],
        "Hit dice 4/5, Second Wind 0/1",
        id="two counter rows of one pool are charged once",
    ),
    pytest.param(
        [
            {"name": "Second Wind", "max": 1, "_catalog": "feats/second-wind"},
            {"name": "Second Breath", "max": 2, "_catalog": "feats/second-wind"},
        ],
        "Hit dice 4/5, Second Wind 0/1, Second Breath 1/2",
        id="every counter row of the entry is charged one use, in list order",
    ),
    pytest.param(
        [{"name": "Second Wind", "max": 1}],
        "Hit dice 4/5",
        id="a counter row without the entry's marker is not the entry's",
    ),
]


@pytest.mark.parametrize(("counters", "expected"), COUNTERS)
def test_counters(counters: list[dict[str, Any]], expected: str) -> None:
    assert used(mira(counters=counters), "Second Wind") == expected


def test_a_counter_in_a_hidden_list_is_passed_over() -> None:
    def hide_counters(raw: dict[str, Any]) -> None:
        with_catalogs(raw)
        counters = next(lst for lst in raw["sheet"]["lists"] if lst["id"] == "counters")
        counters["hideWhen"] = {"field": "spellcasting_ability", "equals": "none"}

    rs = variant(FIVE_E, hide_counters)
    fighter = character(rs, FIGHTER, WIND)
    caster = character(rs, CASTER, WIND)
    assert [
        now_or_reason(apply(rs, who, "use", name="Second Wind")) for who in (fighter, caster)
    ] == [
        "Hit dice 4/5",
        "Hit dice 4/5, Second Wind 0/1",
    ]


def test_a_cost_naming_a_pool_the_sheet_does_not_have_is_unknown_pool() -> None:
    """Magic Missile costs slots_1, hidden on a fighter: the spend names slots_1 as
    written, and no pool answers."""
    assert used(mira(fields=FIGHTER), "Magic Missile") == "refused unknown-pool"


def test_a_cantrip_stores_nothing() -> None:
    who = mira({"pools": {"hp": {"value": 9}}})
    outcome = apply(five_e(), who, "use", name="Light")
    assert isinstance(outcome, Applied)
    assert (outcome.stored, outcome.character) == (False, who)


def test_a_use_stores_the_working_copy() -> None:
    outcome = apply(five_e(), mira(SPENT_1), "use", name="Second Wind")
    assert isinstance(outcome, Applied) and outcome.stored
    pools = {p.spec.key: p.value for p in current_sheet(five_e(), outcome.character).pools}
    assert (pools["hit_dice"], pools["counters:second wind"], pools["slots_1"]) == (4, 0, 0)


def long_labels(raw: dict[str, Any]) -> None:
    """Four pools labelled at the longest a label may be, and an entry costing all four."""
    with_catalogs(raw)
    for pool in raw["sheet"]["live"]["pools"]:
        if pool["id"] in ("hp", "hit_dice", "slots_1", "pact_slots"):
            pool["label"] = (pool["label"] + " " + "x" * 80)[:80]
    raw["catalogs"][-2]["entries"].append(
        _spell(
            "grand-rite",
            "Grand Rite",
            5,
            [{"pool": p, "amount": 1} for p in ("hp", "hit_dice", "slots_1", "pact_slots")],
        )
    )


def test_the_use_summary_is_not_cut_at_120() -> None:
    rs = variant(FIVE_E, long_labels)
    who = character(rs, CASTER, {"spells": [picked("grand-rite", "Grand Rite", 5)]})
    outcome = apply(rs, who, "use", name="Grand Rite")
    assert isinstance(outcome, Applied)
    parts = outcome.now.split(", ")
    assert len(outcome.now) > 300
    assert [part.rsplit(" ", 1)[1] for part in parts] == ["30/31", "4/5", "1/2", "1/2"]


def test_each_part_is_cut_at_120() -> None:
    """A label longer than a file may write (made here) is cut with its part."""
    rs = five_e()
    pools = tuple(
        replace(pool, label="H" * 150) if pool.id == "hp" else pool for pool in rs.sheet.pools
    )
    long = replace(rs, sheet=replace(rs.sheet, pools=pools), memo={})
    outcome = apply(long, mira(), "use", name="Blood Rite")
    assert isinstance(outcome, Applied)
    assert outcome.now == "H" * 120 + ", Pact Magic slots 1/2"


@pytest.mark.parametrize(
    "name",
    ["  ", 7],
    ids=[
        "a counter row whose name is blank is passed over (made here: a file needs a name)",
        "a counter row whose name is not text is passed over (made here)",
    ],
)
def test_a_counter_row_without_a_name(name: object) -> None:
    who = mira(counters=None)
    row = Row(frozen_map({"name": name, "max": 1, "recharge": "short"}), "feats/second-wind")
    lists = frozen_map({**who.build.lists, "counters": (row,)})
    odd = replace(who, build=replace(who.build, lists=lists))
    assert used(odd, "Second Wind") == "Hit dice 4/5"


# ── Properties ──────────────────────────────────────────────────────────────

POOL_KEYS = ["hp", "hit_dice", "slots_1", "slots_2", "slots_3", "pact_slots"]
COUNTER_KEY = "counters:second wind"
LIVES = st.fixed_dictionaries(
    {key: st.one_of(st.none(), st.integers(0, 3)) for key in [*POOL_KEYS, COUNTER_KEY]}
).map(lambda values: {"pools": {k: {"value": v} for k, v in values.items() if v is not None}})
NAMES = st.sampled_from(
    ["Fireball", "Magic Missile", "Light", "Twin Bolt", "Blood Rite", "Second Wind", "Wish", "Nap"]
)
POOL_NAMES = st.sampled_from(
    [None, "3rd-level slots", "2nd-level slots", "Hit points", "Hit dice", "Pact Magic slots", "x"]
)


def _tag(name: str, pool: str | None) -> str:
    return f'[sheet: op="use" name="{name}"' + ("" if pool is None else f' pool="{pool}"') + "]"


@settings(max_examples=examples(300))
@given(st.sampled_from([CASTER, FIGHTER]), LIVES, NAMES, POOL_NAMES)
def test_a_use_is_all_or_nothing(
    fields: dict[str, Any], live: dict[str, Any], name: str, pool: str | None
) -> None:
    """Through the whole pass: a refused use leaves the party exactly as it was and
    stores nothing; one that is applied only ever lowers pools, by exactly the parts its
    ``now`` lists, and touches nothing else."""
    who = mira(live, fields)
    passed = resolve_sheet_text(five_e(), (who,), _tag(name, pool), who.name)
    (outcome,) = passed.outcomes
    if not outcome.ok:
        assert (passed.party, passed.changed) == ((who,), False)
        return
    assert outcome.now is not None
    (after,) = passed.party
    before_pools = {p.spec.label: p.value for p in current_sheet(five_e(), who).pools}
    after_pools = {p.spec.label: p.value for p in current_sheet(five_e(), after).pools}
    if outcome.now.endswith(": no cost"):
        assert (after, passed.changed) == (who, False)
        return
    spent: dict[str, int] = {}
    for part in outcome.now.split(", "):
        label, reading = part.rsplit(" ", 1)
        spent[label] = before_pools[label] - int(reading.split("/")[0])
    assert {
        k: before_pools[k] - after_pools[k]
        for k in before_pools
        if after_pools[k] != before_pools[k]
    } == {k: v for k, v in spent.items() if v}
    assert all(v > 0 for v in spent.values())
    assert (after.build, after.live.tracks, after.live.text, after.live.conditions) == (
        who.build,
        who.live.tracks,
        who.live.text,
        who.live.conditions,
    )


def test_use_with_who_party_is_tried_on_every_member() -> None:
    """The caster pays from her slots; the fighter's spells list is hidden and no slot
    of the family is there for him."""
    caster, fighter = mira(), replace(mira(fields=FIGHTER), name="Tam the Bold")
    passed = resolve_sheet_text(
        five_e(), (caster, fighter), '[sheet: who="party" op="cast" spell="Fireball"]', "Mira"
    )
    assert passed.text == (
        '[sheet: who="party" op="use" name="Fireball" result="ok" '
        'now="Mira 1st-level slots 1/2; Tam the Bold refused (insufficient)"]'
    )
    assert passed.party[1] == fighter


def test_a_use_refused_at_its_last_part_leaves_nothing_for_the_next_command() -> None:
    """All or nothing through a text's pass, which carries each card's working sheet
    from one command to the next: the hit die a refused Second Wind spent before its
    counter refused is not spent for the command after it."""
    spent_wind = {"pools": {"counters:second wind": {"value": 0}}}
    text = (
        '[sheet: op="use" name="Second Wind"] '
        '[sheet: op="spend" pool="Hit dice" amount="1"] '
        '[sheet: op="use" name="Second Wind"]'
    )
    done = resolve_sheet_text(five_e(), [mira(spent_wind)], text, "Mira")
    assert [(o.ok, o.now, o.reason) for o in done.outcomes] == [
        (False, None, "insufficient"),
        (True, "4/5", None),
        (False, None, "insufficient"),
    ]
    assert done.outcomes[1].changes[0].from_ == 5
