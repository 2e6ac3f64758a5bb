"""A character as play reads it, and the sheet math every kind shares.

A ``Character`` is a validated build (Marinara's ``{v, build}`` envelope, blanks filled
with the ruleset's defaults) plus its sparse live state (docs/design/format.md
"Characters"). ``load_character``
in ``dicebound.character`` makes one from JSON; nothing here reads files.

``SheetView(ruleset, character)`` answers every number the sheet yields: value
references, derived values, ability modifiers, tiers, the check number of a skill, a save
or an ability, ``adjust``, the ``penaltyFrom`` penalty, pool and track maxima and values.
The arithmetic is exact (``Fraction``); a number a check uses is a whole number, and the
rounding that makes it one is written beside the function that does it:

- ``scale`` and tiers round as the ruleset says: ``down`` is floor, ``up`` is ceiling,
  ``nearest`` rounds a half up, toward +infinity (2.5 is 3, -2.5 is -2), as Marinara does.
- A check number that is not whole is rounded down (floor). For a summed check this is
  exactly what comparing the unrounded total with a whole dc does.
- A ``cap`` is rounded down before it holds the number; ``adjust`` entries are added
  exactly and the total is rounded toward zero, so half a point never becomes a die.
- A pool's or a track's maximum is rounded down.

Readings where the documents are silent:

- A ``field`` reference reads a number field's value, a boolean field as 1 or 0, and any
  other field (text, enum, dice) as 0.
- ``skillMod`` and ``saveMod`` read the finished check number (rounded, capped).
- A list row without a cell reads its column's default; a number column without one
  reads 0, a boolean column without one is false.
- ``extra`` rows of a wound track add rungs where their penalty belongs: each row's
  ``countColumn`` rungs (0-16) at its ``penaltyColumn`` penalty go right after the last
  rung whose penalty is as good, so the track stays ordered lightest first (Gravewatch's
  scar at -1 sits after Winded, before Bleeding). A track has at most 64 rungs.
- A wound track's ``value`` and ``filled`` read are the boxes marked; ``remaining`` is
  the rungs (or boxes) left. A plain track's ``penalty`` read is 0.
"""

from __future__ import annotations

