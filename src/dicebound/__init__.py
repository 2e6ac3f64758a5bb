"""dicebound: resolve tabletop role-playing checks from a game's ruleset.

The core is pure: a ruleset compiles once into an immutable ``Ruleset``; a check takes
the ruleset, the characters, the Game Master's text and a dice source (a seed or forced
faces) and hands back the text with every tag rewritten as its record. Exact odds come
from the same arithmetic the dice are read with.
"""

from dicebound.character import load_character
from dicebound.dice import DiceSource, ForcedFaces, SeededDice, fresh_seed
from dicebound.engine import (
    CheckFailure,
    CheckReport,
    CheckResult,
    PlayerChoices,
    resolve_text,
)
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
from dicebound.ruleset.compile import compile_ruleset, load_ruleset_text
from dicebound.ruleset.model import Ruleset
from dicebound.sheet import Character
from dicebound.teach import gm_text, sheet_summary
from dicebound.throw import throw_by_name, throw_odds

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
    "Record",
    "Ruleset",
    "RulesetInvalid",
    "SeededDice",
    "TagError",
    "UsageError",
    "check_odds",
    "compile_ruleset",
    "fresh_seed",
    "gm_text",
    "load_character",
    "load_ruleset_text",
    "resolve_text",
    "sheet_summary",
    "throw_by_name",
    "throw_odds",
]
