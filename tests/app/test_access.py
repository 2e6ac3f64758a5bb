"""The rights table (``app/access.py`` ``RIGHTS``; docs/design/store-and-service.md "Seats
and rights"), read without a store: every use is in it, each seat may make what its
row gives it and nothing else, and a refusal says what a player's seat may do and what
was asked, naming both characters for a use about another. An admin token of too little
variety is refused, and one made as the refusal says is always taken."""

from __future__ import annotations

import secrets

import pytest

from dicebound.app.access import (
    PLAYER_MAY,
    RIGHTS,
    Admin,
    GameMaster,
    Player,
    Seat,
    Use,
    Who,
    check_admin_token,
    may,
    permit,
)
from dicebound.app.errors import Forbidden
from dicebound.errors import UsageError

ADMIN: Seat = Admin()
GM: Seat = GameMaster("g1")
PLAYER: Seat = Player("g1", "Ann")

# who -> (admin, game master, player for Ann, player for Bo)
EXPECTED = {
    Who.EVERY_SEAT: (True, True, True, True),
    Who.OWN_CHARACTER: (True, True, True, False),
    Who.GAME_MASTER: (True, True, False, False),
    Who.ADMIN: (True, False, False, False),
}


def test_every_use_has_its_row() -> None:
    assert set(RIGHTS) == set(Use)


@pytest.mark.parametrize("use", list(Use), ids=[u.name for u in Use])
def test_each_seat_may_make_what_its_row_gives_it(use: Use) -> None:
    got = (
        may(ADMIN, use, "Ann"),
        may(GM, use, "Ann"),
        may(PLAYER, use, "Ann"),
        may(PLAYER, use, "Bo"),
    )
    assert got == EXPECTED[RIGHTS[use]]


@pytest.mark.parametrize(
    ("use", "rule"),
    [
        (Use.READ_PARTY, Who.EVERY_SEAT),
        (Use.FOLLOW_EVENTS, Who.EVERY_SEAT),
        (Use.ANSWER_OFFER, Who.OWN_CHARACTER),
        (Use.EDIT_NOTES, Who.OWN_CHARACTER),
        (Use.ASK_ODDS, Who.OWN_CHARACTER),
        (Use.SEE_SEAT_CHANGE, Who.OWN_CHARACTER),
        (Use.CHANGE_LIVE, Who.GAME_MASTER),
        (Use.RUN_CHECKS, Who.GAME_MASTER),
        (Use.READ_LESSON, Who.GAME_MASTER),
        (Use.MAKE_SEAT, Who.GAME_MASTER),
        (Use.DELETE_GAME, Who.ADMIN),
        (Use.EXPORT_GAME, Who.ADMIN),
        (Use.IMPORT_GAME, Who.ADMIN),
    ],
)
def test_the_issues_rights_are_the_tables(use: Use, rule: Who) -> None:
    assert RIGHTS[use] is rule


def test_a_use_about_a_character_named_by_no_one_is_refused_to_a_player() -> None:
    assert not may(PLAYER, Use.ASK_ODDS)
    assert may(GM, Use.ASK_ODDS)


@pytest.mark.parametrize(
    ("seat", "use", "character", "sentence"),
    [
        (
            PLAYER,
            Use.RUN_CHECKS,
            None,
            f"{PLAYER_MAY}; this asks to resolve checks and sheet commands.",
        ),
        (
            PLAYER,
            Use.ASK_ODDS,
            "Bo",
            f"{PLAYER_MAY}; this asks to ask Bo's odds, and this seat is Ann's.",
        ),
        (
            PLAYER,
            Use.ANSWER_OFFER,
            None,
            f"{PLAYER_MAY}; this asks to answer the after-roll offer of a record another "
            "character rolled, and this seat is Ann's.",
        ),
        (
            PLAYER,
            Use.DELETE_GAME,
            None,
            "only the admin token may delete a game; the token sent is not it.",
        ),
        (
            GM,
            Use.DELETE_GAME,
            None,
            "only the admin token may delete a game; the token sent is not it.",
        ),
    ],
    ids=[
        "a game master's use",
        "another's odds",
        "no character named",
        "admin's, player",
        "admin's, game master",
    ],
)
def test_a_refusal_says_what_the_seat_may_do_and_what_was_asked(
    seat: Seat, use: Use, character: str | None, sentence: str
) -> None:
    with pytest.raises(Forbidden) as refused:
        permit(seat, use, character)
    assert refused.value.detail == sentence


def test_what_a_player_may_do_is_said_in_the_issues_words() -> None:
    assert PLAYER_MAY == (
        "a player's seat may read the game, the party, the records, the cards and the fight, "
        "answer its own character's after-roll offer, edit its own character's notes, ask its "
        "own odds and act in the fight as its own character on its turn"
    )


@pytest.mark.parametrize(
    ("token", "refused"),
    [
        ("a" * 32, "is made of 1 different character, "),
        ("ab" * 20, "is made of 2 different characters, "),
        ("password" * 4, "is made of 7 different characters, "),
        ("0123456789" * 3 + "01", "holds about 105 bits "),
        ("9f86d081884c7d659a2feaa0c55ad015", "holds about 116 bits "),  # 32 hex digits
        ("correct-horse-battery-staple-1234", "holds about 126 bits "),
    ],
)
def test_an_admin_token_of_too_little_variety_is_refused(token: str, refused: str) -> None:
    with pytest.raises(UsageError) as raised:
        check_admin_token(token)
    assert str(raised.value).startswith("DICEBOUND_ADMIN_TOKEN " + refused)
    assert str(raised.value).endswith(
        "make one with python -c 'import secrets; print(secrets.token_urlsafe(32))'."
    )


def test_an_admin_token_made_as_the_refusal_says_is_always_taken() -> None:
    for _ in range(2000):  # its estimate is 180 bits at the least, far above 128
        check_admin_token(secrets.token_urlsafe(32))
    check_admin_token("dba_test-admin-token-long-enough-to-be-taken")
    check_admin_token("abcdefghijklmnopqrstuvwxyzABCDEF")
