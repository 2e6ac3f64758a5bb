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
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from dicebound.ruleset.model import (
    Condition,
    Ruleset,
)
from dicebound.sheet import (
    MAX_WOUND_RUNGS,
    Character,
    Live,
    PoolValue,
    Wounds,
    frozen_map,
)
from dicebound.sheet_commands.layout import (
    MAX_NUMBER,
    MAX_POOLS,
    LayoutNames,
    PoolSpec,
    SheetLayout,
    StateSpec,
    TextSpec,
    TrackSpec,
    clamp,
    effective_field_value,
    fold,
    is_hidden,
    keep_per,
    kept_per,
    name_eq,
    sheet_layout,
)
from dicebound.sheet_commands.model import JsonValue, SheetChange
from dicebound.sheet_commands.wounds import WoundTrack, read_wounds, stored_wounds
from dicebound.values import frozen

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
_READINGS = "sheet_commands live readings"


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
        return clamp(track.start if stored is None else stored, track.min, track.max)

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
