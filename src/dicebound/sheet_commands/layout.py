"""What a build gives a character's live sheet: names matched as NAME-EQ, the hidden
rule, and the layout (which pools, tracks, texts and states the sheet shows, with their
bounds), kept per build on the ruleset. ``sheet_commands.current`` reads and changes a
live state on this layout."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Literal, Protocol, TypeVar

from dicebound.ruleset.model import (
    Condition,
    HideWhen,
    LiveState,
    Ruleset,
    Track,
    TrackKind,
    TrackLevel,
)
from dicebound.sheet import (
    MAX_WOUND_RUNGS,
    Build,
    Character,
    SheetView,
    field_default,
    frozen_map,
)
from dicebound.values import field, frozen

__all__ = [
    "MAX_NUMBER",
    "MAX_POOLS",
    "LayoutNames",
    "PoolSpec",
    "SheetLayout",
    "StateSpec",
    "TextSpec",
    "TrackSpec",
    "clamp",
    "effective_field_value",
    "fold",
    "is_hidden",
    "keep_per",
    "kept_per",
    "name_eq",
    "sheet_layout",
]

MAX_NUMBER = 1_000_000
"""Every stored number, pool maximum and temporary buffer stays within this (+/-)."""
MAX_POOLS = 600
"""The most pools one sheet has, and the most pool entries a stored record keeps."""
_LAYOUTS = "sheet_commands layouts"
_KEPT = 256
"""The most owners one ``kept_per`` table holds before it starts again."""
Owner = TypeVar("Owner")
Made = TypeVar("Made")


def name_eq(a: str, b: str) -> bool:
    """NAME-EQ: how a written name matches an id or a label. Trimmed and lowercased,
    then equal; no accent, punctuation or partial matching."""
    return a.strip().lower() == b.strip().lower()


def fold(name: str) -> str:
    """What NAME-EQ compares of a name: ``name_eq(a, b)`` is ``fold(a) == fold(b)``."""
    return name.strip().lower()


# ── The hidden rule ──────────────────────────────────────────────────────────


def effective_field_value(ruleset: Ruleset, build: Build, field_id: str) -> object:
    """What a ``hideWhen`` reads: an enum field's stored value if the field still offers
    it, else its declared default, else its first value; any other field's stored value,
    else its blank-sheet default. A field the ruleset does not declare reads None."""
    decl = next((f for f in ruleset.sheet.fields if f.id == field_id), None)
    stored = build.fields.get(field_id)
    if decl is None:
        return stored
    if decl.type == "enum":
        if isinstance(stored, str) and stored in decl.values:
            return stored
        if decl.default is not None:
            return decl.default
        return decl.values[0] if decl.values else None
    return stored if stored is not None else field_default(ruleset, field_id)


def _same(a: object, b: object) -> bool:
    """JSON equality: a boolean is never a number (true is not 1), 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return a == b


def is_hidden(ruleset: Ruleset, build: Build, hide: HideWhen | None) -> bool:
    """Whether an item's ``hideWhen`` hides it on this build: ``in`` hides while the
    field's effective value is one of the values, ``notEquals`` while it differs from the
    value, ``equals`` while it is the value."""
    if hide is None:
        return False
    value = effective_field_value(ruleset, build, hide.field)
    if hide.test == "in":
        return value is not None and any(_same(value, v) for v in hide.values)
    wanted = hide.values[0] if hide.values else None
    if hide.test == "notEquals":
        return not _same(value, wanted)
    return _same(value, wanted)


# ── The layout: what a build gives the live sheet ────────────────────────────


@frozen
class PoolSpec:
    """One pool this build has: a declared pool (``list`` None) or a list row's
    (``list`` its list id, key ``<list id>:<lowercased name>``, label the row's name)."""

    key: str
    label: str
    max: int
    allow_temp: bool = False
    group: str | None = None
    start: Literal["full", "empty"] = "full"
    list: str | None = None
    recharge: str | None = None
    catalog: str | None = None

    @property
    def is_row(self) -> bool:
        return self.list is not None

    @property
    def start_value(self) -> int:
        """What an untouched pool holds: its maximum, or 0 when it starts empty."""
        return self.max if self.start == "full" else 0


@frozen
class TrackSpec:
    """One visible track: its range and where it starts; a wound track carries this
    build's ``levels`` (its length is their count) and its declaration's kinds."""

    id: str
    label: str
    min: int
    max: int
    start: int
    decl: Track
    levels: tuple[TrackLevel, ...] = ()

    @property
    def is_wound(self) -> bool:
        return self.decl.is_wound_track

    @property
    def numbered(self) -> bool:
        """Boxes, not named levels: a box's label is only its number."""
        return self.decl.boxes_by is not None

    def kind_named(self, name: str) -> TrackKind | None:
        """The kind whose id or label is NAME-EQ to ``name``."""
        return next(
            (k for k in self.decl.kinds if name_eq(k.id, name) or name_eq(k.label, name)), None
        )


