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
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from dicebound.problems import Path, Problem
from dicebound.ruleset.model import LadderStep, Sheet
from dicebound.ruleset.spec import Node

__all__ = ["CompileContext", "KindCompiler", "Rolled"]


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Rolled:
    """What a kind hands back for one thrown check: the record's core numbers.

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
