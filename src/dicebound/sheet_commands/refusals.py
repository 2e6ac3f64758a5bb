"""A sheet command refused because its ``who=`` named nobody, in a person's words:
whom it could have named.

The reason itself (``unknown-character``) is the stable word a record keeps; these
words are only for a person reading a card. A first name alone (``who="Mira"``) names
nobody when the card is "Mira Vance": names are matched whole, never in part, so the
words list the party's full names to write instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from dicebound.sheet_commands.reasons import AMBIGUOUS_CHARACTER, UNKNOWN_CHARACTER

__all__ = ["names_words", "who_refusal"]


def names_words(names: Sequence[str]) -> str:
    """``"Mira Vance"``, ``"Mira Vance or Tam"``, ``"Mira Vance, Tam or Ola"``: each
    name quoted, as ``who=`` takes it."""
    quoted = [f'"{name}"' for name in dict.fromkeys(names)]
    if len(quoted) <= 1:
        return "".join(quoted)
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def who_refusal(reason: str, who: str | None, party: Sequence[str]) -> str | None:
    """Why a command that named nobody (``unknown-character``) or two cards
    (``ambiguous-character``) was refused, with the party's full names to write in
    ``who=`` (``party`` is the cards' names in party order); None for any other
    reason, whose word says it all."""
    if reason not in (UNKNOWN_CHARACTER, AMBIGUOUS_CHARACTER):
        return None
    if not party:
        return "the game has no characters yet"
    if reason == AMBIGUOUS_CHARACTER:
        named = f'two characters answer to "{who}"'
    elif who:
        named = f'nobody in the party is called "{who}"'
    else:
        named = "the command names nobody and there is no player's character"
    return f'{named}; write who= with a full name: {names_words(party)}, or "party"'
