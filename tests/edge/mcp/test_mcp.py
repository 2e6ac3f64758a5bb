"""The MCP server (docs/service.md "The MCP server"): every tool through the official SDK's
client, over stdio (``dicebound mcp`` in a real subprocess) and over streamable HTTP
(``/mcp`` of a real ``dicebound serve``), on SQLite and PostgreSQL; refusals are tool
errors with dicebound's sentence and change nothing; a seeded text gives the same
records through ``resolve_checks``, ``POST /checks`` and ``check --json``; a scripted
Game Master plays three turns and leaves exactly what the command line gives."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from pydantic import BaseModel

from dicebound.edge.files import packaged_rulesets, ruleset_text
from dicebound.edge.mcp import Seat, build_server
from dicebound.edge.schemas import AfterIn, CheckIn, FightIn, OddsIn
from http_api_support import AS_CLI, bearer, cli_check, problem_of, store_rows, without_ids
from mcp_support import Table, call, connect, ok, run, seat_a_table
from player_words_support import ATTACK, ATTACK_DATA, read_as_data
from repo_paths import REPO
from service_support import ADMIN_TOKEN, ServerProcess, store_url_for

pytestmark = pytest.mark.server

TOOLS = {
    "gm_instructions",
    "resolve_checks",
    "check_odds",
    "roll_dice",
    "character",
    "settle_after_roll",
    "list_records",
    "fight",
    "fight_options",
    "fight_act",
}
MAUD = "Maud Harrowgate"
PEET = "Sneeky Peet"
DUEL = (
    '[skill_check: skill="Martial/Swordplay" difficulty="Rare" who="Maud Harrowgate"]',
    "turn2-0",  # a Sacrifice whose offer a raise of 2 from Body turns into a Success
)
EXAMPLE = REPO / "examples" / "mcp_scene.py"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One real ``dicebound serve`` per store kind for this module's tests."""
    folder = tmp_path_factory.mktemp(f"mcp-{request.param}")
    with (
        store_url_for(request.param, folder) as url,
        ServerProcess(url, log=folder / "server.log") as running,
    ):
        yield running


# ── the tools' inputs are the HTTP API's ─────────────────────────────────────


def _unseated(ctx: Context) -> Seat:
    raise AssertionError("listing the tools calls none")


def _shape(schema: dict[str, Any]) -> dict[str, Any]:
    """A property's schema without the words (title, description) that may differ."""
    return {k: v for k, v in schema.items() if k not in ("title", "description")}


@pytest.mark.parametrize(
    ("tool", "model", "fields"),
    [
        ("resolve_checks", CheckIn, ("text", "seed", "faces", "choose")),
        ("settle_after_roll", AfterIn, ("pool", "points", "choose")),
        ("check_odds", OddsIn, ("tag", "who", "after")),
        (
            "fight_act",
            FightIn,
            ("op", "who", "option", "targets", "party", "enemies", "seed", "faces"),
        ),
    ],
)
def test_a_tool_takes_the_fields_of_the_http_body(
    tool: str, model: type[BaseModel], fields: tuple[str, ...]
) -> None:
    tools = {t.name: t for t in run(lambda: build_server(_unseated).list_tools())}
    assert set(tools) == TOOLS
    taken = tools[tool].input_schema["properties"]
    body = model.model_json_schema()["properties"]
    for field in fields:
        assert _shape(taken[field]) == _shape(body[field]), field


def test_resolve_checks_says_it_resolves_both_tags_in_the_order_written() -> None:
    tools = {t.name: t for t in run(lambda: build_server(_unseated).list_tools())}
    words = tools["resolve_checks"].description or ""
    assert "every [skill_check: ...] and [sheet: ...] tag" in words
    assert "in the order they are written" in words
    text = tools["resolve_checks"].input_schema["properties"]["text"]["description"]
    assert "one [sheet: op=... who=...] tag per change to a sheet" in text
    assert "how to write a [sheet: ...] command" in (tools["gm_instructions"].description or "")


