"""Players' seats in the store (migration 0006), on SQLite and PostgreSQL: a seat goes
with its character and with its game (the foreign keys cascade), a token's hash names
one seat, and a seat given a new token keeps one row."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from dicebound.store import Store, open_store
from dicebound.store.repo import Game, Repo
from http_api_support import stored_value

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """A store with game g1 (Ann and Bo, each seated) and game g2 (Ann, seated)."""
    opened = open_store(store_url)
    try:
        with opened.write() as session:
            repo = Repo(session)
            for game in ("g1", "g2"):
                repo.add_game(Game(game, game, "dnd5e-srd", 1, [], f"gm-{game}"), NOW)
            for game, name in (("g1", "Ann"), ("g1", "Bo"), ("g2", "Ann")):
                repo.add_member(game, name, "null", "{}", NOW)
                repo.put_seat(game, name, f"hash-{game}-{name}", NOW)
        yield opened
    finally:
        opened.close()


def _seats(url: str) -> int:
    count: int = stored_value(url, "SELECT count(*) FROM seats")
    return count


def test_a_seat_is_found_by_its_tokens_hash_in_its_game_alone(store: Store) -> None:
    with store.read() as session:
        repo = Repo(session)
        assert repo.seat_of("g1", "hash-g1-Bo") == "Bo"
        assert repo.seat_of("g2", "hash-g1-Bo") is None  # another game's seat
        assert repo.game_of_seat("hash-g2-Ann") == "g2"
        assert [g.id for g in repo.games_of_seat("hash-g1-Ann")] == ["g1"]
        assert repo.games_of_seat("gm-g1") == []  # a game master's token holds no seat


def test_a_new_token_replaces_the_old_in_the_one_row(store: Store, store_url: str) -> None:
    with store.write() as session:
        Repo(session).put_seat("g1", "Ann", "hash-new", NOW)
    with store.read() as session:
        repo = Repo(session)
        assert repo.seat_of("g1", "hash-g1-Ann") is None
        assert repo.seat_of("g1", "hash-new") == "Ann"
    assert _seats(store_url) == 3


def test_a_tokens_hash_names_one_seat(store: Store) -> None:
    with pytest.raises(IntegrityError), store.write() as session:
        Repo(session).put_seat("g1", "Bo", "hash-g2-Ann", NOW)


def test_revoking_says_whether_there_was_a_seat(store: Store, store_url: str) -> None:
    with store.write() as session:
        repo = Repo(session)
        assert repo.delete_seat("g1", "Bo") is True
        assert repo.delete_seat("g1", "Bo") is False
    assert _seats(store_url) == 2


def test_a_seat_goes_with_its_character_and_with_its_game(store: Store, store_url: str) -> None:
    # no route deletes a character: through the store's own connection (on SQLite it
    # turns foreign keys on, as the service's does)
    with store.write() as session:
        session.execute(text("DELETE FROM characters WHERE game_id = 'g1' AND name = 'Ann'"))
    assert _seats(store_url) == 2
    with store.write() as session:
        Repo(session).delete_game("g1")
    assert _seats(store_url) == 1
    with store.read() as session:
        assert Repo(session).game_of_seat("hash-g2-Ann") == "g2"
