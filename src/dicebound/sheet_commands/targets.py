"""Whose sheet a command is about: character keys and ``who`` resolved against the
party (docs/design/sheet-commands.md "Targets").

A name is matched by its character key, which forgets case, accents and punctuation
(``Tam the Bold`` and ``tam-the-bold`` are one key), never by a partial match: a name
that answers to nobody is refused, never applied to somebody else.

Two cards may share a key. Marinara keeps one live state per key; in dicebound every
``Character`` carries its own live state, so where two cards share a key the player
card stands for it: a command reaches that key only through the player card (a bare
command, the player's own name, or the party keyword), and the other cards of that
key are never targets. Any other shared key is ambiguous.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from dicebound.sheet_commands.reasons import AMBIGUOUS_CHARACTER, UNKNOWN_CHARACTER
from dicebound.values import frozen

__all__ = ["PARTY", "Targets", "Unresolved", "character_key", "resolve_targets"]

PARTY = "party"
"""The ``who`` key that means every member of the party."""


@lru_cache(maxsize=1024)
def character_key(name: str) -> str:
    """The key a name is stored and matched under: NFKD, combining marks U+0300..U+036F
    dropped, lowercased, every run of characters that are not letters, numbers or marks
    one space, trimmed (``Tam the Bold`` -> ``tam the bold``, ``Zoë`` -> ``zoe``)."""
    decomposed = unicodedata.normalize("NFKD", name)
    lowered = "".join(c for c in decomposed if not "\u0300" <= c <= "\u036f").lower()
    category = unicodedata.category
    kept = "".join(c if category(c)[0] in "LNM" else " " for c in lowered)
    return " ".join(kept.split())


@frozen
class Targets:
    """The cards a command applies to, as indexes into the party in the order they are
    tried, and the ``who`` the written tag names (a card's own name, or ``party``)."""

    members: tuple[int, ...]
    who: str


@frozen
class Unresolved:
    """Nobody the command can be applied to: ``unknown-character`` or
    ``ambiguous-character``."""

    reason: str


def _player_card(keys: Sequence[str], player: str | None) -> int | None:
    """The first card whose key is the player's key; None without a player or card."""
    if player is None:
        return None
    player_key = character_key(player)
    return next((i for i, key in enumerate(keys) if key == player_key), None)


def resolve_targets(
    names: Sequence[str], player: str | None, who: str | None
) -> Targets | Unresolved:
    """Whom ``who`` names among the cards ``names`` (in party order), given the player's
    name: nobody written is the player card; ``party`` is one card per key; any other
    name is the one card of its key, or the player card where the key is shared and is
    the player's."""
    return _resolved(tuple(names), player, who)


# A pure function of the names alone: a text names the same cards, by the same names,
# command after command.
@lru_cache(maxsize=1024)
def _resolved(names: tuple[str, ...], player: str | None, who: str | None) -> Targets | Unresolved:
    keys = [character_key(name) for name in names]
    player_card = _player_card(keys, player)
    player_key = None if player_card is None else keys[player_card]
    if who is None:
        if player_card is None:
            return Unresolved(UNKNOWN_CHARACTER)
        return Targets((player_card,), names[player_card])
    wanted = character_key(who)
    if wanted == PARTY:
        members = _party(keys, player_card, player_key)
        return Targets(members, PARTY) if members else Unresolved(UNKNOWN_CHARACTER)
    cards = [i for i, key in enumerate(keys) if key == wanted]
    if len(cards) == 1:
        return Targets((cards[0],), names[cards[0]])
    if cards and player_card is not None and wanted == player_key:
        return Targets((player_card,), names[player_card])
    return Unresolved(AMBIGUOUS_CHARACTER if cards else UNKNOWN_CHARACTER)


def _party(keys: Sequence[str], player_card: int | None, player_key: str | None) -> tuple[int, ...]:
    """One card per key in order of each key's first card: the key's only card, or the
    player card for the player's key; any other shared key is left out."""
    cards_of: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        cards_of.setdefault(key, []).append(i)
    members: list[int] = []
    for key, cards in cards_of.items():
        if key == player_key and player_card is not None:
            members.append(player_card)
        elif len(cards) == 1:
            members.append(cards[0])
    return tuple(members)
