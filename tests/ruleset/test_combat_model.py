"""The combat block compiled into frozen values: every played key with its default, the
references kept as value references, creatures and fight mechanics by (catalog, entry),
Marinara's three rulesets read whole, each key gated at its Capability API version, and
no broken block raising anything but ``RulesetInvalid`` (docs/design/fights-schema.md).
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
from combat_cases import start
from dicebound.compiler import compile_ruleset
from dicebound.errors import RulesetInvalid
from dicebound.problems import Problem
from dicebound.ruleset.combat import (
    Amount,
    Applied,
    AttackRoll,
    Budget,
    Combat,
    ConditionRule,
    Dice,
    Health,
    Initiative,
    Measure,
    Modifier,
    Reaction,
    Resistance,
    SaveClause,
)
from dicebound.ruleset.model import ValueRef
from dicebound.values import FrozenInstanceError

MINIMAL: dict[str, Any] = {
    "kind": "attack-vs-defense",
    "health": {"pool": "hp"},
    "defense": {"field": "ac"},
    "initiative": {"dice": {"count": 1, "sides": 20}},
    "attackRoll": {"dice": {"count": 1, "sides": 20}},
    "economy": {"budgets": [{"id": "action", "label": "Action", "per": "turn"}]},
}


def _combat(doc: dict[str, Any], capability_api: str | None = None) -> Combat:
    combat = compile_ruleset(doc, capability_api=capability_api).combat
    assert combat is not None
    return combat


def test_a_minimal_block_takes_every_default() -> None:
    doc = start("skirmish")
    doc["combat"] = copy.deepcopy(MINIMAL)
    doc.pop("battle")
    doc["catalogs"] = doc["catalogs"][:1]
    for entry in doc["catalogs"][0]["entries"]:  # entries that name what MINIMAL lacks
        entry.pop("mechanics")
    combat = _combat(doc)
    assert combat.kind == "attack-vs-defense"
    assert combat.health == Health("pool", "hp")
    assert combat.defense == ValueRef("field", "ac")
    assert combat.initiative == Initiative(dice=Dice(1, 20), modifier=None, plus=0, each="fight")
    assert combat.attack_roll == AttackRoll(Dice(1, 20), False, "none", "none", "none")
    assert combat.budgets == (Budget("action", "Action", "turn", 1),)
    assert combat.main_budget.id == "action"
    assert combat.pool is None and combat.off_hand is None and combat.dying is None
    assert combat.attacks == combat.abilities == combat.conditions == combat.levels == ()
    assert combat.standard == () and combat.damage_types == () and combat.tiers == ()
    assert dict(combat.inert) == {} and dict(combat.creatures) == {}


def test_the_skirmish_block_compiles_every_key() -> None:
    combat = _combat(start("skirmish"), capability_api="1.70")
    assert combat.attack_roll == AttackRoll(Dice(1, 20), True, "critical", "miss", "double-dice")
    assert combat.initiative.modifier == ValueRef("abilityMod", "dex")
    assert [b.count for b in combat.budgets] == [1, 1, 1]
    assert combat.budget("reaction") == Budget("reaction", "Reaction", "round", 1)
    assert combat.off_hand == ("bonus", "penalty-only")
    (attack,) = combat.attacks
    assert (attack.list, attack.name, attack.damage_dice, attack.damage_type) == (
        "attacks",
        "name",
        "damage",
        "damage_type",
    )
    assert (attack.to_hit_ability, attack.to_hit_skill, attack.to_hit_proficiency) == (
        "ability",
        None,
        "proficient",
    )
    assert attack.strikes == ValueRef("field", "swings")
    assert attack.strikes_capped_by == "loading"
    assert attack.reach == Measure(column="reach")
    assert (attack.range_normal, attack.range_long) == (Measure(const=80), Measure(const=320))
    (spells,) = combat.abilities
    assert spells.always_when == ("level", 0)
    assert spells.save_difficulty == ValueRef("derived", "spell_dc")
    assert combat.standard == ("dash", "dodge", "help")
    assert combat.dodge_saves == ("dex_save",)
    grappled = combat.condition("grappled")
    assert grappled == ConditionRule(
        "grappled", ("speed-zero",), in_sight_only="all", ends_when_source_down=True
    )
    dazed = combat.condition("dazed")
    assert dazed is not None and dazed.modifiers == (
        Modifier("checks", flat=-2, skills=("athletics",)),
        Modifier("attacks", dice="1d4", minus=True),
        Modifier("saves", mode="disadvantage", saves=("dex_save",)),
        Modifier("speed", times=0.5),
    )
    assert [(lv.source, lv.name, lv.at) for lv in combat.levels] == [
        ("track", "fatigue", 2),
        ("derived", "spell_dc", 15),
    ]
    grapple, escape = combat.contests
    assert (grapple.ties, grapple.strike, grapple.applies) == ("defender", True, (("grappled", 3),))
    assert (escape.ties, escape.holding, escape.ends, escape.push) == (
        "attacker",
        "grappled",
        (("grappled", "actor"),),
        5,
    )
    assert combat.concentration is not None and combat.concentration.from_damage == 0.5
    dying = combat.dying
    assert dying is not None
    assert (dying.natural_max, dying.natural_min, dying.damage_while_down) == (
        "revive-1",
        "two-failures",
        "one-failure",
    )
    assert dying.critical_while_down == "none"  # its default
    assert combat.tier("major") is not None and combat.tiers[0].health == (5, 20)
    assert combat.spend_limits[0].max == ValueRef("const", value=1)
    assert set(combat.inert) == {"distance", "ranged", "cover", "opportunity", "movement"}


def test_creatures_are_read_by_catalog_and_entry() -> None:
    combat = _combat(start("skirmish"))
    wolf = combat.creatures[("foes", "wolf")]
    assert (wolf.tier, wolf.health, wolf.defense, wolf.initiative_modifier) == (
        "minor",
        ("2d8", 2),
        13,
        2,
    )
    assert wolf.resist == (Resistance("cold"), Resistance("piercing", ("silver",)))
    assert (wolf.immune, wolf.vulnerable) == ((Resistance("poison"),), ("fire",))
    # "lair" spends a budget the economy does not declare: dropped when read
    assert [a.id for a in wolf.actions] == ["bite", "howl", "maul", "dodge_back"]
    bite, howl, maul, dodge = wolf.actions
    assert bite.damage == Amount("2d4", 2) and bite.plus[0].amount == Amount(None, 1)
    assert bite.applies == (Applied("prone", "instant"),)
    assert howl.save == SaveClause("str_save", "negates", 12)
    assert howl.applies == (Applied("dazed", 2, save_ends=("str_save", "turn-end")),)
    assert (howl.uses, howl.recharge, howl.target_count) == (("encounter", 1), (1, 6, 5), 3)
    assert (maul.sequence, maul.signature_cost) == ((("bite", 2),), 1)
    assert dodge.self_only and dodge.reaction == Reaction("hit")
    assert wolf.riders[0].actions == ("bite",)
    captain = combat.creatures[("foes", "captain")]
    assert captain.health is None and captain.sheet is not None
    assert dict(captain.sheet)["fields"] == {"ac": 17}


def test_fight_mechanics_are_read_by_catalog_and_entry() -> None:
    mechanics = _combat(start("skirmish")).mechanics
    snare = mechanics[("spells", "snare")]
    assert (snare.target_count, snare.concentration) == (2, True)
    assert snare.applies == (
        Applied("restrained", "until-save", save_ends=("str_save", "turn-end")),
    )
    burst = mechanics[("spells", "burst")]
    assert burst.amount == Amount("2d6", 1) and burst.auto_hit
    assert burst.plus[0].save == SaveClause("dex_save", "half")
    ward = mechanics[("spells", "ward")]
    assert ward.reaction == Reaction("aimed", "source", True, ("spells",))
    assert ward.applies == (Applied("dazed", 1, at_turn_start=True, ends_after="attacked"),)
    haste = mechanics[("spells", "haste")]
    assert (haste.free, haste.gives, haste.standard) == (
        True,
        (("action", 1),),
        (("hide",), "bonus"),
    )
    sneak = mechanics[("spells", "sneak-attack")]
    assert sneak.rider is not None and sneak.rider.requires == "finesse"
    mend = mechanics[("spells", "mend")]
    assert mend.scales_from == ValueRef("field", "swings")
    assert mend.scales_table == ((1.0, 0.0), (3.0, 1.0))


def test_a_reaction_written_true_is_kept_apart_from_a_reaction_object() -> None:
    doc = start("skirmish")
    doc["catalogs"][0]["entries"][0]["mechanics"]["reaction"] = True
    mechanics = _combat(doc).mechanics
    bolt, ward = mechanics[("spells", "fire-bolt")], mechanics[("spells", "ward")]
    assert (bolt.plain_reaction, bolt.reaction) == (True, None)
    assert not ward.plain_reaction and ward.reaction is not None


def test_a_pool_fight_compiles_its_pool_rules() -> None:
    combat = _combat(start("vigil"), capability_api="1.70")
    assert combat.kind == "dice-pool" and combat.attack_roll is None
    assert combat.health == Health("track", "hurt")
    assert combat.initiative.pool == ValueRef("abilityScore", "wile")
    assert combat.initiative.plus == 1 and combat.initiative.dice is None
    pool = combat.pool
    assert pool is not None
    assert (pool.advantage, pool.damage_target, pool.soak_roll) == (True, 5, True)
    assert dict(pool.soak_by_kind) == {"blunt": ValueRef("abilityScore", "grit")}
    assert combat.damage_kinds is not None
    assert dict(combat.damage_kinds.by_type) == {"sharp": "sharp"}


def test_the_model_is_frozen_and_holds_tuples() -> None:
    rs = compile_ruleset(start("skirmish"))
    combat = rs.combat
    assert combat is not None
    with pytest.raises(FrozenInstanceError):
        combat.kind = "dice-pool"  # type: ignore[misc]
    with pytest.raises(TypeError):
        combat.creatures[("foes", "x")] = combat.creatures[("foes", "wolf")]  # type: ignore[index]

    def walk(value: object) -> None:
        assert not isinstance(value, list | dict), value
        if hasattr(value, "__slots__") and not isinstance(value, str):
            for name in value.__slots__:
                walk(getattr(value, name))
        elif isinstance(value, tuple):
            for item in value:
                walk(item)

    walk(combat)
    assert rs.battle is not None and rs.battle.slots == (("focus", 1),)


def test_a_ruleset_without_a_combat_block_has_none() -> None:
    doc = start("skirmish")
    doc.pop("combat")
    assert compile_ruleset(doc).combat is None


# -- Marinara's three rulesets -------------------------------------------------------------


def _marinara(marinara_dir: Path, name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((marinara_dir / name).read_text("utf-8"))
    return loaded


def test_ember_roads_fights_unchanged(marinara_dir: Path) -> None:
    combat = _combat(_marinara(marinara_dir, "ember-roads.json"), capability_api="1.70")
    assert combat.health == Health("pool", "grit")
    assert combat.attack_roll == AttackRoll(Dice(2, 6))
    assert [c.id for c in combat.contests] == ["grab", "break_free", "shove"]
    assert combat.contests[2].ties == "attacker"
    assert [lv.source for lv in combat.levels] == ["track", "track", "derived"]
    assert sorted(e for _, e in combat.creatures) == [
        "cinder-moth",
        "glass-wader",
        "rust-jackal",
        "toll-warden",
    ]
    smother = combat.mechanics[("knacks", "smother")]
    assert smother.reaction == Reaction("used", "source", True, ("knacks",))


def test_gravewatch_fights_unchanged(marinara_dir: Path) -> None:
    combat = _combat(_marinara(marinara_dir, "gravewatch.json"), capability_api="1.70")
    assert combat.kind == "dice-pool" and combat.initiative.each == "round"
    assert combat.pool is not None and combat.pool.damage_target == 6
    assert combat.damage_kinds is not None and combat.damage_kinds.marks == "per-point"
    assert combat.off_hand == ("quick", "full")
    wight = combat.creatures[("night", "grave-wight")]
    assert wight.resist == (Resistance("tearing", ("silver",)),) and wight.loot == "grave_goods"


def test_the_5e_draft_fights_unchanged(marinara_dir: Path) -> None:
    combat = _combat(_marinara(marinara_dir, "ruleset-5e-2014.example.json"), capability_api="1.70")
    assert combat.attack_roll == AttackRoll(Dice(1, 20), True, "critical", "miss", "double-dice")
    assert len(combat.conditions) == 14 and combat.dying is not None
    frightened = combat.condition("frightened")
    assert frightened is not None
    assert frightened.in_sight_only == ("own-attacks-disadvantage", "own-checks-disadvantage")
    sergeant = combat.creatures[("creatures", "toll-sergeant")]
    assert sergeant.sheet is not None and [a.id for a in sergeant.actions] == ["parry"]
    assert len(combat.tiers) == 9


# -- Capability API ------------------------------------------------------------------------

GATES = [
    ("a combat block is 1.26", "skirmish", "1.25", "combat"),
    ("a dice-pool fight is 1.47", "vigil", "1.46", "combat.kind"),
    ("health on a wound track is 1.30", "vigil", "1.29", "combat.health.track"),
    ("initiative.pool is 1.48", "vigil", "1.47", "combat.initiative.pool"),
    ("pool.hardness is 1.56", "vigil", "1.55", "combat.pool.hardness"),
    ("distance is 1.28", "skirmish", "1.27", "combat.distance"),
    ("offHand is 1.58", "skirmish", "1.57", "combat.offHand"),
    ("strikesCappedBy is 1.32", "skirmish", "1.31", "combat.attacks[0].strikesCappedBy"),
    ("a level read off a derived value is 1.54", "skirmish", "1.53", "combat.levels[1].derived"),
    ("own-checks effects are 1.45", "skirmish", "1.44", "combat.levels[0].effects[0]"),
    ("contests are 1.43", "skirmish", "1.42", "combat.contests"),
    ("spendLimits are 1.47", "skirmish", "1.46", "combat.spendLimits"),
    ("creature checks are 1.43", "skirmish", "1.42", "catalogs[1].entries[0].creature.checks"),
    ("creature riders are 1.29", "skirmish", "1.28", "catalogs[1].entries[0].creature.riders"),
    (
        "a resistance with exceptions is 1.55",
        "skirmish",
        "1.54",
        "catalogs[1].entries[0].creature.resist[1]",
    ),
    (
        "a reaction on hit is 1.46",
        "skirmish",
        "1.45",
        "catalogs[1].entries[0].creature.actions[3].reaction.on",
    ),
    (
        "endsAfter is 1.45",
        "skirmish",
        "1.44",
        "catalogs[0].entries[4].mechanics.applies[0].endsAfter",
    ),
    ("mechanics.plus is 1.29", "skirmish", "1.28", "catalogs[0].entries[2].mechanics.plus"),
]


@pytest.mark.parametrize(("rule", "name", "below", "where"), GATES, ids=[g[0] for g in GATES])
def test_each_combat_key_needs_its_capability_version(
    rule: str, name: str, below: str, where: str
) -> None:
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(start(name), capability_api=below)
    gated = [(p.where, p.code) for p in caught.value.problems if p.code == "needs-capability"]
    assert (where, "needs-capability") in gated


# -- no broken block raises anything else (hypothesis) --------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**6), max_value=10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["dice-pool", "attack-vs-defense", "symbol-pool", "hp", "1d6", "", "x"])
    | st.text(max_size=8)
)
_KEYS = st.sampled_from(
    ["kind", "pool", "track", "dice", "count", "sides", "id", "budget", "condition", "save",
     "effects", "modifiers", "to", "flat", "applies", "duration", "sequence", "action", "sheet"]
)  # fmt: skip
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(_KEYS | st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)
_BASES = {name: start(name) for name in ("skirmish", "vigil")}


def _paths(node: Any, at: tuple[str | int, ...]) -> list[tuple[str | int, ...]]:
    out = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*at, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*at, i))
    return out


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


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_broken_combat_block_gives_only_ruleset_invalid_with_paths(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(_BASES)))
    doc: Any = copy.deepcopy(_BASES[name])
    roots = [("combat",), ("battle",), ("catalogs",)]
    for _ in range(data.draw(st.integers(1, 3))):
        root = data.draw(st.sampled_from(roots))
        if not _holds(doc, root):
            continue
        node: Any = doc
        for part in root:
            node = node[part]
        path = data.draw(st.sampled_from(_paths(node, root)))
        parent: Any = doc
        for part in path[:-1]:
            parent = parent[part]
        if data.draw(st.booleans()):
            parent[path[-1]] = data.draw(_JSON)
        elif isinstance(parent, dict | list) and len(path) > 1:
            del parent[path[-1]]
    capability = data.draw(st.sampled_from([None, "1.26", "1.70"]))
    try:
        compile_ruleset(doc, capability_api=capability)
    except RulesetInvalid as exc:
        assert exc.problems
        for problem in exc.problems:
            assert isinstance(problem, Problem) and problem.code and problem.message
            assert _holds(doc, problem.path), problem
