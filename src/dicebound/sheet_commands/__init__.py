"""Sheet commands: the ``[sheet: ...]`` tags a Game Master writes to change a character's
live sheet (damage, healing, a spell slot, a condition, a rest), each applied or refused
by the Engine and written back with its outcome. docs/design/sheet-commands.md states
the rules.

The names below load on first use (PEP 562): the engine imports this package only when
a text holds a sheet tag, and then only the modules it reaches.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dicebound.sheet_commands.apply import apply_request
    from dicebound.sheet_commands.current import changes_between
    from dicebound.sheet_commands.grammar import (
        SheetTag,
        find_sheet_tags,
        read_attributes,
        read_integer,
        read_request,
    )
    from dicebound.sheet_commands.model import (
        Applied,
        Refused,
        SheetChange,
        SheetOutcome,
        SheetRequest,
        Unreadable,
    )
    from dicebound.sheet_commands.resolve import (
        MAX_COMMANDS,
        SheetPass,
        apply_sheet_tag,
        resolve_sheet_text,
    )
    from dicebound.sheet_commands.targets import character_key, resolve_targets
    from dicebound.sheet_commands.written import (
        ReadBack,
        read_back,
        sanitise,
        strip_sheet_tags,
        write_tag,
    )

_EXPORTS: dict[str, str] = {
    "MAX_COMMANDS": "dicebound.sheet_commands.resolve",
    "Applied": "dicebound.sheet_commands.model",
    "ReadBack": "dicebound.sheet_commands.written",
    "Refused": "dicebound.sheet_commands.model",
    "SheetChange": "dicebound.sheet_commands.model",
    "SheetOutcome": "dicebound.sheet_commands.model",
    "SheetPass": "dicebound.sheet_commands.resolve",
    "SheetRequest": "dicebound.sheet_commands.model",
    "SheetTag": "dicebound.sheet_commands.grammar",
    "Unreadable": "dicebound.sheet_commands.model",
    "apply_request": "dicebound.sheet_commands.apply",
    "apply_sheet_tag": "dicebound.sheet_commands.resolve",
    "changes_between": "dicebound.sheet_commands.current",
    "character_key": "dicebound.sheet_commands.targets",
    "find_sheet_tags": "dicebound.sheet_commands.grammar",
    "read_attributes": "dicebound.sheet_commands.grammar",
    "read_back": "dicebound.sheet_commands.written",
    "read_integer": "dicebound.sheet_commands.grammar",
    "read_request": "dicebound.sheet_commands.grammar",
    "resolve_sheet_text": "dicebound.sheet_commands.resolve",
    "resolve_targets": "dicebound.sheet_commands.targets",
    "sanitise": "dicebound.sheet_commands.written",
    "strip_sheet_tags": "dicebound.sheet_commands.written",
    "write_tag": "dicebound.sheet_commands.written",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dicebound.sheet_commands' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "MAX_COMMANDS",
    "Applied",
    "ReadBack",
    "Refused",
    "SheetChange",
    "SheetOutcome",
    "SheetPass",
    "SheetRequest",
    "SheetTag",
    "Unreadable",
    "apply_request",
    "apply_sheet_tag",
    "changes_between",
    "character_key",
    "find_sheet_tags",
    "read_attributes",
    "read_back",
    "read_integer",
    "read_request",
    "resolve_sheet_text",
    "resolve_targets",
    "sanitise",
    "strip_sheet_tags",
    "write_tag",
]