import math
from collections.abc import (
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from fractions import Fraction
from typing import Literal, NamedTuple, cast

from dicebound.errors import UsageError
from dicebound.frozen_map import FrozenMap, empty_map, frozen_map
from dicebound.problem_codes import BAD_AMOUNT, INSUFFICIENT, UNKNOWN_POOL
from dicebound.problems import did_you_mean
from dicebound.ruleset.model import (
    ListDecl,
    LivePool,
    Ruleset,
    SkillDef,
    Tier,
    Track,
    TrackLevel,
    ValueRef,
)
from dicebound.sheet_arithmetic import (
    ability_modifier,
    exact,
    round_number,
    step_table,
    untrained_rule,
)
from dicebound.values import field, frozen, new_tuple

__all__ = [
    "MAX_EXTRA_PER_ROW",
    "MAX_WOUND_RUNGS",
    "Build",
    "Change",
    "Character",
    "CheckNumber",
    "FrozenMap",
    "Live",
    "Paid",
    "PaymentRefused",
    "PoolValue",
    "Row",
    "RowPool",
    "Scalar",
    "SheetView",
    "Wounds",
    "ability_modifier",
    "blank_build",
    "exact",
    "field_default",
    "frozen_map",
    "pay",
    "round_number",
    "step_table",
]

Scalar = int | float | str | bool
Group = Literal["skill", "save", "ability"]
_Work = Callable[[], object]

MAX_WOUND_RUNGS = 64
"""The most rungs (or boxes) one wound track comes to on one sheet."""
MAX_EXTRA_PER_ROW = 16
"""The most rungs one ``extra`` list row adds."""


# ── The character ─────────────────────────────────────────────────────────────


@frozen
class Row:
    """One list row: its cells (column defaults filled in) and its ``_catalog`` mark."""

    cells: Mapping[str, Scalar]
    catalog: str | None = None


@frozen
class Build:
    """The starting sheet. Every ability and field is present (defaults filled in);
    ``skills``, ``saves`` and ``bonuses`` hold only what the file set."""

    version: int
    abilities: Mapping[str, int]
    skills: Mapping[str, str]
    saves: Mapping[str, str]
    bonuses: Mapping[str, int]
    fields: Mapping[str, Scalar]
    lists: Mapping[str, tuple[Row, ...]]


@frozen
class PoolValue:
    value: int
    temp: int = 0


@frozen
class Wounds:
    """The marks on a wound track: kind ids, most severe first on a sequential track;
    on an indexed track ``marks[i]`` is box i and ``""`` a clear box."""

    marks: tuple[str, ...] = ()
    overflow: int = 0

    @property
    def filled(self) -> int:
        return sum(1 for mark in self.marks if mark)


@frozen
class Live:
    """Sparse live state: only what differs from its default is present."""

    pools: Mapping[str, PoolValue] = field(default_factory=empty_map)
    tracks: Mapping[str, int] = field(default_factory=empty_map)
    wounds: Mapping[str, Wounds] = field(default_factory=empty_map)
    text: Mapping[str, str] = field(default_factory=empty_map)
    conditions: tuple[str, ...] = ()
    states: Mapping[str, str] = field(default_factory=empty_map)


@frozen
class Character:
    """One party member. Immutable; a change makes a new one."""

    name: str
    build: Build
    live: Live = field(default_factory=Live)


def field_default(ruleset: Ruleset, field_id: str) -> Scalar:
    """What a field holds on a blank build: its default, else a number field's 0 held to
    its range, false, the first enum value, or empty text."""
    decl = next(f for f in ruleset.sheet.fields if f.id == field_id)
    default = decl.default
    if isinstance(default, bool | int | float | str):
        return default
    if decl.type == "number":
        low = 0 if decl.min is None else decl.min
        high = low if decl.max is None else decl.max
        value = min(max(0, low), high)
        return int(value) if float(value).is_integer() else value
    if decl.type == "boolean":
        return False
    if decl.type == "enum":
        return decl.values[0] if decl.values else ""
    return ""


def blank_build(ruleset: Ruleset) -> Build:
    """The build of a character with no sheet: every ability and field at its default."""
    sheet = ruleset.sheet
    return Build(
        version=sheet.version,
        abilities=frozen_map((a.id, a.default) for a in sheet.abilities),
        skills=frozen_map(),
        saves=frozen_map(),
        bonuses=frozen_map(),
        fields=frozen_map((f.id, field_default(ruleset, f.id)) for f in sheet.fields),
        lists=frozen_map(),
    )


_ZERO = Fraction(0)


# ── Check numbers ─────────────────────────────────────────────────────────────


class CheckNumber(NamedTuple):
    """The sheet's number for one check and the parts it was made of (for the record
    and the card). ``number`` is whole: the parts added exactly, held to the cap, then
    rounded down. ``untrained_rule`` is the rule in force: ``normal`` unless the skill or
    save sits at the first tier; the engine refuses ``refuse`` and makes ``harder``
    harder, while ``by`` is already in ``number``. A named tuple: a character's first
    question makes one, and it is the cheapest immutable value to make."""

    group: Group
    id: str
    number: int
    ability: str | None
    ability_mod: Fraction
    second_ability: str | None = None
    second_ability_mod: Fraction = Fraction(0)
    tier: str | None = None
    tier_bonus: int = 0
    bonus: int = 0
    untrained: bool = False
    untrained_rule: Literal["normal", "harder", "refuse", "by"] = "normal"
    untrained_by: int = 0
    uncapped: Fraction = Fraction(0)
    cap: int | None = None
    swapped: bool = False  # with= put another ability in place of the item's own

    @property
    def capped(self) -> bool:
        """Whether the cap lowered the number."""
        return self.cap is not None and self.uncapped > self.cap

    @property
    def abilities(self) -> tuple[str, ...]:
        """The abilities the check rolls with, which ``adjust`` reads."""
        first, second = self.ability, self.second_ability
        if second is None:
            return () if first is None else (first,)
        return (second,) if first is None else (first, second)


@frozen
class RowPool:
    """A list row that is a resource (``lists[].pools``): keyed ``<list>:<name lower-cased>``."""

    key: str
    label: str
    list: str
    max: int
    recharge: str | None = None
    catalog: str | None = None  # the row's _catalog mark: the entry that wrote this counter


class SheetView:
    """Every number one character's sheet yields under one ruleset.

    Read-only: it never changes the character. It remembers what it worked out, so a
    view belongs to one (ruleset, character) pair; make a new one after a change.
    ``memo`` is where it remembers: the numbers earlier views of this very character
    under this ruleset worked out, shared with them (a character is an immutable value,
    so its numbers never change).
    An id the ruleset does not declare is a ``UsageError`` (a compiled ruleset and a
    loaded character never lead to one).
    """

    __slots__ = ("_busy", "_memo", "character", "ruleset")

    def __init__(
        self,
        ruleset: Ruleset,
        character: Character,
        memo: dict[tuple[str, str], object] | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.character = character
        self._memo: dict[tuple[str, str], object] = {} if memo is None else memo
        self._busy: set[tuple[str, str]] | None = None  # made when a number is first worked

    # -- memo: each number is worked out once; a loop is a malformed ruleset ---------

    def _once(self, key: tuple[str, str], work: _Work) -> object:
        if key in self._memo:
            return self._memo[key]
        busy = self._busy
        if busy is None:
            busy = self._busy = set()
        if key in busy:
            raise UsageError(f'The {key[0]} "{key[1]}" reads itself, so it has no value.')
        busy.add(key)
        try:
            value = work()
        finally:
            busy.discard(key)
        self._memo[key] = value
        return value

    # -- the build -------------------------------------------------------------------

    def ability_score(self, ability_id: str) -> int:
        if self.ruleset.sheet.ability(ability_id) is None:
            raise _unknown("ability", ability_id, [a.id for a in self.ruleset.sheet.abilities])
        return self.character.build.abilities[ability_id]

    def ability_mod(self, ability_id: str) -> Fraction:
        """The score after ``resolution.abilityModifier``."""
        return ability_modifier(
            self.ruleset.resolution.ability_modifier, self.ability_score(ability_id)
        )

    def field_value(self, field_id: str) -> Scalar:
        fields = self.character.build.fields
        if field_id not in fields:
            raise _unknown("field", field_id, [f.id for f in self.ruleset.sheet.fields])
        return fields[field_id]

    def field_number(self, field_id: str) -> Fraction:
        """A ``field`` reference: a number field's value, a boolean as 1 or 0, else 0."""
        value = self.field_value(field_id)
        if isinstance(value, int | float):  # a bool is an int: 1 or 0
            return exact(value)
        return _ZERO

    def proficiency_bonus(self) -> Fraction:
        """What tier multipliers scale: ``resolution.proficiency.bonus``, or 0 without one.
        Not kept apart: a derived value or a check number keeps itself, and any other
        reference is read at once."""
        ref = self.ruleset.resolution.proficiency_bonus
        return _ZERO if ref is None else self.value(ref)

    def _item(self, group: Literal["skill", "save"], item_id: str) -> SkillDef:
        sheet = self.ruleset.sheet
        item = sheet.skill(item_id) if group == "skill" else sheet.save(item_id)
        if item is None:
            items = sheet.skills if group == "skill" else sheet.saves
            raise _unknown(group, item_id, [s.id for s in items])
        return item

    def tier_of(self, group: Literal["skill", "save"], item_id: str) -> Tier:
        """The skill's or save's tier: the build's, else the first tier (untrained)."""
        self._item(group, item_id)
        return self._stored_tier(group, item_id)

    def _stored_tier(self, group: Literal["skill", "save"], item_id: str) -> Tier:
        """``tier_of`` an item known to the ruleset."""
        tiers = self.ruleset.resolution.tiers
        stored = (
            self.character.build.skills if group == "skill" else self.character.build.saves
        ).get(item_id)
        for tier in tiers:  # a handful: a loop, no generator made
            if tier.id == stored:
                return tier
        return tiers[0]

    def tier_bonus(self, tier: Tier) -> int:
        """round(multiplier x proficiency bonus) + flat, rounded as the tier says."""
        multiplier = exact(tier.multiplier)
        bonus = self.proficiency_bonus()
        if multiplier.denominator == 1 and bonus.denominator == 1:  # whole: no rounding
            return multiplier.numerator * bonus.numerator + tier.flat
        return round_number(multiplier * bonus, tier.round) + tier.flat

    def is_untrained(self, group: Literal["skill", "save"], item_id: str) -> bool:
        """Untrained means at the first tier of ``proficiencyTiers``."""
        return self._first_tier(self.tier_of(group, item_id))

    def _first_tier(self, tier: Tier) -> bool:
        return tier.id == self.ruleset.resolution.tiers[0].id

    def untrained_rule(
        self, group: Literal["skill", "save"], item_id: str
    ) -> tuple[Literal["normal", "harder", "refuse", "by"], int]:
        """The rule an untrained check on this item follows (its own, else its section's,
        else ``normal``) and its ``by``; whether it applies is ``is_untrained``."""
        return untrained_rule(self._item(group, item_id))

    def derived(self, derived_id: str) -> Fraction:
        memo_key = ("derived value", derived_id)
        known = self._memo.get(memo_key)  # worked out already: read at once, no work made
        if known is not None:
            return cast(Fraction, known)
        decl = self.ruleset.sheet.derived_value(derived_id)
        if decl is None:
            raise _unknown("derived value", derived_id, [d.id for d in self.ruleset.sheet.derived])

        def work() -> Fraction:
            if decl.op == "sum":
                return sum((self.value(ref) for ref in decl.of), Fraction(0))
            if decl.op == "min":
                return min(self.value(ref) for ref in decl.of)
            if decl.op == "max":
                return max(self.value(ref) for ref in decl.of)
            if decl.op == "scale":
                ref = decl.of[0] if decl.of else decl.source
                if ref is None:
                    raise UsageError(f'The derived value "{decl.id}" scales nothing.')
                return Fraction(round_number(self.value(ref) * exact(decl.multiplier), decl.round))
            if decl.op == "stepTable":
                if decl.source is None:
                    raise UsageError(f'The derived value "{decl.id}" has no "from".')
                return step_table(decl.table, self.value(decl.source))
            if decl.enum_from is None:
                raise UsageError(f'The derived value "{decl.id}" has no "from".')
            where, name = decl.enum_from
            key = self.field_value(name) if where == "field" else self.state_value(name)
            if isinstance(key, str) and key in decl.enum_table:
                return exact(decl.enum_table[key])
            return exact(decl.default)

        return self._fraction(memo_key, work)

    def list_rows(self, list_id: str) -> tuple[Row, ...]:
        self._list(list_id)
        return self.character.build.lists.get(list_id, ())

    def _list(self, list_id: str) -> ListDecl:
        decl = next((lst for lst in self.ruleset.sheet.lists if lst.id == list_id), None)
        if decl is None:
            raise _unknown("list", list_id, [lst.id for lst in self.ruleset.sheet.lists])
        return decl

    def list_sum(self, list_id: str, column: str, only_when: str | None = None) -> Fraction:
        """A number column added up over the rows (only rows whose boolean ``only_when``
        column is true, when one is named)."""
        total = Fraction(0)
        for row in self.list_rows(list_id):
            if only_when is not None and row.cells.get(only_when) is not True:
                continue
            total += _cell_number(row, column)
        return total

    # -- value references ------------------------------------------------------------

    def value(self, ref: ValueRef) -> Fraction:
        """What one value reference reads off this sheet, exactly."""
        name = ref.name or ""
        source = ref.source
        if source == "const":
            return exact(ref.value)
        if source == "field":
            return self.field_number(name)
        if source == "derived":
            return self.derived(name)
        if source == "abilityScore":
            return Fraction(self.ability_score(name))
        if source == "abilityMod":
            return self.ability_mod(name)
        if source == "abilityModFromField":
            chosen = self.field_value(name)
            if isinstance(chosen, str) and self.ruleset.sheet.ability(chosen) is not None:
                return self.ability_mod(chosen)
            return _ZERO
        if source == "skillMod":
            return Fraction(self.check_number("skill", name).number)
        if source == "saveMod":
            return Fraction(self.check_number("save", name).number)
        if source == "liveTrack":
            return Fraction(self.track_read(name, ref.read))
        if source == "livePool":
            return Fraction(self.pool_value(name))
        if source == "listSum":
            if ref.column is None:
                raise UsageError(f'The listSum over "{name}" names no column.')
            return self.list_sum(name, ref.column, ref.only_when)
        # itemStat: dicebound characters carry no inventory, so a stat reads its default.
        return exact(ref.value)

    def _fraction(self, key: tuple[str, str], work: _Work) -> Fraction:
        value = self._once(key, work)
        assert type(value) is Fraction or isinstance(value, Fraction)  # the first is quicker
        return value

    # -- check numbers ---------------------------------------------------------------

    def check_number(
        self, group: Group, item_id: str, with_ability: str | None = None
    ) -> CheckNumber:
        """The sheet's number for a check.

        A skill or save: abilityMod(its ability, or ``with_ability`` in its place) + its
        tier + ``bonuses[id]`` + the untrained ``by`` when at the first tier, held to at
        most ``cap``, rounded down. An ability check: abilityMod, plus ``with_ability``'s
        when the caller asks for two abilities together (``pool.abilityPlusAbility``).
        """
        if with_ability is not None:
            self.ability_score(with_ability)  # refuse an unknown id
        if group == "ability":
            mod = self.ability_mod(item_id)
            second = self.ability_mod(with_ability) if with_ability is not None else _ZERO
            total = mod + second
            return CheckNumber(
                group="ability",
                id=item_id,
                number=math.floor(total),
                ability=item_id,
                ability_mod=mod,
                second_ability=with_ability,
                second_ability_mod=second,
                uncapped=total,
            )
        key = (f"{group} check", f"{item_id}|{with_ability or ''}")
        value = self._memo.get(key)  # worked out already: the usual case, read at once
        if value is None:
            value = self._once(key, lambda: self._item_check(group, item_id, with_ability))
        assert isinstance(value, CheckNumber)
        return value

    def _item_check(
        self, group: Literal["skill", "save"], item_id: str, with_ability: str | None
    ) -> CheckNumber:
        item = self._item(group, item_id)
        ability = with_ability if with_ability is not None else item.ability
        mod = self.ability_mod(ability) if ability is not None else _ZERO
        tier = self._stored_tier(group, item_id)
        tier_bonus = self.tier_bonus(tier)
        bonus = self.character.build.bonuses.get(item_id, 0)
        untrained = self._first_tier(tier)
        rule, by = untrained_rule(item) if untrained else ("normal", 0)
        whole = tier_bonus + bonus + by  # the whole parts added first, as ints
        if mod.denominator == 1:  # a whole modifier (the usual): no Fraction arithmetic
            number = mod.numerator + whole
            uncapped = exact(number)
        else:
            uncapped = mod + whole
            number = math.floor(uncapped)
        cap = math.floor(self.value(item.cap)) if item.cap is not None else None
        if cap is not None:  # the floor of the lesser is the lesser floor, cap being whole
            number = min(number, cap)
        swapped = with_ability is not None and with_ability != item.ability
        parts = (number, ability, mod, None, _ZERO, tier.id, tier_bonus, bonus, untrained)
        made = (group, item_id, *parts, rule, by, uncapped, cap, swapped)  # field order
        return new_tuple(CheckNumber, made)  # type: ignore[no-any-return]

    def adjust_for(self, abilities: Iterable[str]) -> int:
        """``resolution.adjust`` on a check rolled with ``abilities``: every entry without
        ``abilities``, and every entry listing one of them (once, however many it lists),
        added exactly and rounded toward zero."""
        if not self.ruleset.resolution.adjust:
            return 0
        rolling = set(abilities)
        total = Fraction(0)
        for entry in self.ruleset.resolution.adjust:
            if not entry.abilities or rolling.intersection(entry.abilities):
                total += self.value(entry.value)
        return math.trunc(total)

    def penalty(self) -> int:
        """The ``penaltyFrom`` track's current penalty (0 or less); 0 without one."""
        track_id = self.ruleset.resolution.penalty_from
        return 0 if track_id is None else self.track_penalty(track_id)

    # -- live pools ------------------------------------------------------------------

    def _pool(self, pool_id: str) -> LivePool | None:
        return next((p for p in self.ruleset.sheet.pools if p.id == pool_id), None)

    def row_pools(self) -> tuple[RowPool, ...]:
        """One pool per named row of every list with ``pools`` whose maximum is above 0;
        two rows under one name are one pool, the first row's."""

        def work() -> tuple[RowPool, ...]:
            found: dict[str, RowPool] = {}
            for decl in self.ruleset.sheet.lists:
                if decl.pools is None:
                    continue
                for row in self.character.build.lists.get(decl.id, ()):
                    name = row.cells.get(decl.pools.name_column)
                    label = name.strip() if isinstance(name, str) else ""
                    top = math.floor(_cell_number(row, decl.pools.max_column))
                    key = f"{decl.id}:{label.lower()}"
                    if not label or top <= 0 or key in found:
                        continue
                    recharge = (
                        row.cells.get(decl.pools.recharge_column)
                        if decl.pools.recharge_column
                        else None
                    )
                    found[key] = RowPool(
                        key=key,
                        label=label,
                        list=decl.id,
                        max=top,
                        recharge=recharge if isinstance(recharge, str) and recharge else None,
                        catalog=row.catalog,
                    )
            return tuple(found.values())

        value = self._once(("row pools", ""), work)
        assert isinstance(value, tuple)
        return value

    def pool_keys(self) -> tuple[str, ...]:
        """Every pool this character has: the declared ones, then the list rows'."""
        return tuple(p.id for p in self.ruleset.sheet.pools) + tuple(
            p.key for p in self.row_pools()
        )

    def _row_pool(self, key: str) -> RowPool:
        found = next((p for p in self.row_pools() if p.key == key), None)
        if found is None:
            raise _unknown("pool", key, self.pool_keys())
        return found

    def pool_max(self, key: str) -> int:
        """A pool's maximum: its ``max`` rounded down (never below 0), or a row's column."""
        pool = self._pool(key)
        if pool is None:
            return self._row_pool(key).max
        return self._int(("pool maximum", key), lambda: max(0, math.floor(self.value(pool.max))))

    def pool_start(self, key: str) -> int:
        """What an untouched pool holds: its maximum, or 0 for ``start: "empty"``."""
        pool = self._pool(key)
        if pool is not None and pool.start == "empty":
            return 0
        return self.pool_max(key)

    def pool_value(self, key: str) -> int:
        """The pool's current value: the live value, else where it starts."""
        stored = self.character.live.pools.get(key)
        start = self.pool_start(key)
        return start if stored is None else stored.value

    def pool_temp(self, key: str) -> int:
        self.pool_max(key)
        stored = self.character.live.pools.get(key)
        return 0 if stored is None else stored.temp

    def pool_label(self, key: str) -> str:
        pool = self._pool(key)
        return pool.label if pool is not None else self._row_pool(key).label

    # -- live tracks -----------------------------------------------------------------

    def _track(self, track_id: str) -> Track:
        track = next((t for t in self.ruleset.sheet.tracks if t.id == track_id), None)
        if track is None:
            raise _unknown("track", track_id, [t.id for t in self.ruleset.sheet.tracks])
        return track

    def _int(self, key: tuple[str, str], work: _Work) -> int:
        value = self._once(key, work)
        assert isinstance(value, int)
        return value

    def track_min(self, track_id: str) -> int:
        return 0 if self._track(track_id).is_wound_track else self._track(track_id).min

    def track_max(self, track_id: str) -> int:
        """A plain track's ``max`` rounded down (never below its min); a wound track's
        number of rungs or boxes."""
        track = self._track(track_id)
        if track.is_wound_track:
            return len(self.wound_rungs(track_id))
        return self._int(
            ("track maximum", track_id),
            lambda: max(track.min, math.floor(self.value(track.max))),
        )

    def track_value(self, track_id: str) -> int:
        """Where the track stands: a plain track's live number, else its default (else its
        min) held to its range; a wound track's boxes marked."""
        track = self._track(track_id)
        if track.is_wound_track:
            return self.wounds(track_id).filled
        stored = self.character.live.tracks.get(track_id)
        if stored is not None:
            return stored
        start = track.min if track.default is None else track.default
        return min(max(start, track.min), self.track_max(track_id))

    def track_read(
        self, track_id: str, read: Literal["value", "filled", "remaining", "penalty"]
    ) -> int:
        """A ``liveTrack`` reference: value, filled (above min), remaining (below max), penalty."""
        if read == "penalty":
            return self.track_penalty(track_id)
        value = self.track_value(track_id)
        if read == "filled":
            return value - self.track_min(track_id)
        if read == "remaining":
            return self.track_max(track_id) - value
        return value

    def wounds(self, track_id: str) -> Wounds:
        self._track(track_id)
        return self.character.live.wounds.get(track_id, Wounds())

    def wound_rungs(self, track_id: str) -> tuple[TrackLevel, ...]:
        """This character's rungs of a wound track, lightest first: the declared levels
        with the ``extra`` rows' rungs placed by penalty, or the numbered boxes (each
        labelled by its number, carrying the penalty in force when it is the last marked)."""
        track = self._track(track_id)
        if not track.is_wound_track:
            return ()

        def work() -> tuple[TrackLevel, ...]:
            if track.boxes_by is not None:
                count = min(max(math.floor(self.value(track.max)), 0), MAX_WOUND_RUNGS)
                return tuple(
                    TrackLevel(
                        str(i + 1),
                        math.floor(
                            step_table(
                                track.boxes_table,
                                Fraction(i + 1 if track.boxes_by == "filled" else count - i - 1),
                            )
                        ),
                    )
                    for i in range(count)
                )
            rungs = list(track.levels)
            if track.extra is not None:
                list_id, count_column, penalty_column = track.extra
                for row in self.list_rows(list_id):
                    count = min(
                        max(math.floor(_cell_number(row, count_column)), 0), MAX_EXTRA_PER_ROW
                    )
                    worth = _cell_number(row, penalty_column)
                    penalty = min(max(round_number(worth, "nearest"), -1000), 0)
                    after = max(
                        (i for i, rung in enumerate(rungs) if rung.penalty >= penalty), default=-1
                    )
                    label = (
                        rungs[after].label
                        if after >= 0 and rungs[after].penalty == penalty
                        else str(penalty)
                    )
                    rungs[after + 1 : after + 1] = [TrackLevel(label, penalty)] * count
                    if len(rungs) >= MAX_WOUND_RUNGS:
                        break
            return tuple(rungs[:MAX_WOUND_RUNGS])

        value = self._once(("wound rungs", track_id), work)
        assert isinstance(value, tuple)
        return value

    def track_penalty(self, track_id: str) -> int:
        """The penalty a track puts on checks (0 or less). Levels: the penalty of the worst
        (last) marked rung, not a sum. Boxes: the table read at the boxes filled or
        remaining. A plain track: 0. Worked out once per view, as every number is."""
        key = ("track penalty", track_id)
        known = self._memo.get(key)
        if known is not None:
            assert isinstance(known, int)
            return known
        track = self._track(track_id)
        if not track.is_wound_track:
            return 0

        def work() -> int:
            rungs = self.wound_rungs(track_id)
            marks = self.wounds(track_id).marks[: len(rungs)]
            if track.boxes_by is not None:
                filled = sum(1 for mark in marks if mark)
                at = filled if track.boxes_by == "filled" else len(rungs) - filled
                return min(0, math.floor(step_table(track.boxes_table, Fraction(at))))
            worst = max((i for i, mark in enumerate(marks) if mark), default=-1)
            return min(0, rungs[worst].penalty) if worst >= 0 else 0

        return self._int(key, work)

    # -- states and conditions ---------------------------------------------------------

    def state_value(self, state_id: str) -> str:
        state = next((s for s in self.ruleset.sheet.states if s.id == state_id), None)
        if state is None:
            raise _unknown("state", state_id, [s.id for s in self.ruleset.sheet.states])
        return self.character.live.states.get(state_id, state.default)

    def has_condition(self, condition_id: str) -> bool:
        if not any(c.id == condition_id for c in self.ruleset.sheet.conditions):
            raise _unknown("condition", condition_id, [c.id for c in self.ruleset.sheet.conditions])
        return condition_id in self.character.live.conditions


def _cell_number(row: Row, column: str) -> Fraction:
    value = row.cells.get(column)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return exact(value)
    return _ZERO


def _unknown(what: str, name: str, known: Iterable[str]) -> UsageError:
    return UsageError(f'"{name}" is not a {what} of this ruleset.{did_you_mean(name, known)}')


# ── Paying from pools ─────────────────────────────────────────────────────────


@frozen
class Change:
    """One live-state delta a check made: a pool of one character went from ``from_`` to ``to``."""

    who: str
    pool: str
    from_: int
    to: int

    def to_json(self) -> dict[str, str | int]:
        return {"who": self.who, "pool": self.pool, "from": self.from_, "to": self.to}


@frozen
class Paid:
    """A payment made: the character after it, and what changed, in payment order."""

    character: Character
    changes: tuple[Change, ...]


@frozen
class PaymentRefused:
    """A payment not made (nothing was paid). ``reason`` is a stable code:
    ``UNKNOWN_POOL``, ``BAD_AMOUNT`` or ``INSUFFICIENT`` of ``problem_codes``."""

    reason: str
    message: str


def pay(
    ruleset: Ruleset, character: Character, costs: Sequence[tuple[str, int]]
) -> Paid | PaymentRefused:
    """Pay every ``(pool key, amount)`` from the pools' values, all or nothing.

    Terms are paid in order, so two terms on one pool both come out of it. A term naming
    no pool, an amount below 1, or a pool that cannot cover its term refuses the whole
    payment and nothing changes. The character given is never changed.
    """
    view = SheetView(ruleset, character)
    keys = view.pool_keys()
    values: dict[str, int] = {}
    changes: list[Change] = []
    for key, amount in costs:
        if key not in keys:
            return PaymentRefused(
                UNKNOWN_POOL,
                f'"{key}" is not a pool of {character.name}.{did_you_mean(key, keys)}',
            )
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
            return PaymentRefused(
                BAD_AMOUNT, f"{amount} is not an amount to pay: pay a whole number of at least 1."
            )
        before = values.get(key, view.pool_value(key))
        if before < amount:
            return PaymentRefused(
                INSUFFICIENT,
                f"{view.pool_label(key)} holds {before}, less than the {amount} to pay.",
            )
        values[key] = before - amount
        changes.append(Change(character.name, key, before, before - amount))
    pools = dict(character.live.pools)
    for key, value in values.items():
        temp = pools[key].temp if key in pools else 0
        if value == view.pool_start(key) and temp == 0:
            pools.pop(key, None)  # back at its default: live state stays sparse
        else:
            pools[key] = PoolValue(value, temp)
    live = Live(
        pools=frozen_map(pools),
        tracks=character.live.tracks,
        wounds=character.live.wounds,
        text=character.live.text,
        conditions=character.live.conditions,
        states=character.live.states,
    )
    return Paid(Character(character.name, character.build, live), tuple(changes))
