"""Problems found in a ruleset or a character file: a path, a stable code and a sentence.

A path is a tuple of keys and indexes into the submitted JSON. It renders the way an
author reads it: ``resolution.difficultyLadder[2].dc``. The empty path (the document
itself) renders as ``$``. Every code is a constant of ``problem_codes``; the problems
met in many places are built by the one-line factories at the end of this module, so
each is worded once (docs/design/problems.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from dicebound.problem_codes import (
    MIN_ABOVE_MAX,
    MISSING_KEY,
    OUT_OF_RANGE,
    TOO_LARGE,
    TOO_SMALL,
    UNKNOWN_ID,
    UNKNOWN_KEY,
    WRONG_TYPE,
)
from dicebound.values import frozen

PathPart = str | int
Path = tuple[PathPart, ...]

__all__ = [
    "HINT_WORK",
    "Path",
    "PathPart",
    "Problem",
    "did_you_mean",
    "hints_bounded",
    "min_above_max",
    "missing_key",
    "not_a_column",
    "out_of_range",
    "path_order",
    "render_path",
    "sort_problems",
    "too_large",
    "too_small",
    "unknown_id",
    "unknown_key",
    "wrong_type",
]


def render_path(path: Sequence[PathPart]) -> str:
    """Render a path as ``a.b[2].c``; the empty path is ``$``."""
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif out:
            out.append(f".{part}")
        else:
            out.append(part)
    return "".join(out) or "$"


@frozen
class Problem:
    """One thing wrong with a submitted file. Immutable."""

    path: Path
    code: str
    message: str

    @property
    def where(self) -> str:
        return render_path(self.path)

    def __str__(self) -> str:
        """``PATH: SENTENCE``; a problem of the whole document is its sentence alone,
        about "The file" where the sentence goes on from a path (``is not JSON: ...``).
        Its path ``$`` stays in ``to_json``."""
        if self.path:
            return f"{self.where}: {self.message}"
        return f"The file {self.message}" if self.message[:1].islower() else self.message

    def to_json(self) -> dict[str, str]:
        return {"path": self.where, "code": self.code, "message": self.message}


class _Hints:
    """What the refusals of one file may still spend on "Did you mean", and the hints
    already found."""

    def __init__(self, work: int) -> None:
        self.left = work
        self.found: dict[tuple[str, tuple[str, ...]], str] = {}


_HINTS: ContextVar[_Hints | None] = ContextVar("dicebound_hints", default=None)

HINT_WORK = 1_000_000
"""How much one file's hints may cost, in characters compared (two names that look
alike cost the product of their lengths): about a tenth of a second. Unbounded, a file
of thousands of unknown names against thousands of ids spent seconds suggesting names,
and minutes as both grew."""


@contextmanager
def hints_bounded(work: int = HINT_WORK) -> Iterator[None]:
    """Within it, ``did_you_mean`` stops suggesting once ``work`` is spent (every
    problem is still found; the later ones only lose their hint), and a name met again
    among the same choices gets the hint it got before. Checking one file runs inside
    one."""
    token = _HINTS.set(_Hints(work))
    try:
        yield
    finally:
        _HINTS.reset(token)


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """A short suffix suggesting the nearest known name, or ``""`` when none is close
    (or, inside ``hints_bounded``, when the file's hints are spent)."""
    hints = _HINTS.get()
    if hints is not None and hints.left <= 0:
        return ""
    pool = tuple(c for c in choices if isinstance(c, str))
    key = (name, pool)
    if hints is not None:
        hints.left -= len(pool)  # reading the choices is work too
        if key in hints.found:
            return hints.found[key]
    close = _closest(name, pool, hints)
    if close is None:
        lowered = {c.lower(): c for c in pool}
        close = _closest(name.lower(), tuple(lowered), hints)
        close = None if close is None else lowered[close]
    hint = f' Did you mean "{close}"?' if close is not None else ""
    if hints is not None and hints.left > 0:
        hints.found[key] = hint
    return hint


def _closest(name: str, pool: Sequence[str], hints: _Hints | None) -> str | None:
    """The choice most like ``name`` with a likeness of 0.6 or more (as difflib's
    ``get_close_matches(name, pool, 1, 0.6)`` picks it), each comparison charged to
    ``hints``; None when none is, or when the hints are spent before it is found."""
    from difflib import SequenceMatcher  # only a refusal needs it

    best: tuple[float, str] | None = None
    matcher = SequenceMatcher()
    matcher.set_seq2(name)
    for choice in pool:
        if hints is not None:
            if hints.left <= 0:
                return None
            hints.left -= 40 + 2 * (len(name) + len(choice))
        matcher.set_seq1(choice)
        if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
            continue
        if hints is not None:
            hints.left -= 400 + len(name) * len(choice)
            if hints.left < 0:
                return None
        score = matcher.ratio()
        if score >= 0.6 and (best is None or (score, choice) > best):
            best = (score, choice)
    return None if best is None else best[1]


def path_order(path: Path) -> tuple[tuple[int, PathPart], ...]:
    """A key that orders paths part by part, an index before a key."""
    return tuple([(0, x) if isinstance(x, int) else (1, x) for x in path])


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Order problems by where they are in the document, keeping each one once."""
    return sorted(dict.fromkeys(problems), key=lambda p: path_order(p.path))


# -- the factories: each problem met in many places, worded once -----------------------
# Values reach them already shown (``ruleset.spec.describe``), so this module stays below
# the spec.


def unknown_id(
    path: Path,
    name: str,
    what: str,
    known: Iterable[str],
    *,
    of: str = "this ruleset",
    code: str = UNKNOWN_ID,
) -> Problem:
    """A name nothing declares: ``"blade" is not a skill of this ruleset.`` and a hint."""
    return Problem(path, code, f'"{name}" is not {what} of {of}.{did_you_mean(name, known)}')


def unknown_key(
    path: Path, key: str, known: Iterable[str], *, takes: str = "a key this object takes"
) -> Problem:
    """A key the object does not take, with the nearest one it does."""
    return Problem(path, UNKNOWN_KEY, f'"{key}" is not {takes}.{did_you_mean(key, known)}')


def not_a_column(path: Path, name: str, list_id: str, known: Iterable[str]) -> Problem:
    """A column the named list does not declare."""
    hint = did_you_mean(name, known)
    return Problem(path, UNKNOWN_ID, f'"{name}" is not a column of the list "{list_id}".{hint}')


def missing_key(path: Path, key: str, *, where: str = "here") -> Problem:
    """A required key that is absent (``where``: on what, and why)."""
    return Problem(path, MISSING_KEY, f'the key "{key}" is required {where}.')


def wrong_type(path: Path, wanted: str, shown: str) -> Problem:
    """A value of the wrong JSON type: ``must be a list, not "sword".``"""
    return Problem(path, WRONG_TYPE, f"must be {wanted}, not {shown}.")


def too_small(path: Path, least: object, shown: str, *, above: bool = False) -> Problem:
    """A number below its least (``above``: the least itself is refused too)."""
    said = "above" if above else "at least"
    return Problem(path, TOO_SMALL, f"must be {said} {least}, not {shown}.")


def too_large(path: Path, most: object, shown: str) -> Problem:
    """A number above its most."""
    return Problem(path, TOO_LARGE, f"must be at most {most}, not {shown}.")


def min_above_max(path: Path, low: object, high: object, what: str) -> Problem:
    """A range written upside down; ``what`` runs from min to max."""
    return Problem(path, MIN_ABOVE_MAX, f"{low} is above max {high}; {what} runs from min to max.")


def out_of_range(path: Path, value: object, low: object, high: object, what: str) -> Problem:
    """A default outside its range; ``what`` lies between min and max."""
    return Problem(
        path, OUT_OF_RANGE, f"{value} is outside {low}..{high}; {what} lies between min and max."
    )
