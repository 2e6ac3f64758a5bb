"""Seats (issue 26; docs/design/store-and-service.md "Seats and rights"): every HTTP
route against the three seats, the admin, the game master and the player of character
A (and that player acting on character B where it matters). Each cell is tested on a
table of its own: allowed answers 2xx; refused answers 403 with its sentence and
changes nothing in the store. Another game's table answers 404, as if it did not
exist; a seat replaced or revoked stops at once, on every process. On SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from dicebound.app.access import token_hash
from dicebound.edge.http import create_app
from http_api_support import LOCKPICK, bearer, character_file, problem_of, store_rows, stored_value
from mcp_support import Table, call, connect, run
from seats_support import (
    ADMIN,
    GM,
    PLAYER,
    PLAYER_MAY,
    RULESET,
    SEATS,
    THROWN,
    A,
    B,
    Scene,
    set_a_scene,
    upload_seats_ruleset,
)
from server_support import RESERVE_FILE, logs_on_failure, running
from service_support import ADMIN_TOKEN, JSON, ServerProcess, postgres_database, store_url_for

EVERY = frozenset(SEATS)
MASTERS = frozenset({ADMIN, GM})
ADMIN_ONLY = frozenset({ADMIN})


@dataclass(frozen=True)
class Cell:
    """One route (``route``: its OpenAPI method and path) sent as ``path`` with
    ``{game}``, ``{A}``, ``{B}`` (names) and ``{a}``, ``{b}`` (their records) filled
    in, and the seats that may send it."""

    route: tuple[str, str]
    path: str
    allowed: frozenset[str]
    body: Any = None
    raw: bytes | None = None  # a file sent as JSON bytes
    revision_of: str | None = None  # send If-Match with this character's revision
    headers: dict[str, str] = field(default_factory=dict)
    stream: bool = False  # an event stream: read what it has caught up, then ended
    past_rights: int | None = None  # what an allowed seat is answered past the rights

    @property
    def method(self) -> str:
        return self.route[0]


_NOTES = {"text": {"notes": "owes Maud a drink"}}

CELLS: dict[str, Cell] = {
    "GET the health": Cell(("GET", "/health"), "/health", EVERY),
    "GET the readiness": Cell(("GET", "/ready"), "/ready", EVERY),
    "GET the metrics": Cell(("GET", "/metrics"), "/metrics", ADMIN_ONLY),
    "GET the rulesets": Cell(("GET", "/rulesets"), "/rulesets", EVERY),
    "POST a ruleset": Cell(
        ("POST", "/rulesets"), "/rulesets", ADMIN_ONLY, raw=RESERVE_FILE.read_bytes()
    ),
    "POST a ruleset to check": Cell(
        ("POST", "/rulesets/check"), "/rulesets/check", EVERY, raw=RESERVE_FILE.read_bytes()
    ),
    "GET a ruleset": Cell(("GET", "/rulesets/{ruleset_id}"), f"/rulesets/{RULESET}", EVERY),
    "GET a sheet form": Cell(
        ("GET", "/rulesets/{ruleset_id}/sheet-form"), f"/rulesets/{RULESET}/sheet-form", EVERY
    ),
    "GET the packaged characters": Cell(
        ("GET", "/rulesets/{ruleset_id}/characters"), "/rulesets/wod-pool/characters", EVERY
    ),
    "POST a character file to check": Cell(
        ("POST", "/rulesets/{ruleset_id}/characters/check"),
        f"/rulesets/{RULESET}/characters/check",
        EVERY,
        character_file("advanced-resolution", "peet"),
    ),
    "POST a roll": Cell(
        ("POST", "/roll"), "/roll", EVERY, {"ruleset": "genesys", "dice": "2 ability", "seed": 1}
    ),
    "POST a game": Cell(
        ("POST", "/games"), "/games", ADMIN_ONLY, {"name": "N", "ruleset": RULESET}
    ),
    "GET the games": Cell(("GET", "/games"), "/games", EVERY),
    "GET the game": Cell(("GET", "/games/{game}"), "/games/{game}", EVERY),
    "DELETE the game": Cell(("DELETE", "/games/{game}"), "/games/{game}", ADMIN_ONLY),
    "GET the game's export": Cell(
        ("GET", "/games/{game}/export"), "/games/{game}/export", ADMIN_ONLY
    ),
    # a file that is no game file: the admin's right lets it through to be refused (422)
    "POST a game to import": Cell(
        ("POST", "/games/import"),
        "/games/import",
        ADMIN_ONLY,
        {"format": "not a game"},
        past_rights=422,
    ),
    "POST a new game-master token": Cell(
        ("POST", "/games/{game}/token"), "/games/{game}/token", MASTERS
    ),
    "PUT A's character file": Cell(
        ("PUT", "/games/{game}/characters/{name}"),
        "/games/{game}/characters/{A}",
        MASTERS,
        character_file("advanced-resolution", "peet"),
    ),
    "PUT a new character": Cell(
        ("PUT", "/games/{game}/characters/{name}"),
        "/games/{game}/characters/Peet Again",
        MASTERS,
        {**character_file("advanced-resolution", "peet"), "name": "Peet Again"},
    ),
    "GET A's character": Cell(
        ("GET", "/games/{game}/characters/{name}"), "/games/{game}/characters/{A}", EVERY
    ),
    "GET B's character": Cell(
        ("GET", "/games/{game}/characters/{name}"), "/games/{game}/characters/{B}", EVERY
    ),
    "PATCH A's notes": Cell(
        ("PATCH", "/games/{game}/characters/{name}/live"),
        "/games/{game}/characters/{A}/live",
        EVERY,
        _NOTES,
        revision_of=A,
    ),
    "PATCH B's notes": Cell(
        ("PATCH", "/games/{game}/characters/{name}/live"),
        "/games/{game}/characters/{B}/live",
        MASTERS,
        _NOTES,
        revision_of=B,
    ),
    "PATCH A's pools": Cell(
        ("PATCH", "/games/{game}/characters/{name}/live"),
        "/games/{game}/characters/{A}/live",
        MASTERS,
        {"pools": {"luck": 1}},
        revision_of=A,
    ),
    "PATCH A's notes and pools": Cell(
        ("PATCH", "/games/{game}/characters/{name}/live"),
        "/games/{game}/characters/{A}/live",
        MASTERS,
        {**_NOTES, "pools": {"luck": 1}},
        revision_of=A,
    ),
    "GET the Game Master's lesson": Cell(("GET", "/games/{game}/gm"), "/games/{game}/gm", MASTERS),
    "GET the lesson for A": Cell(
        ("GET", "/games/{game}/gm"), "/games/{game}/gm?character={A}", MASTERS
    ),
    "POST odds without who": Cell(
        ("POST", "/games/{game}/odds"), "/games/{game}/odds", EVERY, {"tag": LOCKPICK}
    ),
    "POST A's odds": Cell(
        ("POST", "/games/{game}/odds"), "/games/{game}/odds", EVERY, {"tag": LOCKPICK, "who": A}
    ),
    "POST B's odds": Cell(
        ("POST", "/games/{game}/odds"), "/games/{game}/odds", MASTERS, {"tag": LOCKPICK, "who": B}
    ),
    "GET the party": Cell(("GET", "/games/{game}/party"), "/games/{game}/party", EVERY),
    "GET the report": Cell(("GET", "/games/{game}/report"), "/games/{game}/report", MASTERS),
    "POST a check A rolls": Cell(
        ("POST", "/games/{game}/checks"), "/games/{game}/checks", MASTERS, {"text": LOCKPICK}
    ),
    "POST a sheet command on A": Cell(
        ("POST", "/games/{game}/checks"),
        "/games/{game}/checks",
        MASTERS,
        {"text": f'[sheet: op="spend" pool="luck" amount="1" who="{A}"]'},
    ),
    "GET the records": Cell(("GET", "/games/{game}/records"), "/games/{game}/records", EVERY),
    "GET the events": Cell(
        ("GET", "/games/{game}/events"), "/games/{game}/events?after=0", EVERY, stream=True
    ),
    "GET A's record": Cell(
        ("GET", "/games/{game}/records/{record_id}"), "/games/{game}/records/{a}", EVERY
    ),
    "GET B's record": Cell(
        ("GET", "/games/{game}/records/{record_id}"), "/games/{game}/records/{b}", EVERY
    ),
    "POST an answer to A's offer": Cell(
        ("POST", "/games/{game}/records/{record_id}/after"),
        "/games/{game}/records/{a}/after",
        EVERY,
        THROWN[A][1],
    ),
    "POST an answer to B's offer": Cell(
        ("POST", "/games/{game}/records/{record_id}/after"),
        "/games/{game}/records/{b}/after",
        MASTERS,
        THROWN[B][1],
    ),
    "GET A's record verified": Cell(
        ("GET", "/games/{game}/records/{record_id}/verify"),
        "/games/{game}/records/{a}/verify",
        EVERY,
    ),
    "GET B's record verified": Cell(
        ("GET", "/games/{game}/records/{record_id}/verify"),
        "/games/{game}/records/{b}/verify",
        EVERY,
    ),
    "GET A's card": Cell(
        ("GET", "/games/{game}/records/{record_id}/card"), "/games/{game}/records/{a}/card", EVERY
    ),
    "GET B's card": Cell(
        ("GET", "/games/{game}/records/{record_id}/card"), "/games/{game}/records/{b}/card", EVERY
    ),
    "POST A's seat": Cell(
        ("POST", "/games/{game}/characters/{name}/seat"),
        "/games/{game}/characters/{A}/seat",
        MASTERS,
    ),
    "POST B's seat": Cell(
        ("POST", "/games/{game}/characters/{name}/seat"),
        "/games/{game}/characters/{B}/seat",
        MASTERS,
    ),
    "GET the fight": Cell(("GET", "/games/{game}/fight"), "/games/{game}/fight", EVERY),
    # the table has no fight: past the rights, no combatant answers to A (404)
    "GET A's fight options": Cell(
        ("GET", "/games/{game}/fight/options"),
        "/games/{game}/fight/options?who={A}",
        EVERY,
        past_rights=404,
    ),
    # no fight either: an allowed step is answered ok false (no-fight), and recorded
    "POST a flee": Cell(
        ("POST", "/games/{game}/fight"), "/games/{game}/fight", MASTERS, {"op": "flee"}
    ),
    "POST an end-turn as A": Cell(
        ("POST", "/games/{game}/fight"),
        "/games/{game}/fight",
        EVERY,
        {"op": "end-turn", "who": A},
    ),
    "POST an end-turn as B": Cell(
        ("POST", "/games/{game}/fight"),
        "/games/{game}/fight",
        MASTERS,
        {"op": "end-turn", "who": B},
    ),
    "DELETE A's seat": Cell(
        ("DELETE", "/games/{game}/characters/{name}/seat"),
        "/games/{game}/characters/{A}/seat",
        MASTERS,
    ),
    "DELETE B's seat": Cell(
        ("DELETE", "/games/{game}/characters/{name}/seat"),
        "/games/{game}/characters/{B}/seat",
        MASTERS,
    ),
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def table(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[TestClient, str]]:
    """The application over one store per kind for this module, the seats ruleset in it;
    each test sets a table of its own."""
    folder = tmp_path_factory.mktemp(f"seats-{request.param}")
    with store_url_for(request.param, folder) as url, pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICEBOUND_ADMIN_TOKEN", ADMIN_TOKEN)
        with TestClient(create_app(url)) as client:
            upload_seats_ruleset(client.request)
            yield client, url


def _send(client: TestClient, cell: Cell, scene: Scene, headers: dict[str, str]) -> Any:
    path = cell.path.format(game=scene.game, A=A, B=B, a=scene.records[A], b=scene.records[B])
    sent = {**headers, **cell.headers}
    if cell.revision_of is not None:
        read = client.get(f"/games/{scene.game}/characters/{cell.revision_of}", headers=headers)
        sent["If-Match"] = read.headers.get("etag", '"1"')
    if cell.stream:
        return _caught_up(client, path, sent)
    if cell.raw is not None:
        return client.request(cell.method, path, content=cell.raw, headers={**sent, **JSON})
    if cell.body is None:
        return client.request(cell.method, path, headers=sent)
    return client.request(cell.method, path, json=cell.body, headers=sent)


def _caught_up(client: TestClient, path: str, headers: dict[str, str]) -> Any:
    """A stream's answer, ended after what it first catches up on: sent while the
    process's streams are closing (as at shutdown, when a new one ends at once), since
    an open one never ends by itself."""
    hub = client.app.state.events  # type: ignore[attr-defined]
    hub.closing = True
    try:
        return client.get(path, headers=headers)
    finally:
        hub.closing = False


def _seat_events(answer: Any) -> list[dict[str, object]]:
    """The ``seat`` events a stream's answer holds, in order."""
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/event-stream")
    frames = [f.split("\n") for f in answer.text.split("\n\n") if f]
    return [json.loads(f[2][len("data: ") :]) for f in frames if f[1] == "event: seat"]


