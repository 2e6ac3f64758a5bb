"""Names folded for comparison: what a Game Master writes and what a ruleset declares
compare equal when they differ only by case, punctuation or underscores.

A module of its own, below everything that compares names (``dicebound.tags.names``,
the ruleset's model, which folds each ladder step's label once when it is compiled).
"""

from __future__ import annotations

import re

__all__ = ["normalize"]

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def normalize(name: str) -> str:
    """Fold case, punctuation and underscores so "Sleight_of-Hand" equals "sleight of hand"."""
    folded = name.casefold()
    if folded.isascii() and folded.replace(" ", "").isalnum():
        # words of letters and digits ("Spot Hidden"): only the spaces to tidy, as the
        # pattern below would
        return " ".join(folded.split())
    return " ".join(_NOT_ALNUM.sub(" ", folded).split())
