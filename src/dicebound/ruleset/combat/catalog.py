"""What a fight reads of catalogs: an entry's fight mechanics (FIGHTS §2.3) and a
bestiary creature (FIGHTS §2.4), every number as the file wrote it or its default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from dicebound.ruleset.reference import ValueRef
from dicebound.values import field, frozen

__all__ = [
    "Amount",
    "Applied",
    "Creature",
    "CreatureAction",
    "DamageClause",
    "Duration",
    "FightMechanics",
    "Reaction",
    "Resistance",
    "Rider",
    "SaveClause",
]

Duration = Literal["instant", "until-save"] | int


@frozen
class Amount:
    """Dice thrown (``"2d6"``, or None) and a flat number added."""

    dice: str | None = None
    flat: int = 0


@frozen
class SaveClause:
    """A save the target makes; ``difficulty`` None reads the source's own."""

    save: str
    on_success: Literal["none", "half", "negates"]
    difficulty: int | None = None


@frozen
class DamageClause:
    """A further part of a blow (``plus[]``): its amount, type and its own save."""

    amount: Amount
    type: str | None = None
    save: SaveClause | None = None


@frozen
class Applied:
    """A condition a blow or a use puts on: for ``duration`` rounds (an int), until a
    save ends it, or only for the instant."""

    condition: str
    duration: Duration
    at_turn_start: bool = False
    save_ends: tuple[str, Literal["turn-end", "turn-start"]] | None = None
    ends_after: Literal["own-attack", "attacked", "own-save"] | None = None


@frozen
class Reaction:
    """When an entry or action answers out of turn: ``on`` what, aimed ``at`` whom."""

    on: Literal["aimed", "hit", "harmed", "used"]
    at: Literal["source", "chosen"] = "source"
    cancels: bool = False
    against: tuple[str, ...] = ()


@frozen
class Rider:
    """Extra harm on a hit, once per turn or round."""

    amount: Amount
    once_per: Literal["turn", "round"]
    when: tuple[str, ...] = ()
    type: str | None = None
    sources: tuple[str, ...] = ()  # attack lists (an entry's rider)
    requires: str | None = None  # a boolean column (an entry's rider)
    id: str | None = None  # a creature's rider
    name: str | None = None
    actions: tuple[str, ...] = ()  # a creature's rider: the actions it rides on


@frozen
class FightMechanics:
    """What one catalog entry does in a fight; inert keys (range, area, friendly fire)
    are kept as written and change nothing."""

    kind: str
    targets: Literal["self", "ally", "enemy", "any"] | None = None
    target_count: int = 1
    auto_hit: bool = False
    attack_roll: bool = False
    amount: Amount | None = None
    damage_type: str | None = None
    plus: tuple[DamageClause, ...] = ()
    save: SaveClause | None = None
    applies: tuple[Applied, ...] = ()
    temporary: Amount | None = None
    scales_from: ValueRef | None = None
    scales_table: tuple[tuple[float, float], ...] = ()
    budget: str | None = None
    free: bool = False
    gives: tuple[tuple[str, int], ...] = ()
    standard: tuple[tuple[str, ...], str] | None = None
    rider: Rider | None = None
    concentration: bool = False
    reaction: Reaction | None = None
    plain_reaction: bool = False  # ``reaction: true``: kept, and never offered as an option
    range: float | None = None
    area: Mapping[str, object] | None = None
    friendly_fire: bool = False


@frozen
class Resistance:
    """A damage type resisted or ignored, unless the blow carries one of ``unless``."""

    type: str
    unless: tuple[str, ...] = ()


@frozen
class CreatureAction:
    """One thing a creature can do on its turn (or out of it, ``reaction``)."""

    id: str
    name: str
    budget: str
    to_hit: int | None = None
    auto_hit: bool = False
    damage: Amount | None = None
    damage_type: str | None = None
    plus: tuple[DamageClause, ...] = ()
    save: SaveClause | None = None
    save_difficulty: int | None = None
    applies: tuple[Applied, ...] = ()
    target_count: int = 1
    uses: tuple[Literal["encounter", "day"], int] | None = None
    recharge: tuple[int, int, int] | None = None  # (count, sides, from)
    sequence: tuple[tuple[str, int], ...] = ()
    signature_cost: int | None = None
    reaction: Reaction | None = None
    self_only: bool = False
    reach: float | None = None
    range: tuple[float, float | None] | None = None
    area: Mapping[str, object] | None = None


@frozen
class Creature:
    """A bestiary entry as a fight reads it. A creature written as a ``sheet`` keeps it
    (``sheet``) and takes its numbers from it at the start; otherwise its ``health``
    (a number, or dice and a flat part), ``defense`` and ``initiative_modifier`` are
    its own. ``actions`` keeps only those whose budget the economy declares."""

    catalog: str
    entry: str
    label: str
    tier: str
    health: int | tuple[str, int] | None = None
    defense: int | None = None
    initiative_modifier: int | None = None
    speed: float | None = None
    abilities: Mapping[str, int] = field(default_factory=dict)
    saves: Mapping[str, int] = field(default_factory=dict)
    checks: Mapping[str, int] = field(default_factory=dict)
    soak_all: int = 0
    soak_by_kind: Mapping[str, int] = field(default_factory=dict)
    hardness: int = 0
    resist: tuple[Resistance, ...] = ()
    immune: tuple[Resistance, ...] = ()
    vulnerable: tuple[str, ...] = ()
    condition_immunities: tuple[str, ...] = ()
    traits: tuple[tuple[str, str], ...] = ()
    signature_points: int = 0
    actions: tuple[CreatureAction, ...] = ()
    riders: tuple[Rider, ...] = ()
    sheet: Mapping[str, object] | None = None
    loot: str | None = None
