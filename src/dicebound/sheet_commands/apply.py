"""One sheet command applied to one character: ``apply_request``.

Dispatches a readable request to its op and wraps the outcome: the character after it
with its ``now`` (cut to 120 characters), or the reason it was refused with the
character untouched. Pure; a bug raises, and the pass makes that a ``malformed`` refusal.
"""

from __future__ import annotations

from collections.abc import Callable

from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.current import WorkingSheet
from dicebound.sheet_commands.model import Applied, Refused, SheetRequest
from dicebound.sheet_commands.ops import (
    condition_command,
    note_command,
    state_command,
    track_command,
    wound_command,
)
from dicebound.sheet_commands.pools import POOL_OPS, PoolOp, pool_command
from dicebound.sheet_commands.rests import rest_command
from dicebound.sheet_commands.use import use_command

__all__ = ["MAX_NOW", "apply_on", "apply_request"]

MAX_NOW = 120
"""The longest ``now`` one command says; longer is cut."""

_Command = Callable[[WorkingSheet, SheetRequest], "str | Refused"]


_POOL_OPS: dict[str, PoolOp] = {op: op for op in POOL_OPS}


def _pool(sheet: WorkingSheet, request: SheetRequest) -> str | Refused:
    return pool_command(sheet, _POOL_OPS[request.op], request.pool, request.amount)


_COMMANDS: dict[str, _Command] = {
    "spend": _pool,
    "restore": _pool,
    "damage": _pool,
    "temp": _pool,
    "track": track_command,
    "condition": condition_command,
    "state": state_command,
    "note": note_command,
    "rest": rest_command,
}


def apply_request(
    ruleset: Ruleset, character: Character, request: SheetRequest
) -> Applied | Refused:
    """Apply ``request`` to ``character``: the character afterwards and what ``now``
    says, or why it was refused (then nothing changed)."""
    return apply_on(WorkingSheet(ruleset, character), request)


def apply_on(sheet: WorkingSheet, request: SheetRequest) -> Applied | Refused:
    """``apply_request`` on a working sheet of the character, which the caller keeps to
    ask what changed (``WorkingSheet.changes``)."""
    if request.op == "use":  # made of spends, each part cut, the whole not; may store nothing
        return use_command(sheet, request)
    command = wound_command if request.wound_form else _COMMANDS[request.op]
    outcome = command(sheet, request)
    if isinstance(outcome, Refused):
        return outcome
    return Applied(sheet.result(), outcome[:MAX_NOW])