def test_every_tool_says_when_to_call_it_and_what_never_to_write() -> None:
    for tool in run(lambda: build_server(_unseated).list_tools()):
        words = (tool.description or "").lower()
        assert "never" in words, tool.name
        assert any(w in words for w in ("call it", "use it", "read it", "when", "before")), (
            tool.name
        )
        assert tool.output_schema is not None, tool.name


# ── every tool, over both transports ─────────────────────────────────────────


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_every_tool_answers_as_the_http_api(server: ServerProcess, transport: str) -> None:
    table = seat_a_table(server, "advanced-resolution", "maud", "peet")

    async def scene() -> None:
        async with connect(transport, table) as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == TOOLS

            assert await ok(client, "gm_instructions", {}) == table.get("/gm")
            taught = await ok(client, "gm_instructions", {"character": MAUD})
            assert taught == table.get(f"/gm?character={quote(MAUD)}")
            assert await ok(client, "character", {"name": MAUD}) == table.get(
                f"/characters/{quote(MAUD)}"
            )
            odds_body = {"tag": DUEL[0], "who": MAUD, "after": {"pool": "body", "points": 2}}
            assert await ok(client, "check_odds", odds_body) == table.post("/odds", odds_body)

            duel = await ok(client, "resolve_checks", {"text": DUEL[0], "seed": DUEL[1]})
            (result,) = duel["results"]
            assert result["outcome"] == "Sacrifice"
            assert result["attrs"]["offer"] == "Success: 2 from body, mind or luck"
            record = table.get(f"/records/{result['id']}")
            assert {k: record[k] for k in result if k != "id"} == {
                k: v for k, v in result.items() if k != "id"
            }

            raised = await ok(
                client, "settle_after_roll", {"record": result["id"], "pool": "body", "points": 2}
            )
            assert raised["outcome"] == "Success"
            assert raised["paid"] == [{"who": MAUD, "pool": "body", "from": 7, "to": 5}]
            assert raised == {**table.get(f"/records/{result['id']}"), "paid": raised["paid"]}
            maud = await ok(client, "character", {"name": MAUD})
            assert maud["live"]["pools"]["body"] == {"value": 5}
            assert maud["revision"] == 2

            assert await ok(client, "list_records", {}) == table.get("/records")
            page = await ok(client, "list_records", {"limit": 1})
            assert [r["id"] for r in page["records"]] == [result["id"]] and page["next"] is None

            resources = await client.list_resources()
            uris = {str(r.uri) for r in resources.resources}
            assert uris == {f"dicebound://rulesets/{r}" for r in packaged_rulesets()}
            read = await client.read_resource("dicebound://rulesets/advanced-resolution")
            (content,) = read.contents
            assert getattr(content, "text", None) == ruleset_text("advanced-resolution")[0]
            assert content.mime_type == "application/json"

            prompts = await client.list_prompts()
            assert [p.name for p in prompts.prompts] == ["game_master"]
            prompt = await client.get_prompt("game_master", {})
            text = getattr(prompt.messages[0].content, "text", "")
            assert table.get("/gm")["text"] in text  # the ruleset's guidance and the tag
            assert "\nSheet commands: " in text and '[sheet: op="spend" pool=' in text
            assert "[sheet: ...] tag where a sheet changes (resolve_checks resolves both" in text
            assert f"{MAUD}" in text and f"{PEET}" in text  # the party's summaries
            assert "resolve_checks" in text and "Never write dice" in text

    run(scene)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_roll_dice_throws_the_games_symbol_dice_as_post_roll(
    server: ServerProcess, transport: str
) -> None:
    table = seat_a_table(server, "genesys", "kira")
    dice = "2 ability 1 proficiency vs 2 difficulty"

    async def scene() -> dict[str, Any]:
        async with connect(transport, table) as client:
            return await ok(client, "roll_dice", {"dice": dice, "seed": "r1"})

    thrown = run(scene)
    expected = httpx.post(
        server.base + "/roll", json={"ruleset": "genesys", "dice": dice, "seed": "r1"}
    ).json()
    assert thrown == expected


# ── refusals: a tool error with the sentence, and nothing changed ────────────

