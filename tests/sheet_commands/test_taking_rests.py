"""Rests (docs/design/sheet-commands.md "Rests"): the moved value, the marks a wound
step clears, which rest a name means, and every rest fact of the reference rules."""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import live_to_json
from dicebound.compiler import compile_ruleset
from dicebound.ruleset.model import Rest, RestStep, Rounding, Ruleset
from dicebound.sheet import (
    Character,
    Live,
    PoolValue,
    SheetView,
    exact,
    frozen_map,
    round_number,
)
from dicebound.sheet_commands.current import current_sheet, tolerant_live
from dicebound.sheet_commands.model import Applied
from dicebound.sheet_commands.resolve import resolve_sheet_text
from dicebound.sheet_commands.rests import moved_value, wound_clear_count
from dicebound.values import replace
from kind_samples import ruleset_of_kind
from live_sheet_support import (
    EMBER,
    FIVE_E,
    GRAVEWATCH,
    apply,
    character,
    marinara,
    now_or_reason,
    variant,
)


def _by_fraction(fraction: float, how: Rounding = "down", least: int = 0) -> RestStep:
    return RestStep("pool", "p", by_fraction=fraction, round=how, by_min=least)


@pytest.mark.parametrize(
    ("step", "current", "maximum", "minimum", "moved"),
    [
        (RestStep("pool", "p", to="max"), 3, 9, 0, 9),
        (RestStep("track", "t", to="min"), 3, 9, -2, -2),
        (RestStep("track", "t", to=5), 3, 9, 0, 5),
        (RestStep("track", "t", to=-40), 3, 9, 0, -40),
        (RestStep("track", "t", by_const=-1), 3, 6, 0, 2),
        (RestStep("track", "t", by_const=50), 3, 6, 0, 53),
        (_by_fraction(0.5), 0, 5, 0, 2),
        (_by_fraction(0.5, least=1), 0, 1, 0, 1),
        (_by_fraction(0.25, "up", 1), 5, 12, 0, 8),
        (_by_fraction(0.5, "nearest"), 0, 5, 0, 3),
        (_by_fraction(0.5, "nearest"), 0, 3, 0, 2),
        (_by_fraction(0.5, "up"), 0, 3, 0, 2),
        (_by_fraction(0.5, "down"), 0, 3, 0, 1),
        (_by_fraction(0.07, "up"), 0, 100, 0, 7),
        (_by_fraction(1.0), 4, 6, 0, 10),
        (RestStep("state", "s", to="default"), 3, 9, 0, None),
    ],
    ids=[
        "to max is the maximum",
        "to min is the minimum",
        "to a number is that number",
        "to a number is not clamped here",
        "by const adds the constant",
        "by const is not clamped here",
        "half of five rounded down is 2",
        "half of one rounds to 0 and the minimum lifts it to 1",
        "a quarter of twelve rounded up with minimum 1 is 3",
        "nearest rounds a half up: 2.5 is 3",
        "nearest rounds 1.5 up to 2",
        "up ceils 1.5 to 2",
        "down floors 1.5 to 1",
        "the fraction is the decimal written: 7/100 of 100 is 7, not 8",
        "a whole fraction adds the maximum, unclamped",
        "a word that is not max or min moves no number",
    ],
)
def test_moved_value(
    step: RestStep, current: int, maximum: int, minimum: int, moved: int | None
) -> None:
    assert moved_value(step, current, maximum, minimum) == moved


@pytest.mark.parametrize(
    ("step", "filled", "levels", "overflow", "count"),
    [
        (RestStep("track", "harm", to="min"), 4, 4, 2, 6),
        (RestStep("track", "harm", to=2), 3, 4, 1, 2),
        (RestStep("track", "harm", to="max"), 4, 4, 3, 3),
        (RestStep("track", "harm", to="max"), 2, 4, 0, -2),
        (RestStep("track", "harm", to=9), 2, 4, 0, -2),
        (RestStep("track", "harm", to=-3), 2, 4, 1, 3),
        (RestStep("track", "harm", by_const=-2), 1, 4, 3, 2),
        (RestStep("track", "harm", by_const=2), 1, 4, 3, -2),
        (RestStep("track", "harm", by_fraction=0.5), 4, 4, 0, -2),
        (RestStep("track", "harm", by_fraction=0.5, round="up", by_min=1), 0, 0, 5, -1),
    ],
    ids=[
        "to min clears every mark and all overflow",
        "to 2 leaves two marks and no overflow",
        "to max on a full track with overflow clears exactly the overflow",
        "to max on a track with room clears nothing",
        "to a number past the levels is held to them and clears nothing",
        "to a number below 0 is held to 0",
        "by const -2 clears 2",
        "a positive constant clears nothing",
        "a fraction clears nothing",
        "a fraction on a zero-length track clears nothing",
    ],
)
def test_wound_clear_count(
    step: RestStep, filled: int, levels: int, overflow: int, count: int
) -> None:
    assert wound_clear_count(step, filled, levels, overflow) == count


# ── The rest facts, on the reference rulesets ─────────────────────────────────


