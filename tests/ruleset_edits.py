"""Small edits on a parsed ruleset, addressed by the paths problems render (``a.b[2].c``).

The refusal tables make one change each to a valid ruleset with these helpers, so every
row reads as the change it makes.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent / "cases"

Edit = Callable[[dict[str, Any]], None]


def parts(path: str) -> list[str | int]:
    """``"sheet.derived[2].of"`` → ``["sheet", "derived", 2, "of"]``."""
    out: list[str | int] = []
    for match in re.finditer(r"\[(\d+)\]|([^.\[\]]+)", path):
        index, key = match.groups()
        out.append(int(index) if index is not None else key)
    return out


def _parent(doc: Any, path: str) -> tuple[Any, str | int]:
    *head, last = parts(path)
    node = doc
    for part in head:
        node = node[part]
    return node, last


def get(doc: Any, path: str) -> Any:
    node, last = _parent(doc, path)
    return node[last]


def put(path: str, value: Any) -> Edit:
    """Set (or add) the value at ``path``."""

    def edit(doc: dict[str, Any]) -> None:
        node, last = _parent(doc, path)
        node[last] = copy.deepcopy(value)

    return edit


def drop(path: str) -> Edit:
    """Delete the key or list item at ``path``."""

    def edit(doc: dict[str, Any]) -> None:
        node, last = _parent(doc, path)
        del node[last]

    return edit


def rename(path: str, new: str) -> Edit:
    """Rename the key at ``path``, keeping its place among its siblings."""

    def edit(doc: dict[str, Any]) -> None:
        node, last = _parent(doc, path)
        items = [(new if k == last else k, v) for k, v in node.items()]
        node.clear()
        node.update(items)

    return edit


def move_last(path: str, key: str) -> Edit:
    """Move ``key`` of the object at ``path`` to the end of that object."""

    def edit(doc: dict[str, Any]) -> None:
        node = get(doc, path) if path else doc
        node[key] = node.pop(key)

    return edit


def move_after(path: str, key: str, after: str) -> Edit:
    """Move ``key`` of the object at ``path`` to just after its key ``after``."""

    def edit(doc: dict[str, Any]) -> None:
        node = get(doc, path) if path else doc
        value = node.pop(key)
        items = list(node.items())
        at = [k for k, _ in items].index(after) + 1
        items.insert(at, (key, value))
        node.clear()
        node.update(items)

    return edit


def extend(path: str, items: list[Any]) -> Edit:
    """Append items to the list at ``path``."""

    def edit(doc: dict[str, Any]) -> None:
        get(doc, path).extend(copy.deepcopy(items))

    return edit


def both(*edits: Edit) -> Edit:
    """Several edits that together make one change."""

    def edit(doc: dict[str, Any]) -> None:
        for one in edits:
            one(doc)

    return edit


def load_case(name: str) -> dict[str, Any]:
    """One of our own hand-written rulesets in ``tests/cases``."""
    loaded: dict[str, Any] = json.loads((CASES / f"ruleset_{name}.json").read_text("utf-8"))
    return loaded


MARINARA_FILES = {
    "ember-roads": "ember-roads.json",
    "gravewatch": "gravewatch.json",
    "5e": "ruleset-5e-2014.example.json",
}
"""The short names refusal tables start from for Marinara's three example rulesets."""


def load_start(name: str, marinara_dir: Path) -> dict[str, Any]:
    """A refusal table's starting ruleset: one of Marinara's examples by its short name
    (read from the shared folder), else one of ours in ``tests/cases``."""
    if name in MARINARA_FILES:
        loaded: dict[str, Any] = json.loads(
            (marinara_dir / MARINARA_FILES[name]).read_text("utf-8")
        )
        return loaded
    return load_case(name)
