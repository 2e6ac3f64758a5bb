"""A game with some history, for the tests of the store's operations (backups, a game
carried between stores, retention): checks thrown (one answered after the roll), sheet
commands applied (Maud's luck, while it lasts) and refused, and a player's seat."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from http_api_support import Game, make_game

PEET, MAUD = "Sneeky Peet", "Maud Harrowgate"
LOCKPICK = (
    '[skill_check: skill="Scoundrel/Lockpick" difficulty="Uncommon" quality="agility" tool="1"]'
)
MAUD_SPENDS = f'[sheet: op="spend" pool="luck" amount="1" who="{MAUD}"]'
MAUD_OVERSPENDS = f'[sheet: op="spend" pool="luck" amount="99" who="{MAUD}"]'
OPEN_OFFER = [5, 1, 6]  # Peet's lockpick with these faces leaves a raise open


def answer(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()


def played_game(service: TestClient, texts: int = 3) -> Game:
    """A game of Peet and Maud: ``texts`` texts of a check, a sheet command applied and
    one refused; the first check answered after the roll; Maud's seat made."""
    game = make_game(service, "advanced-resolution", "peet", "maud")
    first = None
    for i in range(texts):
        body: dict[str, Any] = {"text": f"{LOCKPICK} {MAUD_SPENDS} {MAUD_OVERSPENDS}"}
        body |= {"faces": OPEN_OFFER} if i == 0 else {"seed": str(i)}
        checked = answer(service.post(game.path("checks"), json=body, headers=game.headers))
        oks = [s["ok"] for s in checked["sheet"]]
        assert oks == [True, False] if i == 0 else oks[-1] is False, checked["sheet"]
        first = first or checked["results"][0]["id"]
    answer(
        service.post(
            game.path("records", first, "after"),
            json={"pool": "luck", "points": 5},
            headers=game.headers,
        )
    )
    answer(service.post(game.path("characters", MAUD, "seat"), headers=game.headers), 201)
    return game


def record_ids(service: TestClient, game: Game, token: str | None = None) -> list[int]:
    """Every record id of a game, oldest first."""
    headers = {"Authorization": f"Bearer {token}"} if token else game.headers
    ids: list[int] = []
    before = None
    while True:
        params: dict[str, Any] = {"limit": 100} | ({"before": before} if before else {})
        page = answer(service.get(game.path("records"), params=params, headers=headers))
        ids += [r["id"] for r in page["records"]]
        if page["next"] is None:
            return sorted(ids)
        before = page["next"]
