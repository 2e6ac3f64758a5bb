"""The exceptions dicebound raises. Nothing else crosses the public API.

::

    DiceboundError                 every failure dicebound reports, with a clear message
    ├── RulesetInvalid             a ruleset file refused at import (all its problems)
    ├── CharacterInvalid           a character file that does not fit its ruleset
    ├── TagError                   a check tag that cannot be resolved (nothing thrown or paid)
    ├── DiceError                  forced faces that run out or name a face the die lacks
    ├── LimitExceeded              a computation past one of dicebound's caps
    └── UsageError                 a command-line or library call that makes no sense
"""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.problems import Problem

__all__ = [
    "CharacterInvalid",
    "DiceError",
    "DiceboundError",
    "LimitExceeded",
    "RulesetInvalid",
    "TagError",
    "UsageError",
]


class DiceboundError(Exception):
    """Base of every error dicebound raises on purpose."""


class _ProblemsError(DiceboundError):
    what = "file"

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self.problems)

    def __str__(self) -> str:
        """Every problem, a line each: written when asked for, since a service that
        answers with the first few need not spell out tens of thousands."""
        lines = "\n".join(str(p) for p in self.problems)
        return f"The {self.what} has {len(self.problems)} problem(s):\n{lines}"


class RulesetInvalid(_ProblemsError):
    """A ruleset refused at import. ``problems`` lists every fault found."""

    what = "ruleset"


class CharacterInvalid(_ProblemsError):
    """A character file that its ruleset does not accept."""

    what = "character"


class TagError(DiceboundError):
    """A check tag that cannot be resolved. ``span`` is where it stands in the text."""

    def __init__(self, message: str, span: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span


class DiceError(DiceboundError):
    """Forced faces that ran out, or a face the die does not have."""


class LimitExceeded(DiceboundError):
    """A roll or a distribution past one of dicebound's caps."""


class UsageError(DiceboundError):
    """A call with arguments that make no sense together."""
