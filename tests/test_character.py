"""Character files: what loads, every refusal (one row each, naming the bad id at its
path), arbitrary JSON never raising anything but ``CharacterInvalid``, and the real
Marinara rulesets read through the compiler when it is there.
"""

from __future__ import annotations

import importlib
import json
import math
import pickle
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.errors import CharacterInvalid
from dicebound.problems import render_path
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character, SheetView
from shared_files import shared_path

# The fixture ruleset lives beside the sheet-math table; found whether or not tests/ is a package.
_fixture = importlib.import_module(
    f"{__package__}.test_sheet_math" if __package__ else "test_sheet_math"
)
RS: Ruleset = _fixture.RS
char: Callable[..., Character] = _fixture.char


def problems_of(raw: object, rs: Ruleset = RS) -> list[tuple[str, str, str]]:
    with pytest.raises(CharacterInvalid) as caught:
        load_character(rs, raw)
    return [(p.where, p.code, p.message) for p in caught.value.problems]


def built(build: dict[str, Any]) -> dict[str, Any]:
    return {"name": "Tess", "sheet": {"v": 1, "build": build}}


def living(live: dict[str, Any], build: dict[str, Any] | None = None) -> dict[str, Any]:
    raw: dict[str, Any] = built(build) if build is not None else {"name": "Tess"}
    raw["live"] = live
    return raw


TRICKS = {"lists": {"tricks": [{"name": "Last Ember", "uses": 2}]}}

