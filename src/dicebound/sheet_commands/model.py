"""The values a sheet command is read into and comes out as.

A ``[sheet: ...]`` tag is read into a ``SheetRequest`` (or is ``Unreadable``); applying a
request to one character gives ``Applied`` or ``Refused``; the whole tag, once its
targets are resolved and each is tried, is one ``SheetOutcome``. All frozen: the pass
never changes what it was given.
"""

from __future__ import annotations

from typing import Literal

from dicebound.sheet import Character
from dicebound.values import frozen

__all__ = [
    "OPS",
    "Applied",
    "JsonValue",
    "Op",
    "Refused",
    "SheetChange",
    "SheetOutcome",
    "SheetRequest",
    "Unreadable",
]

Op = Literal[
    "spend", "restore", "damage", "temp", "track", "condition", "state", "note", "rest", "use"
]
OPS: tuple[Op, ...] = (
    "spend",
    "restore",
    "damage",
    "temp",
    "track",
    "condition",
    "state",
    "note",
    "rest",
    "use",
)

JsonValue = int | str | bool | None | list[str] | dict[str, object]


@frozen
class SheetRequest:
    """A readable tag: the op (aliases folded: ``heal`` is ``restore``, ``cast`` is
    ``use``) and the attributes that op reads, as written (trimmed where the grammar
    trims). ``who`` is None when the tag names nobody. A ``damage`` with a ``track`` is
    the wound form."""

    op: Op
    who: str | None = None
    pool: str | None = None
    amount: int | None = None
    track: str | None = None
    kind: str = ""
    box: int | None = None
    to: int | None = None
    by: int | None = None
    condition: str | None = None
    on: bool = True
    state: str | None = None
    value: str | None = None
    field: str | None = None
    rest: str | None = None
    name: str | None = None

    @property
    def wound_form(self) -> bool:
        return self.op == "damage" and self.track is not None


@frozen
class Unreadable:
    """A tag that reads as no command: its body as written, and its ``who`` if any."""

    raw: str
    who: str | None = None


@frozen
class Applied:
    """One character after a command that succeeded: the character as it now stands,
    what ``now`` says, and whether anything was stored (a cantrip stores nothing)."""

    character: Character
    now: str
    stored: bool = True


@frozen
class Refused:
    """A command refused for one character: ``reason`` is one of ``reasons.REASONS``.
    Nothing changed."""

    reason: str


@frozen
class SheetChange:
    """One thing a command changed on one character: ``what`` names it (``pool hp``,
    ``temp hp``, ``track exhaustion``, ``wounds harm``, ``text concentration``,
    ``condition poisoned``, ``state stance``), ``from_`` and ``to`` are its value before
    and after, as the sheet reads it (pools and tracks as numbers, wounds as
    ``{"marks": [...], "overflow": n}``, text and states as strings, a condition as
    true or false)."""

    who: str
    what: str
    from_: JsonValue
    to: JsonValue

    def to_json(self) -> dict[str, object]:
        return {"who": self.who, "what": self.what, "from": self.from_, "to": self.to}


@frozen
class SheetOutcome:
    """One ``[sheet:]`` tag resolved: the tag written back, whom it was about (the card's
    name, ``party``, or as written when no card was found), applied or refused, what
    ``now`` says or why it was refused, and what it changed.

    ``span`` is where the tag stood in the text; ``rests`` holds one ``(card name, rest
    as written)`` per character whose rest succeeded; ``stored`` says whether any
    character's state was stored (even one equal to the old: a pass has ``changed``
    as soon as one is)."""

    tag: str
    who: str
    ok: bool
    now: str | None
    reason: str | None
    request: SheetRequest | Unreadable
    span: tuple[int, int] = (0, 0)
    changes: tuple[SheetChange, ...] = ()
    rests: tuple[tuple[str, str], ...] = ()
    stored: bool = False

    def to_json(self) -> dict[str, object]:
        """The CLI's ``--json`` entry: ``{"tag", "who", "ok", "now", "reason"}``."""
        return {
            "tag": self.tag,
            "who": self.who,
            "ok": self.ok,
            "now": self.now,
            "reason": self.reason,
        }
