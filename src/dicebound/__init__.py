"""dicebound: resolve tabletop role-playing checks from a game's ruleset.

The core is pure: a ruleset compiles once into an immutable ``Ruleset``; a check takes
the ruleset, the characters, the Game Master's text and a dice source (a seed or forced
faces) and hands back the text with every tag rewritten as its record. Exact odds come
from the same arithmetic the dice are read with.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from dicebound.character import load_character
    from dicebound.compiler import compile_ruleset, load_ruleset_text
    from dicebound.dice import DiceSource, ForcedFaces, SeededDice, fresh_seed
    from dicebound.engine import CheckFailure, CheckResult, PlayerChoices
    from dicebound.errors import (
        CharacterInvalid,
        DiceboundError,
        DiceError,
        LimitExceeded,
        RulesetInvalid,
        TagError,
        UsageError,
    )
    from dicebound.odds import CheckOdds, OutcomeOdds, check_odds
    from dicebound.problems import Problem
    from dicebound.record import Record
    from dicebound.ruleset.model import Ruleset
    from dicebound.sheet import Character
    from dicebound.sheet_commands.model import SheetChange, SheetOutcome
    from dicebound.sheet_commands.written import ReadBack, read_back, strip_sheet_tags
    from dicebound.tagpass import CheckReport, resolve_text
    from dicebound.teach import gm_text, sheet_summary
    from dicebound.throw import throw_by_name, throw_odds

# Names load on first use (PEP 562), so `import dicebound.kinds.dice_sum` or the
# command line does not pay for every kind and the whole engine up front.
_EXPORTS: dict[str, str] = {
    "Character": "dicebound.sheet",
    "CharacterInvalid": "dicebound.errors",
    "CheckFailure": "dicebound.engine",
    "CheckOdds": "dicebound.odds",
    "CheckReport": "dicebound.tagpass",
    "CheckResult": "dicebound.engine",
    "DiceError": "dicebound.errors",
    "DiceSource": "dicebound.dice",
    "DiceboundError": "dicebound.errors",
    "ForcedFaces": "dicebound.dice",
    "LimitExceeded": "dicebound.errors",
    "OutcomeOdds": "dicebound.odds",
    "PlayerChoices": "dicebound.engine",
    "Problem": "dicebound.problems",
    "ReadBack": "dicebound.sheet_commands.written",
    "Record": "dicebound.record",
    "Ruleset": "dicebound.ruleset.model",
    "RulesetInvalid": "dicebound.errors",
    "SeededDice": "dicebound.dice",
    "SheetChange": "dicebound.sheet_commands.model",
    "SheetOutcome": "dicebound.sheet_commands.model",
    "TagError": "dicebound.errors",
    "UsageError": "dicebound.errors",
    "check_odds": "dicebound.odds",
    "compile_ruleset": "dicebound.compiler",
    "fresh_seed": "dicebound.dice",
    "gm_text": "dicebound.teach",
    "load_character": "dicebound.character",
    "load_ruleset_text": "dicebound.compiler",
    "read_back": "dicebound.sheet_commands.written",
    "resolve_text": "dicebound.tagpass",
    "sheet_summary": "dicebound.teach",
    "strip_sheet_tags": "dicebound.sheet_commands.written",
    "throw_by_name": "dicebound.throw",
    "throw_odds": "dicebound.throw",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dicebound' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "Character",
    "CharacterInvalid",
    "CheckFailure",
    "CheckOdds",
    "CheckReport",
    "CheckResult",
    "DiceError",
    "DiceSource",
    "DiceboundError",
    "ForcedFaces",
    "LimitExceeded",
    "OutcomeOdds",
    "PlayerChoices",
    "Problem",
    "ReadBack",
    "Record",
    "Ruleset",
    "RulesetInvalid",
    "SeededDice",
    "SheetChange",
    "SheetOutcome",
    "TagError",
    "UsageError",
    "check_odds",
    "compile_ruleset",
    "fresh_seed",
    "gm_text",
    "load_character",
    "load_ruleset_text",
    "read_back",
    "resolve_text",
    "sheet_summary",
    "strip_sheet_tags",
    "throw_by_name",
    "throw_odds",
]
