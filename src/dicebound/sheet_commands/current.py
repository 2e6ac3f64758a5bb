"""What one character's live sheet currently has, and the working copy commands change.

Three layers, cheapest first (docs/design/sheet-commands.md "The live sheet"):

- ``SheetLayout``: what the build gives the live sheet: which pools, tracks, text
  fields, conditions and states it has (``hideWhen`` applied, zero-maximum pools left
  out, rows of visible pool lists, at most 600 pools), with their maxima and defaults.
  It depends only on the ruleset and the build (a maximum never reads live state), so it
  is made once per build and kept in ``ruleset.memo``.
- ``WorkingSheet``: the stored record, read tolerantly, that one command changes
  through ``set_*``; each setter keeps the record sparse. Reading a value resolves it
  against the layout (clamped, defaulted), so a later step sees an earlier one's result.
- ``current_sheet``: a frozen snapshot of every value as the sheet reads it, which
  ``changes_between`` compares.

Stored entries for ids the layout does not show (a hidden pool, a condition the ruleset
no longer declares) are kept and carried through every write: hiding a pool must not
refill it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, Protocol, TypeVar

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
    Live,
    PoolValue,
    SheetView,
    Wounds,
    field_default,
    frozen_map,
)
from dicebound.sheet_commands.model import JsonValue, SheetChange
from dicebound.sheet_commands.wounds import WoundTrack, read_wounds, stored_wounds
from dicebound.values import field, frozen

__all__ = [
    "MAX_CONDITIONS",
    "MAX_NUMBER",
    "MAX_POOLS",
    "CurrentCondition",
    "CurrentPool",
    "CurrentSheet",
    "CurrentState",
    "CurrentText",
    "CurrentTrack",
    "LayoutNames",
    "PoolSpec",
    "SheetLayout",
    "StateSpec",
    "TextSpec",
    "TrackSpec",
    "WorkingSheet",
    "changes_between",
    "current_sheet",
    "effective_field_value",
    "fold",
    "is_hidden",
    "kept_per",
    "name_eq",
    "sheet_layout",
    "tolerant_live",
]

MAX_NUMBER = 1_000_000
"""Every stored number, pool maximum and temporary buffer stays within this (+/-)."""
MAX_POOLS = 600
"""The most pools one sheet has, and the most pool entries a stored record keeps."""
MAX_CONDITIONS = 80
"""The most condition ids a stored record keeps (and the longest one, in characters)."""
_MAX_KEY = 200
_MAX_TRACKS = 30
_MAX_TEXTS = 12
_MAX_TEXT = 500
_MAX_STATES = 30
_MAX_STATE_VALUE = 80
_MEMBERS = ("pools", "tracks", "wounds", "text", "conditions", "states")
"""The members of a stored record."""
_LAYOUTS = "sheet_commands layouts"
_READINGS = "sheet_commands live readings"
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
    return TrackSpec(track.id, track.label, track.min, top, _clamp(start, track.min, top), track)


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


def _clamp(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)


# ── Tolerant reading ─────────────────────────────────────────────────────────

T = TypeVar("T")


def _whole(value: object) -> int | None:
    """A stored integer within +/-1,000,000 (a whole float counts, as JSON's 2.0 does)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return int(value) if -MAX_NUMBER <= value <= MAX_NUMBER else None


def _read_map(raw: object, read: Callable[[object], T | None], cap: int) -> dict[str, T]:
    """The first ``cap`` entries of a stored map that read; keys over 200 characters and
    entries that break their rule are skipped."""
    out: dict[str, T] = {}
    if not raw or not isinstance(raw, Mapping):
        return out
    for key, value in raw.items():
        if len(out) >= cap:
            break
        if isinstance(key, str) and len(key) <= _MAX_KEY:
            entry = read(value)
            if entry is not None:
                out[key] = entry
    return out


def _read_pool(value: object) -> PoolValue | None:
    if isinstance(value, PoolValue):
        number, temp = _whole(value.value), _whole(value.temp)
    elif isinstance(value, Mapping) and "value" in value and not set(value) - {"value", "temp"}:
        number, temp = _whole(value["value"]), _whole(value.get("temp", 0))
    else:
        return None
    if number is None or temp is None or temp < 0:
        return None
    if isinstance(value, PoolValue):
        return value
    return PoolValue(number, temp)


def _read_wounds(value: object) -> Wounds | None:
    if isinstance(value, Wounds):
        marks: object = value.marks
        overflow = _whole(value.overflow)
    elif isinstance(value, Mapping) and "marks" in value and not set(value) - {"marks", "overflow"}:
        marks, overflow = value["marks"], _whole(value.get("overflow", 0))
    else:
        return None
    if overflow is None or overflow < 0 or not isinstance(marks, list | tuple):
        return None
    if len(marks) > MAX_WOUND_RUNGS or not all(
        isinstance(m, str) and len(m) <= _MAX_KEY for m in marks
    ):
        return None
    return value if isinstance(value, Wounds) else Wounds(tuple(marks), overflow)


def _read_string(cap: int) -> Callable[[object], str | None]:
    return lambda value: value if isinstance(value, str) and len(value) <= cap else None


_read_text = _read_string(_MAX_TEXT)
_read_state = _read_string(_MAX_STATE_VALUE)


def _read_conditions(raw: object) -> list[str]:
    if not isinstance(raw, list | tuple):
        return []
    kept = dict.fromkeys(c for c in raw if isinstance(c, str) and len(c) <= MAX_CONDITIONS)
    return list(kept)[:MAX_CONDITIONS]


def _stored_members(raw: object) -> Mapping[str, object]:
    if isinstance(raw, Live):
        return {
            "pools": raw.pools,
            "tracks": raw.tracks,
            "wounds": raw.wounds,
            "text": raw.text,
            "conditions": raw.conditions,
            "states": raw.states,
        }
    return raw if isinstance(raw, Mapping) else {}


def tolerant_live(raw: object) -> Live:
    """A stored live record read entry by entry (docs/design/sheet-commands.md "The live
    sheet"): an entry that breaks its rule is dropped and the others survive; anything
    not an object reads as empty. Takes the JSON shape or a ``Live``."""
    return _Stored(_read_live(raw)).live()


class _Reading:
    """A stored record read tolerantly: its members as plain containers, the ``Live``
    it was read from (None for the JSON shape) and the members of that ``Live`` that
    read whole (nothing dropped). Never changed once made: a working sheet copies a
    member before its first write, so one reading serves every sheet made from it."""

    __slots__ = ("conditions", "pools", "source", "states", "text", "tracks", "whole", "wounds")

    def __init__(
        self,
        source: Live | None,
        whole: frozenset[str],
        members: tuple[
            dict[str, PoolValue],
            dict[str, int],
            dict[str, Wounds],
            dict[str, str],
            list[str],
            dict[str, str],
        ],
    ) -> None:
        self.source = source
        self.whole = whole
        self.pools, self.tracks, self.wounds, self.text, self.conditions, self.states = members


_EVERY_MEMBER = frozenset(_MEMBERS)


def _read_live(raw: object) -> _Reading:
    members = _stored_members(raw)
    read = _Reading(
        raw if isinstance(raw, Live) else None,
        frozenset(),
        (
            _read_map(members.get("pools"), _read_pool, MAX_POOLS),
            _read_map(members.get("tracks"), _whole, _MAX_TRACKS),
            _read_map(members.get("wounds"), _read_wounds, _MAX_TRACKS),
            _read_map(members.get("text"), _read_text, _MAX_TEXTS),
            _read_conditions(members.get("conditions")),
            _read_map(members.get("states"), _read_state, _MAX_STATES),
        ),
    )
    if read.source is not None:
        source = read.source
        read.whole = frozenset(
            n for n in _MEMBERS if len(getattr(read, n)) == len(getattr(source, n))
        )
    return read


def _same_pool(entry: PoolValue, value: int, temp: int) -> bool:
    """Whether ``entry`` is what storing ``value`` and ``temp`` would store (whole
    numbers: a stored 2.0 is written again as 2)."""
    return _same_int(entry.value, value) and _same_int(entry.temp, temp)


def _same_int(stored: object, value: int) -> bool:
    return type(stored) is int and type(value) is int and stored == value


def _fits(key: str, member: Mapping[str, object], cap: int) -> bool:
    """Whether a tolerant reading keeps the entry ``key`` of ``member``: its key is not
    too long and the member holds no more entries than its cap."""
    return len(key) <= _MAX_KEY and len(member) <= cap


def _reading(ruleset: Ruleset, live: Live) -> _Reading:
    """``live`` read tolerantly, once per ``Live`` (kept on ``ruleset.memo`` beside the
    readings ``WorkingSheet.result`` hands over): a ``Live`` is immutable, so its reading
    never changes."""
    return kept_per(ruleset, _READINGS, live, _read_live)


class _Stored:
    """The stored record, read tolerantly, as plain containers a command may change.

    Each member starts as the reading's own container and is copied on its first write
    (``writable``), so the reading stays as it was read. ``written`` names the members a
    setter wrote. A member of a ``Live`` that read whole and was not written is handed
    back as it was, so an unchanged member stays the same object (and compares by
    identity, cheaply).

    ``exact`` stays true while every entry written is one a tolerant reading keeps as it
    is (its key, its value and its member's cap): then ``live()`` reads back as exactly
    these containers, and ``WorkingSheet`` may hand them over as that ``Live``'s reading
    and compare them with the reading it started from instead of reading both again."""

    __slots__ = (
        "base",
        "conditions",
        "exact",
        "made",
        "owned",
        "pools",
        "states",
        "text",
        "tracks",
        "wounds",
        "written",
    )

    def __init__(self, base: _Reading) -> None:
        self.written: set[str] = set()
        self.owned: set[str] = set()
        self.start(base)

    def start(self, base: _Reading) -> None:
        """Stand for ``base`` again, nothing written (a refused command's writes gone)."""
        self.base = base
        self.pools, self.tracks, self.wounds = base.pools, base.tracks, base.wounds
        self.text, self.conditions, self.states = base.text, base.conditions, base.states
        self.written.clear()
        self.owned.clear()
        self.exact = True
        self.made: Live | None = None

    def writable(self, name: str) -> Any:
        """The member ``name`` as a container of this record's own, marked written."""
        self.written.add(name)
        if name not in self.owned:
            self.owned.add(name)
            mine = getattr(self, name)
            setattr(self, name, list(mine) if name == "conditions" else dict(mine))
        return getattr(self, name)

    def kept(self, as_written: bool) -> None:
        """Note one entry written, and whether a tolerant reading keeps it as written
        (``_fits`` and its value reading as itself)."""
        if not as_written:
            self.exact = False

    def live(self) -> Live:
        """The record as a ``Live``: a member of the ``Live`` it was read from that read
        whole and was not written is handed back as it was; any other is copied."""
        source = self.base.source
        if source is None:
            live = Live(
                frozen_map(self.pools),
                frozen_map(self.tracks),
                frozen_map(self.wounds),
                frozen_map(self.text),
                tuple(self.conditions),
                frozen_map(self.states),
            )
        else:
            kept = self.base.whole - self.written
            live = Live(
                source.pools if "pools" in kept else frozen_map(self.pools),
                source.tracks if "tracks" in kept else frozen_map(self.tracks),
                source.wounds if "wounds" in kept else frozen_map(self.wounds),
                source.text if "text" in kept else frozen_map(self.text),
                source.conditions if "conditions" in kept else tuple(self.conditions),
                source.states if "states" in kept else frozen_map(self.states),
            )
        self.made = live
        self.owned.clear()  # the containers may now be the reading of ``live``: copy again
        return live

    def reading_of(self, live: Live) -> _Reading:
        """The reading of ``live`` (made by ``live()`` while ``exact``): these containers.
        Every member read whole, since nothing written breaks its rule."""
        members = (self.pools, self.tracks, self.wounds, self.text, self.conditions, self.states)
        return _Reading(live, _EVERY_MEMBER, members)


# ── The working copy ─────────────────────────────────────────────────────────


class WorkingSheet:
    """One character's live sheet while commands change it.

    ``layout`` says what the sheet has; ``stored`` is the stored record read tolerantly,
    which only the ``set_*`` methods change, each keeping it sparse (an entry back at its
    default goes away). Reads resolve a stored entry against the layout, so a later step
    sees an earlier one's result. ``result`` is the character afterwards; the character
    given is never changed, so dropping a working sheet undoes everything done to it.
    """

    __slots__ = ("before", "carried", "character", "layout", "places", "ruleset", "stored")

    def __init__(self, ruleset: Ruleset, character: Character, *, carried: bool = False) -> None:
        self.ruleset = ruleset
        self.character = character
        self.layout = sheet_layout(ruleset, character.build)
        self.places = self.layout.names.places
        live = character.live
        self.stored = _Stored(
            _reading(ruleset, live) if isinstance(live, Live) else _read_live(live)
        )
        self.before: dict[str, dict[int, _Values]] = {}
        self.carried = carried

    def carry(self, character: Character) -> bool:
        """Go on as the working sheet of ``character``, this sheet's ``result``, for the
        next command: the record as it now stands becomes the one it starts from (the
        containers are exactly what the new ``Live`` reads as). False, and nothing
        done, when they are not (a write a tolerant reading would not keep as it is):
        the next command then reads the ``Live`` afresh."""
        stored = self.stored
        live = stored.made
        if live is None or character.live is not live or not stored.exact:
            return False
        stored.start(stored.reading_of(live))
        self.before.clear()
        self.character = character
        return True

    def drop(self) -> None:
        """Forget every write since the record this sheet starts from (a refused or
        failed command): the next command starts from that record again."""
        self.stored.start(self.stored.base)
        self.before.clear()

    def _note(self, member: str, entry: str) -> None:
        """Before the stored ``entry`` of ``member`` is first written, keep what its
        places read (``LayoutNames.places``): a value reads its own entry alone, so
        these are the values the record had before, and ``changes`` compares them with
        what the same places read after."""
        spots = self.places[member].get(entry)
        if spots:
            seen = self.before.get(member)
            if seen is None:
                seen = self.before[member] = {}
            for spot in spots:
                if spot not in seen:
                    seen[spot] = _READ[member](self, spot)

    # -- reading --------------------------------------------------------------------

    def pool_value(self, pool: PoolSpec) -> int:
        """The stored value, else where the pool starts, held to 0..maximum."""
        entry = self.stored.pools.get(pool.key)
        value = pool.start_value if entry is None else entry.value
        return value if 0 <= value <= pool.max else (0 if value < 0 else pool.max)

    def pool_temp(self, pool: PoolSpec) -> int:
        """The temporary buffer; always 0 on a pool that keeps none."""
        entry = self.stored.pools.get(pool.key)
        return max(0, entry.temp) if pool.allow_temp and entry is not None else 0

    def pool_reading(self, pool: PoolSpec) -> tuple[int, int]:
        """``(pool_value(pool), pool_temp(pool))``, the entry looked up once."""
        top, entry = pool.max, self.stored.pools.get(pool.key)
        if entry is None:
            return pool.start_value, 0
        value, temp = entry.value, entry.temp
        value = value if 0 <= value <= top else (0 if value < 0 else top)
        return value, (temp if temp > 0 else 0) if pool.allow_temp else 0

    def track_value(self, track: TrackSpec) -> int:
        """A plain track's stored number, else where it starts, held to its range."""
        stored = self.stored.tracks.get(track.id)
        return _clamp(track.start if stored is None else stored, track.min, track.max)

    def wound_track(self, track: TrackSpec) -> WoundTrack:
        """A wound track's stored marks read onto this build's levels."""
        return read_wounds(track.decl, len(track.levels), self.stored.wounds.get(track.id))

    def text_value(self, text: TextSpec) -> str:
        return self.stored.text.get(text.id, "")[: text.max_length]

    def has_condition(self, condition_id: str) -> bool:
        return condition_id in self.stored.conditions

    def state_value(self, state: StateSpec) -> str:
        """The stored value if the state still offers it, else its default."""
        stored = self.stored.states.get(state.id)
        return stored if stored is not None and stored in state.values else state.default

    # -- writing --------------------------------------------------------------------

    # Each setter below leaves the record as it is when it would store what is stored
    # already (an entry equal in value and in type, or none where it would remove one):
    # a rest refills every pool it names, most of them full already.

    def set_pool(self, pool: PoolSpec, value: int, temp: int) -> None:
        """Store a pool; back at its start with no buffer, the entry goes (so an untouched
        pool follows its maximum again)."""
        entry = self.stored.pools.get(pool.key)
        at_start = value == pool.start_value and temp == 0
        if entry is None if at_start else entry is not None and _same_pool(entry, value, temp):
            return
        self._note("pools", pool.key)
        pools: dict[str, PoolValue] = self.stored.writable("pools")
        if at_start:
            pools.pop(pool.key, None)
        else:
            pools[pool.key] = PoolValue(value, temp)
            # what _read_pool keeps as it is, for the whole numbers an op writes
            whole = type(value) is int and type(temp) is int
            whole = whole and -MAX_NUMBER <= value <= MAX_NUMBER and 0 <= temp <= MAX_NUMBER
            self.stored.kept(whole and _fits(pool.key, pools, MAX_POOLS))

    def set_track(self, track: TrackSpec, value: int) -> None:
        stored = self.stored.tracks.get(track.id)
        if stored is None if value == track.start else _same_int(stored, value):
            return
        self._note("tracks", track.id)
        tracks: dict[str, int] = self.stored.writable("tracks")
        if value == track.start:
            tracks.pop(track.id, None)
        else:
            tracks[track.id] = value
            whole = type(value) is int and -MAX_NUMBER <= value <= MAX_NUMBER  # _whole keeps it
            self.stored.kept(whole and _fits(track.id, tracks, _MAX_TRACKS))

    def set_wounds(self, track: TrackSpec, work: WoundTrack) -> None:
        """Store a worked wound track; no marks and no overflow removes the entry."""
        self._note("wounds", track.id)
        stored: dict[str, Wounds] = self.stored.writable("wounds")
        wounds = stored_wounds(work)
        if wounds.marks or wounds.overflow:
            stored[track.id] = wounds
            self.stored.kept(
                _read_wounds(wounds) is wounds and _fits(track.id, stored, _MAX_TRACKS)
            )
        else:
            stored.pop(track.id, None)

    def set_text(self, text_id: str, value: str) -> None:
        """Store a text field's text (already cut to its length); empty removes it."""
        stored = self.stored.text.get(text_id)
        if stored is None if not value else (type(stored) is str and stored == value):
            return
        self._note("text", text_id)
        text: dict[str, str] = self.stored.writable("text")
        if value:
            text[text_id] = value
            self.stored.kept(_read_text(value) is value and _fits(text_id, text, _MAX_TEXTS))
        else:
            text.pop(text_id, None)

    def set_condition(self, condition_id: str, on: bool) -> None:
        """On appends the id when absent (the list keeps at most 80); off removes it.
        Ids the ruleset does not declare stay."""
        if (condition_id in self.stored.conditions) == on:
            return
        self._note("conditions", condition_id)
        conditions: list[str] = self.stored.writable("conditions")
        if on and condition_id not in conditions:
            conditions.append(condition_id)
            del conditions[MAX_CONDITIONS:]
            self.stored.kept(len(condition_id) <= MAX_CONDITIONS)  # the count is held above
        elif not on and condition_id in conditions:
            conditions.remove(condition_id)

    def clear_conditions(self) -> None:
        """Every stored condition id goes, declared or not."""
        if not self.stored.conditions:
            return
        for condition_id in self.stored.conditions:
            self._note("conditions", condition_id)
        self.stored.writable("conditions").clear()

    def set_state(self, state: StateSpec, value: str) -> None:
        stored = self.stored.states.get(state.id)
        if stored is None if value == state.default else (type(stored) is str and stored == value):
            return
        self._note("states", state.id)
        states: dict[str, str] = self.stored.writable("states")
        if value == state.default:
            states.pop(state.id, None)
        else:
            states[state.id] = value
            self.stored.kept(_read_state(value) is value and _fits(state.id, states, _MAX_STATES))

    def result(self) -> Character:
        """The character with the record as it now stands. While the record is exact
        (see ``_Stored``) its containers are kept as the new ``Live``'s reading, so the
        next command on this character does not read it again."""
        stored = self.stored
        live = stored.live()
        if stored.exact and not self.carried:  # a carried sheet hands them on itself
            keep_per(self.ruleset, _READINGS, live, stored.reading_of(live))
        return Character(self.character.name, self.character.build, live)

    def changes(self, after: Character) -> tuple[SheetChange, ...]:
        """``changes_between(ruleset, character, after)`` for ``after``, this sheet's
        ``result``. While the record is exact, its own containers are what ``after``'s
        ``Live`` reads back as, and only the entries written can read differently: the
        places of those are read again and compared with what they read before
        (``_note``), in sheet order."""
        stored = self.stored
        if after.live is not stored.made or not stored.exact:
            return changes_between(self.ruleset, self.character, after)
        out: list[SheetChange] = []
        before, whats = self.before, self.layout.names.whats
        for member in sorted(before, key=_MEMBERS.index) if len(before) > 1 else before:
            seen, read, named = before[member], _READ[member], whats[member]
            for spot in sorted(seen) if len(seen) > 1 else seen:
                values = zip(seen[spot], read(self, spot), strict=True)
                for what, (was, now) in zip(named[spot], values, strict=True):
                    if was != now:
                        out.append(SheetChange(after.name, what, was, now))
        return tuple(out)


# ── The current sheet, and what changed ──────────────────────────────────────


@frozen
class CurrentPool:
    spec: PoolSpec
    value: int
    temp: int


@frozen
class CurrentTrack:
    """A track as it reads: a plain track's number; a wound track's marked levels, with
    its marks and overflow as they read (``wounds``)."""

    spec: TrackSpec
    value: int
    wounds: Wounds | None = None


@frozen
class CurrentText:
    spec: TextSpec
    value: str


@frozen
class CurrentCondition:
    condition: Condition
    active: bool


@frozen
class CurrentState:
    spec: StateSpec
    value: str

    @property
    def value_label(self) -> str:
        return self.spec.value_label(self.value)


@frozen
class CurrentSheet:
    """Every value of one character's live sheet as it reads now, in sheet order:
    visible pools (declared, then list rows), visible tracks, every text field, every
    declared condition, visible states."""

    pools: tuple[CurrentPool, ...]
    tracks: tuple[CurrentTrack, ...]
    text: tuple[CurrentText, ...]
    conditions: tuple[CurrentCondition, ...]
    states: tuple[CurrentState, ...]


def _current(sheet: WorkingSheet) -> CurrentSheet:
    layout = sheet.layout
    tracks: list[CurrentTrack] = []
    for track in layout.tracks:
        if track.is_wound:
            work = sheet.wound_track(track)
            tracks.append(CurrentTrack(track, work.filled, stored_wounds(work)))
        else:
            tracks.append(CurrentTrack(track, sheet.track_value(track)))
    return CurrentSheet(
        pools=tuple(CurrentPool(p, sheet.pool_value(p), sheet.pool_temp(p)) for p in layout.pools),
        tracks=tuple(tracks),
        text=tuple(CurrentText(t, sheet.text_value(t)) for t in layout.text),
        conditions=tuple(CurrentCondition(c, sheet.has_condition(c.id)) for c in layout.conditions),
        states=tuple(CurrentState(s, sheet.state_value(s)) for s in layout.states),
    )


def current_sheet(ruleset: Ruleset, character: Character) -> CurrentSheet:
    """What ``character``'s live sheet currently has (docs/design/sheet-commands.md "The
    live sheet")."""
    return _current(WorkingSheet(ruleset, character))


_Reads = list[tuple[str, JsonValue]]
_Values = tuple[JsonValue, ...]


def _pool_read(sheet: WorkingSheet, spot: int) -> _Values:
    return sheet.pool_reading(sheet.layout.pools[spot])


def _track_read(sheet: WorkingSheet, spot: int) -> _Values:
    return (sheet.track_value(sheet.layout.tracks[spot]),)


def _wound_read(sheet: WorkingSheet, spot: int) -> _Values:
    read = stored_wounds(sheet.wound_track(sheet.layout.tracks[spot]))
    return ({"marks": list(read.marks), "overflow": read.overflow},)


def _text_read(sheet: WorkingSheet, spot: int) -> _Values:
    return (sheet.text_value(sheet.layout.text[spot]),)


def _condition_read(sheet: WorkingSheet, spot: int) -> _Values:
    return (sheet.layout.conditions[spot].id in sheet.stored.conditions,)


def _state_read(sheet: WorkingSheet, spot: int) -> _Values:
    return (sheet.state_value(sheet.layout.states[spot]),)


_READERS: tuple[tuple[str, Callable[[WorkingSheet, int], _Values]], ...] = (
    ("pools", _pool_read),
    ("tracks", _track_read),
    ("wounds", _wound_read),
    ("text", _text_read),
    ("conditions", _condition_read),
    ("states", _state_read),
)
"""Each member's values at one of its places (``LayoutNames.places``), named by the
place's ``LayoutNames.whats``; member by member, place by place, they are the sheet's
values in sheet order."""
_READ = dict(_READERS)


def _readings(sheet: WorkingSheet) -> _Reads:
    """Every value of the sheet under its ``SheetChange.what`` name, in sheet order."""
    names = sheet.layout.names
    return [
        reading
        for member, read in _READERS
        for spot in sorted(spot for spots in names.places[member].values() for spot in spots)
        for reading in zip(names.whats[member][spot], read(sheet, spot), strict=True)
    ]


def _changes(
    who: str, old_sheet: WorkingSheet, new_sheet: WorkingSheet, old: _Stored, new: _Stored
) -> tuple[SheetChange, ...]:
    """What reads differently on ``new_sheet`` than on ``old_sheet``, two sheets of one
    layout: only the places of the stored entries that differ are read (a value reads
    its own entry alone), in sheet order."""
    names = new_sheet.layout.names
    out: list[SheetChange] = []
    for member, read in _READERS:
        if member == "conditions":
            ids: set[str] = set(old.conditions) ^ set(new.conditions)
        else:
            before, after = getattr(old, member), getattr(new, member)
            ids = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
        for spot in sorted(spot for i in ids for spot in names.places[member].get(i, ())):
            values = zip(read(old_sheet, spot), read(new_sheet, spot), strict=True)
            for what, (was, now) in zip(names.whats[member][spot], values, strict=True):
                if was != now:
                    out.append(SheetChange(who, what, was, now))
    return tuple(out)


def changes_between(
    ruleset: Ruleset, before: Character, after: Character
) -> tuple[SheetChange, ...]:
    """What reads differently on ``after``'s live sheet than on ``before``'s, in sheet
    order: pools (``pool <key>``, and ``temp <key>`` when the buffer changed), tracks,
    wound tracks, text, conditions, states. Something ``before`` did not have at all
    changes from None. On one build only the entries stored differently are read, so a
    command costs what it touched."""
    if before.build is after.build and before.live is after.live:
        return ()
    old_sheet, new_sheet = WorkingSheet(ruleset, before), WorkingSheet(ruleset, after)
    if before.build is after.build:
        return _changes(after.name, old_sheet, new_sheet, old_sheet.stored, new_sheet.stored)
    old = dict(_readings(old_sheet))
    return tuple(
        SheetChange(after.name, what, old.get(what), value)
        for what, value in _readings(new_sheet)
        if what not in old or old[what] != value
    )