_HEAVY = '[skill_check: skill="Martial/Swordplay" dc="4" who="Maud Harrowgate"] '
_REFUSED: list[tuple[str, str, dict[str, Any], str]] = [
    (
        "a tag naming no skill of the ruleset",
        "resolve_checks",
        {"text": '[skill_check: skill="Nonesuch" dc="4"]', "idempotency_key": "k1"},
        '"Nonesuch" is not a skill, save or ability of Advanced Resolution',
    ),
    (
        "a tag naming an unknown character",
        "resolve_checks",
        {"text": '[skill_check: skill="Martial/Swordplay" dc="4" who="Nobody"]'},
        "Nobody",
    ),
    (
        "an unknown character's sheet",
        "character",
        {"name": "Maud Harowgate"},
        '"Maud Harowgate" is not a character of this game. Did you mean "Maud Harrowgate"?',
    ),
    (
        "a text over 32 KB",
        "resolve_checks",
        {"text": _HEAVY + "x" * (32 * 1024)},
        "a check's text may be at most 32,768 bytes (32 KB)",
    ),
    (
        "a text of 21 tags",
        "resolve_checks",
        {"text": _HEAVY * 21},
        "the text holds 21 check tags; one text may hold at most 20",
    ),
    (
        "a text with no tag",
        "resolve_checks",
        {"text": "Maud rolls a 20 and wins."},
        "the text holds no check tag, so nothing was thrown",
    ),
    (
        "forced faces and a seed",
        "resolve_checks",
        {"text": _HEAVY, "seed": "1", "faces": [1, 2, 3]},
        "give a seed or faces, not both",
    ),
    (
        "a seed with a space",
        "resolve_checks",
        {"text": _HEAVY, "seed": "two words"},
        "a seed is 1 to 200 printable ASCII characters without spaces",
    ),
    (
        "an answer to no record",
        "settle_after_roll",
        {"record": 999999, "pool": "body", "points": 1},
        "no record 999999 is in this game",
    ),
    (
        "odds of a broken tag",
        "check_odds",
        {"tag": '[skill_check: skill="Martial/Swordplay" dc="4"', "who": MAUD},
        "Error executing tool check_odds",
    ),
    (
        "an argument of the wrong type",
        "list_records",
        {"limit": "many"},
        "limit",
    ),
]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_refused_call_is_a_tool_error_and_changes_nothing(
    server: ServerProcess, transport: str
) -> None:
    table = seat_a_table(server, "advanced-resolution", "maud", "peet")
    before = store_rows(server.db_url)

    async def scene() -> list[tuple[str, str | None]]:
        async with connect(transport, table) as client:
            return [
                (case, (await call(client, tool, arguments)).error)
                for case, tool, arguments, _ in _REFUSED
            ]

    for (case, error), (_, tool, _, sentence) in zip(run(scene), _REFUSED, strict=True):
        assert error is not None, f"{case}: no error"
        assert error.startswith(f"Error executing tool {tool}"), case
        assert sentence in error, f"{case}: {error}"
        assert "Traceback" not in error and 'File "' not in error, case
    assert store_rows(server.db_url) == before


def test_tokens_over_http(server: ServerProcess) -> None:
    """The game is the one the token belongs to; another's token, a wrong one or none
    is refused as the HTTP API refuses it; the admin token names the game."""
    table = seat_a_table(server, "advanced-resolution", "maud")
    other = seat_a_table(server, "advanced-resolution", "peet")
    text = {"text": _HEAVY, "seed": "t"}
    refusals = [
        ("dbg_not-a-token", "", "the token sent is no game's token"),
        ("", "", "this needs the game's token or the admin token"),
        (other.token, f"?game={table.id}", f'no game "{table.id}" is here'),
        (ADMIN_TOKEN, "", "the admin token belongs to no game: name the game (?game=ID)"),
    ]
    before = store_rows(server.db_url)

    async def refused() -> list[str | None]:
        errors = []
        for token, query, _ in refusals:
            async with connect("http", table, token=token, query=query) as client:
                errors.append((await call(client, "resolve_checks", text)).error)
        return errors

    for error, (_, _, sentence) in zip(run(refused), refusals, strict=True):
        assert error is not None and sentence in error, error
    assert store_rows(server.db_url) == before

    async def admitted() -> tuple[dict[str, Any], dict[str, Any]]:
        async with connect("http", table, token=ADMIN_TOKEN, query=f"?game={table.id}") as a:
            as_admin = await ok(a, "resolve_checks", text)
        async with connect("http", other) as b:
            as_other = await ok(b, "character", {"name": PEET})
        return as_admin, as_other

    as_admin, as_other = run(admitted)
    assert as_admin["results"][0]["who"] == MAUD
    assert [r["id"] for r in table.get("/records")["records"]] == [as_admin["results"][0]["id"]]
    assert as_other["name"] == PEET and other.get("/records")["records"] == []


