"""The rulesets and characters the live-sheet tests (tests/sheet_commands/) play on.

Marinara's reference rulesets are read from the shared folder (``shared_path``), never
copied; a fact that needs a shape they lack edits a copy of one (``variant``). A
character is loaded strictly from its build, and its stored live record is read the
tolerant way the sheet commands read one (``tolerant_live``), so a test may store what a
character file would refuse.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from dicebound.character import load_character
from dicebound.compiler import compile_ruleset
from dicebound.packaged import data_text
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.sheet_commands.apply import apply_request
from dicebound.sheet_commands.current import tolerant_live
from dicebound.sheet_commands.model import Applied, Refused, SheetRequest
from shared_files import shared_path

__all__ = [
    "EMBER",
    "FIVE_E",
    "GRAVEWATCH",
    "apply",
    "character",
    "marinara",
    "marinara_raw",
    "now_or_reason",
    "packaged",
    "packaged_character",
    "variant",
]

FIVE_E = "ruleset-5e-2014.example.json"
GRAVEWATCH = "gravewatch.json"
EMBER = "ember-roads.json"


@cache
def _raw_text(name: str) -> str:
    return shared_path("marinara", name).read_text(encoding="utf-8")


def marinara_raw(name: str) -> dict[str, Any]:
    """A fresh parsed copy of one of Marinara's reference rulesets."""
    parsed: dict[str, Any] = json.loads(_raw_text(name))
    return parsed


@cache
def marinara(name: str) -> Ruleset:
    return compile_ruleset(marinara_raw(name))


def variant(name: str, edit: Callable[[dict[str, Any]], None]) -> Ruleset:
    """One of the reference rulesets with ``edit`` made to a copy of it."""
    raw = copy.deepcopy(marinara_raw(name))
    edit(raw)
    return compile_ruleset(raw)


@cache
def packaged(ruleset_id: str) -> Ruleset:
    return compile_ruleset(json.loads(data_text(f"rulesets/{ruleset_id}.json")))


def packaged_character(ruleset_id: str, name: str) -> Character:
    raw = json.loads(data_text(f"characters/{ruleset_id}/{name}.json"))
    return load_character(packaged(ruleset_id), raw)


def character(
    ruleset: Ruleset,
    fields: Mapping[str, Any] | None = None,
    lists: Mapping[str, Any] | None = None,
    live: object = None,
    abilities: Mapping[str, Any] | None = None,
    name: str = "Mira",
) -> Character:
    """A character of ``ruleset`` with this build (loaded strictly) and this stored live
    record (read tolerantly)."""
    build: dict[str, Any] = {}
    for key, value in (("fields", fields), ("lists", lists), ("abilities", abilities)):
        if value is not None:
            build[key] = dict(value)
    loaded = load_character(ruleset, {"name": name, "sheet": {"v": 1, "build": build}})
    return Character(loaded.name, loaded.build, tolerant_live(live))


def apply(ruleset: Ruleset, who: Character, op: str, **attrs: Any) -> Applied | Refused:
    return apply_request(ruleset, who, SheetRequest(op, **attrs))  # type: ignore[arg-type]


def now_or_reason(outcome: Applied | Refused) -> str:
    """What a row expects: the ``now`` of an applied command, or ``refused <reason>``."""
    if isinstance(outcome, Refused):
        return f"refused {outcome.reason}"
    return outcome.now