@frozen
class TextSpec:
    id: str
    label: str
    max_length: int


@frozen
class StateSpec:
    """One visible live state; ``default`` is its declared default when that is one of
    its values, else its first value."""

    id: str
    label: str
    values: tuple[str, ...]
    default: str
    value_labels: Mapping[str, str]

    def value_label(self, value: str) -> str:
        return self.value_labels.get(value, value)


@frozen
class SheetLayout:
    """Everything of the live sheet one build decides, in sheet order, and the names
    each thing answers to, folded for NAME-EQ (made with the layout, once per build)."""

    pools: tuple[PoolSpec, ...]
    tracks: tuple[TrackSpec, ...]
    text: tuple[TextSpec, ...]
    conditions: tuple[Condition, ...]
    states: tuple[StateSpec, ...]
    pool_by_key: Mapping[str, PoolSpec]
    names: LayoutNames = field(repr=False, compare=False)

    def track_named(self, name: str) -> TrackSpec | None:
        """The visible track whose id or label is NAME-EQ to ``name``."""
        return self.names.tracks.get(fold(name))

    def condition_named(self, name: str) -> Condition | None:
        return self.names.conditions.get(fold(name))

    def state_named(self, name: str) -> StateSpec | None:
        return self.names.states.get(fold(name))

    def text_named(self, name: str) -> TextSpec | None:
        return self.names.text.get(fold(name))

    def pools_named(self, name: str) -> tuple[PoolSpec, ...]:
        """Every pool, in sheet order, whose key or label is NAME-EQ to ``name``."""
        return self.names.pools.get(fold(name), ())


class _Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def label(self) -> str: ...


Named = TypeVar("Named", bound=_Named)


@frozen
class LayoutNames:
    """A layout's things by every name they answer to, folded (``fold``): each name to
    the first thing in sheet order whose id or label folds to it, so a look-up is what
    scanning them with ``name_eq`` finds; pools to all of them, in sheet order."""

    pools: Mapping[str, tuple[PoolSpec, ...]]
    tracks: Mapping[str, TrackSpec]
    text: Mapping[str, TextSpec]
    conditions: Mapping[str, Condition]
    states: Mapping[str, StateSpec]
    places: Mapping[str, Mapping[str, tuple[int, ...]]] = field(default_factory=dict)
    """Per stored member (``pools``, ``tracks``, ``wounds``, ...), each id to where the
    values it holds stand in that member's readings (``_READERS``): pools, plain tracks,
    wound tracks, text fields, conditions and states in sheet order. A command's
    changes read only the ids it wrote, in this order."""
    whats: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    """Per stored member, the ``SheetChange.what`` names of the values each place reads
    (``pool <key>`` and ``temp <key>`` for a pool, one name for anything else)."""


def _places(things: Iterable[str | None]) -> dict[str, tuple[int, ...]]:
    """Each id to its places among ``things`` (ids in sheet order, None where the
    member reads nothing; one place unless the sheet repeats the id)."""
    places: dict[str, tuple[int, ...]] = {}
    for place, thing in enumerate(things):
        if thing is not None:
            places[thing] = (*places.get(thing, ()), place)
    return places


def _first_named(things: Iterable[Named]) -> Mapping[str, Named]:
    index: dict[str, Named] = {}
    for thing in things:
        index.setdefault(fold(thing.id), thing)
        index.setdefault(fold(thing.label), thing)
    return frozen_map(index)


def _layout_names(
    pools: Iterable[PoolSpec],
    tracks: Iterable[TrackSpec],
    text: Iterable[TextSpec],
    conditions: Iterable[Condition],
    states: Iterable[StateSpec],
) -> LayoutNames:
    pools, tracks, text = tuple(pools), tuple(tracks), tuple(text)
    conditions, states = tuple(conditions), tuple(states)
    named: dict[str, list[PoolSpec]] = {}
    for pool in pools:
        for name in dict.fromkeys((fold(pool.key), fold(pool.label))):
            named.setdefault(name, []).append(pool)
    return LayoutNames(
        pools=frozen_map((name, tuple(found)) for name, found in named.items()),
        tracks=_first_named(tracks),
        text=_first_named(text),
        conditions=_first_named(conditions),
        states=_first_named(states),
        places={
            "pools": _places(p.key for p in pools),
            "tracks": _places(None if t.is_wound else t.id for t in tracks),
            "wounds": _places(t.id if t.is_wound else None for t in tracks),
            "text": _places(t.id for t in text),
            "conditions": _places(c.id for c in conditions),
            "states": _places(st.id for st in states),
        },
        whats={
            "pools": tuple((f"pool {p.key}", f"temp {p.key}") for p in pools),
            "tracks": tuple((f"track {t.id}",) for t in tracks),
            "wounds": tuple((f"wounds {t.id}",) for t in tracks),
            "text": tuple((f"text {t.id}",) for t in text),
            "conditions": tuple((f"condition {c.id}",) for c in conditions),
            "states": tuple((f"state {st.id}",) for st in states),
        },
    )