# (rule, character file, [(path, code, words the message must hold)])
# fmt: off
REFUSALS: list[tuple[str, object, list[tuple[str, str, str]]]] = [
    ("a character file is a JSON object", [], [("$", "wrong-type", "not a list")]),
    ("a character needs a name", {}, [("$", "missing-key", '"name"')]),
    ("the name may not be empty", {"name": "  "}, [("name", "too-short", "empty")]),
    ("the name has at most 100 characters", {"name": "x" * 101}, [("name", "too-long", "101")]),
    ("the name is one line", {"name": "Tess\nBram"}, [("name", "bad-text", "single line")]),
    ("the name is a string", {"name": 7}, [("name", "wrong-type", "not 7")]),
    ("an unknown top-level key is named with a did-you-mean", {"name": "Tess", "lve": {}},
     [("lve", "unknown-key", 'Did you mean "live"?')]),
    ("the sheet is an object", {"name": "Tess", "sheet": []}, [("sheet", "wrong-type", "a list")]),
    ("the sheet needs v", {"name": "Tess", "sheet": {"build": {}}},
     [("sheet", "missing-key", '"v"')]),
    ("the sheet needs a build", {"name": "Tess", "sheet": {"v": 1}},
     [("sheet", "missing-key", '"build"')]),
    ("v is a whole number from 1", {"name": "Tess", "sheet": {"v": 0, "build": {}}},
     [("sheet.v", "too-small", "0")]),
    ("the build takes only its six maps", built({"skils": {}}),
     [("sheet.build.skils", "unknown-key", 'Did you mean "skills"?')]),
    ("an unknown ability is named with a did-you-mean", built({"abilities": {"brwan": 3}}),
     [("sheet.build.abilities.brwan", "unknown-ability", '"brwan" is not an ability')]),
    ("an ability score is at most its max", built({"abilities": {"brawn": 21}}),
     [("sheet.build.abilities.brawn", "too-large", "21 is above Brawn's maximum 20")]),
    ("an ability score is at least its min", built({"abilities": {"brawn": 0}}),
     [("sheet.build.abilities.brawn", "too-small", "0 is below Brawn's minimum 1")]),
    ("an ability score is a whole number", built({"abilities": {"brawn": 10.5}}),
     [("sheet.build.abilities.brawn", "not-whole", "10.5")]),
    ("an ability score is a number", built({"abilities": {"brawn": "10"}}),
     [("sheet.build.abilities.brawn", "wrong-type", '"10"')]),
    ("an unknown skill is named with a did-you-mean", built({"skills": {"sneek": "trained"}}),
     [("sheet.build.skills.sneek", "unknown-skill", 'Did you mean "sneak"?')]),
    ("a skill's tier is a tier of proficiencyTiers", built({"skills": {"sneak": "traned"}}),
     [("sheet.build.skills.sneak", "unknown-tier", 'Did you mean "trained"?')]),
    ("a skill's tier is a tier id string, nothing else", built({"skills": {"sneak": 2}}),
     [("sheet.build.skills.sneak", "wrong-type", "not 2")]),
    ("an unknown save is named", built({"saves": {"dodg": "trained"}}),
     [("sheet.build.saves.dodg", "unknown-save", 'Did you mean "dodge"?')]),
    ("a save's tier is one saveTiers offers", built({"saves": {"dodge": "expert"}}),
     [("sheet.build.saves.dodge", "tier-not-offered", '"expert"')]),
    ("a bonus names a skill or a save", built({"bonuses": {"sneek": 1}}),
     [("sheet.build.bonuses.sneek", "unknown-skill", 'Did you mean "sneak"?')]),
    ("a bonus lies within bonusRange", built({"bonuses": {"sneak": 6}}),
     [("sheet.build.bonuses.sneak", "too-large", "maximum 5")]),
    ("a bonus is a whole number", built({"bonuses": {"dodge": 1.5}}),
     [("sheet.build.bonuses.dodge", "not-whole", "1.5")]),
    ("an unknown field is named", built({"fields": {"levle": 2}}),
     [("sheet.build.fields.levle", "unknown-field", 'Did you mean "level"?')]),
    ("a number field lies within min..max", built({"fields": {"level": 0}}),
     [("sheet.build.fields.level", "too-small", "minimum 1")]),
    ("a number field is whole unless integer is false", built({"fields": {"level": 2.5}}),
     [("sheet.build.fields.level", "not-whole", "2.5")]),
    ("a number field that is not whole still keeps to its range",
     built({"fields": {"carry": 50.5}}), [("sheet.build.fields.carry", "too-large", "50.5")]),
    ("an enum field takes one of its values", built({"fields": {"watch": "dwn"}}),
     [("sheet.build.fields.watch", "unknown-value", 'Did you mean "dawn"?')]),
    ("a text field holds at most maxLength characters", built({"fields": {"calling": "x" * 21}}),
     [("sheet.build.fields.calling", "too-long", "at most 20")]),
    ("a boolean field takes true or false", built({"fields": {"lucky": "yes"}}),
     [("sheet.build.fields.lucky", "wrong-type", "true or false")]),
    ("a dice field is a string", built({"fields": {"kit": 6}}),
     [("sheet.build.fields.kit", "wrong-type", "not 6")]),
    ("an unknown list is named", built({"lists": {"gaer": []}}),
     [("sheet.build.lists.gaer", "unknown-list", 'Did you mean "gear"?')]),
    ("a list is a list of rows", built({"lists": {"gear": {}}}),
     [("sheet.build.lists.gear", "wrong-type", "an object")]),
    ("a list holds at most maxItems rows", built({"lists": {"gear": [{"name": "a"}] * 4}}),
     [("sheet.build.lists.gear", "too-many", "at most 3")]),
    ("a row is an object", built({"lists": {"gear": ["rope"]}}),
     [("sheet.build.lists.gear[0]", "wrong-type", '"rope"')]),
    ("a row names only its list's columns", built({"lists": {"gear": [{"name": "a", "blk": 1}]}}),
     [("sheet.build.lists.gear[0].blk", "unknown-column", 'Did you mean "bulk"?')]),
    ("a row has every required column", built({"lists": {"gear": [{"bulk": 1}]}}),
     [("sheet.build.lists.gear[0]", "missing-key", '"name"')]),
    ("a required text column may not be blank", built({"lists": {"gear": [{"name": " "}]}}),
     [("sheet.build.lists.gear[0]", "missing-key", '"name"')]),
    ("a row's cells are typed by their columns",
     built({"lists": {"gear": [{"name": "a", "bulk": 9, "sort": "axe"}]}}),
     [("sheet.build.lists.gear[0].bulk", "too-large", "maximum 5"),
      ("sheet.build.lists.gear[0].sort", "unknown-value", '"axe"')]),
    ("_catalog is <catalogId>/<entryId>",
     built({"lists": {"charms": [{"name": "a", "_catalog": "charms"}]}}),
     [("sheet.build.lists.charms[0]._catalog", "bad-catalog-mark", '"charms"')]),
    ("_catalog names a catalog of the ruleset",
     built({"lists": {"charms": [{"name": "a", "_catalog": "charm/steady-hand"}]}}),
     [("sheet.build.lists.charms[0]._catalog", "unknown-catalog", 'Did you mean "charms"?')]),
    ("_catalog names a real entry of its catalog",
     built({"lists": {"charms": [{"name": "a", "_catalog": "charms/steady-hnd"}]}}),
     [("sheet.build.lists.charms[0]._catalog", "unknown-entry", 'Did you mean "steady-hand"?')]),
    ("live takes only its six keys", living({"pool": {}}),
     [("live.pool", "unknown-key", 'Did you mean "pools"?')]),
    ("an unknown pool is named", living({"pools": {"nerv": {"value": 1}}}),
     [("live.pools.nerv", "unknown-pool", 'Did you mean "nerve"?')]),
    ("a list-row pool is keyed by the row name lower-cased",
     living({"pools": {"tricks:Last Ember": {"value": 0}}}, TRICKS),
     [("live.pools.tricks:Last Ember", "unknown-pool", 'Did you mean "tricks:last ember"?')]),
    ("a pool's value is at most its max", living({"pools": {"nerve": {"value": 4}}}),
     [("live.pools.nerve.value", "too-large", "maximum 3")]),
    ("a pool's max follows the build (hp_max 8 with toughness 0)",
     living({"pools": {"hp": {"value": 9}}}, {"fields": {"toughness": 0}}),
     [("live.pools.hp.value", "too-large", "maximum 8")]),
    ("a pool's value is not negative", living({"pools": {"nerve": {"value": -1}}}),
     [("live.pools.nerve.value", "too-small", "minimum 0")]),
    ("a pool's value is a whole number", living({"pools": {"nerve": {"value": 1.5}}}),
     [("live.pools.nerve.value", "not-whole", "1.5")]),
    ("a pool needs its value", living({"pools": {"nerve": {}}}),
     [("live.pools.nerve", "missing-key", '"value"')]),
    ("a pool takes only value and temp", living({"pools": {"nerve": {"value": 1, "tmp": 1}}}),
     [("live.pools.nerve.tmp", "unknown-key", 'Did you mean "temp"?')]),
    ("temp only with allowTemp", living({"pools": {"nerve": {"value": 1, "temp": 1}}}),
     [("live.pools.nerve.temp", "no-temp", "allowTemp")]),
    ("temp is not negative", living({"pools": {"hp": {"value": 1, "temp": -2}}}),
     [("live.pools.hp.temp", "too-small", "-2")]),
    ("an unknown track is named", living({"tracks": {"haet": 1}}),
     [("live.tracks.haet", "unknown-track", 'Did you mean "heat"?')]),
    ("a plain track's value is at most its max", living({"tracks": {"heat": 6}}),
     [("live.tracks.heat", "too-large", "maximum 5")]),
    ("a plain track's value is at least its min", living({"tracks": {"fatigue": 0}}),
     [("live.tracks.fatigue", "too-small", "minimum 1")]),
    ("a wound track takes marks, not a number under tracks", living({"tracks": {"harm": 1}}),
     [("live.tracks.harm", "wrong-track", "live.wounds")]),
    ("marks only on a wound track", living({"wounds": {"heat": {"marks": []}}}),
     [("live.wounds.heat", "wrong-track", "live.tracks")]),
    ("an unknown wound track is named", living({"wounds": {"harn": {"marks": []}}}),
     [("live.wounds.harn", "unknown-track", 'Did you mean "harm"?')]),
    ("a mark is a kind of the track", living({"wounds": {"harm": {"marks": ["tera"]}}}),
     [("live.wounds.harm.marks[0]", "unknown-kind", 'Did you mean "tear"?')]),
    ("marks are at most the track's rungs", living({"wounds": {"harm": {"marks": ["knock"] * 5}}}),
     [("live.wounds.harm.marks", "too-many", "at most 4 marks, not 5")]),
    ("box marks are at most the boxes the track's max works out to",
     living({"wounds": {"strain": {"marks": ["strain"] * 3}}}),
     [("live.wounds.strain.marks", "too-many", "2 boxes")]),
    ("a clear box only on an indexed track", living({"wounds": {"harm": {"marks": ["", "knock"]}}}),
     [("live.wounds.harm.marks[0]", "empty-mark", "indexed")]),
    ("wounds need marks", living({"wounds": {"harm": {"overflow": 1}}}),
     [("live.wounds.harm", "missing-key", '"marks"')]),
    ("marks are a list", living({"wounds": {"harm": {"marks": "knock"}}}),
     [("live.wounds.harm.marks", "wrong-type", '"knock"')]),
    ("overflow is a whole number from 0", living({"wounds": {"harm": {"marks": [], "overflow": -1}}}),
     [("live.wounds.harm.overflow", "too-small", "-1")]),
    ("live text names a declared text", living({"text": {"oaht": "x"}}),
     [("live.text.oaht", "unknown-text", 'Did you mean "oath"?')]),
    ("live text holds at most maxLength characters", living({"text": {"oath": "x" * 21}}),
     [("live.text.oath", "too-long", "at most 20")]),
    ("conditions are declared ids", living({"conditions": ["shakn"]}),
     [("live.conditions[0]", "unknown-condition", 'Did you mean "shaken"?')]),
    ("a condition is listed once", living({"conditions": ["shaken", "shaken"]}),
     [("live.conditions[1]", "duplicate", '"shaken"')]),
    ("conditions are a list", living({"conditions": "shaken"}),
     [("live.conditions", "wrong-type", '"shaken"')]),
    ("a state is declared", living({"states": {"lite": "dim"}}),
     [("live.states.lite", "unknown-state", 'Did you mean "light"?')]),
    ("a state's value is one of its values", living({"states": {"light": "dimm"}}),
     [("live.states.light", "unknown-value", 'Did you mean "dim"?')]),
    ("a sheet takes at most 64 KB of JSON",
     {"name": "Tess", "sheet": {"v": 1, "build": {}, "$comment": "x" * 70000}},
     [("sheet", "too-big", "at most 65536")]),
    ("a live state takes at most 64 KB of JSON", {"name": "Tess", "live": {"$comment": "x" * 70000}},
     [("live", "too-big", "at most 65536")]),
    ("a number too long to print is refused in words", built({"abilities": {"brawn": 10**5000}}),
     [("sheet.build.abilities.brawn", "too-large", "a very large number is above")]),
    ("every problem is reported at once, in document order",
     {"name": "", "sheet": {"v": 1, "build": {"abilities": {"brwan": 3}}},
      "live": {"conditions": ["shakn"]}},
     [("live.conditions[0]", "unknown-condition", "shakn"),
      ("name", "too-short", "empty"),
      ("sheet.build.abilities.brwan", "unknown-ability", "brwan")]),
    ("a bad build is reported once: live maxima it feeds are not checked against it",
     living({"pools": {"hp": {"value": 12}}}, {"fields": {"toughness": 99}}),
     [("sheet.build.fields.toughness", "too-large", "99")]),
]
# fmt: on