def five_e() -> Ruleset:
    return marinara(FIVE_E)


CASTER = {"level": 5, "hp_max": 31, "spellcasting_ability": "cha", "slots_max_1": 2}
PACT = {**CASTER, "pact_slots_max": 2}
KI_LUCK = {
    "counters": [
        {"name": "Ki", "max": 5, "recharge": "short"},
        {"name": "Luck", "max": 3, "recharge": "long"},
        {"name": "Oath", "max": 1, "recharge": "none"},
    ]
}
SPENT: dict[str, Any] = {
    "pools": {
        "pact_slots": {"value": 0},
        "counters:ki": {"value": 0},
        "counters:luck": {"value": 0},
        "counters:oath": {"value": 0},
        "slots_1": {"value": 0},
        "hp": {"value": 11},
    }
}
WEARY: dict[str, Any] = {
    **SPENT,
    "tracks": {"exhaustion": 3, "death_save_successes": 2, "death_save_failures": 1},
    "text": {"concentration": "Bless"},
    "conditions": ["poisoned"],
}


def reads(rs: Ruleset, who: Character) -> dict[str, Any]:
    """The live sheet as it reads, by label: pools ``v/max`` (`` +t temp``), plain
    tracks their number, wound tracks ``filled/L`` with their marks and overflow, text
    fields by id, the active condition ids under ``conditions``, states their value."""
    sheet = current_sheet(rs, who)
    out: dict[str, Any] = {}
    for pool in sheet.pools:
        temp = f" +{pool.temp} temp" if pool.temp else ""
        out[pool.spec.label] = f"{pool.value}/{pool.spec.max}{temp}"
    for track in sheet.tracks:
        if track.wounds is None:
            out[track.spec.label] = track.value
        else:
            out[track.spec.label] = (
                f"{track.value}/{track.spec.max} {list(track.wounds.marks)} +{track.wounds.overflow}"
            )
    out.update((text.spec.id, text.value) for text in sheet.text)
    out["conditions"] = [c.condition.id for c in sheet.conditions if c.active]
    out.update((state.spec.label, state.value) for state in sheet.states)
    return out


def rested(rs: Ruleset, who: Character, rest: str) -> tuple[str, dict[str, Any]]:
    """The rest's ``now`` and the sheet as it reads after it."""
    outcome = apply(rs, who, "rest", rest=rest)
    assert isinstance(outcome, Applied), outcome
    return outcome.now, reads(rs, outcome.character)


FIVE_E_FACTS = [
    pytest.param(
        PACT,
        SPENT,
        "short",
        "Short rest: Pact Magic slots 2/2, Ki 5/5",
        {
            "Pact Magic slots": "2/2",
            "Ki": "5/5",
            "Luck": "0/3",
            "Oath": "0/1",
            "1st-level slots": "0/2",
            "Hit points": "11/31",
        },
        id="short rest: pact slots and counters recharging short to max; Luck, slots and hp stay",
    ),
    pytest.param(
        PACT,
        WEARY,
        "long",
        (
            "Long rest: Hit points 31/31, 1st-level slots 2/2, Pact Magic slots 2/2, Ki 5/5, "
            "Luck 3/3, Exhaustion 2, Death save successes 0, Death save failures 0"
        )[:120],
        {
            "Hit points": "31/31",
            "1st-level slots": "2/2",
            "Pact Magic slots": "2/2",
            "Ki": "5/5",
            "Luck": "3/3",
            "Oath": "0/1",
            "Exhaustion": 2,
            "Death save successes": 0,
            "Death save failures": 0,
            "concentration": "",
            "conditions": ["poisoned"],
        },
        id="long rest: hp, slots, pact, counters short or long to max, exhaustion -1, "
        "death saves to 0, concentration cleared and not said, now cut to 120; a counter "
        "recharging none and a condition it does not name stay",
    ),
    pytest.param(
        {"level": 1, "hp_max": 12},
        {"pools": {"hit_dice": {"value": 0}}},
        "long",
        "Long rest: Hit dice 1/1",
        {"Hit dice": "1/1"},
        id="hit dice: half of one rounds to 0 and the minimum lifts it to 1",
    ),
    pytest.param(
        {"level": 5, "hp_max": 31},
        {"pools": {"hit_dice": {"value": 0}}},
        "long",
        "Long rest: Hit dice 2/5",
        {"Hit dice": "2/5"},
        id="hit dice: half of five rounds down to 2",
    ),
    pytest.param(
        {"level": 5, "hp_max": 31},
        {"pools": {"hit_dice": {"value": 4}}},
        "long",
        "Long rest: Hit dice 5/5",
        {"Hit dice": "5/5"},
        id="hit dice: two back on four of five is held to the maximum",
    ),
    pytest.param(
        CASTER,
        {"pools": {"hp": {"value": 20, "temp": 5}}},
        "Long Rest",
        "Long rest: Hit points 31/31",
        {"Hit points": "31/31 +5 temp"},
        id="the rest is found by its label in any case; the temporary buffer stays",
    ),
    pytest.param(
        {"level": 1, "hp_max": 12, "slots_max_1": 2},
        {"pools": {"slots_1": {"value": 0}, "hp": {"value": 3}}},
        "  LONG ",
        "Long rest: Hit points 12/12",
        {"Hit points": "12/12"},
        id="the rest is found by its id trimmed; a hidden pool of the group is not refilled",
    ),
    pytest.param(
        CASTER,
        {"text": {"concentration": "Bless"}},
        "long",
        "Long rest",
        {"concentration": "", "Hit points": "31/31"},
        id="nothing moved: now is the rest's label alone, clearing is not mentioned",
    ),
]


