"""The parts of the ``combat`` block that name what a character fights with: attack
and ability sources, contests and their checks, concentration, dying, damage kinds,
threat tiers and spend limits (FIGHTS §2.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from dicebound.ruleset.reference import ValueRef
from dicebound.values import field, frozen

__all__ = [
    "AbilitySource",
    "AttackSource",
    "CheckDef",
    "Concentration",
    "Contest",
    "DamageKinds",
    "Dying",
    "Measure",
    "SpendLimit",
    "ThreatTier",
]


@frozen
class Measure:
    """A distance read off a row's ``column`` or written as ``const`` (inert)."""

    column: str | None = None
    const: float | None = None


@frozen
class AttackSource:
    """A list whose rows are attacks: which columns hold the name, the to-hit parts
    and the damage parts (each a column id, or None where the key is left out)."""

    list: str
    budget: str
    name: str
    damage_dice: str
    to_hit_ability: str | None = None
    to_hit_skill: str | None = None
    to_hit_proficiency: str | None = None
    to_hit_bonus: str | None = None
    damage_ability: str | None = None
    damage_bonus: str | None = None
    damage_type: str | None = None
    strikes: ValueRef | None = None
    strikes_capped_by: str | None = None
    reach: Measure | None = None
    range_normal: Measure | None = None
    range_long: Measure | None = None


@frozen
class AbilitySource:
    """A list whose rows, picked from a catalog, are abilities used in a fight."""

    list: str
    budget: str
    only_when: str | None = None
    always_when: tuple[str, object] | None = None  # (column, equals)
    to_hit: ValueRef | None = None
    save_difficulty: ValueRef | None = None


@frozen
class CheckDef:
    """A number a contest reads."""

    id: str
    label: str
    value: ValueRef


@frozen
class Contest:
    """Both sides throw and add their best check; the winner's side gets ``on_win``."""

    id: str
    label: str
    budget: str
    attacker: tuple[str, ...]
    defender: tuple[str, ...]
    ties: Literal["defender", "attacker"] = "defender"
    strike: bool = False
    reach: float | None = None
    holding: str | None = None
    applies: tuple[tuple[str, int | None], ...] = ()  # (condition, rounds)
    ends: tuple[tuple[str, Literal["actor", "target"]], ...] = ()
    push: float | None = None


@frozen
class Concentration:
    text: str
    save: str
    floor: int
    from_damage: float


@frozen
class Dying:
    """Death saves: ``count`` dice of ``sides``, succeeding at ``succeed_at`` or more,
    kept on two live tracks."""

    successes: str
    failures: str
    count: int
    sides: int
    succeed_at: int
    natural_max: Literal["revive-1", "success", "none"] = "none"
    natural_min: Literal["two-failures", "one-failure", "none"] = "none"
    damage_while_down: Literal["one-failure", "two-failures", "none"] = "none"
    critical_while_down: Literal["one-failure", "two-failures", "none"] = "none"
    condition: str | None = None


@frozen
class DamageKinds:
    """Which kind of wound each damage type marks on a wound track."""

    default: str
    marks: Literal["per-blow", "per-point"]
    by_type: Mapping[str, str] = field(default_factory=dict)


@frozen
class ThreatTier:
    """A rung of opposition: the ranges a proposed opponent is clamped into."""

    id: str
    label: str
    health: tuple[int, int]
    defense: int
    to_hit: int
    damage_per_round: tuple[int, int]
    save_difficulty: int


@frozen
class SpendLimit:
    pool: str
    max: ValueRef
    per: Literal["turn", "round"]