@pytest.mark.parametrize(
    ("raw", "expected"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refusal(raw: object, expected: list[tuple[str, str, str]]) -> None:
    found = problems_of(raw)
    assert [(where, code) for where, code, _ in found] == [(w, c) for w, c, _ in expected]
    for (_, _, message), (_, _, words) in zip(found, expected, strict=True):
        assert words in message
        assert message.endswith((".", "?")) and "\n" not in message


def test_refusal_ids_are_unique() -> None:
    assert len({r[0] for r in REFUSALS}) == len(REFUSALS)


def test_the_error_lists_every_problem_as_path_and_sentence() -> None:
    with pytest.raises(CharacterInvalid) as caught:
        load_character(RS, built({"abilities": {"brwan": 3}, "skills": {"sneek": "x"}}))
    text = str(caught.value)
    assert "2 problem(s)" in text
    assert 'sheet.build.abilities.brwan: "brwan" is not an ability of this ruleset.' in text


# ── what loads ──

FULL: dict[str, Any] = {
    "$comment": "comments are allowed on every object",
    "name": "Tess of the Lantern",
    "sheet": {
        "v": 1,
        "build": {
            "abilities": {"brawn": 14, "grace": 16, "$comment": "scores"},
            "skills": {"sneak": "trained", "tinker": "expert"},
            "saves": {"dodge": "trained"},
            "bonuses": {"sneak": 1, "dodge": -3},
            "fields": {
                "level": 5,
                "carry": 12.5,
                "watch": "dawn",
                "calling": "Warden",
                "lucky": True,
                "kit": "2d6",
                "notes": "line one\nline two",
            },
            "lists": {
                "gear": [
                    {"name": "Rope", "bulk": 2, "packed": False},
                    {"name": "Lamp", "sort": "tool"},
                ],
                "tricks": [{"name": "Last Ember", "uses": 2, "recharge": "scene"}],
                "scars": [{"name": "Bitten", "levels": 2}],
                "charms": [
                    {"name": "Steady", "_catalog": "charms/steady-hand"},
                    {"name": "Lamp", "_catalog": "relics/old-lamp"},
                ],
            },
        },
    },
    "live": {
        "pools": {
            "hp": {"value": 4, "temp": 2},
            "nerve": {"value": 0},
            "tricks:last ember": {"value": 1},
        },
        "tracks": {"heat": 5, "fatigue": 2},
        "wounds": {
            "harm": {"marks": ["knock", "tear", "knock", "knock", "knock", "tear"], "overflow": 2},
            "strain": {"marks": ["", "strain", ""]},
        },
        "text": {"oath": "Keep the lamp lit"},
        "conditions": ["shaken", "pinned"],
        "states": {"light": "dim", "stance": "reckless"},
    },
}


def test_a_full_character_loads_with_everything_it_says() -> None:
    c = load_character(RS, FULL)
    b, live = c.build, c.live
    assert c.name == "Tess of the Lantern"
    assert (b.abilities["brawn"], b.abilities["wits"]) == (14, 10)  # unset: the default
    assert b.fields["carry"] == 12.5 and b.fields["rank"] == 1
    assert b.lists["gear"][1].cells == {"name": "Lamp", "sort": "tool", "bulk": 0, "packed": True}
    assert b.lists["charms"][1].catalog == "relics/old-lamp"  # an asset catalog: id well formed
    assert live.pools["hp"].temp == 2
    # six marks fit: two scar rungs make Harm six long; sorted most severe first
    assert live.wounds["harm"].marks == ("tear", "tear", "knock", "knock", "knock", "knock")
    assert live.wounds["strain"].marks == ("", "strain")  # trailing clear boxes dropped
    assert live.conditions == ("shaken", "pinned")
    v = SheetView(RS, c)
    assert v.check_number("skill", "sneak").number == 3 + 3 + 1
    assert v.penalty() == -99  # six marks fill Fine, Hurt, Hurt, Hurt, Bleeding, Down


def test_a_character_without_sheet_or_live_is_the_blank_build() -> None:
    c = load_character(RS, {"name": "Nobody"})
    assert dict(c.build.abilities) == {"brawn": 10, "grace": 10, "wits": 10, "heart": 10}
    assert dict(c.build.skills) == {} and c.live.pools == {}
    assert c == char(name="Nobody")


def test_a_character_is_an_immutable_value() -> None:
    c = load_character(RS, FULL)
    with pytest.raises(AttributeError):
        c.name = "Bram"  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.build.abilities["brawn"] = 3  # type: ignore[index]
    again = load_character(RS, json.loads(json.dumps(FULL)))
    assert again == c and hash(again) == hash(c)
    assert pickle.loads(pickle.dumps(c)) == c
    assert load_character(RS, {**FULL, "name": "Bram"}) != c


# ── arbitrary JSON: a Character or CharacterInvalid, never anything else ──


def _leads_somewhere(raw: object, path: tuple[str | int, ...]) -> bool:
    """Whether a problem's path is a real place in the file (or its root)."""
    here = raw
    for part in path:
        in_map = isinstance(here, dict) and part in here
        in_list = isinstance(here, list) and isinstance(part, int) and 0 <= part < len(here)
        if not (in_map or in_list):
            return False
        here = here[part]  # type: ignore[index]
    return True


def _property(raw: object) -> None:
    try:
        character = load_character(RS, raw)
    except CharacterInvalid as error:
        assert error.problems
        for problem in error.problems:
            assert re.fullmatch(r"[a-z]+(-[a-z]+)*", problem.code)
            assert problem.message.strip() and problem.message[-1] in ".?"
            assert _leads_somewhere(raw, problem.path), render_path(problem.path)
        return
    assert isinstance(character, Character)
    # a character that loads never makes the sheet math fail
    v = SheetView(RS, character)
    for skill in RS.sheet.skills:
        v.check_number("skill", skill.id)
    for save in RS.sheet.saves:
        v.check_number("save", save.id, "brawn")
    for key in v.pool_keys():
        assert 0 <= v.pool_value(key) <= v.pool_max(key)
    for track in RS.sheet.tracks:
        assert v.track_penalty(track.id) <= 0
    assert v.penalty() <= 0
    v.adjust_for(("brawn", "grace"))


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=16,
)

_IDS = sorted(
    {
        *(a.id for a in RS.sheet.abilities),
        *(s.id for s in RS.sheet.skills),
        *(s.id for s in RS.sheet.saves),
        *(f.id for f in RS.sheet.fields),
        *(lst.id for lst in RS.sheet.lists),
        *(p.id for p in RS.sheet.pools),
        *(t.id for t in RS.sheet.tracks),
        *(s.id for s in RS.sheet.states),
        "oath",
        "shaken",
        "tricks:spark",
        "name",
        "bulk",
        "packed",
        "uses",
        "levels",
        "penalty",
        "_catalog",
        "$comment",
        "brwan",
        "",
    }
)
_WORDS = sorted(
    {
        *(t.id for t in RS.resolution.tiers),
        "knock",
        "tear",
        "strain",
        "toil",
        "",
        "dim",
        "dark",
        "dawn",
        "none",
        "wits",
        "Spark",
        "charms/steady-hand",
        "relics/x",
        "x" * 30,
    }
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-25, 25)
    | st.floats(-30, 30)
    | st.sampled_from(_WORDS)
    | st.integers()
    | st.floats()
)
KEYS = st.sampled_from(_IDS)


