"""A table for the seats' tests (issue 26): a game of the "seats-table" ruleset (Advanced
Resolution with a live text field, ``notes``, for a player to edit), two characters
with a record each whose raise is still on offer, and a player's seat for each.

Sneeky Peet is character A, whose player's token the tests call "player A"; Maud
Harrowgate is character B. Each test that changes what it is given makes a table of
its own, so every cell of the rights table starts from the same state.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from http_api_support import LOCKPICK, bearer, character_file, ruleset_file
from service_support import ADMIN_TOKEN, JSON, admin_headers

RULESET = "seats-table"
A = "Sneeky Peet"
B = "Maud Harrowgate"
ADMIN, GM, PLAYER = "admin", "game master", "player A"
SEATS = (ADMIN, GM, PLAYER)

DUEL = '[skill_check: skill="Martial/Swordplay" difficulty="Rare" who="Maud Harrowgate"]'
# each character's check, and an answer after it that buys something: Peet's Success
# offers a Triumph for 5, Maud's Sacrifice a Success for 2 from Body
THROWN = {
    A: ({"text": LOCKPICK, "faces": [5, 1, 6]}, {"pool": "luck", "points": 5}),
    B: ({"text": DUEL, "seed": "turn2-0"}, {"pool": "body", "points": 2}),
}

PLAYER_MAY = (
    "a player's seat may read the game, the party, the records, the cards and the fight, "
    "answer its own character's after-roll offer, edit its own character's notes, ask its "
    "own odds and act in the fight as its own character on its turn"
)


def seats_ruleset() -> dict[str, Any]:
    """Advanced Resolution under another id, with a live text field ``notes``."""
    ruleset = ruleset_file("advanced-resolution")
    ruleset["id"] = RULESET
    ruleset["name"] = "Seats table"
    ruleset["sheet"]["live"]["text"] = [{"id": "notes", "label": "Notes", "maxLength": 200}]
    return ruleset


Send = Callable[..., Any]
"""``client.request``-like: (method, url, headers=..., json=..., content=...) → response."""


def upload_seats_ruleset(send: Send) -> None:
    body = json.dumps(seats_ruleset()).encode()
    uploaded = send("POST", "/rulesets", content=body, headers={**admin_headers(), **JSON})
    assert uploaded.status_code in (200, 201), uploaded.text


@dataclass(frozen=True)
class Scene:
    """A game with A and B, a record of each with a raise on offer, and both seats."""

    game: str
    gm_token: str
    seat_tokens: dict[str, str]  # character -> its player's token
    records: dict[str, int]  # character -> the id of its record

    def token(self, seat: str) -> str:
        return {ADMIN: ADMIN_TOKEN, GM: self.gm_token, PLAYER: self.seat_tokens[A]}[seat]

    def headers(self, seat: str) -> dict[str, str]:
        return bearer(self.token(seat))


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def set_a_scene(send: Send, name: str = "The table") -> Scene:
    """A new game of the seats ruleset, set as ``Scene`` says, through the API."""
    made = ok(
        send("POST", "/games", json={"name": name, "ruleset": RULESET}, headers=admin_headers()),
        201,
    )
    game, gm = made["id"], bearer(made["token"])
    for short in ("peet", "maud"):
        file = character_file("advanced-resolution", short)
        ok(send("PUT", f"/games/{game}/characters/{file['name']}", json=file, headers=gm), 201)
    records = {}
    for who, (check, _) in THROWN.items():
        answer = ok(send("POST", f"/games/{game}/checks", json=check, headers=gm))
        (result,) = answer["results"]
        assert result["who"] == who and result["attrs"].get("offer"), result
        records[who] = result["id"]
    seats = {
        who: ok(send("POST", f"/games/{game}/characters/{who}/seat", headers=gm), 201)["token"]
        for who in (A, B)
    }
    return Scene(game, made["token"], seats, records)
