"""The compiled ruleset: immutable values made once at import from a valid file.

Play only ever meets these, never raw JSON, so it never meets an invalid ruleset.
Key names follow the file (snake case here); ``raw`` keeps the block as written where
a later stage (teaching the Game Master, unplayed blocks) needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from dicebound.folding import normalize
from dicebound.ruleset.combat import Battle, Combat
from dicebound.ruleset.reference import ValueRef, ValueSource
from dicebound.values import field, frozen

__all__ = [
    "Ability",
    "AbilityModifier",
    "Adjust",
    "Catalog",
    "CatalogEntry",
    "Condition",
    "CostTerm",
    "Derived",
    "Field",
    "Gm",
    "HideWhen",
    "LadderStep",
    "Layer",
    "ListColumn",
    "ListDecl",
    "ListPools",
    "LivePool",
    "LiveState",
    "Resolution",
    "Rest",
    "RestStep",
    "Rounding",
    "Ruleset",
    "Section",
    "Sheet",
    "SkillDef",
    "Tier",
    "Track",
    "TrackKind",
    "TrackLevel",
    "Untrained",
    "ValueRef",
    "ValueSource",
]

Rounding = Literal["down", "up", "nearest"]


@frozen
class AbilityModifier:
    op: Literal["identity", "floorHalfMinusTen", "stepTable"]
    table: tuple[tuple[float, float], ...] = ()


@frozen
class Tier:
    id: str
    label: str
    multiplier: float = 0
    round: Rounding = "down"
    flat: int = 0


@frozen
class Untrained:
    """What an untrained skill or save does: ``normal``, ``harder``, ``refuse`` or ``by``."""

    rule: Literal["normal", "harder", "refuse", "by"]
    by: int = 0


@frozen
class Section:
    id: str
    label: str
    untrained: Untrained | None = None


@frozen
class Ability:
    id: str
    label: str
    short: str | None
    min: int
    max: int
    default: int
    section: str | None = None


@frozen
class SkillDef:
    """A skill or a save (``group`` says which). ``untrained`` is already resolved
    against its section: the item's own rule, else its section's, else None."""

    id: str
    label: str
    group: Literal["skill", "save"]
    ability: str | None = None
    cap: ValueRef | None = None
    section: str | None = None
    untrained: Untrained | None = None


@frozen
class Field:
    id: str
    label: str
    type: Literal["number", "text", "longtext", "boolean", "enum", "dice"]
    min: float | None = None
    max: float | None = None
    default: object = None
    integer: bool = True
    values: tuple[str, ...] = ()
    max_length: int | None = None


@frozen
class Derived:
    """A derived value. ``of`` for sum/min/max (scale has one), ``source`` for
    stepTable/enumTable; ``enum_from`` is ``("field"|"liveState", id)`` for enumTable."""

    id: str
    label: str
    op: Literal["sum", "min", "max", "scale", "stepTable", "enumTable"]
    of: tuple[ValueRef, ...] = ()
    source: ValueRef | None = None
    multiplier: float = 1
    round: Rounding = "down"
    table: tuple[tuple[float, float], ...] = ()
    enum_from: tuple[Literal["field", "liveState"], str] | None = None
    enum_table: Mapping[str, float] = field(default_factory=dict)
    default: float = 0


@frozen
class HideWhen:
    """``hideWhen``: the item is hidden while the field's effective value passes ``test``.
    ``in`` (hidden when the value is one of ``values``) wins over ``notEquals`` (hidden when
    it differs from ``values[0]``), which wins over ``equals`` (hidden when it is
    ``values[0]``), as docs/design/format.md "hideWhen" says."""

    field: str
    test: Literal["in", "notEquals", "equals"]
    values: tuple[object, ...]


@frozen
class ListColumn:
    id: str
    label: str
    type: Literal["number", "text", "longtext", "boolean", "enum", "dice"]
    required: bool = False
    min: float | None = None
    max: float | None = None
    values: tuple[str, ...] = ()
    max_length: int | None = None
    default: object = None  # what a row without this cell reads (listSum, extra, row pools)
    integer: bool = True  # a number column holds whole numbers unless it says otherwise


@frozen
class ListPools:
    name_column: str
    max_column: str
    recharge_column: str | None = None


@frozen
class ListDecl:
    id: str
    label: str
    max_items: int
    columns: tuple[ListColumn, ...]
    pools: ListPools | None = None
    hide_when: HideWhen | None = None


@frozen
class LivePool:
    id: str
    label: str
    max: ValueRef
    allow_temp: bool = False
    group: str | None = None
    start: Literal["full", "empty"] = "full"
    hide_when: HideWhen | None = None


@frozen
class TrackLevel:
    label: str
    penalty: int


@frozen
class TrackKind:
    id: str
    label: str
    severity: int


@frozen
class Track:
    """A live track; with ``kinds`` and ``levels`` or ``boxes`` it is a wound track."""

    id: str
    label: str
    min: int
    max: ValueRef  # a bare integer max compiles to a const ref
    default: int | None = None
    levels: tuple[TrackLevel, ...] = ()
    kinds: tuple[TrackKind, ...] = ()
    boxes_by: Literal["filled", "remaining"] | None = None
    boxes_table: tuple[tuple[float, float], ...] = ()
    fill: Literal["sequential", "indexed"] = "sequential"
    on_full: Literal["upgrade", "refuse"] = "upgrade"
    extra: tuple[str, str, str] | None = None  # (list, countColumn, penaltyColumn)
    hide_when: HideWhen | None = None

    @property
    def is_wound_track(self) -> bool:
        return bool(self.kinds) and (bool(self.levels) or self.boxes_by is not None)


@frozen
class Condition:
    id: str
    label: str


@frozen
class LiveState:
    id: str
    label: str
    values: tuple[str, ...]
    default: str
    value_labels: Mapping[str, str] = field(default_factory=dict)
    hide_when: HideWhen | None = None


@frozen
class Sheet:
    version: int
    sections: tuple[Section, ...] = ()
    abilities: tuple[Ability, ...] = ()
    skills: tuple[SkillDef, ...] = ()
    saves: tuple[SkillDef, ...] = ()
    skill_tiers: tuple[str, ...] = ()
    save_tiers: tuple[str, ...] = ()
    bonus_min: int = -20
    bonus_max: int = 40
    fields: tuple[Field, ...] = ()
    derived: tuple[Derived, ...] = ()
    lists: tuple[ListDecl, ...] = ()
    pools: tuple[LivePool, ...] = ()
    tracks: tuple[Track, ...] = ()
    text: tuple[tuple[str, str, int], ...] = ()  # (id, label, maxLength)
    conditions: tuple[Condition, ...] = ()
    states: tuple[LiveState, ...] = ()
    # each id's first declaration, by kind: every check reads a few, a sheet has dozens
    by_id: Mapping[tuple[str, str], Ability | SkillDef | Derived] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        index: dict[tuple[str, str], Ability | SkillDef | Derived] = {}
        for kind, declared in (
            ("ability", self.abilities),
            ("skill", self.skills),
            ("save", self.saves),
            ("derived", self.derived),
        ):
            for decl in declared:
                index.setdefault((kind, decl.id), decl)
        object.__setattr__(self, "by_id", index)

    def ability(self, ability_id: str) -> Ability | None:
        found = self.by_id.get(("ability", ability_id))
        return found if isinstance(found, Ability) else None

    def skill(self, skill_id: str) -> SkillDef | None:
        found = self.by_id.get(("skill", skill_id))
        return found if isinstance(found, SkillDef) else None

    def save(self, save_id: str) -> SkillDef | None:
        found = self.by_id.get(("save", save_id))
        return found if isinstance(found, SkillDef) else None

    def derived_value(self, derived_id: str) -> Derived | None:
        found = self.by_id.get(("derived", derived_id))
        return found if isinstance(found, Derived) else None


@frozen
class RestStep:
    """One ``restore`` step of a rest: a target (``on`` says which kind of thing ``id``
    names) moved ``to`` a value or ``by`` a constant or a fraction of its maximum."""

    on: Literal["pool", "poolGroup", "listPools", "track", "state"]
    id: str
    recharge: tuple[str, ...] | None = None  # listPools only: the recharge values taken
    kind: str | None = None  # track only: the wound kind healed
    to: int | str | None = None  # "max", "min", a number; on a state "default" or a value
    by_const: int | None = None
    by_fraction: float | None = None  # in (0, 1]
    round: Rounding = "down"
    by_min: int = 0


@frozen
class Rest:
    """A named rest (``rests``): its steps in order, then what it clears."""

    id: str
    label: str
    restore: tuple[RestStep, ...] = ()
    clear_text: tuple[str, ...] = ()
    clear_conditions: Literal["all"] | tuple[str, ...] = ()


@frozen
class Adjust:
    value: ValueRef
    abilities: tuple[str, ...] = ()  # empty: every check


@frozen
class LadderStep:
    """One difficulty step. A sum reads ``dc``; a pool ``successes`` and ``target``;
    roll-against ``dc`` and ``divide``. ``raw`` keeps the step as written. ``key`` is
    the label folded (``dicebound.folding.normalize``, derived): what a ``difficulty=``
    is compared with, folded once rather than at every check."""

    label: str
    dc: int | None = None
    successes: int | None = None
    target: int | None = None
    divide: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)
    key: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", normalize(self.label))


@frozen
class Resolution:
    """The resolution block. ``config`` is the kind's own compiled config (its module
    defines the type); ``raw`` is the block as written."""

    kind: str
    ability_modifier: AbilityModifier
    tiers: tuple[Tier, ...]
    ladder: tuple[LadderStep, ...]
    config: Any
    proficiency_bonus: ValueRef | None = None
    penalty_from: str | None = None
    adjust: tuple[Adjust, ...] = ()
    outcomes: Any = None  # bands.Bands, when the block declares outcome bands
    overrides: tuple[Any, ...] = ()  # overrides.Override, in the file's order
    raw: Mapping[str, Any] = field(default_factory=dict)


@frozen
class CostTerm:
    pool: str  # a live pool id or a pool group
    amount: int


@frozen
class CatalogEntry:
    id: str
    label: str
    kind: str | None = None
    cost: tuple[CostTerm, ...] = ()
    per_cost_step: Mapping[str, Any] | None = None
    check: Mapping[str, Any] | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)


@frozen
class Catalog:
    id: str
    label: str
    holds: Literal["rows", "creatures", "items"] = "rows"
    entries: tuple[CatalogEntry, ...] = ()
    asset: str | None = None


@frozen
class Gm:
    check_guidance: str
    sheet_guidance: str | None = None
    world_guidance: str | None = None
    sheet_summary: Mapping[str, Any] = field(default_factory=dict)


@frozen
class Layer:
    id: str
    label: str
    summary: str | None = None
    conflicts: tuple[str, ...] = ()
    ladder: tuple[LadderStep, ...] | None = None
    guidance: str | None = None
    world_guidance: str | None = None


@frozen
class Ruleset:
    """A ruleset that passed import. Immutable; play never meets an invalid one."""

    id: str
    version: int
    name: str
    resolution: Resolution
    sheet: Sheet
    gm: Gm
    catalogs: tuple[Catalog, ...] = ()
    layers: tuple[Layer, ...] = ()
    rests: tuple[Rest, ...] = ()
    edition: str | None = None
    coverage: Mapping[str, Any] = field(default_factory=dict)
    not_played: tuple[str, ...] = ()  # top-level blocks accepted and kept, not played
    combat: Combat | None = None
    """The compiled ``combat`` block (what a fight reads of the catalogs inside it)."""
    battle: Battle | None = None
    """``battle``, validated and kept; dicebound plays no Classic fight."""
    raw: Mapping[str, Any] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)
    """Work derived from this ruleset alone (name indexes, prepared checks), kept so a
    second check does not redo it. Never changes what any call returns."""

    def layer(self, layer_id: str) -> Layer | None:
        return next((layer for layer in self.layers if layer.id == layer_id), None)