def maps(values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.dictionaries(KEYS, values, max_size=4) | SCALARS


ROWS = st.lists(maps(SCALARS), max_size=5)
BUILDS = (
    st.fixed_dictionaries(
        {},
        optional={
            "abilities": maps(SCALARS),
            "skills": maps(SCALARS),
            "saves": maps(SCALARS),
            "bonuses": maps(SCALARS),
            "fields": maps(SCALARS),
            "lists": st.dictionaries(KEYS, ROWS | SCALARS, max_size=3),
        },
    )
    | JSON
)
LIVES = (
    st.fixed_dictionaries(
        {},
        optional={
            "pools": maps(
                st.fixed_dictionaries({"value": SCALARS}, optional={"temp": SCALARS}) | SCALARS
            ),
            "tracks": maps(SCALARS),
            "wounds": maps(
                st.fixed_dictionaries(
                    {"marks": st.lists(SCALARS, max_size=7) | SCALARS},
                    optional={"overflow": SCALARS},
                )
            ),
            "text": maps(SCALARS),
            "conditions": st.lists(SCALARS, max_size=3) | SCALARS,
            "states": maps(SCALARS),
        },
    )
    | JSON
)
CHARACTERS = st.fixed_dictionaries(
    {"name": st.sampled_from(["Tess", "", "x" * 101]) | SCALARS},
    optional={
        "sheet": st.fixed_dictionaries({"v": SCALARS | st.just(1), "build": BUILDS}),
        "live": LIVES,
    },
)


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.too_slow])
@given(JSON)
def test_any_json_is_a_character_or_character_invalid(raw: object) -> None:
    _property(raw)