STREAM = {"Accept": "text/event-stream"}


def test_a_stream_at_mcp_opens_only_for_a_seat(server: ServerProcess) -> None:
    """``GET /mcp`` (the server's own messages, a stream held open) without a token, or
    with a token that holds no seat in the game, is refused at once and holds nothing:
    it was answered 200 and held for ever (issue 40). A seat's token opens it. The
    handshake and each tool, by POST, are as before (``test_tokens_over_http``)."""
    table = seat_a_table(server, "advanced-resolution", "maud")
    other = seat_a_table(server, "advanced-resolution", "peet")
    refusals = [
        ({}, "", 401, "this needs the game's token or the admin token."),
        (bearer("dbg_not-a-token"), "", 401, "the token sent is no game's token."),
        (bearer(other.token), f"?game={table.id}", 404, f'no game "{table.id}" is here.'),
        (
            bearer(ADMIN_TOKEN),
            "",
            422,
            "the admin token belongs to no game: name the game (?game=ID).",
        ),
    ]
    for headers, query, status, detail in refusals:
        answer = httpx.get(server.base + "/mcp" + query, headers={**headers, **STREAM}, timeout=5)
        assert problem_of(answer, status)["detail"] == detail
        if status == 401:
            assert answer.headers["www-authenticate"] == "Bearer"
    for token, query in ((table.token, ""), (ADMIN_TOKEN, f"?game={table.id}")):
        with httpx.stream(
            "GET", server.base + "/mcp" + query, headers={**bearer(token), **STREAM}, timeout=5
        ) as opened:
            assert opened.status_code == 200
            assert opened.headers["content-type"].startswith("text/event-stream")


# ── the same text, three ways: the same records ──────────────────────────────


@pytest.mark.parametrize(
    ("ruleset", "characters", "text", "options"),
    [case[1:] for case in AS_CLI],
    ids=[case[0] for case in AS_CLI],
)
def test_resolve_checks_post_checks_and_check_json_give_the_same_records(
    server: ServerProcess,
    ruleset: str,
    characters: tuple[str, ...],
    text: str,
    options: dict[str, Any],
) -> None:
    through_tool = seat_a_table(server, ruleset, *characters)
    through_http = seat_a_table(server, ruleset, *characters)

    async def resolve() -> dict[str, Any]:
        async with connect("http", through_tool) as client:
            return await ok(client, "resolve_checks", {"text": text, **options})

    tool_answer = run(resolve)
    http_answer = httpx.post(
        server.base + f"/games/{through_http.id}/checks",
        json={"text": text, **options},
        headers=bearer(through_http.token),
    ).json()
    expected = cli_check(ruleset, characters, text, options)
    assert without_ids(tool_answer) == without_ids(http_answer) == expected
    stored = through_tool.get("/records?limit=100")["records"][::-1]
    assert [r["id"] for r in stored] == [r["id"] for r in tool_answer["results"]]


SPEND_INSPIRATION = '[sheet: op="spend" pool="Inspiration" amount="1"]'


