"""Rests, hideWhen and state value labels compiled (docs/design/format.md "Rests").

Marinara's three examples compile with their rests filled in; then one change per row to
a valid ruleset, and the exact problems it makes: every restore step that could never
fire is refused with its path. Rows start from Marinara's examples (``ember-roads``,
``gravewatch``, ``5e``; read from the shared folder, skipped where it is absent) or from
our ``hearth`` in ``tests/cases``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from dicebound.compiler import compile_ruleset
from dicebound.errors import RulesetInvalid
from dicebound.ruleset.model import HideWhen, Rest, RestStep, Ruleset
from ruleset_edits import Edit, drop, load_case, load_start, put


def _compiled(name: str, marinara_dir: Path) -> Ruleset:
    return compile_ruleset(load_start(name, marinara_dir))


# -- the three examples, with their rests ----------------------------------------------


def test_the_5e_long_rest_compiles_step_by_step(marinara_dir: Path) -> None:
    short, long = _compiled("5e", marinara_dir).rests
    assert (short.id, short.label) == ("short", "Short rest")
    assert short.restore == (
        RestStep("pool", "pact_slots", to="max"),
        RestStep("listPools", "counters", recharge=("short",), to="max"),
    )
    assert short.clear_text == () and short.clear_conditions == ()
    assert long.restore == (
        RestStep("pool", "hp", to="max"),
        RestStep("poolGroup", "slots", to="max"),
        RestStep("pool", "pact_slots", to="max"),
        RestStep("pool", "hit_dice", by_fraction=0.5, round="down", by_min=1),
        RestStep("listPools", "counters", recharge=("short", "long"), to="max"),
        RestStep("track", "exhaustion", by_const=-1),
        RestStep("track", "death_save_successes", to=0),
        RestStep("track", "death_save_failures", to=0),
    )
    assert long.clear_text == ("concentration",)


def test_the_gravewatch_vigil_and_breather_compile(marinara_dir: Path) -> None:
    vigil, breather = _compiled("gravewatch", marinara_dir).rests
    assert vigil == Rest(
        "vigil",
        "Stand down from the vigil",
        (
            RestStep("pool", "resolve", to="max"),
            RestStep("track", "harm", to="min"),
            RestStep("state", "light", to="default"),
        ),
        clear_conditions=("rattled",),
    )
    assert breather.restore == (RestStep("track", "harm", kind="knock", to="min"),)
    assert breather.clear_conditions == ()


def test_the_ember_roads_camp_compiles_with_its_stance_labels(marinara_dir: Path) -> None:
    rs = _compiled("ember-roads", marinara_dir)
    (camp,) = rs.rests
    assert camp.label == "Make camp"
    assert [(s.on, s.id) for s in camp.restore] == [
        ("pool", "grit"),
        ("pool", "luck"),
        ("track", "heat"),
        ("listPools", "tricks"),
        ("state", "stance"),
    ]
    assert camp.restore[1].by_const == 1 and camp.restore[2].by_const == -1
    assert camp.restore[3].recharge == ("camp",)
    assert camp.clear_conditions == ("shaken",)
    (stance,) = rs.sheet.states
    assert dict(stance.value_labels) == {
        "guarded": "Guarded",
        "steady": "Steady",
        "reckless": "Reckless",
    }


def test_the_5e_slots_and_spell_list_compile_their_hide_rule(marinara_dir: Path) -> None:
    sheet = _compiled("5e", marinara_dir).sheet
    hidden = HideWhen("spellcasting_ability", "equals", ("none",))
    slots = [p for p in sheet.pools if p.group == "slots"]
    assert len(slots) == 9 and all(p.hide_when == hidden for p in slots)
    assert next(p for p in sheet.pools if p.id == "hp").hide_when is None
    assert next(lst for lst in sheet.lists if lst.id == "spells").hide_when == hidden


# -- hideWhen: each of its three tests ---------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "compiled"),
    [
        ({"field": "season", "in": [1, 2]}, HideWhen("season", "in", (1, 2))),
        ({"field": "season", "notEquals": 12}, HideWhen("season", "notEquals", (12,))),
        ({"field": "season", "equals": 3}, HideWhen("season", "equals", (3,))),
    ],
    ids=["in hides on any listed value", "notEquals hides on any other", "equals hides on it"],
)
def test_hide_when_compiles_on_pools_tracks_states_and_lists(
    rule: dict[str, Any], compiled: HideWhen
) -> None:
    doc = load_case("hearth")
    live = doc["sheet"]["live"]
    for item in (live["pools"][0], live["tracks"][0], live["states"][0], doc["sheet"]["lists"][0]):
        item["hideWhen"] = rule
    sheet = compile_ruleset(doc).sheet
    assert sheet.pools[0].hide_when == compiled
    assert sheet.tracks[0].hide_when == compiled
    assert sheet.states[0].hide_when == compiled
    assert sheet.lists[0].hide_when == compiled
    assert sheet.pools[1].hide_when is None


# -- what compiles ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "edit", "check"),
    [
        (
            "ember-roads",
            put("rests[0].clear.conditions", "all"),
            lambda rs: rs.rests[0].clear_conditions == "all",
        ),
        (
            "ember-roads",
            put("rests[0].label", "Camp"),
            lambda rs: rs.rests[0].label == "Camp",  # its own id, in other case: one rest
        ),
        (
            "ember-roads",
            put("rests[0].restore[4].to", "reckless"),
            lambda rs: rs.rests[0].restore[4].to == "reckless",
        ),
        (
            "hearth",
            put("rests[0].restore", [{"track": "chores", "to": 99}]),
            lambda rs: rs.rests[0].restore[0].to == 99,  # a max off the sheet bounds nothing
        ),
        (
            "gravewatch",
            put("rests[1].restore", [{"track": "harm", "by": {"const": -2}}]),
            lambda rs: rs.rests[1].restore[0].by_const == -2,
        ),
        (
            "hearth",
            put("rests[0].restore", [{"poolGroup": "sparks", "by": {"fractionOfMax": 1}}]),
            lambda rs: rs.rests[0].restore[0].by_fraction == 1.0,
        ),
        ("ember-roads", drop("rests"), lambda rs: rs.rests == ()),
    ],
    ids=[
        "clear conditions all",
        "a label equal to the rest's own id",
        "a state step to one of its values",
        "a track whose max is read off the sheet takes any number at or above its min",
        "a wound track healed by a negative constant",
        "a fraction of exactly 1",
        "no rests at all",
    ],
)
def test_these_rests_compile(start: str, edit: Edit, check: Any, marinara_dir: Path) -> None:
    doc = copy.deepcopy(load_start(start, marinara_dir))
    edit(doc)
    assert check(compile_ruleset(doc))


# -- what is refused --------------------------------------------------------------------

_R = "rests[0].restore"
THIRTEEN_RESTS = [{"id": f"rest_{i}", "label": f"Rest {i}"} for i in range(13)]

CASES: list[tuple[str, str, Edit, list[tuple[str, str]], str]] = [
    # id, start, edit, every problem as (path, code), a phrase the first one says
    # -- the shape --
    ("a rest needs an id and a label", "ember-roads", drop("rests[0].label"),
     [("rests[0]", "missing-key")], '"label"'),
    ("at most 12 rests", "ember-roads", put("rests", THIRTEEN_RESTS), [("rests", "too-many")], "12"),
    ("two rests may not share an id", "5e", put("rests[1].id", "short"),
     [("rests[1].id", "duplicate-id")], "unique"),
    ("at most 40 restore steps", "ember-roads",
     put(_R, [{"pool": "grit", "to": "max"}] * 41), [(_R, "too-many")], "40"),
    ("a rest label holds no double quote, which the tag quotes it with", "ember-roads",
     put("rests[0].label", 'Make "camp"'), [("rests[0].label", "bad-text")], "double quote"),
    ("a step names one target, not none", "ember-roads", drop(f"{_R}[0].pool"),
     [(f"{_R}[0]", "one-source")], "exactly one"),
    ("a step names one target, not two", "ember-roads", put(f"{_R}[0].track", "heat"),
     [(f"{_R}[0]", "one-source")], "not 2"),
    ("a step moves to or by, not neither", "ember-roads", drop(f"{_R}[0].to"),
     [(f"{_R}[0]", "one-source")], '"to", "by"'),
    ("a step moves to or by, not both", "ember-roads", put(f"{_R}[0].by", {"const": 1}),
     [(f"{_R}[0]", "one-source")], "not 2"),
    ("only a state step takes a value by name", "ember-roads", put(f"{_R}[0].to", "full"),
     [(f"{_R}[0].to", "not-allowed")], '"max", "min"'),
    ("to is a word or a whole number", "ember-roads", put(f"{_R}[0].to", 1.5),
     [(f"{_R}[0].to", "wrong-type")], "whole number"),
    ("recharge belongs to a listPools step", "ember-roads", put(f"{_R}[0].recharge", ["camp"]),
     [(f"{_R}[0].recharge", "not-for-target")], '"listPools"'),
    ("kind belongs to a track step", "gravewatch", put(f"{_R}[0].kind", "knock"),
     [(f"{_R}[0].kind", "not-for-target")], '"track"'),
    ("by is a constant or a fraction of the max", "5e", put("rests[1].restore[3].by", {"half": 1}),
     [("rests[1].restore[3].by", "wrong-type")], "fractionOfMax"),
    ("a fraction of the max is above 0", "5e", put("rests[1].restore[3].by.fractionOfMax", 0),
     [("rests[1].restore[3].by.fractionOfMax", "too-small")], ""),
    ("a fraction of the max is at most 1", "5e",
     put("rests[1].restore[3].by.fractionOfMax", 1.5),
     [("rests[1].restore[3].by.fractionOfMax", "too-large")], ""),
    ("a fraction's least is not below 0", "5e", put("rests[1].restore[3].by.min", -1),
     [("rests[1].restore[3].by.min", "too-small")], ""),
    ("a fraction rounds down, up or to the nearest", "5e",
     put("rests[1].restore[3].by.round", "half"),
     [("rests[1].restore[3].by.round", "not-allowed")], ""),
    ("a constant is a whole number", "ember-roads", put(f"{_R}[1].by.const", 0.5),
     [(f"{_R}[1].by.const", "wrong-type")], ""),
    ("clear conditions is all or a list", "ember-roads", put("rests[0].clear.conditions", "none"),
     [("rests[0].clear.conditions", "wrong-type")], '"all"'),
    ("clear takes text and conditions only", "ember-roads", put("rests[0].clear.pools", []),
     [("rests[0].clear.pools", "unknown-key")], ""),
    # -- pools --
    ("a pool step names a declared pool", "ember-roads", put(f"{_R}[0].pool", "grip"),
     [(f"{_R}[0].pool", "unknown-id")], 'Did you mean "grit"?'),
    ("a pool step names a pool, not a group", "5e", put("rests[1].restore[0].pool", "slots"),
     [("rests[1].restore[0].pool", "unknown-id")], 'write "poolGroup"'),
    ("a poolGroup step names a group some pool has", "5e",
     put("rests[1].restore[1].poolGroup", "slot"),
     [("rests[1].restore[1].poolGroup", "unknown-id")], 'Did you mean "slots"?'),
    ("a poolGroup step names a group, not a pool", "5e",
     put("rests[1].restore[1].poolGroup", "hp"),
     [("rests[1].restore[1].poolGroup", "unknown-id")], 'write "pool"'),
    # -- a list's row pools --
    ("a listPools step names a declared list", "ember-roads", put(f"{_R}[3].listPools", "trick"),
     [(f"{_R}[3].listPools", "unknown-id")], 'Did you mean "tricks"?'),
    ("a listPools step names a list whose rows are pools", "5e",
     put("rests[0].restore[1].listPools", "spells"),
     [("rests[0].restore[1].listPools", "list-has-no-pools")], '"pools"'),
    ("a recharge filter needs a rechargeColumn", "ember-roads",
     drop("sheet.lists[2].pools.rechargeColumn"),
     [(f"{_R}[3].recharge", "no-recharge-column")], "rechargeColumn"),
    ("a recharge value is one its enum column holds", "ember-roads",
     put(f"{_R}[3].recharge", ["camp", "dawn"]),
     [(f"{_R}[3].recharge[1]", "not-a-value")], '"dawn"'),
    # -- tracks --
    ("a track step names a declared track", "ember-roads", put(f"{_R}[2].track", "heet"),
     [(f"{_R}[2].track", "unknown-id")], 'Did you mean "heat"?'),
    ("a kind names a wound track's kind, not a plain track's", "ember-roads",
     put(f"{_R}[2].kind", "knock"), [(f"{_R}[2].kind", "not-wound-track")], "plain track"),
    ("a kind is one of the wound track's kinds", "gravewatch",
     put("rests[1].restore[0].kind", "knocks"),
     [("rests[1].restore[0].kind", "unknown-kind")], 'Did you mean "knock"?'),
    ("a number above a fixed track's max", "5e", put("rests[1].restore[6].to", 4),
     [("rests[1].restore[6].to", "out-of-range")], "0..3"),
    ("a number below a track's min", "hearth",
     put("rests[0].restore", [{"track": "chores", "to": -1}]),
     [("rests[0].restore[0].to", "out-of-range")], "its max"),
    ("a number past a wound track's levels", "gravewatch",
     put("rests[0].restore[1].to", 5), [("rests[0].restore[1].to", "out-of-range")], "0..4"),
    ("a move by 0 changes nothing", "ember-roads", put(f"{_R}[1].by.const", 0),
     [(f"{_R}[1].by.const", "moves-nothing")], "by 0"),
    ("a rest never marks a wound track", "gravewatch",
     put("rests[1].restore[0]", {"track": "harm", "by": {"const": 1}}),
     [("rests[1].restore[0].by", "moves-nothing")], "only heals"),
    ("a fraction clears nothing on a wound track", "gravewatch",
     put("rests[1].restore[0]", {"track": "harm", "by": {"fractionOfMax": 0.5}}),
     [("rests[1].restore[0].by", "moves-nothing")], "only heals"),
    # -- states --
    ("a state step names a declared state", "ember-roads", put(f"{_R}[4].state", "stanse"),
     [(f"{_R}[4].state", "unknown-id")], 'Did you mean "stance"?'),
    ("a state step goes to default or one of its values", "ember-roads",
     put(f"{_R}[4].to", "calm"), [(f"{_R}[4].to", "not-a-value")], '"guarded"'),
    ("a state step's to is a value, not a number", "ember-roads", put(f"{_R}[4].to", 1),
     [(f"{_R}[4].to", "wrong-type")], "default"),
    ("a state step needs to", "ember-roads", drop(f"{_R}[4].to"),
     [(f"{_R}[4]", "missing-key")], '"to"'),
    ("a state has no number to move by", "ember-roads", put(f"{_R}[4].by", {"const": 1}),
     [(f"{_R}[4].by", "not-for-target")], "default"),
    ("a state's label names one of its values", "ember-roads",
     put("sheet.live.states[0].valueLabels.calm", "Calm"),
     [("sheet.live.states[0].valueLabels.calm", "not-a-value")], "could never be shown"),
    # -- clearing --
    ("clear names declared live texts", "5e", put("rests[1].clear.text[0]", "concentratoin"),
     [("rests[1].clear.text[0]", "unknown-id")], 'Did you mean "concentration"?'),
    ("clear names declared conditions", "ember-roads",
     put("rests[0].clear.conditions[0]", "shakn"),
     [("rests[0].clear.conditions[0]", "unknown-id")], 'Did you mean "shaken"?'),
    # -- names a sheet command finds a rest by --
    ("a label may not be another rest's label", "5e", put("rests[1].label", "SHORT REST"),
     [("rests[1].label", "ambiguous-rest-name")], "label of rest 0"),
    ("a label may not be another rest's id", "gravewatch", put("rests[1].label", "Vigil"),
     [("rests[1].label", "ambiguous-rest-name")], "id of rest 0"),
    ("an earlier label may not be a later rest's id", "gravewatch",
     put("rests[0].label", "Breather"),
     [("rests[0].label", "ambiguous-rest-name")], "id of rest 1"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("start", "edit", "expect", "says"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_one_change_to_a_rest_makes_exactly_these_problems(
    start: str, edit: Edit, expect: list[tuple[str, str]], says: str, marinara_dir: Path
) -> None:
    doc = copy.deepcopy(load_start(start, marinara_dir))
    compile_ruleset(copy.deepcopy(doc))  # the starting point is valid
    edit(doc)
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(doc)
    problems = caught.value.problems
    assert sorted((p.where, p.code) for p in problems) == sorted(expect), "\n".join(
        map(str, problems)
    )
    assert all(p.message.endswith((".", "?")) for p in problems), problems
    first = next(p for p in problems if (p.where, p.code) == expect[0])
    assert says in first.message, first.message
