"""The one pass over a Game Master's text, and the tag families it knows.

``resolve_text`` resolves every tag of a text in the order written; each kind of tag is
a family (``dicebound.tagpass.families``) behind one small protocol
(``dicebound.tagpass.family``): the pass reads the text once and hands each tag to its
family, which resolves it against the working state and gives back its rewritten text.
"""

from dicebound.tagpass.families.checks import MAX_TAGS_PER_TEXT
from dicebound.tagpass.run import MAX_FORCED_FACES, MAX_TEXT_CHARS, CheckReport, resolve_text

__all__ = ["MAX_FORCED_FACES", "MAX_TAGS_PER_TEXT", "MAX_TEXT_CHARS", "CheckReport", "resolve_text"]