@pytest.mark.parametrize(("fields", "live", "rest", "now", "expected"), FIVE_E_FACTS)
def test_five_e_rests(
    fields: dict[str, Any],
    live: dict[str, Any],
    rest: str,
    now: str,
    expected: dict[str, Any],
) -> None:
    said, after = rested(five_e(), character(five_e(), fields, KI_LUCK, live), rest)
    assert said == now
    assert {key: after[key] for key in expected} == expected


def test_the_short_rest_fact_played_through_one_pass() -> None:
    """Spend pact slots 2, Ki 5, Luck 3, 1st-level slots 2, take 20 damage (31 max),
    then a short rest: pact 2/2, Ki 5/5, Luck 0/3, 1st-level slots 0/2, hit points
    11/31, and its now starts "Short rest: "."""
    rs = five_e()
    who = character(rs, PACT, KI_LUCK)
    text = " ".join(
        [
            '[sheet: op="spend" pool="Pact Magic slots" amount="2"]',
            '[sheet: op="spend" pool="ki" amount="5"]',
            '[sheet: op="spend" pool="Luck" amount="3"]',
            '[sheet: op="spend" pool="1st-level slots" amount="2"]',
            '[sheet: op="damage" pool="hp" amount="20"]',
            '[sheet: op="rest" rest="Short rest"]',
        ]
    )
    passed = resolve_sheet_text(rs, (who,), text, who.name)
    assert [o.ok for o in passed.outcomes] == [True] * 6
    assert passed.outcomes[-1].now is not None
    assert passed.outcomes[-1].now.startswith("Short rest: ")
    assert passed.rests == (("Mira", "Short rest"),)
    after = reads(rs, passed.party[0])
    assert {k: after[k] for k in ("Pact Magic slots", "Ki", "Luck", "1st-level slots")} == {
        "Pact Magic slots": "2/2",
        "Ki": "5/5",
        "Luck": "0/3",
        "1st-level slots": "0/2",
    }
    assert after["Hit points"] == "11/31"


def test_a_hidden_pool_keeps_its_stored_value_through_a_rest() -> None:
    """slots_1 is hidden on a sheet with no spellcasting: the long rest passes it over,
    and the stored value is carried, not refilled."""
    rs = five_e()
    who = character(
        rs, {"level": 1, "hp_max": 12, "slots_max_1": 2}, live={"pools": {"slots_1": {"value": 0}}}
    )
    outcome = apply(rs, who, "rest", rest="long")
    assert isinstance(outcome, Applied)
    assert outcome.character.live.pools["slots_1"].value == 0


@pytest.mark.parametrize(
    "written",
    ["nap", "", "   ", "short rest please", "longrest", "Long_rest"],
    ids=[
        "nap is unknown-rest",
        "an empty name is unknown-rest",
        "a name trimmed to nothing is unknown-rest",
        "no partial matching",
        "no folding of spaces",
        "no folding of punctuation",
    ],
)
def test_unknown_rest(written: str) -> None:
    who = character(five_e(), PACT, KI_LUCK, WEARY)
    assert now_or_reason(apply(five_e(), who, "rest", rest=written)) == "refused unknown-rest"


def test_the_first_rest_answering_to_a_name_wins() -> None:
    """A later rest whose label is an earlier rest's id (which the compiler refuses in a
    file, so the ruleset is made here): the earlier rest answers."""
    nap = Rest("nap", "short", (RestStep("pool", "hp", to="max"),))
    rs = replace(five_e(), rests=(*five_e().rests, nap), memo={})
    who = character(rs, PACT, KI_LUCK, SPENT)
    assert now_or_reason(apply(rs, who, "rest", rest="short")).startswith("Short rest")
    assert now_or_reason(apply(rs, who, "rest", rest="nap")) == "short: Hit points 31/31"


# ── Star Trader: a small ruleset of its own ─────────────────────────────────


