"""A ``who=`` that names nobody is refused with the party's full names to write."""

from __future__ import annotations

from dicebound.sheet_commands.reasons import AMBIGUOUS_CHARACTER, INSUFFICIENT, UNKNOWN_CHARACTER
from dicebound.sheet_commands.refusals import names_words, who_refusal

PARTY = ("Mira Vance", "Tam the Bold", "Ola")


def test_a_first_name_is_told_the_full_names() -> None:
    assert who_refusal(UNKNOWN_CHARACTER, "Mira", PARTY) == (
        'nobody in the party is called "Mira"; write who= with a full name: '
        '"Mira Vance", "Tam the Bold" or "Ola", or "party"'
    )


def test_no_who_and_no_player_card_is_told_the_names() -> None:
    said = who_refusal(UNKNOWN_CHARACTER, None, PARTY[:1])
    assert said == (
        "the command names nobody and there is no player's character; "
        'write who= with a full name: "Mira Vance", or "party"'
    )


def test_two_cards_of_one_name() -> None:
    said = who_refusal(AMBIGUOUS_CHARACTER, "tam", ("Tam", "TAM", "Ola"))
    assert said is not None and said.startswith('two characters answer to "tam"')
    assert '"Tam", "TAM" or "Ola"' in said


def test_an_empty_party_says_so() -> None:
    assert who_refusal(UNKNOWN_CHARACTER, "Mira", ()) == "the game has no characters yet"


def test_any_other_reason_needs_no_names() -> None:
    assert who_refusal(INSUFFICIENT, "Mira Vance", PARTY) is None


def test_a_name_is_listed_once() -> None:
    assert names_words(("Ola", "Ola")) == '"Ola"'
