"""Why the application refuses a request, in words and without a transport.

Each refusal is a class and one sentence (``detail``), with the problems of a file
refused at import. No status code lives here: ``edge/http/problems.py`` maps each
class to its status and title, ``edge/mcp.py`` to a tool error, ``edge/cli.py`` to an
exit code (docs/design/store-and-service.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.errors import DiceboundError
from dicebound.problems import Problem

__all__ = [
    "Conflict",
    "Forbidden",
    "Invalid",
    "NotFound",
    "Refusal",
    "RevisionRequired",
    "Stale",
    "TooLarge",
    "Unauthorized",
]


class Refusal(DiceboundError):
    """A request refused before anything was written: ``detail`` is one sentence,
    ``problems`` the faults of a file refused at import."""

    def __init__(self, detail: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(detail)
        self.detail = detail
        self.problems = tuple(problems)


class NotFound(Refusal):
    """Nothing of that name here, or nothing this caller may see."""


class Invalid(Refusal):
    """The request cannot be done as asked."""


class TooLarge(Refusal):
    """Past one of the caps of ``Limits``."""


class Conflict(Refusal):
    """Conflicts with what is stored (a version stored with other content, an answer
    given twice)."""


class Unauthorized(Refusal):
    """No token, or one that is no one's."""


class Forbidden(Refusal):
    """A game's token where the admin's is needed."""


class RevisionRequired(Refusal):
    """A change sent without the revision it was made against."""


class Stale(Refusal):
    """A change made against a revision that is no longer the stored one."""
