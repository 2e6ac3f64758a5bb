"""Real parts for the MCP tests: the SDK's client over stdio (``dicebound mcp`` in a
subprocess) and over streamable HTTP (``/mcp`` of a real ``dicebound serve``), and a
game made through the HTTP API for the tools to act in."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from http_api_support import bearer, character_file
from service_support import ServerProcess, admin_headers

_T = TypeVar("_T")


@dataclass(frozen=True)
class Table:
    """A game the tools act in: made through the running service's API."""

    server: ServerProcess
    id: str
    token: str
    characters: tuple[str, ...]

    def get(self, path: str) -> Any:
        answer = httpx.get(self.server.base + f"/games/{self.id}{path}", headers=bearer(self.token))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def post(self, path: str, body: Any) -> Any:
        answer = httpx.post(
            self.server.base + f"/games/{self.id}{path}", json=body, headers=bearer(self.token)
        )
        assert answer.status_code == 200, answer.text
        return answer.json()


def seat_a_table(server: ServerProcess, ruleset: str, *characters: str) -> Table:
    """A new game of ``ruleset`` with packaged characters (short names), through HTTP."""
    made = httpx.post(
        server.base + "/games",
        json={"name": "The MCP table", "ruleset": ruleset},
        headers=admin_headers(),
    )
    assert made.status_code == 201, made.text
    game = made.json()
    names = []
    for short in characters:
        file = character_file(ruleset, short)
        put = httpx.put(
            server.base + f"/games/{game['id']}/characters/{file['name']}",
            json=file,
            headers=bearer(game["token"]),
        )
        assert put.status_code == 201, put.text
        names.append(file["name"])
    return Table(server, game["id"], game["token"], tuple(names))


def stdio_params(db_url: str, game: str) -> StdioServerParameters:
    """``dicebound mcp`` as the SDK's client starts it. The SDK passes the child only a
    few safe variables, so the ones that say which dicebound runs (``PYTHONPATH``) and
    where the tests cache compiled rulesets are handed on: the child runs the code
    under test, not another checkout installed in the same environment."""
    env = {k: os.environ[k] for k in ("PYTHONPATH", "DICEBOUND_CACHE_DIR") if k in os.environ}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "dicebound", "mcp", "--db", db_url, "--game", game],
        env=env,
    )


@asynccontextmanager
async def connect(
    transport: str, table: Table, *, token: str | None = None, query: str = ""
) -> AsyncIterator[Client]:
    """The SDK's client at ``table``: ``stdio`` (a subprocess on the same store) or
    ``http`` (the server's ``/mcp`` with ``token``, the game's by default)."""
    if transport == "stdio":
        async with Client(stdio_params(table.server.db_url, table.id)) as client:
            yield client
        return
    sent = table.token if token is None else token
    headers = bearer(sent) if sent else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30.0) as http:
        transport_streams = streamable_http_client(
            table.server.base + "/mcp" + query, http_client=http
        )
        async with Client(transport_streams) as client:
            yield client


@dataclass(frozen=True)
class Answer:
    """What a tool answered: its structured content, or its error sentence."""

    error: str | None
    data: dict[str, Any]


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> Answer:
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        text = " ".join(getattr(block, "text", "") for block in result.content)
        return Answer(text, {})
    data = result.structured_content
    assert data is not None, f"{tool} answered no structured content"
    # the text content carries the same JSON, for clients that read only text
    (block,) = result.content
    assert json.loads(getattr(block, "text", "")) == data
    return Answer(None, data)


async def ok(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = await call(client, tool, arguments)
    assert answer.error is None, answer.error
    return answer.data


def run(make: Callable[[], Awaitable[_T]]) -> _T:
    """Run one coroutine to its end, under a time limit (a hung server fails the test)."""

    async def bounded() -> _T:
        return await asyncio.wait_for(make(), timeout=120)

    return asyncio.run(bounded())
