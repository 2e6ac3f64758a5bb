"""The text read once: every tag of every family, in text order, none overlapping.

One scan finds the heads of all the families together (``[skill_check:``, ``[sheet:``,
any ASCII case); at each, the family the head names reads its tag, and the scan goes
on after that tag's end, so where two tags overlap (one written inside another's
brackets) the one that starts first is the tag and the other is text. A head that
opens no tag (a ``[sheet:`` with no ``]`` near enough) is text, and the scan goes on
just after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dicebound.tagpass.family import Found, TagFamily

__all__ = ["Lexer"]


class Lexer:
    """The scanner for one registry of families."""

    __slots__ = ("by_head", "heads", "written")

    def __init__(self, families: Sequence[TagFamily]) -> None:
        self.by_head = {head: family for family in families for head in family.heads}
        names = "|".join(re.escape(head) for head in self.by_head)
        self.heads = re.compile(rf"\[({names}):", re.IGNORECASE | re.ASCII)
        # each head as the tag is usually written (lowercase), tried first at a "["
        self.written = tuple((f"{head}:", family) for head, family in self.by_head.items())

    def tags(self, text: str) -> list[Found]:
        """Every tag of ``text``, in order. Never raises."""
        found: list[Found] = []
        at = 0
        while True:
            # The next bracket, found in C: most texts hold few, and the usual one opens
            # a tag written as tags are written. Past any other, the regex (any case,
            # ASCII letters only) finds the next head, also in C.
            start = text.find("[", at)
            if start < 0:
                return found
            family = None
            for written, candidate in self.written:
                if text.startswith(written, start + 1):
                    family = candidate
                    break
            if family is None:
                head = self.heads.search(text, start)
                if head is None:
                    return found
                start = head.start()
                family = self.by_head[head.group(1).lower()]
            tag = family.read(text, start)
            if tag is None:
                at = start + 1
            else:
                found.append(tag)
                at = tag.span[1]
