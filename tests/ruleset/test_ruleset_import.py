"""Import: real and hand-written rulesets compile into the model, and nothing but
``RulesetInvalid`` ever comes out of the compiler.

Marinara's three example rulesets are read from the shared folder (skipped where it is
absent) and must import unchanged (docs/design/format.md); our own small rulesets in
``tests/cases`` show what those three do not.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from budget import examples
from dicebound.compiler import compile_ruleset, load_ruleset_text
from dicebound.compiler.capability import Feature, is_above, parse_version, ruleset_features
from dicebound.compiler.schema import ruleset_json_schema
from dicebound.errors import RulesetInvalid
from dicebound.kinds.dice_pool import PoolConfig
from dicebound.kinds.dice_sum import SumConfig
from dicebound.kinds.registry import KNOWN_KINDS, kind_compiler
from dicebound.problems import Problem
from dicebound.ruleset.model import (
    AbilityModifier,
    LadderStep,
    Ruleset,
    Untrained,
    ValueRef,
)
from repo_paths import REPO
from ruleset_edits import load_case, parts, put

DATA = REPO / "src" / "dicebound" / "data" / "rulesets"


def _marinara(marinara_dir: Path, name: str) -> Ruleset:
    return load_ruleset_text((marinara_dir / name).read_text("utf-8"))


# -- Marinara's examples import unchanged ----------------------------------------------


def test_ember_roads_imports_with_its_2d6_sum(marinara_dir: Path) -> None:
    rs = _marinara(marinara_dir, "ember-roads.json")
    assert (rs.id, rs.version, rs.resolution.kind) == ("ember-roads", 1, "dice-sum")
    config = rs.resolution.config
    assert isinstance(config, SumConfig)
    assert (config.count, config.sides, config.advantage) == (2, 6, False)
    assert rs.resolution.ability_modifier == AbilityModifier("identity")
    assert [t.flat for t in rs.resolution.tiers] == [0, 1, 2]
    assert [(s.label, s.dc) for s in rs.resolution.ladder] == [
        ("Easy", 6),
        ("Risky", 8),
        ("Hard", 10),
        ("Desperate", 12),
    ]
    assert [a.abilities for a in rs.resolution.adjust] == [("brawn",), ("brawn",)]
    assert rs.resolution.adjust[0].value == ValueRef("derived", "burdened")
    assert rs.not_played == ("items", "battle")
    tinker = rs.sheet.skill("tinker")
    assert tinker is not None and tinker.untrained == Untrained("by", -2)
    burden = next(d for d in rs.sheet.derived if d.id == "burden")
    assert burden.of == (ValueRef("listSum", "gear", column="bulk", only_when="packed"),)
    stance = next(d for d in rs.sheet.derived if d.id == "stance_brawn")
    assert stance.enum_from == ("liveState", "stance")
    assert dict(stance.enum_table) == {"guarded": -1, "reckless": 2}
    strain = next(t for t in rs.sheet.tracks if t.id == "strain")
    assert strain.is_wound_track and strain.fill == "indexed" and strain.on_full == "refuse"
    assert strain.max == ValueRef("derived", "strain_boxes")
    assert (strain.boxes_by, strain.boxes_table) == ("remaining", ((0, -1), (1, 0)))
    heat = next(t for t in rs.sheet.tracks if t.id == "heat")
    assert heat.max == ValueRef("const", value=5) and not heat.is_wound_track
    assert rs.sheet.states[0].default == "steady"
    (hard_winter,) = rs.layers
    assert hard_winter.ladder is not None
    assert [s.dc for s in hard_winter.ladder] == [7, 9, 11, 13]
    assert hard_winter.guidance is not None and hard_winter.world_guidance is not None
    knacks = rs.catalogs[0]
    last_ember = next(e for e in knacks.entries if e.id == "last-ember")
    assert last_ember.kind == "heal" and [(c.pool, c.amount) for c in last_ember.cost] == [
        ("grit", 1)
    ]
    assert [c.holds for c in rs.catalogs] == ["rows", "creatures", "items"]


def test_gravewatch_imports_with_its_d10_pool(marinara_dir: Path) -> None:
    rs = _marinara(marinara_dir, "gravewatch.json")
    assert rs.resolution.kind == "dice-pool"
    config = rs.resolution.config
    assert isinstance(config, PoolConfig)
    assert (config.sides, config.pool_min, config.pool_max) == (10, 1, 15)
    assert (config.target_default, config.target_min, config.target_max) == (7, 5, 9)
    assert rs.resolution.penalty_from == "harm"
    assert rs.resolution.ladder[0] == LadderStep(
        "Plain work", successes=1, target=6, raw=rs.resolution.ladder[0].raw
    )
    assert rs.resolution.ladder[1].target is None
    # A skill's own untrained rule wins; else its section's.
    dig, wrestle, listen = (rs.sheet.skill(s) for s in ("dig", "wrestle", "listen"))
    assert dig is not None and dig.untrained == Untrained("refuse")
    assert wrestle is not None and wrestle.untrained == Untrained("by", -1)
    assert listen is not None and listen.untrained == Untrained("harder")
    soothe = rs.sheet.skill("soothe")
    assert soothe is not None and soothe.cap == ValueRef("livePool", "resolve")
    harm = rs.sheet.tracks[0]
    assert harm.is_wound_track and harm.extra == ("scars", "levels", "penalty")
    assert [lv.penalty for lv in harm.levels] == [0, -1, -3, -99]
    harm_left = next(d for d in rs.sheet.derived if d.id == "harm_left")
    assert harm_left.of == (ValueRef("liveTrack", "harm", read="remaining"),)
    assert (rs.sheet.bonus_min, rs.sheet.bonus_max) == (0, 3)
    steady = rs.catalogs[0].entries[0]
    assert steady.check is not None and dict(steady.check) == {
        "reroll": {"upTo": 1, "mode": "once"},
        "successes": 1,
    }
    assert steady.per_cost_step is not None and dict(steady.per_cost_step) == {"flat": 1}
    (night,) = rs.layers
    assert night.ladder is not None
    assert [(s.successes, s.target) for s in night.ladder] == [(1, 7), (2, 8), (4, 9), (6, 9)]
    assert rs.not_played == ("items",)  # its dice-pool fight is played


def test_the_5e_example_imports_with_its_d20(marinara_dir: Path) -> None:
    rs = _marinara(marinara_dir, "ruleset-5e-2014.example.json")
    config = rs.resolution.config
    assert isinstance(config, SumConfig)
    assert (config.count, config.sides, config.advantage) == (1, 20, True)
    assert rs.resolution.ability_modifier.op == "floorHalfMinusTen"
    assert rs.resolution.proficiency_bonus == ValueRef("derived", "proficiency_bonus")
    assert [t.multiplier for t in rs.resolution.tiers] == [0, 0.5, 1, 2]
    assert rs.sheet.save_tiers == ("none", "proficient")
    assert len(rs.sheet.skills) == 18 and len(rs.sheet.saves) == 6
    prof = rs.sheet.derived[0]
    assert prof.op == "stepTable" and prof.source == ValueRef("field", "level")
    assert prof.table == ((1, 2), (5, 3), (9, 4), (13, 5), (17, 6))
    slots = [p for p in rs.sheet.pools if p.group == "slots"]
    assert len(slots) == 9
    hp = next(p for p in rs.sheet.pools if p.id == "hp")
    assert hp.allow_temp and hp.max == ValueRef("field", "hp_max")
    assert rs.sheet.text == (("concentration", "Concentrating on", 80),)
    low, _high = rs.layers
    assert low.conflicts == ("high_magic",) and low.ladder is None
    assert rs.gm.sheet_summary["fields"] == ["level", "class", "ac", "speed"]


@pytest.mark.parametrize(
    "name", ["ember-roads.json", "gravewatch.json", "ruleset-5e-2014.example.json"]
)
def test_the_examples_pass_at_the_capability_api_of_their_newest_feature(
    marinara_dir: Path, name: str
) -> None:
    text = (marinara_dir / name).read_text("utf-8")
    assert load_ruleset_text(text, capability_api="1.65").name


def test_the_packaged_5e_srd_ruleset_imports() -> None:
    rs = load_ruleset_text((DATA / "dnd5e-srd.json").read_text("utf-8"))
    assert rs.id == "dnd5e-srd" and rs.resolution.kind == "dice-sum"


# -- our own rulesets: what the examples do not show ------------------------------------


def test_hearthstead_compiles_every_sheet_declaration() -> None:
    rs = compile_ruleset(load_case("hearth"))
    res = rs.resolution
    assert res.ability_modifier == AbilityModifier(
        "stepTable", ((1, -2), (4, -1), (8, 0), (13, 1), (17, 2))
    )
    assert res.proficiency_bonus == ValueRef("derived", "knack")
    assert [(t.id, t.multiplier, t.round, t.flat) for t in res.tiers] == [
        ("green", 0, "down", 0),
        ("handy", 1, "down", 0),
        ("seasoned", 1.5, "up", 1),
    ]
    assert res.adjust[0].abilities == ()  # no abilities: every check
    assert res.adjust[1].value == ValueRef("liveTrack", "weariness", read="penalty")
    config = res.config
    assert isinstance(config, SumConfig)
    assert (config.naturals_check, config.naturals_save) == ("both", "max-only")
    sheet = rs.sheet
    assert sheet.version == 2 and (sheet.bonus_min, sheet.bonus_max) == (-5, 5)
    assert sheet.skill_tiers == ("green", "handy", "seasoned")
    mend, bake, recall = (sheet.skill(s) for s in ("mend", "bake", "recall"))
    assert mend is not None and mend.untrained == Untrained("by", -2)  # its section's
    assert bake is not None and bake.untrained == Untrained("normal")  # its own wins
    assert recall is not None and recall.untrained == Untrained("harder")
    resolve = sheet.save("resolve")
    assert resolve is not None and resolve.untrained == Untrained("refuse")
    haggle = sheet.skill("haggle")
    assert (
        haggle is not None and haggle.ability is None and haggle.cap == ValueRef("const", value=8)
    )
    by_id = {f.id: f for f in sheet.fields}
    assert [f.type for f in sheet.fields[:8]] == [
        "number", "number", "enum", "enum", "text", "longtext", "boolean", "dice"
    ]  # fmt: skip
    assert by_id["weight"].integer is False and by_id["weight"].max == 50.5
    assert by_id["trade"].values == ("none", "smith", "baker", "herbalist")
    assert by_id["story"].max_length == 2000 and by_id["hit_die"].default == "1d8"
    derived = {d.id: d for d in sheet.derived}
    assert derived["knack"].op == "scale" and derived["knack"].of == (ValueRef("field", "season"),)
    assert (derived["knack"].multiplier, derived["knack"].round) == (0.5, "up")
    assert derived["best_of"].op == "max" and len(derived["best_of"].of) == 2
    assert derived["worst_of"].op == "min"
    assert derived["trade_bonus"].enum_from == ("field", "trade")
    assert derived["gift_mod"].of == (ValueRef("abilityModFromField", "gift"),)
    assert derived["tired"].of[1] == ValueRef("itemStat", "heft", value=0)
    charms = sheet.lists[1]
    assert charms.pools is not None and (charms.pools.max_column, charms.pools.recharge_column) == (
        "uses",
        "renew",
    )
    assert charms.columns[1].default == 1 and charms.columns[0].required
    pools = {p.id: p for p in sheet.pools}
    assert pools["worry"].start == "empty" and pools["grit"].allow_temp
    assert [p.id for p in sheet.pools if p.group == "sparks"] == ["spark_1", "spark_2"]
    chores, weariness = sheet.tracks
    assert chores.max == ValueRef("field", "season") and chores.default == 0
    assert weariness.is_wound_track and weariness.boxes_by == "filled"
    assert [k.severity for k in weariness.kinds] == [0, 2]
    assert sheet.conditions[1].id == "fed" and sheet.text[0] == ("errand", "Errand", 120)
    recipes = rs.catalogs[1]
    assert recipes.asset == "catalogs/recipes.json" and recipes.entries == ()
    kettle = rs.catalogs[0].entries[0]
    assert [(c.pool, c.amount) for c in kettle.cost] == [("sparks", 1)]
    assert kettle.per_cost_step is not None and kettle.per_cost_step["dice"] == "1d4+1"
    assert rs.gm.world_guidance is not None
    assert rs.edition == "Test edition" and rs.coverage["summary"].startswith("A d20")
    assert rs.not_played == ("items",)


def test_lanternfall_compiles_its_pool_and_charms() -> None:
    rs = compile_ruleset(load_case("lantern"))
    config = rs.resolution.config
    assert isinstance(config, PoolConfig)
    assert config.explode is not None and config.explode.min == 5
    assert config.spend[0].per_check == ValueRef("abilityScore", "grit")
    keen = rs.catalogs[0].entries[1]
    assert keen.check is not None and keen.check["threshold"] == 3
    (blackout,) = rs.layers
    assert blackout.ladder is not None and blackout.ladder[1] == LadderStep(
        "Tense", successes=3, target=5, raw=blackout.ladder[1].raw
    )
    assert rs.not_played == ()


def test_a_live_state_without_a_default_starts_at_its_first_value() -> None:
    doc = load_case("hearth")
    del doc["sheet"]["live"]["states"][0]["default"]
    assert compile_ruleset(doc).sheet.states[0].default == "cold"


def test_the_compiled_ruleset_is_immutable() -> None:
    rs = compile_ruleset(load_case("lantern"))
    with pytest.raises(AttributeError):
        rs.id = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        rs.gm.sheet_summary["fields"] = []  # type: ignore[index]


def test_a_byte_order_mark_is_read_past() -> None:
    text = "\ufeff" + json.dumps(load_case("lantern"))
    assert load_ruleset_text(text).id == "lanternfall"


# -- capability features and the JSON Schema ------------------------------------------


def test_versions_parse_and_compare_as_numbers() -> None:
    assert parse_version("1.137") == (1, 137)
    assert parse_version("1.40.0") == (1, 40)
    assert parse_version("1.x") is None
    assert is_above("1.137", "1.38") and not is_above("1.38", "1.137")
    assert not is_above("1.40", "1.40.0")


def test_the_features_a_file_uses_are_listed_with_version_and_path() -> None:
    doc = load_case("lantern")
    features = list(ruleset_features(doc))
    assert Feature("1.20", (), "a ruleset") in features
    assert Feature("1.41", ("sheet", "skills", 0, "untrained"), "untrained") in features
    assert Feature("1.25", ("layers",), "layers") in features
    assert Feature("1.37", ("catalogs", 0, "entries", 1, "mechanics", "check", "explode"),
                   "check.explode") in features  # fmt: skip


def test_the_json_schema_is_json_and_covers_every_built_kind() -> None:
    schema = ruleset_json_schema()
    text = json.dumps(schema)
    assert json.loads(text) == schema
    assert schema["$schema"].startswith("http://json-schema.org/draft-07")
    resolution = schema["properties"]["resolution"]["anyOf"]
    built = {k for k in KNOWN_KINDS if kind_compiler(k) is not None}
    assert {"dice-sum", "dice-pool"} <= built
    assert {option["properties"]["kind"]["const"] for option in resolution} == built
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) >= {"schemaVersion", "id", "resolution", "sheet", "gm"}


# -- nothing but RulesetInvalid comes out (hypothesis) ----------------------------------

_KEYS = [
    "schemaVersion", "id", "version", "name", "coverage", "summary", "resolution", "kind",
    "sheet", "gm", "checkGuidance", "abilities", "skills", "fields", "derived", "live",
    "pools", "tracks", "max", "min", "default", "of", "op", "from", "table", "type",
    "values", "catalogs", "entries", "layers", "difficultyLadder", "label", "dc",
    "proficiencyTiers", "abilityModifier", "derived", "const", "livePool", "$comment",
]  # fmt: skip

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["dice-sum", "dice-pool", "dice-highest", "stepTable", "x", "", "a-b"])
    | st.text(max_size=12)
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=30,
)


def _holds(doc: Any, path: tuple[str | int, ...]) -> bool:
    node = doc
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, list) or not 0 <= part < len(node):
                return False
        elif not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def _only_ruleset_invalid(doc: Any, capability_api: str | None = None) -> None:
    try:
        compile_ruleset(doc, capability_api=capability_api)
    except RulesetInvalid as exc:
        assert exc.problems
        for problem in exc.problems:
            assert isinstance(problem, Problem)
            assert problem.message and problem.code
            # STYLE.md: every problem path leads to a real place (a missing key: its parent).
            assert _holds(doc, problem.path), problem


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON)
def test_any_json_value_gives_a_ruleset_or_ruleset_invalid(doc: Any) -> None:
    _only_ruleset_invalid(doc)


def _paths(doc: Any, at: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    out = [at] if at else []
    if isinstance(doc, dict):
        for key, value in doc.items():
            out += _paths(value, (*at, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out += _paths(value, (*at, i))
    return out


_BASES = {"hearth": load_case("hearth"), "lantern": load_case("lantern")}
_BASE_PATHS = {name: _paths(doc) for name, doc in _BASES.items()}


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_mutated_ruleset_gives_a_ruleset_or_ruleset_invalid(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(_BASES)))
    doc: Any = copy.deepcopy(_BASES[name])
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        if not paths:
            break
        path = data.draw(st.sampled_from(paths))
        parent: Any = doc
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        action = data.draw(st.sampled_from(["replace", "delete", "borrow"]))
        if action == "replace":
            parent[last] = data.draw(_JSON)
        elif action == "delete":
            del parent[last]
        else:  # put another value of the same file in its place
            source = data.draw(st.sampled_from(_BASE_PATHS[name]))
            value: Any = _BASES[name]
            for part in source:
                value = value[part]
            parent[last] = copy.deepcopy(value)
    capability = data.draw(st.sampled_from([None, "1.30", "1.41", "oops"]))
    _only_ruleset_invalid(doc, capability)


@pytest.mark.parametrize(
    "value",
    [10**400, float("inf"), float("nan"), -(10**309)],
    ids=["a huge integer", "infinity", "nan", "a huge negative integer"],
)
def test_a_number_no_double_can_hold_is_refused_where_it_stands(value: object) -> None:
    doc = load_case("lantern")
    put("resolution.pool.max", value)(doc)
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(doc)
    assert [(p.where, p.code) for p in caught.value.problems] == [
        ("resolution.pool.max", "bad-number")
    ]


def test_deep_nesting_in_a_kept_block_is_not_a_crash() -> None:
    doc = load_case("hearth")
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    doc["items"] = {"deep": deep}
    assert compile_ruleset(doc).not_played == ("items",)
    doc["combat"] = {"deep": deep}  # a block checked strictly refuses it, and does not crash
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(doc)
    assert ("combat.deep", "unknown-key") in [(p.where, p.code) for p in caught.value.problems]


def test_edit_paths_parse_the_way_problems_render() -> None:
    assert parts("sheet.derived[2].of[0].listSum.list") == [
        "sheet", "derived", 2, "of", 0, "listSum", "list"
    ]  # fmt: skip
