"""The one rule for a seed, on every route and tool: what a seed may be, and how the
store keeps it."""

from __future__ import annotations

import json
import re

from dicebound.app.errors import Invalid

__all__ = ["SEED_PATTERN", "SEED_RULE", "seed_text"]

SEED_PATTERN = r"^[\x21-\x7e]{1,200}$"
SEED_RULE = "a seed is 1 to 200 printable ASCII characters without spaces, or a whole number"


def seed_text(seed: object) -> str | None:
    """A seed as the store keeps it: 1 to 200 printable ASCII characters, no spaces (a
    whole number is read as its digits). The one rule for the seed of every route and
    tool: ``true`` or ``1.5`` is refused, never read as 1."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, str | int):
        raise Invalid(f"{SEED_RULE}, not {_shown(seed)}.")
    if isinstance(seed, int) and not -(10**200) < seed < 10**200:
        raise Invalid(f"{SEED_RULE}; this number has more than 200 digits.")
    text = str(seed)
    if not re.fullmatch(SEED_PATTERN, text):
        raise Invalid(f"{SEED_RULE}.")
    return text


def _shown(value: object) -> str:
    """A JSON value as a sentence names it: ``true``, ``1.5``, ``a list``."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return json.dumps(value)
