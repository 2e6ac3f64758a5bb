"""Problems found in a ruleset or a character file: a path, a stable code and a sentence.

A path is a tuple of keys and indexes into the submitted JSON. It renders the way an
author reads it: ``resolution.difficultyLadder[2].dc``. The empty path (the document
itself) renders as ``$``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

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
    "path_order",
    "render_path",
    "sort_problems",
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
        return f"{self.where}: {self.message}"

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