def star_trader(*rests: dict[str, Any]) -> Ruleset:
    """A ship's crew: stress and hull pools, a fatigue track, a course text, an Adrift
    condition, a cargo list whose rows are pools, a drive state hidden on a ship with no
    drive, and the ``downtime`` rest (plus any ``rests`` given)."""
    raw = ruleset_of_kind("dice-sum")
    raw["sheet"]["fields"] = [
        {"id": "drive", "label": "Drive", "type": "enum", "values": ["none", "jump"]},
    ]
    raw["sheet"]["lists"] = [
        {
            "id": "cargo",
            "label": "Cargo",
            "maxItems": 6,
            "columns": [
                {"id": "name", "label": "Name", "type": "text", "maxLength": 40},
                {"id": "units", "label": "Units", "type": "number", "min": 0, "max": 9},
                {"id": "refill", "label": "Refills", "type": "enum", "values": ["port", "sea"]},
            ],
            "pools": {"nameColumn": "name", "maxColumn": "units", "rechargeColumn": "refill"},
        }
    ]
    raw["sheet"]["live"] = {
        "pools": [
            {"id": "stress", "label": "Stress", "max": {"const": 6}, "start": "empty"},
            {"id": "hull", "label": "Hull", "max": {"const": 12}},
            {
                "id": "fuel",
                "label": "Fuel",
                "max": {"const": 4},
                "hideWhen": {"field": "drive", "equals": "none"},
            },
        ],
        "tracks": [
            {"id": "fatigue", "label": "Fatigue", "min": 0, "max": 6},
            {
                "id": "heat",
                "label": "Heat",
                "min": 0,
                "max": 5,
                "hideWhen": {"field": "drive", "equals": "none"},
            },
        ],
        "text": [{"id": "course", "label": "Course", "maxLength": 80}],
        "conditions": [{"id": "adrift", "label": "Adrift"}, {"id": "boarded", "label": "Boarded"}],
        "states": [
            {
                "id": "trim",
                "label": "Trim",
                "values": ["level", "listing"],
                "hideWhen": {"field": "drive", "equals": "none"},
            }
        ],
    }
    raw["rests"] = [
        {
            "id": "downtime",
            "label": "Downtime",
            "restore": [
                {"pool": "stress", "to": "min"},
                {"pool": "hull", "by": {"fractionOfMax": 0.25, "round": "up", "min": 1}},
                {"track": "fatigue", "to": 0},
            ],
            "clear": {"text": ["course"], "conditions": "all"},
        },
        *rests,
    ]
    return compile_ruleset(raw)


def crew(rs: Ruleset, live: object, drive: str = "none", cargo: Any = ()) -> Character:
    return character(rs, {"drive": drive}, {"cargo": list(cargo)} if cargo else None, live)


DOCKED = {
    "pools": {"stress": {"value": 4}, "hull": {"value": 5}},
    "tracks": {"fatigue": 4},
    "text": {"course": "Vega"},
    "conditions": ["adrift", "boarded", "no-longer-declared"],
}

STAR_TRADER = [
    pytest.param(
        (),
        DOCKED,
        "downtime",
        "Downtime: Stress 0/6, Hull 8/12, Fatigue 0",
        {"Stress": "0/6", "Hull": "8/12", "Fatigue": 0, "course": "", "conditions": []},
        id="downtime: stress to min, hull by a quarter of max rounded up (min 1), fatigue "
        "to 0, course empty, all conditions off",
    ),
    pytest.param(
        (
            {
                "id": "patch",
                "label": "Patch up",
                "restore": [
                    {"pool": "hull", "by": {"const": 2}},
                    {"pool": "hull", "by": {"const": 4}},
                    {"pool": "hull", "by": {"fractionOfMax": 0.5, "round": "down"}},
                ],
                "clear": {"conditions": ["boarded"]},
            },
        ),
        DOCKED,
        "patch",
        "Patch up: Hull 7/12, Hull 11/12, Hull 12/12",
        {"Hull": "12/12", "conditions": ["adrift"], "course": "Vega", "Stress": "4/6"},
        id="two steps on one pool compound, each said; a list of conditions clears only "
        "those; what it does not name stays",
    ),
    pytest.param(
        (
            {
                "id": "port",
                "label": "Port call",
                "restore": [{"listPools": "cargo", "recharge": ["port"], "to": "max"}],
            },
        ),
        {
            "pools": {
                "cargo:ore": {"value": 0},
                "cargo:ice": {"value": 0},
                "cargo:gas": {"value": 1},
            }
        },
        "port",
        "Port call: Ore 3/3",
        {"Ore": "3/3", "Ice": "0/2", "Gas": "1/4"},
        id="listPools with recharge: only rows whose recharge is listed; a row with no "
        "recharge value is left out",
    ),
    pytest.param(
        (
            {
                "id": "haul",
                "label": "Haul",
                "restore": [{"listPools": "cargo", "by": {"const": 1}}],
            },
        ),
        {
            "pools": {
                "cargo:ore": {"value": 0},
                "cargo:ice": {"value": 2},
                "cargo:gas": {"value": 1},
            }
        },
        "haul",
        "Haul: Ore 1/3, Gas 2/4",
        {"Ore": "1/3", "Ice": "2/2", "Gas": "2/4"},
        id="listPools without recharge: every row pool, each held to its maximum",
    ),
    pytest.param(
        (
            {
                "id": "drain",
                "label": "Drain",
                "restore": [
                    {"pool": "hull", "by": {"const": -20}},
                    {"track": "fatigue", "by": {"const": 9}},
                    {"pool": "stress", "to": 3},
                ],
            },
        ),
        DOCKED,
        "drain",
        "Drain: Hull 0/12, Fatigue 6, Stress 3/6",
        {"Hull": "0/12", "Fatigue": 6, "Stress": "3/6"},
        id="moved values are held to the pool's 0..max and the track's min..max",
    ),
    pytest.param(
        (
            {
                "id": "overhaul",
                "label": "Overhaul",
                "restore": [
                    {"pool": "fuel", "to": "max"},
                    {"track": "heat", "to": 0},
                    {"state": "trim", "to": "level"},
                ],
            },
        ),
        {"pools": {"fuel": {"value": 1}}, "tracks": {"heat": 3}, "states": {"trim": "listing"}},
        "overhaul",
        "Overhaul",
        {"conditions": []},
        id="a hidden pool, track and state are passed over",
    ),
]