def test_resolve_checks_answers_the_sheet_commands_as_post_checks(server: ServerProcess) -> None:
    text = f'{SPEND_INSPIRATION} Mira creeps. [skill_check: skill="Stealth" dc="15"]'
    through_tool = seat_a_table(server, "dnd5e-srd", "mira")
    through_http = seat_a_table(server, "dnd5e-srd", "mira")

    async def resolve() -> tuple[dict[str, Any], dict[str, Any]]:
        async with connect("http", through_tool) as client:
            first = await ok(client, "resolve_checks", {"text": text, "seed": "42"})
            # commands alone are no error, refused or not: each is a record
            alone = await ok(client, "resolve_checks", {"text": SPEND_INSPIRATION})
            return first, alone

    tool_answer, alone = run(resolve)
    http_answer = through_http.post("/checks", {"text": text, "seed": "42"})
    assert without_ids(tool_answer) == without_ids(http_answer)
    (command,) = tool_answer["sheet"]
    assert (command["ok"], command["now"]) == (True, "0/1")
    assert [(c["ok"], c["reason"]) for c in alone["sheet"]] == [(False, "insufficient")]
    stored = through_tool.get("/records?limit=100")["records"][::-1]
    assert [(r["kind"], r["id"]) for r in stored] == [
        ("sheet", command["id"]),
        ("check", tool_answer["results"][0]["id"]),
        ("sheet", alone["sheet"][0]["id"]),
    ]


def test_past_the_40th_command_resolve_checks_answers_too_many_as_the_cli_and_records_none(
    server: ServerProcess,
) -> None:
    text = " ".join([SPEND_INSPIRATION] * 41)
    table = seat_a_table(server, "dnd5e-srd", "mira")

    async def resolve() -> dict[str, Any]:
        async with connect("http", table) as client:
            return await ok(client, "resolve_checks", {"text": text, "seed": "42"})

    answer = run(resolve)
    assert without_ids(answer) == cli_check("dnd5e-srd", ["mira"], text, {"seed": "42"})
    commands = answer["sheet"]
    assert [c["reason"] for c in commands[39:]] == ["insufficient", "too-many"]
    assert commands[40]["id"] is None  # answered, never stored
    stored = table.get("/records?limit=100")["records"][::-1]
    assert [r["id"] for r in stored] == [c["id"] for c in commands[:40]]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_players_note_reaches_the_model_only_as_quoted_data(
    server: ServerProcess, transport: str
) -> None:
    """A seat writes its own character's note to close the lesson's quotes and hand the
    model two tags; ``/gm``, ``gm_instructions``, the prompt, ``character`` and
    ``list_records`` carry it only as data."""
    table = seat_a_table(server, "fate-core", "marek")
    (marek,) = table.characters
    where = f"{server.base}/games/{table.id}/characters/{quote(marek)}"
    seat = httpx.post(f"{where}/seat", headers=bearer(table.token))
    assert seat.status_code == 201, seat.text
    revision = table.get(f"/characters/{quote(marek)}")["revision"]
    patched = httpx.patch(
        f"{where}/live",
        json={"text": {"mild": ATTACK}},
        headers={**bearer(seat.json()["token"]), "If-Match": str(revision)},
    )
    assert patched.status_code == 200, patched.text
    read_as_data(table.get("/gm")["text"])
    read_as_data(table.get(f"/gm?character={quote(marek)}")["text"])

    async def scene() -> None:
        async with connect(transport, table) as client:
            read_as_data((await ok(client, "gm_instructions", {}))["text"])
            read_as_data((await ok(client, "gm_instructions", {"character": marek}))["text"])
            prompt = await client.get_prompt("game_master", {})
            read_as_data(getattr(prompt.messages[0].content, "text", ""))
            found = await ok(client, "character", {"name": marek})
            assert found["live"]["text"] == {"mild": ATTACK_DATA}
            note = '[sheet: op="note" field="mild" value="Bruised ribs"]'
            await ok(client, "resolve_checks", {"text": note})
            (record,) = (await ok(client, "list_records", {"limit": 1}))["records"]
            changed = {"who": marek, "what": "text mild", "from": ATTACK_DATA, "to": "Bruised ribs"}
            assert record["changes"] == [changed]

    run(scene)
    # the store and the HTTP API keep the note as the player wrote it
    assert table.get("/records?limit=1")["records"][0]["changes"][0]["from"] == ATTACK


