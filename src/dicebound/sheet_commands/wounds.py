"""Wound tracks: marks of a kind sitting on named levels or numbered boxes.

The definition holds kinds (id, label, severity); the stored record holds marks (kind
ids). A track is worked as severities (``WoundTrack``): read from the stored marks
(``read_wounds``), marked (``mark``) or healed (``heal``) one mark at a time, then
written back (``stored_wounds``). Plain track math, below the sheet: the live sheet
reads wound tracks through it, and the ``damage`` op with a ``track``
(``ops.wound_command``) and rests change them through it.
docs/design/sheet-commands.md "Wound tracks" states every rule.

Settled here: a track whose length comes to 0 refuses every mark ``no-box``, whatever
its ``onFull``.
"""

from __future__ import annotations

from dicebound.ruleset.model import Track, TrackKind
from dicebound.sheet import Wounds

__all__ = [
    "MAX_MARKS",
    "WoundTrack",
    "heal",
    "mark",
    "read_wounds",
    "stored_wounds",
]

MAX_MARKS = 100_000
"""The most marks one command puts on or clears (its amount's absolute value)."""
_MAX_OVERFLOW = 1_000_000


class WoundTrack:
    """A wound track being worked, as severities so every rule is number work.

    ``marks`` on a sequential track is dense and sorted most severe first (at most
    ``length``); on an indexed track it has one slot per box, None where the box is
    clear. ``ladder`` is the declared kinds, least severe first: the steps an upgrade
    climbs. ``refuses`` is true for an indexed track and for ``onFull: "refuse"``.
    """

    __slots__ = ("indexed", "ladder", "length", "marks", "overflow", "refuses")

    def __init__(
        self,
        ladder: tuple[TrackKind, ...],
        length: int,
        indexed: bool,
        refuses: bool,
        marks: list[int | None],
        overflow: int,
    ) -> None:
        self.ladder = ladder
        self.length = length
        self.indexed = indexed
        self.refuses = refuses
        self.marks = marks
        self.overflow = overflow

    @property
    def filled(self) -> int:
        """How many levels (or boxes) hold a mark."""
        return sum(1 for m in self.marks if m is not None)

    @property
    def lowest(self) -> int:
        """The last marked position, or -1 when nothing is marked."""
        return max((i for i, m in enumerate(self.marks) if m is not None), default=-1)


def read_wounds(track: Track, length: int, stored: Wounds | None) -> WoundTrack:
    """The stored marks on a track of ``length`` levels. A mark of a kind the track does
    not declare (``""`` too) is empty. Sequential: most severe first, and marks past the
    end are overflow (a track that got shorter does not forget harm). Indexed: each mark
    stays on its box; marks on boxes past the end are overflow."""
    ladder = tuple(sorted(track.kinds, key=lambda k: k.severity))
    severity = {k.id: k.severity for k in ladder}
    overflow = max(0, stored.overflow) if stored is not None else 0
    read = [severity.get(m) for m in stored.marks] if stored is not None else []
    indexed = track.fill == "indexed"
    marks: list[int | None]
    if indexed:
        marks = [read[i] if i < len(read) else None for i in range(length)]
        overflow += sum(1 for m in read[length:] if m is not None)
    else:
        dense = sorted((m for m in read if m is not None), reverse=True)
        marks = list(dense[:length])
        overflow += len(dense) - len(marks)
    refuses = indexed or track.on_full == "refuse"
    return WoundTrack(ladder, length, indexed, refuses, marks, overflow)


def _place(work: WoundTrack, severity: int) -> None:
    """A sequential mark goes before the first lighter one: most severe first, equals in
    the order they came."""
    at = next((i for i, m in enumerate(work.marks) if m is not None and m < severity), None)
    if at is None:
        work.marks.append(severity)
    else:
        work.marks.insert(at, severity)


def mark(work: WoundTrack, severity: int, count: int, box: int = 1) -> bool:
    """Put ``count`` marks of ``severity`` on the track, one at a time. False (and
    nothing changed) when a track that refuses when full has no room for every one, or
    the track has no levels at all.

    Indexed: each mark takes the first clear box from ``box`` on, all chosen before any
    is marked. Sequential that refuses: all placed or none. Sequential that upgrades: a
    full track upgrades its lightest mark one step up the ladder; once full at the top
    severity, every mark left is overflow."""
    if work.length == 0:
        return False
    if work.indexed:
        chosen: list[int] = []
        for _ in range(count):
            at = next(
                (
                    b
                    for b in range(max(0, box - 1), work.length)
                    if work.marks[b] is None and b not in chosen
                ),
                None,
            )
            if at is None:
                return False
            chosen.append(at)
        for b in chosen:
            work.marks[b] = severity
        return True
    if work.refuses:
        if work.length - len(work.marks) < count:
            return False
        for _ in range(count):
            _place(work, severity)
        return True
    top = work.ladder[-1].severity
    for done in range(count):
        if len(work.marks) >= work.length and work.marks[-1] == top:
            work.overflow += count - done
            return True
        if len(work.marks) < work.length:
            _place(work, severity)
            continue
        lightest = work.marks[-1]
        assert lightest is not None  # a sequential track's marks are dense
        higher = next((k for k in work.ladder if k.severity > lightest), None)
        if higher is None:
            work.overflow += 1
        else:
            work.marks.pop()
            _place(work, higher.severity)
    return True


def heal(work: WoundTrack, count: int, severity: int | None = None) -> None:
    """Clear up to ``count`` marks: overflow first, then the lightest mark (of
    ``severity`` alone when given), the last position among equally light ones. Stops
    early when nothing is left to clear; never fails."""
    from_overflow = min(work.overflow, count)
    work.overflow -= from_overflow
    for _ in range(count - from_overflow):
        at, lightest = -1, 0
        for i, m in enumerate(work.marks):
            if m is None or (severity is not None and m != severity):
                continue
            if at < 0 or m <= lightest:
                at, lightest = i, m
        if at < 0:
            return
        if work.indexed:
            work.marks[at] = None
        else:
            del work.marks[at]


def stored_wounds(work: WoundTrack) -> Wounds:
    """The stored shape: kind ids (most severe first on a sequential track; ``""`` for
    a clear box on an indexed one, trailing clear boxes left off), overflow at most
    1,000,000."""
    kind_of = {k.severity: k.id for k in work.ladder}
    marks = [kind_of.get(m, "") if m is not None else "" for m in work.marks]
    if not work.indexed:
        marks = [m for m in marks if m]
    while marks and not marks[-1]:
        marks.pop()
    return Wounds(tuple(marks), min(work.overflow, _MAX_OVERFLOW))