@pytest.mark.parametrize(("rests", "live", "rest", "now", "expected"), STAR_TRADER)
def test_star_trader_rests(
    rests: tuple[dict[str, Any], ...],
    live: dict[str, Any],
    rest: str,
    now: str,
    expected: dict[str, Any],
) -> None:
    rs = star_trader(*rests)
    cargo = [
        {"name": "Ore", "units": 3, "refill": "port"},
        {"name": "Ice", "units": 2, "refill": "sea"},
        {"name": "Gas", "units": 4},
    ]
    said, after = rested(rs, crew(rs, live, cargo=cargo), rest)
    assert (said, {key: after[key] for key in expected}) == (now, expected)


def test_a_hidden_item_keeps_its_stored_value_through_a_rest() -> None:
    rs = star_trader(
        {
            "id": "overhaul",
            "label": "Overhaul",
            "restore": [
                {"pool": "fuel", "to": "max"},
                {"track": "heat", "to": 0},
                {"state": "trim", "to": "level"},
            ],
        }
    )
    live = {"pools": {"fuel": {"value": 1}}, "tracks": {"heat": 3}, "states": {"trim": "listing"}}
    outcome = apply(rs, crew(rs, live), "rest", rest="overhaul")
    assert isinstance(outcome, Applied)
    assert outcome.character.live == crew(rs, live).live
    shown = apply(rs, crew(rs, live, drive="jump"), "rest", rest="overhaul")
    assert now_or_reason(shown) == "Overhaul: Fuel 4/4, Heat 0, Trim level"


# ── Gravewatch and Ember Roads ──────────────────────────────────────────────


def harm(marks: list[str], overflow: int = 0, **more: Any) -> dict[str, Any]:
    return {"wounds": {"harm": {"marks": marks, "overflow": overflow}}, **more}