def _refusal(cell: Cell, seat: str) -> str:
    """The sentence a refused seat reads: the admin's uses name who may make them; a
    player's refusal names what a player may do."""
    if cell.allowed == ADMIN_ONLY or seat != PLAYER:
        return "only the admin token may "
    return PLAYER_MAY + "; this asks to "


@pytest.mark.parametrize("seat", SEATS)
@pytest.mark.parametrize("name", list(CELLS))
def test_each_seat_may_do_what_the_rights_table_gives_it_and_nothing_else(
    table: tuple[TestClient, str], name: str, seat: str
) -> None:
    client, url = table
    cell = CELLS[name]
    scene = set_a_scene(client.request)
    before = store_rows(url)
    got = _send(client, cell, scene, scene.headers(seat))
    if seat in cell.allowed:
        if cell.past_rights is not None:  # past the rights, what was asked is refused
            assert problem_of(got, cell.past_rights)["status"] == cell.past_rights, got.text
            assert store_rows(url) == before
            return
        assert got.status_code in (200, 201, 204), f"{name} × {seat}: {got.text}"
        return
    if cell.route == ("GET", "/metrics"):  # the admin's alone: any other token, 401
        assert (
            problem_of(got, 401)["detail"] == "the metrics are the admin's: send the admin token."
        )
        return
    refused = problem_of(got, 403)
    assert refused["detail"].startswith(_refusal(cell, seat)), refused["detail"]
    assert store_rows(url) == before, f"{name} × {seat} changed the store"


