"""Problems found in a ruleset or a character file: a path, a stable code and a sentence.

A path is a tuple of keys and indexes into the submitted JSON. It renders the way an
author reads it: ``resolution.difficultyLadder[2].dc``. The empty path (the document
itself) renders as ``$``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dicebound.values import frozen

PathPart = str | int
Path = tuple[PathPart, ...]

__all__ = ["Path", "PathPart", "Problem", "did_you_mean", "render_path", "sort_problems"]


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


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """A short suffix suggesting the nearest known name, or ``""`` when none is close."""
    import difflib  # only a refusal needs it

    pool = [c for c in choices if isinstance(c, str)]
    close = difflib.get_close_matches(name, pool, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in pool}
        close = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), 1, 0.6)]
    return f' Did you mean "{close[0]}"?' if close else ""


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Order problems by where they are in the document, keeping each one once."""
    seen: set[Problem] = set()
    unique = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            unique.append(p)
    return sorted(
        unique, key=lambda p: tuple((0, x) if isinstance(x, int) else (1, x) for x in p.path)
    )
