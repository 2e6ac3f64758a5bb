"""Reading rulesets and characters from files or from the package (the edge: I/O).

Every command takes a packaged ruleset's id where it takes a file, and a packaged
character as ``<ruleset id>/<name>`` (or just ``<name>`` beside a packaged ruleset).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from dicebound.character import load_character
from dicebound.errors import CharacterInvalid, UsageError
from dicebound.jsontext import Unreadable, read_json
from dicebound.problems import Problem, did_you_mean
from dicebound.ruleset.compile import load_ruleset_text
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character

__all__ = [
    "MAX_CHARACTER_BYTES",
    "packaged_characters",
    "packaged_rulesets",
    "read_character",
    "read_ruleset",
    "ruleset_text",
]


MAX_CHARACTER_BYTES = 64 * 1024
"""A character file's largest size (Marinara's sheet cap), refused past it."""


def _data() -> resources.abc.Traversable:
    return resources.files("dicebound.data")


def packaged_rulesets() -> list[str]:
    """The ids of the rulesets shipped with dicebound."""
    folder = _data() / "rulesets"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def packaged_characters(ruleset_id: str) -> list[str]:
    """The names of the characters shipped for a packaged ruleset."""
    folder = _data() / "characters" / ruleset_id
    if not folder.is_dir():
        return []
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def ruleset_text(where: str) -> tuple[str, str]:
    """The text of a ruleset file or packaged ruleset, and the name to show for it."""
    path = Path(where)
    if path.is_file():
        return path.read_text(encoding="utf-8", errors="replace"), str(path)
    if where in packaged_rulesets():
        text = (_data() / "rulesets" / f"{where}.json").read_text(encoding="utf-8")
        return text, where
    hint = did_you_mean(where, packaged_rulesets())
    raise UsageError(
        f'"{where}" is neither a ruleset file nor a packaged ruleset '
        f"({', '.join(packaged_rulesets())}).{hint}"
    )


def read_ruleset(where: str, capability_api: str | None = None) -> Ruleset:
    """Import a ruleset file or a packaged ruleset by id.

    Raises:
        RulesetInvalid: the file's problems. UsageError: nothing found there.
    """
    text, _ = ruleset_text(where)
    return load_ruleset_text(text, capability_api=capability_api)


def read_character(ruleset: Ruleset, where: str) -> Character:
    """Load a character file, or a packaged character of a packaged ruleset."""
    path = Path(where)
    if path.is_file():
        text = path.read_text(encoding="utf-8", errors="replace")
    else:
        ruleset_id, _, name = where.rpartition("/")
        ruleset_id = ruleset_id or ruleset.id
        names = packaged_characters(ruleset_id)
        if name not in names:
            hint = did_you_mean(name, names)
            shipped = f" (packaged for {ruleset_id}: {', '.join(names)})" if names else ""
            raise UsageError(f'"{where}" is not a character file{shipped}.{hint}')
        text = (_data() / "characters" / ruleset_id / f"{name}.json").read_text(encoding="utf-8")
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_CHARACTER_BYTES:
        raise CharacterInvalid(
            [
                Problem(
                    (),
                    "too-large",
                    f"is {size:,} bytes; a character file may be at most "
                    f"{MAX_CHARACTER_BYTES:,} bytes (64 KB).",
                )
            ]
        )
    try:
        raw, twice = read_json(text)
    except Unreadable as exc:
        raise CharacterInvalid([Problem((), "not-json", str(exc))]) from exc
    if twice:
        raise CharacterInvalid(twice)
    return load_character(ruleset, raw)
