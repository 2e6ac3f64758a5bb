"""Fights over MCP (FIGHTS §15.3): the tools ``fight``, ``fight_options`` and
``fight_act`` answer as ``GET``/``POST /games/{game}/fight`` and ``GET .../fight/options``
do, ``resolve_checks`` plays ``[fight:]`` tags, and the game master's prompt teaches how
to start, act and end a fight where the ruleset plays fights. One real server on
SQLite."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fight_fixtures import BRENNA, CORWIN
from fight_service_support import A_START, new_game

from http_api_support import bearer
from mcp_support import Table, connect, ok, run
from service_support import ServerProcess

pytestmark = pytest.mark.server


def test_the_fight_tools_answer_as_the_routes_and_the_prompt_teaches_them(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'fight.db'}"
    with (
        ServerProcess(url, log=tmp_path / "server.log") as server,
        httpx.Client(base_url=server.base, timeout=30) as http,
    ):
        game, token = new_game(http)
        table = Table(server, game, token, (BRENNA["name"], CORWIN["name"]))

        async def play() -> None:
            async with connect("http", table) as client:
                started = await ok(
                    client, "resolve_checks", {"text": A_START, "faces": [20, 14, 5, 3]}
                )
                assert started["fight"]["steps"][0]["ok"] is True
                read = await ok(client, "fight", {})
                route = http.get(f"/games/{game}/fight", headers=bearer(token)).json()
                assert read == route and read["current"]["who"] == "Brenna"
                options = await ok(client, "fight_options", {"who": "Brenna"})
                assert options == read["current"]
                step = await ok(
                    client,
                    "fight_act",
                    {"op": "act", "option": "attack:0:0", "targets": ["Snag"], "faces": [12, 5]},
                )
                assert step["ok"] is True and step["who"] == "Brenna"
                record = http.get(f"/games/{game}/records/{step['id']}", headers=bearer(token))
                assert record.json()["tag"] == step["tag"]
                prompt = await client.get_prompt("game_master", {})
                said = getattr(prompt.messages[0].content, "text", "")
                assert 'fight_act {"op": "start"' in said and '{"op": "end"}' in said

        run(play)
