"""The tag families the pass knows, in the order they are registered.

Each family is a package of its own (``checks``, ``sheet``, ``fight``) behind the protocol of
``dicebound.tagpass.family``; a new family (fights, items) is one more package and one
more entry here.
"""

from __future__ import annotations

from dicebound.tagpass.families.checks import CHECKS
from dicebound.tagpass.families.fight import FIGHT
from dicebound.tagpass.families.sheet import SHEET
from dicebound.tagpass.family import TagFamily

__all__ = ["FAMILIES"]

FAMILIES: tuple[TagFamily, ...] = (CHECKS, SHEET, FIGHT)
"""Every family a text's tags are read as."""
