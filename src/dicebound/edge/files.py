"""Reading rulesets and characters from files or from the package (the edge: I/O).

Every command takes a packaged ruleset's id where it takes a file, and a packaged
character as ``<ruleset id>/<name>`` (or just ``<name>`` beside a packaged ruleset).
"""

from __future__ import annotations

import os
from functools import cache

from dicebound.character import load_character
from dicebound.errors import CharacterInvalid, UsageError
from dicebound.jsontext import Unreadable, read_json
from dicebound.problems import Problem, did_you_mean
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


_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
"""The packaged data folder, where dicebound is installed as files (it nearly always is:
importlib.resources, slow to import, reads it only from an install that is not)."""


@cache
def _installed_as_files() -> bool:
    """Whether the packaged data is a folder on disk (looked at once per process)."""
    return os.path.isdir(_DATA)


def _data_names(folder: str) -> list[str] | None:
    """The names of the ``.json`` files of a packaged data folder; None if it is none."""
    if _installed_as_files():
        where = os.path.join(_DATA, folder)
        names = os.listdir(where) if os.path.isdir(where) else None
    else:
        from importlib import resources

        traversable = resources.files("dicebound.data").joinpath(*folder.split("/"))
        names = [p.name for p in traversable.iterdir()] if traversable.is_dir() else None
    if names is None:
        return None
    return sorted(name[:-5] for name in names if name.endswith(".json"))


def _data_text(file: str) -> str:
    """The text of a packaged data file (``rulesets/<id>.json`` and the like)."""
    if _installed_as_files():
        with open(os.path.join(_DATA, file), encoding="utf-8") as f:
            return f.read()
    from importlib import resources

    return resources.files("dicebound.data").joinpath(*file.split("/")).read_text("utf-8")


def _file_text(where: str) -> tuple[str, str] | None:
    """A file's text (undecodable bytes replaced) and the name to show, if it is a file."""
    if not os.path.isfile(where):
        return None
    from pathlib import Path  # a file named by the user: the name shown as Path shows it

    path = Path(where)
    return path.read_text(encoding="utf-8", errors="replace"), str(path)


def packaged_rulesets() -> list[str]:
    """The ids of the rulesets shipped with dicebound."""
    return _data_names("rulesets") or []


def packaged_characters(ruleset_id: str) -> list[str]:
    """The names of the characters shipped for a packaged ruleset."""
    if not ruleset_id or "/" in ruleset_id or "\\" in ruleset_id or ruleset_id in (".", ".."):
        return []
    return _data_names(f"characters/{ruleset_id}") or []


def ruleset_text(where: str) -> tuple[str, str]:
    """The text of a ruleset file or packaged ruleset, and the name to show for it."""
    from_file = _file_text(where)
    if from_file is not None:
        return from_file
    if where in packaged_rulesets():
        return _data_text(f"rulesets/{where}.json"), where
    hint = did_you_mean(where, packaged_rulesets())
    raise UsageError(
        f'"{where}" is neither a ruleset file nor a packaged ruleset '
        f"({', '.join(packaged_rulesets())}).{hint}"
    )


def read_ruleset(where: str, capability_api: str | None = None) -> Ruleset:
    """Import a ruleset file or a packaged ruleset by id.

    A ruleset compiled before is read back from the on-disk cache of compiled
    rulesets (``dicebound.edge.ruleset_cache``: keyed by the text, dicebound's
    version and source; ``DICEBOUND_NO_CACHE=1`` switches it off).

    Raises:
        RulesetInvalid: the file's problems. UsageError: nothing found there.
    """
    from dicebound.edge.ruleset_cache import cached_ruleset

    text, _ = ruleset_text(where)
    return cached_ruleset(text, capability_api, _compile_text)


def _compile_text(text: str, capability_api: str | None) -> Ruleset:
    from dicebound.ruleset.compile import load_ruleset_text

    return load_ruleset_text(text, capability_api=capability_api)


def read_character(ruleset: Ruleset, where: str) -> Character:
    """Load a character file, or a packaged character of a packaged ruleset."""
    from_file = _file_text(where)
    if from_file is not None:
        text = from_file[0]
    else:
        ruleset_id, _, name = where.rpartition("/")
        ruleset_id = ruleset_id or ruleset.id
        names = packaged_characters(ruleset_id)
        if name not in names:
            hint = did_you_mean(name, names)
            shipped = f" (packaged for {ruleset_id}: {', '.join(names)})" if names else ""
            raise UsageError(f'"{where}" is not a character file{shipped}.{hint}')
        text = _data_text(f"characters/{ruleset_id}/{name}.json")
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
