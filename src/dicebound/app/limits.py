"""Every cap the service's contract fixes (docs/service.md "Limits"), in one value that
words its own refusals, so a number and the sentence that names it never drift apart.

The HTTP edge reads the byte caps before it parses a body (``edge/http/problems.py``),
the application after; the command line reads a character file against the same cap.
How many requests a second and how long a request may take are the server's own
settings (``edge/http/guards.py``), not caps of the contract.
"""

from __future__ import annotations

from dicebound.app.errors import TooLarge
from dicebound.values import frozen

__all__ = ["LIMITS", "Limits"]


def _kb(count: int) -> str:
    return f"{count:,} bytes ({count // 1024} KB)"


@frozen
class Limits:
    """The caps; each refused with a sentence of its own (``TooLarge``)."""

    ruleset_bytes: int = 256 * 1024
    character_bytes: int = 64 * 1024
    text_bytes: int = 32 * 1024
    body_bytes: int = 512 * 1024  # any other request body
    game_file_bytes: int = 32 * 1024 * 1024  # POST /games/import: a game whole
    tags_per_text: int = 20
    records_per_page: int = 100
    problems_shown: int = 200  # of a ruleset checked without storing it
    idempotency_hours: int = 24
    expired_keys_per_write: int = 100
    events_kept: int = 1000  # of a game's events, for a stream resumed with Last-Event-ID

    def most_ruleset(self) -> str:
        return f"a ruleset may be at most {_kb(self.ruleset_bytes)}"

    def most_character(self, what: str = "character") -> str:
        return f"a {what} may be at most {_kb(self.character_bytes)}"

    def most_game_file(self) -> str:
        return (
            f"a game file may be at most {self.game_file_bytes // (1024 * 1024)} MB here; "
            "import a larger one with dicebound db import-game"
        )

    def most_body(self) -> str:
        return f"a request body may be at most {_kb(self.body_bytes)}"

    def check_ruleset(self, text: str) -> None:
        """Refuse a ruleset file past its size."""
        size = len(text.encode("utf-8", errors="replace"))
        if size > self.ruleset_bytes:
            raise TooLarge(f"the ruleset is {size:,} bytes; {self.most_ruleset()}.")

    def check_character(self, size: int) -> None:
        """Refuse a character file of ``size`` bytes past its size."""
        if size > self.character_bytes:
            raise TooLarge(f"the character file is {size:,} bytes; {self.most_character()}.")

    def check_text(self, size: int) -> None:
        """Refuse a check's text of ``size`` bytes past its size."""
        if size > self.text_bytes:
            raise TooLarge(
                f"the text is {size:,} bytes; a check's text may be at most {_kb(self.text_bytes)}."
            )

    def check_tags(self, count: int) -> None:
        """Refuse a text of ``count`` check tags past their number."""
        if count > self.tags_per_text:
            raise TooLarge(
                f"the text holds {count} check tags; one text may hold at most "
                f"{self.tags_per_text}."
            )

    def check_short(self, text: str, what: str) -> None:
        """Refuse a one-line text (a tag, a dice text) longer than a check's text."""
        if len(text.encode("utf-8", errors="replace")) > self.text_bytes:
            raise TooLarge(f"the {what} is longer than {self.text_bytes:,} bytes.")

    def page(self, limit: int) -> int:
        """A page's length as asked, within 1 and ``records_per_page``."""
        return max(1, min(limit, self.records_per_page))


LIMITS = Limits()