@settings(max_examples=examples(400), suppress_health_check=[HealthCheck.too_slow])
@given(CHARACTERS)
def test_any_near_character_is_a_character_or_character_invalid(raw: object) -> None:
    _property(raw)


def test_the_full_character_passes_the_property() -> None:
    _property(FULL)
    _property(json.loads(json.dumps(FULL)))


# ── the real rulesets, through the compiler ──

DATA = Path(__file__).resolve().parents[1] / "src" / "dicebound" / "data"


def _marinara(name: str) -> Ruleset:
    path = shared_path("marinara", name)
    return compile_ruleset(json.loads(path.read_text(encoding="utf-8")))


def test_gravewatch_rating_tier_and_bonus_make_the_pool() -> None:
    # docs/design/format.md "The sheet": rating 4 + tier flat 3 + bonus 1 = 8 dice.
    rs = _marinara("gravewatch.json")
    warden = load_character(
        rs,
        {
            "name": "Bram the Quiet",
            "sheet": {
                "v": 1,
                "build": {
                    "abilities": {"nerve": 4},
                    "skills": {"ward": "rating_3"},
                    "bonuses": {"ward": 1},
                },
            },
            "live": {
                "pools": {"resolve": {"value": 1}},
                "wounds": {"harm": {"marks": ["tear", "knock"]}},
                "conditions": ["rattled"],
                "states": {"light": "shuttered"},
            },
        },
    )
    v = SheetView(rs, warden)
    ward = v.check_number("skill", "ward")
    assert ward.number == 8
    assert v.penalty() == -1  # two marks: the second rung, not the sum
    assert v.adjust_for(ward.abilities) == -1  # a shuttered light weighs on Nerve
    assert v.check_number("skill", "dig").untrained_rule == "refuse"
    assert v.check_number("skill", "wrestle").untrained_by == -1  # its section's rule
    soothe = v.check_number("skill", "soothe")
    assert soothe.cap == 1 and soothe.number <= 1  # held to the Resolve left


