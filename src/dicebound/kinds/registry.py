"""Which resolution kinds exist, and which of them dicebound builds.

A known kind that is not built yet has no compiler: the ruleset compiler refuses it
by name instead of guessing at its rules. A kind's module is imported the first time a
ruleset names it, so a ruleset of one kind never pays for the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dicebound.kinds.base import KindCompiler, KindPlayer
from dicebound.kinds.modules import kind_module

if TYPE_CHECKING:
    from dicebound.record import Record

__all__ = ["KNOWN_KINDS", "kind_compiler", "kind_player", "player_of", "writer_of"]

KNOWN_KINDS: tuple[str, ...] = (
    "dice-sum",
    "dice-pool",
    "dice-highest",
    "roll-against",
    "symbol-pool",
    "step-pool",
)

_RECORD_KEYS: dict[str, str] = {"symbolDetails": "symbol-pool"}
"""Record keys only one kind writes, and that kind: a record read without its ruleset
(the dice card) is worded by the kind whose keys it carries."""


def kind_compiler(name: str) -> KindCompiler | None:
    """The compiler of a built kind; None for a known kind not built yet (or unknown)."""
    module = kind_module(name)
    if module is None:
        return None
    compiler: KindCompiler = module.KIND
    return compiler


def kind_player(name: str) -> KindPlayer[Any, Any, Any] | None:
    """The play half of a built kind; None for an unknown kind."""
    module = kind_module(name)
    if module is None:
        return None
    player: KindPlayer[Any, Any, Any] = module.PLAYER
    return player


def player_of(name: str) -> KindPlayer[Any, Any, Any]:
    """The play half of a compiled ruleset's kind (which is always built)."""
    player = kind_player(name)
    if player is None:
        raise LookupError(f"{name} is not a built resolution kind")
    return player


def writer_of(record: Record) -> KindPlayer[Any, Any, Any] | None:
    """The kind whose own record keys ``record`` carries; None for a record any kind
    could have written."""
    for key, name in _RECORD_KEYS.items():
        if record.has(key):
            return kind_player(name)
    return None
