"""Seats over MCP (issue 26): ``/mcp`` takes the same tokens with the same rights. Every
tool and the prompt against the three seats, the admin (naming the game), the game
master and the player of character A (and that player acting on B where it matters),
each cell on a table of its own: allowed answers; refused is a tool error with the
HTTP API's sentence and changes nothing. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from http_api_support import LOCKPICK, bearer, character_file, store_rows
from mcp_support import Table, call, connect, run
from seats_support import (
    ADMIN,
    GM,
    PLAYER,
    PLAYER_MAY,
    SEATS,
    THROWN,
    A,
    B,
    Scene,
    set_a_scene,
    upload_seats_ruleset,
)
from service_support import ServerProcess, admin_headers, store_url_for

pytestmark = pytest.mark.server

EVERY = frozenset(SEATS)
MASTERS = frozenset({ADMIN, GM})
KIRA = "Kira Vance"


@dataclass(frozen=True)
class Cell:
    """A tool called with ``arguments`` (``"{a}"``, ``"{b}"``: A's and B's record ids),
    and the seats that may call it; ``genesys``: on a symbol-dice table instead."""

    tool: str
    arguments: dict[str, Any]
    allowed: frozenset[str]
    genesys: bool = False
    past_rights: str | None = None  # an allowed seat's error, past the rights


CELLS: dict[str, Cell] = {
    "gm_instructions": Cell("gm_instructions", {}, MASTERS),
    "gm_instructions for A": Cell("gm_instructions", {"character": A}, MASTERS),
    "resolve_checks": Cell("resolve_checks", {"text": LOCKPICK, "seed": "s"}, MASTERS),
    "check_odds without who": Cell("check_odds", {"tag": LOCKPICK}, EVERY),
    "check_odds for A": Cell("check_odds", {"tag": LOCKPICK, "who": A}, EVERY),
    "check_odds for B": Cell("check_odds", {"tag": LOCKPICK, "who": B}, MASTERS),
    "roll_dice": Cell("roll_dice", {"dice": "2 ability", "seed": "s"}, EVERY, genesys=True),
    "character A": Cell("character", {"name": A}, EVERY),
    "character B": Cell("character", {"name": B}, EVERY),
    "settle_after_roll on A's record": Cell(
        "settle_after_roll", {"record": "{a}", **THROWN[A][1]}, EVERY
    ),
    "settle_after_roll on B's record": Cell(
        "settle_after_roll", {"record": "{b}", **THROWN[B][1]}, MASTERS
    ),
    "list_records": Cell("list_records", {}, EVERY),
    "fight": Cell("fight", {}, EVERY),
    "fight_options for A": Cell(
        "fight_options", {"who": A}, EVERY, past_rights="this game has no fight"
    ),
    "fight_act flee": Cell("fight_act", {"op": "flee"}, MASTERS),
    "fight_act end-turn as A": Cell("fight_act", {"op": "end-turn", "who": A}, EVERY),
    "fight_act end-turn as B": Cell("fight_act", {"op": "end-turn", "who": B}, MASTERS),
}
PROMPT_ALLOWED = MASTERS


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One real ``dicebound serve`` per store kind, the seats ruleset in it."""
    folder = tmp_path_factory.mktemp(f"mcp-seats-{request.param}")
    with (
        store_url_for(request.param, folder) as url,
        ServerProcess(url, log=folder / "server.log") as running,
        httpx.Client(base_url=running.base, timeout=30) as http,
    ):
        upload_seats_ruleset(http.request)
        yield running


def _genesys_scene(http: httpx.Client) -> Scene:
    """A symbol-dice game with Kira, whose player's seat plays the part of A's."""
    made = http.post(
        "/games", json={"name": "Symbols", "ruleset": "genesys"}, headers=admin_headers()
    )
    game, gm = made.json()["id"], bearer(made.json()["token"])
    put = http.put(
        f"/games/{game}/characters/{KIRA}", json=character_file("genesys", "kira"), headers=gm
    )
    assert put.status_code == 201, put.text
    seat = http.post(f"/games/{game}/characters/{KIRA}/seat", headers=gm)
    assert seat.status_code == 201, seat.text
    return Scene(game, made.json()["token"], {A: seat.json()["token"]}, {})