def test_gravewatch_scars_lengthen_harm() -> None:
    rs = _marinara("gravewatch.json")
    scarred = load_character(
        rs,
        {
            "name": "Mara",
            "sheet": {"v": 1, "build": {"lists": {"scars": [{"name": "Bitten"}]}}},
            "live": {"wounds": {"harm": {"marks": ["knock"] * 5}}},
        },
    )
    v = SheetView(rs, scarred)
    assert v.track_max("harm") == 5
    assert v.penalty() == -99


def test_ember_roads_untrained_tinker_costs_two() -> None:
    rs = _marinara("ember-roads.json")
    v = SheetView(
        rs,
        load_character(
            rs,
            {
                "name": "Juno",
                "sheet": {
                    "v": 1,
                    "build": {
                        "abilities": {"wits": 1},
                        "lists": {"gear": [{"name": "Anvil", "bulk": 3}]},
                    },
                },
                "live": {"states": {"stance": "reckless"}},
            },
        ),
    )
    assert v.check_number("skill", "tinker").number == -1
    assert v.adjust_for(("brawn",)) == -1 + 2  # burdened, then the reckless stance
    assert v.pool_max("grit") == 6  # 4 + toughness 2 + brawn 0


def test_the_5e_proficiency_bonus_scales_tiers() -> None:
    rs = _marinara("ruleset-5e-2014.example.json")
    v = SheetView(
        rs,
        load_character(
            rs,
            {
                "name": "Mira",
                "sheet": {
                    "v": 1,
                    "build": {
                        "abilities": {"dex": 16},
                        "skills": {"stealth": "expertise"},
                        "fields": {"level": 5},
                    },
                },
            },
        ),
    )
    assert v.proficiency_bonus() == 3
    assert v.check_number("skill", "stealth").number == 3 + 6