def kept_per(ruleset: Ruleset, table: str, owner: Owner, make: Callable[[Owner], Made]) -> Made:
    """``make(owner)``, worked out once per owner (the very same value, not an equal
    one) and kept on ``ruleset.memo`` in ``table``, which holds at most 256 owners. The
    owner is held beside its answer, so its id is not reused meanwhile."""
    kept: dict[int, tuple[Owner, Made]] | None = ruleset.memo.get(table)
    hit = None if kept is None else kept.get(id(owner))
    if hit is not None and hit[0] is owner:
        return hit[1]
    made = make(owner)
    keep_per(ruleset, table, owner, made)
    return made


def keep_per(ruleset: Ruleset, table: str, owner: Owner, made: Made) -> None:
    """Keep ``made`` as ``kept_per``'s answer for ``owner`` in ``table``, when it was
    worked out another way (the table as bounded as ``kept_per`` keeps it)."""
    kept: dict[int, tuple[Owner, Made]] | None = ruleset.memo.get(table)
    if kept is None:
        kept = ruleset.memo[table] = {}
    if len(kept) >= _KEPT:
        kept.clear()
    kept[id(owner)] = (owner, made)


def sheet_layout(ruleset: Ruleset, build: Build) -> SheetLayout:
    """The layout of ``build``'s live sheet, made once per build and kept on the ruleset."""
    return kept_per(ruleset, _LAYOUTS, build, lambda b: _make_layout(ruleset, b))


def _make_layout(ruleset: Ruleset, build: Build) -> SheetLayout:
    sheet = ruleset.sheet
    view = SheetView(ruleset, Character("", build))
    pools: list[PoolSpec] = []
    for pool in sheet.pools:
        if is_hidden(ruleset, build, pool.hide_when):
            continue
        top = min(view.pool_max(pool.id), MAX_NUMBER)
        if top > 0:
            pools.append(
                PoolSpec(pool.id, pool.label, top, pool.allow_temp, pool.group, pool.start)
            )
    visible_lists = {
        decl.id
        for decl in sheet.lists
        if decl.pools is not None and not is_hidden(ruleset, build, decl.hide_when)
    }
    for row in view.row_pools():  # first row of a name wins; lists in definition order
        if len(pools) >= MAX_POOLS:
            break
        if row.list in visible_lists:
            pools.append(
                PoolSpec(
                    row.key,
                    row.label,
                    min(row.max, MAX_NUMBER),
                    list=row.list,
                    recharge=row.recharge,
                    catalog=row.catalog,
                )
            )
    tracks = tuple(
        _track_spec(ruleset, build, view, track)
        for track in sheet.tracks
        if not is_hidden(ruleset, build, track.hide_when)
    )
    states = tuple(
        _state_spec(state)
        for state in sheet.states
        if not is_hidden(ruleset, build, state.hide_when)
    )
    text = tuple(TextSpec(tid, label, cap) for tid, label, cap in sheet.text)
    return SheetLayout(
        pools=tuple(pools),
        tracks=tracks,
        text=text,
        conditions=sheet.conditions,
        states=states,
        pool_by_key=frozen_map((p.key, p) for p in pools),
        names=_layout_names(pools, tracks, text, sheet.conditions, states),
    )


def _track_spec(ruleset: Ruleset, build: Build, view: SheetView, track: Track) -> TrackSpec:
    if track.is_wound_track:
        levels = _wound_levels(ruleset, build, view, track)
        return TrackSpec(track.id, track.label, 0, len(levels), 0, track, levels)
    top = max(track.min, min(view.track_max(track.id), MAX_NUMBER))
    start = track.min if track.default is None else track.default
    return TrackSpec(track.id, track.label, track.min, top, clamp(start, track.min, top), track)


def _wound_levels(
    ruleset: Ruleset, build: Build, view: SheetView, track: Track
) -> tuple[TrackLevel, ...]:
    """This build's levels of a wound track: SheetView's, except that an ``extra`` list
    the sheet hides adds none."""
    if track.extra is not None:
        decl = next((lst for lst in ruleset.sheet.lists if lst.id == track.extra[0]), None)
        if decl is None or is_hidden(ruleset, build, decl.hide_when):
            return track.levels[:MAX_WOUND_RUNGS]
    return view.wound_rungs(track.id)


def _state_spec(state: LiveState) -> StateSpec:
    default = state.default if state.default in state.values else state.values[0]
    return StateSpec(state.id, state.label, state.values, default, state.value_labels)


def clamp(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)
