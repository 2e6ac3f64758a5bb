"""The compiled ``combat`` block (FIGHTS §2.1): every key a fight plays, with its
default applied, and the inert ones kept as written.

Numbers read off a character are kept as the ruleset's value references
(``ValueRef``), read at the fight's start; everything else is plain numbers and ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from dicebound.ruleset.combat.catalog import Creature, FightMechanics
from dicebound.ruleset.combat.effects import ConditionRule, LevelRule
from dicebound.ruleset.combat.sources import (
    AbilitySource,
    AttackSource,
    CheckDef,
    Concentration,
    Contest,
    DamageKinds,
    Dying,
    SpendLimit,
    ThreatTier,
)
from dicebound.ruleset.reference import ValueRef
from dicebound.values import field, frozen

__all__ = [
    "AttackRoll",
    "Battle",
    "Budget",
    "Combat",
    "Crash",
    "Dice",
    "Health",
    "Initiative",
    "InitiativeResource",
    "PoolRules",
    "ResourceStyle",
]


@frozen
class Dice:
    """``count`` dice of ``sides`` faces."""

    count: int
    sides: int


@frozen
class Health:
    """What a blow takes off a party member: a live pool, or a wound track."""

    kind: Literal["pool", "track"]
    name: str


@frozen
class ResourceStyle:
    """A way to act when initiative is a resource: ``gain`` points taken, or the
    ``on_miss`` step table of what a missed throw costs."""

    id: str
    label: str
    gain: int | None = None
    on_miss: tuple[tuple[float, float], ...] | None = None


@frozen
class Crash:
    """What befalls a combatant whose initiative falls to ``at`` or below."""

    at: int = 0
    condition: str | None = None
    bonus: int = 0
    recover_after: int | None = None


@frozen
class InitiativeResource:
    base: int
    styles: tuple[ResourceStyle, ...]
    crash: Crash | None = None


@frozen
class Initiative:
    """Thrown ``dice`` plus ``modifier``, or a pool of ``pool`` dice plus ``plus``;
    thrown once a fight or every round."""

    dice: Dice | None = None
    modifier: ValueRef | None = None
    pool: ValueRef | None = None
    plus: int = 0
    each: Literal["fight", "round"] = "fight"
    resource: InitiativeResource | None = None


@frozen
class AttackRoll:
    """The throw of an attack against a defense."""

    dice: Dice
    advantage: bool = False
    natural_max: Literal["critical", "hit", "none"] = "none"
    natural_min: Literal["miss", "none"] = "none"
    critical: Literal["double-dice", "max-dice", "none"] = "none"


@frozen
class PoolRules:
    """A dice-pool fight's own rules: damage thrown against ``damage_target`` (None:
    the pool's own target), soak and hardness read at the start."""

    advantage: bool = False
    damage_target: int | None = None
    soak_roll: bool = False
    soak_all: ValueRef | None = None
    soak_by_kind: Mapping[str, ValueRef] = field(default_factory=dict)
    hardness: ValueRef | None = None


@frozen
class Budget:
    """One kind of action a combatant may take ``count`` times a turn or a round."""

    id: str
    label: str
    per: Literal["turn", "round"]
    count: int = 1


@frozen
class Battle:
    """``battle``: validated and kept, never played (a Classic fight's numbers)."""

    health: Health
    energy: str | None = None
    slots: tuple[tuple[str, int], ...] = ()
    skills: tuple[str, ...] = ()


@frozen
class Combat:
    """A ruleset's fight. ``budgets[0]`` is the main budget. ``inert`` keeps the keys
    that need a board (movement, distance, ranged, cover, opportunity) as written.
    ``creatures`` and ``mechanics`` are what the fight reads of the catalogs, by
    ``(catalog id, entry id)``."""

    kind: Literal["attack-vs-defense", "dice-pool"]
    health: Health
    defense: ValueRef
    initiative: Initiative
    budgets: tuple[Budget, ...]
    attack_roll: AttackRoll | None = None
    pool: PoolRules | None = None
    off_hand: tuple[str, Literal["full", "penalty-only"]] | None = None
    attacks: tuple[AttackSource, ...] = ()
    abilities: tuple[AbilitySource, ...] = ()
    standard: tuple[str, ...] = ()
    dodge_saves: tuple[str, ...] = ()
    conditions: tuple[ConditionRule, ...] = ()
    levels: tuple[LevelRule, ...] = ()
    checks: tuple[CheckDef, ...] = ()
    contests: tuple[Contest, ...] = ()
    concentration: Concentration | None = None
    dying: Dying | None = None
    damage_types: tuple[str, ...] = ()
    damage_kinds: DamageKinds | None = None
    tiers: tuple[ThreatTier, ...] = ()
    spend_limits: tuple[SpendLimit, ...] = ()
    inert: Mapping[str, object] = field(default_factory=dict)
    creatures: Mapping[tuple[str, str], Creature] = field(default_factory=dict)
    mechanics: Mapping[tuple[str, str], FightMechanics] = field(default_factory=dict)

    @property
    def main_budget(self) -> Budget:
        return self.budgets[0]

    @property
    def played(self) -> bool:
        """Whether dicebound plays this fight: every fight but one whose initiative is a
        resource or that reads hardness (those are refused at the start, in words)."""
        hard = any(c.hardness for c in self.creatures.values())
        hard = hard or (self.pool is not None and self.pool.hardness is not None)
        return self.initiative.resource is None and not hard

    def budget(self, ident: str) -> Budget | None:
        return next((b for b in self.budgets if b.id == ident), None)

    def condition(self, ident: str) -> ConditionRule | None:
        return next((c for c in self.conditions if c.condition == ident), None)

    def tier(self, ident: str) -> ThreatTier | None:
        return next((t for t in self.tiers if t.id == ident), None)