def test_the_same_over_stdio(server: ServerProcess) -> None:
    _, ruleset, characters, text, options = AS_CLI[1]  # a dice pool with a spend
    table = seat_a_table(server, ruleset, *characters)

    async def resolve() -> dict[str, Any]:
        async with connect("stdio", table) as client:
            return await ok(client, "resolve_checks", {"text": text, **options})

    answer = run(resolve)
    assert without_ids(answer) == cli_check(ruleset, characters, text, options)
    assert answer["results"][0]["changes"], "the spend was paid"
    pools = table.get(f"/characters/{quote(characters_name(table))}")["live"]["pools"]
    change = answer["results"][0]["changes"][0]
    assert pools[change["pool"]]["value"] == change["to"]


def characters_name(table: Table) -> str:
    (name,) = table.characters
    return name


# ── a scripted Game Master, three turns ──────────────────────────────────────


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mcp_scene", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mcp_scene"] = module
    spec.loader.exec_module(module)
    return module


def _pay(files: dict[str, dict[str, Any]], changes: list[dict[str, Any]]) -> None:
    """What the store does with a result's changes, done to the character files."""
    for change in changes:
        pools = files[change["who"]].setdefault("live", {}).setdefault("pools", {})
        assert pools[change["pool"]]["value"] == change["from"]
        pools[change["pool"]]["value"] = change["to"]


_COMPARED = ("tag", "who", "outcome", "success", "critical", "choice", "attrs", "changes")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_scripted_game_master_leaves_what_the_command_line_gives(
    backend: str, tmp_path: Path
) -> None:
    scene = _example()
    said: list[str] = []
    with store_url_for(backend, tmp_path) as url:
        _, seen = run(lambda: scene.run(url, said.append))
    assert any('Did you mean "Martial/Swordplay"?' in line for line in said)

    # the same texts and seeds through `dicebound check --json`, the party's files
    # carried from turn to turn as the store carries their live state
    files = {}
    for short in scene.PARTY:
        body = json.loads(Path(scene.character_path(short)).read_text())
        files[body["name"]] = body

    def check(throw: Any, *extra: str) -> Any:
        argv = ["check", "--ruleset", scene.RULESET, "--seed", throw.seed, "--json"]
        for name, body in files.items():
            path = tmp_path / f"{name}.json"
            path.write_text(json.dumps(body))
            argv += ["--character", str(path)]
        code = 1 if throw is scene.TURN_1 else 0
        from http_api_support import cli_json

        answer = cli_json(*argv, *extra, throw.text, code=code)
        for result in answer["results"]:
            _pay(files, result["changes"])
        return answer["results"]

    expected = [
        *check(scene.TURN_1),
        *check(scene.TURN_1_AGAIN),
        *check(scene.TURN_2, "--after", f"{scene.RAISE['pool']}:{scene.RAISE['points']}"),
        *check(scene.TURN_3, "--choose", scene.CHOICE),
    ]
    stored = seen["records"][::-1]
    assert [{k: r[k] for k in _COMPARED} for r in stored] == [
        {k: r[k] for k in _COMPARED} for r in expected
    ]
    assert seen["maud"]["live"] == files[MAUD]["live"]
    assert seen["maud"]["live"]["pools"]["body"] == {"value": 5}  # the raise was paid
    assert [r["answered"] for r in stored] == [
        None,
        None,
        scene.RAISE,
        {"choose": scene.CHOICE},
    ]


# ── the command line around it ───────────────────────────────────────────────


def test_db_new_game_makes_a_game_the_stdio_server_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dicebound.edge.cli import main
    from http_api_support import DATA

    url = f"sqlite:///{tmp_path / 'desk.db'}"
    maud = DATA / "characters" / "advanced-resolution" / "maud.json"
    argv = ["db", "new-game", "--db", url, "--name", "Desk", "--ruleset", "advanced-resolution"]
    assert main([*argv, "--character", str(maud)]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["characters"] == [MAUD] and made["token"].startswith("dbg_")
    assert made["ruleset"] == "advanced-resolution" and made["layers"] == []

    # a refused character makes no game at all
    before = store_rows(url)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"name": "Broken", "sheet": {"v": 1, "build": {"abilities": 3}}}))
    assert main([*argv, "--character", str(broken)]) == 1
    assert "the character was refused" in capsys.readouterr().err
    assert store_rows(url) == before

    # an unknown game is refused before the protocol starts, on standard error
    assert main(["mcp", "--db", url, "--game", "nope"]) == 2
    assert 'no game "nope" is here' in capsys.readouterr().err


