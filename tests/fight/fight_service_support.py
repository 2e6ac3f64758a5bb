"""A game on F5 made through the service's API, for the fight's service and MCP tests."""

from __future__ import annotations

import json
from typing import Any

from fight_fixtures import BRENNA, CORWIN, _f5_doc

from http_api_support import bearer
from service_support import admin_headers

__all__ = ["A_START", "new_game"]

A_START = '[fight: op="start" party="Brenna, Corwin" enemies="Snag, Rot"]'


def new_game(client: Any) -> tuple[str, str]:
    """A game on F5 with Brenna and Corwin: its id and game master's token."""
    ruleset = json.loads(_f5_doc())
    stored = client.post("/rulesets", json=ruleset, headers=admin_headers())
    assert stored.status_code in (200, 201), stored.text
    made = client.post(
        "/games", json={"name": "A fight", "ruleset": ruleset["id"]}, headers=admin_headers()
    )
    assert made.status_code == 201, made.text
    game = made.json()
    for raw in (BRENNA, CORWIN):
        put = client.put(
            f"/games/{game['id']}/characters/{raw['name']}",
            json=raw,
            headers=bearer(game["token"]),
        )
        assert put.status_code == 201, put.text
    return game["id"], game["token"]