def test_a_stream_shows_a_seat_made_to_the_masters_and_to_that_characters_player_alone(
    table: tuple[TestClient, str],
) -> None:
    client, _ = table
    scene = set_a_scene(client.request)
    path = f"/games/{scene.game}/events?after=0"
    both = [{"character": A, "made": True}, {"character": B, "made": True}]
    for seat, shown in [(ADMIN, both), (GM, both), (PLAYER, both[:1])]:
        assert _seat_events(_caught_up(client, path, scene.headers(seat))) == shown, seat


def test_the_table_has_a_row_for_every_route(table: tuple[TestClient, str]) -> None:
    client, _ = table
    paths = client.get("/openapi.json").json()["paths"]
    routes = {(method.upper(), path) for path, methods in paths.items() for method in methods}
    assert routes == {cell.route for cell in CELLS.values()}


# ── the sentences, and what a player's allowed cells answer ──────────────────


@pytest.mark.parametrize(
    ("name", "asks"),
    [
        ("POST a check A rolls", "resolve checks and sheet commands."),
        ("GET the Game Master's lesson", "read the Game Master's lesson."),
        ("PATCH A's pools", "change a character's live state beyond its notes."),
        ("PATCH B's notes", f"edit {B}'s notes, and this seat is {A}'s."),
        ("POST B's odds", f"ask {B}'s odds, and this seat is {A}'s."),
        (
            "POST an answer to B's offer",
            f"answer the after-roll offer of a record {B} rolled, and this seat is {A}'s.",
        ),
        ("DELETE A's seat", "revoke a player's seat."),
        ("POST a flee", "start, flee or end a fight."),
        ("POST an end-turn as B", f"act in the fight for {B}, and this seat is {A}'s."),
        ("POST a new game-master token", "make a new game-master token."),
    ],
)
def test_a_refused_player_reads_what_its_seat_may_do_and_what_was_asked(
    table: tuple[TestClient, str], name: str, asks: str
) -> None:
    client, _ = table
    scene = set_a_scene(client.request)
    refused = problem_of(_send(client, CELLS[name], scene, scene.headers(PLAYER)), 403)
    assert refused["detail"] == f"{PLAYER_MAY}; this asks to {asks}"


