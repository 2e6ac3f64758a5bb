"""The one small interface every resolution kind implements.

A kind module exports one object, ``KIND``, that:

- names the kind's own keys of the ``resolution`` block (the shared sheet-math keys
  are the ruleset compiler's) as spec nodes, so structure is checked and the JSON
  Schema printed from one place;
- compiles a structurally valid block into the kind's frozen config, yielding every
  cross-check problem (faces the die lacks, a rule that could never fire, ...);
- turns a prepared check into a throw with a dice source, and gives the exact
  distribution of the same check. Both paths share the kind's arithmetic.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal, NamedTuple, Protocol

from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep, Sheet
from dicebound.ruleset.spec import Node
from dicebound.sheet import SheetView
from dicebound.values import frozen

__all__ = [
    "CheckAsk",
    "CompileContext",
    "KindCompiler",
    "KindOutcome",
    "KindPlayer",
    "Prepared",
    "Rolled",
]


@frozen
class CompileContext:
    """What a kind's compiler may read besides its own block."""

    sheet: Sheet
    path: Path = ("resolution",)


class KindCompiler(Protocol):
    """The compile half of a kind (the play half is the module's functions)."""

    name: str
    keys: Mapping[str, Node]  # the kind's own resolution keys, "difficultyLadder" included
    required: tuple[str, ...]

    def ladder_step(self, raw: Mapping[str, Any]) -> LadderStep:
        """Read one structurally valid ladder step."""

    def compile(self, block: Mapping[str, Any], ctx: CompileContext) -> tuple[Any, list[Problem]]:
        """Cross-check a structurally valid block; give its config and the problems."""

    def features(self, block: Mapping[str, Any]) -> Iterator[tuple[str, Path, str]]:
        """Yield (capability version, path, feature name) for each gated key the block uses.

        Paths run from the document root (``("resolution", "explode", "min")``); the
        block need only be structurally valid.
        """


class Rolled(NamedTuple):
    """What a kind hands back for one thrown check: the record's core numbers.

    A named tuple rather than a frozen dataclass: one is made for every check thrown,
    and it is the cheaper immutable value to build.

    ``rolls`` is what each die reads, in throw order. ``extras`` are the kind's own
    record attributes, in the order the record writes them.
    """

    rolls: tuple[str, ...]
    used: int
    modifier: int
    total: int
    success: bool
    critical_success: bool
    critical_failure: bool
    dice: str
    mode: Literal["normal", "advantage", "disadvantage"] = "normal"
    resolution: Literal["sum", "successes"] = "sum"
    extras: tuple[tuple[str, str], ...] = ()
    outcome: Any = None  # the same outcome value the kind's distribution is over
    # what happened to each die of ``rolls`` (exploded, rethrown, doubled, ...), for the
    # dice card; not part of the record, and empty where a kind says nothing per die
    marks: tuple[tuple[str, ...], ...] = ()


@frozen
class CheckAsk:
    """What the engine hands a kind's ``prepare``: whose sheet, which check, and what
    the tag asked. The engine has already matched the names (skill, who, with) and
    refused what cannot be rolled (an untrained ``refuse``); the kind reads the numbers
    it needs off ``view`` and the attributes it offers off ``attrs``."""

    view: SheetView
    group: Literal["skill", "save", "ability"]
    item_id: str
    label: str
    with_ability: str | None
    attrs: Mapping[str, str]  # the tag's attributes, lower-case keys, first written wins
    ladder: tuple[LadderStep, ...]


@frozen
class Prepared:
    """A check ready to throw: the kind's own check value, the dc the record writes,
    the record attributes the preparation decided, a short line for odds titles, and
    what the check costs. ``prepare`` has made sure the roller can pay every cost (a
    purchase that cannot be paid is left out of the check, never half made); the engine
    pays them, all together, only once the dice are thrown."""

    check: Any
    dc: int
    extras: tuple[tuple[str, str | int], ...] = ()
    summary: str = ""
    costs: tuple[tuple[str, int], ...] = ()  # (live pool key, amount) paid once it is thrown


class KindOutcome(Protocol):
    """What a kind's distribution is over: enough to read outcome bands from."""

    @property
    def total(self) -> int: ...
    @property
    def success(self) -> bool: ...
    @property
    def critical_success(self) -> bool: ...
    @property
    def critical_failure(self) -> bool: ...


class KindPlayer(Protocol):
    """The play half of a kind: prepare a check from an ask, throw it, give its odds.

    ``prepare`` raises ``TagError`` for an ask it cannot resolve. The prepared check
    carries ``dc`` (what the record's dc says) and ``extras`` (record attributes the
    preparation decided, such as ``threshold`` or ``bonus``)."""

    def prepare(self, config: Any, ask: CheckAsk) -> Prepared: ...
    def roll(self, check: Any, dice: Any) -> Rolled: ...
    def distribution(self, check: Any) -> Any: ...
    def margin(self, check: Any, outcome: Any) -> int:
        """How far an outcome is past what the check needed (bands' ``margin``)."""
