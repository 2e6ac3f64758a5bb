"""The combat block refused at import: one change per row to a ruleset that fights, and
the exact problems it makes (FIGHTS §1, §2.1-§2.4, docs/design/fights-schema.md).

Each row's id is the spec's rule in words ("Refused at import" of that key), so a
failure names the rule it broke; ``expect`` is every problem as ``(path, code)``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest

from combat_cases import start
from dicebound.compiler import compile_ruleset
from dicebound.errors import RulesetInvalid
from dicebound.problems import Problem
from ruleset_edits import Edit, both, drop, extend, put

C = "combat"
SPELLS = "catalogs[0].entries"
WOLF = "catalogs[1].entries[0].creature"
CAPTAIN = "catalogs[1].entries[1].creature"


@dataclass(frozen=True)
class Case:
    id: str
    start: str
    edit: Edit
    expect: list[tuple[str, str]]
    says: str = ""


def _problems(doc: dict[str, Any], capability_api: str | None = None) -> list[Problem]:
    with pytest.raises(RulesetInvalid) as caught:
        compile_ruleset(doc, capability_api=capability_api)
    return list(caught.value.problems)


CASES: list[Case] = [
    # -- §1 which rulesets fight ---------------------------------------------------------
    Case(
        "§1 a symbol-pool fight is refused wherever it appears, at combat.kind",
        "skirmish",
        put(f"{C}.kind", "symbol-pool"),
        [(f"{C}.kind", "not-allowed")],
        says="A fight thrown in symbol dice is not specified anywhere dicebound can read",
    ),
    Case(
        "§1 a dice-pool fight is refused at combat.kind beside dice-sum",
        "skirmish",
        both(put(f"{C}.kind", "dice-pool"), drop(f"{C}.attackRoll"), put(f"{C}.pool", {})),
        [
            (f"{C}.kind", "combat-not-allowed"),
            # and the block read as a pool fight has a modifier a pool fight refuses
            (f"{C}.conditions[4].modifiers[1].dice", "not-for-fight-kind"),
        ],
    ),
    Case(
        "§1 a combat kind not in the closed list is refused",
        "skirmish",
        put(f"{C}.kind", "attack-roll"),
        [(f"{C}.kind", "not-allowed")],
    ),
    # -- §2 strictness -------------------------------------------------------------------
    Case(
        "§2 an unknown key is refused with its path",
        "skirmish",
        put(f"{C}.initative", {}),
        [(f"{C}.initative", "unknown-key")],
        says='Did you mean "initiative"?',
    ),
    Case(
        "§2 an unknown key deep inside is refused with its path",
        "skirmish",
        put(f"{C}.contests[0].onWin.shove", 5),
        [(f"{C}.contests[0].onWin.shove", "unknown-key")],
    ),
    Case(
        "§2 ids follow ^[a-z][a-z0-9_]*$",
        "skirmish",
        put(f"{C}.economy.budgets[0].id", "Main-Action"),
        # a block whose shape is faulty is not cross-checked: one fault, one problem
        [(f"{C}.economy.budgets[0].id", "bad-id")],
    ),
    Case(
        "§2 ids are at most 40 characters",
        "skirmish",
        put(f"{C}.checks[1].id", "a" * 41),
        [(f"{C}.checks[1].id", "too-long")],
    ),
    # -- §2.1 keys -----------------------------------------------------------------------
    Case(
        "health.pool: unknown live pool",
        "skirmish",
        put(f"{C}.health.pool", "hit_points"),
        [(f"{C}.health.pool", "unknown-id")],
    ),
    Case(
        "health.pool: a pool that starts empty (pool-starts-empty)",
        "skirmish",
        put(f"{C}.health.pool", "stress"),
        [(f"{C}.health.pool", "pool-starts-empty")],
    ),
    Case(
        "health.pool: a row pool (a list row's pool has no id a fight may name)",
        "skirmish",
        put(f"{C}.health.pool", "attacks:sword"),
        [(f"{C}.health.pool", "bad-id")],
    ),
    Case(
        "health.track: not a wound track",
        "skirmish",
        put(f"{C}.health", {"track": "fatigue"}),
        [(f"{C}.health.track", "not-wound-track")],
    ),
    Case(
        "health is a pool or a track, nothing else",
        "skirmish",
        put(f"{C}.health", {"pool": "hp", "track": "wounds"}),
        [(f"{C}.health.track", "unknown-key")],
    ),
    Case(
        "defense: an unknown source",
        "skirmish",
        put(f"{C}.defense", {"field": "armor"}),
        [(f"{C}.defense.field", "unknown-id")],
    ),
    Case(
        "initiative: exactly one of dice/pool",
        "skirmish",
        put(f"{C}.initiative.pool", {"const": 3}),
        [(f"{C}.initiative", "one-source")],
    ),
    Case(
        "initiative: modifier only with dice",
        "vigil",
        put(f"{C}.initiative.modifier", {"const": 1}),
        [(f"{C}.initiative.modifier", "key-conflict")],
    ),
    Case(
        "initiative: plus only with pool",
        "skirmish",
        put(f"{C}.initiative.plus", 2),
        [(f"{C}.initiative.plus", "key-conflict")],
    ),
    Case(
        "initiative.pool: only beside kind dice-pool",
        "skirmish",
        both(
            drop(f"{C}.initiative.dice"),
            drop(f"{C}.initiative.modifier"),
            put(f"{C}.initiative.pool", {"abilityMod": "dex"}),
        ),
        [(f"{C}.initiative.pool", "not-for-fight-kind")],
    ),
    Case(
        "initiative.each: not beside resource",
        "vigil",
        put(
            f"{C}.initiative",
            {
                "pool": {"abilityScore": "wile"},
                "each": "round",
                "resource": {"base": 10, "styles": [{"id": "bold", "label": "Bold", "takes": {}}]},
            },
        ),
        [(f"{C}.initiative.each", "key-conflict")],
    ),
    Case(
        "initiative.resource: only with pool",
        "skirmish",
        put(
            f"{C}.initiative.resource",
            {"base": 10, "styles": [{"id": "bold", "label": "Bold", "takes": {"gain": 2}}]},
        ),
        [(f"{C}.initiative.resource", "key-conflict")],
    ),
    Case(
        "initiative.resource: crash.condition a declared live condition",
        "vigil",
        put(
            f"{C}.initiative.resource",
            {
                "base": 10,
                "styles": [{"id": "bold", "label": "Bold", "spends": {"onMiss": [[1, 2]]}}],
                "crash": {"condition": "winded"},
            },
        ),
        [(f"{C}.initiative.resource.crash.condition", "unknown-id")],
    ),
    Case(
        "initiative.resource: a style takes or spends, not both",
        "vigil",
        put(
            f"{C}.initiative.resource",
            {"base": 10, "styles": [{"id": "bold", "label": "Bold"}]},
        ),
        [(f"{C}.initiative.resource.styles[0]", "one-source")],
    ),
    Case(
        "attackRoll: required for attack-vs-defense",
        "skirmish",
        drop(f"{C}.attackRoll"),
        [(C, "missing-key")],
    ),
    Case(
        "attackRoll: refused for dice-pool",
        "vigil",
        put(f"{C}.attackRoll", {"dice": {"count": 1, "sides": 20}}),
        [(f"{C}.attackRoll", "not-for-fight-kind")],
    ),
    Case(
        "attackRoll: naturals other than none with count > 1 (single-die-only)",
        "skirmish",
        put(f"{C}.attackRoll.dice.count", 2),
        [(f"{C}.attackRoll.naturals", "single-die-only")],
    ),
    Case(
        "attackRoll.dice: count 1-10, sides 2-1000",
        "skirmish",
        put(f"{C}.attackRoll.dice", {"count": 11, "sides": 1}),
        [(f"{C}.attackRoll.dice.count", "too-large"), (f"{C}.attackRoll.dice.sides", "too-small")],
    ),
    Case(
        "pool: required for dice-pool",
        "vigil",
        drop(f"{C}.pool"),
        [(C, "missing-key")],
    ),
    Case(
        "pool: refused otherwise",
        "skirmish",
        put(f"{C}.pool", {"advantage": True}),
        [(f"{C}.pool", "not-for-fight-kind")],
    ),
    Case(
        "pool.damageTarget: above the die's sides",
        "vigil",
        put(f"{C}.pool.damageTarget", 7),
        [(f"{C}.pool.damageTarget", "too-large")],
    ),
    Case(
        "pool.soak: with neither all nor byKind",
        "vigil",
        put(f"{C}.pool.soak", {"roll": False}),
        [(f"{C}.pool.soak", "missing-key")],
    ),
    Case(
        "pool.soak.byKind: a key that is not a kind of the health track",
        "vigil",
        put(f"{C}.pool.soak.byKind", {"fire": {"const": 1}}),
        [(f"{C}.pool.soak.byKind.fire", "unknown-id")],
    ),
    Case(
        "pool.soak.byKind: byKind with pool health",
        "vigil",
        both(
            put(f"{C}.health", {"pool": "nerve"}),
            drop(f"{C}.damageKinds"),
        ),
        [(f"{C}.pool.soak.byKind", "key-conflict")],
    ),
    Case(
        "economy.budgets: duplicate id",
        "skirmish",
        put(f"{C}.economy.budgets[1].id", "action"),
        [(f"{C}.economy.budgets[1].id", "duplicate-id")],
    ),
    Case(
        "economy.budgets: 1-8",
        "skirmish",
        put(f"{C}.economy.budgets", []),
        [(f"{C}.economy.budgets", "too-few")],
    ),
    Case(
        "distance: required when an attacks[] entry has reach or range",
        "skirmish",
        drop(f"{C}.distance"),
        [(C, "missing-key")],
    ),
    Case(
        "opportunity.budget unknown",
        "skirmish",
        put(f"{C}.opportunity.budget", "reactions"),
        [(f"{C}.opportunity.budget", "unknown-id")],
    ),
    Case(
        "offHand: unknown budget",
        "skirmish",
        put(f"{C}.offHand.budget", "quick"),
        [(f"{C}.offHand.budget", "unknown-id")],
    ),
    Case(
        "attacks: unknown list",
        "skirmish",
        put(f"{C}.attacks[0].list", "weapons"),
        [(f"{C}.attacks[0].list", "unknown-id")],
    ),
    Case(
        "attacks: unknown column",
        "skirmish",
        put(f"{C}.attacks[0].toHit.bonus.column", "plus"),
        [(f"{C}.attacks[0].toHit.bonus.column", "unknown-id")],
    ),
    Case(
        "attacks: unknown budget",
        "skirmish",
        put(f"{C}.attacks[0].budget", "swing"),
        [(f"{C}.attacks[0].budget", "unknown-id")],
    ),
    Case(
        "attacks: column types, name text",
        "skirmish",
        put(f"{C}.attacks[0].name", "bonus"),
        [(f"{C}.attacks[0].name", "wrong-column-type")],
    ),
    Case(
        "attacks: column types, damage.dice dice",
        "skirmish",
        put(f"{C}.attacks[0].damage.dice.column", "name"),
        [(f"{C}.attacks[0].damage.dice.column", "wrong-column-type")],
    ),
    Case(
        "attacks: column types, proficiency boolean",
        "skirmish",
        put(f"{C}.attacks[0].toHit.proficiency.column", "bonus"),
        [(f"{C}.attacks[0].toHit.proficiency.column", "wrong-column-type")],
    ),
    Case(
        "attacks: column types, ability/skill enum",
        "skirmish",
        put(f"{C}.attacks[0].toHit.skill", {"column": "name"}),
        [(f"{C}.attacks[0].toHit.skill.column", "wrong-column-type")],
    ),
    Case(
        "attacks: column types, bonus number",
        "skirmish",
        put(f"{C}.attacks[0].damage.bonus", {"column": "loading"}),
        [(f"{C}.attacks[0].damage.bonus.column", "wrong-column-type")],
    ),
    Case(
        "attacks: column types, type text",
        "skirmish",
        put(f"{C}.attacks[0].damage.type.column", "reach"),
        [(f"{C}.attacks[0].damage.type.column", "wrong-column-type")],
    ),
    Case(
        "attacks: strikes read below 1 on a blank sheet",
        "skirmish",
        put(f"{C}.attacks[0].strikes", {"abilityMod": "str"}),
        [(f"{C}.attacks[0].strikes", "too-small")],
    ),
    Case(
        "attacks: strikesCappedBy without strikes",
        "skirmish",
        drop(f"{C}.attacks[0].strikes"),
        [(f"{C}.attacks[0].strikesCappedBy", "key-conflict")],
    ),
    Case(
        "attacks: strikesCappedBy not boolean",
        "skirmish",
        put(f"{C}.attacks[0].strikesCappedBy.column", "bonus"),
        [(f"{C}.attacks[0].strikesCappedBy.column", "wrong-column-type")],
    ),
    Case(
        "attacks: at most 8",
        "skirmish",
        lambda doc: doc[C]["attacks"].extend([copy.deepcopy(doc[C]["attacks"][0])] * 8),
        [(f"{C}.attacks", "too-many")],
    ),
    Case(
        "abilities: unknown list",
        "skirmish",
        put(f"{C}.abilities[0].list", "prayers"),
        [(f"{C}.abilities[0].list", "unknown-id")],
    ),
    Case(
        "abilities: unknown budget",
        "skirmish",
        put(f"{C}.abilities[0].budget", "cast"),
        [(f"{C}.abilities[0].budget", "unknown-id")],
    ),
    Case(
        "abilities: onlyWhen not a boolean column",
        "skirmish",
        put(f"{C}.abilities[0].onlyWhen", "level"),
        [(f"{C}.abilities[0].onlyWhen", "wrong-column-type")],
    ),
    Case(
        "standard: duplicate",
        "skirmish",
        extend(f"{C}.standard", ["dash"]),
        [(f"{C}.standard[3]", "duplicate-value")],
    ),
    Case(
        "standard: only the six standard actions",
        "skirmish",
        extend(f"{C}.standard", ["shove"]),
        [(f"{C}.standard[3]", "not-allowed")],
    ),
    Case(
        "standardEffects.dodge.saves: unknown save",
        "skirmish",
        put(f"{C}.standardEffects.dodge.saves", ["wis_save"]),
        [(f"{C}.standardEffects.dodge.saves[0]", "unknown-id")],
    ),
    Case(
        "conditions: undeclared live condition",
        "skirmish",
        put(f"{C}.conditions[0].condition", "stunned"),
        [(f"{C}.conditions[0].condition", "unknown-id")],
    ),
    Case(
        "conditions: duplicate",
        "skirmish",
        put(f"{C}.conditions[1].condition", "prone"),
        [(f"{C}.conditions[1].condition", "duplicate-id")],
    ),
    Case(
        "conditions: unknown save",
        "skirmish",
        put(f"{C}.conditions[3].failsSaves", ["con_save"]),
        [(f"{C}.conditions[3].failsSaves[0]", "unknown-id")],
    ),
    Case(
        "conditions: unknown skill",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[0].skills", ["stealth"]),
        [(f"{C}.conditions[4].modifiers[0].skills[0]", "unknown-id")],
    ),
    Case(
        "conditions: saves without an own-saves effect or a saves modifier",
        "skirmish",
        put(f"{C}.conditions[2].effects", ["own-attacks-disadvantage"]),
        [(f"{C}.conditions[2].saves", "key-conflict")],
    ),
    Case(
        "conditions: skills without an own-checks effect or a checks modifier",
        "skirmish",
        put(f"{C}.conditions[0].skills", ["athletics"]),
        [(f"{C}.conditions[0].skills", "key-conflict")],
    ),
    Case(
        "§2.2 effects: a closed list",
        "skirmish",
        put(f"{C}.conditions[0].effects", ["knocked-down"]),
        [(f"{C}.conditions[0].effects[0]", "not-allowed")],
    ),
    Case(
        "conditions.whileSourceInSight: true or effects",
        "skirmish",
        put(f"{C}.conditions[1].whileSourceInSight", False),
        [(f"{C}.conditions[1].whileSourceInSight", "not-allowed")],
    ),
    Case(
        "levels: exactly one of track/derived",
        "skirmish",
        put(f"{C}.levels[0].derived", "spell_dc"),
        [(f"{C}.levels[0]", "one-source")],
    ),
    Case(
        "levels: at least one of effects/modifiers/failsSaves",
        "skirmish",
        drop(f"{C}.levels[0].effects"),
        [(f"{C}.levels[0]", "missing-key")],
    ),
    Case(
        "levels: the four movement/source effects refused",
        "skirmish",
        put(f"{C}.levels[0].effects", ["half-move-to-stand"]),
        [(f"{C}.levels[0].effects[0]", "not-allowed")],
    ),
    Case(
        "levels: an unknown track",
        "skirmish",
        put(f"{C}.levels[0].track", "tiredness"),
        [(f"{C}.levels[0].track", "unknown-id")],
    ),
    Case(
        "checks: duplicate id",
        "skirmish",
        put(f"{C}.checks[1].id", "might"),
        [(f"{C}.checks[1].id", "duplicate-id")],
    ),
    Case(
        "contests: unknown check",
        "skirmish",
        put(f"{C}.contests[0].attacker.checks", ["brawn"]),
        [(f"{C}.contests[0].attacker.checks[0]", "unknown-id")],
    ),
    Case(
        "contests: unknown condition",
        "skirmish",
        put(f"{C}.contests[1].from.holding", "held"),
        [(f"{C}.contests[1].from.holding", "unknown-id")],
    ),
    Case(
        "contests: unknown budget",
        "skirmish",
        put(f"{C}.contests[0].budget", "grab"),
        [(f"{C}.contests[0].budget", "unknown-id")],
    ),
    Case(
        "contests: onWin with none of its three",
        "skirmish",
        put(f"{C}.contests[0].onWin", {}),
        [(f"{C}.contests[0].onWin", "missing-key")],
    ),
    Case(
        "concentration: unknown live text",
        "skirmish",
        put(f"{C}.concentration.text", "focus_on"),
        [(f"{C}.concentration.text", "unknown-id")],
    ),
    Case(
        "concentration: unknown save",
        "skirmish",
        put(f"{C}.concentration.save", "con_save"),
        [(f"{C}.concentration.save", "unknown-id")],
    ),
    Case(
        "concentration.fromDamage: (0,1]",
        "skirmish",
        put(f"{C}.concentration.fromDamage", 0),
        [(f"{C}.concentration.fromDamage", "too-small")],
    ),
    Case(
        "dying: unknown tracks",
        "skirmish",
        put(f"{C}.dying.successes", "lives"),
        [(f"{C}.dying.successes", "unknown-id")],
    ),
    Case(
        "dying: the same track twice",
        "skirmish",
        put(f"{C}.dying.failures", "saves_ok"),
        [(f"{C}.dying.failures", "duplicate-id")],
    ),
    Case(
        "dying: a track whose max is not a plain number",
        "skirmish",
        put(f"{C}.dying.failures", "grip"),
        [(f"{C}.dying.failures", "not-a-number")],
    ),
    Case(
        "dying: a track with hideWhen",
        "skirmish",
        put("sheet.live.tracks[1].hideWhen", {"field": "ac", "equals": 0}),
        [(f"{C}.dying.failures", "wound-track-hidden")],
    ),
    Case(
        "dying: an undeclared condition",
        "skirmish",
        put(f"{C}.dying.condition", "dying"),
        [(f"{C}.dying.condition", "unknown-id")],
    ),
    Case(
        "dying: naturals other than none with dice.count > 1",
        "skirmish",
        put(f"{C}.dying.dice.count", 2),
        [(f"{C}.dying.naturals", "single-die-only")],
    ),
    Case(
        "damageTypes: duplicates ignoring case",
        "skirmish",
        extend(f"{C}.damageTypes", ["Fire"]),
        [(f"{C}.damageTypes[5]", "duplicate-value")],
    ),
    Case(
        "damageTypes: at most 40 characters each",
        "skirmish",
        extend(f"{C}.damageTypes", ["x" * 41]),
        [(f"{C}.damageTypes[5]", "too-long")],
    ),
    Case(
        "damageKinds: required exactly when health is a track",
        "vigil",
        drop(f"{C}.damageKinds"),
        [(C, "missing-key")],
    ),
    Case(
        "damageKinds: refused when health is a pool",
        "skirmish",
        put(f"{C}.damageKinds", {"default": "bruise", "marks": "per-blow"}),
        [(f"{C}.damageKinds", "key-conflict")],
    ),
    Case(
        "damageKinds: kinds of that track",
        "vigil",
        put(f"{C}.damageKinds.default", "burn"),
        [(f"{C}.damageKinds.default", "unknown-id")],
    ),
    Case(
        "damageKinds: types of damageTypes",
        "vigil",
        put(f"{C}.damageKinds.byType", {"acid": "sharp"}),
        [(f"{C}.damageKinds.byType.acid", "unknown-id")],
    ),
    Case(
        "threat.tiers: lo > hi",
        "skirmish",
        put(f"{C}.threat.tiers[0].health", [20, 5]),
        [(f"{C}.threat.tiers[0].health", "too-large")],
    ),
    Case(
        "threat.tiers: duplicate id",
        "skirmish",
        put(f"{C}.threat.tiers[1].id", "minor"),
        [(f"{C}.threat.tiers[1].id", "duplicate-id")],
    ),
    Case(
        "spendLimits: unknown live pool",
        "skirmish",
        put(f"{C}.spendLimits[0].pool", "mana"),
        [(f"{C}.spendLimits[0].pool", "unknown-id")],
    ),
    Case(
        "spendLimits: a pool limited twice",
        "skirmish",
        extend(f"{C}.spendLimits", [{"pool": "focus", "max": {"const": 2}, "per": "round"}]),
        [(f"{C}.spendLimits[1].pool", "duplicate-id")],
    ),
    # -- modifiers (§2.1) ----------------------------------------------------------------
    Case(
        "modifiers: at least one of flat, dice, times, mode",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[0]", {"to": "checks"}),
        [(f"{C}.conditions[4].modifiers[0]", "missing-key")],
    ),
    Case(
        "modifiers: dice only to attacks/saves/checks",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[1].to", "defense"),
        [(f"{C}.conditions[4].modifiers[1].dice", "key-conflict")],
    ),
    Case(
        "modifiers: times only to speed",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[3].to", "defense"),
        [(f"{C}.conditions[4].modifiers[3].times", "key-conflict")],
    ),
    Case(
        "modifiers: minus only with dice",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[1]", {"to": "attacks", "flat": 1, "minus": True}),
        [(f"{C}.conditions[4].modifiers[1].minus", "key-conflict")],
    ),
    Case(
        "modifiers: mode only to checks/saves",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[2]", {"to": "attacks", "mode": "advantage"}),
        [(f"{C}.conditions[4].modifiers[2].mode", "key-conflict")],
    ),
    Case(
        "modifiers: skills only to checks",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[0].to", "saves"),
        [(f"{C}.conditions[4].modifiers[0].skills", "key-conflict")],
    ),
    Case(
        "modifiers: saves only to saves",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[2]", {"to": "checks", "flat": 1, "saves": ["dex_save"]}),
        [(f"{C}.conditions[4].modifiers[2].saves", "key-conflict")],
    ),
    Case(
        "modifiers: flat is ±1..100",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[0].flat", 0),
        [(f"{C}.conditions[4].modifiers[0].flat", "too-small")],
    ),
    Case(
        "modifiers: times is 0.5 or 2",
        "skirmish",
        put(f"{C}.conditions[4].modifiers[3].times", 3),
        [(f"{C}.conditions[4].modifiers[3].times", "not-allowed")],
    ),
    Case(
        "modifiers: in a dice-pool fight dice is refused (a modifier gives a flat number of dice)",
        "vigil",
        put(
            f"{C}.conditions",
            [{"condition": "rattled", "modifiers": [{"to": "attacks", "dice": "1d4"}]}],
        ),
        [(f"{C}.conditions[0].modifiers[0].dice", "not-for-fight-kind")],
    ),
    # -- §2.3 catalog mechanics a fight reads ------------------------------------------------
    Case(
        "mechanics: unknown condition",
        "skirmish",
        put(f"{SPELLS}[1].mechanics.applies[0].condition", "frozen"),
        [(f"{SPELLS}[1].mechanics.applies[0].condition", "unknown-id")],
    ),
    Case(
        "mechanics: unknown save",
        "skirmish",
        put(f"{SPELLS}[1].mechanics.save.save", "wis_save"),
        [(f"{SPELLS}[1].mechanics.save.save", "unknown-id")],
    ),
    Case(
        "mechanics: unknown budget",
        "skirmish",
        put(f"{SPELLS}[4].mechanics.budget", "swift"),
        [(f"{SPELLS}[4].mechanics.budget", "unknown-id")],
    ),
    Case(
        "mechanics: unknown damage type",
        "skirmish",
        put(f"{SPELLS}[0].mechanics.damageType", "lightning"),
        [(f"{SPELLS}[0].mechanics.damageType", "unknown-id")],
    ),
    Case(
        "mechanics: an until-save without saveEnds",
        "skirmish",
        drop(f"{SPELLS}[1].mechanics.applies[0].saveEnds"),
        [(f"{SPELLS}[1].mechanics.applies[0]", "missing-key")],
    ),
    Case(
        "mechanics: a save on an entry whose abilities source has no saveDifficulty",
        "skirmish",
        drop(f"{C}.abilities[0].saveDifficulty"),
        [(f"{SPELLS}[1].mechanics.save", "key-conflict")],
    ),
    Case(
        "mechanics: a clause with neither dice nor flat",
        "skirmish",
        put(f"{SPELLS}[2].mechanics.plus[0]", {"type": "cold"}),
        [(f"{SPELLS}[2].mechanics.plus[0]", "missing-key")],
    ),
    Case(
        "mechanics: a clause on a heal",
        "skirmish",
        put(f"{SPELLS}[3].mechanics.plus", [{"flat": 1}]),
        [(f"{SPELLS}[3].mechanics.plus", "key-conflict")],
    ),
    Case(
        "mechanics: a clause beside no amount",
        "skirmish",
        drop(f"{SPELLS}[2].mechanics.amount"),
        [(f"{SPELLS}[2].mechanics.plus", "key-conflict")],
    ),
    Case(
        "mechanics: a standard permission for the main budget that grants nothing new",
        "skirmish",
        put(f"{SPELLS}[5].mechanics.standard", {"actions": ["dash"], "budget": "action"}),
        [(f"{SPELLS}[5].mechanics.standard", "key-conflict")],
    ),
    Case(
        "mechanics: free never beside budget",
        "skirmish",
        put(f"{SPELLS}[5].mechanics.budget", "bonus"),
        [(f"{SPELLS}[5].mechanics.free", "key-conflict")],
    ),
    Case(
        "mechanics: cancels only on aimed or used",
        "skirmish",
        put(f"{SPELLS}[4].mechanics.reaction.on", "hit"),
        [(f"{SPELLS}[4].mechanics.reaction.cancels", "key-conflict")],
    ),
    Case(
        "mechanics: applies at most 4",
        "skirmish",
        put(
            f"{SPELLS}[1].mechanics.applies",
            [{"condition": "prone", "duration": "instant"}] * 5,
        ),
        [(f"{SPELLS}[1].mechanics.applies", "too-many")],
    ),
    Case(
        "mechanics: targetCount 1-20",
        "skirmish",
        put(f"{SPELLS}[1].mechanics.targetCount", 21),
        [(f"{SPELLS}[1].mechanics.targetCount", "too-large")],
    ),
    Case(
        "mechanics: in a pool fight, damage dice of another die than the pool's",
        "vigil",
        extend(
            "catalogs[0].entries",
            [
                {
                    "id": "flare",
                    "label": "Flare",
                    "rows": [{"list": "tricks", "values": {"name": "Flare"}}],
                    "mechanics": {"kind": "attack", "amount": {"dice": "2d10"}},
                }
            ],
        ),
        [("catalogs[0].entries[2].mechanics.amount.dice", "wrong-die")],
    ),
    # -- §2.4 bestiary creatures ---------------------------------------------------------------
    Case(
        "creature: tier required",
        "skirmish",
        drop(f"{WOLF}.tier"),
        [(WOLF, "missing-key")],
    ),
    Case(
        "creature: tier a declared tier",
        "skirmish",
        put(f"{WOLF}.tier", "boss"),
        [(f"{WOLF}.tier", "unknown-id")],
    ),
    Case(
        "creature: health, defense, initiativeModifier and actions without a sheet",
        "skirmish",
        drop(f"{WOLF}.defense"),
        [(WOLF, "missing-key")],
    ),
    Case(
        "creature: health beside sheet refused",
        "skirmish",
        put(f"{CAPTAIN}.health", 30),
        [(f"{CAPTAIN}.health", "key-conflict")],
    ),
    Case(
        "creature: saves beside sheet refused",
        "skirmish",
        put(f"{CAPTAIN}.saves", {"str_save": 3}),
        [(f"{CAPTAIN}.saves", "key-conflict")],
    ),
    Case(
        "creature: health is an int 1-100000 or {dice, flat}",
        "skirmish",
        put(f"{WOLF}.health", 0),
        [(f"{WOLF}.health", "too-small")],
    ),
    Case(
        "creature: saves -50..50",
        "skirmish",
        put(f"{WOLF}.saves.dex_save", 51),
        [(f"{WOLF}.saves.dex_save", "too-large")],
    ),
    Case(
        "creature: saves name saves",
        "skirmish",
        put(f"{WOLF}.saves", {"wis_save": 1}),
        [(f"{WOLF}.saves.wis_save", "unknown-id")],
    ),
    Case(
        "creature: checks name checks",
        "skirmish",
        put(f"{WOLF}.checks", {"brawn": 1}),
        [(f"{WOLF}.checks.brawn", "unknown-id")],
    ),
    Case(
        "creature: soak in pool fights only",
        "skirmish",
        put(f"{WOLF}.soak", {"all": 1}),
        [(f"{WOLF}.soak", "not-for-fight-kind")],
    ),
    Case(
        "creature: traits at most 8",
        "skirmish",
        put(f"{WOLF}.traits", [{"name": "T", "text": "t"}] * 9),
        [(f"{WOLF}.traits", "too-many")],
    ),
    Case(
        "creature: signaturePoints 1-20",
        "skirmish",
        put(f"{WOLF}.signaturePoints", 0),
        [(f"{WOLF}.signaturePoints", "too-small")],
    ),
    Case(
        "creature: actions 1-12",
        "skirmish",
        put(f"{WOLF}.actions", []),
        [(f"{WOLF}.actions", "missing-key"), (f"{WOLF}.riders[0].actions[0]", "unknown-id")],
    ),
    Case(
        "creature: riders 1-4",
        "skirmish",
        put(f"{WOLF}.riders", []),
        [(f"{WOLF}.riders", "too-few")],
    ),
    Case(
        "creature: a rider names actions of the creature",
        "skirmish",
        put(f"{WOLF}.riders[0].actions", ["claw"]),
        [(f"{WOLF}.riders[0].actions[0]", "unknown-id")],
    ),
    Case(
        "creature: a sequence carries none of toHit, autoHit, damage, ...",
        "skirmish",
        put(f"{WOLF}.actions[2].toHit", 3),
        [(f"{WOLF}.actions[2].toHit", "key-conflict")],
    ),
    Case(
        "creature: a sequence names no sequence",
        "skirmish",
        put(f"{WOLF}.actions[2].sequence", [{"action": "maul"}]),
        [(f"{WOLF}.actions[2].sequence[0].action", "sequence-of-sequence")],
    ),
    Case(
        "creature: a sequence names actions of the creature",
        "skirmish",
        put(f"{WOLF}.actions[2].sequence", [{"action": "claw"}]),
        [(f"{WOLF}.actions[2].sequence[0].action", "unknown-id")],
    ),
    Case(
        "creature: self carries no targetCount or area",
        "skirmish",
        put(f"{WOLF}.actions[3].targetCount", 2),
        [(f"{WOLF}.actions[3].targetCount", "key-conflict")],
    ),
    Case(
        "creature: reaction no signature",
        "skirmish",
        put(f"{WOLF}.actions[3].signature", {"cost": 1}),
        [(f"{WOLF}.actions[3].signature", "key-conflict")],
    ),
    Case(
        "creature: an action's damage type is declared",
        "skirmish",
        put(f"{WOLF}.actions[0].damage.type", "acid"),
        [(f"{WOLF}.actions[0].damage.type", "unknown-id")],
    ),
    Case(
        "creature: resist names declared damage types",
        "skirmish",
        put(f"{WOLF}.resist", ["acid"]),
        [(f"{WOLF}.resist[0]", "unknown-id")],
    ),
    Case(
        "creature: an unknown key is refused",
        "skirmish",
        put(f"{WOLF}.armour", 3),
        [(f"{WOLF}.armour", "unknown-key")],
    ),
    # -- battle (§1) --------------------------------------------------------------------------
    Case(
        "battle: every name it holds exists (a live pool)",
        "skirmish",
        put("battle.energy.pool", "mana"),
        [("battle.energy.pool", "unknown-id")],
    ),
    Case(
        "battle: every name it holds exists (a wound track)",
        "skirmish",
        put("battle.health", {"track": "fatigue"}),
        [("battle.health.track", "not-wound-track")],
    ),
    Case(
        "battle: every name it holds exists (a list, a boolean column)",
        "skirmish",
        put("battle.skills[0].onlyWhen", "level"),
        [("battle.skills[0].onlyWhen", "wrong-column-type")],
    ),
    Case(
        "battle: slots at most 12, levels 1-9",
        "skirmish",
        put("battle.slots[0].level", 10),
        [("battle.slots[0].level", "too-large")],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_one_change_makes_exactly_these_problems(case: Case) -> None:
    doc = start(case.start)
    compile_ruleset(copy.deepcopy(doc), capability_api="1.70")  # the starting point is valid
    case.edit(doc)
    problems = _problems(doc)
    got = sorted((p.where, p.code) for p in problems)
    assert got == sorted(case.expect), "\n".join(str(p) for p in problems)
    for problem in problems:
        assert problem.message.endswith((".", "?")), problem
    if case.says:
        first = next(p for p in problems if (p.where, p.code) == case.expect[0])
        assert case.says in first.message, first.message


def test_a_symbol_pool_fight_is_refused_beside_every_kind() -> None:
    # §1: "refused wherever it appears", beside a symbol pool as beside a d20.
    doc = start("skirmish")
    doc["combat"] = {"kind": "symbol-pool", "anything": "of its own"}
    problems = _problems(doc)
    assert [(p.where, p.code) for p in problems] == [("combat.kind", "not-allowed")]


def test_a_fight_beside_dice_highest_is_refused_whole_and_not_read() -> None:
    doc = start("skirmish")
    doc["resolution"] = {
        "kind": "dice-highest",
        "abilityModifier": {"op": "identity"},
        "proficiencyTiers": [{"id": "untrained", "label": "Untrained"}],
        "pool": {"die": 6, "min": 1, "max": 6},
        "difficultyLadder": [{"label": "Risky", "position": "risky"}],
    }
    doc["combat"]["unknown"] = 1  # inside a refused block nothing more is said
    problems = [(p.where, p.code) for p in _problems(doc) if p.where.startswith("combat")]
    assert problems == [("combat", "combat-not-allowed")]
