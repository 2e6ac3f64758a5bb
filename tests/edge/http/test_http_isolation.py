"""A game's token reaches its own game and nothing else (docs/service.md "Choices where
the contract is silent", tokens): every
resource of another game answers 404, as if it did not exist, and stays as it was;
no token is 401; the admin token reaches every game. On SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from http_api_support import (
    LOCKPICK,
    Game,
    bearer,
    character_file,
    make_game,
    problem_of,
    store_rows,
)
from service_support import admin_headers

PEET = "Sneeky Peet"


@dataclass(frozen=True)
class Call:
    method: str
    path: str  # {game} and {record} filled in per test
    body: Any = None
    headers: tuple[tuple[str, str], ...] = ()


CALLS = {
    "GET the game": Call("GET", "/games/{game}"),
    "PUT a character over hers": Call(
        "PUT", "/games/{game}/characters/Sneeky Peet", character_file("advanced-resolution", "peet")
    ),
    "PUT a new character": Call("PUT", "/games/{game}/characters/Intruder", {}),
    "GET a character": Call("GET", "/games/{game}/characters/Sneeky Peet"),
    "PATCH the live state": Call(
        "PATCH",
        "/games/{game}/characters/Sneeky Peet/live",
        {"pools": {"luck": 6}},
        (("If-Match", '"1"'),),
    ),
    "GET the GM's text": Call("GET", "/games/{game}/gm"),
    "GET the GM's text for a character": Call("GET", "/games/{game}/gm?character=Sneeky%20Peet"),
    "POST a check": Call("POST", "/games/{game}/checks", {"text": LOCKPICK, "seed": "1"}),
    "POST a check with a key": Call(
        "POST", "/games/{game}/checks", {"text": LOCKPICK}, (("Idempotency-Key", "k1"),)
    ),
    "GET the records": Call("GET", "/games/{game}/records"),
    "GET a record": Call("GET", "/games/{game}/records/{record}"),
    "POST an answer after the roll": Call(
        "POST", "/games/{game}/records/{record}/after", {"pool": "luck", "points": 5}
    ),
    "GET a replay": Call("GET", "/games/{game}/records/{record}/verify"),
    "POST odds": Call("POST", "/games/{game}/odds", {"tag": LOCKPICK}),
}


def _send(client: TestClient, call: Call, game: str, record: int, headers: dict[str, str]) -> Any:
    path = call.path.format(game=game, record=record)
    sent = {**headers, **dict(call.headers)}
    if call.body is None:
        return client.request(call.method, path, headers=sent)
    return client.request(call.method, path, json=call.body, headers=sent)


@pytest.fixture
def two_games(service: TestClient) -> tuple[Game, Game, int]:
    """Game A (D&D, Mira) and game B (Advanced Resolution, Peet, one open record)."""
    a = make_game(service, "dnd5e-srd", "mira", name="Game A")
    b = make_game(service, "advanced-resolution", "peet", name="Game B")
    made = service.post(
        b.path("checks"), json={"text": LOCKPICK, "faces": [5, 1, 6]}, headers=b.headers
    )
    assert made.status_code == 200
    return a, b, made.json()["results"][0]["id"]


def test_another_games_token_no_token_or_a_forged_one_reach_nothing(
    service: TestClient, store_url: str, two_games: tuple[Game, Game, int]
) -> None:
    a, b, record = two_games
    before = store_rows(store_url)
    for name, call in CALLS.items():
        refused = _send(service, call, b.id, record, a.headers)
        assert problem_of(refused, 404)["detail"] == f'no game "{b.id}" is here.', name
        # exactly as a game that does not exist
        missing = _send(service, call, "0123456789abcdef", record, a.headers)
        assert problem_of(missing, 404)["detail"] == 'no game "0123456789abcdef" is here.', name
        # and as a token that is no game's
        forged = _send(service, call, b.id, record, bearer("dbg_not-a-real-token"))
        assert problem_of(forged, 404)["detail"] == f'no game "{b.id}" is here.', name
        anonymous = _send(service, call, b.id, record, {})
        assert problem_of(anonymous, 401)["detail"] == (
            "this needs the game's token or the admin token."
        ), name
        assert anonymous.headers["www-authenticate"] == "Bearer", name
        assert store_rows(store_url) == before, name


@pytest.mark.parametrize("token", ["admin", "own"], ids=["the admin token", "the game's own token"])
def test_the_games_own_token_and_the_admins_reach_every_resource(
    service: TestClient, two_games: tuple[Game, Game, int], token: str
) -> None:
    _, b, record = two_games
    headers = admin_headers() if token == "admin" else b.headers
    for name, call in CALLS.items():
        if dict(call.headers).get("If-Match"):
            etag = service.get(b.character(PEET), headers=b.headers).headers["etag"]
            call = Call(call.method, call.path, call.body, (("If-Match", etag),))
        got = _send(service, call, b.id, record, headers)
        assert got.status_code in (200, 201), f"{name}: {got.text}"


def test_a_games_token_does_not_reach_another_games_record_through_its_own_game(
    service: TestClient, store_url: str, two_games: tuple[Game, Game, int]
) -> None:
    a, _, record = two_games
    before = store_rows(store_url)
    for suffix, method, body in (
        ("", "GET", None),
        ("/verify", "GET", None),
        ("/after", "POST", {"pool": "luck", "points": 5}),
    ):
        got = service.request(
            method, a.path("records", record) + suffix, json=body, headers=a.headers
        )
        assert problem_of(got, 404)["detail"] == f"no record {record} is in this game."
    assert service.get(a.path("records"), headers=a.headers).json() == {"records": [], "next": None}
    assert store_rows(store_url) == before


def test_the_admin_sees_every_game(service: TestClient, two_games: tuple[Game, Game, int]) -> None:
    a, b, record = two_games
    for game, names in ((a, ["Mira Quickfoot"]), (b, [PEET])):
        got = service.get(game.path(), headers=admin_headers())
        assert got.status_code == 200 and got.json()["characters"] == names
    listed = service.get(b.path("records"), headers=admin_headers()).json()["records"]
    assert [r["id"] for r in listed] == [record]
    own = service.get(b.path("records"), headers=b.headers).json()["records"]
    assert own == listed
