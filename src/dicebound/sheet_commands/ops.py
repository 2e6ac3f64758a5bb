"""The ops that set one thing: ``track`` (a plain track), ``condition``, ``state``,
``note``, and ``damage`` with a ``track`` (a wound mark or heal). Each finds its target
by NAME-EQ on id or label, checks, and sets it on the working sheet.
docs/design/sheet-commands.md "The live sheet" and "Wound tracks" state the rules.
"""

from __future__ import annotations

from dicebound.sheet import MAX_WOUND_RUNGS
from dicebound.sheet_commands.current import MAX_NUMBER, TrackSpec, WorkingSheet, name_eq
from dicebound.sheet_commands.model import Refused, SheetRequest
from dicebound.sheet_commands.reasons import (
    BAD_AMOUNT,
    MALFORMED,
    NO_BOX,
    UNKNOWN_CONDITION,
    UNKNOWN_FIELD,
    UNKNOWN_KIND,
    UNKNOWN_STATE,
    UNKNOWN_TRACK,
    UNKNOWN_VALUE,
    WRONG_TRACK,
)
from dicebound.sheet_commands.wounds import MAX_MARKS, WoundTrack, heal, mark

__all__ = [
    "condition_command",
    "note_command",
    "state_command",
    "track_command",
    "wound_command",
    "wound_now",
]


def track_command(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    """Set a plain track ``to`` a number or move it ``by`` one, clamped to its range
    (past a bound is held there, not refused). ``Exhaustion 2``."""
    track = sheet.layout.track_named(request.track or "")
    if track is None:
        return Refused(UNKNOWN_TRACK)
    if track.is_wound:
        return Refused(WRONG_TRACK)  # a bare number cannot say what kind new marks are
    if (request.to is None) == (request.by is None):
        return Refused(MALFORMED)
    given = request.to if request.to is not None else request.by
    assert given is not None
    if abs(given) > MAX_NUMBER:
        return Refused(BAD_AMOUNT)
    moved = given if request.to is not None else sheet.track_value(track) + given
    value = min(max(moved, track.min), track.max)
    sheet.set_track(track, value)
    return f"{track.label} {value}"


def condition_command(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    """Turn a declared condition on (appended when absent) or off. ``Poisoned on``."""
    condition = sheet.layout.condition_named(request.condition or "")
    if condition is None:
        return Refused(UNKNOWN_CONDITION)
    sheet.set_condition(condition.id, request.on)
    return f"{condition.label} {'on' if request.on else 'off'}"


def state_command(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    """Set a visible live state to the first of its values NAME-EQ to the written value
    by itself or by its label. ``Stance Reckless``."""
    state = sheet.layout.state_named(request.state or "")
    if state is None:
        return Refused(UNKNOWN_STATE)
    written = request.value or ""
    value = next(
        (v for v in state.values if name_eq(v, written) or name_eq(state.value_label(v), written)),
        None,
    )
    if value is None:
        return Refused(UNKNOWN_VALUE)
    sheet.set_state(state, value)
    return f"{state.label} {state.value_label(value)}"


def note_command(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    """Write a text field: the value as written (not trimmed), cut to the field's
    length; empty clears it. ``Concentrating on: Bless`` or ``... cleared``."""
    field = sheet.layout.text_named(request.field or "")
    if field is None:
        return Refused(UNKNOWN_FIELD)
    text = (request.value or "")[: field.max_length]
    sheet.set_text(field.id, text)
    return f"{field.label}: {text}" if text else f"{field.label} cleared"


def wound_now(track: TrackSpec, work: WoundTrack, overflow_before: int) -> str:
    """``Harm 2/4 Winded``: filled of length, the lowest marked level's label on named
    levels, and `` +n over`` when the overflow grew."""
    now = f"{track.label} {work.filled}/{work.length}"
    lowest = work.lowest
    if lowest >= 0 and not track.numbered:
        now += f" {track.levels[lowest].label}"
    if work.overflow > overflow_before:
        now += f" +{work.overflow - overflow_before} over"
    return now


def wound_command(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    """``damage`` with a ``track``: a positive amount marks, a negative one heals. The
    checks in order: the track, a wound track, the amount, the kind, the box, room."""
    track = sheet.layout.track_named(request.track or "")
    if track is None:
        return Refused(UNKNOWN_TRACK)
    if not track.is_wound:
        return Refused(WRONG_TRACK)
    amount = request.amount
    if amount is None or amount == 0 or abs(amount) > MAX_MARKS:
        return Refused(BAD_AMOUNT)
    kind = track.kind_named(request.kind)
    if kind is None and amount > 0:
        return Refused(UNKNOWN_KIND)
    box = request.box
    if box is not None and not 1 <= box <= MAX_WOUND_RUNGS:
        return Refused(BAD_AMOUNT)
    work = sheet.wound_track(track)
    before = work.overflow
    if amount > 0:
        assert kind is not None
        if not mark(work, kind.severity, amount, 1 if box is None else box):
            return Refused(NO_BOX)
    else:
        heal(work, -amount, None if kind is None else kind.severity)
    sheet.set_wounds(track, work)
    return wound_now(track, work, before)
