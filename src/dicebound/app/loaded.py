"""Stored rulesets compiled and stored characters loaded, once per process each.

Safe to share between processes' views of one store: a ruleset version never
changes, and a character is keyed by the very texts it was loaded from. A process keeps
one compiled ruleset per id and version, so the stores one process serves must agree on
what each id and version holds (a store never holds two files under one).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any, TypeVar

from dicebound.app.access import storable
from dicebound.app.errors import NotFound
from dicebound.character import load_character
from dicebound.compiler import load_ruleset_text
from dicebound.problems import did_you_mean
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.store.models import dumps
from dicebound.store.repo import Game, Member, Repo

__all__ = [
    "character_file",
    "compiled",
    "load",
    "load_file",
    "load_member",
    "stored_compiled",
    "stored_ruleset",
]

_K = TypeVar("_K")
_V = TypeVar("_V")


class _Compiled:
    """The compiled rulesets and loaded characters, the oldest forgotten past ``size``."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.rulesets: OrderedDict[tuple[str, int], Ruleset] = OrderedDict()
        self.characters: OrderedDict[tuple[str, int, str, str, str], Character] = OrderedDict()

    def remember(self, table: OrderedDict[_K, _V], key: _K, value: _V) -> _V:
        table[key] = value
        if len(table) > self.size:
            table.popitem(last=False)
        return value


_CACHE = _Compiled(size=2048)


def stored_ruleset(repo: Repo, ruleset_id: str, version: int | None) -> tuple[str, int, str]:
    """(id, version, file) of a ruleset's newest stored version, or of ``version``."""
    found = repo.ruleset(ruleset_id, version) if storable(ruleset_id) else None
    if found is None:
        known = repo.ruleset_ids()
        if version is not None and ruleset_id in known:
            raise NotFound(f'the ruleset "{ruleset_id}" has no version {version}.')
        raise NotFound(f'no ruleset "{ruleset_id}" is stored.{did_you_mean(ruleset_id, known)}')
    return found


def compiled(repo: Repo, ruleset_id: str, version: int) -> Ruleset:
    """A stored ruleset version, compiled once per process."""
    key = (ruleset_id, version)
    hit = _CACHE.rulesets.get(key)
    if hit is not None:
        return hit
    return stored_compiled(repo, ruleset_id, version)


def stored_compiled(repo: Repo, ruleset_id: str, version: int | None) -> Ruleset:
    """A ruleset's newest stored version, or ``version``, compiled once per process; the
    file read to find it is the one compiled on a miss (never read twice)."""
    found_id, found_version, text = stored_ruleset(repo, ruleset_id, version)
    key = (found_id, found_version)
    hit = _CACHE.rulesets.get(key)
    if hit is not None:
        return hit
    return _CACHE.remember(_CACHE.rulesets, key, load_ruleset_text(text))


def character_file(name: str, sheet_text: str, live: object) -> dict[str, object]:
    """A character file as the core reads it: its name, its sheet (the stored text;
    ``null``: no key) and its live state."""
    body: dict[str, object] = {"name": name}
    sheet = json.loads(sheet_text)
    if sheet is not None:
        body["sheet"] = sheet
    body["live"] = live
    return body


def load(ruleset: Ruleset, key: tuple[str, int], name: str, sheet: str, live: str) -> Character:
    """A stored character (its sheet and live state as the store keeps their texts) as
    the core reads it, loaded once per process per text."""
    cache_key = (*key, name, sheet, live)
    hit = _CACHE.characters.get(cache_key)
    if hit is not None:
        return hit
    character = load_character(ruleset, character_file(name, sheet, json.loads(live)))
    return _CACHE.remember(_CACHE.characters, cache_key, character)


def load_member(ruleset: Ruleset, game: Game, member: Member) -> Character:
    """A party member of ``game`` as the core reads it."""
    key = (game.ruleset_id, game.ruleset_version)
    return load(ruleset, key, member.name, member.sheet, member.live)


def load_file(ruleset: Ruleset, key: tuple[str, int], body: dict[str, Any]) -> Character:
    """A character file kept in a record (its snapshot) as the core reads it."""
    return load(ruleset, key, body["name"], dumps(body.get("sheet")), dumps(body["live"]))
