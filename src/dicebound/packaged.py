"""The rulesets and characters shipped inside dicebound (``dicebound/data``), read by
id: the command line's files, the service's packaged rulesets and the MCP resources
all read them here."""

from __future__ import annotations

import os
from functools import cache

__all__ = ["data_text", "packaged_characters", "packaged_rulesets"]


_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
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


def data_text(file: str) -> str:
    """The text of a packaged data file (``rulesets/<id>.json`` and the like)."""
    if _installed_as_files():
        with open(os.path.join(_DATA, file), encoding="utf-8") as f:
            return f.read()
    from importlib import resources

    return resources.files("dicebound.data").joinpath(*file.split("/")).read_text("utf-8")


def packaged_rulesets() -> list[str]:
    """The ids of the rulesets shipped with dicebound."""
    return _data_names("rulesets") or []


def packaged_characters(ruleset_id: str) -> list[str]:
    """The names of the characters shipped for a packaged ruleset."""
    if not ruleset_id or "/" in ruleset_id or "\\" in ruleset_id or ruleset_id in (".", ".."):
        return []
    return _data_names(f"characters/{ruleset_id}") or []
