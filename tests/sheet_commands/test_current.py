"""What a character's live sheet currently has (docs/design/sheet-commands.md "The live
sheet", 3.1 to 3.3 of the contract): the hidden rule, pools, tracks, text, conditions
and states as they read, the tolerant reading of a stored record, sparse writes, and
what changed between two characters."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import live_to_json
from dicebound.ruleset.model import HideWhen, Ruleset
from dicebound.sheet import Character, Live, PoolValue, Row, Wounds, frozen_map
from dicebound.sheet_commands.apply import apply_on, apply_request
from dicebound.sheet_commands.current import (
    WorkingSheet,
    changes_between,
    current_sheet,
    effective_field_value,
    is_hidden,
    sheet_layout,
    tolerant_live,
)
from dicebound.sheet_commands.grammar import SheetTag
from dicebound.sheet_commands.model import Applied, SheetChange, SheetRequest
from dicebound.sheet_commands.resolve import SheetsOfText, apply_sheet_tag
from dicebound.sheet_commands.written import written_ask
from dicebound.values import replace
from live_sheet_support import (
    EMBER,
    FIVE_E,
    GRAVEWATCH,
    apply,
    character,
    marinara,
    variant,
)


def five_e() -> Ruleset:
    return marinara(FIVE_E)


CASTER = {
    "level": 5,
    "hp_max": 31,
    "spellcasting_ability": "wis",
    "slots_max_1": 2,
    "slots_max_2": 2,
    "slots_max_3": 2,
    "pact_slots_max": 2,
}


def mira(live: object = None) -> Character:
    return character(five_e(), CASTER, {"counters": [{"name": "Ki", "max": 5}]}, live)


def fighter(live: object = None, **fields: Any) -> Character:
    return character(five_e(), {"level": 1, "hp_max": 12, **fields}, live=live)


def pools_of(rs: Ruleset, who: Character) -> list[tuple[str, int, int, int]]:
    return [(p.spec.key, p.value, p.spec.max, p.temp) for p in current_sheet(rs, who).pools]


# ── The hidden rule ─────────────────────────────────────────────────────────


def without_hit_die_default(raw: dict[str, Any]) -> None:
    die = next(f for f in raw["sheet"]["fields"] if f["id"] == "hit_die")
    del die["default"]


def by_hand(who: Character, **fields: Any) -> Character:
    """The build with these field values, which no character file would be let hold."""
    build = replace(who.build, fields=frozen_map({**who.build.fields, **fields}))
    return Character(who.name, build, who.live)


def without_field(who: Character, field_id: str) -> Character:
    fields = {k: v for k, v in who.build.fields.items() if k != field_id}
    return Character(who.name, replace(who.build, fields=frozen_map(fields)), who.live)


EFFECTIVE = [
    pytest.param(FIVE_E, mira(), "spellcasting_ability", "wis", id="an enum field's stored value"),
    pytest.param(
        FIVE_E,
        by_hand(mira(), spellcasting_ability="psi"),
        "spellcasting_ability",
        "none",
        id="an enum value the field does not offer reads the declared default",
    ),
    pytest.param(
        "no hit die default",
        by_hand(mira(), hit_die="d20"),
        "hit_die",
        "d6",
        id="with no declared default, the first value",
    ),
    pytest.param(FIVE_E, mira(), "level", 5, id="any other field's stored value"),
    pytest.param(FIVE_E, without_field(mira(), "level"), "level", 1, id="else the blank default"),
    pytest.param(FIVE_E, mira(), "nothing", None, id="a field not declared reads None"),
]


@pytest.mark.parametrize(("rs", "who", "field", "expected"), EFFECTIVE)
def test_effective_field_value(rs: str, who: Character, field: str, expected: object) -> None:
    ruleset = variant(FIVE_E, without_hit_die_default) if rs != FIVE_E else five_e()
    assert effective_field_value(ruleset, who.build, field) == expected


HIDDEN = [
    pytest.param(None, "wis", False, id="no hideWhen shows"),
    pytest.param(
        HideWhen("spellcasting_ability", "equals", ("none",)),
        "none",
        True,
        id="equals hides on the value",
    ),
    pytest.param(
        HideWhen("spellcasting_ability", "equals", ("none",)),
        "wis",
        False,
        id="equals shows otherwise",
    ),
    pytest.param(
        HideWhen("spellcasting_ability", "notEquals", ("none",)),
        "wis",
        True,
        id="notEquals hides on any other value",
    ),
    pytest.param(
        HideWhen("spellcasting_ability", "notEquals", ("none",)),
        "none",
        False,
        id="notEquals shows on the value",
    ),
    pytest.param(
        HideWhen("spellcasting_ability", "in", ("wis", "cha")),
        "cha",
        True,
        id="in hides on a listed value",
    ),
    pytest.param(
        HideWhen("spellcasting_ability", "in", ("wis", "cha")),
        "int",
        False,
        id="in shows otherwise",
    ),
    pytest.param(HideWhen("level", "equals", (True,)), 1, False, id="true is not the number 1"),
    pytest.param(HideWhen("level", "equals", (1.0,)), 1, True, id="1.0 is the number 1"),
    pytest.param(
        HideWhen("nothing", "in", (None,)), 1, False, id="in: a field not declared never hides"
    ),
    pytest.param(
        HideWhen("nothing", "notEquals", ("x",)),
        1,
        True,
        id="notEquals: a field not declared differs",
    ),
]


@pytest.mark.parametrize(("hide", "value", "hidden"), HIDDEN)
def test_is_hidden(hide: HideWhen | None, value: object, hidden: bool) -> None:
    field = hide.field if hide is not None and hide.field != "nothing" else "spellcasting_ability"
    who = by_hand(mira(), **{field: value})
    assert is_hidden(five_e(), who.build, hide) is hidden


# ── Pools ───────────────────────────────────────────────────────────────────


def test_pools_declared_visible_with_a_maximum_then_list_rows() -> None:
    assert pools_of(five_e(), mira()) == [
        ("hp", 31, 31, 0),
        ("hit_dice", 5, 5, 0),
        ("slots_1", 2, 2, 0),
        ("slots_2", 2, 2, 0),
        ("slots_3", 2, 2, 0),
        ("pact_slots", 2, 2, 0),
        ("counters:ki", 5, 5, 0),
    ]


def test_a_hidden_pool_and_a_zero_maximum_pool_do_not_exist() -> None:
    assert [p[0] for p in pools_of(five_e(), fighter(slots_max_1=2))] == ["hp", "hit_dice"]


def test_a_hidden_lists_rows_are_no_pools() -> None:
    def hide_counters(raw: dict[str, Any]) -> None:
        counters = next(lst for lst in raw["sheet"]["lists"] if lst["id"] == "counters")
        counters["hideWhen"] = {"field": "hit_die", "equals": "d12"}

    rs = variant(FIVE_E, hide_counters)
    rows = {"counters": [{"name": "Rage", "max": 2}]}
    barbarian = character(rs, {"hit_die": "d12"}, rows)
    monk = character(rs, {"hit_die": "d8"}, rows)
    assert [p[0] for p in pools_of(rs, barbarian)] == ["hp", "hit_dice"]
    assert [p[0] for p in pools_of(rs, monk)] == ["hp", "hit_dice", "counters:rage"]


ROWS = [
    pytest.param({"name": "Ki", "max": 5}, [("counters:ki", 5)], id="a named row with a maximum"),
    pytest.param({"name": "  Ki  ", "max": 5}, [("counters:ki", 5)], id="the name is trimmed"),
    pytest.param({"name": "Ki", "max": 2.9}, [("counters:ki", 2)], id="the maximum is floored"),
    pytest.param({"name": "Ki", "max": "5"}, [], id="a numeric string is 0"),
    pytest.param({"name": "Ki", "max": 0}, [], id="maximum 0 is skipped"),
    pytest.param({"name": "   ", "max": 5}, [], id="an empty name is skipped"),
    pytest.param({"name": 7, "max": 5}, [], id="a name that is not a string is skipped"),
]


@pytest.mark.parametrize(("cells", "expected"), ROWS)
def test_row_pools(cells: dict[str, Any], expected: list[tuple[str, int]]) -> None:
    """Rows made by hand: a character file would refuse most of these cells."""
    who = fighter()
    build = replace(who.build, lists=frozen_map({"counters": (Row(frozen_map(cells)),)}))
    rows = [(p.key, p.max) for p in sheet_layout(five_e(), build).pools if p.is_row]
    assert rows == expected


def test_at_most_600_pools() -> None:
    def two_long_lists(raw: dict[str, Any]) -> None:
        counters = next(lst for lst in raw["sheet"]["lists"] if lst["id"] == "counters")
        counters["maxItems"] = 500
        raw["sheet"]["lists"].append({**counters, "id": "gifts", "label": "Gifts"})

    rs = variant(FIVE_E, two_long_lists)
    rows = [{"name": f"r{i}", "max": 1} for i in range(500)]
    many = character(rs, {"level": 1}, {"counters": rows, "gifts": rows})
    pools = sheet_layout(rs, many.build).pools
    assert (len(pools), pools[-1].key) == (600, "gifts:r97")


POOL_FACTS = [
    pytest.param(
        fighter(level=6, hp_max=40),
        [("hp", 40, 40, 0), ("hit_dice", 6, 6, 0)],
        id="an untouched full pool follows its maximum: level 6 reads 40/40 and hit dice 6",
    ),
    pytest.param(
        fighter({"pools": {"hp": {"value": 20}}}, level=6, hp_max=40),
        [("hp", 20, 40, 0), ("hit_dice", 6, 6, 0)],
        id="a spent pool keeps its value: stored 20 reads 20/40",
    ),
    pytest.param(
        fighter({"pools": {"hp": {"value": 20}}}, hp_max=8),
        [("hp", 8, 8, 0), ("hit_dice", 1, 1, 0)],
        id="a stored value above a lowered maximum is clamped: stored 20 with maximum 8 reads 8",
    ),
    pytest.param(
        fighter({"pools": {"hp": {"value": -4, "temp": 3}, "hit_dice": {"value": 1, "temp": 3}}}),
        [("hp", 0, 12, 3), ("hit_dice", 1, 1, 0)],
        id="values below 0 read 0; a temp only where the pool allows one",
    ),
]


@pytest.mark.parametrize(("who", "expected"), POOL_FACTS)
def test_pool_values(who: Character, expected: list[tuple[str, int, int, int]]) -> None:
    assert pools_of(five_e(), who) == expected


def test_a_pool_maximum_is_capped_at_1000000() -> None:
    def huge(raw: dict[str, Any]) -> None:
        raw["sheet"]["live"]["pools"][0]["max"] = {"const": 5_000_000}

    rs = variant(EMBER, huge)
    assert pools_of(rs, character(rs))[0] == ("grit", 1_000_000, 1_000_000, 0)


# ── Tracks, text, conditions, states ───────────────────────────────────────


def test_tracks_text_conditions_and_states_as_they_read() -> None:
    rs = marinara(GRAVEWATCH)
    warden = character(
        rs,
        live={
            "wounds": {"harm": {"marks": ["knock"]}},
            "conditions": ["marked", "hexed"],
            "states": {"light": "out"},
        },
    )
    sheet = current_sheet(rs, warden)
    assert [(t.spec.id, t.value, t.wounds) for t in sheet.tracks] == [
        ("harm", 1, Wounds(("knock",)))
    ]
    assert [(c.condition.id, c.active) for c in sheet.conditions] == [
        ("rattled", False),
        ("marked", True),
    ]
    assert [(s.spec.id, s.value, s.value_label) for s in sheet.states] == [("light", "out", "Out")]


PLAIN = [
    pytest.param(None, 0, id="a plain track starts at its default or min"),
    pytest.param({"tracks": {"exhaustion": 4}}, 4, id="the stored number"),
    pytest.param({"tracks": {"exhaustion": 9}}, 6, id="held to its maximum"),
    pytest.param({"tracks": {"exhaustion": -2}}, 0, id="held to its minimum"),
]


@pytest.mark.parametrize(("live", "expected"), PLAIN)
def test_plain_tracks(live: object, expected: int) -> None:
    track = next(
        t for t in current_sheet(five_e(), fighter(live)).tracks if t.spec.id == "exhaustion"
    )
    assert (track.value, track.spec.max) == (expected, 6)


def test_a_track_maximum_by_reference_is_floored_and_never_below_its_min() -> None:
    def by_level(raw: dict[str, Any]) -> None:
        track = next(t for t in raw["sheet"]["live"]["tracks"] if t["id"] == "exhaustion")
        track["max"] = {"field": "level"}
        track["min"] = 2

    rs = variant(FIVE_E, by_level)
    spec = sheet_layout(rs, character(rs, {"level": 1}).build).track_named("exhaustion")
    assert spec is not None
    assert (spec.min, spec.max, spec.start) == (2, 2, 2)


def test_text_is_cut_to_its_max_length() -> None:
    text = current_sheet(five_e(), fighter({"text": {"concentration": "x" * 100}})).text
    assert [(t.spec.id, t.value) for t in text] == [("concentration", "x" * 80)]


STATES = [
    pytest.param({}, "steady", id="a state starts at its default"),
    pytest.param({"stance": "reckless"}, "reckless", id="the stored value it offers"),
    pytest.param({"stance": "wild"}, "steady", id="a value it does not offer reads the default"),
]


@pytest.mark.parametrize(("stored", "expected"), STATES)
def test_states(stored: dict[str, str], expected: str) -> None:
    rs = marinara(EMBER)
    sheet = current_sheet(rs, character(rs, live={"states": stored}))
    assert [(s.spec.id, s.value) for s in sheet.states] == [("stance", expected)]


# ── 3.1 tolerant reading ────────────────────────────────────────────────────


def test_the_tolerant_reading_fact() -> None:
    stored = {
        "pools": {"hp": {"value": "lots"}, "hit_dice": {"value": 0}},
        "tracks": {"exhaustion": 2.5, "death_save_failures": 1},
        "text": {"concentration": 5},
        "conditions": ["poisoned", 7],
    }
    sheet = current_sheet(five_e(), fighter(stored))
    assert [(p.spec.key, p.value) for p in sheet.pools] == [("hp", 12), ("hit_dice", 0)]
    tracks = {t.spec.id: t.value for t in sheet.tracks}
    assert (tracks["exhaustion"], tracks["death_save_failures"]) == (0, 1)
    assert [t.value for t in sheet.text] == [""]
    assert [c.condition.id for c in sheet.conditions if c.active] == ["poisoned"]


LONG = "k" * 201
TOLERANT = [
    pytest.param("junk", Live(), id="a stored value that is not an object reads empty"),
    pytest.param({"mood": {"x": 1}}, Live(), id="other members are ignored"),
    pytest.param({"pools": []}, Live(), id="a member of the wrong shape reads empty"),
    pytest.param(
        {"pools": {"a": {"value": 1_000_001}, "b": {"value": True}, "c": {"value": 2.0}}},
        Live(pools=frozen_map({"c": PoolValue(2)})),
        id="pools: an integer within 1000000 (2.0 is one, true is not)",
    ),
    pytest.param(
        {"pools": {"a": {"value": 1, "temp": -1}, "b": {"value": 1, "max": 3}, "c": {"temp": 1}}},
        Live(),
        id="pools: temp 0 or more, no other members, value required",
    ),
    pytest.param(
        {"pools": {LONG: {"value": 1}, "d": {"value": 1, "temp": 1_000_000}}},
        Live(pools=frozen_map({"d": PoolValue(1, 1_000_000)})),
        id="pools: a key over 200 characters is skipped",
    ),
    pytest.param(
        {"pools": {f"p{i}": {"value": i} for i in range(601)}},
        Live(pools=frozen_map({f"p{i}": PoolValue(i) for i in range(600)})),
        id="pools: at most 600",
    ),
    pytest.param(
        {"tracks": {"a": 2.5, "b": -1_000_000, "c": "3", **{f"t{i}": i for i in range(31)}}},
        Live(tracks=frozen_map({"b": -1_000_000, **{f"t{i}": i for i in range(29)}})),
        id="tracks: integers within 1000000, at most 30",
    ),
    pytest.param(
        {
            "wounds": {
                "a": {"marks": ["x"] * 65},
                "b": {"marks": [LONG]},
                "c": {"marks": ["x"], "overflow": -1},
                "d": {"marks": ["x"], "extra": 1},
                "e": {"overflow": 1},
                "f": {"marks": [1]},
                "g": {"marks": ["x", ""], "overflow": 3},
            }
        },
        Live(wounds=frozen_map({"g": Wounds(("x", ""), 3)})),
        id="wounds: at most 64 marks of at most 200 characters, overflow 0 or more, no more",
    ),
    pytest.param(
        {"text": {"a": "x" * 501, "b": 3, **{f"t{i}": "y" for i in range(13)}}},
        Live(text=frozen_map({f"t{i}": "y" for i in range(12)})),
        id="text: strings of at most 500, at most 12",
    ),
    pytest.param(
        {"conditions": ["a", "b", "a", "c" * 81, 4, *[f"c{i}" for i in range(90)]]},
        Live(conditions=("a", "b", *[f"c{i}" for i in range(78)])),
        id="conditions: strings of at most 80, duplicates dropped keeping the first, at most 80",
    ),
    pytest.param({"conditions": "poisoned"}, Live(), id="conditions: a list"),
    pytest.param(
        {"states": {"a": "x" * 81, "b": 1, **{f"s{i}": "v" for i in range(31)}}},
        Live(states=frozen_map({f"s{i}": "v" for i in range(30)})),
        id="states: strings of at most 80, at most 30",
    ),
]


@pytest.mark.parametrize(("raw", "expected"), TOLERANT)
def test_tolerant_reading(raw: object, expected: Live) -> None:
    assert tolerant_live(raw) == expected


def test_a_live_value_reads_as_its_json_does() -> None:
    live = Live(pools=frozen_map({"hp": PoolValue(5_000_000), "hit_dice": PoolValue(1, 2)}))
    assert tolerant_live(live) == Live(pools=frozen_map({"hit_dice": PoolValue(1, 2)}))


def test_junk_disappears_on_the_first_successful_write_and_a_refusal_keeps_it() -> None:
    junk = fighter()
    junk = Character(junk.name, junk.build, Live(tracks=frozen_map({"exhaustion": 9_000_000})))
    refused = apply(five_e(), junk, "spend", pool="hp", amount=99)
    applied = apply(five_e(), junk, "spend", pool="hp", amount=1)
    assert not isinstance(refused, Applied)
    assert isinstance(applied, Applied)
    assert dict(applied.character.live.tracks) == {}
    assert junk.live.tracks["exhaustion"] == 9_000_000


# ── 3.3 sparse writes ───────────────────────────────────────────────────────


def write(who: Character, rs: Ruleset, step: str) -> Live:
    sheet = WorkingSheet(rs, who)
    layout = sheet.layout
    if step == "pool at start":
        sheet.set_pool(layout.pool_by_key["hp"], 12, 0)
    elif step == "pool with temp":
        sheet.set_pool(layout.pool_by_key["hp"], 12, 4)
    elif step == "pool spent":
        sheet.set_pool(layout.pool_by_key["hp"], 3, 0)
    elif step == "track at default":
        sheet.set_track(layout.track_named("exhaustion"), 0)  # type: ignore[arg-type]
    elif step == "track moved":
        sheet.set_track(layout.track_named("exhaustion"), 2)  # type: ignore[arg-type]
    elif step == "text emptied":
        sheet.set_text("concentration", "")
    elif step == "condition off":
        sheet.set_condition("poisoned", False)
    return sheet.result().live


SPARSE = [
    pytest.param(
        "pool at start",
        {"pools": {"hp": {"value": 5}}},
        Live(),
        id="a pool at its start value with no temp is removed",
    ),
    pytest.param(
        "pool with temp",
        None,
        Live(pools=frozen_map({"hp": PoolValue(12, 4)})),
        id="a pool with temp is stored with it",
    ),
    pytest.param(
        "pool spent",
        None,
        Live(pools=frozen_map({"hp": PoolValue(3)})),
        id="a pool off its start is stored",
    ),
    pytest.param(
        "track at default",
        {"tracks": {"exhaustion": 3}},
        Live(),
        id="a track at its default is removed",
    ),
    pytest.param(
        "track moved",
        None,
        Live(tracks=frozen_map({"exhaustion": 2})),
        id="a track off its default is stored",
    ),
    pytest.param(
        "text emptied", {"text": {"concentration": "Bless"}}, Live(), id="empty text is removed"
    ),
    pytest.param(
        "condition off",
        {"conditions": ["poisoned"]},
        Live(),
        id="an empty condition list is omitted",
    ),
]


@pytest.mark.parametrize(("step", "start", "expected"), SPARSE)
def test_sparse_writes(step: str, start: object, expected: Live) -> None:
    assert write(fighter(start), five_e(), step) == expected


def test_a_state_back_at_its_default_and_a_cleared_wound_track_are_removed() -> None:
    rs = marinara(GRAVEWATCH)
    who = character(rs, live={"states": {"light": "out"}, "wounds": {"harm": {"marks": ["tear"]}}})
    sheet = WorkingSheet(rs, who)
    light = sheet.layout.state_named("light")
    harm = sheet.layout.track_named("harm")
    assert light is not None and harm is not None
    sheet.set_state(light, "lit")
    work = sheet.wound_track(harm)
    work.marks.clear()
    sheet.set_wounds(harm, work)
    assert sheet.result().live == Live()


# ── What changed ────────────────────────────────────────────────────────────

CHANGES = [
    pytest.param("spend", {"pool": "slots_1", "amount": 1}, [("pool slots_1", 2, 1)], id="a pool"),
    pytest.param(
        "temp", {"pool": "hp", "amount": 5}, [("temp hp", 0, 5)], id="a buffer alone says temp"
    ),
    pytest.param(
        "damage", {"pool": "hp", "amount": 2}, [("pool hp", 31, 29)], id="damage without a buffer"
    ),
    pytest.param(
        "track", {"track": "exhaustion", "by": 1}, [("track exhaustion", 0, 1)], id="a track"
    ),
    pytest.param(
        "note",
        {"field": "concentration", "value": "Bless"},
        [("text concentration", "", "Bless")],
        id="text",
    ),
    pytest.param(
        "condition", {"condition": "prone"}, [("condition prone", False, True)], id="a condition"
    ),
    pytest.param(
        "spend", {"pool": "ki", "amount": 1}, [("pool counters:ki", 5, 4)], id="a row pool"
    ),
    pytest.param("restore", {"pool": "hp", "amount": 1}, [], id="nothing changed, nothing said"),
]


@pytest.mark.parametrize(("op", "attrs", "expected"), CHANGES)
def test_changes_between(
    op: str, attrs: dict[str, Any], expected: list[tuple[str, Any, Any]]
) -> None:
    before = mira()
    outcome = apply(five_e(), before, op, **attrs)
    assert isinstance(outcome, Applied)
    assert changes_between(five_e(), before, outcome.character) == tuple(
        SheetChange("Mira", what, old, new) for what, old, new in expected
    )


def test_changes_of_wounds_and_states_in_sheet_order() -> None:
    rs = marinara(GRAVEWATCH)
    before = character(rs, live={"wounds": {"harm": {"marks": ["tear"] * 4}}})
    after = character(
        rs,
        live={
            "states": {"light": "out"},
            "wounds": {"harm": {"marks": ["tear"] * 4, "overflow": 1}},
        },
    )
    assert changes_between(rs, before, after) == (
        SheetChange(
            "Mira",
            "wounds harm",
            {"marks": ["tear"] * 4, "overflow": 0},
            {"marks": ["tear"] * 4, "overflow": 1},
        ),
        SheetChange("Mira", "state light", "lit", "out"),
    )


# ── Properties ──────────────────────────────────────────────────────────────

NAMES = ["hp", "Hit dice", "slots_1", "ki", "pact_slots", "nothing"]
REQUESTS = st.one_of(
    st.builds(
        SheetRequest,
        op=st.sampled_from(["spend", "restore", "damage", "temp"]),
        pool=st.sampled_from(NAMES),
        amount=st.integers(-2, 40),
    ),
    st.builds(
        SheetRequest,
        op=st.just("track"),
        track=st.sampled_from(["exhaustion", "Death save failures"]),
        by=st.integers(-4, 4),
    ),
    st.builds(
        SheetRequest,
        op=st.just("condition"),
        condition=st.sampled_from(["Poisoned", "prone"]),
        on=st.booleans(),
    ),
    st.builds(
        SheetRequest, op=st.just("note"), field=st.just("concentration"), value=st.text(max_size=90)
    ),
)


def played(requests: list[SheetRequest]) -> Character:
    who = mira()
    for request in requests:
        outcome = apply_request(five_e(), who, request)
        if isinstance(outcome, Applied):
            who = outcome.character
    return who


@settings(max_examples=examples(150))
@given(st.lists(REQUESTS, max_size=12))
def test_writing_the_current_sheet_unchanged_gives_the_same_live(
    requests: list[SheetRequest],
) -> None:
    who = played(requests)
    sheet = WorkingSheet(five_e(), who)
    now = current_sheet(five_e(), who)
    for pool in now.pools:
        sheet.set_pool(pool.spec, pool.value, pool.temp)
    for track in now.tracks:
        sheet.set_track(track.spec, track.value)
    for text in now.text:
        sheet.set_text(text.spec.id, text.value)
    for condition in now.conditions:
        sheet.set_condition(condition.condition.id, condition.active)
    assert sheet.result().live == who.live
    assert tolerant_live(live_to_json(who.live)) == who.live


def test_members_a_command_did_not_touch_are_handed_back_as_they_were() -> None:
    """What keeps a pass of 40 commands cheap: an untouched member is the same object,
    so comparing it (here, and in changes_between) costs nothing."""
    before = mira({"conditions": ["prone"], "tracks": {"exhaustion": 1}})
    outcome = apply(five_e(), before, "damage", pool="hp", amount=1)
    assert isinstance(outcome, Applied)
    after = outcome.character.live
    assert after.conditions is before.live.conditions
    assert after.tracks is before.live.tracks
    assert after.pools is not before.live.pools


def test_changes_between_builds_read_every_value() -> None:
    """A character whose build changed (levelled up) reads its whole sheet again; a pool
    it did not have before changes from None."""
    before, after = (
        fighter(),
        fighter(level=2, hp_max=20, spellcasting_ability="wis", slots_max_1=2),
    )
    changes = changes_between(five_e(), before, after)
    assert [(c.what, c.from_, c.to) for c in changes] == [
        ("pool hp", 12, 20),
        ("pool hit_dice", 1, 2),
        ("pool slots_1", None, 2),
        ("temp slots_1", None, 0),
    ]


ODD_POOLS: list[Any] = [PoolValue(2.0), PoolValue(True)]  # type: ignore[arg-type]
"""Pool values whose types a tolerant reading changes (2.0 reads 2) or drops (true)."""


def _messy(
    pools: dict[str, Any],
    filler: int,
    tracks: dict[str, Any],
    text: dict[str, Any],
    conditions: list[Any],
) -> Live:
    """A live value as no loader would make it: entries a tolerant reading drops or
    changes (2.0 for 2), pools up to the cap, then the entries drawn."""
    kept = {f"hidden {i}": PoolValue(1) for i in range(filler)} | pools
    return Live(
        pools=frozen_map(kept),
        tracks=frozen_map(tracks),
        text=frozen_map(text),
        conditions=tuple(conditions),
    )


MESSY = st.builds(
    _messy,
    pools=st.dictionaries(
        st.sampled_from(["hp", "hit_dice", "slots_1", "counters:ki", "gone", LONG]),
        st.sampled_from([PoolValue(3), PoolValue(1, -1), PoolValue(0, 4), *ODD_POOLS]),
        max_size=4,
    ),
    filler=st.sampled_from([0, 0, 597, 598, 599, 600]),
    tracks=st.dictionaries(
        st.sampled_from(["exhaustion", "death_save_failures", "gone"]),
        st.sampled_from([1, 2.0, True, 9_000_000, -3]),
        max_size=3,
    ),
    text=st.dictionaries(st.just("concentration"), st.sampled_from(["Bless", "x" * 600, 5])),
    conditions=st.lists(st.sampled_from(["poisoned", "prone", "c" * 81, 7]), max_size=4),
)


def _afresh(who: Character) -> Character:
    """The character with a copy of its live value: one no working sheet has read."""
    live = who.live
    copied = Live(
        pools=frozen_map(live.pools),
        tracks=frozen_map(live.tracks),
        wounds=frozen_map(live.wounds),
        text=frozen_map(live.text),
        conditions=live.conditions,
        states=frozen_map(live.states),
    )
    return Character(who.name, who.build, copied)


def _read(sheet: WorkingSheet) -> str:
    """What a working sheet read, every entry in order with its type (2 is not 2.0)."""
    stored = sheet.stored
    members = (stored.pools, stored.tracks, stored.wounds, stored.text, stored.states)
    return repr((members, stored.conditions))


@settings(max_examples=examples(300))
@given(MESSY, st.lists(REQUESTS, max_size=8))
def test_a_commands_changes_and_the_reading_it_keeps_are_what_reading_afresh_gives(
    live: Live, requests: list[SheetRequest]
) -> None:
    """A command's changes come from the reading its sheet started from and its own
    entries, and those entries are kept as the reading of the live value it made: both
    exactly what reading the two values again gives, junk, caps and all."""
    rs = five_e()
    who = Character("Mira", mira().build, live)
    for request in requests:
        sheet = WorkingSheet(rs, who)
        outcome = apply_on(sheet, request)
        if not isinstance(outcome, Applied):
            continue
        after = outcome.character
        assert sheet.changes(after) == changes_between(rs, _afresh(who), _afresh(after))
        assert _read(WorkingSheet(rs, after)) == _read(WorkingSheet(rs, _afresh(after)))
        assert current_sheet(rs, after) == current_sheet(rs, _afresh(after))
        who = after


@settings(max_examples=examples(300))
@given(
    MESSY,
    st.lists(
        st.one_of(
            REQUESTS,
            st.builds(
                SheetRequest, op=st.just("rest"), rest=st.sampled_from(["short", "long", "nap"])
            ),
        ),
        max_size=8,
    ),
)
def test_a_pass_carrying_its_working_sheets_reads_as_each_command_read_afresh(
    live: Live, requests: list[SheetRequest]
) -> None:
    """A text's pass carries each card's working sheet from one command to the next:
    each command's outcome, and the card it leaves, are exactly what applying it to a
    card no sheet has read gives (junk, caps, refusals and rests included)."""
    rs = five_e()
    who = Character("Mira", mira().build, live)
    sheets = SheetsOfText(rs)
    for number, request in enumerate(requests, start=1):
        tag = SheetTag((0, 0), written_ask(request, None).removeprefix("[sheet:"))
        carried, party = sheets.apply((who,), "Mira", tag, number)
        fresh, fresh_party = apply_sheet_tag(rs, (_afresh(who),), "Mira", tag, number)
        assert carried == fresh
        assert party[0].live == fresh_party[0].live
        assert _read(WorkingSheet(rs, party[0])) == _read(WorkingSheet(rs, _afresh(party[0])))
        who = party[0]