# ── store and service failures: dicebound's sentence, one log line at most ───


def _log_since(server: ServerProcess, mark: int) -> str:
    return server.log_path.read_bytes()[mark:].decode("utf-8", errors="replace")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_prompt_for_a_game_the_token_cannot_see_is_refused_in_a_sentence(
    server: ServerProcess, transport: str
) -> None:
    """Issue 23, defect 9: it answered a bare error code 0 (over HTTP, -32603 "Internal
    server error") and logged a traceback. Over stdio every game of the store may be
    seen, so only one that does not exist is refused there."""
    table = seat_a_table(server, "advanced-resolution", "maud")
    other = seat_a_table(server, "advanced-resolution", "peet")
    games = (table.id, "no-such-game") if transport == "http" else ("no-such-game",)
    mark = server.log_path.stat().st_size

    async def scene() -> list[MCPError]:
        refused = []
        async with connect(transport, other) as client:
            for game in games:
                with pytest.raises(MCPError) as caught:
                    await client.get_prompt("game_master", {"game": game})
                refused.append(caught.value)
        return refused

    for error, game in zip(run(scene), games, strict=True):
        assert error.code == INVALID_PARAMS
        assert error.message == f'no game "{game}" is here.'
    logged = _log_since(server, mark)
    assert "Traceback" not in logged and len(logged.splitlines()) <= 2, logged


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_unknown_prompt_is_refused_in_a_sentence_and_one_log_line(
    server: ServerProcess, transport: str
) -> None:
    """Issue 40, defect 11: a prompt the server does not have, asked with no token,
    answered a bare internal error and logged about thirty lines with two tracebacks
    (so did an argument the prompt does not take). Each is refused as a prompt for an
    unseen game is, and logs one line (over HTTP: the stdio server logs on its own
    standard error)."""
    table = seat_a_table(server, "advanced-resolution", "maud")
    asked = [("nope", {}), ("game_master", {"gamez": table.id})]

    async def scene() -> list[tuple[int, str, list[str]]]:
        refused = []
        async with connect(transport, table, token="") as client:
            for name, arguments in asked:
                mark = server.log_path.stat().st_size
                with pytest.raises(MCPError) as caught:
                    await client.get_prompt(name, arguments)
                logged = _log_since(server, mark).splitlines()
                refused.append((caught.value.code, caught.value.message, logged))
        return refused

    seen = run(scene)
    assert [(code, message) for code, message, _ in seen] == [
        (INVALID_PARAMS, 'no prompt "nope" is here; ask for game_master.'),
        (INVALID_PARAMS, 'the game_master prompt takes game, not "gamez".'),
    ]
    for _, _, logged in seen:
        assert "Traceback" not in "\n".join(logged)
        if transport == "http":
            assert len(logged) == 1 and "dicebound.mcp: prompt refused" in logged[0], logged


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_nul_in_an_idempotency_key_is_refused_in_a_sentence(
    server: ServerProcess, transport: str
) -> None:
    """Issue 23, defect 9: on PostgreSQL the key reached the store, which refused it, and
    the tool answered a generic error and logged a traceback."""
    table = seat_a_table(server, "advanced-resolution", "maud")
    before = store_rows(server.db_url)
    mark = server.log_path.stat().st_size

    async def scene() -> list[str | None]:
        async with connect(transport, table) as client:
            return [
                (await call(client, "resolve_checks", {"text": _HEAVY, "idempotency_key": k})).error
                for k in ("key\x00one", "tab\tkey")
            ]

    for error in run(scene):
        assert error == (
            "Error executing tool resolve_checks: an idempotency key is 1 to 200 printable "
            "characters (no NUL or other control character); nothing was thrown or paid."
        )
    assert store_rows(server.db_url) == before
    logged = _log_since(server, mark)
    assert "Traceback" not in logged and len(logged.splitlines()) <= 2, logged