def _scene(server: ServerProcess, genesys: bool) -> Scene:
    with httpx.Client(base_url=server.base, timeout=30) as http:
        return _genesys_scene(http) if genesys else set_a_scene(http.request)


def _table(server: ServerProcess, scene: Scene, seat: str) -> tuple[Table, str]:
    """The table as ``seat`` connects to it, and the query that names the game (the
    admin's token belongs to no game)."""
    query = f"?game={scene.game}" if seat == ADMIN else ""
    return Table(server, scene.game, scene.token(seat), (A, B)), query


def _arguments(cell: Cell, scene: Scene) -> dict[str, Any]:
    records = {"{a}": scene.records.get(A), "{b}": scene.records.get(B)}
    return {k: records.get(v, v) if isinstance(v, str) else v for k, v in cell.arguments.items()}


@pytest.mark.parametrize("seat", SEATS)
@pytest.mark.parametrize("name", list(CELLS))
def test_each_seat_may_call_the_tools_the_rights_table_gives_it(
    server: ServerProcess, name: str, seat: str
) -> None:
    cell = CELLS[name]
    scene = _scene(server, cell.genesys)
    table, query = _table(server, scene, seat)
    before = store_rows(server.db_url)

    async def calling() -> str | None:
        async with connect("http", table, query=query) as client:
            return (await call(client, cell.tool, _arguments(cell, scene))).error

    error = run(calling)
    if seat in cell.allowed:
        if cell.past_rights is not None:
            assert error is not None and cell.past_rights in error, f"{name} × {seat}: {error}"
            return
        assert error is None, f"{name} × {seat}: {error}"
        return
    assert error is not None and error.startswith(
        f"Error executing tool {cell.tool}: {PLAYER_MAY}; this asks to "
    ), error
    assert store_rows(server.db_url) == before, f"{name} × {seat} changed the store"


@pytest.mark.parametrize("seat", SEATS)
def test_the_game_master_prompt_is_the_game_masters(server: ServerProcess, seat: str) -> None:
    scene = _scene(server, genesys=False)
    table, query = _table(server, scene, seat)

    async def prompted() -> str:
        async with connect("http", table, query=query) as client:
            try:
                prompt = await client.get_prompt("game_master", {})
            except MCPError as exc:
                assert exc.code == INVALID_PARAMS
                return exc.message
            return getattr(prompt.messages[0].content, "text", "")

    said = run(prompted)
    if seat in PROMPT_ALLOWED:
        assert said.startswith("You are the Game Master of "), said
    else:
        assert said == f"{PLAYER_MAY}; this asks to read the Game Master's lesson."


def test_the_table_has_a_row_for_every_tool(server: ServerProcess) -> None:
    scene = _scene(server, genesys=False)
    table, _ = _table(server, scene, GM)

    async def listed() -> set[str]:
        async with connect("http", table) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert run(listed) == {cell.tool for cell in CELLS.values()}


def test_a_players_odds_without_who_are_its_own(server: ServerProcess) -> None:
    scene = _scene(server, genesys=False)

    async def odds(seat: str, arguments: dict[str, Any]) -> Any:
        table, query = _table(server, scene, seat)
        async with connect("http", table, query=query) as client:
            return (await call(client, "check_odds", arguments)).data

    mine = run(lambda: odds(PLAYER, {"tag": LOCKPICK}))
    assert mine == run(lambda: odds(GM, {"tag": LOCKPICK, "who": A}))
    assert mine != run(lambda: odds(GM, {"tag": LOCKPICK, "who": B}))
