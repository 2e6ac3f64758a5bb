"""Targets, rule by rule: character keys and ``who`` resolved against the party
(docs/design/sheet-commands.md "Targets")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dicebound.sheet_commands.reasons import AMBIGUOUS_CHARACTER, UNKNOWN_CHARACTER
from dicebound.sheet_commands.targets import (
    Targets,
    Unresolved,
    character_key,
    resolve_targets,
)

KEYS = [
    ("Tam the Bold is tam the bold", "Tam the Bold", "tam the bold"),
    ("Mira and mira share the key mira", "Mira", "mira"),
    ("lowercased", "MIRA", "mira"),
    ("combining marks U+0300..U+036F are dropped after NFKD", "Zoë Ångström", "zoe angstrom"),
    ("NFKD folds compatibility forms", "\ufb01re \u2460", "fire 1"),
    ("a run of punctuation is one space", "Tam\u2014the--Bold!!", "tam the bold"),
    ("whitespace is collapsed and trimmed", "  a \t\n b  ", "a b"),
    ("the underscore is not a letter, number or mark", "tam_the_bold", "tam the bold"),
    ("numbers are kept", "Unit 7", "unit 7"),
    ("letters of any script are kept, й losing its breve U+0306", "Сергей", "сергеи"),
    ("marks outside U+0300..U+036F are kept", "नमस्ते", "नमस्ते"),
    ("symbols and emoji are dropped", "Mira \U0001f409", "mira"),
    ("party! is the key party", "party!", "party"),
    ("a name of punctuation only has the empty key", "?!", ""),
]


@pytest.mark.parametrize(("name", "key"), [r[1:] for r in KEYS], ids=[r[0] for r in KEYS])
def test_character_key(name: str, key: str) -> None:
    assert character_key(name) == key


@given(st.text())
def test_a_key_is_its_own_key(name: str) -> None:
    key = character_key(name)
    assert key == key.strip()
    assert "  " not in key
    assert character_key(key) == key


PARTY = ["Mira", "Tam the Bold", "Juno"]
T = Targets
U = Unresolved

RESOLVED = [
    ("no who is the player card, named as on the card", PARTY, "mira", None, T((0,), "Mira")),
    ("no who and no player name: unknown-character", PARTY, None, None, U(UNKNOWN_CHARACTER)),
    ("no who and no player card: unknown-character", PARTY, "Zed", None, U(UNKNOWN_CHARACTER)),
    ("the player card is matched by key", PARTY, "  MIRA! ", None, T((0,), "Mira")),
    (
        "who is matched by key: tam the bold is Tam the Bold",
        PARTY,
        "Mira",
        "tam the bold",
        T((1,), "Tam the Bold"),
    ),
    ("who with no card: unknown-character", PARTY, "Mira", "Zed", U(UNKNOWN_CHARACTER)),
    ("a partial name is no match", PARTY, "Mira", "Tam", U(UNKNOWN_CHARACTER)),
    (
        "a non-matching name is never applied to the player",
        PARTY,
        "Mira",
        "Mirabel",
        U(UNKNOWN_CHARACTER),
    ),
    (
        "two cards share a key that is not the player's: ambiguous-character",
        ["Mira", "Tam", "tam"],
        "Mira",
        "TAM",
        U(AMBIGUOUS_CHARACTER),
    ),
    (
        "two cards share the player's key: the player card (the first of the key)",
        ["Tam", "mira", "Mira"],
        "Mira",
        "MIRA",
        T((1,), "mira"),
    ),
    (
        "a shared key with no player card is ambiguous",
        ["tam", "Tam"],
        None,
        "Tam",
        U(AMBIGUOUS_CHARACTER),
    ),
    (
        "party: one card per key, in order of first appearance",
        PARTY,
        "Mira",
        "party",
        T((0, 1, 2), "party"),
    ),
    ("the party keyword is matched by key: PARTY", PARTY, "Mira", "PARTY", T((0, 1, 2), "party")),
    ("the party keyword is matched by key: party!", PARTY, "Mira", "party!", T((0, 1, 2), "party")),
    ("party works without a player", PARTY, None, "Party", T((0, 1, 2), "party")),
    (
        "party leaves out a shared key that is not the player's",
        ["Mira", "Tam", "Juno", "tam"],
        "Mira",
        "party",
        T((0, 2), "party"),
    ),
    (
        "party: the player card stands for the player's shared key, where the key first appears",
        ["mira", "Tam", "Mira"],
        "Mira",
        "party",
        T((0, 1), "party"),
    ),
    (
        "party: the player card stands for its key even when a later card comes first",
        ["Tam", "MIRA", "Juno", "Mira"],
        "mira",
        "party",
        T((0, 1, 2), "party"),
    ),
    (
        "party with nobody left: unknown-character",
        ["Tam", "tam"],
        None,
        "party",
        U(UNKNOWN_CHARACTER),
    ),
    ("party of an empty party: unknown-character", [], "Mira", "party", U(UNKNOWN_CHARACTER)),
    (
        "the party keyword wins over a character named Party",
        ["Party", "Mira"],
        "Mira",
        "party",
        T((0, 1), "party"),
    ),
    ("a party of one is still party", ["Mira"], "Mira", "party", T((0,), "party")),
    ("no who in an empty party: unknown-character", [], "Mira", None, U(UNKNOWN_CHARACTER)),
]


@pytest.mark.parametrize(
    ("names", "player", "who", "expected"), [r[1:] for r in RESOLVED], ids=[r[0] for r in RESOLVED]
)
def test_resolve_targets(
    names: list[str], player: str | None, who: str | None, expected: Targets | Unresolved
) -> None:
    assert resolve_targets(names, player, who) == expected
