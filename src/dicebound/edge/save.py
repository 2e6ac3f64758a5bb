"""``check --save``: a character's live state written back to its file, whole or not at
all.

The new file is written beside the old one, flushed and fsynced, then renamed over it
(and the folder fsynced), so a crash at any moment leaves either the old file or the
new one, never a torn one. The file keeps its keys in the order its author wrote them,
its indentation, and its final newline; only ``live`` changes.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from dicebound.character import live_to_json
from dicebound.errors import UsageError
from dicebound.jsontext import Unreadable, read_json
from dicebound.sheet import Character

__all__ = ["save_fight", "save_live", "write_atomically"]


def _in_order(old: Any, new: Any) -> Any:
    """``new``, its keys in ``old``'s order where ``old`` had them, new keys after."""
    if isinstance(old, dict) and isinstance(new, dict):
        kept = {key: _in_order(old[key], new[key]) for key in old if key in new}
        kept.update((key, value) for key, value in new.items() if key not in kept)
        return kept
    return new


def _indent(text: str) -> int | None:
    """The indentation the file was written with (None: on one line)."""
    match = re.search(r"\n([ \t]+)\S", text)
    if match is None:
        return None
    return len(match.group(1).expandtabs(4))


def save_live(path: Path, character: Character) -> None:
    """Write ``character``'s live state into the character file at ``path``.

    Raises:
        UsageError: the file cannot be read or written (nothing is changed then).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError) as exc:
        raise UsageError(f'cannot read "{path}" to save into it: {exc}.') from exc
    try:
        body, _ = read_json(text)
    except Unreadable as exc:
        raise UsageError(f'cannot read "{path}" to save into it: the file {exc}') from exc
    if not isinstance(body, dict):
        raise UsageError(f'"{path}" is not a character file (not a JSON object).')
    live = live_to_json(character.live)
    body["live"] = _in_order(body.get("live", {}), live)
    written = json.dumps(body, indent=_indent(text), ensure_ascii=False)
    if text.endswith("\n"):
        written += "\n"
    write_atomically(path, written, path.stat().st_mode & 0o7777)


def save_fight(path: Path, fight: dict[str, Any] | None) -> None:
    """Write a fight file, ``{"fight": STATE}``, as a character file is written: whole
    or not at all (a new file is made readable and writable by its owner and readable
    by others).

    Raises:
        UsageError: the file cannot be written (nothing is changed then).
    """
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    write_atomically(path, json.dumps({"fight": fight}, indent=2, ensure_ascii=False) + "\n", mode)


def write_atomically(path: Path, written: str, mode: int) -> None:
    """``written`` into ``path`` through a temporary file beside it, fsynced, then
    renamed over it, and the folder fsynced."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("w", encoding="utf-8") as out:
            out.write(written)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise UsageError(f'cannot save into "{path}": {exc.strerror or exc}.') from exc
    try:
        folder = os.open(path.parent, os.O_RDONLY)
    except OSError:  # a folder that cannot be opened cannot be fsynced either
        return
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