@pytest.mark.parametrize(
    "folder",
    sorted(p.name for p in (DATA / "characters").glob("*"))
    if (DATA / "characters").exists()
    else [],
)
def test_shipped_characters_load_against_their_ruleset(folder: str) -> None:
    ruleset_path = DATA / "rulesets" / f"{folder}.json"
    if not ruleset_path.exists():
        pytest.skip(f"no shipped ruleset {ruleset_path.name} for the characters in {folder}")
    rs = compile_ruleset(json.loads(ruleset_path.read_text(encoding="utf-8")))
    for path in sorted((DATA / "characters" / folder).glob("*.json")):
        character = load_character(rs, json.loads(path.read_text(encoding="utf-8")))
        assert character.name


# A character built only from what the fixture declares always loads, and its numbers
# always keep the rules: parts add up, the cap holds, penalties are never positive.
_TIER_IDS = [t.id for t in RS.resolution.tiers]
# fmt: off
VALID = st.fixed_dictionaries({"name": st.text(st.characters(categories=["L", "Zs"]), min_size=1,
                                               max_size=30).filter(str.strip)}, optional={
    "sheet": st.fixed_dictionaries({"v": st.integers(1, 3), "build": st.fixed_dictionaries({}, optional={
        "abilities": st.dictionaries(st.sampled_from(["brawn", "grace", "wits", "heart"]),
                                     st.integers(1, 20)),
        "skills": st.dictionaries(st.sampled_from([s.id for s in RS.sheet.skills]),
                                  st.sampled_from(_TIER_IDS)),
        "saves": st.dictionaries(st.sampled_from(["dodge", "endure"]),
                                 st.sampled_from(["untrained", "trained"])),
        "bonuses": st.dictionaries(st.sampled_from(["sneak", "balance", "dodge"]), st.integers(-3, 5)),
        "fields": st.fixed_dictionaries({}, optional={
            "level": st.integers(1, 20), "toughness": st.integers(0, 6),
            "focus": st.sampled_from(["none", "brawn", "wits"]), "lucky": st.booleans(),
            "watch": st.sampled_from(["dusk", "night", "dawn"])}),
        "lists": st.fixed_dictionaries({}, optional={
            "gear": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["Rope", "Lamp"])},
                                                   optional={"bulk": st.integers(0, 5),
                                                             "packed": st.booleans()}), max_size=3),
            "scars": st.lists(st.fixed_dictionaries({"name": st.just("Scar")}, optional={
                "levels": st.integers(1, 2), "penalty": st.integers(-3, 0)}), max_size=4),
            "tricks": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["Spark", "Ember"])},
                                                     optional={"uses": st.integers(0, 9)}),
                               max_size=5)}),
    })}),
    "live": st.fixed_dictionaries({}, optional={
        "pools": st.dictionaries(st.sampled_from(["nerve", "stress", "odd"]),
                                 st.fixed_dictionaries({"value": st.integers(0, 2)})),
        "tracks": st.fixed_dictionaries({}, optional={"heat": st.integers(0, 5)}),
        "wounds": st.fixed_dictionaries({}, optional={
            "harm": st.fixed_dictionaries({"marks": st.lists(st.sampled_from(["knock", "tear"]),
                                                             max_size=4)}),
            "toil": st.fixed_dictionaries({"marks": st.lists(st.just("toil"), max_size=5)})}),
        "conditions": st.lists(st.sampled_from(["shaken", "pinned"]), unique=True),
        "states": st.fixed_dictionaries({}, optional={
            "light": st.sampled_from(["lit", "dim", "dark"])}),
    }),
})
# fmt: on


@settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
@given(VALID)
def test_a_character_of_declared_things_loads_and_keeps_the_rules(raw: dict[str, Any]) -> None:
    v = SheetView(RS, load_character(RS, raw))
    for group, items in (("skill", RS.sheet.skills), ("save", RS.sheet.saves)):
        for item in items:
            c = v.check_number(group, item.id)  # type: ignore[arg-type]
            parts = c.ability_mod + c.tier_bonus + c.bonus + c.untrained_by
            assert parts == c.uncapped
            held = min(parts, Fraction(c.cap)) if c.cap is not None else parts
            assert c.number == math.floor(held)
            assert c.untrained == (c.tier == "untrained")
    assert v.penalty() <= 0 and all(v.track_penalty(t.id) <= 0 for t in RS.sheet.tracks)
    assert v.track_max("harm") == 4 + sum(
        row.get("levels", 1)
        for row in raw.get("sheet", {}).get("build", {}).get("lists", {}).get("scars", [])
    )
    _property(raw)
