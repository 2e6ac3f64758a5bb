"""Why a sheet command was refused: the 21 reasons, each a stable word a client reads.

They are written back on the tag (``reason="insufficient"``) and kept on the record, so
they never change. docs/design/sheet-commands.md says when each one is given. Imports
nothing.
"""

from __future__ import annotations

__all__ = [
    "AMBIGUOUS_CHARACTER",
    "AMBIGUOUS_ENTRY",
    "AMBIGUOUS_POOL",
    "BAD_AMOUNT",
    "BAD_POOL",
    "INSUFFICIENT",
    "MALFORMED",
    "NO_BOX",
    "NO_TEMP",
    "REASONS",
    "TOO_MANY",
    "UNKNOWN_CHARACTER",
    "UNKNOWN_CONDITION",
    "UNKNOWN_ENTRY",
    "UNKNOWN_FIELD",
    "UNKNOWN_KIND",
    "UNKNOWN_POOL",
    "UNKNOWN_REST",
    "UNKNOWN_STATE",
    "UNKNOWN_TRACK",
    "UNKNOWN_VALUE",
    "WRONG_TRACK",
]

TOO_MANY = "too-many"
"""The tag is past the 40th sheet command of its text."""
MALFORMED = "malformed"
"""The tag cannot be read as a command (or applying it failed unexpectedly)."""
UNKNOWN_CHARACTER = "unknown-character"
"""Nobody in the party answers to ``who`` (or no player, or an empty party)."""
AMBIGUOUS_CHARACTER = "ambiguous-character"
"""Two or more cards answer to ``who`` and it is not the player's name."""
UNKNOWN_POOL = "unknown-pool"
"""No pool this character has answers to the name."""
AMBIGUOUS_POOL = "ambiguous-pool"
"""The name answers only to list-row pools, and to more than one."""
BAD_AMOUNT = "bad-amount"
"""An amount, a box or a ``to``/``by`` outside what the op takes."""
INSUFFICIENT = "insufficient"
"""The pool holds less than the spend, or a ``use`` has nothing to pay with."""
NO_TEMP = "no-temp"
"""The pool keeps no temporary buffer."""
UNKNOWN_TRACK = "unknown-track"
"""No visible track answers to the name."""
WRONG_TRACK = "wrong-track"
"""A ``track`` op on a wound track, or a wound mark on a plain track."""
UNKNOWN_KIND = "unknown-kind"
"""A mark of a kind the wound track does not declare."""
NO_BOX = "no-box"
"""A wound track that refuses when full has no room for every mark."""
UNKNOWN_CONDITION = "unknown-condition"
"""No condition answers to the name."""
UNKNOWN_STATE = "unknown-state"
"""No visible live state answers to the name."""
UNKNOWN_VALUE = "unknown-value"
"""The state holds no such value (by value or by its label)."""
UNKNOWN_FIELD = "unknown-field"
"""No live text field answers to the name."""
UNKNOWN_REST = "unknown-rest"
"""No rest answers to the name."""
UNKNOWN_ENTRY = "unknown-entry"
"""No picked catalog row answers to the name, or its entry is not in the catalogs."""
AMBIGUOUS_ENTRY = "ambiguous-entry"
"""Rows of two different catalog entries answer to the name."""
BAD_POOL = "bad-pool"
"""A ``pool=`` on ``use`` that is not an upcast within the one cost's family."""

REASONS: tuple[str, ...] = (
    TOO_MANY,
    MALFORMED,
    UNKNOWN_CHARACTER,
    AMBIGUOUS_CHARACTER,
    UNKNOWN_POOL,
    AMBIGUOUS_POOL,
    BAD_AMOUNT,
    INSUFFICIENT,
    NO_TEMP,
    UNKNOWN_TRACK,
    WRONG_TRACK,
    UNKNOWN_KIND,
    NO_BOX,
    UNKNOWN_CONDITION,
    UNKNOWN_STATE,
    UNKNOWN_VALUE,
    UNKNOWN_FIELD,
    UNKNOWN_REST,
    UNKNOWN_ENTRY,
    AMBIGUOUS_ENTRY,
    BAD_POOL,
)
"""Every reason, in the order docs/design/sheet-commands.md lists them."""