def test_a_player_reads_its_own_game_and_asks_its_own_odds(
    table: tuple[TestClient, str],
) -> None:
    client, _ = table
    scene = set_a_scene(client.request)
    player = scene.headers(PLAYER)
    listed = client.get("/games", headers=player).json()
    assert [g["id"] for g in listed] == [scene.game]
    odds = client.post(f"/games/{scene.game}/odds", json={"tag": LOCKPICK}, headers=player)
    as_gm = client.post(
        f"/games/{scene.game}/odds", json={"tag": LOCKPICK, "who": A}, headers=scene.headers(GM)
    )
    assert odds.status_code == 200 and odds.json() == as_gm.json()
    patched = client.patch(
        f"/games/{scene.game}/characters/{A}/live",
        json={"text": {"notes": "owes Maud a drink"}},
        headers={**player, "If-Match": "1"},
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["live"]["text"] == {"notes": "owes Maud a drink"}
    answered = client.post(
        f"/games/{scene.game}/records/{scene.records[A]}/after", json=THROWN[A][1], headers=player
    )
    assert answered.status_code == 200 and answered.json()["answered"] == THROWN[A][1]


# ── another game, and a seat replaced or revoked ─────────────────────────────

_GAME_CELLS = {n: c for n, c in CELLS.items() if c.route[1].startswith("/games/{game}")}


def test_a_players_token_reaches_nothing_of_another_game(table: tuple[TestClient, str]) -> None:
    client, url = table
    mine, theirs = set_a_scene(client.request), set_a_scene(client.request, "Another table")
    before = store_rows(url)
    for name, cell in _GAME_CELLS.items():
        got = _send(client, cell, theirs, mine.headers(PLAYER))
        if cell.allowed == ADMIN_ONLY:  # refused before any game is looked for
            assert problem_of(got, 403)["detail"].startswith("only the admin token may "), name
            continue
        refused = problem_of(got, 404)
        assert refused["detail"] == f'no game "{theirs.game}" is here.', name
    assert store_rows(url) == before


def test_a_seat_replaced_or_revoked_stops_at_once(table: tuple[TestClient, str]) -> None:
    client, url = table
    scene = set_a_scene(client.request)
    seat = f"/games/{scene.game}/characters/{A}/seat"
    game = f"/games/{scene.game}"
    old = scene.headers(PLAYER)
    made = client.post(seat, headers=scene.headers(GM))
    assert made.status_code == 201 and made.json()["token"].startswith("dbp_")
    new = bearer(made.json()["token"])
    assert client.get(game, headers=new).status_code == 200
    problem_of(client.get(game, headers=old), 404)
    problem_of(client.get("/games", headers=old), 401)
    # only the new token's hash is kept, never the token
    kept = stored_value(
        url, "SELECT token_hash FROM seats WHERE game_id = :g AND character = :c", g=scene.game, c=A
    )
    assert kept == token_hash(made.json()["token"])
    revoked = client.delete(seat, headers=scene.headers(ADMIN))
    assert revoked.status_code == 204 and revoked.content == b""
    problem_of(client.get(game, headers=new), 404)
    problem_of(client.get("/games", headers=new), 401)
    before = store_rows(url)
    again = problem_of(client.delete(seat, headers=scene.headers(GM)), 404)
    assert again["detail"] == f'"{A}" has no player\'s seat to revoke.'
    nobody = problem_of(
        client.post(f"/games/{scene.game}/characters/Nobody/seat", headers=scene.headers(GM)), 404
    )
    assert nobody["detail"].startswith('"Nobody" is not a character of this game.')
    assert store_rows(url) == before
    # B's seat is untouched, and the game master's token keeps every right
    assert client.get(game, headers=bearer(scene.seat_tokens[B])).status_code == 200
    assert client.post(seat, headers=scene.headers(GM)).status_code == 201


def test_a_new_game_master_token_keeps_the_players_seats(table: tuple[TestClient, str]) -> None:
    client, _ = table
    scene = set_a_scene(client.request)
    rotated = client.post(f"/games/{scene.game}/token", headers=scene.headers(GM))
    assert rotated.status_code == 200
    assert (
        client.get(f"/games/{scene.game}/party", headers=scene.headers(PLAYER)).status_code == 200
    )


@pytest.mark.server
@logs_on_failure
def test_a_revoked_seat_stops_at_once_on_every_process(tmp_path: Path) -> None:
    with postgres_database() as url, running(url, tmp_path, count=2) as (a, b):
        with httpx.Client(base_url=a.base, timeout=30) as first:
            upload_seats_ruleset(first.request)
            scene = set_a_scene(first.request)
        game = f"/games/{scene.game}"
        player = scene.headers(PLAYER)
        assert httpx.get(b.base + game, headers=player).status_code == 200
        assert _mcp_error(b, scene) is None
        revoked = httpx.delete(a.base + game + f"/characters/{A}/seat", headers=scene.headers(GM))
        assert revoked.status_code == 204, revoked.text
        # no wait: every process reads the seat from the store on every request
        problem_of(httpx.get(b.base + game, headers=player), 404)
        problem_of(httpx.get(b.base + "/games", headers=player), 401)
        assert _mcp_error(b, scene) == (
            "Error executing tool character: the token sent is no game's token."
        )


def _mcp_error(server: ServerProcess, scene: Scene) -> str | None:
    table = Table(server, scene.game, scene.token(PLAYER), (A, B))

    async def read() -> str | None:
        async with connect("http", table) as client:
            return (await call(client, "character", {"name": A})).error

    return run(read)
