"""Reading rulesets and characters from files or from the package (the edge: I/O).

Every command takes a packaged ruleset's id where it takes a file, and a packaged
character as ``<ruleset id>/<name>`` (or just ``<name>`` beside a packaged ruleset).
"""

from __future__ import annotations

import os

from dicebound.app.limits import LIMITS
from dicebound.character import load_character
from dicebound.errors import CharacterInvalid, UsageError
from dicebound.jsontext import Unreadable, read_json
from dicebound.packaged import data_text, packaged_characters, packaged_rulesets
from dicebound.problem_codes import NOT_JSON, TOO_LARGE
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


MAX_CHARACTER_BYTES = LIMITS.character_bytes
"""A character file's largest size (Marinara's sheet cap), refused past it: the
service's own cap."""


def _file_text(where: str) -> tuple[str, str] | None:
    """A file's text (undecodable bytes replaced) and the name to show, if it is a file."""
    if not os.path.isfile(where):
        return None
    from pathlib import Path  # a file named by the user: the name shown as Path shows it

    path = Path(where)
    return path.read_text(encoding="utf-8", errors="replace"), str(path)


def ruleset_text(where: str) -> tuple[str, str]:
    """The text of a ruleset file or packaged ruleset, and the name to show for it."""
    from_file = _file_text(where)
    if from_file is not None:
        return from_file
    if where in packaged_rulesets():
        return data_text(f"rulesets/{where}.json"), where
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
    from dicebound.compiler import load_ruleset_text

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
        text = data_text(f"characters/{ruleset_id}/{name}.json")
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_CHARACTER_BYTES:
        raise CharacterInvalid(
            [
                Problem(
                    (),
                    TOO_LARGE,
                    f"is {size:,} bytes; {LIMITS.most_character('character file')}.",
                )
            ]
        )
    try:
        raw, twice = read_json(text)
    except Unreadable as exc:
        raise CharacterInvalid([Problem((), NOT_JSON, str(exc))]) from exc
    if twice:
        raise CharacterInvalid(twice)
    return load_character(ruleset, raw)