def with_rest(name: str, *steps: dict[str, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(raw: dict[str, Any]) -> None:
        raw["rests"].append({"id": name, "label": name.title(), "restore": list(steps)})

    return edit


GRAVEWATCH_FACTS = [
    pytest.param(
        None,
        harm(
            ["tear", "knock", "knock"],
            3,
            pools={"resolve": {"value": 0}},
            states={"light": "out"},
            conditions=["rattled", "marked"],
        ),
        "vigil",
        "Stand down from the vigil: Resolve 4/4, Harm 0/4, Light Lit",
        {"Harm": "0/4 [] +0", "Resolve": "4/4", "Light": "lit", "conditions": ["marked"]},
        id="vigil clears harm to min taking the overflow with it, relights the lamp, "
        "clears rattled and leaves marked",
    ),
    pytest.param(
        None,
        harm(["tear", "knock", "knock"], 0, states={"light": "out"}),
        "breather",
        "Catch your breath: Harm 1/4",
        {"Harm": "1/4 ['tear'] +0", "Light": "out"},
        id="breather (harm, kind knock, to min) leaves tears, and leaves the lamp out",
    ),
    pytest.param(
        None,
        harm(["tear"], 2),
        "breather",
        "Catch your breath: Harm 1/4",
        {"Harm": "1/4 ['tear'] +0"},
        id="a kind-limited step still takes the overflow first",
    ),
    pytest.param(
        None,
        harm(["tear"]),
        "breather",
        "Catch your breath: Harm 1/4",
        {"Harm": "1/4 ['tear'] +0"},
        id="recorded whenever there was something to clear, even if nothing of the kind was",
    ),
    pytest.param(
        None,
        {},
        "vigil",
        "Stand down from the vigil",
        {"Harm": "0/4 [] +0"},
        id="a clean track: nothing to clear, nothing said",
    ),
    pytest.param(
        with_rest("mend", {"track": "harm", "by": {"const": -2}}),
        harm(["tear"], 3),
        "mend",
        "Mend: Harm 1/4",
        {"Harm": "1/4 ['tear'] +1"},
        id="by const -2 on a tear with overflow 3 leaves the tear and overflow 1",
    ),
    pytest.param(
        with_rest("mend", {"track": "harm", "by": {"const": -2}}),
        harm(["tear", "knock", "knock"]),
        "mend",
        "Mend: Harm 1/4",
        {"Harm": "1/4 ['tear'] +0"},
        id="by const -2 clears the two lightest marks",
    ),
    pytest.param(
        Rest("brace", "Brace", (RestStep("track", "harm", by_const=2),)),
        harm(["knock"], 1),
        "brace",
        "Brace",
        {"Harm": "1/4 ['knock'] +1"},
        id="a positive constant never marks and clears nothing (made here: a file is refused)",
    ),
    pytest.param(
        Rest("brace", "Brace", (RestStep("track", "harm", by_fraction=0.5),)),
        harm(["knock"], 1),
        "brace",
        "Brace",
        {"Harm": "1/4 ['knock'] +1"},
        id="a fraction of the maximum clears nothing (made here: a file is refused)",
    ),
    pytest.param(
        with_rest("settle", {"track": "harm", "to": "max"}),
        harm(["tear", "tear", "knock", "knock"], 3),
        "settle",
        "Settle: Harm 4/4",
        {"Harm": "4/4 ['tear', 'tear', 'knock', 'knock'] +0"},
        id='to "max" on a full track with overflow clears exactly the overflow',
    ),
    pytest.param(
        with_rest("settle", {"track": "harm", "to": 2}),
        harm(["tear", "tear", "knock", "knock"], 3),
        "settle",
        "Settle: Harm 2/4",
        {"Harm": "2/4 ['tear', 'tear'] +0"},
        id="to 2 leaves two marks and no overflow",
    ),
]


@pytest.mark.parametrize(("edit", "live", "rest", "now", "expected"), GRAVEWATCH_FACTS)
def test_gravewatch_rests(
    edit: Callable[[dict[str, Any]], None] | Rest | None,
    live: dict[str, Any],
    rest: str,
    now: str,
    expected: dict[str, Any],
) -> None:
    rs = marinara(GRAVEWATCH)
    if isinstance(edit, Rest):
        rs = replace(rs, rests=(*rs.rests, edit), memo={})
    elif edit is not None:
        rs = variant(GRAVEWATCH, edit)
    said, after = rested(rs, character(rs, live=live), rest)
    assert (said, {key: after[key] for key in expected}) == (now, expected)


def test_scars_overflow_read_back_onto_a_shorter_track_clear_first() -> None:
    """Six knocks stored while a scar made the track six long read as four marks and
    two overflow; the breather clears overflow, then the knocks."""
    rs = marinara(GRAVEWATCH)
    said, after = rested(rs, character(rs, live=harm(["knock"] * 6)), "breather")
    assert (said, after["Harm"]) == ("Catch your breath: Harm 0/4", "0/4 [] +0")


EMBER_FACTS = [
    pytest.param(
        None,
        {"states": {"stance": "reckless"}, "conditions": ["shaken", "pinned"]},
        "camp",
        "Make camp: Stance Steady",
        {"Stance": "steady", "conditions": ["pinned"]},
        id="camp returns Stance to its default, said by its label; clears shaken only",
    ),
    pytest.param(
        None,
        {"pools": {"grit": {"value": 1}, "luck": {"value": 1}}, "tracks": {"heat": 2}},
        "camp",
        "Make camp: Grit 6/6, Luck 2/3, Heat 1",
        {"Stance": "steady", "Grit": "6/6", "Luck": "2/3", "Heat": 1},
        id="a stance already at its default is not mentioned; grit to max, luck +1, heat -1",
    ),
    pytest.param(
        with_rest("dig", {"state": "stance", "to": "guarded"}),
        {},
        "dig",
        "Dig: Stance Guarded",
        {"Stance": "guarded"},
        id='a step saying to: "guarded" stores guarded',
    ),
    pytest.param(
        with_rest("dig", {"state": "stance", "to": "guarded"}),
        {"states": {"stance": "guarded"}},
        "dig",
        "Dig",
        {"Stance": "guarded"},
        id="a state already at the step's value is not mentioned",
    ),
]


@pytest.mark.parametrize(("edit", "live", "rest", "now", "expected"), EMBER_FACTS)
def test_ember_roads_rests(
    edit: Callable[[dict[str, Any]], None] | None,
    live: dict[str, Any],
    rest: str,
    now: str,
    expected: dict[str, Any],
) -> None:
    rs = marinara(EMBER) if edit is None else variant(EMBER, edit)
    tricks = {"tricks": [{"name": "Spark", "uses": 2, "recharge": "scene"}]}
    said, after = rested(rs, character(rs, lists=tricks, live=live), rest)
    assert (said, {key: after[key] for key in expected}) == (now, expected)


def test_camp_refills_the_tricks_that_come_back_at_camp_only() -> None:
    rs = marinara(EMBER)
    tricks = {
        "tricks": [
            {"name": "Spark", "uses": 2, "recharge": "scene"},
            {"name": "Last Ember", "uses": 1, "recharge": "camp"},
        ]
    }
    live = {"pools": {"tricks:spark": {"value": 0}, "tricks:last ember": {"value": 0}}}
    said, after = rested(rs, character(rs, lists=tricks, live=live), "camp")
    assert (said, after["Spark"], after["Last Ember"]) == (
        "Make camp: Last Ember 1/1",
        "0/2",
        "1/1",
    )


# ── Properties ──────────────────────────────────────────────────────────────


def _casts() -> list[tuple[Ruleset, Character]]:
    """One character per ruleset with something of every kind a rest can name: the 5e
    caster with counters, a Gravewatch warden, an Ember Roads traveller with tricks,
    and a Star Trader crew with a drive (so its hidden items show) and without."""
    ember = marinara(EMBER)
    trader = star_trader(
        {
            "id": "refit",
            "label": "Refit",
            "restore": [
                {"listPools": "cargo", "recharge": ["port"], "to": "max"},
                {"pool": "fuel", "to": "max"},
                {"track": "heat", "to": 0},
                {"state": "trim", "to": "default"},
            ],
            "clear": {"conditions": ["boarded"]},
        }
    )
    cargo = [
        {"name": "Ore", "units": 3, "refill": "port"},
        {"name": "Ice", "units": 2, "refill": "sea"},
        {"name": "Gas", "units": 4},
    ]
    return [
        (five_e(), character(five_e(), PACT, KI_LUCK)),
        (marinara(GRAVEWATCH), character(marinara(GRAVEWATCH))),
        (
            ember,
            character(
                ember,
                lists={
                    "tricks": [
                        {"name": "Spark", "uses": 2, "recharge": "scene"},
                        {"name": "Last Ember", "uses": 1, "recharge": "camp"},
                    ]
                },
            ),
        ),
        (trader, crew(trader, None, "jump", cargo)),
        (trader, crew(trader, None, "none", cargo)),
    ]


casts = functools.cache(_casts)


@st.composite
def stored_lives(draw: st.DrawFn, rs: Ruleset, who: Character) -> Character:
    """Any stored record this character's rests could meet: every pool (hidden ones
    too) at any value with any buffer, every track, marks of any kind with overflow,
    text, declared and undeclared conditions, states at any value (or a stale one)."""
    sheet = rs.sheet
    keys = [p.id for p in sheet.pools] + [p.key for p in SheetView(rs, who).row_pools()]
    live: dict[str, Any] = {"pools": {}, "tracks": {}, "wounds": {}, "text": {}, "states": {}}
    buffered = {p.id for p in sheet.pools if p.allow_temp}
    for key in keys:
        if key in buffered or draw(st.booleans()):
            live["pools"][key] = {
                "value": draw(st.integers(0, 14)),
                "temp": draw(st.integers(0, 3)),
            }
    for track in sheet.tracks:
        if track.is_wound_track:
            kinds = [k.id for k in track.kinds] + [""]
            live["wounds"][track.id] = {
                "marks": draw(st.lists(st.sampled_from(kinds), max_size=7)),
                "overflow": draw(st.integers(0, 4)),
            }
        elif draw(st.booleans()):
            live["tracks"][track.id] = draw(st.integers(-2, 8))
    for text_id, _, _ in sheet.text:
        live["text"][text_id] = draw(st.sampled_from(["", "Bless", "Vega"]))
    conditions = [c.id for c in sheet.conditions] + ["ghost"]
    live["conditions"] = draw(st.lists(st.sampled_from(conditions), unique=True))
    for state in sheet.states:
        live["states"][state.id] = draw(st.sampled_from([*state.values, "stale"]))
    return Character(who.name, who.build, tolerant_live(live))


def _named(rs: Ruleset, who: Character, rest: Rest) -> dict[str, set[str]]:
    """What a rest's definition names, read off the definition and the build alone:
    pool keys (a pool, a group's pools, a list's row pools passing its recharge filter),
    tracks (plain and wound), states and text fields."""
    rows = SheetView(rs, who).row_pools()
    named: dict[str, set[str]] = {"pools": set(), "tracks": set(), "states": set()}
    for step in rest.restore:
        if step.on == "pool":
            named["pools"].add(step.id)
        elif step.on == "poolGroup":
            named["pools"] |= {p.id for p in rs.sheet.pools if p.group == step.id}
        elif step.on == "listPools":
            named["pools"] |= {
                p.key
                for p in rows
                if p.list == step.id and (step.recharge is None or p.recharge in step.recharge)
            }
        elif step.on == "track":
            named["tracks"].add(step.id)
        else:
            named["states"].add(step.id)
    named["text"] = set(rest.clear_text)
    return named


@settings(max_examples=examples(300))
@given(st.data())
def test_a_rest_never_touches_what_its_definition_does_not_name(data: st.DataObject) -> None:
    rs, plain = data.draw(st.sampled_from(casts()))
    who = data.draw(stored_lives(rs, plain))
    rest = data.draw(st.sampled_from(rs.rests))
    outcome = apply(rs, who, "rest", rest=rest.label)
    assert isinstance(outcome, Applied)
    before, after = who.live, outcome.character.live
    named = _named(rs, who, rest)
    buffered = {p.id for p in rs.sheet.pools if p.allow_temp}  # others read no buffer
    for key in set(before.pools) | set(after.pools):
        old, new = before.pools.get(key), after.pools.get(key)
        if key not in named["pools"]:
            assert new == old, key
        elif key in buffered:  # a rest never drops (or adds to) a temporary buffer
            assert (0 if new is None else new.temp) == (0 if old is None else old.temp), key
    for member in ("tracks", "wounds", "states", "text"):
        names = named["states" if member == "states" else "text" if member == "text" else "tracks"]
        old_map, new_map = getattr(before, member), getattr(after, member)
        for key in set(old_map) | set(new_map):
            if key not in names:
                assert new_map.get(key) == old_map.get(key), (member, key)
    cleared = rest.clear_conditions
    kept = () if cleared == "all" else tuple(c for c in before.conditions if c not in cleared)
    assert after.conditions == kept


def _noisy(name: str) -> st.SearchStrategy[str]:
    """A rest's id or label written as a model might: any case, padded with spaces."""
    return st.tuples(
        st.sampled_from(["", " ", "  "]), st.booleans(), st.sampled_from(["", " "])
    ).map(lambda t: t[0] + (name.upper() if t[1] else name) + t[2])


@settings(max_examples=examples(300))
@given(st.data())
def test_a_rest_is_found_exactly_by_name_eq_and_a_refusal_changes_nothing(
    data: st.DataObject,
) -> None:
    """Through the whole pass: a written rest name answers iff it is NAME-EQ to some
    rest's id or label; a refused rest leaves the party exactly as it was, stores
    nothing and lists no rest taken."""
    rs, plain = data.draw(st.sampled_from(casts()))
    who = data.draw(stored_lives(rs, plain))
    names = [n for rest in rs.rests for n in (rest.id, rest.label)]
    written = data.draw(
        st.one_of(
            st.sampled_from(names).flatmap(_noisy),
            st.text(alphabet="abcdeilmnorstvxy _-", max_size=12).filter(lambda t: '"' not in t),
        )
    )
    known = any(written.strip().lower() == n.strip().lower() for n in names)
    passed = resolve_sheet_text(rs, (who,), f'[sheet: op="rest" rest="{written}"]', who.name)
    (outcome,) = passed.outcomes
    if not written.strip():
        assert outcome.reason == "malformed"  # the tag itself needs a rest
    elif known:
        assert outcome.ok and passed.rests == ((who.name, written.strip()),)
        return
    else:
        assert outcome.reason == "unknown-rest"
    assert (passed.party, passed.changed, passed.rests) == ((who,), False, ())


@settings(max_examples=examples(500), deadline=None)
@given(
    maximum=st.integers(-10, 10**6),
    fraction=st.one_of(
        st.sampled_from([0.5, 0.25, 0.1, 0.07, 1 / 3, 0.999999, 1e-9, 1.0]),
        st.floats(min_value=1e-12, max_value=1.0, allow_nan=False),
    ),
    how=st.sampled_from(["down", "up", "nearest"]),
)
def test_a_fraction_of_the_maximum_is_the_decimal_written_rounded_its_way(
    maximum: int, fraction: float, how: Rounding
) -> None:
    """``fractionOfMax`` worked in whole numbers (the decimal's p/q) moves a value as
    exact fractions do: the maximum times the decimal written, rounded ``how``."""
    step = _by_fraction(fraction, how)
    exact_share = round_number(Fraction(maximum) * exact(fraction), how)
    assert moved_value(step, 3, maximum, 0) == 3 + max(0, exact_share)


def _stored(pools: dict[str, Any], tracks: dict[str, Any]) -> Live:
    """A live record as a Live holds it, numbers as given (a float kept a float)."""
    return Live(
        frozen_map({key: PoolValue(*entry) for key, entry in pools.items()}),
        frozen_map(tracks),
    )


@pytest.mark.parametrize(
    ("pools", "tracks", "expected"),
    [
        ({}, {}, {}),
        ({"hp": (31, 0)}, {}, {}),
        ({"hp": (31.0, 0), "slots_1": (2.0, 0)}, {"exhaustion": 1.0}, {}),
        ({"hit_dice": (2, 0)}, {}, {"pools": {"hit_dice": {"value": 4}}}),
        ({"hp": (31, 4)}, {}, {"pools": {"hp": {"value": 31, "temp": 4}}}),
    ],
    ids=[
        "nothing to restore stores the same empty record",
        "a full pool stored at its start goes, as any write at the start does",
        "values stored as 31.0, 2.0 and 1.0 go too (31.0 equals 31, but is not it)",
        "a value the rest moves is written",
        "a full pool keeps its buffer: the entry is what the write would store",
    ],
)
def test_a_rest_stores_each_value_it_names_as_a_write_would(
    pools: dict[str, Any], tracks: dict[str, Any], expected: dict[str, Any]
) -> None:
    """A step that finds its value where it would put it leaves the entry alone only
    when the entry is exactly what the write would store; any other is written."""
    mira = character(five_e(), CASTER)
    mira = Character(mira.name, mira.build, _stored(pools, tracks))
    outcome = apply(five_e(), mira, "rest", rest="long")
    assert isinstance(outcome, Applied)
    assert live_to_json(outcome.character.live) == expected
