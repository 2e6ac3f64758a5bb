"""What one text's tags came to: the report the tag pass hands back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from dicebound.engine import CheckFailure, CheckResult
from dicebound.sheet import Character
from dicebound.tags.parse import Span

if TYPE_CHECKING:
    from dicebound.fight.tag import FightStep
    from dicebound.sheet_commands.model import SheetOutcome

__all__ = ["CheckReport", "FightPlace", "fight_step_json"]


class FightPlace(NamedTuple):
    """Where a ``[fight:]`` step stood and what it found, for a surface that records it:
    its span, its own seed (None when the faces are forced), how many check tags and
    sheet commands came before it in the text, the fight it found as JSON text (kept
    only when ``resolve_text`` is asked to ``record_fights``, since each step changes
    the pass's fight in place; ``"null"`` for none) and the party it found."""

    span: Span
    seed: str | None
    checks_before: int
    commands_before: int
    fight: str | None
    party: tuple[Character, ...]


class CheckReport(NamedTuple):
    """Everything one text's tags came to, in the order they stand in the text. A named
    tuple, as ``CheckResult`` is.

    ``items`` are the check tags; ``sheet`` the ``[sheet:]`` commands, each after as many
    check items as ``sheet_after`` says, so ``steps`` gives both in text order.
    ``sheet_party`` is the party as each command found it (what a record of the command
    keeps to replay it, as ``CheckResult.roller`` is for a check).
    ``fight_steps`` are the ``[fight:]`` tags (each its answer and its step), ``fight``
    the fight after the text and ``fight_summary`` its summary (None: no fight);
    ``fight_places`` where each step stood and what it found (what records it).
    """

    text: str
    items: tuple[CheckResult | CheckFailure, ...]
    party: tuple[Character, ...] = ()
    sheet: tuple[SheetOutcome, ...] = ()
    sheet_after: tuple[int, ...] = ()
    sheet_party: tuple[tuple[Character, ...], ...] = ()
    fight_steps: tuple[tuple[str, FightStep], ...] = ()
    fight: dict[str, Any] | None = None
    fight_summary: dict[str, Any] | None = None
    fight_places: tuple[FightPlace, ...] = ()

    @property
    def results(self) -> tuple[CheckResult, ...]:
        return tuple(i for i in self.items if isinstance(i, CheckResult))

    @property
    def errors(self) -> tuple[CheckFailure, ...]:
        return tuple(i for i in self.items if isinstance(i, CheckFailure))

    @property
    def steps(self) -> tuple[CheckResult | CheckFailure | SheetOutcome, ...]:
        """Every tag's outcome, checks and sheet commands, in the order of the text."""
        if not self.sheet:
            return self.items
        steps: list[CheckResult | CheckFailure | SheetOutcome] = []
        taken = 0
        for outcome, after in zip(self.sheet, self.sheet_after, strict=True):
            steps.extend(self.items[taken:after])
            taken = after
            steps.append(outcome)
        steps.extend(self.items[taken:])
        return tuple(steps)

    def to_json(self) -> dict[str, object]:
        """The command line's JSON. Every member is always there, ``sheet`` an empty
        list when the text held no sheet command: a program never branches on a
        member being absent."""
        return {
            "results": [r.to_json() for r in self.results],
            "errors": [e.to_json() for e in self.errors],
            "text": self.text,
            "sheet": [s.to_json() for s in self.sheet],
            "fight": self.fight_json(),
        }

    def fight_json(self) -> dict[str, object]:
        """``"fight"``: every step in text order, the state and summary after the text."""
        steps = [fight_step_json(written, step) for written, step in self.fight_steps]
        return {"steps": steps, "state": self.fight, "summary": self.fight_summary}


def fight_step_json(written: str, step: FightStep) -> dict[str, Any]:
    """A step as ``fight.steps`` lists it: the tag written back, its op and chooser,
    resolved or refused, its events, sheet changes and faces."""
    who = next((v for k, v in step.asked if k == "who"), None)
    op = next((v for k, v in step.asked if k == "op"), None)
    return {
        "tag": written,
        "op": op,
        "who": who,
        "ok": step.ok,
        "reason": step.reason,
        "message": step.message,
        "events": step.events,
        "changes": step.changes,
        "faces": step.faces,
    }
